// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_prm": the constants, layouts and pure encode/decode
 * helpers of include/softhca_prm.h, which the driver, the device model and
 * the provider all rely on. Every value below is the hardware interface, so
 * each case pins concrete numbers rather than re-deriving them from the
 * header's own macros.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include "softhca_prm.h"

/* ------------------------------------------------------------------------
 * Register page and EQ doorbells
 */
static void reg_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SOFTHCA_DEVICE_MAGIC, 0x53484341u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_IF_VERSION >> 16, 1u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_MAGIC, 0x000);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_VERSION, 0x004);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_STATUS, 0x008);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_CMDQ_CAPS, 0x00c);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_CTRL, 0x010);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_CMDQ_ADDR_LO, 0x018);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_CMDQ_ADDR_HI, 0x01c);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_CMDQ_LOG_SIZE, 0x020);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_CMD_DB, 0x024);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_EQ_DB_BASE, 0x100);

	/* One 8-byte doorbell per EQ, all inside the 4 KiB register page. */
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_EQ_DB(0), 0x100);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_EQ_DB(1), 0x108);
	KUNIT_EXPECT_EQ(test, SOFTHCA_REG_EQ_DB(63), 0x2f8);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MAX_EQS, 64);
	KUNIT_EXPECT_LE(test, SOFTHCA_REG_EQ_DB(SOFTHCA_MAX_EQS - 1) + 8,
			SOFTHCA_REG_PAGE_SIZE);

	KUNIT_EXPECT_EQ(test, SOFTHCA_CMDQ_CAPS_LOG_MAX_SIZE(0x1234u), 0x34u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMDQ_CAPS_NUM_VECTORS(0x1234u), 0x12u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMDQ_CAPS_LOG_MAX_SIZE(0xffffffffu),
			0xffu);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMDQ_CAPS_NUM_VECTORS(0xffffffffu),
			0xffu);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMDQ_CAPS_NUM_VECTORS(0xff00ffu), 0u);

	KUNIT_EXPECT_EQ(test, SOFTHCA_STATUS_READY, 0x1u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_STATUS_FATAL, 0x2u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_STATUS_SYNDROME_MASK, 0xff00u);
	KUNIT_EXPECT_EQ(test, (0x4203u & SOFTHCA_STATUS_SYNDROME_MASK) >>
			SOFTHCA_STATUS_SYNDROME_SHIFT, 0x42u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CTRL_ENABLE, 0x1u);
}

static void eq_db_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SOFTHCA_EQ_DB_CI_MASK, 0x00ffffffu);
	KUNIT_EXPECT_EQ(test, SOFTHCA_EQ_DB_ARM, 0x80000000u);

	KUNIT_EXPECT_EQ(test, softhca_eq_db(0, 0), 0x00000000u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0, 1), 0x80000000u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(5, 0), 0x00000005u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0x123456, 1), 0x80123456u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0xffffff, 1), 0x80ffffffu);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0xffffff, 0), 0x00ffffffu);

	/* Any non-zero arm arms. */
	KUNIT_EXPECT_EQ(test, softhca_eq_db(1, 2), 0x80000001u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(1, -1), 0x80000001u);

	/* The consumer index wraps at 24 bits and never leaks into ARM. */
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0x01000000, 0), 0x00000000u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0x01000001, 1), 0x80000001u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0x81234567, 0), 0x00234567u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0xffffffff, 0), 0x00ffffffu);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0xffffffff, 1), 0x80ffffffu);
}

/* ------------------------------------------------------------------------
 * CQ arm word and UAR CQ doorbell
 */
static void cq_arm_test(struct kunit *test)
{
	static const u32 cis[] = { 0, 1, 0x7f, 0xabcdef, 0xffffff, 0x1000000,
				   0x80000001, 0xffffffff };
	unsigned int i, sn, sol;

	KUNIT_EXPECT_EQ(test, SOFTHCA_CQ_ARM_CI_MASK, 0x00ffffffu);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CQ_ARM_SOLICITED, 0x01000000u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CQ_ARM_REQUEST, 0x02000000u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CQ_ARM_SN_SHIFT, 28);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CQ_ARM_SN_MASK, 0x3u);

	KUNIT_EXPECT_EQ(test, softhca_cq_arm(0, 0, 0), 0x02000000u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(0, 1, 0), 0x03000000u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(1, 0, 0), 0x12000000u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(2, 0, 0x10), 0x22000010u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(3, 1, 0xabcdef), 0x33abcdefu);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(1, 7, 5), 0x13000005u);

	/* sn is two bits, ci 24 bits: neither spills into other fields. */
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(4, 0, 0), 0x02000000u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(7, 0, 1), 0x32000001u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(0xffffffff, 0, 0), 0x32000000u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(0, 0, 0x01000005), 0x02000005u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(0, 0, 0xffffffff), 0x02ffffffu);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(0, 0, 0x03000000), 0x02000000u);

	/* Every combination: reserved bits 26, 27, 30, 31 stay clear. */
	for (sn = 0; sn < 8; sn++) {
		for (sol = 0; sol < 2; sol++) {
			for (i = 0; i < ARRAY_SIZE(cis); i++) {
				u32 arm = softhca_cq_arm(sn, sol, cis[i]);

				KUNIT_ASSERT_EQ_MSG(test, arm & 0xcc000000u, 0u,
						    "sn %u sol %u ci %#x", sn,
						    sol, cis[i]);
				KUNIT_ASSERT_EQ(test, arm & 0x00ffffffu,
						cis[i] & 0x00ffffffu);
				KUNIT_ASSERT_EQ(test, !!(arm & 0x01000000u),
						!!sol);
				KUNIT_ASSERT_EQ(test, arm & 0x02000000u,
						0x02000000u);
				KUNIT_ASSERT_EQ(test, softhca_cq_arm_sn(arm),
						sn & 3);
			}
		}
	}

	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0), 0u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0x10000000), 1u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0x20000000), 2u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0x33abcdef), 3u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0x0fffffff), 0u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0xc0000000), 0u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(0xffffffff), 3u);
}

static void cq_db_test(struct kunit *test)
{
	u64 db;

	KUNIT_EXPECT_EQ(test, SOFTHCA_UAR_ENGINE_STATE, 0x000);
	KUNIT_EXPECT_EQ(test, SOFTHCA_UAR_CQ_DB, 0x040);
	KUNIT_EXPECT_EQ(test, SOFTHCA_UAR_SQ_DB, 0x080);
	KUNIT_EXPECT_EQ(test, SOFTHCA_ENGINE_RUNNING, 0);
	KUNIT_EXPECT_EQ(test, SOFTHCA_ENGINE_IDLE, 1);

	KUNIT_EXPECT_EQ(test, softhca_cq_db(0, 0), 0ull);
	KUNIT_EXPECT_EQ(test, softhca_cq_db(0, 1), 0x1ull);
	KUNIT_EXPECT_EQ(test, softhca_cq_db(1, 0), 0x100000000ull);
	KUNIT_EXPECT_EQ(test, softhca_cq_db(0x33abcdef, 0x1234),
			0x33abcdef00001234ull);
	/* No sign extension of either half. */
	KUNIT_EXPECT_EQ(test, softhca_cq_db(0x80000000u, 0),
			0x8000000000000000ull);
	KUNIT_EXPECT_EQ(test, softhca_cq_db(0, 0x80000000u),
			0x0000000080000000ull);
	KUNIT_EXPECT_EQ(test, softhca_cq_db(0xffffffffu, 0xffffffffu),
			0xffffffffffffffffull);

	db = softhca_cq_db(softhca_cq_arm(2, 1, 17), 5);
	KUNIT_EXPECT_EQ(test, db, 0x2300001100000005ull);
	KUNIT_EXPECT_EQ(test, (u32)(db >> 32), softhca_cq_arm(2, 1, 17));
	KUNIT_EXPECT_EQ(test, (u32)db, 5u);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(db >> 32), 2u);
}

/* ------------------------------------------------------------------------
 * Owner bits of EQ/CQ rings
 */
static void ring_owner_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SOFTHCA_EQE_OWNER, 0x01);

	/* A ring of one entry flips on every entry. */
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(0, 0), 0);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(1, 0), 1);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(2, 0), 0);

	KUNIT_EXPECT_EQ(test, softhca_ring_owner(0, 4), 0);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(15, 4), 0);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(16, 4), 1);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(31, 4), 1);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(32, 4), 0);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(0xffffffffu, 4), 1);

	KUNIT_EXPECT_EQ(test, softhca_ring_owner(1023, 10), 0);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(1024, 10), 1);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(0x7fffffffu, 31), 0);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(0x80000000u, 31), 1);
	KUNIT_EXPECT_EQ(test, softhca_ring_owner(0xffffffffu, 31), 1);

	/* The buffer starts with every owner bit set: nothing new at ci 0. */
	KUNIT_EXPECT_FALSE(test, softhca_ring_entry_valid(1, 0, 4));
	KUNIT_EXPECT_TRUE(test, softhca_ring_entry_valid(0, 0, 4));
	KUNIT_EXPECT_TRUE(test, softhca_ring_entry_valid(0, 15, 4));
	KUNIT_EXPECT_FALSE(test, softhca_ring_entry_valid(0, 16, 4));
	KUNIT_EXPECT_TRUE(test, softhca_ring_entry_valid(1, 16, 4));
	KUNIT_EXPECT_FALSE(test, softhca_ring_entry_valid(1, 32, 4));
	/* Only bit 0 of the owner byte counts. */
	KUNIT_EXPECT_TRUE(test, softhca_ring_entry_valid(0xfe, 0, 4));
	KUNIT_EXPECT_FALSE(test, softhca_ring_entry_valid(0xff, 0, 4));
	KUNIT_EXPECT_TRUE(test, softhca_ring_entry_valid(0x03, 16, 4));
}

/* Producer/consumer state of one simulated ring. */
struct ring_sim {
	struct kunit *test;
	u8 *owner;		/* owner byte of each slot */
	u32 log_size;
	u32 size;
	u32 pi;			/* producer index */
	u32 ci;			/* consumer index */
	unsigned long checks;
};

/* What the consumer at index idx sees in the slot it would read next. */
static bool ring_sim_valid(struct ring_sim *r, u32 idx)
{
	return softhca_ring_entry_valid(r->owner[idx & (r->size - 1)], idx,
					r->log_size);
}

/*
 * Check every slot of the ring: the entries between ci and pi are new for
 * the consumer, the other slots hold stale entries of the previous pass
 * (or the initial all-ones fill) and must read as not valid.
 */
static void ring_sim_check(struct ring_sim *r)
{
	struct kunit *test = r->test;
	u32 i;

	for (i = 0; i < r->size; i++) {
		u32 idx = r->ci + i;
		bool fresh = i < r->pi - r->ci;

		KUNIT_ASSERT_EQ_MSG(test, ring_sim_valid(r, idx), fresh,
				    "log_size %u pi %#x ci %#x idx %#x",
				    r->log_size, r->pi, r->ci, idx);
		r->checks++;
	}
}

/*
 * Run a producer and a consumer over a 2^log_size ring starting at index
 * 'start' for 'wraps' passes and then some, in batches of varying size.
 */
static void ring_sim_run(struct kunit *test, u32 log_size, u32 start,
			 u32 wraps)
{
	struct ring_sim r = {
		.test = test,
		.log_size = log_size,
		.size = 1u << log_size,
		.pi = start,
		.ci = start,
	};
	u32 total = wraps * r.size + r.size / 2 + 1;
	u32 produced = 0, step = 0, i;

	r.owner = kunit_kzalloc(test, r.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r.owner);
	/*
	 * The state a producer leaves after a full pass ending at 'start'.
	 * For start 0 that is the "every owner bit set" initial fill; the
	 * other bits of the owner byte are garbage the check must ignore.
	 */
	for (i = 0; i < r.size; i++) {
		u32 idx = start - r.size + i;

		r.owner[idx & (r.size - 1)] = 0xa4 |
			softhca_ring_owner(idx, log_size);
	}
	if (start == 0) {
		for (i = 0; i < r.size; i++)
			KUNIT_ASSERT_EQ(test, r.owner[i] & SOFTHCA_EQE_OWNER,
					1);
	}
	ring_sim_check(&r);

	while (produced < total) {
		/* Produce 1, size, size - 1, size / 3 ... entries in turn. */
		u32 room = r.size - (r.pi - r.ci);
		u32 want = (step % 4 == 0) ? 1 : (step % 4 == 1) ? r.size :
			   (step % 4 == 2) ? r.size - 1 : r.size / 3 + 1;
		u32 n = min3(want, room, total - produced);

		for (i = 0; i < n; i++, r.pi++)
			r.owner[r.pi & (r.size - 1)] = 0x5a |
				softhca_ring_owner(r.pi, log_size);
		produced += n;
		ring_sim_check(&r);

		/* Consume all but one on odd steps, everything otherwise. */
		n = r.pi - r.ci;
		if (step & 1 && n > 1)
			n--;
		for (i = 0; i < n; i++, r.ci++)
			KUNIT_ASSERT_TRUE(test, ring_sim_valid(&r, r.ci));
		ring_sim_check(&r);
		step++;
	}
	while (r.ci != r.pi) {
		KUNIT_ASSERT_TRUE(test, ring_sim_valid(&r, r.ci));
		r.ci++;
	}
	ring_sim_check(&r);
	/* Nothing past the producer is ever new. */
	KUNIT_EXPECT_FALSE(test, ring_sim_valid(&r, r.ci));
	KUNIT_EXPECT_EQ(test, r.pi - start, total);
	KUNIT_EXPECT_EQ(test, r.ci, r.pi);
	KUNIT_EXPECT_GE(test, r.checks,
			(unsigned long)(2 * wraps + 2) * r.size);
}

static void ring_wrap_test(struct kunit *test)
{
	static const u32 log_sizes[] = { 0, 1, 2, 3, 5, 8, 12 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(log_sizes); i++) {
		u32 size = 1u << log_sizes[i];

		/* From a new ring, and across the 32-bit index wrap. */
		ring_sim_run(test, log_sizes[i], 0, 6);
		ring_sim_run(test, log_sizes[i], 0u - 3 * size - 1, 6);
		ring_sim_run(test, log_sizes[i], 0x7fffffffu, 3);
	}
}

/* ------------------------------------------------------------------------
 * PAS list pages
 */

/* Entries p list pages can hold: the last one 512, every other one 511. */
static u64 pas_capacity(u64 pages)
{
	return 511 * (pages - 1) + 512;
}

/* Fill n entries into list pages the way the device walks them. */
static u32 pas_walk_pages(u32 n)
{
	u32 pages = 1, slot = 0;

	while (n) {
		if (slot == 511 && n > 1) {
			/* Last slot of a page followed by another: a link. */
			pages++;
			slot = 0;
			continue;
		}
		slot++;
		n--;
	}
	return pages;
}

static void pas_list_pages_test(struct kunit *test)
{
	static const u32 big[] = {
		4095, 4096, 65535, 65536, 261632, 262143, 262144, 262145,
		1000000, 1u << 24, 0x7fffffffu, 0xfffffffeu, 0xffffffffu,
	};
	unsigned int i;
	u32 n;

	KUNIT_EXPECT_EQ(test, SOFTHCA_PAS_PAGE_SIZE, 4096);
	KUNIT_EXPECT_EQ(test, SOFTHCA_PAS_PER_PAGE, 512);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MIN_LOG_BLOCK, 12);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MAX_LOG_BLOCK, 30);
	KUNIT_EXPECT_EQ(test, SOFTHCA_PAGE_OFFSET_QUANTA, 64);

	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(0), 1u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1), 1u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(511), 1u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(512), 1u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(513), 2u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1022), 2u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1023), 2u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1024), 3u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1534), 3u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1535), 4u);
	/* 1 GiB of 4 KiB blocks fills exactly 513 pages. */
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(262144), 513u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(262145), 514u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1000000), 1957u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(1u << 24), 32833u);
	KUNIT_EXPECT_EQ(test, softhca_pas_list_pages(0xffffffffu), 8405025u);

	/* Small counts: against a walk of the list layout and the capacity. */
	for (n = 0; n <= 5 * 512 + 3; n++) {
		u32 p = softhca_pas_list_pages(n);

		KUNIT_ASSERT_EQ_MSG(test, p, pas_walk_pages(n), "n %u", n);
		KUNIT_ASSERT_GE_MSG(test, pas_capacity(p), (u64)n, "n %u", n);
		if (p > 1)
			KUNIT_ASSERT_LT_MSG(test, pas_capacity(p - 1), (u64)n,
					    "n %u", n);
	}

	/* Large counts: the least number of pages whose capacity fits n. */
	for (i = 0; i < ARRAY_SIZE(big); i++) {
		u32 p = softhca_pas_list_pages(big[i]);

		KUNIT_ASSERT_GE_MSG(test, pas_capacity(p), (u64)big[i],
				    "n %u", big[i]);
		KUNIT_ASSERT_LT_MSG(test, pas_capacity(p - 1), (u64)big[i],
				    "n %u", big[i]);
	}
	KUNIT_EXPECT_EQ(test, pas_walk_pages(262144), 513u);
}

/* ------------------------------------------------------------------------
 * Layouts
 */
/*
 * softhca_wqe_span(): a failed or flushed WQE's size is trusted only at a
 * WQE start (matching index), when possible and posted whole; else 1 BB.
 */
static void wqe_span_test(struct kunit *test)
{
	/* well-formed: 1 to 8 basic blocks */
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 1, 5, 6), 1u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 4, 5, 6), 1u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 5, 5, 7), 2u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 32, 5, 13), 8u);
	/* the index is the low 16 bits of the counter, across its wrap */
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(0xffff, 8, 0x2ffff, 0x30001),
			2u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(0, 8, 0x30000, 0x30002), 2u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(0xfffe, 8, 0xfffffffe, 0), 2u);
	/* not a WQE start: one block */
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(6, 8, 5, 7), 1u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 8, 0x10006, 0x10008), 1u);
	/* no units, or more than the largest WQE */
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 0, 5, 9), 1u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 33, 5, 20), 1u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 255, 5, 100), 1u);
	/* bigger than what is posted: the rest is not its to swallow */
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 9, 5, 7), 1u);
	KUNIT_EXPECT_EQ(test, softhca_wqe_span(5, 9, 5, 8), 3u);
}

static void struct_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_cmd_entry), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_pas), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_caps), 256);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_alloc_out), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_obj_in), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_eq_ctx), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_eq_query_out), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_eqe), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_cq_ctx), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_create_out), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_cq_query_out), 80);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_cq_dbrec), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_mkey_ctx), 48);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_mkey_query_out), 56);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_cq_modify_in), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_qp_ctx), 56);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_qp_attr), 72);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_wqe_av), 48);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_wqe_reg_mr), 48);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_srq_ctx), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_srq_dbrec), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_srq_next), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_srq_modify_in), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct softhca_srq_query_out), 56);

	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cmd_entry, in_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cmd_entry, out_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cmd_entry, token), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cmd_entry, status), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cmd_entry, ctrl), 43);

	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_pas, nblocks), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_pas, log_block_size), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_pas, page_offset), 13);

	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_eqe, owner), 3);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_eqe, obj), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_eqe, data1), 12);

	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_eq_ctx, vector), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_eq_ctx, pas), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cq_ctx, eqn), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cq_ctx, dbrec_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cq_ctx, pas), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_cq_dbrec, arm), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_mkey_ctx, iova), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_mkey_ctx, pas), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_mkey_ctx, flags), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_mkey_ctx, max_pages), 44);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_qp_ctx, pas), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_qp_ctx, srqn), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_qp_attr, dgid), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_qp_attr, pkey_index), 60);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_qp_attr, dmac), 64);

	/* the UD address vector and the REG_MR segment, byte by byte */
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, qkey), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, dgid), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, dmac), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, sgid_index), 30);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, hop_limit), 31);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, traffic_class),
			32);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_av, flow_label), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_reg_mr, access), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_reg_mr, iova), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_reg_mr, length), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_reg_mr, page_list),
			24);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_wqe_reg_mr, npages), 32);
	KUNIT_EXPECT_EQ(test,
			offsetof(struct softhca_wqe_reg_mr, log_page_size), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_srq_ctx, limit), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_srq_ctx, dbrec_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_srq_ctx, pas), 24);

	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_caps, vendor_id), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_caps, max_qp), 56);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_caps, cqe_size), 144);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_caps, max_ah), 152);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_caps, max_fast_reg_pages),
			156);
	KUNIT_EXPECT_EQ(test, offsetof(struct softhca_caps, rsvd), 168);

	KUNIT_EXPECT_EQ(test, SOFTHCA_CQE_SIZE, 64);
	KUNIT_EXPECT_EQ(test, 1 << SOFTHCA_LOG_CQE_SIZE, SOFTHCA_CQE_SIZE);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_MAILBOX_MAX, 4096);
}

static void misc_encoding_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_CTRL_OWNER_HW, 0x1u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_CTRL_EVENT, 0x2u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_STAT_OK, 0x00);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_STAT_DMA_ERROR, 0x09);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_STAT_MAX, 0x0a);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_QUERY_CAPS, 0x0100);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_CREATE_CQ, 0x0400);
	KUNIT_EXPECT_EQ(test, SOFTHCA_CMD_MODIFY_QP, 0x0603);

	KUNIT_EXPECT_EQ(test, SOFTHCA_EQE_COMP, 0x01);
	KUNIT_EXPECT_EQ(test, SOFTHCA_EQE_CMD_DONE, 0x02);
	KUNIT_EXPECT_EQ(test, SOFTHCA_EQE_PORT_CHANGE, 0x0b);

	KUNIT_EXPECT_EQ(test, SOFTHCA_MKEY_INDEX(0x12345678u), 0x123456u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MKEY_VARIANT(0x12345678u), 0x78u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MKEY_INDEX(0xffu), 0u);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MKEY_INDEX(0xffffffffu), 0xffffffu);
	KUNIT_EXPECT_EQ(test, SOFTHCA_MKEY_VARIANT(0x100u), 0u);
}

static struct kunit_case softhca_prm_cases[] = {
	KUNIT_CASE(reg_layout_test),
	KUNIT_CASE(eq_db_test),
	KUNIT_CASE(cq_arm_test),
	KUNIT_CASE(cq_db_test),
	KUNIT_CASE(ring_owner_test),
	KUNIT_CASE(ring_wrap_test),
	KUNIT_CASE(pas_list_pages_test),
	KUNIT_CASE(wqe_span_test),
	KUNIT_CASE(struct_layout_test),
	KUNIT_CASE(misc_encoding_test),
	{}
};

static struct kunit_suite softhca_prm_suite = {
	.name = "softhca_prm",
	.test_cases = softhca_prm_cases,
};

kunit_test_suite(softhca_prm_suite);

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_encoding": the words the driver and the provider
 * write and the card decodes. EQ doorbells (encoded with softhca_eq_db(),
 * decoded by the device model's softhca_hw_eq_doorbell(), which rebuilds a
 * 32-bit consumer index from 24 bits), the CQ arm word and UAR CQ doorbell
 * round trips, the command entry's byte layout, commands run through a
 * real command queue, and softhca_cmd_status_to_errno() for every status.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/sizes.h>
#include <linux/stddef.h>

#include "softhca.h"
#include "hw/hw.h"
#include "test_util.h"

static const u32 some_cis[] = {
	0, 1, 2, 0x7f, 0x80, 0xffff, 0x10000, 0x123456, 0x7fffff, 0x800000,
	0xfffffe, 0xffffff, 0x1000000, 0x1000001, 0x12345678, 0x7fffffff,
	0x80000000, 0xfeffffff, 0xffffffff,
};

static void eq_db_roundtrip_test(struct kunit *test)
{
	unsigned int i, arm;

	for (i = 0; i < ARRAY_SIZE(some_cis); i++) {
		for (arm = 0; arm < 2; arm++) {
			u32 v = softhca_eq_db(some_cis[i], arm);

			/* decode as the card does */
			KUNIT_EXPECT_EQ(test, v & SOFTHCA_EQ_DB_CI_MASK,
					some_cis[i] & 0xffffff);
			KUNIT_EXPECT_EQ(test, !!(v & SOFTHCA_EQ_DB_ARM), !!arm);
			/* bits 24-30 are reserved and stay clear */
			KUNIT_EXPECT_EQ(test, v & 0x7f000000u, 0u);
			/* re-encoding the decoded fields gives the same word */
			KUNIT_EXPECT_EQ(test,
					softhca_eq_db(v & SOFTHCA_EQ_DB_CI_MASK,
						      v & SOFTHCA_EQ_DB_ARM), v);
		}
	}
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0x12345678, 1), 0x80345678u);
	KUNIT_EXPECT_EQ(test, softhca_eq_db(0x00ffffff, 0), 0x00ffffffu);
}

/* Create a one-page EQ on the card; return the card's view of it. */
static struct softhca_hw_eq *create_eq(struct kunit *test,
				       struct softhca_dev *dev, u32 log_size,
				       u16 vector)
{
	size_t size = sizeof(struct softhca_eqe) << log_size;
	struct softhca_eq_ctx ctx = {};
	struct softhca_create_out out;
	struct softhca_pas_buf pb;
	struct softhca_eqe *buf;
	dma_addr_t dma;
	u32 i;

	buf = softhca_test_dma_alloc(test, dev->hw, size, &dma);
	for (i = 0; i < BIT(log_size); i++)
		buf[i].owner = SOFTHCA_EQE_OWNER;
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, dma, size, &pb),
			0);
	ctx.log_size = log_size;
	ctx.type = SOFTHCA_EQ_COMP;
	ctx.vector = cpu_to_le16(vector);
	softhca_pas_to_prm(&pb, &ctx.pas);
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ, &ctx,
					       sizeof(ctx), &out, sizeof(out)),
			0);
	softhca_pas_free(dev, &pb);
	return xa_load(&dev->hw->eqs, le32_to_cpu(out.num));
}

static void eq_set_pi(struct softhca_hw_eq *eq, u32 pi)
{
	unsigned long flags;

	spin_lock_irqsave(&eq->lock, flags);
	eq->pi = pi;
	eq->ci = pi;
	eq->armed = false;
	spin_unlock_irqrestore(&eq->lock, flags);
}

/*
 * The card keeps 32-bit counters; the doorbell carries 24 bits of the
 * consumer index, which is never ahead of the producer.
 */
static void eq_db_card_decode_test(struct kunit *test)
{
	static const struct {
		u32 pi, db_ci, ci;
	} cases[] = {
		{ 0x01000005, 0x000005, 0x01000005 },
		{ 0x01000005, 0x000000, 0x01000000 },
		{ 0x01000005, 0xfffff0, 0x00fffff0 },
		{ 0x01000005, 0x000006, 0x00000006 },
		{ 0x00000000, 0xffffff, 0xffffffff },
		{ 0x00000000, 0x000000, 0x00000000 },
		{ 0x12345678, 0x345678, 0x12345678 },
		{ 0x12345678, 0x345677, 0x12345677 },
		{ 0x12345678, 0x000000, 0x12000000 },
		{ 0x12345678, 0x345679, 0x11345679 },
		{ 0xffffffff, 0xffffff, 0xffffffff },
		{ 0xffffffff, 0x000000, 0xff000000 },
		{ 0x00000010, 0xfffff0, 0xfffffff0 },
	};
	struct softhca_dev *dev = softhca_test_dev(test);
	struct softhca_hw_eq *eq = create_eq(test, dev, 4, 1);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, eq);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		eq_set_pi(eq, cases[i].pi);
		/* the driver's 32-bit index, as softhca_eq_doorbell() sends */
		softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn),
				   softhca_eq_db(cases[i].ci, 0));
		KUNIT_EXPECT_EQ_MSG(test, eq->ci, cases[i].ci, "pi %#x db %#x",
				    cases[i].pi, cases[i].db_ci);
		KUNIT_EXPECT_EQ(test, cases[i].ci & 0xffffff, cases[i].db_ci);
		KUNIT_EXPECT_EQ(test, eq->pi, cases[i].pi);
		KUNIT_EXPECT_FALSE(test, eq->armed);
	}

	/* ARM with nothing outstanding arms; a post then disarms */
	eq_set_pi(eq, 0x00fffffe);
	softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn),
			   softhca_eq_db(0x00fffffe, 1));
	KUNIT_EXPECT_TRUE(test, eq->armed);
	KUNIT_EXPECT_EQ(test, eq->ci, 0x00fffffeu);
	/* a doorbell without ARM leaves the arm state alone */
	softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn),
			   softhca_eq_db(0x00fffffe, 0));
	KUNIT_EXPECT_TRUE(test, eq->armed);
	/* a doorbell of an EQ that does not exist is ignored */
	softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn + 1),
			   softhca_eq_db(7, 1));
	KUNIT_EXPECT_EQ(test, eq->ci, 0x00fffffeu);
	/* an unaligned write into the doorbell area is ignored too */
	softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn) + 4,
			   softhca_eq_db(0x00fffff0, 0));
	KUNIT_EXPECT_EQ(test, eq->ci, 0x00fffffeu);
	eq_set_pi(eq, 0);
}

struct irq_count {
	atomic_t n;
};

static irqreturn_t count_irq(int irq, void *data)
{
	struct irq_count *c = data;

	atomic_inc(&c->n);
	return IRQ_HANDLED;
}

static bool wait_irqs(struct irq_count *c, int n)
{
	int i;

	for (i = 0; i < 200 && atomic_read(&c->n) < n; i++)
		usleep_range(5000, 10000);
	return atomic_read(&c->n) == n;
}

/*
 * ARM semantics end to end: an armed EQ interrupts once on the next
 * event; ARM with events outstanding interrupts at once.
 */
static void eq_db_arm_irq_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);
	struct softhca_hw_eq *eq = create_eq(test, dev, 3, 2);
	struct irq_count c = { .n = ATOMIC_INIT(0) };
	int irq = softhca_hw_irq_vector(dev->hw, 2);

	KUNIT_ASSERT_NOT_NULL(test, eq);
	KUNIT_ASSERT_GT(test, irq, 0);
	KUNIT_ASSERT_EQ(test, request_irq(irq, count_irq, 0, "softhca-kunit",
					  &c), 0);

	/* not armed: events, no interrupt */
	KUNIT_EXPECT_EQ(test, softhca_hw_eq_post(dev->hw, eq, SOFTHCA_EQE_COMP,
						 1, 0, 0), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.n), 0);
	/* ARM while one is outstanding (ci 0, pi 1): interrupt at once */
	softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn),
			   softhca_eq_db(0, 1));
	KUNIT_EXPECT_TRUE(test, wait_irqs(&c, 1));
	KUNIT_EXPECT_FALSE(test, eq->armed);
	/* consumed and armed: armed, quiet */
	softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn),
			   softhca_eq_db(1, 1));
	KUNIT_EXPECT_TRUE(test, eq->armed);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.n), 1);
	/* the next event interrupts once and disarms */
	KUNIT_EXPECT_EQ(test, softhca_hw_eq_post(dev->hw, eq, SOFTHCA_EQE_COMP,
						 1, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, wait_irqs(&c, 2));
	KUNIT_EXPECT_FALSE(test, eq->armed);
	KUNIT_EXPECT_EQ(test, softhca_hw_eq_post(dev->hw, eq, SOFTHCA_EQE_COMP,
						 1, 0, 0), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.n), 2);
	synchronize_irq(irq);
	free_irq(irq, &c);
}

static void cq_arm_roundtrip_test(struct kunit *test)
{
	unsigned int i, sn, sol;

	for (i = 0; i < ARRAY_SIZE(some_cis); i++) {
		for (sn = 0; sn < 9; sn++) {
			for (sol = 0; sol < 2; sol++) {
				u32 arm = softhca_cq_arm(sn, sol, some_cis[i]);
				u32 ci = arm & SOFTHCA_CQ_ARM_CI_MASK;
				bool s = arm & SOFTHCA_CQ_ARM_SOLICITED;
				u32 dsn = softhca_cq_arm_sn(arm);

				KUNIT_ASSERT_EQ(test, dsn, sn & 3);
				KUNIT_ASSERT_EQ(test, s, (bool)sol);
				KUNIT_ASSERT_EQ(test, ci,
						some_cis[i] & 0xffffff);
				KUNIT_ASSERT_TRUE(test,
						  arm & SOFTHCA_CQ_ARM_REQUEST);
				KUNIT_ASSERT_EQ(test, softhca_cq_arm(dsn, s, ci),
						arm);
				/* arm_sn counts modulo 4 */
				KUNIT_ASSERT_EQ(test,
						softhca_cq_arm(sn + 4, sol,
							       some_cis[i]),
						arm);
			}
		}
	}
	/* consecutive sequence numbers always differ in the word */
	for (sn = 0; sn < 8; sn++)
		KUNIT_EXPECT_NE(test, softhca_cq_arm(sn, 0, 5),
				softhca_cq_arm(sn + 1, 0, 5));
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(3, 1, 0xffffff), 0x33ffffffu);
	KUNIT_EXPECT_EQ(test, softhca_cq_arm(2, 0, 0x1000000), 0x22000000u);
}

static void cq_db_roundtrip_test(struct kunit *test)
{
	static const u32 cqns[] = { 0, 1, 0xffff, 0x10000, 0x7fffffff,
				    0xffffffff };
	struct softhca_cq_dbrec rec;
	unsigned int i, j;
	__le64 uar;
	u8 *b;

	for (i = 0; i < ARRAY_SIZE(cqns); i++) {
		for (j = 0; j < ARRAY_SIZE(some_cis); j++) {
			u32 arm = softhca_cq_arm(j, j & 1, some_cis[j]);
			u64 db = softhca_cq_db(arm, cqns[i]);

			KUNIT_ASSERT_EQ(test, (u32)(db >> 32), arm);
			KUNIT_ASSERT_EQ(test, (u32)db, cqns[i]);
			KUNIT_ASSERT_EQ(test, softhca_cq_arm_sn(db >> 32),
					j & 3);
		}
	}

	/* in the UAR as a little-endian 64-bit store: cqn first */
	uar = cpu_to_le64(softhca_cq_db(softhca_cq_arm(1, 1, 0x123456),
					0x00abcdef));
	b = (u8 *)&uar;
	KUNIT_EXPECT_EQ(test, b[0], 0xef);
	KUNIT_EXPECT_EQ(test, b[1], 0xcd);
	KUNIT_EXPECT_EQ(test, b[2], 0xab);
	KUNIT_EXPECT_EQ(test, b[3], 0x00);
	KUNIT_EXPECT_EQ(test, b[4], 0x56);
	KUNIT_EXPECT_EQ(test, b[5], 0x34);
	KUNIT_EXPECT_EQ(test, b[6], 0x12);
	KUNIT_EXPECT_EQ(test, b[7], 0x13);

	/* the CQ doorbell record: ci at byte 0, the arm word at byte 4 */
	rec.ci = cpu_to_le32(0x00fedcba);
	rec.arm = cpu_to_le32(softhca_cq_arm(2, 0, 0x00fedcba));
	b = (u8 *)&rec;
	KUNIT_EXPECT_EQ(test, b[0], 0xba);
	KUNIT_EXPECT_EQ(test, b[3], 0x00);
	KUNIT_EXPECT_EQ(test, b[4], 0xba);
	KUNIT_EXPECT_EQ(test, b[6], 0xfe);
	KUNIT_EXPECT_EQ(test, b[7], 0x22);
	KUNIT_EXPECT_EQ(test, SOFTHCA_UAR_CQ_DB % 8, 0);
}

#define OFF(f)	offsetof(struct softhca_cmd_entry, f)
#define SZ(f)	sizeof_field(struct softhca_cmd_entry, f)

static void cmd_entry_layout_test(struct kunit *test)
{
	static const struct {
		const char *name;
		size_t off, size, want_off, want_size;
	} f[] = {
		{ "opcode", OFF(opcode), SZ(opcode), 0, 2 },
		{ "op_mod", OFF(op_mod), SZ(op_mod), 2, 2 },
		{ "in_len", OFF(in_len), SZ(in_len), 4, 4 },
		{ "in_addr", OFF(in_addr), SZ(in_addr), 8, 8 },
		{ "out_addr", OFF(out_addr), SZ(out_addr), 16, 8 },
		{ "out_len", OFF(out_len), SZ(out_len), 24, 4 },
		{ "token", OFF(token), SZ(token), 28, 4 },
		{ "syndrome", OFF(syndrome), SZ(syndrome), 32, 4 },
		{ "out_written", OFF(out_written), SZ(out_written), 36, 4 },
		{ "status", OFF(status), SZ(status), 40, 1 },
		{ "ctrl", OFF(ctrl), SZ(ctrl), 43, 1 },
	};
	static const u8 want[44] = {
		0x00, 0x04, 0x01, 0x00,			/* opcode, op_mod */
		0x28, 0x00, 0x00, 0x00,			/* in_len 40 */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
		0x00, 0xf0, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34,
		0x08, 0x00, 0x00, 0x00,			/* out_len 8 */
		0xef, 0xbe, 0xad, 0xde,			/* token */
		0x01, 0x11, 0x00, 0x00,			/* syndrome */
		0x00, 0x01, 0x00, 0x00,			/* out_written */
		0x09, 0x00, 0x00, 0x03,			/* status, ctrl */
	};
	struct softhca_cmd_entry e;
	unsigned int i;
	u8 *b = (u8 *)&e;

	KUNIT_EXPECT_EQ(test, sizeof(e), 64ul);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		KUNIT_EXPECT_EQ_MSG(test, f[i].off, f[i].want_off, "%s",
				    f[i].name);
		KUNIT_EXPECT_EQ_MSG(test, f[i].size, f[i].want_size, "%s",
				    f[i].name);
	}

	memset(&e, 0, sizeof(e));
	e.opcode = cpu_to_le16(SOFTHCA_CMD_CREATE_CQ);
	e.op_mod = cpu_to_le16(1);
	e.in_len = cpu_to_le32(sizeof(struct softhca_cq_ctx));
	e.in_addr = cpu_to_le64(0x1122334455667788ull);
	e.out_addr = cpu_to_le64(0x3456789abcdef000ull);
	e.out_len = cpu_to_le32(sizeof(struct softhca_create_out));
	e.token = cpu_to_le32(0xdeadbeef);
	e.syndrome = cpu_to_le32(SOFTHCA_SYND_PAS_LOG_BLOCK);
	e.out_written = cpu_to_le32(256);
	e.status = SOFTHCA_CMD_STAT_DMA_ERROR;
	e.ctrl = SOFTHCA_CMD_CTRL_OWNER_HW | SOFTHCA_CMD_CTRL_EVENT;
	for (i = 0; i < sizeof(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], want[i], "byte %u", i);
	for (; i < sizeof(e); i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "byte %u", i);
	/* and back */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(e.opcode), 0x0400);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e.out_addr), 0x3456789abcdef000ull);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.token), 0xdeadbeefu);
}

static void status_errno_test(struct kunit *test)
{
	static const int want[] = {
		[SOFTHCA_CMD_STAT_OK]			= 0,
		[SOFTHCA_CMD_STAT_BAD_OPCODE]		= -EOPNOTSUPP,
		[SOFTHCA_CMD_STAT_BAD_PARAM]		= -EINVAL,
		[SOFTHCA_CMD_STAT_BAD_STATE]		= -EINVAL,
		[SOFTHCA_CMD_STAT_BAD_RESOURCE]		= -EINVAL,
		[SOFTHCA_CMD_STAT_RESOURCE_BUSY]	= -EBUSY,
		[SOFTHCA_CMD_STAT_EXCEED_LIM]		= -ENOMEM,
		[SOFTHCA_CMD_STAT_BAD_INPUT_LEN]	= -EIO,
		[SOFTHCA_CMD_STAT_BAD_OUTPUT_LEN]	= -EIO,
		[SOFTHCA_CMD_STAT_DMA_ERROR]		= -EFAULT,
		[SOFTHCA_CMD_STAT_INTERNAL_ERR]		= -EIO,
	};
	unsigned int s;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(want), 11ul);
	KUNIT_ASSERT_EQ(test, SOFTHCA_CMD_STAT_MAX, 0x0a);
	for (s = 0; s < ARRAY_SIZE(want); s++)
		KUNIT_EXPECT_EQ_MSG(test, softhca_cmd_status_to_errno(s),
				    want[s], "status %#x", s);
	/* every failure is an error, and no status maps to a positive */
	for (s = 1; s < 256; s++)
		KUNIT_EXPECT_LT_MSG(test, softhca_cmd_status_to_errno(s), 0,
				    "status %#x", s);
	for (s = SOFTHCA_CMD_STAT_MAX + 1; s < 256; s++)
		KUNIT_EXPECT_EQ_MSG(test, softhca_cmd_status_to_errno(s), -EIO,
				    "status %#x", s);
}

/* The entry a command left in its slot (slot 0: the lowest free one). */
static struct softhca_cmd_entry *last_entry(struct softhca_dev *dev)
{
	return &dev->cmdq.entries[0];
}

/* Commands through a real queue: what the card decoded, what came back. */
static void cmd_roundtrip_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);
	struct softhca_obj_in obj = { .num = cpu_to_le32(77) };
	struct softhca_caps *caps;
	u8 *out;
	u32 i, token;

	out = kunit_kmalloc(test, 300, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	memset(out, 0xff, 300);
	token = dev->cmdq.next_token;
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_CAPS,
					       NULL, 0, out, 300), 0);
	caps = (struct softhca_caps *)out;
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps->vendor_id), SOFTHCA_VENDOR_ID);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps->vendor_part_id),
			SOFTHCA_PART_ID);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(caps->page_size_cap),
			(u64)(SZ_4K | SZ_2M | SZ_1G));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps->cqe_size), 64u);
	/* the card wrote 256 bytes; the rest of the room reads as zero */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->out_written), 256u);
	for (i = 256; i < 300; i++)
		KUNIT_ASSERT_EQ_MSG(test, out[i], 0, "byte %u", i);
	KUNIT_EXPECT_EQ(test, last_entry(dev)->status, SOFTHCA_CMD_STAT_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->token), token);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last_entry(dev)->opcode),
			SOFTHCA_CMD_QUERY_CAPS);
	KUNIT_EXPECT_EQ(test, last_entry(dev)->ctrl & SOFTHCA_CMD_CTRL_OWNER_HW,
			0);
	KUNIT_EXPECT_EQ(test, dev->cmdq.next_token, token + 1);

	/* an opcode the card does not know */
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, 0x0999, NULL, 0, NULL, 0),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, last_entry(dev)->status,
			SOFTHCA_CMD_STAT_BAD_OPCODE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->syndrome),
			(u32)SOFTHCA_SYND_OPCODE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->out_written), 0u);
	/* a known opcode with the wrong input length */
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ,
					       &obj, sizeof(obj), out, 8),
			-EIO);
	KUNIT_EXPECT_EQ(test, last_entry(dev)->status,
			SOFTHCA_CMD_STAT_BAD_INPUT_LEN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->syndrome),
			(u32)SOFTHCA_SYND_IN_LEN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->in_len), 8u);
	/* too little room for the output */
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_CAPS,
					       NULL, 0, out, 255), -EIO);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->syndrome),
			(u32)SOFTHCA_SYND_OUT_LEN);
	/* no such object */
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_DESTROY_EQ,
					       &obj, sizeof(obj), NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, last_entry(dev)->status,
			SOFTHCA_CMD_STAT_BAD_RESOURCE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->syndrome),
			(u32)SOFTHCA_SYND_NO_EQ);
	/* an EQ with an out-of-range size */
	{
		struct softhca_eq_ctx ctx = { .log_size = 17, .type = 1 };

		KUNIT_EXPECT_EQ(test,
				softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ,
						 &ctx, sizeof(ctx), out, 8),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(last_entry(dev)->syndrome),
				(u32)SOFTHCA_SYND_EQ_SIZE);
		/* a failed command writes no output: the room is zeroed */
		for (i = 0; i < 8; i++)
			KUNIT_EXPECT_EQ(test, out[i], 0);
	}
	/* every command took slot 0 and gave it back */
	KUNIT_EXPECT_EQ(test, dev->cmdq.free_slots,
			BIT(1u << dev->cmdq.log_size) - 1);
	KUNIT_EXPECT_EQ(test, dev->cmdq.log_size, 4u);
}

static struct kunit_case softhca_encoding_cases[] = {
	KUNIT_CASE(eq_db_roundtrip_test),
	KUNIT_CASE(eq_db_card_decode_test),
	KUNIT_CASE(eq_db_arm_irq_test),
	KUNIT_CASE(cq_arm_roundtrip_test),
	KUNIT_CASE(cq_db_roundtrip_test),
	KUNIT_CASE(cmd_entry_layout_test),
	KUNIT_CASE(status_errno_test),
	KUNIT_CASE(cmd_roundtrip_test),
	{}
};

static struct kunit_suite softhca_encoding_suite = {
	.name = "softhca_encoding",
	.test_cases = softhca_encoding_cases,
};

kunit_test_suite(softhca_encoding_suite);

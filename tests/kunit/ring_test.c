// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_ring": owner bits and index math of the EQ and CQ
 * rings in host memory. The consumer is the driver's softhca_eq_next()
 * (kernel/softhca_eq.c) on a real EQE buffer; the producer writes entries
 * as the card does (the body with the stale owner bit, then the owner bit
 * of its pass, softhca_ring_owner()), by hand or through the device
 * model's own softhca_hw_eq_post() on an EQ created by command. Rings run
 * over many wraps, at the 24-bit doorbell wrap and the 32-bit counter
 * wrap; stale entries of the previous pass must never read as new.
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "softhca.h"
#include "hw/hw.h"
#include "test_util.h"

/* A driver-side EQ ring and the card-side producer index. */
struct eq_ring {
	struct kunit *test;
	struct softhca_eqe *buf;
	u32 log_size;
	u32 size;
	u32 pi;
	u32 ci;
	unsigned long checks;
};

/* Write EQE @pi the way the card does: body first, then the owner bit. */
static void eq_ring_produce(struct eq_ring *r)
{
	struct softhca_eqe *e = &r->buf[r->pi & (r->size - 1)];
	u8 owner = softhca_ring_owner(r->pi, r->log_size);

	e->type = SOFTHCA_EQE_COMP;
	e->obj = cpu_to_le32(r->pi);
	e->data0 = cpu_to_le32(~r->pi);
	e->data1 = cpu_to_le32(r->log_size);
	WRITE_ONCE(e->owner, owner ^ SOFTHCA_EQE_OWNER);
	/* the consumer must not take a half-written entry */
	KUNIT_ASSERT_NULL(r->test, softhca_eq_next(r->buf, r->log_size, r->pi));
	wmb();		/* the body is visible before the owner bit */
	WRITE_ONCE(e->owner, owner);
	r->pi++;
}

/* The buffer as a producer leaves it after a full pass ending at @start. */
static void eq_ring_prefill(struct eq_ring *r, u32 start)
{
	u32 i;

	r->pi = start - r->size;
	for (i = 0; i < r->size; i++)
		eq_ring_produce(r);
	r->ci = start;
	KUNIT_ASSERT_EQ(r->test, r->pi, start);
}

/*
 * Entries [ci, pi) are new and carry their own index; every other index
 * the consumer could look at next, [pi, ci + size), reads as nothing.
 */
static void eq_ring_check(struct eq_ring *r)
{
	struct kunit *test = r->test;
	u32 i;

	for (i = 0; i < r->size; i++) {
		u32 idx = r->ci + i;
		struct softhca_eqe *e = softhca_eq_next(r->buf, r->log_size,
							 idx);

		if (i < r->pi - r->ci) {
			KUNIT_ASSERT_PTR_EQ_MSG(test, e,
						&r->buf[idx & (r->size - 1)],
						"log %u pi %#x ci %#x idx %#x",
						r->log_size, r->pi, r->ci, idx);
			KUNIT_ASSERT_EQ(test, le32_to_cpu(e->obj), idx);
			KUNIT_ASSERT_EQ(test, le32_to_cpu(e->data0), ~idx);
		} else {
			KUNIT_ASSERT_NULL_MSG(test, e,
					      "log %u pi %#x ci %#x idx %#x",
					      r->log_size, r->pi, r->ci, idx);
		}
		r->checks++;
	}
}

static void eq_ring_run(struct kunit *test, u32 log_size, u32 start,
			u32 wraps)
{
	struct eq_ring r = {
		.test = test,
		.log_size = log_size,
		.size = 1u << log_size,
	};
	u32 total = wraps * r.size + r.size / 2 + 1, produced = 0, step = 0;
	u32 i;

	r.buf = kunit_kcalloc(test, r.size, sizeof(*r.buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r.buf);
	if (start == 0) {
		/* a new EQ: the driver sets every owner bit */
		for (i = 0; i < r.size; i++)
			r.buf[i].owner = SOFTHCA_EQE_OWNER;
		r.pi = 0;
		r.ci = 0;
	} else {
		eq_ring_prefill(&r, start);
	}
	eq_ring_check(&r);

	while (produced < total) {
		u32 room = r.size - (r.pi - r.ci);
		u32 want = (step % 4 == 0) ? 1 : (step % 4 == 1) ? r.size :
			   (step % 4 == 2) ? r.size - 1 : r.size / 3 + 1;
		u32 n = min3(want, room, total - produced);

		for (i = 0; i < n; i++)
			eq_ring_produce(&r);
		produced += n;
		eq_ring_check(&r);
		/* consume all but one on odd steps, all otherwise */
		n = r.pi - r.ci;
		if (step & 1 && n > 1)
			n--;
		for (i = 0; i < n; i++, r.ci++)
			KUNIT_ASSERT_NOT_NULL(test,
					      softhca_eq_next(r.buf, log_size,
							      r.ci));
		eq_ring_check(&r);
		step++;
	}
	while (r.ci != r.pi) {
		KUNIT_ASSERT_NOT_NULL(test, softhca_eq_next(r.buf, log_size,
							    r.ci));
		r.ci++;
	}
	eq_ring_check(&r);
	KUNIT_EXPECT_EQ(test, r.pi - start, total);
	KUNIT_EXPECT_GE(test, r.checks, (unsigned long)(2 * wraps) * r.size);
}

static void eq_first_pass_test(struct kunit *test)
{
	struct softhca_eqe *buf;
	u32 i;

	buf = kunit_kcalloc(test, 16, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* zeroed memory would read as 16 new EQEs: why the driver sets 1 */
	KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, 0), &buf[0]);
	for (i = 0; i < 16; i++)
		buf[i].owner = SOFTHCA_EQE_OWNER;
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_NULL(test, softhca_eq_next(buf, 4, i));
	/* the same bits are new one pass on, stale again two passes on */
	for (i = 16; i < 32; i++)
		KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, i),
				    &buf[i & 15]);
	for (i = 32; i < 48; i++)
		KUNIT_EXPECT_NULL(test, softhca_eq_next(buf, 4, i));
	/* only bit 0 of the owner byte counts */
	buf[3].owner = 0xfe;
	KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, 3), &buf[3]);
	KUNIT_EXPECT_NULL(test, softhca_eq_next(buf, 4, 19));
	KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, 35), &buf[3]);
	buf[3].owner = 0x01;
	KUNIT_EXPECT_NULL(test, softhca_eq_next(buf, 4, 3));
	KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, 19), &buf[3]);
	/* the index is taken modulo the ring size */
	buf[0].owner = 0;
	KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, 0x100), &buf[0]);
	KUNIT_EXPECT_NULL(test, softhca_eq_next(buf, 4, 0x110));
	KUNIT_EXPECT_PTR_EQ(test, softhca_eq_next(buf, 4, 0xffffffe0u),
			    &buf[0]);
	KUNIT_EXPECT_NULL(test, softhca_eq_next(buf, 4, 0xfffffff0u));
}

static void eq_many_wraps_test(struct kunit *test)
{
	static const u32 logs[] = { 0, 1, 2, 3, 6, 10 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(logs); i++)
		eq_ring_run(test, logs[i], 0, logs[i] > 6 ? 3 : 9);
}

static void eq_counter_wrap_test(struct kunit *test)
{
	static const u32 logs[] = { 0, 1, 4, 8 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(logs); i++) {
		u32 size = 1u << logs[i];

		/* through 2^32, starting a few passes before */
		eq_ring_run(test, logs[i], 0u - 2 * size - 3, 5);
		/* through the 24-bit doorbell wrap, and at 2^31 */
		eq_ring_run(test, logs[i], 0x01000000u - size - 1, 3);
		eq_ring_run(test, logs[i], 0x7fffffffu, 3);
	}
}

/* A full ring: all entries new; the one past them is the oldest, stale. */
static void eq_full_ring_test(struct kunit *test)
{
	struct eq_ring r = { .test = test, .log_size = 5, .size = 32 };
	u32 i;

	r.buf = kunit_kcalloc(test, r.size, sizeof(*r.buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r.buf);
	eq_ring_prefill(&r, 0xffffffe0u);
	for (i = 0; i < r.size; i++)
		eq_ring_produce(&r);
	KUNIT_EXPECT_EQ(test, r.pi, 0u);
	KUNIT_EXPECT_EQ(test, r.ci, 0xffffffe0u);
	eq_ring_check(&r);
	KUNIT_EXPECT_NULL(test, softhca_eq_next(r.buf, 5, r.pi));
	for (i = 0; i < r.size; i++, r.ci++)
		KUNIT_ASSERT_EQ(test,
				le32_to_cpu(softhca_eq_next(r.buf, 5,
							    r.ci)->obj),
				r.ci);
	KUNIT_EXPECT_NULL(test, softhca_eq_next(r.buf, 5, r.ci));
}

/*
 * A CQ ring, as the provider polls it: 64-byte CQEs, owner in bit 0 of
 * op_own (the other bits are the card's), consumer index in the dbrec.
 */
static void cq_ring_run(struct kunit *test, u32 log_size, u32 start)
{
	u32 size = 1u << log_size, mask = size - 1, pi, ci, i, k;
	u32 produced = 0;
	struct softhca_cq_dbrec db = {};
	struct softhca_cqe *cqes;

	cqes = kunit_kcalloc(test, size, sizeof(*cqes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cqes);
	/* the previous pass, ending at start; op_own's high bits vary */
	for (pi = start - size; pi != start; pi++) {
		cqes[pi & mask].qpn = cpu_to_le32(pi);
		cqes[pi & mask].op_own = 0xf0 |
			softhca_ring_owner(pi, log_size);
	}
	ci = start;
	for (k = 0; k < 5 * size + 3; k++) {
		u32 batch = k % 3 == 0 ? size : k % 3 == 1 ? 1 : size / 2 + 1;

		batch = min(batch, size - (pi - ci));
		produced += batch;
		for (i = 0; i < batch; i++, pi++) {
			struct softhca_cqe *c = &cqes[pi & mask];
			u8 owner = softhca_ring_owner(pi, log_size);

			c->qpn = cpu_to_le32(pi);
			c->op_own = 0x0e | (owner ^ SOFTHCA_CQE_OWNER);
			KUNIT_ASSERT_FALSE(test,
					   softhca_ring_entry_valid(c->op_own,
								    pi,
								    log_size));
			wmb();	/* the body is visible before the owner bit */
			c->op_own = 0x0e | owner;
		}
		/* poll until the first stale CQE */
		while (softhca_ring_entry_valid(cqes[ci & mask].op_own, ci,
						log_size)) {
			KUNIT_ASSERT_EQ(test, le32_to_cpu(cqes[ci & mask].qpn),
					ci);
			ci++;
			db.ci = cpu_to_le32(ci & SOFTHCA_CQ_ARM_CI_MASK);
		}
		KUNIT_ASSERT_EQ_MSG(test, ci, pi, "log %u start %#x", log_size,
				    start);
		/* nothing ahead of the producer is new */
		for (i = 0; i < size; i++)
			KUNIT_ASSERT_FALSE(test,
					   softhca_ring_entry_valid(cqes[(ci + i) & mask].op_own,
								    ci + i,
								    log_size));
	}
	KUNIT_EXPECT_EQ(test, le32_to_cpu(db.ci), ci & 0xffffff);
	KUNIT_EXPECT_EQ(test, ci - start, produced);
	KUNIT_EXPECT_GE(test, produced, 3 * size);
}

static void cq_ring_test(struct kunit *test)
{
	static const u32 logs[] = { 0, 1, 3, 7 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(logs); i++) {
		cq_ring_run(test, logs[i], 0);
		cq_ring_run(test, logs[i], 0u - (3u << logs[i]) - 1);
		cq_ring_run(test, logs[i], 0x00ffffffu);
	}
}

/*
 * The card's own producer: an EQ created by CREATE_EQ on a plugged card,
 * events posted with softhca_hw_eq_post(), consumed with softhca_eq_next()
 * and handed back through the EQ doorbell (24-bit consumer index).
 */
static void eq_card_run(struct kunit *test, struct softhca_dev *dev,
			u32 log_size, u32 start)
{
	u32 size = 1u << log_size, i, ci = start, posted = 0, pass;
	u32 overruns = 0;
	struct softhca_create_out out;
	struct softhca_obj_in in = {};
	struct softhca_eq_ctx ctx = {};
	struct softhca_pas_buf pb;
	struct softhca_hw_eq *heq;
	struct softhca_eqe *buf;
	unsigned long flags;
	dma_addr_t dma;

	buf = softhca_test_dma_alloc(test, dev->hw, size * sizeof(*buf), &dma);
	for (i = 0; i < size; i++)
		buf[i].owner = SOFTHCA_EQE_OWNER;
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, dma,
							size * sizeof(*buf),
							&pb), 0);
	ctx.log_size = log_size;
	ctx.type = SOFTHCA_EQ_COMP;
	ctx.vector = cpu_to_le16(1);
	softhca_pas_to_prm(&pb, &ctx.pas);
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ, &ctx,
					       sizeof(ctx), &out, sizeof(out)),
			0);
	softhca_pas_free(dev, &pb);
	heq = xa_load(&dev->hw->eqs, le32_to_cpu(out.num));
	KUNIT_ASSERT_NOT_NULL(test, heq);
	KUNIT_ASSERT_EQ(test, heq->pas.nblocks, 1u);
	KUNIT_ASSERT_EQ(test, heq->pas.blocks[0], (u64)dma);

	if (start) {
		/* a card that has already run up to start */
		spin_lock_irqsave(&heq->lock, flags);
		heq->pi = start - size;
		heq->ci = start - size;
		spin_unlock_irqrestore(&heq->lock, flags);
		for (i = 0; i < size; i++)
			KUNIT_ASSERT_EQ(test, softhca_hw_eq_post(dev->hw, heq,
								 SOFTHCA_EQE_COMP,
								 0, 0, 0), 0);
		softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(heq->eqn),
				   softhca_eq_db(start, 0));
		KUNIT_ASSERT_EQ(test, heq->ci, start);
		KUNIT_ASSERT_EQ(test, heq->pi, start);
	}
	KUNIT_ASSERT_NULL(test, softhca_eq_next(buf, log_size, ci));

	for (pass = 0; pass < 6; pass++) {
		u32 n = pass % 2 ? size : size / 2 + 1;

		for (i = 0; i < n; i++, posted++)
			KUNIT_ASSERT_EQ(test,
					softhca_hw_eq_post(dev->hw, heq,
							   SOFTHCA_EQE_COMP,
							   start + posted,
							   posted, ~posted), 0);
		if (n == size) {
			/* full: the next event is lost and counted */
			KUNIT_EXPECT_EQ(test,
					softhca_hw_eq_post(dev->hw, heq,
							   SOFTHCA_EQE_COMP,
							   0, 0, 0), -ENOSPC);
			KUNIT_EXPECT_EQ(test, heq->overruns, ++overruns);
		}
		for (i = 0; i < n; i++, ci++) {
			struct softhca_eqe *e = softhca_eq_next(buf, log_size,
								ci);

			KUNIT_ASSERT_NOT_NULL_MSG(test, e, "ci %#x", ci);
			KUNIT_ASSERT_EQ(test, e->type, SOFTHCA_EQE_COMP);
			KUNIT_ASSERT_EQ(test, le32_to_cpu(e->obj), ci);
			KUNIT_ASSERT_EQ(test, le32_to_cpu(e->data0),
					ci - start);
			KUNIT_ASSERT_EQ(test, le32_to_cpu(e->data1),
					~(ci - start));
		}
		KUNIT_ASSERT_NULL(test, softhca_eq_next(buf, log_size, ci));
		/* hand the entries back: the card rebuilds the full index */
		softhca_hw_write32(dev->hw, SOFTHCA_REG_EQ_DB(heq->eqn),
				   softhca_eq_db(ci, 0));
		KUNIT_ASSERT_EQ(test, heq->ci, ci);
		KUNIT_ASSERT_EQ(test, heq->pi, ci);
		KUNIT_ASSERT_FALSE(test, heq->armed);
	}
	KUNIT_EXPECT_EQ(test, ci - start, posted);

	in.num = out.num;
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_DESTROY_EQ, &in,
					       sizeof(in), NULL, 0), 0);
}

static void eq_card_producer_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);

	eq_card_run(test, dev, 1, 0);
	eq_card_run(test, dev, 4, 0);
	/* across the 24-bit doorbell wrap and the 32-bit counter wrap */
	eq_card_run(test, dev, 4, 0x01000000u - 20);
	eq_card_run(test, dev, 3, 0u - 13);
	eq_card_run(test, dev, 8, 0u - 300);
}

static struct kunit_case softhca_ring_cases[] = {
	KUNIT_CASE(eq_first_pass_test),
	KUNIT_CASE(eq_many_wraps_test),
	KUNIT_CASE(eq_counter_wrap_test),
	KUNIT_CASE(eq_full_ring_test),
	KUNIT_CASE(cq_ring_test),
	KUNIT_CASE(eq_card_producer_test),
	{}
};

static struct kunit_suite softhca_ring_suite = {
	.name = "softhca_ring",
	.test_cases = softhca_ring_cases,
};

kunit_test_suite(softhca_ring_suite);

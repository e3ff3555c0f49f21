// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_eq_dispatch": what the EQ tasklet does with the
 * EQEs it finds, softhca_eq_poll() in kernel/softhca_eq.c and
 * softhca_cq_event() in kernel/softhca_cq.c, on a struct softhca_eq over a
 * plain EQE buffer and fake CQs in dev->cqs. Completion events must reach
 * exactly the right CQ's comp_handler, in order and once each; CQ errors
 * its event_handler; command completions the waiting slot; anything else
 * (unknown CQs, stale entries, stale tokens) nothing. The budget bounds
 * the work and eq->ci counts exactly what was consumed. A destroyed CQ's
 * waiting events are forgotten (softhca_eq_forget_cq()).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/slab.h>

#include "softhca.h"

#define MAX_CALLS	128

struct recorder {
	struct kunit *test;
	unsigned int ncalls;
	struct {
		struct softhca_cq *cq;
		unsigned int refs;	/* cq->refcount during the call */
		bool error;		/* event_handler, not comp_handler */
		enum ib_event_type event;
		struct ib_device *device;
	} call[MAX_CALLS];
};

struct dispatch_ctx {
	struct softhca_dev *dev;
	struct softhca_eq eq;
	struct recorder rec;
	struct softhca_cq *cqs[4];
};

static const u32 cqns[] = { 1, 5, 7, 0x123456 };

static void record_comp(struct ib_cq *ibcq, void *context)
{
	struct recorder *r = context;
	struct softhca_cq *cq = to_scq(ibcq);

	KUNIT_ASSERT_LT(r->test, r->ncalls, (unsigned int)MAX_CALLS);
	r->call[r->ncalls].cq = cq;
	r->call[r->ncalls].refs = refcount_read(&cq->refcount);
	r->call[r->ncalls].error = false;
	r->ncalls++;
}

static void record_event(struct ib_event *ev, void *context)
{
	struct recorder *r = context;
	struct softhca_cq *cq = to_scq(ev->element.cq);

	KUNIT_ASSERT_LT(r->test, r->ncalls, (unsigned int)MAX_CALLS);
	r->call[r->ncalls].cq = cq;
	r->call[r->ncalls].refs = refcount_read(&cq->refcount);
	r->call[r->ncalls].error = true;
	r->call[r->ncalls].event = ev->event;
	r->call[r->ncalls].device = ev->device;
	r->ncalls++;
}

static void dispatch_exit(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < ARRAY_SIZE(c->cqs); i++) {
		/* nothing may still hold a CQ, nor have completed its free */
		if (c->cqs[i]) {
			KUNIT_EXPECT_EQ(test,
					refcount_read(&c->cqs[i]->refcount), 1u);
			KUNIT_EXPECT_FALSE(test,
					   completion_done(&c->cqs[i]->free));
		}
	}
	xa_destroy(&c->dev->cqs);
}

static int dispatch_init(struct kunit *test)
{
	struct dispatch_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int i;

	if (!c)
		return -ENOMEM;
	c->rec.test = test;
	c->dev = kunit_kzalloc(test, sizeof(*c->dev), GFP_KERNEL);
	if (!c->dev)
		return -ENOMEM;
	xa_init_flags(&c->dev->cqs, XA_FLAGS_LOCK_BH);
	for (i = 0; i < ARRAY_SIZE(c->cqs); i++) {
		struct softhca_cq *cq = kunit_kzalloc(test, sizeof(*cq),
						      GFP_KERNEL);

		if (!cq)
			return -ENOMEM;
		cq->cqn = cqns[i];
		cq->ibcq.device = &c->dev->ibdev;
		cq->ibcq.comp_handler = record_comp;
		cq->ibcq.event_handler = record_event;
		cq->ibcq.cq_context = &c->rec;
		refcount_set(&cq->refcount, 1);
		init_completion(&cq->free);
		if (xa_insert_bh(&c->dev->cqs, cq->cqn, cq, GFP_KERNEL))
			return -ENOMEM;
		c->cqs[i] = cq;
	}
	test->priv = c;
	return 0;
}

/* An EQ of 2^@log_size entries, all owned by the card, consumer at @ci. */
static struct softhca_eq *setup_eq(struct kunit *test, u32 log_size, u32 ci)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = &c->eq;
	u32 i;

	eq->dev = c->dev;
	eq->log_size = log_size;
	eq->buf = kunit_kcalloc(test, BIT(log_size), sizeof(*eq->buf),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eq->buf);
	/* the pass before ci: what a full previous pass left behind */
	for (i = 0; i < BIT(log_size); i++) {
		u32 idx = ci - BIT(log_size) + i;
		struct softhca_eqe *e = &eq->buf[idx & (BIT(log_size) - 1)];

		e->type = SOFTHCA_EQE_COMP;
		e->obj = cpu_to_le32(cqns[i % ARRAY_SIZE(cqns)]);
		e->owner = softhca_ring_owner(idx, log_size);
	}
	eq->ci = ci;
	return eq;
}

/* The card writes EQE @pi: body, then owner. */
static void post(struct softhca_eq *eq, u32 pi, u8 type, u32 obj, u32 data0)
{
	struct softhca_eqe *e = &eq->buf[pi & (BIT(eq->log_size) - 1)];

	e->type = type;
	e->obj = cpu_to_le32(obj);
	e->data0 = cpu_to_le32(data0);
	e->data1 = 0;
	wmb();		/* the body is visible before the owner bit */
	WRITE_ONCE(e->owner, softhca_ring_owner(pi, eq->log_size));
}

static void expect_comp(struct kunit *test, unsigned int n, u32 cqn)
{
	struct dispatch_ctx *c = test->priv;

	KUNIT_ASSERT_LT(test, n, c->rec.ncalls);
	KUNIT_EXPECT_EQ_MSG(test, c->rec.call[n].cq->cqn, cqn, "call %u", n);
	KUNIT_EXPECT_FALSE_MSG(test, c->rec.call[n].error, "call %u", n);
	/* the EQ held a reference while it delivered */
	KUNIT_EXPECT_EQ_MSG(test, c->rec.call[n].refs, 2u, "call %u", n);
}

static void comp_order_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 4, 0);
	static const u32 seq[] = { 5, 1, 5, 7, 0x123456, 1, 7, 5 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(seq); i++)
		post(eq, i, SOFTHCA_EQE_COMP, seq[i], 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 8);
	KUNIT_EXPECT_EQ(test, eq->ci, 8u);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 8u);
	for (i = 0; i < ARRAY_SIZE(seq); i++)
		expect_comp(test, i, seq[i]);
	/* the right objects, not just the right numbers */
	KUNIT_EXPECT_PTR_EQ(test, c->rec.call[0].cq, c->cqs[1]);
	KUNIT_EXPECT_PTR_EQ(test, c->rec.call[4].cq, c->cqs[3]);
	/* nothing new: nothing happens */
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 0);
	KUNIT_EXPECT_EQ(test, eq->ci, 8u);
	KUNIT_EXPECT_EQ(test, c->rec.ncalls, 8u);
}

static void unknown_cq_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 3, 0);

	post(eq, 0, SOFTHCA_EQE_COMP, 42, 0);
	post(eq, 1, SOFTHCA_EQE_COMP, 7, 0);
	post(eq, 2, SOFTHCA_EQE_COMP, 0, 0);
	post(eq, 3, SOFTHCA_EQE_CQ_ERROR, 43, 1);
	post(eq, 4, SOFTHCA_EQE_COMP, 0xffffffff, 0);
	post(eq, 5, SOFTHCA_EQE_COMP, 1, 0);
	/* unknown CQs are consumed and dropped */
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 6);
	KUNIT_EXPECT_EQ(test, eq->ci, 6u);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 2u);
	expect_comp(test, 0, 7);
	expect_comp(test, 1, 1);
}

static void stale_entries_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq;
	unsigned int i;

	/* a full pass of old COMP entries for real CQs: all stale */
	eq = setup_eq(test, 3, 8);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 0);
	KUNIT_EXPECT_EQ(test, eq->ci, 8u);
	KUNIT_EXPECT_EQ(test, c->rec.ncalls, 0u);

	/* two new ones, then the stale rest of the ring */
	post(eq, 8, SOFTHCA_EQE_COMP, 5, 0);
	post(eq, 9, SOFTHCA_EQE_COMP, 7, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 2);
	KUNIT_EXPECT_EQ(test, eq->ci, 10u);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 2u);
	expect_comp(test, 0, 5);
	expect_comp(test, 1, 7);

	/* a half-written EQE (body, no owner yet) is not taken */
	eq->buf[10 & 7].type = SOFTHCA_EQE_COMP;
	eq->buf[10 & 7].obj = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 0);
	WRITE_ONCE(eq->buf[10 & 7].owner, softhca_ring_owner(10, 3));
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 1);
	expect_comp(test, 2, 1);

	/* around the ring many times, one at a time */
	for (i = 11; i < 11 + 40; i++) {
		post(eq, i, SOFTHCA_EQE_COMP, cqns[i % 4], 0);
		KUNIT_ASSERT_EQ(test, softhca_eq_poll(eq, 64), 1);
		KUNIT_ASSERT_EQ(test, softhca_eq_poll(eq, 64), 0);
	}
	KUNIT_EXPECT_EQ(test, eq->ci, 51u);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 43u);
	for (i = 11; i < 51; i++)
		expect_comp(test, i - 11 + 3, cqns[i % 4]);
}

static void budget_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 4, 0);
	unsigned int i;

	for (i = 0; i < 10; i++)
		post(eq, i, SOFTHCA_EQE_COMP, cqns[i % 4], 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 3), 3);
	KUNIT_EXPECT_EQ(test, eq->ci, 3u);
	KUNIT_EXPECT_EQ(test, c->rec.ncalls, 3u);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 0), 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, -1), 0);
	KUNIT_EXPECT_EQ(test, eq->ci, 3u);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 1), 1);
	KUNIT_EXPECT_EQ(test, eq->ci, 4u);
	/* a budget larger than what is there */
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 100), 6);
	KUNIT_EXPECT_EQ(test, eq->ci, 10u);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 10u);
	for (i = 0; i < 10; i++)
		expect_comp(test, i, cqns[i % 4]);
	/* exactly a full ring with exactly its size as budget */
	for (i = 10; i < 26; i++)
		post(eq, i, SOFTHCA_EQE_COMP, 5, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 16), 16);
	KUNIT_EXPECT_EQ(test, eq->ci, 26u);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 16), 0);
}

/* eq->ci and the owner bit across the 32-bit wrap. */
static void counter_wrap_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 2, 0xfffffffcu);
	u32 pi = 0xfffffffcu, i;

	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 0);
	for (i = 0; i < 3; i++, pi++)
		post(eq, pi, SOFTHCA_EQE_COMP, 7, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 3);
	KUNIT_EXPECT_EQ(test, eq->ci, 0xffffffffu);
	for (i = 0; i < 4; i++, pi++)
		post(eq, pi, SOFTHCA_EQE_COMP, 1, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 2), 2);
	KUNIT_EXPECT_EQ(test, eq->ci, 1u);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 2);
	KUNIT_EXPECT_EQ(test, eq->ci, 3u);
	KUNIT_EXPECT_EQ(test, pi, 3u);
	KUNIT_EXPECT_EQ(test, c->rec.ncalls, 7u);
	expect_comp(test, 2, 7);
	expect_comp(test, 3, 1);
	expect_comp(test, 6, 1);
}

static void cq_error_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 3, 0);

	post(eq, 0, SOFTHCA_EQE_CQ_ERROR, 5, SOFTHCA_CQ_SYND_OVERRUN);
	post(eq, 1, SOFTHCA_EQE_COMP, 5, 0);
	/* no event handler: the error is only logged */
	c->cqs[2]->ibcq.event_handler = NULL;
	post(eq, 2, SOFTHCA_EQE_CQ_ERROR, 7, SOFTHCA_CQ_SYND_DMA);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 3);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 2u);
	KUNIT_EXPECT_TRUE(test, c->rec.call[0].error);
	KUNIT_EXPECT_PTR_EQ(test, c->rec.call[0].cq, c->cqs[1]);
	KUNIT_EXPECT_EQ(test, c->rec.call[0].event, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_PTR_EQ(test, c->rec.call[0].device, &c->dev->ibdev);
	KUNIT_EXPECT_EQ(test, c->rec.call[0].refs, 2u);
	expect_comp(test, 1, 5);
}

/* A CQ without comp_handler, a CQ destroyed meanwhile, unknown EQE types. */
static void no_handler_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 3, 0);
	struct softhca_cq *gone = c->cqs[0];

	c->cqs[1]->ibcq.comp_handler = NULL;
	/* CQ 1 destroyed: out of the table before its EQEs are consumed */
	KUNIT_ASSERT_PTR_EQ(test, xa_erase_bh(&c->dev->cqs, gone->cqn),
			    (void *)gone);
	post(eq, 0, SOFTHCA_EQE_COMP, 5, 0);
	post(eq, 1, SOFTHCA_EQE_COMP, 1, 0);
	post(eq, 2, 0x7f, 7, 0);		/* no such EQE type */
	post(eq, 3, 0x00, 7, 0);		/* nor this */
	post(eq, 4, SOFTHCA_EQE_COMP, 7, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 5);
	KUNIT_EXPECT_EQ(test, eq->ci, 5u);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 1u);
	expect_comp(test, 0, 7);
	KUNIT_EXPECT_EQ(test, refcount_read(&c->cqs[1]->refcount), 1u);
	KUNIT_EXPECT_EQ(test, refcount_read(&gone->refcount), 1u);
}

/* Command completions (events mode) reach the waiting slot only. */
static void cmd_done_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 3, 0);
	struct softhca_cmdq *q = &c->dev->cmdq;
	unsigned int i;

	q->log_size = 2;
	q->slots = kunit_kcalloc(test, 4, sizeof(*q->slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q->slots);
	for (i = 0; i < 4; i++) {
		init_completion(&q->slots[i].done);
		q->slots[i].token = 100 + i;
	}
	post(eq, 0, SOFTHCA_EQE_CMD_DONE, 2, 102);	/* slot 2: done */
	post(eq, 1, SOFTHCA_EQE_CMD_DONE, 1, 99);	/* stale token */
	post(eq, 2, SOFTHCA_EQE_CMD_DONE, 4, 104);	/* no slot 4 */
	post(eq, 3, SOFTHCA_EQE_CMD_DONE, 0xffffffff, 100);
	post(eq, 4, SOFTHCA_EQE_COMP, 5, 0);
	post(eq, 5, SOFTHCA_EQE_CMD_DONE, 3, 103);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 6);
	KUNIT_EXPECT_FALSE(test, completion_done(&q->slots[0].done));
	KUNIT_EXPECT_FALSE(test, completion_done(&q->slots[1].done));
	KUNIT_EXPECT_TRUE(test, completion_done(&q->slots[2].done));
	KUNIT_EXPECT_TRUE(test, completion_done(&q->slots[3].done));
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 1u);
	expect_comp(test, 0, 5);
	q->slots = NULL;
}

/*
 * A destroyed CQ's events still waiting in the EQ must not reach a new CQ
 * that got the same number (CQ 5 here stands for it): after
 * softhca_eq_forget_cq() they name no CQ, everything else is untouched,
 * and the new CQ's own events arrive.
 */
static void forget_cq_test(struct kunit *test)
{
	struct dispatch_ctx *c = test->priv;
	struct softhca_eq *eq = setup_eq(test, 3, 6);
	struct softhca_eqe before[8];
	u32 i;

	spin_lock_init(&eq->lock);
	eq->created = true;
	post(eq, 6, SOFTHCA_EQE_COMP, 5, 0);
	post(eq, 7, SOFTHCA_EQE_COMP, 7, 0);
	post(eq, 8, SOFTHCA_EQE_CQ_ERROR, 5, SOFTHCA_CQ_SYND_OVERRUN);
	post(eq, 9, SOFTHCA_EQE_COMP, 1, 0);
	post(eq, 10, SOFTHCA_EQE_COMP, 5, 0);
	post(eq, 11, 0x7f, 5, 0);		/* not a CQ's event */
	memcpy(before, eq->buf, sizeof(before));

	softhca_eq_forget_cq(eq, 5);
	for (i = 6; i < 14; i++) {
		struct softhca_eqe *e = &eq->buf[i & 7];
		bool cq5 = i == 6 || i == 8 || i == 10;

		KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(e->obj),
				    cq5 ? SOFTHCA_CQN_NONE :
				    le32_to_cpu(before[i & 7].obj), "EQE %u", i);
		KUNIT_EXPECT_EQ_MSG(test, e->type, before[i & 7].type,
				    "EQE %u", i);
		KUNIT_EXPECT_EQ_MSG(test, e->owner, before[i & 7].owner,
				    "EQE %u", i);
	}
	KUNIT_EXPECT_EQ(test, eq->ci, 6u);

	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 6);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 2u);
	expect_comp(test, 0, 7);
	expect_comp(test, 1, 1);
	/* the new CQ 5's own events do arrive */
	post(eq, 12, SOFTHCA_EQE_COMP, 5, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(eq, 64), 1);
	KUNIT_ASSERT_EQ(test, c->rec.ncalls, 3u);
	expect_comp(test, 2, 5);
	/* nothing waiting: nothing to forget, nothing changes */
	memcpy(before, eq->buf, sizeof(before));
	softhca_eq_forget_cq(eq, 5);
	KUNIT_EXPECT_EQ(test, memcmp(before, eq->buf, sizeof(before)), 0);
}

static struct kunit_case softhca_eq_dispatch_cases[] = {
	KUNIT_CASE(comp_order_test),
	KUNIT_CASE(unknown_cq_test),
	KUNIT_CASE(stale_entries_test),
	KUNIT_CASE(budget_test),
	KUNIT_CASE(counter_wrap_test),
	KUNIT_CASE(cq_error_test),
	KUNIT_CASE(no_handler_test),
	KUNIT_CASE(cmd_done_test),
	KUNIT_CASE(forget_cq_test),
	{}
};

static struct kunit_suite softhca_eq_dispatch_suite = {
	.name = "softhca_eq_dispatch",
	.init = dispatch_init,
	.exit = dispatch_exit,
	.test_cases = softhca_eq_dispatch_cases,
};

kunit_test_suite(softhca_eq_dispatch_suite);

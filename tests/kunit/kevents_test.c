// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_kevents": the EQ tasklet's dispatch of what kernel
 * verbs add, softhca_eq_poll() in kernel/softhca_eq.c over a plain EQE
 * buffer. SRQ_LIMIT reaches the SRQ's event handler as
 * IB_EVENT_SRQ_LIMIT_REACHED while the tasklet holds a reference (an
 * unknown SRQ reaches nothing); a kernel CQ's completion event advances
 * its arm sequence number before comp_handler runs (so the handler's
 * re-arm is a new request), a user CQ's is the provider's business.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "softhca.h"

struct kev_ctx {
	struct softhca_dev *dev;
	struct softhca_eq eq;
	unsigned int calls;
	struct ib_event ev;
	unsigned int refs;		/* the object's refcount in the call */
	u32 arm_sn;			/* the CQ's arm_sn in comp_handler */
};

static void kev_exit(struct kunit *test)
{
	struct kev_ctx *c = test->priv;

	if (!c)
		return;
	xa_destroy(&c->dev->srqs);
	xa_destroy(&c->dev->cqs);
}

static int kev_init(struct kunit *test)
{
	struct kev_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u32 i;

	if (!c)
		return -ENOMEM;
	c->dev = kunit_kzalloc(test, sizeof(*c->dev), GFP_KERNEL);
	if (!c->dev)
		return -ENOMEM;
	xa_init_flags(&c->dev->srqs, XA_FLAGS_LOCK_BH);
	xa_init_flags(&c->dev->cqs, XA_FLAGS_LOCK_BH);
	c->eq.dev = c->dev;
	c->eq.log_size = 3;
	c->eq.buf = kunit_kcalloc(test, 8, sizeof(*c->eq.buf), GFP_KERNEL);
	if (!c->eq.buf)
		return -ENOMEM;
	for (i = 0; i < 8; i++)
		c->eq.buf[i].owner = SOFTHCA_EQE_OWNER;
	test->priv = c;
	return 0;
}

static void post(struct kev_ctx *c, u8 type, u32 obj, u32 data0)
{
	struct softhca_eqe *e;
	u32 pi;

	/* after the entries written but not consumed yet */
	for (pi = c->eq.ci; ; pi++) {
		e = &c->eq.buf[pi & 7];
		if (!softhca_ring_entry_valid(e->owner, pi, 3))
			break;
	}
	e->type = type;
	e->obj = cpu_to_le32(obj);
	e->data0 = cpu_to_le32(data0);
	/* the body is visible before the owner bit */
	wmb();
	WRITE_ONCE(e->owner, softhca_ring_owner(pi, 3));
}

static void srq_handler(struct ib_event *ev, void *context)
{
	struct kev_ctx *c = context;

	c->calls++;
	c->ev = *ev;
	c->refs = refcount_read(&to_ssrq(ev->element.srq)->refcount);
}

static void srq_limit_test(struct kunit *test)
{
	struct kev_ctx *c = test->priv;
	struct softhca_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, srq);
	srq->srqn = 3;
	srq->ibsrq.device = &c->dev->ibdev;
	srq->ibsrq.event_handler = srq_handler;
	srq->ibsrq.srq_context = c;
	refcount_set(&srq->refcount, 1);
	init_completion(&srq->free);
	KUNIT_ASSERT_EQ(test, xa_insert_bh(&c->dev->srqs, 3, srq, GFP_KERNEL),
			0);

	post(c, SOFTHCA_EQE_SRQ_LIMIT, 4, 0);	/* no such SRQ */
	post(c, SOFTHCA_EQE_SRQ_LIMIT, 3, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(&c->eq, 8), 2);
	KUNIT_EXPECT_EQ(test, c->eq.ci, 2u);
	KUNIT_ASSERT_EQ(test, c->calls, 1u);
	KUNIT_EXPECT_EQ(test, c->ev.event, IB_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_PTR_EQ(test, c->ev.element.srq, &srq->ibsrq);
	KUNIT_EXPECT_PTR_EQ(test, c->ev.device, &c->dev->ibdev);
	KUNIT_EXPECT_EQ(test, c->refs, 2u);
	KUNIT_EXPECT_EQ(test, refcount_read(&srq->refcount), 1u);
	KUNIT_EXPECT_FALSE(test, completion_done(&srq->free));

	/* no handler: nothing to call, the reference still comes back */
	srq->ibsrq.event_handler = NULL;
	post(c, SOFTHCA_EQE_SRQ_LIMIT, 3, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(&c->eq, 8), 1);
	KUNIT_EXPECT_EQ(test, c->calls, 1u);
	KUNIT_EXPECT_EQ(test, refcount_read(&srq->refcount), 1u);
}

static void comp_handler(struct ib_cq *ibcq, void *context)
{
	struct kev_ctx *c = context;

	c->calls++;
	c->arm_sn = to_scq(ibcq)->arm_sn;
	c->refs = refcount_read(&to_scq(ibcq)->refcount);
}

static struct softhca_cq *fake_cq(struct kunit *test, struct kev_ctx *c,
				  u32 cqn, bool kernel)
{
	struct softhca_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cq);
	cq->cqn = cqn;
	cq->kernel = kernel;
	spin_lock_init(&cq->lock);
	cq->ibcq.device = &c->dev->ibdev;
	cq->ibcq.comp_handler = comp_handler;
	cq->ibcq.cq_context = c;
	refcount_set(&cq->refcount, 1);
	init_completion(&cq->free);
	KUNIT_ASSERT_EQ(test, xa_insert_bh(&c->dev->cqs, cqn, cq, GFP_KERNEL),
			0);
	return cq;
}

static void kcq_event_test(struct kunit *test)
{
	struct kev_ctx *c = test->priv;
	struct softhca_cq *kcq = fake_cq(test, c, 5, true);
	struct softhca_cq *ucq = fake_cq(test, c, 6, false);

	post(c, SOFTHCA_EQE_COMP, 5, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(&c->eq, 8), 1);
	KUNIT_EXPECT_EQ(test, c->calls, 1u);
	KUNIT_EXPECT_EQ(test, c->arm_sn, 1u);
	KUNIT_EXPECT_EQ(test, c->refs, 2u);
	post(c, SOFTHCA_EQE_COMP, 5, 0);
	post(c, SOFTHCA_EQE_COMP, 6, 0);
	KUNIT_EXPECT_EQ(test, softhca_eq_poll(&c->eq, 8), 2);
	KUNIT_EXPECT_EQ(test, c->calls, 3u);
	KUNIT_EXPECT_EQ(test, kcq->arm_sn, 2u);
	/* the user CQ's sequence number lives in the provider */
	KUNIT_EXPECT_EQ(test, ucq->arm_sn, 0u);
	KUNIT_EXPECT_EQ(test, refcount_read(&kcq->refcount), 1u);
	KUNIT_EXPECT_EQ(test, refcount_read(&ucq->refcount), 1u);
}

static struct kunit_case kev_cases[] = {
	KUNIT_CASE(srq_limit_test),
	KUNIT_CASE(kcq_event_test),
	{}
};

static struct kunit_suite kev_suite = {
	.name = "softhca_kevents",
	.init = kev_init,
	.exit = kev_exit,
	.test_cases = kev_cases,
};

kunit_test_suite(kev_suite);

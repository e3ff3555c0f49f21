// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_cq_card": the CQ mechanisms of a kernel CQ on a real
 * card from softhca_hw_plug(), seen from both sides: what the driver's
 * entry points do (softhca_req_notify_cq(), softhca_poll_cq()) and what
 * the card writes (the CQ's ring, the COMP EQEs in its completion EQ,
 * which is made by command and never armed, so it raises no interrupt and
 * its entries stay where the card wrote them). Two kernel RC QPs loop back
 * through the card to make CQEs.
 *
 * arm_waiting_test: arming a CQ that already holds CQEs raises the event
 * at once (the driver rings CQ_DB), or, with IB_CQ_REPORT_MISSED_EVENTS,
 * is reported to the caller instead; one event per sequence number; a
 * solicited-only arm ignores waiting unsolicited CQEs.
 *
 * resize_test: RESIZE_CQ with CQEs waiting, larger and smaller, refused
 * when they do not fit; no CQE lost or taken twice.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include "softhca.h"
#include "test_util.h"

#define CQC_BUF_SIZE	(2 * PAGE_SIZE)
#define CQC_CEQ_LOG	8	/* PAGE_SIZE / 16 entries */

struct cqc_ctx {
	struct softhca_dev *dev;
	struct softhca_pd *pd;
	u32 eqn;
	struct softhca_eqe *eqes;	/* the completion EQ's ring */
	u32 mkey;
	u8 *buf;
	dma_addr_t buf_dma;
	struct softhca_cq *cq;
	struct softhca_qp *qp[2];
};

static int cqc_init(struct kunit *test)
{
	struct cqc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct softhca_set_gid_in gid = { .valid = 1 };
	struct softhca_mkey_ctx mctx = {};
	struct softhca_eq_ctx ectx = {};
	struct softhca_create_out out;
	struct softhca_alloc_out aout;
	struct softhca_pas_buf pb;
	struct softhca_dev *dev;
	dma_addr_t dma;
	u32 i;

	if (!c)
		return -ENOMEM;
	test->priv = c;
	dev = softhca_test_dev(test);
	c->dev = dev;
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_BH);
	xa_init(&dev->mrs);
	KUNIT_ASSERT_EQ(test, softhca_query_caps(dev), 0);

	/* the completion EQ, every entry the card's */
	c->eqes = softhca_test_dma_alloc(test, dev->hw, PAGE_SIZE, &dma);
	for (i = 0; i < BIT(CQC_CEQ_LOG); i++)
		c->eqes[i].owner = SOFTHCA_EQE_OWNER;
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, dma, PAGE_SIZE,
							&pb), 0);
	ectx.log_size = CQC_CEQ_LOG;
	ectx.type = SOFTHCA_EQ_COMP;
	ectx.vector = cpu_to_le16(SOFTHCA_VEC_COMP_BASE);
	softhca_pas_to_prm(&pb, &ectx.pas);
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ,
					       &ectx, sizeof(ectx), &out,
					       sizeof(out)), 0);
	softhca_pas_free(dev, &pb);
	c->eqn = le32_to_cpu(out.num);
	dev->ceqs = kunit_kzalloc(test, sizeof(*dev->ceqs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev->ceqs);
	dev->ceqs[0].eqn = c->eqn;
	dev->num_ceqs = 1;
	KUNIT_ASSERT_EQ(test, softhca_kverbs_init(dev), 0);

	/* GID 0 ::ffff:10.11.12.13, a PD, an MKEY over a data buffer */
	gid.gid[10] = 0xff;
	gid.gid[11] = 0xff;
	gid.gid[12] = 10;
	gid.gid[13] = 11;
	gid.gid[14] = 12;
	gid.gid[15] = 13;
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_SET_GID, &gid,
					       sizeof(gid), NULL, 0), 0);
	c->pd = kunit_kzalloc(test, sizeof(*c->pd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->pd);
	c->pd->ibpd.device = &dev->ibdev;
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_PD, NULL,
					       0, &aout, sizeof(aout)), 0);
	c->pd->pdn = le32_to_cpu(aout.num);
	c->buf = softhca_test_dma_alloc(test, dev->hw, CQC_BUF_SIZE,
					&c->buf_dma);
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, c->buf_dma,
							CQC_BUF_SIZE, &pb), 0);
	mctx.pdn = cpu_to_le32(c->pd->pdn);
	mctx.access = cpu_to_le32(SOFTHCA_ACCESS_LOCAL_WRITE);
	mctx.iova = cpu_to_le64(c->buf_dma);
	mctx.length = cpu_to_le64(CQC_BUF_SIZE);
	softhca_pas_to_prm(&pb, &mctx.pas);
	KUNIT_ASSERT_EQ(test, softhca_mkey_create(dev, &mctx, &c->mkey), 0);
	softhca_pas_free(dev, &pb);
	return 0;
}

static void cqc_exit(struct kunit *test)
{
	struct cqc_ctx *c = test->priv;
	struct softhca_dev *dev = c->dev;
	u32 i;

	if (!dev)
		return;
	for (i = 0; i < ARRAY_SIZE(c->qp); i++)
		if (c->qp[i])
			KUNIT_EXPECT_EQ(test, softhca_destroy_qp(&c->qp[i]->ibqp,
								 NULL), 0);
	if (c->cq)
		KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL),
				0);
	if (c->mkey)
		KUNIT_EXPECT_EQ(test, softhca_mkey_destroy(dev, c->mkey), 0);
	if (c->pd)
		KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev,
							  SOFTHCA_CMD_DEALLOC_PD,
							  c->pd->pdn), 0);
	softhca_kverbs_cleanup(dev);
	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_EQ,
						  c->eqn), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->qps));
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->cqs));
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&dev->kdbrecs), 0u);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->mrs);
}

/* A kernel CQ of at least @cqe entries, made as ib_core would. */
static struct softhca_cq *cqc_create_cq(struct kunit *test, int cqe)
{
	struct cqc_ctx *c = test->priv;
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct softhca_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cq);
	cq->ibcq.device = &c->dev->ibdev;
	KUNIT_ASSERT_EQ(test, softhca_create_cq(&cq->ibcq, &attr, NULL), 0);
	return cq;
}

/* RESET -> INIT -> RTR -> RTS towards QP @peer, on GID 0. */
static void cqc_connect(struct kunit *test, struct softhca_qp *qp, u32 peer)
{
	union ib_gid gid = { .raw = { [10] = 0xff, [11] = 0xff, 10, 11, 12,
				      13 } };
	struct ib_qp_attr a = {};

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a,
						IB_QP_STATE | IB_QP_PKEY_INDEX |
						IB_QP_PORT |
						IB_QP_ACCESS_FLAGS, NULL), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = peer;
	a.min_rnr_timer = 1;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_grh(&a.ah_attr, &gid, 0, 0, 64, 0);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a,
						IB_QP_STATE | IB_QP_AV |
						IB_QP_PATH_MTU |
						IB_QP_DEST_QPN | IB_QP_RQ_PSN |
						IB_QP_MAX_DEST_RD_ATOMIC |
						IB_QP_MIN_RNR_TIMER, NULL), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 10;
	a.retry_cnt = 3;
	a.rnr_retry = 7;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a,
						IB_QP_STATE | IB_QP_SQ_PSN |
						IB_QP_TIMEOUT |
						IB_QP_RETRY_CNT |
						IB_QP_RNR_RETRY |
						IB_QP_MAX_QP_RD_ATOMIC, NULL),
			0);
}

/* Two RC QPs on c->cq, connected to each other. */
static void cqc_pair(struct kunit *test)
{
	struct cqc_ctx *c = test->priv;
	struct ib_qp_init_attr attr = {};
	u32 i;

	attr.qp_type = IB_QPT_RC;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = 64;
	attr.cap.max_recv_wr = 64;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.port_num = 1;
	for (i = 0; i < 2; i++) {
		struct softhca_qp *qp = kunit_kzalloc(test, sizeof(*qp),
						      GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, qp);
		qp->ibqp.device = &c->dev->ibdev;
		qp->ibqp.pd = &c->pd->ibpd;
		qp->ibqp.qp_type = IB_QPT_RC;
		KUNIT_ASSERT_EQ(test, softhca_create_qp(&qp->ibqp, &attr, NULL),
				0);
		qp->ibqp.send_cq = &c->cq->ibcq;
		qp->ibqp.recv_cq = &c->cq->ibcq;
		c->qp[i] = qp;
	}
	cqc_connect(test, c->qp[0], c->qp[1]->qpn);
	cqc_connect(test, c->qp[1], c->qp[0]->qpn);
}

/*
 * A SEND of 8 bytes from QP 0 to QP 1 (@flags: IB_SEND_*), each WR's id
 * @id: two CQEs, the receive's and the send's.
 */
static void cqc_send(struct kunit *test, u64 id, int flags)
{
	struct cqc_ctx *c = test->priv;
	struct ib_sge sge = { .addr = c->buf_dma, .length = 8,
			      .lkey = c->mkey };
	struct ib_sge rsge = { .addr = c->buf_dma + PAGE_SIZE, .length = 64,
			       .lkey = c->mkey };
	struct ib_recv_wr rwr = { .wr_id = id, .sg_list = &rsge,
				  .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = id, .opcode = IB_WR_SEND,
				  .sg_list = &sge, .num_sge = 1,
				  .send_flags = IB_SEND_SIGNALED | flags };
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *bad;

	KUNIT_ASSERT_EQ(test, softhca_post_recv(&c->qp[1]->ibqp, &rwr, &rbad),
			0);
	KUNIT_ASSERT_EQ(test, softhca_post_send(&c->qp[0]->ibqp, &swr, &bad),
			0);
}

/* The card's producer index of CQ @cq (QUERY_CQ). */
static u32 cqc_pi(struct kunit *test, struct softhca_cq *cq)
{
	struct cqc_ctx *c = test->priv;
	struct softhca_obj_in in = { .num = cpu_to_le32(cq->cqn) };
	struct softhca_cq_query_out q;

	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(c->dev, SOFTHCA_CMD_QUERY_CQ,
					       &in, sizeof(in), &q, sizeof(q)),
			0);
	return le32_to_cpu(q.pi);
}

/* Wait until the card has written @n CQEs into @cq in all. */
static void cqc_wait_pi(struct kunit *test, struct softhca_cq *cq, u32 n)
{
	unsigned long until = jiffies + msecs_to_jiffies(5000);

	while (cqc_pi(test, cq) < n && time_before(jiffies, until))
		usleep_range(100, 200);
	KUNIT_ASSERT_EQ(test, cqc_pi(test, cq), n);
}

/* COMP EQEs the card wrote for @cqn (the EQ is never consumed). */
static u32 cqc_events(struct kunit *test, u32 cqn)
{
	struct cqc_ctx *c = test->priv;
	u32 i, n = 0;

	for (i = 0; i < BIT(CQC_CEQ_LOG); i++) {
		struct softhca_eqe *e = &c->eqes[i];

		if (!softhca_ring_entry_valid(READ_ONCE(e->owner), i,
					      CQC_CEQ_LOG))
			break;
		if (e->type == SOFTHCA_EQE_COMP && le32_to_cpu(e->obj) == cqn)
			n++;
	}
	KUNIT_ASSERT_LT(test, i, BIT(CQC_CEQ_LOG));
	return n;
}

static void cqc_poll(struct kunit *test, int n)
{
	struct cqc_ctx *c = test->priv;
	struct ib_wc wc[8];
	int i;

	KUNIT_ASSERT_LE(test, n, (int)ARRAY_SIZE(wc));
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 8, wc), n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
}

static void arm_waiting_test(struct kunit *test)
{
	struct cqc_ctx *c = test->priv;
	struct ib_cq *ibcq;
	u32 cqn;

	c->cq = cqc_create_cq(test, 32);
	ibcq = &c->cq->ibcq;
	cqn = c->cq->cqn;
	cqc_pair(test);

	/* two CQEs written while nothing was armed: no event */
	cqc_send(test, 1, 0);
	cqc_wait_pi(test, c->cq, 2);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 0u);
	/* told to the caller, who polls: still no event */
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
						    IB_CQ_REPORT_MISSED_EVENTS),
			1);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 0u);
	/* without REPORT_MISSED_EVENTS: CQ_DB, the event at once */
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 1u);
	/* the same arm (its event not taken): nothing more */
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 1u);

	/* the event taken (the EQ tasklet's part), the CQ emptied */
	softhca_kcq_event(c->cq);
	cqc_poll(test, 2);
	/* armed empty: quiet until the next CQE, which fires it */
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 1u);
	cqc_send(test, 2, 0);
	cqc_wait_pi(test, c->cq, 4);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 2u);
	softhca_kcq_event(c->cq);
	cqc_poll(test, 2);

	/* solicited only: waiting unsolicited CQEs are no reason... */
	cqc_send(test, 3, 0);
	cqc_wait_pi(test, c->cq, 6);
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(ibcq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 2u);
	cqc_poll(test, 2);
	/* ... a waiting solicited one is */
	cqc_send(test, 4, IB_SEND_SOLICITED);
	cqc_wait_pi(test, c->cq, 8);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 3u);
	softhca_kcq_event(c->cq);
	cqc_send(test, 5, IB_SEND_SOLICITED);
	cqc_wait_pi(test, c->cq, 10);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 3u);
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(ibcq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, cqc_events(test, cqn), 4u);
	cqc_poll(test, 4);
}

/*
 * Take @n completions, which must be those of the SENDs @first, @first +
 * 1, ...: each QP's (QP 1's receives, QP 0's sends) in order, every one
 * once; and if @all, nothing more waits.
 */
static void cqc_take(struct kunit *test, int n, u64 first, bool all)
{
	struct cqc_ctx *c = test->priv;
	u64 next[2] = { first, first };
	struct ib_wc *wc;
	int got = 0, i, r;

	wc = kunit_kcalloc(test, n + 1, sizeof(*wc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wc);
	for (r = 0; r < 100 && got < n; r++)
		got += softhca_poll_cq(&c->cq->ibcq, n - got, wc + got);
	KUNIT_ASSERT_EQ(test, got, n);
	for (i = 0; i < n; i++) {
		int q = wc[i].qp == &c->qp[0]->ibqp ? 0 : 1;

		KUNIT_EXPECT_EQ_MSG(test, wc[i].status, IB_WC_SUCCESS,
				    "CQE %d", i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, wc[i].qp, &c->qp[q]->ibqp,
					"CQE %d", i);
		KUNIT_EXPECT_EQ_MSG(test, wc[i].wr_id, next[q], "CQE %d", i);
		next[q]++;
	}
	KUNIT_EXPECT_EQ(test, next[0], first + n / 2);
	KUNIT_EXPECT_EQ(test, next[1], first + n / 2);
	if (all)
		KUNIT_EXPECT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 1, wc + n),
				0);
}

/*
 * resize_cq with CQEs waiting: the card switches at the consumer index
 * published, the driver moves the unpolled CQEs to the new ring; none is
 * lost or taken twice, larger or smaller, across many wraps of the new
 * ring; a ring too small for what waits is refused and the CQ is as it
 * was; the same size changes nothing.
 */
static void resize_test(struct kunit *test)
{
	struct cqc_ctx *c = test->priv;
	struct ib_cq *ibcq;
	u64 id = 0;
	u32 written = 0, i;

	c->cq = cqc_create_cq(test, 15);	/* 16 CQEs */
	ibcq = &c->cq->ibcq;
	cqc_pair(test);

	for (i = 0; i < 5; i++)
		cqc_send(test, id + i, 0);
	written += 10;
	cqc_wait_pi(test, c->cq, written);
	cqc_take(test, 4, id, false);			/* ci 4, 6 waiting */
	KUNIT_ASSERT_EQ(test, softhca_resize_cq(ibcq, 63, NULL), 0);
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 63);
	KUNIT_EXPECT_EQ(test, c->cq->base, 4u);
	KUNIT_EXPECT_EQ(test, c->cq->log_size, 6u);
	for (i = 5; i < 15; i++)
		cqc_send(test, id + i, 0);
	written += 20;
	cqc_wait_pi(test, c->cq, written);
	cqc_take(test, 26, id + 2, true);
	id += 15;

	/* smaller: 10 waiting do not fit 8, do fit 16 */
	for (i = 0; i < 5; i++)
		cqc_send(test, id + i, 0);
	written += 10;
	cqc_wait_pi(test, c->cq, written);
	KUNIT_EXPECT_EQ(test, softhca_resize_cq(ibcq, 7, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 63);
	KUNIT_EXPECT_EQ(test, softhca_resize_cq(ibcq, 15, NULL), 0);
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 15);
	KUNIT_EXPECT_EQ(test, c->cq->base, 30u);
	/* and filled: 16 waiting in 16 */
	for (i = 5; i < 8; i++)
		cqc_send(test, id + i, 0);
	written += 6;
	cqc_wait_pi(test, c->cq, written);
	cqc_take(test, 16, id, true);
	id += 8;

	/* the same size: nothing to do */
	KUNIT_EXPECT_EQ(test, softhca_resize_cq(ibcq, 12, NULL), 0);
	KUNIT_EXPECT_EQ(test, c->cq->base, 30u);

	/* around the new ring many times */
	for (i = 0; i < 20; i++) {
		u32 k;

		for (k = 0; k < 3; k++)
			cqc_send(test, id + k, 0);
		written += 6;
		cqc_wait_pi(test, c->cq, written);
		cqc_take(test, 6, id, true);
		id += 3;
	}
	KUNIT_EXPECT_EQ(test, cqc_pi(test, c->cq), written);
}

static struct kunit_case softhca_cq_card_cases[] = {
	KUNIT_CASE(arm_waiting_test),
	KUNIT_CASE(resize_test),
	{}
};

static struct kunit_suite softhca_cq_card_suite = {
	.name = "softhca_cq_card",
	.init = cqc_init,
	.exit = cqc_exit,
	.test_cases = softhca_cq_card_cases,
};

kunit_test_suite(softhca_cq_card_suite);

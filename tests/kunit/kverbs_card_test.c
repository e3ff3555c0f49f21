// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_kverbs_card": kernel verbs through the driver's own
 * entry points (softhca_create_cq(), softhca_create_qp(),
 * softhca_modify_qp(), softhca_post_send(), softhca_post_recv(),
 * softhca_poll_cq(), softhca_req_notify_cq(), the destroys) on a real
 * card from softhca_hw_plug(), with what every card version has: RC QPs,
 * CQs and MKEYs over a PAS. ib_core is not in the way: the objects are
 * allocated and wired up here the way it would. Two kernel RC QPs loop
 * back through the card: an unsignaled RDMA WRITE and a signaled SEND land
 * in the peer's memory, the SEND's CQE retires both, the receive completes
 * with its length; a QP moved to ERR takes ib_drain_qp()'s unsignaled
 * RDMA WRITE and the card flushes it; everything is destroyed and every
 * kernel doorbell record given back. Creates the card refuses unwind
 * completely. The engine comes back for a QP whose engine context it
 * found taken (engine_skip_test).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "softhca.h"
#include "hw/hw.h"
#include "test_util.h"

#define BUF_SIZE	(2 * PAGE_SIZE)

struct card_ctx {
	struct softhca_dev *dev;
	struct softhca_pd *pd;
	struct softhca_cq *cq;
	struct softhca_qp *qp[2];
	u32 eqn;
	u32 mkey;
	u8 *buf;
	dma_addr_t buf_dma;
};

/* A completion EQ made by command; never armed, so it raises nothing. */
static void make_ceq(struct kunit *test, struct card_ctx *c)
{
	struct softhca_dev *dev = c->dev;
	struct softhca_create_out out;
	struct softhca_pas_buf pb;
	struct softhca_eq_ctx ctx = {};
	struct softhca_eqe *eqes;
	dma_addr_t dma;
	u32 i;

	eqes = softhca_test_dma_alloc(test, dev->hw, PAGE_SIZE, &dma);
	for (i = 0; i < PAGE_SIZE / sizeof(*eqes); i++)
		eqes[i].owner = SOFTHCA_EQE_OWNER;
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, dma, PAGE_SIZE,
							&pb), 0);
	ctx.log_size = ilog2(PAGE_SIZE / sizeof(*eqes));
	ctx.type = SOFTHCA_EQ_COMP;
	ctx.vector = cpu_to_le16(SOFTHCA_VEC_COMP_BASE);
	softhca_pas_to_prm(&pb, &ctx.pas);
	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ,
					       &ctx, sizeof(ctx), &out,
					       sizeof(out)), 0);
	softhca_pas_free(dev, &pb);
	c->eqn = le32_to_cpu(out.num);
	dev->ceqs = kunit_kzalloc(test, sizeof(*dev->ceqs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev->ceqs);
	dev->ceqs[0].eqn = c->eqn;
	dev->num_ceqs = 1;
}

/* A GID at index 0, a PD, and an MKEY over a coherent data buffer. */
static void make_pd_mr(struct kunit *test, struct card_ctx *c)
{
	struct softhca_dev *dev = c->dev;
	struct softhca_set_gid_in gid = { .valid = 1 };
	struct softhca_mkey_ctx mctx = {};
	struct softhca_alloc_out out;
	struct softhca_pas_buf pb;

	/* ::ffff:10.11.12.13 */
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
					       0, &out, sizeof(out)), 0);
	c->pd->pdn = le32_to_cpu(out.num);

	c->buf = softhca_test_dma_alloc(test, dev->hw, BUF_SIZE, &c->buf_dma);
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, c->buf_dma,
							BUF_SIZE, &pb), 0);
	mctx.pdn = cpu_to_le32(c->pd->pdn);
	mctx.access = cpu_to_le32(SOFTHCA_ACCESS_LOCAL_WRITE |
				  SOFTHCA_ACCESS_REMOTE_WRITE |
				  SOFTHCA_ACCESS_REMOTE_READ);
	mctx.iova = cpu_to_le64(c->buf_dma);
	mctx.length = cpu_to_le64(BUF_SIZE);
	softhca_pas_to_prm(&pb, &mctx.pas);
	KUNIT_ASSERT_EQ(test, softhca_mkey_create(dev, &mctx, &c->mkey), 0);
	softhca_pas_free(dev, &pb);
}

static int card_init(struct kunit *test)
{
	struct card_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct softhca_dev *dev;

	if (!c)
		return -ENOMEM;
	test->priv = c;
	dev = softhca_test_dev(test);
	c->dev = dev;
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_BH);
	xa_init(&dev->mrs);
	KUNIT_ASSERT_EQ(test, softhca_query_caps(dev), 0);
	make_ceq(test, c);
	KUNIT_ASSERT_EQ(test, softhca_kverbs_init(dev), 0);
	KUNIT_EXPECT_TRUE(test, dev->kuar_valid);
	KUNIT_EXPECT_NOT_NULL(test, dev->kuar_va);
	/* the reserved lkey exists exactly when the card has F_PA MKEYs */
	KUNIT_EXPECT_EQ(test, !!dev->reserved_lkey,
			!!(dev->caps.cap_flags & SOFTHCA_CAP_PA_MKEY));
	make_pd_mr(test, c);
	return 0;
}

static void card_exit(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct softhca_dev *dev = c->dev;

	if (!dev)
		return;
	if (c->mkey)
		KUNIT_EXPECT_EQ(test, softhca_mkey_destroy(dev, c->mkey), 0);
	if (c->pd)
		KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev,
							  SOFTHCA_CMD_DEALLOC_PD,
							  c->pd->pdn), 0);
	softhca_kverbs_cleanup(dev);
	KUNIT_EXPECT_FALSE(test, dev->kuar_valid);
	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_EQ,
						  c->eqn), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->qps));
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->cqs));
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->mrs));
	xa_destroy(&dev->qps);
	xa_destroy(&dev->mrs);
}

static struct softhca_cq *create_cq(struct kunit *test, struct card_ctx *c,
				    int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct softhca_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cq);
	cq->ibcq.device = &c->dev->ibdev;
	KUNIT_ASSERT_EQ(test, softhca_create_cq(&cq->ibcq, &attr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, cq->kernel);
	KUNIT_EXPECT_GE(test, cq->ibcq.cqe, cqe);
	return cq;
}

/* What ib_core's create_qp() does around the driver's. */
static struct softhca_qp *create_qp(struct kunit *test, struct card_ctx *c,
				    struct ib_qp_init_attr *attr)
{
	struct softhca_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.device = &c->dev->ibdev;
	qp->ibqp.pd = &c->pd->ibpd;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.srq = attr->srq;
	KUNIT_ASSERT_EQ(test, softhca_create_qp(&qp->ibqp, attr, NULL), 0);
	qp->ibqp.send_cq = attr->send_cq;
	qp->ibqp.recv_cq = attr->recv_cq;
	KUNIT_EXPECT_TRUE(test, qp->kernel);
	KUNIT_EXPECT_EQ(test, qp->ibqp.qp_num, qp->qpn);
	return qp;
}

/* RESET -> INIT -> RTR -> RTS towards @peer, as rdma_cm would. */
static void connect_qp(struct kunit *test, struct card_ctx *c,
		       struct softhca_qp *qp, u32 peer)
{
	union ib_gid gid = { .raw = { [10] = 0xff, [11] = 0xff, 10, 11, 12,
				      13 } };
	struct ib_qp_attr a = {};

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a,
						IB_QP_STATE | IB_QP_PKEY_INDEX |
						IB_QP_PORT |
						IB_QP_ACCESS_FLAGS, NULL), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = peer;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 1;
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
	a.sq_psn = 100;
	a.timeout = 10;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.max_rd_atomic = 1;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a,
						IB_QP_STATE | IB_QP_SQ_PSN |
						IB_QP_TIMEOUT |
						IB_QP_RETRY_CNT |
						IB_QP_RNR_RETRY |
						IB_QP_MAX_QP_RD_ATOMIC, NULL),
			0);
	KUNIT_EXPECT_EQ(test, qp->state, IB_QPS_RTS);
}

/* Poll until @n completions arrived (the card's engine runs meanwhile). */
static int poll_n(struct softhca_cq *cq, struct ib_wc *wc, int n)
{
	unsigned long until = jiffies + msecs_to_jiffies(5000);
	int got = 0, ret;

	while (got < n && time_before(jiffies, until)) {
		ret = softhca_poll_cq(&cq->ibcq, n - got, wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got < n)
			usleep_range(100, 200);
	}
	return got;
}

static void rc_loopback_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct ib_qp_init_attr attr = {};
	struct ib_sge sge, rsge;
	struct ib_rdma_wr wwr = {};
	struct ib_send_wr swr = {};
	struct ib_recv_wr rwr = {};
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct ib_wc wc[4];
	u32 i;

	c->cq = create_cq(test, c, 32);
	attr.qp_type = IB_QPT_RC;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = 8;
	attr.cap.max_recv_wr = 8;
	attr.cap.max_send_sge = 2;
	attr.cap.max_recv_sge = 1;
	attr.port_num = 1;
	c->qp[0] = create_qp(test, c, &attr);
	KUNIT_EXPECT_GE(test, attr.cap.max_send_wr, 8u);
	KUNIT_EXPECT_GE(test, attr.cap.max_send_sge, 2u);
	c->qp[1] = create_qp(test, c, &attr);

	/* no sends before RTS */
	sge = (struct ib_sge){ .addr = c->buf_dma, .length = 64,
			       .lkey = c->mkey };
	swr.opcode = IB_WR_SEND;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, softhca_post_send(&c->qp[0]->ibqp, &swr, &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&swr);

	connect_qp(test, c, c->qp[0], c->qp[1]->qpn);
	connect_qp(test, c, c->qp[1], c->qp[0]->qpn);

	for (i = 0; i < 64; i++)
		c->buf[i] = i ^ 0x5a;
	rsge = (struct ib_sge){ .addr = c->buf_dma + PAGE_SIZE, .length = 256,
				.lkey = c->mkey };
	rwr.wr_id = 0xbeef;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, softhca_post_recv(&c->qp[1]->ibqp, &rwr, &rbad),
			0);

	/* an unsignaled WRITE, then a signaled SEND, in one chain */
	wwr.wr.wr_id = 0x1111;
	wwr.wr.opcode = IB_WR_RDMA_WRITE;
	wwr.wr.sg_list = &sge;
	wwr.wr.num_sge = 1;
	wwr.wr.next = &swr;
	wwr.remote_addr = c->buf_dma + PAGE_SIZE + 1024;
	wwr.rkey = c->mkey;
	swr.wr_id = 0x2222;
	swr.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, softhca_post_send(&c->qp[0]->ibqp, &wwr.wr, &bad),
			0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].qp == &c->qp[0]->ibqp) {
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, 0x2222ull);
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_SEND);
		} else {
			KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &c->qp[1]->ibqp);
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, 0xbeefull);
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
			KUNIT_EXPECT_EQ(test, wc[i].byte_len, 64u);
		}
	}
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + PAGE_SIZE, c->buf, 64), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + PAGE_SIZE + 1024, c->buf, 64),
			0);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&c->qp[0]->sq), 0u);

	/* ib_drain_sq(): to ERR, then an unsignaled empty WRITE is flushed */
	{
		struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
		struct ib_rdma_wr drain = {
			.wr = { .wr_id = 0xd7a1, .opcode = IB_WR_RDMA_WRITE },
		};

		KUNIT_ASSERT_EQ(test, softhca_modify_qp(&c->qp[0]->ibqp, &a,
							IB_QP_STATE, NULL), 0);
		KUNIT_ASSERT_EQ(test, softhca_post_send(&c->qp[0]->ibqp,
							&drain.wr, &bad), 0);
		KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 1), 1);
		KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0xd7a1ull);
		KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &c->qp[0]->ibqp);
	}

	/* nothing left: arming reports no missed event */
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(&c->cq->ibcq,
						    IB_CQ_NEXT_COMP |
						    IB_CQ_REPORT_MISSED_EVENTS),
			0);

	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, softhca_destroy_qp(&c->qp[i]->ibqp, NULL),
				0);
	KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 0u);
}

/* Refusals before the card is asked: nothing stays allocated. */
static void refusals_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct ib_cq_init_attr cattr = { .cqe = 8, .comp_vector = 1 };
	struct ib_qp_init_attr attr = {};
	struct softhca_qp *qp;
	struct softhca_cq *cq;

	cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	cq->ibcq.device = &c->dev->ibdev;
	KUNIT_EXPECT_EQ(test, softhca_create_cq(&cq->ibcq, &cattr, NULL),
			-EINVAL);
	c->cq = create_cq(test, c, 8);

	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.device = &c->dev->ibdev;
	qp->ibqp.pd = &c->pd->ibpd;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.cap.max_send_wr = 1;
	attr.qp_type = IB_QPT_RC;
	attr.create_flags = IB_QP_CREATE_INTEGRITY_EN;
	KUNIT_EXPECT_EQ(test, softhca_create_qp(&qp->ibqp, &attr, NULL),
			-EOPNOTSUPP);
	attr.create_flags = IB_QP_CREATE_PCI_WRITE_END_PADDING;
	attr.cap.max_send_sge = c->dev->caps.max_sge + 1;
	KUNIT_EXPECT_EQ(test, softhca_create_qp(&qp->ibqp, &attr, NULL),
			-EINVAL);
	attr.cap.max_send_sge = 1;
	attr.qp_type = IB_QPT_RAW_PACKET;
	KUNIT_EXPECT_EQ(test, softhca_create_qp(&qp->ibqp, &attr, NULL),
			-EOPNOTSUPP);
	/* UD and GSI only on a card that has them */
	attr.qp_type = IB_QPT_GSI;
	attr.port_num = 1;
	if (!(c->dev->caps.cap_flags & SOFTHCA_CAP_GSI))
		KUNIT_EXPECT_EQ(test, softhca_create_qp(&qp->ibqp, &attr, NULL),
				-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 1u);
	KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 0u);
}

/*
 * The card refuses: the create unwinds, nothing stays (no dbrec, no CQ or
 * QP in the device's tables), and the next create works.
 */
static void unwind_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct ib_cq_init_attr cattr = { .cqe = 8 };
	struct ib_qp_init_attr attr = {};
	struct softhca_pd bad_pd = {};
	struct softhca_qp *qp;
	struct ib_mr *mr;
	struct softhca_cq *cq;
	u32 eqn = c->dev->ceqs[0].eqn;

	/* CREATE_CQ on an EQ the card does not have */
	cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	cq->ibcq.device = &c->dev->ibdev;
	c->dev->ceqs[0].eqn = eqn + 7;
	KUNIT_EXPECT_EQ(test, softhca_create_cq(&cq->ibcq, &cattr, NULL),
			-EINVAL);
	c->dev->ceqs[0].eqn = eqn;
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 0u);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->dev->cqs));
	c->cq = create_cq(test, c, 8);

	/* CREATE_QP on a PD the card does not have */
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	bad_pd.pdn = 0xfffff;
	bad_pd.ibpd.device = &c->dev->ibdev;
	qp->ibqp.device = &c->dev->ibdev;
	qp->ibqp.pd = &bad_pd.ibpd;
	attr.qp_type = IB_QPT_RC;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	KUNIT_EXPECT_EQ(test, softhca_create_qp(&qp->ibqp, &attr, NULL),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->dev->qps));
	KUNIT_EXPECT_PTR_EQ(test, qp->buf, (void *)NULL);
	/* only the CQ's record is left */
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 1u);
	c->qp[0] = create_qp(test, c, &attr);
	KUNIT_EXPECT_EQ(test, softhca_destroy_qp(&c->qp[0]->ibqp, NULL), 0);

	/* what this card does not have is refused before it is asked */
	if (!(c->dev->caps.cap_flags & SOFTHCA_CAP_PA_MKEY)) {
		mr = softhca_get_dma_mr(&c->pd->ibpd, IB_ACCESS_LOCAL_WRITE);
		KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EOPNOTSUPP);
	}
	if (!(c->dev->caps.cap_flags & SOFTHCA_CAP_FAST_REG)) {
		mr = softhca_alloc_mr(&c->pd->ibpd, IB_MR_TYPE_MEM_REG, 8);
		KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EOPNOTSUPP);
	}
	KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 0u);
}

/* The completion of @wr_id among @n, or NULL. */
static struct ib_wc *find_wc(struct ib_wc *wc, int n, u64 wr_id)
{
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].wr_id == wr_id)
			return &wc[i];
	return NULL;
}

/* RESET -> INIT -> RTR -> RTS of a UD or GSI QP, as ib_mad does. */
static void ud_up(struct kunit *test, struct softhca_qp *qp, u32 qkey)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .pkey_index = 0,
				.port_num = 1, .qkey = qkey };
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY;

	if (qp->ibqp.qp_type == IB_QPT_UD)
		mask |= IB_QP_PORT;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a, mask, NULL), 0);
	a.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a, IB_QP_STATE,
						NULL), 0);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x1234;
	KUNIT_ASSERT_EQ(test, softhca_modify_qp(&qp->ibqp, &a,
						IB_QP_STATE | IB_QP_SQ_PSN,
						NULL), 0);
}

static void post_recv1(struct kunit *test, struct softhca_qp *qp, u64 wr_id,
		       u64 addr, u32 len, u32 lkey)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	KUNIT_ASSERT_EQ(test, softhca_post_recv(&qp->ibqp, &wr, &bad), 0);
}

/*
 * ib_mad's QP1 and a UD QP exchange datagrams through an AH, gathering
 * and scattering with the reserved lkey (DMA addresses): the GSI QP is
 * QP1, its receive gets the GRH (IPv4: 20 zero bytes, then the IPv4
 * header), the sender's QPN and the GRH flags; what it sends carries the
 * GSI Q_Key and source QPN 1.
 */
static void gsi_ud_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct softhca_dev *dev = c->dev;
	union ib_gid gid = { .raw = { [10] = 0xff, [11] = 0xff, 10, 11, 12,
				      13 } };
	struct ib_gid_attr sgid = { .index = 0 };
	struct rdma_ah_attr ah_attr = {};
	struct rdma_ah_init_attr init = { .ah_attr = &ah_attr };
	struct ib_qp_init_attr attr = {};
	u32 lkey = dev->reserved_lkey;
	struct ib_sge sge[2];
	struct ib_ud_wr wr = {};
	const struct ib_send_wr *bad;
	struct softhca_qp *gsi, *ud;
	struct softhca_ah *ah;
	struct ib_wc wc[2], *w;
	u8 *grh;
	u32 i;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_GSI) ||
	    !(dev->caps.cap_flags & SOFTHCA_CAP_UD) || !lkey)
		kunit_skip(test, "the card has no GSI QP, UD or reserved lkey");
	c->cq = create_cq(test, c, 32);
	attr.qp_type = IB_QPT_GSI;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	attr.cap = (struct ib_qp_cap){ .max_send_wr = 8, .max_recv_wr = 8,
				       .max_send_sge = 2, .max_recv_sge = 1 };
	attr.port_num = 1;
	gsi = create_qp(test, c, &attr);
	KUNIT_EXPECT_EQ(test, gsi->qpn, 1u);
	KUNIT_EXPECT_EQ(test, gsi->ibqp.qp_num, 1u);
	attr.qp_type = IB_QPT_UD;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	ud = create_qp(test, c, &attr);
	c->qp[0] = gsi;
	c->qp[1] = ud;
	ud_up(test, gsi, 0x80010000);
	ud_up(test, ud, 0x80010000);

	ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_grh(&ah_attr, &gid, 0, 0, 64, 0);
	ah_attr.grh.sgid_attr = &sgid;
	ah = kunit_kzalloc(test, sizeof(*ah), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ah);
	ah->ibah.device = &dev->ibdev;
	KUNIT_ASSERT_EQ(test, softhca_create_ah(&ah->ibah, &init, NULL), 0);

	for (i = 0; i < 256; i++)
		c->buf[i] = i * 7 + 1;
	post_recv1(test, gsi, 0x21, c->buf_dma + PAGE_SIZE, 296, lkey);
	post_recv1(test, ud, 0x22, c->buf_dma + PAGE_SIZE + 512, 296, lkey);

	/* UD QP -> QP1: two SGEs, 24 + 40 bytes */
	sge[0] = (struct ib_sge){ .addr = c->buf_dma, .length = 24,
				  .lkey = lkey };
	sge[1] = (struct ib_sge){ .addr = c->buf_dma + 100, .length = 40,
				  .lkey = lkey };
	wr.wr.wr_id = 0x11;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = 2;
	wr.ah = &ah->ibah;
	wr.remote_qpn = 1;
	wr.remote_qkey = 0x80010000;
	KUNIT_ASSERT_EQ(test, softhca_post_send(&ud->ibqp, &wr.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 2), 2);
	w = find_wc(wc, 2, 0x11);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, w->qp, &ud->ibqp);
	w = find_wc(wc, 2, 0x21);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, w->opcode, IB_WC_RECV);
	KUNIT_EXPECT_PTR_EQ(test, w->qp, &gsi->ibqp);
	KUNIT_EXPECT_EQ(test, w->byte_len, 40u + 64);
	KUNIT_EXPECT_EQ(test, w->src_qp, ud->qpn);
	KUNIT_EXPECT_EQ(test, w->pkey_index, 0);
	KUNIT_EXPECT_EQ(test, w->wc_flags,
			IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, w->network_hdr_type, (u8)RDMA_NETWORK_IPV4);
	grh = c->buf + PAGE_SIZE;
	KUNIT_EXPECT_TRUE(test, !memchr_inv(grh, 0, 20));
	KUNIT_EXPECT_EQ(test, grh[20], 0x45);	/* IPv4, 20-byte header */
	KUNIT_EXPECT_EQ(test, memcmp(grh + 40, c->buf, 24), 0);
	KUNIT_EXPECT_EQ(test, memcmp(grh + 64, c->buf + 100, 40), 0);

	/* QP1 -> UD QP: "the QP's own Q_Key" is the GSI Q_Key */
	sge[0] = (struct ib_sge){ .addr = c->buf_dma + 200, .length = 16,
				  .lkey = lkey };
	wr.wr.wr_id = 0x12;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = 0;		/* the GSI QP signals all */
	wr.remote_qpn = ud->qpn;
	wr.remote_qkey = 0x80000000;	/* IB_QP_SET_QKEY */
	KUNIT_ASSERT_EQ(test, softhca_post_send(&gsi->ibqp, &wr.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 2), 2);
	w = find_wc(wc, 2, 0x12);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, w->qp, &gsi->ibqp);
	w = find_wc(wc, 2, 0x22);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, w->src_qp, 1u);
	KUNIT_EXPECT_EQ(test, w->byte_len, 40u + 16);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + PAGE_SIZE + 512 + 40,
				     c->buf + 200, 16), 0);

	KUNIT_EXPECT_EQ(test, softhca_destroy_ah(&ah->ibah, 0), 0);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, softhca_destroy_qp(&c->qp[i]->ibqp, NULL),
				0);
	KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&dev->kdbrecs), 0u);
}

/* Two RC QPs; the second receives from @srq if given. */
static void rc_pair(struct kunit *test, struct card_ctx *c,
		    struct ib_srq *srq)
{
	struct ib_qp_init_attr attr = {};

	c->cq = create_cq(test, c, 32);
	attr.qp_type = IB_QPT_RC;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap = (struct ib_qp_cap){ .max_send_wr = 8, .max_recv_wr = 8,
				       .max_send_sge = 1, .max_recv_sge = 1 };
	attr.port_num = 1;
	c->qp[0] = create_qp(test, c, &attr);
	attr.srq = srq;
	c->qp[1] = create_qp(test, c, &attr);
	if (srq) {
		KUNIT_EXPECT_EQ(test, attr.cap.max_recv_wr, 0u);
		KUNIT_EXPECT_EQ(test, attr.cap.max_recv_sge, 0u);
	}
	connect_qp(test, c, c->qp[0], c->qp[1]->qpn);
	connect_qp(test, c, c->qp[1], c->qp[0]->qpn);
}

static void rc_pair_destroy(struct kunit *test, struct card_ctx *c)
{
	u32 i;

	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, softhca_destroy_qp(&c->qp[i]->ibqp, NULL),
				0);
	KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL), 0);
}

static int post_send1(struct softhca_qp *qp, enum ib_wr_opcode op,
		      u64 wr_id, u64 addr, u32 len, u32 lkey, u64 raddr,
		      u32 rkey, u32 inv)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr, .rkey = rkey,
	};
	const struct ib_send_wr *bad;

	if (op == IB_WR_SEND_WITH_INV)
		wr.wr.ex.invalidate_rkey = inv;
	return softhca_post_send(&qp->ibqp, &wr.wr, &bad);
}

/*
 * A kernel SRQ under an RC QP: its receives complete from the SRQ in
 * posting order and go back to the free list; the limit arms and reads
 * back; the QP on it has no RQ of its own.
 */
static void srq_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct softhca_dev *dev = c->dev;
	struct ib_srq_init_attr sattr = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 6, .max_sge = 1 },
	};
	struct ib_srq_attr a = { .srq_limit = 1 };
	const struct ib_recv_wr *rbad;
	struct ib_recv_wr rwr = {};
	struct softhca_srq *srq;
	struct ib_sge sge;
	struct ib_wc wc[4], *w;
	u32 i;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_SRQ))
		kunit_skip(test, "the card has no SRQs");
	srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srq);
	srq->ibsrq.device = &dev->ibdev;
	srq->ibsrq.pd = &c->pd->ibpd;
	KUNIT_ASSERT_EQ(test, softhca_create_srq(&srq->ibsrq, &sattr, NULL),
			0);
	KUNIT_EXPECT_EQ(test, sattr.attr.max_wr, 7u);
	KUNIT_EXPECT_EQ(test, sattr.attr.max_sge, 1u);
	rc_pair(test, c, &srq->ibsrq);

	for (i = 0; i < 4; i++) {
		sge = (struct ib_sge){ .addr = c->buf_dma + PAGE_SIZE + i * 256,
				       .length = 256, .lkey = c->mkey };
		rwr = (struct ib_recv_wr){ .wr_id = 0x40 + i, .sg_list = &sge,
					   .num_sge = 1 };
		KUNIT_ASSERT_EQ(test, softhca_post_srq_recv(&srq->ibsrq, &rwr,
							    &rbad), 0);
	}
	KUNIT_EXPECT_EQ(test, softhca_ksrq_free_count(&srq->ring), 4u);
	/* the QP on the SRQ has no receive queue to post to */
	KUNIT_EXPECT_EQ(test, softhca_post_recv(&c->qp[1]->ibqp, &rwr, &rbad),
			-EINVAL);

	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, post_send1(c->qp[0], IB_WR_SEND, 0x30 + i,
						 c->buf_dma + 32 * i, 32,
						 c->mkey, 0, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 4), 4);
	for (i = 0; i < 2; i++) {
		w = find_wc(wc, 4, 0x40 + i);
		KUNIT_ASSERT_NOT_NULL(test, w);
		KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
		KUNIT_EXPECT_PTR_EQ(test, w->qp, &c->qp[1]->ibqp);
		KUNIT_EXPECT_EQ(test, w->byte_len, 32u);
		KUNIT_EXPECT_EQ(test, memcmp(c->buf + PAGE_SIZE + i * 256,
					     c->buf + 32 * i, 32), 0);
		KUNIT_EXPECT_NOT_NULL(test, find_wc(wc, 4, 0x30 + i));
	}
	KUNIT_EXPECT_EQ(test, softhca_ksrq_free_count(&srq->ring), 6u);

	KUNIT_EXPECT_EQ(test, softhca_modify_srq(&srq->ibsrq, &a,
						 IB_SRQ_LIMIT, NULL), 0);
	memset(&a, 0, sizeof(a));
	KUNIT_EXPECT_EQ(test, softhca_query_srq(&srq->ibsrq, &a), 0);
	KUNIT_EXPECT_EQ(test, a.srq_limit, 1u);
	KUNIT_EXPECT_EQ(test, a.max_wr, 7u);
	a.srq_limit = 8;
	KUNIT_EXPECT_EQ(test, softhca_modify_srq(&srq->ibsrq, &a,
						 IB_SRQ_LIMIT, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, softhca_modify_srq(&srq->ibsrq, &a,
						 IB_SRQ_MAX_WR, NULL),
			-EOPNOTSUPP);

	rc_pair_destroy(test, c);
	KUNIT_EXPECT_EQ(test, softhca_destroy_srq(&srq->ibsrq, NULL), 0);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&dev->kdbrecs), 0u);
}

/*
 * Fast registration as nvme-rdma does it: alloc_mr, map_mr_sg, REG_MR
 * under a new key byte, a peer's WRITE through it, LOCAL_INV, REG_MR
 * again, SEND_WITH_INV from the peer (the receive says which key it
 * invalidated), and then the peer's WRITE is refused; dereg finds the
 * MKEY under the key the card holds, whatever the MR says.
 */
static void fast_reg_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct softhca_dev *dev = c->dev;
	u32 lkey = dev->reserved_lkey;
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 0x51, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	const struct ib_send_wr *bad;
	struct scatterlist sgl;
	struct ib_wc wc[2], *w;
	struct ib_mr *mr;
	u32 key1;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_FAST_REG) || !lkey)
		kunit_skip(test, "the card has no fast registration");
	rc_pair(test, c, NULL);
	mr = softhca_alloc_mr(&c->pd->ibpd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	mr->device = &dev->ibdev;	/* what ib_alloc_mr() sets */
	mr->pd = &c->pd->ibpd;
	sg_init_table(&sgl, 1);
	sg_dma_address(&sgl) = c->buf_dma + PAGE_SIZE;
	sg_dma_len(&sgl) = 2048;
	mr->page_size = PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, softhca_map_mr_sg(mr, &sgl, 1, NULL), 1);
	KUNIT_EXPECT_EQ(test, mr->iova, (u64)c->buf_dma + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, mr->length, 2048ull);

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	key1 = mr->rkey;
	reg.mr = mr;
	reg.key = key1;
	KUNIT_ASSERT_EQ(test, softhca_post_send(&c->qp[0]->ibqp, &reg.wr,
						&bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x51ull);

	/* the peer writes through the new key */
	KUNIT_ASSERT_EQ(test, post_send1(c->qp[1], IB_WR_RDMA_WRITE, 0x61,
					 c->buf_dma, 64, lkey, mr->iova + 128,
					 key1, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf + PAGE_SIZE + 128, c->buf, 64), 0);

	/* LOCAL_INV, then REG_MR under the next key */
	KUNIT_ASSERT_EQ(test, post_send1(c->qp[0], IB_WR_LOCAL_INV, 0x52, 0, 0,
					 0, 0, 0, 0), -EINVAL);	/* it takes no SGE */
	{
		struct ib_send_wr inv = { .wr_id = 0x52,
					  .opcode = IB_WR_LOCAL_INV,
					  .send_flags = IB_SEND_SIGNALED,
					  .ex.invalidate_rkey = key1 };

		KUNIT_ASSERT_EQ(test, softhca_post_send(&c->qp[0]->ibqp, &inv,
							&bad), 0);
	}
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_LOCAL_INV);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.key = mr->rkey;
	KUNIT_ASSERT_EQ(test, softhca_post_send(&c->qp[0]->ibqp, &reg.wr,
						&bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);

	/* the peer's SEND_WITH_INV frees it; the receive names the key */
	post_recv1(test, c->qp[0], 0x71, c->buf_dma + PAGE_SIZE + 3072, 64,
		   c->mkey);
	KUNIT_ASSERT_EQ(test, post_send1(c->qp[1], IB_WR_SEND_WITH_INV, 0x62,
					 c->buf_dma, 16, lkey, 0, 0, mr->rkey),
			0);
	KUNIT_ASSERT_EQ(test, poll_n(c->cq, wc, 2), 2);
	w = find_wc(wc, 2, 0x71);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, w->wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, w->ex.invalidate_rkey, mr->rkey);
	w = find_wc(wc, 2, 0x62);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->status, IB_WC_SUCCESS);

	/* a free MKEY: the peer's WRITE is refused */
	KUNIT_ASSERT_EQ(test, post_send1(c->qp[1], IB_WR_RDMA_WRITE, 0x63,
					 c->buf_dma, 64, lkey, mr->iova,
					 mr->rkey, 0), 0);
	KUNIT_ASSERT_GE(test, poll_n(c->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x63ull);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_REM_ACCESS_ERR);

	/* the ULP moved the key on without registering: dereg still works */
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	KUNIT_EXPECT_EQ(test, softhca_dereg_mr(mr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->mrs) ||
			  !xa_load(&dev->mrs, SOFTHCA_MKEY_INDEX(key1)));
	rc_pair_destroy(test, c);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&dev->kdbrecs), 0u);
}

/*
 * A destroyed object's number is not handed out again at once: the
 * driver forgets a QP, SRQ or MKEY only once its destroy command has
 * completed, and a create in another thread meanwhile would find the
 * number still taken (-EBUSY from its xa_insert, seen under churn).
 */
static void numbers_not_reused_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct softhca_dev *dev = c->dev;
	struct ib_srq_init_attr sattr = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct ib_qp_init_attr attr = {};
	struct softhca_mkey_ctx mctx = {};
	struct softhca_pas_buf pb;
	struct softhca_srq *srq[2];
	struct softhca_qp *qp[2];
	u32 key[2], qpn, srqn;
	int i;

	/* MKEYs */
	mctx.pdn = cpu_to_le32(c->pd->pdn);
	mctx.access = cpu_to_le32(SOFTHCA_ACCESS_LOCAL_WRITE);
	mctx.iova = cpu_to_le64(c->buf_dma);
	mctx.length = cpu_to_le64(BUF_SIZE);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, c->buf_dma,
								BUF_SIZE, &pb),
				0);
		softhca_pas_to_prm(&pb, &mctx.pas);
		KUNIT_ASSERT_EQ(test, softhca_mkey_create(dev, &mctx, &key[i]),
				0);
		softhca_pas_free(dev, &pb);
		KUNIT_EXPECT_NOT_NULL(test, xa_load(&dev->mrs,
						    SOFTHCA_MKEY_INDEX(key[i])));
		KUNIT_EXPECT_EQ(test, softhca_mkey_destroy(dev, key[i]), 0);
		KUNIT_EXPECT_NULL(test, xa_load(&dev->mrs,
						SOFTHCA_MKEY_INDEX(key[i])));
	}
	KUNIT_EXPECT_NE(test, SOFTHCA_MKEY_INDEX(key[0]),
			SOFTHCA_MKEY_INDEX(key[1]));

	/* QPs */
	c->cq = create_cq(test, c, 8);
	attr.qp_type = IB_QPT_RC;
	attr.send_cq = &c->cq->ibcq;
	attr.recv_cq = &c->cq->ibcq;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	for (i = 0; i < 2; i++) {
		qp[i] = create_qp(test, c, &attr);
		qpn = qp[i]->qpn;
		KUNIT_EXPECT_EQ(test, softhca_destroy_qp(&qp[i]->ibqp, NULL), 0);
		qp[i]->qpn = qpn;
	}
	KUNIT_EXPECT_NE(test, qp[0]->qpn, qp[1]->qpn);

	/* SRQs */
	if (dev->caps.cap_flags & SOFTHCA_CAP_SRQ) {
		for (i = 0; i < 2; i++) {
			srq[i] = kunit_kzalloc(test, sizeof(*srq[i]),
					       GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, srq[i]);
			srq[i]->ibsrq.device = &dev->ibdev;
			srq[i]->ibsrq.pd = &c->pd->ibpd;
			KUNIT_ASSERT_EQ(test, softhca_create_srq(&srq[i]->ibsrq,
								 &sattr, NULL),
					0);
			srqn = srq[i]->srqn;
			KUNIT_EXPECT_EQ(test,
					softhca_destroy_srq(&srq[i]->ibsrq,
							    NULL),
					0);
			srq[i]->srqn = srqn;
		}
		KUNIT_EXPECT_NE(test, srq[0]->srqn, srq[1]->srqn);
	}
	KUNIT_EXPECT_EQ(test, softhca_destroy_cq(&c->cq->ibcq, NULL), 0);
}

/*
 * The engine comes back for a QP whose engine context it found taken. A
 * command holds the context while modify to ERR schedules the flush (here
 * the test holds it and moves the QP to ERR the way the command does): a
 * pass then skips the QP and must ask to run again soon, not sleep until
 * the next doorbell, which a QP in error may never get. Once the context
 * is free the flush completes the posted receive.
 */
static void engine_skip_test(struct kunit *test)
{
	struct card_ctx *c = test->priv;
	struct softhca_hw *hw = c->dev->hw;
	struct ib_sge sge = { .addr = c->buf_dma + PAGE_SIZE, .length = 64,
			      .lkey = c->mkey };
	struct ib_recv_wr rwr = { .wr_id = 0x61, .sg_list = &sge,
				  .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	struct softhca_hw_qp *hqp;
	ktime_t next = KTIME_MAX;
	ktime_t before;
	struct ib_wc wc;

	rc_pair(test, c, NULL);
	KUNIT_ASSERT_EQ(test, softhca_post_recv(&c->qp[1]->ibqp, &rwr, &rbad),
			0);
	hqp = softhca_hw_qp_get(hw, c->qp[1]->qpn);
	KUNIT_ASSERT_NOT_NULL(test, hqp);

	spin_lock_bh(&hqp->run);
	spin_lock_bh(&hqp->lock);
	softhca_hw_qp_to_error(hw, hqp, 0, 0);
	spin_unlock_bh(&hqp->lock);
	before = ktime_get();
	softhca_hw_engine_pass(hw, &next);
	spin_unlock_bh(&hqp->run);
	softhca_hw_qp_put(hqp);

	KUNIT_EXPECT_NE_MSG(test, next, KTIME_MAX,
			    "a pass that skipped a QP with work sleeps on");
	KUNIT_EXPECT_LE(test, ktime_to_us(ktime_sub(next, before)), 1000);

	KUNIT_ASSERT_EQ(test, poll_n(c->cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x61ull);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, &c->qp[1]->ibqp);
	rc_pair_destroy(test, c);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&c->dev->kdbrecs), 0u);
}

static struct kunit_case card_cases[] = {
	KUNIT_CASE(rc_loopback_test),
	KUNIT_CASE(refusals_test),
	KUNIT_CASE(unwind_test),
	KUNIT_CASE(gsi_ud_test),
	KUNIT_CASE(srq_test),
	KUNIT_CASE(fast_reg_test),
	KUNIT_CASE(numbers_not_reused_test),
	KUNIT_CASE(engine_skip_test),
	{}
};

static struct kunit_suite card_suite = {
	.name = "softhca_kverbs_card",
	.init = card_init,
	.exit = card_exit,
	.test_cases = card_cases,
};

kunit_test_suite(card_suite);

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_kcq": kernel CQs, kernel/softhca_kcq.c, on
 * hand-made CQE rings and fake kernel QPs in a fake device. A CQE becomes
 * the ib_wc ib_core expects (every status, opcode and flag, against tables
 * written here); poll_cq finds the wr_id through the QP's send, receive or
 * SRQ bookkeeping, sets wc->qp, follows the owner bit over wraps and
 * publishes the consumer index; CQEs of unknown or cleaned QPs are
 * dropped; arming writes the arm word (and the UAR doorbell) with the
 * sequence number that softhca_kcq_event() advances, and
 * IB_CQ_REPORT_MISSED_EVENTS reports a CQE already waiting.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "softhca.h"

/* ib_wc status for each CQE status, written down from the PRM's list. */
static const enum ib_wc_status want_status[] = {
	IB_WC_SUCCESS, IB_WC_LOC_LEN_ERR, IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_PROT_ERR, IB_WC_WR_FLUSH_ERR, IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR, IB_WC_LOC_ACCESS_ERR, IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR, IB_WC_REM_OP_ERR, IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR, IB_WC_REM_ABORT_ERR, IB_WC_GENERAL_ERR,
};

static void cqe_status_test(struct kunit *test)
{
	struct softhca_cqe cqe = {};
	struct ib_wc wc;
	unsigned int s;

	for (s = 0; s < 256; s++) {
		cqe.status = s;
		memset(&wc, 0x5a, sizeof(wc));
		softhca_cqe_to_wc(&cqe, &wc);
		KUNIT_EXPECT_EQ_MSG(test, wc.status,
				    s < ARRAY_SIZE(want_status) ?
				    want_status[s] : IB_WC_GENERAL_ERR,
				    "CQE status 0x%x", s);
	}
}

static void cqe_opcode_test(struct kunit *test)
{
	static const struct {
		u8 cqe;
		enum ib_wc_opcode wc;
	} map[] = {
		{ SOFTHCA_CQE_OP_SEND, IB_WC_SEND },
		{ SOFTHCA_CQE_OP_RDMA_WRITE, IB_WC_RDMA_WRITE },
		{ SOFTHCA_CQE_OP_RDMA_READ, IB_WC_RDMA_READ },
		{ SOFTHCA_CQE_OP_CMP_SWAP, IB_WC_COMP_SWAP },
		{ SOFTHCA_CQE_OP_FETCH_ADD, IB_WC_FETCH_ADD },
		{ SOFTHCA_CQE_OP_LOCAL_INV, IB_WC_LOCAL_INV },
		{ SOFTHCA_CQE_OP_REG_MR, IB_WC_REG_MR },
		{ SOFTHCA_CQE_OP_RECV, IB_WC_RECV },
		{ SOFTHCA_CQE_OP_RECV_RDMA_IMM, IB_WC_RECV_RDMA_WITH_IMM },
		{ 0x07, IB_WC_SEND },		/* unknown send opcode */
		{ 0x9f, IB_WC_RECV },		/* unknown receive opcode */
	};
	struct softhca_cqe cqe = {};
	struct ib_wc wc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		cqe.opcode = map[i].cqe;
		softhca_cqe_to_wc(&cqe, &wc);
		KUNIT_EXPECT_EQ_MSG(test, wc.opcode, map[i].wc,
				    "CQE opcode 0x%x", map[i].cqe);
	}
}

/* Every field and flag, with a GSI receive as ib_mad gets it. */
static void cqe_fields_test(struct kunit *test)
{
	struct softhca_cqe cqe = {
		.qpn = cpu_to_le32(1), .byte_cnt = cpu_to_le32(296),
		.src_qp = cpu_to_le32(0x123456),
		.vendor_err = cpu_to_le32(0x77),
		.opcode = SOFTHCA_CQE_OP_RECV, .status = SOFTHCA_CQE_ST_SUCCESS,
		.flags = SOFTHCA_CQE_F_GRH | SOFTHCA_CQE_F_IPV4,
		.pkey_index = cpu_to_le16(0),
	};
	struct ib_wc wc;

	memset(&wc, 0xa5, sizeof(wc));
	softhca_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 296u);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 0x123456u);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, 0x77u);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);
	KUNIT_EXPECT_EQ(test, wc.port_num, 1u);
	KUNIT_EXPECT_EQ(test, wc.slid, 0u);
	KUNIT_EXPECT_EQ(test, wc.sl, 0);
	KUNIT_EXPECT_EQ(test, wc.dlid_path_bits, 0);
	KUNIT_EXPECT_EQ(test, wc.vlan_id, 0);
	KUNIT_EXPECT_EQ(test, wc.wc_flags,
			IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, (u8)RDMA_NETWORK_IPV4);

	cqe.flags = SOFTHCA_CQE_F_GRH;
	softhca_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags,
			IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, (u8)RDMA_NETWORK_IPV6);

	/* immediate data stays in network order */
	cqe.flags = SOFTHCA_CQE_F_IMM | SOFTHCA_CQE_F_SOLICITED;
	cqe.imm = cpu_to_be32(0xc0ffee01);
	softhca_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, (__force u32)wc.ex.imm_data,
			(__force u32)cpu_to_be32(0xc0ffee01));

	/* the invalidated rkey comes back in CPU order */
	cqe.flags = SOFTHCA_CQE_F_INV;
	cqe.imm = cpu_to_be32(0x00abcd12);
	softhca_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x00abcd12u);

	/* an RC receive: no flags at all */
	cqe.flags = 0;
	softhca_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, 0);
}

/* A fake device with kernel QPs on one kernel CQ, all plain memory. */
struct kcq_ctx {
	struct softhca_dev *dev;
	struct softhca_cq *cq;
	struct softhca_qp *qp[2];
	struct softhca_srq *srq;
	u32 pi;				/* the simulated card's producer */
};

#define CQ_LOG	2
#define QPN0	0x21
#define QPN1	0x22

static struct softhca_qp *fake_qp(struct kunit *test, struct kcq_ctx *c,
				  u32 qpn)
{
	struct softhca_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->qpn = qpn;
	qp->kernel = true;
	qp->state = IB_QPS_RTS;
	qp->ibqp.device = &c->dev->ibdev;
	qp->ibqp.send_cq = &c->cq->ibcq;
	qp->ibqp.recv_cq = &c->cq->ibcq;
	qp->sq.ring.wqe_cnt = 16;
	qp->sq.ring.buf = kunit_kzalloc(test, 16 * 64, GFP_KERNEL);
	qp->sq.caps.qp_type = SOFTHCA_QPT_RC;
	qp->sq.caps.priv = 1;
	qp->sq.caps.max_sge = 2;
	qp->sq.max_wr = 16;
	qp->sq.wrid = kunit_kcalloc(test, 16, sizeof(u64), GFP_KERNEL);
	qp->sq.wqe_head = kunit_kcalloc(test, 16, sizeof(u32), GFP_KERNEL);
	qp->sq.nbb = kunit_kcalloc(test, 16, 1, GFP_KERNEL);
	qp->rq.wqe_cnt = 4;
	qp->rq.stride = 16;
	qp->rq.max_wr = 4;
	qp->rq.max_sge = 1;
	qp->rq.buf = kunit_kzalloc(test, 4 * 16, GFP_KERNEL);
	qp->rq.wrid = kunit_kcalloc(test, 4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, qp->sq.ring.buf && qp->sq.wrid &&
			  qp->sq.wqe_head && qp->sq.nbb && qp->rq.buf &&
			  qp->rq.wrid);
	KUNIT_ASSERT_EQ(test, xa_insert_bh(&c->dev->qps, qpn, qp, GFP_KERNEL),
			0);
	return qp;
}

static void kcq_exit(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;

	if (c)
		xa_destroy(&c->dev->qps);
}

static int kcq_init(struct kunit *test)
{
	struct kcq_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct softhca_cq *cq;
	u32 i;

	if (!c)
		return -ENOMEM;
	c->dev = kunit_kzalloc(test, sizeof(*c->dev), GFP_KERNEL);
	cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	if (!c->dev || !cq)
		return -ENOMEM;
	xa_init_flags(&c->dev->qps, XA_FLAGS_LOCK_BH);
	cq->kernel = true;
	cq->cqn = 9;
	cq->ibcq.device = &c->dev->ibdev;
	spin_lock_init(&cq->lock);
	cq->log_size = CQ_LOG;
	cq->ring = kunit_kcalloc(test, BIT(CQ_LOG), sizeof(*cq->ring),
				 GFP_KERNEL);
	cq->dbrec = kunit_kzalloc(test, sizeof(*cq->dbrec), GFP_KERNEL);
	if (!cq->ring || !cq->dbrec)
		return -ENOMEM;
	for (i = 0; i < BIT(CQ_LOG); i++)
		cq->ring[i].op_own = SOFTHCA_CQE_OWNER;
	c->cq = cq;
	test->priv = c;
	c->qp[0] = fake_qp(test, c, QPN0);
	c->qp[1] = fake_qp(test, c, QPN1);
	return 0;
}

/* The card writes a CQE at its producer index, owner bit last. */
static void card_cqe(struct kcq_ctx *c, u32 qpn, u8 opcode, u8 status,
		     u32 wqe_counter, u8 flags)
{
	struct softhca_cqe *cqe = &c->cq->ring[c->pi & (BIT(CQ_LOG) - 1)];

	memset(cqe, 0, offsetof(struct softhca_cqe, op_own));
	cqe->qpn = cpu_to_le32(qpn);
	cqe->opcode = opcode;
	cqe->status = status;
	cqe->wqe_counter = cpu_to_le32(wqe_counter);
	cqe->flags = flags;
	cqe->byte_cnt = cpu_to_le32(wqe_counter + 100);
	/* the body is visible before the owner bit */
	wmb();
	cqe->op_own = softhca_ring_owner(c->pi, CQ_LOG);
	c->pi++;
}

static void post_send(struct kunit *test, struct softhca_qp *qp, u64 wr_id,
		      bool signaled)
{
	struct softhca_wqe_sge sge = { .addr = 0x1000, .length = 8,
				       .lkey = 0x100 };
	struct softhca_send_wr wr = {
		.opcode = SOFTHCA_WQE_SEND,
		.flags = signaled ? SOFTHCA_WQE_F_SIGNALED : 0,
		.sg = &sge, .num_sge = 1,
	};

	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&qp->sq, &wr, wr_id), 0);
}

static void post_recv(struct kunit *test, struct softhca_qp *qp, u64 wr_id)
{
	struct softhca_wqe_sge sge = { .addr = 0x2000, .length = 64,
				       .lkey = 0x100 };

	KUNIT_ASSERT_EQ(test, softhca_krq_post(&qp->rq, &sge, 1, wr_id), 0);
}

/* Sends retire unsignaled WQEs; receives come in order; ci published. */
static void poll_cq_wr_id_test(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;
	struct softhca_qp *qp = c->qp[0];
	struct ib_wc wc[4];

	post_send(test, qp, 0x100, false);
	post_send(test, qp, 0x101, false);
	post_send(test, qp, 0x102, true);
	post_recv(test, qp, 0x200);
	post_recv(test, qp, 0x201);
	post_recv(test, c->qp[1], 0x300);

	KUNIT_EXPECT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 4, wc), 0);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_SEND, 0, 2, 0);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_RECV, 0, 0, 0);
	card_cqe(c, QPN1, SOFTHCA_CQE_OP_RECV, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 2, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x102ull);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &qp->ibqp);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 102u);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&qp->sq), 0u);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 0x200ull);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cq->dbrec->ci), 2u);
	KUNIT_EXPECT_EQ(test, qp->rq.tail, 1u);

	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x300ull);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &c->qp[1]->ibqp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cq->dbrec->ci), 3u);
	KUNIT_EXPECT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 4, wc), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cq->dbrec->ci), 3u);

	/* an error: the card moved the QP to ERR; then flushes follow */
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_RECV, SOFTHCA_CQE_ST_WR_FLUSH, 1, 0);
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x201ull);
	KUNIT_EXPECT_EQ(test, qp->state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, c->qp[1]->state, IB_QPS_RTS);
}

/* The owner bit over many wraps, and the 24-bit consumer index. */
static void poll_cq_wrap_test(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;
	struct softhca_qp *qp = c->qp[0];
	struct ib_wc wc[2];
	u32 i, start = 0xfffff0;

	/* a CQ whose consumer (and the card) are near the 24-bit wrap */
	c->cq->ci = start;
	c->pi = start;
	for (i = 0; i < BIT(CQ_LOG); i++)
		c->cq->ring[i].op_own =
			softhca_ring_owner(start + i - BIT(CQ_LOG), CQ_LOG);
	for (i = 0; i < 40; i++) {
		post_send(test, qp, 0x1000 + i, true);
		KUNIT_EXPECT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 2, wc), 0);
		card_cqe(c, QPN0, SOFTHCA_CQE_OP_SEND, 0, i, 0);
		KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 2, wc), 1);
		KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x1000ull + i);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cq->dbrec->ci),
				(start + i + 1) & 0xffffff);
	}
	KUNIT_EXPECT_EQ(test, c->cq->ci, start + 40);
}

/* CQEs of no kernel QP are consumed and dropped. */
static void poll_cq_unknown_qp_test(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;
	struct ib_wc wc[4];

	post_send(test, c->qp[1], 0x55, true);
	card_cqe(c, 0x999, SOFTHCA_CQE_OP_SEND, 0, 0, 0);
	card_cqe(c, QPN1, SOFTHCA_CQE_OP_SEND, 0, 0, 0);
	c->qp[0]->kernel = false;	/* a user QP's CQE is not ours */
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_SEND, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x55ull);
	KUNIT_EXPECT_EQ(test, c->cq->ci, 3u);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cq->dbrec->ci), 3u);
}

/* A fake SRQ of 4 WQEs on QP 0. */
static struct softhca_srq *fake_srq(struct kunit *test, struct kcq_ctx *c)
{
	struct softhca_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, srq);
	srq->kernel = true;
	spin_lock_init(&srq->lock);
	srq->ring.wqe_cnt = 4;
	srq->ring.stride = 32;
	srq->ring.max_sge = 1;
	srq->ring.buf = kunit_kzalloc(test, 4 * 32, GFP_KERNEL);
	srq->ring.wrid = kunit_kcalloc(test, 4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, srq->ring.buf && srq->ring.wrid);
	softhca_ksrq_init(&srq->ring);
	c->qp[0]->ibqp.srq = &srq->ibsrq;
	return srq;
}

/* SRQ receives: wr_id by WQE index, the WQE back on the free list. */
static void poll_cq_srq_test(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;
	struct softhca_srq *srq = fake_srq(test, c);
	struct softhca_wqe_sge sge = { .addr = 0x3000, .length = 64,
				       .lkey = 0x100 };
	struct ib_wc wc[2];
	u32 index, i;

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, softhca_ksrq_post(&srq->ring, &sge, 1,
							0x400 + i, &index), 0);
		KUNIT_EXPECT_EQ(test, index, i);
	}
	KUNIT_EXPECT_EQ(test, softhca_ksrq_free_count(&srq->ring), 1u);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_RECV, 0, 2, SOFTHCA_CQE_F_SRQ);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_RECV, 0, 0, SOFTHCA_CQE_F_SRQ);
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 2, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x402ull);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 0x400ull);
	KUNIT_EXPECT_EQ(test, softhca_ksrq_free_count(&srq->ring), 3u);
	KUNIT_EXPECT_EQ(test, srq->ring.tail, 0);
	/* the RQ was never touched */
	KUNIT_EXPECT_EQ(test, c->qp[0]->rq.tail, 0u);
}

/* A destroyed QP's CQEs are dropped, its SRQ WQEs returned. */
static void kcq_clean_test(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;
	struct softhca_srq *srq = fake_srq(test, c);
	struct softhca_wqe_sge sge = { .addr = 0x3000, .length = 64,
				       .lkey = 0x100 };
	struct ib_wc wc[4];
	u32 index;

	KUNIT_ASSERT_EQ(test, softhca_ksrq_post(&srq->ring, &sge, 1, 0x500,
						&index), 0);
	post_send(test, c->qp[1], 0x66, true);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_RECV, 0, index, SOFTHCA_CQE_F_SRQ);
	card_cqe(c, QPN1, SOFTHCA_CQE_OP_SEND, 0, 0, 0);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_SEND, SOFTHCA_CQE_ST_WR_FLUSH, 0, 0);
	softhca_kcq_clean(c->cq, QPN0, srq);
	KUNIT_EXPECT_EQ(test, c->cq->ci, 0u);
	KUNIT_EXPECT_EQ(test, softhca_ksrq_free_count(&srq->ring), 4u);
	xa_erase_bh(&c->dev->qps, QPN0);
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&c->cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x66ull);
	KUNIT_EXPECT_EQ(test, c->cq->ci, 3u);
}

/* Arming, events and IB_CQ_REPORT_MISSED_EVENTS on a hand-made ring. */
static void kcq_arm_test(struct kunit *test)
{
	struct kcq_ctx *c = test->priv;
	struct softhca_cq *cq = c->cq;
	struct ib_wc wc[1];
	__le64 *uar_db;
	u32 arm, sn;

	cq->uar = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq->uar);
	uar_db = cq->uar + SOFTHCA_UAR_CQ_DB;

	/* empty: nothing missed */
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(&cq->ibcq,
						    IB_CQ_NEXT_COMP |
						    IB_CQ_REPORT_MISSED_EVENTS),
			0);
	arm = le32_to_cpu(cq->dbrec->arm);
	KUNIT_EXPECT_EQ(test, arm, SOFTHCA_CQ_ARM_REQUEST);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(*uar_db), (u64)arm << 32 | 9);

	/* a CQE the card wrote before the arm is reported, not lost */
	post_send(test, c->qp[0], 1, true);
	card_cqe(c, QPN0, SOFTHCA_CQE_OP_SEND, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(&cq->ibcq,
						    IB_CQ_SOLICITED |
						    IB_CQ_REPORT_MISSED_EVENTS),
			1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->dbrec->arm),
			SOFTHCA_CQ_ARM_REQUEST | SOFTHCA_CQ_ARM_SOLICITED);
	/*
	 * (Arming without IB_CQ_REPORT_MISSED_EVENTS while a CQE waits rings
	 * the card's CQ_DB, which raises the event at once: that needs a
	 * card; softhca_cq_card's arm_waiting_test has one.)
	 */
	KUNIT_ASSERT_EQ(test, softhca_poll_cq(&cq->ibcq, 1, wc), 1);
	KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(&cq->ibcq,
						    IB_CQ_NEXT_COMP |
						    IB_CQ_REPORT_MISSED_EVENTS),
			0);
	/* the arm word carries the consumer index */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->dbrec->arm),
			SOFTHCA_CQ_ARM_REQUEST | 1);

	/* each event moves the sequence number on, modulo 4 */
	for (sn = 1; sn <= 5; sn++) {
		softhca_kcq_event(cq);
		KUNIT_EXPECT_EQ(test, softhca_req_notify_cq(&cq->ibcq,
							    IB_CQ_NEXT_COMP),
				0);
		arm = le32_to_cpu(cq->dbrec->arm);
		KUNIT_EXPECT_EQ(test, softhca_cq_arm_sn(arm), sn % 4);
		KUNIT_EXPECT_EQ(test, arm & SOFTHCA_CQ_ARM_CI_MASK, 1u);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(*uar_db), (u64)arm << 32 | 9);
	}
}

static struct kunit_case kcq_cases[] = {
	KUNIT_CASE(cqe_status_test),
	KUNIT_CASE(cqe_opcode_test),
	KUNIT_CASE(cqe_fields_test),
	KUNIT_CASE(poll_cq_wr_id_test),
	KUNIT_CASE(poll_cq_wrap_test),
	KUNIT_CASE(poll_cq_unknown_qp_test),
	KUNIT_CASE(poll_cq_srq_test),
	KUNIT_CASE(kcq_clean_test),
	KUNIT_CASE(kcq_arm_test),
	{}
};

static struct kunit_suite kcq_suite = {
	.name = "softhca_kcq",
	.init = kcq_init,
	.exit = kcq_exit,
	.test_cases = kcq_cases,
};

kunit_test_suite(kcq_suite);

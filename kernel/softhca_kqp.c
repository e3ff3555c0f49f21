// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: kernel QPs (RC, UC, UD and the GSI QP). One coherent
 * buffer holds the RQ and then the SQ, as the card's QP context says; a QP
 * on an SRQ has no RQ. The doorbell record is a kernel dbrec slot, the
 * doorbells go to the kernel UAR, and the QP is privileged
 * (SOFTHCA_QP_PRIV): it may use the reserved lkey and F_PA MKEYs and post
 * REG_MR and LOCAL_INV. The card numbers the GSI QP 1.
 *
 * The driver remembers the state it last set (and ERR once a completion
 * failed): posting follows the verbs rules on it, and a move to RESET
 * empties the queues and the QP's CQEs from its CQs.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>

#include "softhca.h"

/* Units of the fixed segments of a QP type's largest data-carrying WQE. */
static u32 softhca_kqp_fixed_ds(u8 hw_type)
{
	if (hw_type == SOFTHCA_QPT_UD || hw_type == SOFTHCA_QPT_GSI)
		return 1 + sizeof(struct softhca_wqe_av) / SOFTHCA_WQE_DS_SIZE;
	return 2;		/* RDMA WRITE: control and remote address */
}

/**
 * softhca_kqp_geometry - size a kernel QP's queues for @want
 * @c: the device's caps
 * @hw_type: softhca_qp_type
 * @want: the capabilities asked for
 * @srq: the QP receives from an SRQ (no RQ)
 * @g: the queues, and the capabilities they really hold (all that fits in
 *     their WQEs, never less than asked)
 *
 * Return: 0, or -EINVAL when @want exceeds the device.
 */
int softhca_kqp_geometry(const struct softhca_dev_caps *c, u8 hw_type,
			 const struct ib_qp_cap *want, bool srq,
			 struct softhca_kqp_geom *g)
{
	u32 send_wr = max(want->max_send_wr, 1U);
	u32 send_sge = max(want->max_send_sge, 1U);
	u32 fixed = softhca_kqp_fixed_ds(hw_type), units, room;

	memset(g, 0, sizeof(*g));
	if (want->max_send_wr > c->max_qp_wr ||
	    want->max_send_sge > c->max_sge ||
	    want->max_inline_data > c->max_inline_data ||
	    (!srq && (want->max_recv_wr > c->max_qp_wr ||
		      want->max_recv_sge > c->max_sge)))
		return -EINVAL;

	g->wqe_bbs = softhca_wqe_bbs(softhca_sq_max_ds_qp(hw_type, send_sge,
							  want->max_inline_data));
	if (g->wqe_bbs > SOFTHCA_MAX_WQEBBS)
		return -EINVAL;
	units = g->wqe_bbs * (SOFTHCA_WQEBB_SIZE / SOFTHCA_WQE_DS_SIZE);
	room = units - fixed;
	g->cap.max_send_sge = min(room, c->max_sge);
	g->cap.max_inline_data = min_t(u32, room * SOFTHCA_WQE_DS_SIZE -
					    sizeof(struct softhca_wqe_inline),
				       c->max_inline_data);
	g->sq_wqe_cnt = roundup_pow_of_two(send_wr * g->wqe_bbs);
	g->cap.max_send_wr = min(g->sq_wqe_cnt / g->wqe_bbs, c->max_qp_wr);
	if (srq)
		return 0;

	g->rq_wqe_cnt = roundup_pow_of_two(max(want->max_recv_wr, 1U));
	g->rq_stride = roundup_pow_of_two(max(want->max_recv_sge, 1U) *
					  SOFTHCA_WQE_DS_SIZE);
	g->cap.max_recv_wr = min(g->rq_wqe_cnt, c->max_qp_wr);
	g->cap.max_recv_sge = min(g->rq_stride / SOFTHCA_WQE_DS_SIZE,
				  c->max_sge);
	return 0;
}

static void softhca_kqp_free_arrays(struct softhca_qp *qp)
{
	kvfree(qp->sq.wrid);
	kvfree(qp->sq.wqe_head);
	kvfree(qp->sq.nbb);
	kvfree(qp->rq.wrid);
}

/* The rings and their bookkeeping for geometry @g. */
static int softhca_kqp_alloc_queues(struct softhca_dev *dev,
				    struct softhca_qp *qp,
				    const struct softhca_kqp_geom *g)
{
	size_t rq_bytes = (size_t)g->rq_wqe_cnt * g->rq_stride;
	size_t sq_bytes = (size_t)g->sq_wqe_cnt * SOFTHCA_WQEBB_SIZE;

	qp->buf_size = rq_bytes + sq_bytes;
	qp->buf = dma_alloc_coherent(softhca_hw_device(dev->hw), qp->buf_size,
				     &qp->buf_dma, GFP_KERNEL);
	if (!qp->buf)
		return -ENOMEM;
	qp->sq.wrid = kvcalloc(g->sq_wqe_cnt, sizeof(u64), GFP_KERNEL);
	qp->sq.wqe_head = kvcalloc(g->sq_wqe_cnt, sizeof(u32), GFP_KERNEL);
	qp->sq.nbb = kvcalloc(g->sq_wqe_cnt, sizeof(u8), GFP_KERNEL);
	if (g->rq_wqe_cnt)
		qp->rq.wrid = kvcalloc(g->rq_wqe_cnt, sizeof(u64), GFP_KERNEL);
	if (!qp->sq.wrid || !qp->sq.wqe_head || !qp->sq.nbb ||
	    (g->rq_wqe_cnt && !qp->rq.wrid)) {
		softhca_kqp_free_arrays(qp);
		dma_free_coherent(softhca_hw_device(dev->hw), qp->buf_size,
				  qp->buf, qp->buf_dma);
		return -ENOMEM;
	}

	qp->rq.buf = qp->buf;
	qp->rq.wqe_cnt = g->rq_wqe_cnt;
	qp->rq.stride = g->rq_stride;
	qp->rq.max_wr = g->cap.max_recv_wr;
	qp->rq.max_sge = g->cap.max_recv_sge;
	qp->sq.ring.buf = qp->buf + rq_bytes;
	qp->sq.ring.wqe_cnt = g->sq_wqe_cnt;
	qp->sq.caps.qp_type = qp->hw_type;
	qp->sq.caps.priv = 1;
	qp->sq.caps.max_sge = g->cap.max_send_sge;
	qp->sq.caps.max_inline = g->cap.max_inline_data;
	qp->sq.max_wr = g->cap.max_send_wr;
	return 0;
}

static void softhca_kqp_free_queues(struct softhca_dev *dev,
				    struct softhca_qp *qp)
{
	softhca_kqp_free_arrays(qp);
	/* a card that never confirmed its reset may still use the rings */
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(softhca_hw_device(dev->hw), qp->buf_size,
				  qp->buf, qp->buf_dma);
	qp->buf = NULL;
}

/**
 * softhca_kqp_create - a kernel QP for @attr
 * @dev: the device
 * @qp: the QP (hw_type and sq_sig_type set)
 * @attr: its attributes (checked); cap is what the QP holds on return
 *
 * Return: 0 or an errno; on error nothing is left allocated.
 */
int softhca_kqp_create(struct softhca_dev *dev, struct softhca_qp *qp,
		       struct ib_qp_init_attr *attr)
{
	struct softhca_kqp_geom g;
	struct softhca_pas_buf pb;
	struct softhca_qp_ctx ctx;
	int ret;

	if (!dev->kuar_valid) {
		ibdev_dbg(&dev->ibdev, "create_qp: no kernel UAR\n");
		return -EOPNOTSUPP;
	}
	ret = softhca_kqp_geometry(&dev->caps, qp->hw_type, &attr->cap,
				   attr->srq, &g);
	if (ret) {
		ibdev_dbg(&dev->ibdev,
			  "create_qp: %u/%u WRs, %u/%u SGEs, %u inline do not fit\n",
			  attr->cap.max_send_wr, attr->cap.max_recv_wr,
			  attr->cap.max_send_sge, attr->cap.max_recv_sge,
			  attr->cap.max_inline_data);
		return ret;
	}
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = IB_QPS_RESET;
	ret = softhca_kqp_alloc_queues(dev, qp, &g);
	if (ret)
		return ret;
	ret = softhca_kdbrec_alloc(&dev->kdbrecs, &qp->kdb);
	if (ret)
		goto err_queues;
	qp->dbrec = qp->kdb.cpu;
	ret = softhca_pas_from_coherent(dev, qp->buf_dma, qp->buf_size, &pb);
	if (ret)
		goto err_dbrec;

	memset(&ctx, 0, sizeof(ctx));
	ctx.log_sq_size = ilog2(g.sq_wqe_cnt);
	if (g.rq_wqe_cnt) {
		ctx.log_rq_size = ilog2(g.rq_wqe_cnt);
		ctx.log_rq_stride = ilog2(g.rq_stride);
	}
	ctx.uar = cpu_to_le32(dev->kuar);
	ctx.flags = cpu_to_le32(SOFTHCA_QP_PRIV);
	ctx.dbrec_addr = cpu_to_le64(qp->kdb.dma);
	softhca_pas_to_prm(&pb, &ctx.pas);
	ret = softhca_qp_hw_create(dev, qp, attr, &ctx);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_qp: CREATE_QP failed (%d)\n",
			  ret);
		goto err_dbrec;
	}
	qp->cap = g.cap;
	return 0;

err_dbrec:
	softhca_kdbrec_free(&dev->kdbrecs, &qp->kdb);
err_queues:
	softhca_kqp_free_queues(dev, qp);
	return ret;
}

/* Free a kernel QP's memory once the card let go of it. */
void softhca_kqp_free_mem(struct softhca_dev *dev, struct softhca_qp *qp)
{
	softhca_kdbrec_free(&dev->kdbrecs, &qp->kdb);
	softhca_kqp_free_queues(dev, qp);
}

/* Drop the QP's CQEs still in its CQs (the card writes no more of them). */
void softhca_kqp_clean_cqs(struct softhca_qp *qp)
{
	struct softhca_srq *srq = qp->ibqp.srq ? to_ssrq(qp->ibqp.srq) : NULL;

	softhca_kcq_clean(to_scq(qp->ibqp.send_cq), qp->qpn, srq);
	if (qp->ibqp.recv_cq != qp->ibqp.send_cq)
		softhca_kcq_clean(to_scq(qp->ibqp.recv_cq), qp->qpn, srq);
}

/**
 * softhca_kqp_set_state - the card took the QP to @state
 * @qp: the kernel QP
 * @state: its new state
 *
 * RESET empties the queues: the CQEs of their WQEs leave the CQs first (a
 * poller could otherwise retire them against the new counters), then the
 * counters and the doorbell record start again from 0, as the card's do.
 */
void softhca_kqp_set_state(struct softhca_qp *qp, enum ib_qp_state state)
{
	unsigned long flags;

	if (state == IB_QPS_RESET)
		softhca_kqp_clean_cqs(qp);
	spin_lock_irqsave(&qp->sq_lock, flags);
	spin_lock(&qp->rq_lock);
	if (state == IB_QPS_RESET) {
		softhca_ksq_reset(&qp->sq);
		softhca_krq_reset(&qp->rq);
		WRITE_ONCE(qp->dbrec->sq_pi, 0);
		WRITE_ONCE(qp->dbrec->rq_pi, 0);
	}
	WRITE_ONCE(qp->state, state);
	spin_unlock(&qp->rq_lock);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

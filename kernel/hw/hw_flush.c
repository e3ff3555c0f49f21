// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: flushing a QP in error. Every send WQE posted and
 * not completed (the flight's and the ones never sent; signaled or not)
 * and every receive WQE posted (the one being filled first) completes with
 * WR_FLUSH_ERR, in order; what the transport held is let go. A QP on an
 * SRQ flushes the WQE it took and then says LAST_WQE_REACHED: it takes no
 * more from the SRQ. Posting to a QP in error brings the engine back here,
 * so late posts flush too (ib_drain_qp relies on it). A visit flushes at
 * most SOFTHCA_HW_FLUSH_BUDGET WQEs and the QP's next turn goes on, so a
 * long queue never keeps BHs off for the whole of it; modify to ERR only
 * schedules the flush (softhca_hw_qp_to_error), as a real HCA's is.
 */
#include "hw.h"

/**
 * softhca_hw_qp_flush - complete everything posted to a QP in error
 * @hw: the card
 * @qp: the QP (its engine context held)
 *
 * Return: whether anything was flushed. A QP with more than
 * SOFTHCA_HW_FLUSH_BUDGET WQEs left is scheduled again for the rest.
 */
bool softhca_hw_qp_flush(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	unsigned int budget = SOFTHCA_HW_FLUSH_BUDGET;
	struct softhca_wqe_ctrl ctrl;
	u32 rq_pi, sq_pi, nbb;
	bool work = false;

	softhca_hw_req_reset(qp);
	spin_lock_bh(&qp->lock);
	clear_bit(SOFTHCA_HW_QPW_FLUSH, &qp->work);
	if (qp->state != SOFTHCA_QPS_ERR)
		goto out;
	softhca_hw_comp_reset(qp);
	if (!softhca_hw_qp_dbrec(qp, &rq_pi, &sq_pi))
		goto out;
	if (sq_pi - qp->sq_ci > BIT(qp->log_sq_size))
		sq_pi = qp->sq_ci;	/* garbage: nothing to trust */
	while (qp->sq_ci != sq_pi && budget) {
		if (softhca_hw_sq_read(hw, qp,
				       (u64)qp->sq_ci << SOFTHCA_LOG_WQEBB,
				       &ctrl, sizeof(ctrl)))
			break;
		nbb = softhca_wqe_span(le16_to_cpu(ctrl.wqe_index), ctrl.ds,
				       qp->sq_ci, sq_pi);
		softhca_hw_post_cqe(hw, qp->scq, qp->qpn, qp->sq_ci,
				    softhca_hw_cqe_opcode(ctrl.opcode),
				    SOFTHCA_CQE_ST_WR_FLUSH, SOFTHCA_SYND_FLUSH,
				    0, 0, 0, 0);
		qp->sq_ci += nbb;
		work = true;
		budget--;
	}
	qp->sq_next = qp->sq_ci;

	if (qp->srq) {
		if (qp->rwqe) {
			softhca_hw_post_cqe(hw, qp->rcq, qp->qpn,
					    qp->rwqe_index, SOFTHCA_CQE_OP_RECV,
					    SOFTHCA_CQE_ST_WR_FLUSH,
					    SOFTHCA_SYND_FLUSH, 0,
					    SOFTHCA_CQE_F_SRQ, 0, 0);
			work = true;
		}
		if (!qp->last_wqe_sent) {
			qp->last_wqe_sent = true;
			softhca_hw_async_event(hw, SOFTHCA_EQE_QP_LAST_WQE,
					       qp->qpn, 0, 0);
		}
	} else {
		if (rq_pi - qp->rq_ci > BIT(qp->log_rq_size))
			rq_pi = qp->rq_ci;
		while (qp->rq_ci != rq_pi && budget) {
			softhca_hw_post_cqe(hw, qp->rcq, qp->qpn, qp->rq_ci,
					    SOFTHCA_CQE_OP_RECV,
					    SOFTHCA_CQE_ST_WR_FLUSH,
					    SOFTHCA_SYND_FLUSH, 0, 0, 0, 0);
			qp->rq_ci++;
			work = true;
			budget--;
		}
	}
	softhca_hw_resp_reset(qp);
	if (!budget)	/* the rest in the QP's next turn */
		softhca_hw_engine_schedule(hw, qp, SOFTHCA_HW_QPW_FLUSH);
out:
	spin_unlock_bh(&qp->lock);
	return work;
}

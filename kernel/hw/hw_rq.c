// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: receive WQEs. The responder takes the next one
 * from the QP's RQ, or from its SRQ, when a message that consumes one
 * starts; its scatter list is checked (LOCAL_WRITE under the PD of the RQ
 * or SRQ) and held, with references, in the QP's responder state until
 * the message completes.
 *
 * An RQ is consumed in order: the WQE's index is the RQ counter, which
 * moves when the WQE completes. An SRQ is shared: the card follows the
 * links of its WQEs from the head, under the SRQ's lock, and a WQE taken
 * is the QP's until it completes (its index goes in the CQE).
 */
#include "hw.h"

/* Check the @n data segments at @segs into qp->rseg. Return: 0 or synd. */
static u32 softhca_hw_rq_segs(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			      struct softhca_hw_pd *pd,
			      const struct softhca_wqe_data *segs, u32 n)
{
	u32 i, synd;

	qp->nrseg = 0;
	qp->rcap = 0;
	for (i = 0; i < n; i++) {
		u32 key = le32_to_cpu(segs[i].lkey);
		u32 len = le32_to_cpu(segs[i].byte_count);

		if (key == SOFTHCA_INVALID_LKEY)
			break;
		if (!len)
			continue;
		if (qp->nrseg == SOFTHCA_HW_MAX_SGE)
			return SOFTHCA_SYND_WQE_FORMAT;
		synd = softhca_hw_map_get(hw, key, pd,
					  qp->flags & SOFTHCA_QP_PRIV,
					  SOFTHCA_ACCESS_LOCAL_WRITE,
					  le64_to_cpu(segs[i].addr), len, false,
					  &qp->rseg[qp->nrseg]);
		if (synd)
			return synd;
		qp->rcap += len;
		qp->nrseg++;
	}
	return 0;
}

/* Read WQE bytes [off, off + len) of @pas (a multiple of 16). */
static int softhca_hw_rq_read(struct softhca_hw *hw,
			      const struct softhca_hw_pas *pas, u64 off,
			      void *buf, u32 len)
{
	void *p = softhca_hw_pas_ptr(hw, pas, off, len);

	if (p) {
		softhca_hw_load_words(buf, p, len);
		return 0;
	}
	return softhca_hw_pas_rw(hw, pas, off, buf, len, false);
}

/* The SRQ's next WQE, if one is posted; raises SRQ_LIMIT when due. */
static int softhca_hw_srq_take(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			       struct softhca_wqe_data *segs, u32 *nseg,
			       u32 *synd)
{
	struct softhca_hw_srq *srq = qp->srq;
	u32 stride = BIT(srq->log_stride), posted, idx, event = 0;
	u8 wqe[BIT(SOFTHCA_HW_LOG_MAX_SRQ_STRIDE)];
	struct softhca_srq_next *next = (void *)wqe;
	int ret = 0;

	spin_lock(&srq->lock);
	posted = le32_to_cpu(READ_ONCE(srq->db->wqe_counter));
	/* the WQEs are read after the count that publishes them */
	smp_rmb();
	if (posted == srq->taken) {
		ret = 1;
		goto out;
	}
	if (posted - srq->taken > BIT(srq->log_size)) {
		*synd = SOFTHCA_SYND_QUEUE_INDEX;
		ret = -2;
		goto out;
	}
	idx = srq->head;
	if (softhca_hw_rq_read(hw, &srq->pas, (u64)idx << srq->log_stride, wqe,
			       stride)) {
		*synd = SOFTHCA_SYND_QUEUE_INDEX;
		ret = -2;
		goto out;
	}
	srq->head = le16_to_cpu(next->next_wqe_index) & (BIT(srq->log_size) - 1);
	srq->taken++;
	qp->rwqe_index = idx;
	*nseg = (stride - sizeof(*next)) / SOFTHCA_WQE_DS_SIZE;
	memcpy(segs, wqe + sizeof(*next), *nseg * SOFTHCA_WQE_DS_SIZE);
	if (srq->limit && posted - srq->taken < srq->limit) {
		srq->limit = 0;		/* armed once */
		event = srq->srqn;
	}
out:
	spin_unlock(&srq->lock);
	if (event)
		softhca_hw_async_event(hw, SOFTHCA_EQE_SRQ_LIMIT, event, 0, 0);
	return ret;
}

/**
 * softhca_hw_rq_take - take @qp's next receive WQE (qp->lock held)
 * @hw: the card
 * @qp: the QP
 * @synd: set when the return value is negative
 *
 * Return: 0 when taken (qp->rwqe set, its scatter list in qp->rseg); 1
 * when none is posted (RNR); -1 when the WQE's scatter list failed a check
 * (the WQE is taken: complete it with an error); -2 when the queue itself
 * is garbage (no WQE to complete).
 */
int softhca_hw_rq_take(struct softhca_hw *hw, struct softhca_hw_qp *qp,
		       u32 *synd)
{
	struct softhca_wqe_data segs[SOFTHCA_HW_WQE_SEGS];
	struct softhca_hw_pd *pd = qp->pd;
	u32 nseg, pi;
	int ret;

	if (qp->srq) {
		ret = softhca_hw_srq_take(hw, qp, segs, &nseg, synd);
		if (ret)
			return ret;
		pd = qp->srq->pd;
	} else {
		u32 stride = BIT(qp->log_rq_stride);

		if (!softhca_hw_qp_dbrec(qp, &pi, NULL) ||
		    pi - qp->rq_ci > BIT(qp->log_rq_size)) {
			*synd = SOFTHCA_SYND_QUEUE_INDEX;
			return -2;
		}
		if (pi == qp->rq_ci)
			return 1;
		nseg = min_t(u32, stride / SOFTHCA_WQE_DS_SIZE,
			     SOFTHCA_HW_WQE_SEGS);
		if (softhca_hw_rq_read(hw, &qp->pas,
				       (u64)(qp->rq_ci & (BIT(qp->log_rq_size) - 1)) <<
				       qp->log_rq_stride, segs,
				       nseg * SOFTHCA_WQE_DS_SIZE)) {
			*synd = SOFTHCA_SYND_QUEUE_INDEX;
			return -2;
		}
		qp->rwqe_index = qp->rq_ci;
	}
	qp->rwqe = true;
	qp->roff = 0;
	*synd = softhca_hw_rq_segs(hw, qp, pd, segs, nseg);
	return *synd ? -1 : 0;
}

/* The receive WQE is done with (completed or dropped). */
void softhca_hw_rq_release(struct softhca_hw_qp *qp)
{
	softhca_hw_segs_put(qp->rseg, qp->nrseg);
	qp->nrseg = 0;
	if (qp->rwqe && !qp->srq)
		qp->rq_ci++;
	qp->rwqe = false;
}

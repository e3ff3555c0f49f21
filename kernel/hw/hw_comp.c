// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the completer. It takes what comes back to a
 * requester (ACKs and NAKs, READ responses, atomic ACKs), under the QP's
 * lock, and completes the flight in order: a WQE is done when its last
 * PSN is acknowledged (SEND, WRITE), its last response written (READ) or
 * its original value written (atomic); the oldest done WQEs get their
 * send CQEs (when signaled or failed) and leave the flight. A NAK fails the
 * WQE it names (remote access, invalid request, remote operation) or asks
 * for a resend (PSN sequence); an RNR NAK waits min_rnr_timer and resends,
 * rnr_retry times (7: forever); an ACK that does not come within the
 * transport timeout resends, retry_cnt times, then the WQE fails with
 * RETRY_EXC_ERR. Resends go through the requester (qp->rewind).
 */
#include "hw.h"

static struct softhca_hw_flight *softhca_hw_comp_at(struct softhca_hw_qp *qp,
						    u32 i)
{
	return &qp->flight[i % SOFTHCA_HW_FLIGHT];
}

static bool softhca_hw_comp_rd(u8 opcode)
{
	return opcode == SOFTHCA_WQE_RDMA_READ ||
	       opcode == SOFTHCA_WQE_ATOMIC_CS ||
	       opcode == SOFTHCA_WQE_ATOMIC_FA;
}

/* Take over @w's gather list as the completer's (lock held). */
void softhca_hw_comp_take_segs(struct softhca_hw_qp *qp,
			       struct softhca_hw_wqe *w)
{
	memcpy(qp->cw->seg, w->seg, w->nseg * sizeof(w->seg[0]));
	qp->cw->nseg = w->nseg;
	qp->cw->index = w->index;
	w->nseg = 0;
	qp->cw_loaded = true;
}

static void softhca_hw_comp_unload(struct softhca_hw_qp *qp)
{
	softhca_hw_segs_put(qp->cw->seg, qp->cw->nseg);
	qp->cw->nseg = 0;
	qp->cw_loaded = false;
}

/* The gather list of @f, the READ or atomic completing next. */
static u32 softhca_hw_comp_load(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				struct softhca_hw_flight *f)
{
	u32 synd;

	if (qp->cw_loaded && qp->cw->index == f->index)
		return 0;
	if (qp->cw_loaded)
		softhca_hw_comp_unload(qp);
	/* the WQE is still in the SQ: its slot is not reused before its CQE */
	synd = softhca_hw_wqe_fetch(hw, qp, f->index, f->index + f->nbb,
				    qp->cw);
	if (!synd && qp->cw->ctrl->opcode != f->opcode)
		synd = SOFTHCA_SYND_WQE_FORMAT;	/* rewritten under the card */
	if (!synd)
		synd = softhca_hw_req_segs(hw, qp, qp->cw);
	qp->cw_loaded = !synd;
	return synd;
}

static void softhca_hw_comp_arm(struct softhca_hw_qp *qp)
{
	qp->timer_armed = true;
	qp->deadline = ktime_add_us(ktime_get(), softhca_hw_timeout_us(qp));
}

/* The oldest WQE not done, or NULL. */
static struct softhca_hw_flight *softhca_hw_comp_first(struct softhca_hw_qp *qp)
{
	u32 i;

	for (i = qp->fl_head; i != qp->fl_tail; i++) {
		struct softhca_hw_flight *f = softhca_hw_comp_at(qp, i);

		if (!f->done)
			return f;
	}
	return NULL;
}

/*
 * Complete the flight's oldest done WQEs, in order (lock held): a CQE for
 * those signaled or failed; a failed one moves the QP to error.
 */
void softhca_hw_comp_advance(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	struct softhca_hw_flight *f;

	while (qp->fl_head != qp->fl_tail) {
		f = softhca_hw_comp_at(qp, qp->fl_head);
		if (!f->done)
			break;
		if (f->signaled || f->status)
			softhca_hw_post_cqe(hw, qp->scq, qp->qpn, f->index,
					    softhca_hw_cqe_opcode(f->opcode),
					    f->status, f->syndrome,
					    f->status ? 0 : f->length, 0, 0, 0);
		qp->sq_ci = f->index + f->nbb;
		if (f->rd && qp->rd_out)
			qp->rd_out--;
		if (qp->cw_loaded && qp->cw->index == f->index)
			softhca_hw_comp_unload(qp);
		qp->fl_head++;
		if ((s32)(qp->fl_send - qp->fl_head) < 0)
			qp->fl_send = qp->fl_head;
		if (f->status) {
			softhca_hw_qp_to_error(hw, qp, 0, f->syndrome);
			return;
		}
	}
	if (qp->fl_head == qp->fl_tail) {
		qp->timer_armed = false;
		qp->rd_out = 0;
		if (qp->sqd_notify_pending && !qp->sending) {
			qp->sqd_notify_pending = false;
			softhca_hw_async_event(hw, SOFTHCA_EQE_SQ_DRAINED,
					       qp->qpn, 0, 0);
		}
	}
}

/*
 * @acked more PSNs of @qp arrived (lock held): the congestion window
 * grows, by as much below ssthresh (slow start), by one a window above.
 */
void softhca_hw_comp_cwnd_grow(struct softhca_hw_qp *qp, u32 acked)
{
	if (qp->cwnd < qp->ssthresh) {
		qp->cwnd = min(qp->cwnd + acked, qp->ssthresh);
	} else {
		qp->cwnd_acked += acked;
		while (qp->cwnd_acked >= qp->cwnd) {
			qp->cwnd_acked -= qp->cwnd;
			qp->cwnd++;
		}
	}
	qp->cwnd = min_t(u32, qp->cwnd, SOFTHCA_HW_MAX_UNACKED);
}

/*
 * A loss (a sequence NAK, a READ response missing) or, with @timeout, a
 * transport timeout (lock held): half the window is the new threshold;
 * after a timeout the requester starts again from SOFTHCA_HW_CWND_MIN.
 */
void softhca_hw_comp_cwnd_loss(struct softhca_hw_qp *qp, bool timeout)
{
	qp->ssthresh = max_t(u32, qp->cwnd / 2, SOFTHCA_HW_CWND_MIN);
	qp->cwnd = timeout ? SOFTHCA_HW_CWND_MIN : qp->ssthresh;
	qp->cwnd_acked = 0;
}

/* Progress: the retry counts start again, and the timer. */
static void softhca_hw_comp_progress(struct softhca_hw_qp *qp)
{
	qp->nak_rewound = false;
	qp->retries = 0;
	qp->rnr_retries = 0;
	if (softhca_hw_comp_first(qp))
		softhca_hw_comp_arm(qp);
	else
		qp->timer_armed = false;
}

/* Ask the requester to send again from @psn. */
static void softhca_hw_comp_rewind(struct softhca_hw_qp *qp, u32 psn)
{
	qp->rewind = true;
	qp->rewind_psn = psn;
}

/* Where a READ that got @f->got bytes resumes. */
static u32 softhca_hw_comp_resume_psn(struct softhca_hw_qp *qp,
				      struct softhca_hw_flight *f)
{
	if (f->opcode != SOFTHCA_WQE_RDMA_READ)
		return f->first_psn;
	return softhca_psn_add(f->first_psn,
			       f->got >> (7 + qp->attr.path_mtu));
}

/*
 * Does acked_psn lie inside @f, past its first PSN? Only then does it say
 * how much of @f arrived; otherwise it is left from an earlier WQE, or
 * from before the QP's first PSN (PSNs start anywhere in 24 bits, so a
 * stale value may even look "after" @f's first PSN: both ends are checked).
 */
static bool softhca_hw_comp_acked_inside(struct softhca_hw_qp *qp,
					 struct softhca_hw_flight *f)
{
	return softhca_psn_diff(qp->acked_psn, f->first_psn) > 0 &&
	       softhca_psn_diff(qp->acked_psn, f->last_psn) <= 0;
}

/**
 * softhca_hw_comp_base_psn - the oldest PSN not acknowledged (lock held)
 * @qp: the requester's QP
 * @next: the PSN it sends next (returned when nothing is outstanding)
 *
 * Return: within the oldest WQE not done, where its answer stands: the
 * ACKed PSNs of a SEND or WRITE, the responses of a READ. A resend after
 * a timeout starts there.
 */
u32 softhca_hw_comp_base_psn(struct softhca_hw_qp *qp, u32 next)
{
	struct softhca_hw_flight *f = softhca_hw_comp_first(qp);

	if (!f)
		return next;
	if (softhca_hw_comp_rd(f->opcode))
		return softhca_hw_comp_resume_psn(qp, f);
	if (softhca_hw_comp_acked_inside(qp, f))
		return qp->acked_psn;
	return f->first_psn;
}

/*
 * Everything up to (not including) PSN @psn arrived: SENDs and WRITEs
 * that end before it are done. Return: the first WQE not done.
 */
static struct softhca_hw_flight *softhca_hw_comp_acked(struct softhca_hw_qp *qp,
						       u32 psn, bool *progress)
{
	u32 i;

	for (i = qp->fl_head; i != qp->fl_tail; i++) {
		struct softhca_hw_flight *f = softhca_hw_comp_at(qp, i);

		if (f->done)
			continue;
		if (softhca_hw_comp_rd(f->opcode) ||
		    softhca_psn_diff(f->last_psn, psn) >= 0)
			return f;
		f->done = true;
		*progress = true;
	}
	return NULL;
}

/*
 * The PSNs before @next arrived (an ACK, or a NAK for @next): part of a
 * long message ACKed is progress too. acked_psn is only meaningful inside
 * the oldest WQE not done: one from elsewhere is replaced. Return: whether
 * it moved.
 */
static bool softhca_hw_comp_acked_to(struct softhca_hw_qp *qp, u32 next)
{
	struct softhca_hw_flight *f = softhca_hw_comp_first(qp);

	if (f && softhca_psn_diff(next, f->first_psn) > 0 &&
	    (!softhca_hw_comp_acked_inside(qp, f) ||
	     softhca_psn_diff(next, qp->acked_psn) > 0)) {
		qp->acked_psn = next;
		return true;
	}
	return false;
}

static void softhca_hw_comp_ack(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				u32 psn)
{
	u32 next = softhca_psn_add(psn, 1);
	bool progress = softhca_hw_comp_acked_to(qp, next);
	struct softhca_hw_flight *f;

	f = softhca_hw_comp_acked(qp, next, &progress);
	/* an ACK past a READ or atomic whose answer is missing: resend it */
	if (f && softhca_hw_comp_rd(f->opcode) &&
	    softhca_psn_diff(psn, f->first_psn) >= 0) {
		softhca_hw_comp_rewind(qp, softhca_hw_comp_resume_psn(qp, f));
		softhca_hw_count(hw, retransmits);
	}
	if (progress)
		softhca_hw_comp_progress(qp);
}

static void softhca_hw_comp_fail(struct softhca_hw_flight *f, u8 status,
				 u32 synd)
{
	f->status = status;
	f->syndrome = synd;
	f->done = true;
}

static void softhca_hw_comp_rnr(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				u32 psn, u8 timer)
{
	bool progress = false;
	struct softhca_hw_flight *f;

	softhca_hw_count(hw, rnr_naks_rcvd);
	f = softhca_hw_comp_acked(qp, psn, &progress);
	if (!f)
		return;
	if (qp->attr.rnr_retry != 7 &&
	    qp->rnr_retries >= qp->attr.rnr_retry) {
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_RNR_RETRY_EXC,
				     SOFTHCA_SYND_RNR);
		return;
	}
	qp->rnr_retries++;
	/* answered: no transport timeout while the RNR wait runs */
	qp->timer_armed = false;
	qp->waiting = true;
	qp->deadline = ktime_add_us(ktime_get(), softhca_hw_rnr_us(timer));
	softhca_hw_comp_rewind(qp, psn);
}

static void softhca_hw_comp_nak(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				u32 psn, u8 syndrome)
{
	bool progress = false;
	struct softhca_hw_flight *f;
	u32 from;

	/* a sequence NAK ACKs what came before the PSN it names */
	if (syndrome == SOFTHCA_AETH_NAK_PSN_SEQ)
		progress = softhca_hw_comp_acked_to(qp, psn);
	f = softhca_hw_comp_acked(qp, psn, &progress);
	if (progress)
		softhca_hw_comp_progress(qp);
	/* a NAK for a PSN before the flight is an old one */
	if (!f || softhca_psn_diff(psn, f->first_psn) < 0)
		return;
	switch (syndrome) {
	case SOFTHCA_AETH_NAK_PSN_SEQ:
		softhca_hw_count(hw, seq_naks_rcvd);
		/*
		 * A NAK that a later answer overtook (it names a PSN already
		 * ACKed), or one for the PSN a resend already goes back to
		 * (a network that reorders makes the responder NAK each
		 * straggler): going back again would only send everything
		 * twice.
		 */
		if (!progress &&
		    (softhca_psn_diff(psn, softhca_hw_comp_base_psn(qp, psn)) < 0 ||
		     (qp->nak_rewound && qp->nak_psn == psn)))
			return;
		/* the same NAK again and again, and nothing moves: give up */
		if (qp->attr.timeout && qp->retries >= qp->attr.retry_cnt) {
			softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_RETRY_EXC,
					     SOFTHCA_SYND_NO_RESPONDER);
			return;
		}
		if (qp->attr.timeout)
			qp->retries++;
		softhca_hw_comp_cwnd_loss(qp, false);
		/* a READ or atomic before it still wants its answer */
		from = softhca_hw_comp_rd(f->opcode) ?
		       softhca_hw_comp_resume_psn(qp, f) : psn;
		softhca_hw_comp_rewind(qp, from);
		qp->nak_rewound = true;
		qp->nak_psn = psn;
		break;
	case SOFTHCA_AETH_NAK_REM_ACCESS:
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_REM_ACCESS,
				     SOFTHCA_SYND_NAK_REM_ACCESS);
		break;
	case SOFTHCA_AETH_NAK_REM_OP:
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_REM_OP,
				     SOFTHCA_SYND_NAK_REM_OP);
		break;
	default:		/* invalid request, and what we do not know */
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_REM_INV_REQ,
				     SOFTHCA_SYND_NAK_INV_REQ);
		break;
	}
}

/*
 * A response of the READ @f came past the one expected (@psn): one before
 * it was lost (or overtaken). Ask again from where the READ stands, at
 * once, rather than after the transport timer; once for the gap, not for
 * every response still on its way behind it.
 */
static void softhca_hw_comp_read_gap(struct softhca_hw_qp *qp,
				     struct softhca_hw_flight *f, u32 psn)
{
	u32 resume = softhca_hw_comp_resume_psn(qp, f);

	if (qp->rd_gap || softhca_psn_diff(psn, resume) <= 0 ||
	    softhca_psn_diff(psn, f->last_psn) > 0)
		return;
	if (qp->attr.timeout && qp->retries >= qp->attr.retry_cnt)
		return;		/* the transport timer gives up */
	if (qp->attr.timeout)
		qp->retries++;
	softhca_hw_comp_cwnd_loss(qp, false);
	qp->rd_gap = true;
	softhca_hw_comp_rewind(qp, resume);
}

static void softhca_hw_comp_read(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				 const struct softhca_hw_pkt *pkt, u32 mask)
{
	bool progress = false;
	struct softhca_hw_flight *f;
	u32 synd;

	f = softhca_hw_comp_acked(qp, pkt->psn, &progress);
	if (!f || f->opcode != SOFTHCA_WQE_RDMA_READ ||
	    pkt->psn != softhca_hw_comp_resume_psn(qp, f) ||
	    f->got + pkt->len > f->length) {
		/* not the response expected next: a resend fixes it */
		softhca_hw_count(hw, drop_seq);
		if (progress)
			softhca_hw_comp_progress(qp);
		if (f && f->opcode == SOFTHCA_WQE_RDMA_READ)
			softhca_hw_comp_read_gap(qp, f, pkt->psn);
		return;
	}
	qp->rd_gap = false;
	synd = softhca_hw_comp_load(hw, qp, f);
	if (synd) {
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_LOC_PROT, synd);
		return;
	}
	softhca_hw_copy(hw, qp->cw->seg, qp->cw->nseg, f->got, &pkt->src,
			pkt->len);
	f->got += pkt->len;
	if ((mask & SOFTHCA_OPM_LAST) || f->got == f->length)
		f->done = true;
	softhca_hw_comp_progress(qp);
}

static void softhca_hw_comp_atomic(struct softhca_hw *hw,
				   struct softhca_hw_qp *qp,
				   const struct softhca_hw_pkt *pkt)
{
	struct softhca_hw_src src = { .kind = SOFTHCA_HW_SRC_BUF };
	bool progress = false;
	struct softhca_hw_flight *f;
	__le64 orig;
	u32 synd;

	f = softhca_hw_comp_acked(qp, pkt->psn, &progress);
	if (!f || (f->opcode != SOFTHCA_WQE_ATOMIC_CS &&
		   f->opcode != SOFTHCA_WQE_ATOMIC_FA) ||
	    f->first_psn != pkt->psn) {
		softhca_hw_count(hw, drop_seq);
		if (progress)
			softhca_hw_comp_progress(qp);
		return;
	}
	synd = softhca_hw_comp_load(hw, qp, f);
	if (synd) {
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_LOC_PROT, synd);
		return;
	}
	orig = cpu_to_le64(pkt->orig);
	src.buf = &orig;
	softhca_hw_copy(hw, qp->cw->seg, qp->cw->nseg, 0, &src, sizeof(orig));
	f->done = true;
	softhca_hw_comp_progress(qp);
}

/**
 * softhca_hw_comp_rx - the completer takes an answer for @qp
 * @hw: the card
 * @qp: the requester's QP
 * @pkt: an ACK/NAK, READ response or atomic ACK
 * @from_wire: @pkt came from the wire: taken only from the QP's peer
 *	(softhca_hw_pkt_from_peer), checked under the same hold of the QP's
 *	lock as the answer is taken, so a modify between the two cannot
 *	change the peer it was checked against
 *
 * Return: false when @from_wire and @pkt is not from @qp's peer (the
 * caller counts the drop); true when the completer saw it (an answer
 * for a QP with nothing in flight is ignored, as a duplicate).
 */
bool softhca_hw_comp_rx(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			const struct softhca_hw_pkt *pkt, bool from_wire)
{
	u32 mask = softhca_hw_opcode_mask(pkt->opcode);
	u32 after = softhca_psn_add(pkt->psn, 1), base = 0;
	bool taken = true;
	s32 acked;

	spin_lock_bh(&qp->lock);
	if (from_wire && !softhca_hw_pkt_from_peer(hw, qp, pkt)) {
		taken = false;
		goto out;
	}
	if ((qp->state != SOFTHCA_QPS_RTS && qp->state != SOFTHCA_QPS_SQD &&
	     qp->state != SOFTHCA_QPS_SQE) || qp->fl_head == qp->fl_tail)
		goto out;
	/* the congestion window is another host's alone (peer_remote) */
	if (qp->peer_remote)
		base = softhca_hw_comp_base_psn(qp, after);
	if (mask & SOFTHCA_OPM_READ_RESP) {
		softhca_hw_comp_read(hw, qp, pkt, mask);
	} else if (pkt->opcode == (SOFTHCA_OP_RC | SOFTHCA_OP_ATOMIC_ACK)) {
		softhca_hw_comp_atomic(hw, qp, pkt);
	} else if (pkt->opcode == (SOFTHCA_OP_RC | SOFTHCA_OP_ACK)) {
		switch (pkt->syndrome & SOFTHCA_AETH_TYPE_MASK) {
		case SOFTHCA_AETH_TYPE_ACK:
			softhca_hw_comp_ack(hw, qp, pkt->psn);
			break;
		case SOFTHCA_AETH_TYPE_RNR:
			softhca_hw_comp_rnr(hw, qp, pkt->psn,
					    pkt->syndrome & 0x1f);
			break;
		case SOFTHCA_AETH_TYPE_NAK:
			softhca_hw_comp_nak(hw, qp, pkt->psn, pkt->syndrome);
			break;
		default:
			break;
		}
	}
	/* what this answer acknowledged opens the window */
	if (qp->peer_remote) {
		acked = softhca_psn_diff(softhca_hw_comp_base_psn(qp, after),
					 base);
		if (acked > 0)
			softhca_hw_comp_cwnd_grow(qp, acked);
	}
	softhca_hw_comp_advance(hw, qp);
out:
	spin_unlock_bh(&qp->lock);
	return taken;
}

/* The transport timer expired (lock held): resend, or give up. */
static void softhca_hw_comp_timeout(struct softhca_hw *hw,
				    struct softhca_hw_qp *qp, ktime_t now)
{
	struct softhca_hw_flight *f = softhca_hw_comp_first(qp);

	if (!f) {
		qp->timer_armed = false;
		return;
	}
	softhca_hw_count(hw, timeouts);
	/* the first attempt and retry_cnt retries each time out */
	if (qp->attr.timeout && qp->retries >= qp->attr.retry_cnt) {
		softhca_hw_comp_fail(f, SOFTHCA_CQE_ST_RETRY_EXC,
				     SOFTHCA_SYND_NO_RESPONDER);
		softhca_hw_comp_advance(hw, qp);
		return;
	}
	if (qp->attr.timeout)
		qp->retries++;
	softhca_hw_comp_cwnd_loss(qp, true);
	qp->rd_gap = false;
	softhca_hw_comp_rewind(qp, softhca_hw_comp_base_psn(qp, f->first_psn));
	qp->deadline = ktime_add_us(now, softhca_hw_timeout_us(qp));
}

/**
 * softhca_hw_comp_timers - the requester's timers (lock held)
 * @hw: the card
 * @qp: the QP
 * @next: lowered to the earliest pending deadline
 *
 * Return: whether the requester may send now (not waiting out an RNR
 * NAK); an expired transport timer has asked for a resend or failed the
 * WQE.
 */
bool softhca_hw_comp_timers(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    ktime_t *next)
{
	ktime_t now = ktime_get();

	if (qp->waiting) {
		if (ktime_before(now, qp->deadline)) {
			*next = min(*next, qp->deadline);
			return false;
		}
		qp->waiting = false;
	}
	if (qp->timer_armed && !ktime_before(now, qp->deadline))
		softhca_hw_comp_timeout(hw, qp, now);
	if (qp->timer_armed)
		*next = min(*next, qp->deadline);
	return true;
}

/* Forget the flight (RESET, flush, destroy; lock held). */
void softhca_hw_comp_reset(struct softhca_hw_qp *qp)
{
	if (qp->cw_loaded)
		softhca_hw_comp_unload(qp);
	qp->fl_head = 0;
	qp->fl_tail = 0;
	qp->fl_send = 0;
	qp->rd_out = 0;
	qp->retries = 0;
	qp->rnr_retries = 0;
	qp->rewind = false;
	qp->resend_psn_valid = false;
	qp->rd_gap = false;
	qp->nak_rewound = false;
	qp->waiting = false;
	qp->timer_armed = false;
	qp->sqd_notify_pending = false;
	qp->cwnd = SOFTHCA_HW_CWND_INIT;
	qp->ssthresh = SOFTHCA_HW_MAX_UNACKED;
	qp->cwnd_acked = 0;
}

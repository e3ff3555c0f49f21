// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the requester. It runs in a QP's engine context
 * (qp->run) and turns the QP's send WQEs into packets: it fetches a WQE,
 * checks its gather list (holding references on what it names), gives it
 * its PSNs and a place in the flight, and sends it as packets of the path
 * MTU (IBTA opcodes FIRST/MIDDLE/LAST/ONLY, RETH on the first of a WRITE,
 * immediate data or IETH on the last, AckReq on the last), a READ as one
 * request taking the PSNs of its responses, an atomic as one request.
 * Between QPs of this card a run of up to SOFTHCA_HW_SEGMENT bytes of one
 * message travels as one descriptor.
 *
 * UD sends and local operations (REG_MR, LOCAL_INV) are done when sent; RC
 * messages are done when the completer sees them acknowledged; UC messages
 * when their last packet left. The completer asks for a resend from a PSN
 * (NAK, timeout, RNR) with qp->rewind: the requester goes back to the WQE
 * holding that PSN and sends from there again, with the same PSNs
 * (go-back-N).
 *
 * A visit is bounded (@budget bytes, SOFTHCA_HW_SQ_BUDGET WQEs), so one
 * QP's 2 GiB WRITE does not keep the card from the others.
 */
#include "hw.h"

/* IB min_rnr_timer encoding (IBA table 45), in microseconds. */
static const u32 softhca_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

u32 softhca_hw_rnr_us(u8 timer)
{
	return softhca_rnr_us[timer & 31];
}

/* The transport timer of @qp in microseconds (timeout 0: look again 1/s). */
u64 softhca_hw_timeout_us(struct softhca_hw_qp *qp)
{
	return qp->attr.timeout ? (4096ULL << qp->attr.timeout) / 1000 :
				  USEC_PER_SEC;
}

/* Drop the WQE being sent. */
static void softhca_hw_req_drop(struct softhca_hw_qp *qp)
{
	softhca_hw_segs_put(qp->sw->seg, qp->sw->nseg);
	qp->sw->nseg = 0;
	qp->sending = false;
}

/* Forget everything sent (RESET, error, destroy); run held. */
void softhca_hw_req_reset(struct softhca_hw_qp *qp)
{
	softhca_hw_req_drop(qp);
	qp->sent = 0;
	qp->sent_psn = 0;
}

static u32 softhca_hw_flight_used(struct softhca_hw_qp *qp)
{
	return qp->fl_tail - qp->fl_head;
}

static struct softhca_hw_flight *softhca_hw_flight_at(struct softhca_hw_qp *qp,
						      u32 i)
{
	return &qp->flight[i % SOFTHCA_HW_FLIGHT];
}

/*
 * Check @w's gather list against @qp's PD (LOCAL_WRITE where the card
 * writes: READ responses, atomic results); references into w->seg.
 */
u32 softhca_hw_req_segs(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			struct softhca_hw_wqe *w)
{
	u8 op = w->ctrl->opcode;
	u32 access = (op == SOFTHCA_WQE_RDMA_READ || w->atomic) ?
		     SOFTHCA_ACCESS_LOCAL_WRITE : 0;
	u32 i, synd;

	w->nseg = 0;
	for (i = 0; i < w->ndata; i++) {
		const struct softhca_wqe_data *d = &w->data[i];
		u32 len = le32_to_cpu(d->byte_count);

		if (!len)
			continue;
		if (w->nseg == SOFTHCA_HW_MAX_SGE) {
			synd = SOFTHCA_SYND_WQE_FORMAT;
			goto err;
		}
		synd = softhca_hw_map_get(hw, le32_to_cpu(d->lkey), qp->pd,
					  qp->flags & SOFTHCA_QP_PRIV, access,
					  le64_to_cpu(d->addr), len, false,
					  &w->seg[w->nseg]);
		if (synd)
			goto err;
		w->nseg++;
	}
	return 0;

err:
	softhca_hw_segs_put(w->seg, w->nseg);
	w->nseg = 0;
	return synd;
}

/*
 * A WQE that never leaves: a local error, a local operation, a UD send.
 * It takes a flight place of its own, done, so that it completes in order
 * (lock held).
 */
static void softhca_hw_req_done_local(struct softhca_hw *hw,
				      struct softhca_hw_qp *qp,
				      struct softhca_hw_wqe *w, u8 status,
				      u32 synd)
{
	struct softhca_hw_flight *f = softhca_hw_flight_at(qp, qp->fl_tail++);

	memset(f, 0, sizeof(*f));
	f->index = w->index;
	f->nbb = w->nbb;
	f->opcode = w->ctrl->opcode;
	f->length = w->length;
	f->signaled = (w->ctrl->flags & SOFTHCA_WQE_F_SIGNALED) ||
		      (qp->flags & SOFTHCA_QP_SIG_ALL);
	f->status = status;
	f->syndrome = synd;
	f->done = true;
	qp->sq_next = w->index + w->nbb;
	softhca_hw_comp_advance(hw, qp);
}

/* The UD (GSI) datagram of @w, sent whole. Return: 0 or a syndrome. */
static u32 softhca_hw_req_ud(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			     struct softhca_hw_wqe *w, u8 *status)
{
	const struct softhca_wqe_av *av = w->av;
	struct softhca_hw_pkt pkt = {};
	u32 qkey = le32_to_cpu(av->qkey);

	*status = SOFTHCA_CQE_ST_LOC_LEN;
	if (w->length > SOFTHCA_HW_MAX_UD_MSG)
		return SOFTHCA_SYND_UD_LENGTH;
	*status = SOFTHCA_CQE_ST_LOC_QP_OP;
	if (!softhca_hw_gid_get(hw, av->sgid_index, pkt.sgid))
		return SOFTHCA_SYND_AV;
	pkt.opcode = SOFTHCA_OP_UD | (w->ctrl->opcode == SOFTHCA_WQE_SEND_IMM ?
				      SOFTHCA_OP_SEND_ONLY_IMM :
				      SOFTHCA_OP_SEND_ONLY);
	pkt.flags = w->ctrl->flags & SOFTHCA_WQE_F_SOLICITED ? SOFTHCA_PKT_SE : 0;
	if (softhca_hw_gid_is_v4(pkt.sgid))
		pkt.flags |= SOFTHCA_PKT_IPV4;
	pkt.pkey = SOFTHCA_DEFAULT_PKEY;
	pkt.dest_qpn = le32_to_cpu(av->dest_qpn) & SOFTHCA_PSN_MASK;
	pkt.npkts = 1;
	pkt.src_qpn = qp->qpn;
	/* a Q_Key with its high bit set: the QP's own (IBA 10.2.5) */
	pkt.qkey = qkey & SOFTHCA_QKEY_USE_QP ? le32_to_cpu(qp->attr.qkey) :
						qkey;
	if (qp->type == SOFTHCA_QPT_GSI)
		pkt.qkey = SOFTHCA_GSI_QKEY;
	pkt.imm = w->ctrl->imm;
	memcpy(pkt.dgid, av->dgid, sizeof(pkt.dgid));
	memcpy(pkt.dmac, av->dmac, sizeof(pkt.dmac));
	pkt.hop_limit = av->hop_limit;
	pkt.tclass = av->traffic_class;
	pkt.flow_label = le32_to_cpu(av->flow_label);
	pkt.len = w->length;
	if (w->inline_data) {
		pkt.src.kind = SOFTHCA_HW_SRC_BUF;
		pkt.src.buf = w->inline_data;
	} else {
		pkt.src.kind = SOFTHCA_HW_SRC_SEGS;
		pkt.src.seg = w->seg;
		pkt.src.nseg = w->nseg;
	}
	spin_lock_bh(&qp->lock);
	pkt.psn = le32_to_cpu(qp->attr.sq_psn);
	qp->attr.sq_psn = cpu_to_le32(softhca_psn_add(pkt.psn, 1));
	spin_unlock_bh(&qp->lock);
	softhca_hw_wire_send(hw, qp, &pkt);
	*status = SOFTHCA_CQE_ST_SUCCESS;
	return 0;
}

/*
 * Where the requester goes on (lock held, no WQE being cut): the WQE of
 * the flight place it sends again, else the first WQE never sent: after
 * the flight's last place, or after the last one completed when the
 * flight is empty. Answers that come late (a network that reorders) may
 * complete places a resend had not reached again: those WQEs are not sent
 * again, their slots may already hold new ones.
 */
static u32 softhca_hw_req_next_index(struct softhca_hw_qp *qp)
{
	struct softhca_hw_flight *f;

	/* done places need no resend */
	while (qp->fl_send != qp->fl_tail &&
	       softhca_hw_flight_at(qp, qp->fl_send)->done)
		qp->fl_send++;
	if (qp->fl_send != qp->fl_tail)
		return softhca_hw_flight_at(qp, qp->fl_send)->index;
	if (qp->fl_head != qp->fl_tail) {
		f = softhca_hw_flight_at(qp, qp->fl_tail - 1);
		return f->index + f->nbb;
	}
	return qp->sq_ci;
}

/* Was the WQE being cut completed under the requester (lock held)? */
static bool softhca_hw_req_retired(struct softhca_hw_qp *qp)
{
	return qp->fl_send == qp->fl_tail ||
	       softhca_hw_flight_at(qp, qp->fl_send)->index != qp->sw->index;
}

/*
 * Did the flight move under the requester since it fetched @w (lock
 * held)? The completer may complete places meanwhile: a WQE and the PSNs
 * it is sent with must come from the same place.
 */
static bool softhca_hw_req_moved(struct softhca_hw_qp *qp,
				 struct softhca_hw_wqe *w)
{
	return softhca_hw_req_next_index(qp) != w->index;
}

/*
 * Must @w, a new WQE (not a resend), wait for a READ credit or a fence
 * (lock held)?
 */
static bool softhca_hw_req_waits(struct softhca_hw_qp *qp,
				 struct softhca_hw_wqe *w, bool rd)
{
	if (qp->fl_send != qp->fl_tail)
		return false;
	return (rd && qp->rd_out >= max_t(u32, qp->attr.max_rd_atomic, 1)) ||
	       ((w->ctrl->flags & SOFTHCA_WQE_F_FENCE) && qp->rd_out);
}

/*
 * Start the WQE at qp->sq_next (posted up to @pi): a new one, or one
 * being sent again after a rewind. Return: 1 when it is to be sent, 0
 * when it was done at once (UD, local operations, errors) or the flight
 * moved meanwhile (look again), -1 when it must wait (fence, READ
 * credits).
 */
static int softhca_hw_req_start(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				u32 pi)
{
	struct softhca_hw_wqe *w = qp->sw;
	struct softhca_hw_flight *f;
	u8 op, status = SOFTHCA_CQE_ST_SUCCESS;
	bool rd, resend;
	u32 synd, npkts;

	synd = softhca_hw_wqe_fetch(hw, qp, qp->sq_next, pi, w);
	if (synd) {
		/* move on by its size only if it is a WQE start (wqe_span) */
		w->nbb = softhca_wqe_span(le16_to_cpu(w->ctrl->wqe_index),
					  w->ctrl->ds, qp->sq_next, pi);
		status = SOFTHCA_CQE_ST_LOC_QP_OP;
		goto done_local;
	}
	op = w->ctrl->opcode;
	rd = op == SOFTHCA_WQE_RDMA_READ || w->atomic;

	/*
	 * A READ or atomic waits for a credit (max_rd_atomic in flight); a
	 * fenced WQE for the READs and atomics before it. The completer
	 * schedules the QP again when one completes. Asked before the
	 * gather list is taken (a waiting WQE is fetched again each visit),
	 * and again with the flight place below.
	 */
	if (rd || (w->ctrl->flags & SOFTHCA_WQE_F_FENCE)) {
		spin_lock_bh(&qp->lock);
		if (softhca_hw_req_moved(qp, w)) {
			spin_unlock_bh(&qp->lock);
			return 0;	/* look again */
		}
		if (softhca_hw_req_waits(qp, w, rd)) {
			spin_unlock_bh(&qp->lock);
			return -1;
		}
		spin_unlock_bh(&qp->lock);
	}

	if (w->length > SOFTHCA_HW_MAX_MSG) {
		status = SOFTHCA_CQE_ST_LOC_LEN;
		synd = SOFTHCA_SYND_LOCAL_LENGTH;
		goto done_local;
	}
	/* the original value lands in exactly one 8-byte SGE */
	if (w->atomic && (w->ndata != 1 || w->length != sizeof(u64))) {
		status = SOFTHCA_CQE_ST_LOC_LEN;
		synd = SOFTHCA_SYND_LOCAL_LENGTH;
		goto done_local;
	}
	switch (op) {
	case SOFTHCA_WQE_REG_MR:
		synd = softhca_hw_mkey_reg(hw, qp, w->reg);
		status = synd ? SOFTHCA_CQE_ST_LOC_PROT : SOFTHCA_CQE_ST_SUCCESS;
		goto done_local;
	case SOFTHCA_WQE_LOCAL_INV:
		synd = softhca_hw_mkey_invalidate(hw, qp->pd,
						  be32_to_cpu(w->ctrl->imm));
		status = synd ? SOFTHCA_CQE_ST_LOC_PROT : SOFTHCA_CQE_ST_SUCCESS;
		goto done_local;
	default:
		break;
	}
	synd = softhca_hw_req_segs(hw, qp, w);
	if (synd) {
		status = SOFTHCA_CQE_ST_LOC_PROT;
		goto done_local;
	}
	if (w->av) {
		synd = softhca_hw_req_ud(hw, qp, w, &status);
		softhca_hw_segs_put(w->seg, w->nseg);
		w->nseg = 0;
		goto done_local;
	}

	spin_lock_bh(&qp->lock);
	if (softhca_hw_req_moved(qp, w) || softhca_hw_req_waits(qp, w, rd)) {
		spin_unlock_bh(&qp->lock);
		softhca_hw_segs_put(w->seg, w->nseg);
		w->nseg = 0;
		return 0;	/* look again */
	}
	resend = qp->fl_send != qp->fl_tail;
	if (resend) {
		/* again, with the PSNs it had; from the rewind PSN if inside */
		f = softhca_hw_flight_at(qp, qp->fl_send);
		qp->sent_psn = f->first_psn;
		qp->sent = 0;
		/* a READ asks again for the rest only */
		if (qp->resend_psn_valid &&
		    softhca_psn_diff(qp->resend_psn, f->first_psn) > 0 &&
		    softhca_psn_diff(qp->resend_psn, f->last_psn) <= 0) {
			qp->sent_psn = qp->resend_psn;
			qp->sent = (u64)softhca_psn_diff(qp->resend_psn,
							 f->first_psn) *
				   softhca_mtu_bytes(qp->attr.path_mtu);
		}
		qp->resend_psn_valid = false;
	} else {
		if (op == SOFTHCA_WQE_RDMA_READ)
			npkts = softhca_hw_packets(qp->attr.path_mtu, w->length);
		else if (w->atomic)
			npkts = 1;
		else
			npkts = softhca_hw_packets(qp->attr.path_mtu, w->length);
		f = softhca_hw_flight_at(qp, qp->fl_tail++);
		qp->fl_send = qp->fl_tail - 1;
		memset(f, 0, sizeof(*f));
		f->index = w->index;
		f->nbb = w->nbb;
		f->opcode = op;
		f->length = w->length;
		f->signaled = (w->ctrl->flags & SOFTHCA_WQE_F_SIGNALED) ||
			      (qp->flags & SOFTHCA_QP_SIG_ALL);
		f->first_psn = le32_to_cpu(qp->attr.sq_psn);
		f->last_psn = softhca_psn_add(f->first_psn, npkts - 1);
		qp->attr.sq_psn = cpu_to_le32(softhca_psn_add(f->first_psn,
							      npkts));
		if (rd) {
			qp->rd_out++;
			f->rd = true;
		}
		qp->sent_psn = f->first_psn;
		qp->sent = 0;
	}
	/*
	 * The completer writes a READ's or atomic's result through its
	 * gather list: hand it over now if this one completes next (its
	 * answer may come back before this thread returns).
	 */
	if (rd && !qp->cw_loaded && f == softhca_hw_flight_at(qp, qp->fl_head))
		softhca_hw_comp_take_segs(qp, w);
	spin_unlock_bh(&qp->lock);
	qp->sending = true;
	return 1;

done_local:
	softhca_hw_segs_put(w->seg, w->nseg);
	w->nseg = 0;
	spin_lock_bh(&qp->lock);
	if (softhca_hw_req_moved(qp, w)) {
		spin_unlock_bh(&qp->lock);
		return 0;	/* look again */
	}
	if (qp->fl_send != qp->fl_tail) {
		/* a WQE sent before and now failing: fail its flight place */
		f = softhca_hw_flight_at(qp, qp->fl_send++);
		f->status = status ?: SOFTHCA_CQE_ST_LOC_QP_OP;
		f->syndrome = synd;
		f->done = true;
		qp->sq_next = f->index + f->nbb;
		softhca_hw_comp_advance(hw, qp);
	} else {
		softhca_hw_req_done_local(hw, qp, w, status, synd);
		qp->fl_send = qp->fl_tail;
	}
	spin_unlock_bh(&qp->lock);
	return 0;
}

/* The BTH opcode of a run of a message, by where it lies in it. */
static u8 softhca_hw_req_opcode(struct softhca_hw_qp *qp, u8 wqe_op,
				bool first, bool last)
{
	u8 t = qp->type == SOFTHCA_QPT_UC ? SOFTHCA_OP_UC : SOFTHCA_OP_RC;

	switch (wqe_op) {
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
		if (first && last)
			return t | (wqe_op == SOFTHCA_WQE_RDMA_WRITE ?
				    SOFTHCA_OP_WRITE_ONLY :
				    SOFTHCA_OP_WRITE_ONLY_IMM);
		if (first)
			return t | SOFTHCA_OP_WRITE_FIRST;
		if (last)
			return t | (wqe_op == SOFTHCA_WQE_RDMA_WRITE ?
				    SOFTHCA_OP_WRITE_LAST :
				    SOFTHCA_OP_WRITE_LAST_IMM);
		return t | SOFTHCA_OP_WRITE_MIDDLE;
	default:		/* SEND, SEND_IMM, SEND_INV */
		if (first && last)
			return t | (wqe_op == SOFTHCA_WQE_SEND_IMM ?
				    SOFTHCA_OP_SEND_ONLY_IMM :
				    wqe_op == SOFTHCA_WQE_SEND_INV ?
				    SOFTHCA_OP_SEND_ONLY_INV :
				    SOFTHCA_OP_SEND_ONLY);
		if (first)
			return t | SOFTHCA_OP_SEND_FIRST;
		if (last)
			return t | (wqe_op == SOFTHCA_WQE_SEND_IMM ?
				    SOFTHCA_OP_SEND_LAST_IMM :
				    wqe_op == SOFTHCA_WQE_SEND_INV ?
				    SOFTHCA_OP_SEND_LAST_INV :
				    SOFTHCA_OP_SEND_LAST);
		return t | SOFTHCA_OP_SEND_MIDDLE;
	}
}

/**
 * softhca_hw_req_run_len - the payload of the next run of a message
 * @left: the bytes of the message still to send (more than 0)
 * @budget: the bytes the visit may still send (more than 0)
 * @mtu: the path MTU in bytes (a power of 2, at most SOFTHCA_HW_SEGMENT)
 *
 * A run that does not end the message is whole packets of the path MTU:
 * every packet but a message's last carries exactly the MTU, and the
 * message takes exactly softhca_hw_packets(@left) PSNs, the number its
 * flight place was given. A budget smaller than the MTU still sends one
 * packet (the visit's budget is a soft bound).
 *
 * Return: @left, or a positive multiple of @mtu smaller than @left.
 */
u64 softhca_hw_req_run_len(u64 left, u64 budget, u32 mtu)
{
	u64 run = min3(left, max_t(u64, budget, mtu), (u64)SOFTHCA_HW_SEGMENT);

	if (run < left)
		run = round_down(run, mtu);
	return run;
}

/*
 * Send the next run of the WQE being sent (at most @budget bytes; a READ
 * or an atomic is one request). With @fills (the run fills the window)
 * its last packet asks for an ACK, which opens the window again. Return:
 * the payload bytes sent.
 */
static u64 softhca_hw_req_send(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			       u64 budget, bool fills)
{
	struct softhca_hw_wqe *w = qp->sw;
	u8 op = w->ctrl->opcode;
	u32 mtu = softhca_mtu_bytes(qp->attr.path_mtu);
	struct softhca_hw_pkt pkt = {};
	bool first = !qp->sent, last;
	u64 len = 0, run;

	pkt.pkey = SOFTHCA_DEFAULT_PKEY;
	pkt.dest_qpn = le32_to_cpu(qp->attr.dest_qpn);
	pkt.src_qpn = qp->qpn;
	pkt.psn = qp->sent_psn;
	softhca_hw_wire_path(hw, qp, &pkt);

	if (op == SOFTHCA_WQE_RDMA_READ) {
		/* one request for what is still to be read */
		pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_READ_REQUEST;
		pkt.va = le64_to_cpu(w->raddr->addr) + qp->sent;
		pkt.rkey = le32_to_cpu(w->raddr->rkey);
		pkt.dma_len = w->length - qp->sent;
		pkt.npkts = softhca_hw_packets(qp->attr.path_mtu, pkt.dma_len);
		pkt.flags |= SOFTHCA_PKT_ACKREQ;
		qp->sent = w->length;
	} else if (w->atomic) {
		pkt.opcode = SOFTHCA_OP_RC | (op == SOFTHCA_WQE_ATOMIC_CS ?
					      SOFTHCA_OP_CMP_SWAP :
					      SOFTHCA_OP_FETCH_ADD);
		pkt.va = le64_to_cpu(w->raddr->addr);
		pkt.rkey = le32_to_cpu(w->raddr->rkey);
		pkt.swap_add = le64_to_cpu(w->atomic->swap_add);
		pkt.compare = le64_to_cpu(w->atomic->compare);
		pkt.npkts = 1;
		pkt.flags |= SOFTHCA_PKT_ACKREQ;
		qp->sent = w->length;
	} else {
		run = softhca_hw_req_run_len(w->length - qp->sent, budget, mtu);
		len = run;
		last = qp->sent + run == w->length;
		pkt.opcode = softhca_hw_req_opcode(qp, op, first, last);
		pkt.npkts = softhca_hw_packets(qp->attr.path_mtu, run);
		if (first && (op == SOFTHCA_WQE_RDMA_WRITE ||
			      op == SOFTHCA_WQE_RDMA_WRITE_IMM)) {
			pkt.va = le64_to_cpu(w->raddr->addr);
			pkt.rkey = le32_to_cpu(w->raddr->rkey);
			pkt.dma_len = w->length;
		}
		if (fills)	/* only an RC window fills */
			pkt.flags |= SOFTHCA_PKT_ACKREQ;
		if (last) {
			pkt.imm = w->ctrl->imm;
			if (w->ctrl->flags & SOFTHCA_WQE_F_SOLICITED)
				pkt.flags |= SOFTHCA_PKT_SE;
			if (qp->type == SOFTHCA_QPT_RC)
				pkt.flags |= SOFTHCA_PKT_ACKREQ;
		}
		pkt.len = run;
		if (w->inline_data) {
			pkt.src.kind = SOFTHCA_HW_SRC_BUF;
			pkt.src.buf = w->inline_data + qp->sent;
		} else {
			pkt.src.kind = SOFTHCA_HW_SRC_SEGS;
			pkt.src.seg = w->seg;
			pkt.src.nseg = w->nseg;
			pkt.src.off = qp->sent;
		}
		qp->sent += run;
	}
	qp->sent_psn = softhca_psn_add(qp->sent_psn, pkt.npkts);
	softhca_hw_wire_send(hw, qp, &pkt);
	return len;
}

/* The WQE being sent has left whole: the next one may go (run held). */
static void softhca_hw_req_sent(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	struct softhca_hw_wqe *w = qp->sw;
	struct softhca_hw_flight *f;

	spin_lock_bh(&qp->lock);
	if (qp->fl_send != qp->fl_tail &&
	    softhca_hw_flight_at(qp, qp->fl_send)->index == w->index) {
		f = softhca_hw_flight_at(qp, qp->fl_send);
		qp->fl_send++;
		if (qp->type == SOFTHCA_QPT_UC) {
			f->done = true;	/* unreliable: gone is done */
			softhca_hw_comp_advance(hw, qp);
		} else if (!f->done && !qp->timer_armed) {
			qp->timer_armed = true;
			qp->deadline = ktime_add_us(ktime_get(),
						    softhca_hw_timeout_us(qp));
		}
	}
	qp->sq_next = w->index + w->nbb;
	spin_unlock_bh(&qp->lock);
	softhca_hw_req_drop(qp);
}

/*
 * The PSN the requester sends next (lock held): inside the message it is
 * cutting, where a resend starts (the completer's rewind PSN, else the
 * first PSN of the WQE sent again), or the next new PSN.
 */
static u32 softhca_hw_req_next_psn(struct softhca_hw_qp *qp)
{
	struct softhca_hw_flight *f;

	if (qp->sending)
		return qp->sent_psn;
	if (qp->fl_send == qp->fl_tail)
		return le32_to_cpu(qp->attr.sq_psn);
	f = softhca_hw_flight_at(qp, qp->fl_send);
	if (qp->resend_psn_valid &&
	    softhca_psn_diff(qp->resend_psn, f->first_psn) > 0 &&
	    softhca_psn_diff(qp->resend_psn, f->last_psn) <= 0)
		return qp->resend_psn;
	return f->first_psn;
}

/*
 * RC to another host: how many more PSNs may go unacknowledged. Sending
 * stops while the congestion window (qp->cwnd, hw_comp.c; at most
 * SOFTHCA_HW_MAX_UNACKED) is full: go-back-N resends everything after a
 * loss, and a sender that floods a link loses more. A full window waits
 * for an ACK under the transport timer. Loopback and UC/UD: no bound.
 */
static u32 softhca_hw_req_window_room(struct softhca_hw_qp *qp)
{
	u32 next, room;
	s32 out;

	if (!qp->peer_remote || qp->type != SOFTHCA_QPT_RC)
		return U32_MAX;
	spin_lock_bh(&qp->lock);
	next = softhca_hw_req_next_psn(qp);
	out = softhca_psn_diff(next, softhca_hw_comp_base_psn(qp, next));
	room = out <= 0 ? qp->cwnd : qp->cwnd - min_t(u32, out, qp->cwnd);
	if (!room && !qp->timer_armed) {
		qp->timer_armed = true;
		qp->deadline = ktime_add_us(ktime_get(),
					    softhca_hw_timeout_us(qp));
	}
	spin_unlock_bh(&qp->lock);
	return room;
}

/* The completer asked to send again from qp->rewind_psn (lock held). */
static void softhca_hw_req_rewind(struct softhca_hw_qp *qp)
{
	u32 i;

	qp->rewind = false;
	for (i = qp->fl_head; i != qp->fl_tail; i++) {
		struct softhca_hw_flight *f = softhca_hw_flight_at(qp, i);

		if (f->done)
			continue;
		if (softhca_psn_diff(qp->rewind_psn, f->last_psn) <= 0) {
			qp->fl_send = i;
			qp->sq_next = f->index;
			qp->resend_psn = qp->rewind_psn;
			qp->resend_psn_valid = true;
			return;
		}
	}
}

/**
 * softhca_hw_req_run - send what @qp has posted, within @budget
 * @hw: the card
 * @qp: the QP (its engine context, qp->run, held)
 * @budget: payload bytes this visit may send
 * @next: lowered to when the QP wants to run again (a timer)
 *
 * Only a QP waiting on a timer reads the clock; the common path does not
 * (in a VM a clock read can cost more than the rest of a pass).
 *
 * Return: whether anything was done.
 */
bool softhca_hw_req_run(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			u64 budget, ktime_t *next)
{
	u32 pi, room, wqes = 0;
	bool work = false;
	u64 cap;
	int ret;

	for (;;) {
		spin_lock_bh(&qp->lock);
		if ((qp->waiting || qp->timer_armed) &&
		    !softhca_hw_comp_timers(hw, qp, next)) {
			spin_unlock_bh(&qp->lock);
			break;
		}
		if (qp->state != SOFTHCA_QPS_RTS &&
		    !(qp->state == SOFTHCA_QPS_SQD && qp->sending)) {
			spin_unlock_bh(&qp->lock);
			break;
		}
		if (qp->rewind) {
			softhca_hw_req_drop(qp);
			softhca_hw_req_rewind(qp);
			softhca_hw_count(hw, retransmits);
		}
		if (qp->sending && softhca_hw_req_retired(qp))
			softhca_hw_req_drop(qp);
		if (!qp->sending)
			qp->sq_next = softhca_hw_req_next_index(qp);
		if (!qp->sending &&
		    (softhca_hw_flight_used(qp) >= SOFTHCA_HW_FLIGHT &&
		     qp->fl_send == qp->fl_tail)) {
			spin_unlock_bh(&qp->lock);
			break;
		}
		spin_unlock_bh(&qp->lock);

		room = budget ? softhca_hw_req_window_room(qp) : 0;
		if (!room)
			break;
		if (!qp->sending) {
			if (wqes >= SOFTHCA_HW_SQ_BUDGET)
				break;
			if (!softhca_hw_qp_dbrec(qp, NULL, &pi) ||
			    pi - qp->sq_ci > BIT(qp->log_sq_size)) {
				spin_lock_bh(&qp->lock);
				softhca_hw_qp_to_error(hw, qp,
						       SOFTHCA_EQE_QP_FATAL,
						       SOFTHCA_SYND_QUEUE_INDEX);
				spin_unlock_bh(&qp->lock);
				return true;
			}
			if (pi == qp->sq_next)
				break;
			ret = softhca_hw_req_start(hw, qp, pi);
			if (ret < 0)
				break;
			work = true;
			wqes++;
			if (!ret)
				continue;
		}
		/* a run of at most the window's room (one packet at least) */
		cap = (u64)room * softhca_mtu_bytes(qp->attr.path_mtu);
		budget -= min(budget, softhca_hw_req_send(hw, qp,
							  min(budget, cap),
							  cap < budget));
		work = true;
		if (qp->sent == qp->sw->length)
			softhca_hw_req_sent(hw, qp);
	}
	return work;
}

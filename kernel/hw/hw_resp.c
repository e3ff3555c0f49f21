// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the responder. It takes a packet for a QP, under
 * the QP's lock (in the sender's engine context between QPs of the card,
 * in softirq from the wire), checks it and carries it out:
 *
 * RC   only from the QP's peer (its destination QPN and GIDs), only the
 *      expected PSN: a later one is NAKed once (PSN sequence error), an
 *      earlier one is a duplicate: SENDs and WRITEs are ACKed again, READs
 *      read again, atomics answered with the saved result. SENDs fill a
 *      receive WQE (none: RNR NAK); WRITEs land where the RETH's rkey
 *      allows; READs and atomics get a resource (max_dest_rd_atomic)
 *      and an answer; what fails gets a NAK and moves the QP to error
 *      with the event the requester's error deserves.
 * UC   the same without ACKs: a gap, a missing receive WQE or a check that
 *      fails drops the message, and the next first packet starts afresh.
 * UD   any sender with the QP's Q_Key (GSI: 0x80010000); the receive gets
 *      the 40-byte GRH, then the datagram; what cannot be taken is dropped
 *      and counted.
 *
 * A READ's responses go out in runs of up to SOFTHCA_HW_SEGMENT bytes
 * from the QP's engine context (softhca_hw_resp_push()); between QPs of
 * the card the first run goes back with the request's answer. Answers
 * leave in PSN order, as IBA's ordering rules want: an ACK, NAK or atomic
 * ACK that comes after READ responses still to send waits for them. A
 * request from the wire is taken in softirq, where a burst of responses
 * would only pile up in the receive backlog: its READ responses all come
 * from the engine, in process context, where each frame is on its way
 * before the next.
 */
#include "hw.h"

enum softhca_hw_rx {
	SOFTHCA_RX_OK,
	SOFTHCA_RX_RNR,			/* no receive WQE */
	SOFTHCA_RX_INV_REQ,		/* NAKs; the QP is in error */
	SOFTHCA_RX_REM_ACCESS,
	SOFTHCA_RX_REM_OP,
};

/**
 * softhca_hw_pkt_from_peer - is @pkt from @qp's peer?
 * @hw: the card
 * @qp: an RC or UC QP (its lock held)
 * @pkt: a request for its responder, or an answer for its completer
 *
 * The packet's source GID is the QP's destination GID, its destination
 * GID the QP's own source GID and, when it names its sender (loopback
 * requests do), that sender is the QP's destination QP: as a responder
 * checks every request, and a requester every answer (a frame naming the
 * QP's number from any other host is not its peer's).
 */
bool softhca_hw_pkt_from_peer(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			      const struct softhca_hw_pkt *pkt)
{
	if (pkt->src_qpn && pkt->src_qpn != le32_to_cpu(qp->attr.dest_qpn))
		return false;
	return !memcmp(pkt->sgid, qp->attr.dgid, sizeof(pkt->sgid)) &&
	       softhca_hw_gid_matches(hw, qp->attr.sgid_index, pkt->dgid);
}

/* A receive's CQE. */
static void softhca_hw_resp_cqe(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				u8 opcode, u8 status, u32 synd, u64 len,
				u8 flags, __be32 imm, u32 src_qp)
{
	if (qp->srq)
		flags |= SOFTHCA_CQE_F_SRQ;
	softhca_hw_post_cqe(hw, qp->rcq, qp->qpn, qp->rwqe_index, opcode,
			    status, synd, len, flags, imm, src_qp);
}

/* The receive WQE failed (@status): complete it, move the QP to error. */
static void softhca_hw_resp_recv_error(struct softhca_hw *hw,
				       struct softhca_hw_qp *qp, u8 status,
				       u32 synd, u32 src_qp)
{
	softhca_hw_resp_cqe(hw, qp, SOFTHCA_CQE_OP_RECV, status, synd, 0, 0, 0,
			    src_qp);
	softhca_hw_rq_release(qp);
	qp->rmsg = 0;
	softhca_hw_qp_to_error(hw, qp, 0, synd);
}

/* Take the next receive WQE (none: RNR). */
static enum softhca_hw_rx softhca_hw_resp_take(struct softhca_hw *hw,
					       struct softhca_hw_qp *qp,
					       u32 src_qp)
{
	u32 synd;
	int r;

	if (qp->rwqe) {		/* UC: kept from a dropped message */
		qp->roff = 0;
		return SOFTHCA_RX_OK;
	}
	r = softhca_hw_rq_take(hw, qp, &synd);
	if (r == 1)
		return SOFTHCA_RX_RNR;
	if (r == -1) {
		softhca_hw_resp_recv_error(hw, qp, SOFTHCA_CQE_ST_LOC_PROT, synd,
					   src_qp);
		return SOFTHCA_RX_REM_OP;
	}
	if (r < 0) {
		softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_FATAL, synd);
		return SOFTHCA_RX_REM_OP;
	}
	return SOFTHCA_RX_OK;
}

/* SEND (FIRST, MIDDLE, LAST, ONLY; with immediate or invalidate). */
static enum softhca_hw_rx softhca_hw_resp_send(struct softhca_hw *hw,
					       struct softhca_hw_qp *qp,
					       const struct softhca_hw_pkt *pkt,
					       u32 mask)
{
	enum softhca_hw_rx r;
	u8 flags = 0;
	u32 synd;

	if (mask & SOFTHCA_OPM_FIRST) {
		if (qp->rmsg) {
			softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_REQ_ERR,
					       SOFTHCA_SYND_REMOTE_OP);
			return SOFTHCA_RX_INV_REQ;
		}
		r = softhca_hw_resp_take(hw, qp, pkt->src_qpn);
		if (r)
			return r;
		qp->rmsg = SOFTHCA_OPM_SEND;
	} else if (qp->rmsg != SOFTHCA_OPM_SEND) {
		softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_REQ_ERR,
				       SOFTHCA_SYND_REMOTE_OP);
		return SOFTHCA_RX_INV_REQ;
	}
	if (qp->roff + pkt->len > qp->rcap) {
		/* longer than the receive buffers */
		softhca_hw_resp_recv_error(hw, qp, SOFTHCA_CQE_ST_LOC_LEN,
					   SOFTHCA_SYND_RECV_LENGTH,
					   pkt->src_qpn);
		return SOFTHCA_RX_INV_REQ;
	}
	softhca_hw_copy(hw, qp->rseg, qp->nrseg, qp->roff, &pkt->src, pkt->len);
	qp->roff += pkt->len;
	if (!(mask & SOFTHCA_OPM_LAST))
		return SOFTHCA_RX_OK;

	if (mask & SOFTHCA_OPM_IETH) {
		synd = softhca_hw_mkey_invalidate(hw, qp->pd,
						  be32_to_cpu(pkt->imm));
		if (synd) {
			softhca_hw_resp_recv_error(hw, qp,
						   SOFTHCA_CQE_ST_LOC_PROT,
						   synd, pkt->src_qpn);
			return SOFTHCA_RX_INV_REQ;
		}
		flags |= SOFTHCA_CQE_F_INV;
	}
	if (mask & SOFTHCA_OPM_IMMDT)
		flags |= SOFTHCA_CQE_F_IMM;
	if (pkt->flags & SOFTHCA_PKT_SE)
		flags |= SOFTHCA_CQE_F_SOLICITED;
	softhca_hw_resp_cqe(hw, qp, SOFTHCA_CQE_OP_RECV, SOFTHCA_CQE_ST_SUCCESS,
			    0, qp->roff, flags, pkt->imm, pkt->src_qpn);
	softhca_hw_rq_release(qp);
	qp->rmsg = 0;
	return SOFTHCA_RX_OK;
}

/* A remote access failed a check: the requester's error (RC). */
static enum softhca_hw_rx softhca_hw_resp_access(struct softhca_hw *hw,
						 struct softhca_hw_qp *qp,
						 u32 synd)
{
	bool access = synd != SOFTHCA_SYND_QP_ACCESS &&
		      synd != SOFTHCA_SYND_ATOMIC_ALIGN &&
		      synd != SOFTHCA_SYND_RD_ATOMIC;

	if (qp->type == SOFTHCA_QPT_UC)
		return SOFTHCA_RX_INV_REQ;	/* dropped by the caller */
	softhca_hw_qp_to_error(hw, qp, access ? SOFTHCA_EQE_QP_ACCESS_ERR :
						SOFTHCA_EQE_QP_REQ_ERR, synd);
	return access ? SOFTHCA_RX_REM_ACCESS : SOFTHCA_RX_INV_REQ;
}

/* RDMA WRITE (and WRITE with immediate, which completes a receive). */
static enum softhca_hw_rx softhca_hw_resp_write(struct softhca_hw *hw,
						struct softhca_hw_qp *qp,
						const struct softhca_hw_pkt *pkt,
						u32 mask)
{
	enum softhca_hw_rx r;
	u8 flags;
	u32 synd;

	if (mask & SOFTHCA_OPM_FIRST) {
		if (qp->rmsg) {
			softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_REQ_ERR,
					       SOFTHCA_SYND_REMOTE_OP);
			return SOFTHCA_RX_INV_REQ;
		}
		if (!(le32_to_cpu(qp->attr.access) & SOFTHCA_ACCESS_REMOTE_WRITE))
			return softhca_hw_resp_access(hw, qp,
						      SOFTHCA_SYND_QP_ACCESS);
		memset(&qp->wseg, 0, sizeof(qp->wseg));
		if (pkt->dma_len) {
			synd = softhca_hw_map_get(hw, pkt->rkey, qp->pd,
						  qp->flags & SOFTHCA_QP_PRIV,
						  SOFTHCA_ACCESS_REMOTE_WRITE,
						  pkt->va, pkt->dma_len, true,
						  &qp->wseg);
			if (synd)
				return softhca_hw_resp_access(hw, qp, synd);
		}
		qp->woff = 0;
		qp->rmsg = SOFTHCA_OPM_WRITE;
	} else if (qp->rmsg != SOFTHCA_OPM_WRITE) {
		softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_REQ_ERR,
				       SOFTHCA_SYND_REMOTE_OP);
		return SOFTHCA_RX_INV_REQ;
	}
	if (qp->woff + pkt->len > qp->wseg.len ||
	    ((mask & SOFTHCA_OPM_LAST) &&
	     qp->woff + pkt->len != qp->wseg.len)) {
		/* not what the RETH announced */
		softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_REQ_ERR,
				       SOFTHCA_SYND_RKEY_BOUNDS);
		return SOFTHCA_RX_INV_REQ;
	}
	/* with immediate: the receive WQE first, or RNR before any byte */
	if ((mask & (SOFTHCA_OPM_LAST | SOFTHCA_OPM_SEND)) ==
	    (SOFTHCA_OPM_LAST | SOFTHCA_OPM_SEND)) {
		r = softhca_hw_resp_take(hw, qp, pkt->src_qpn);
		if (r)
			return r;
	}
	softhca_hw_copy(hw, &qp->wseg, 1, qp->woff, &pkt->src, pkt->len);
	qp->woff += pkt->len;
	if (!(mask & SOFTHCA_OPM_LAST))
		return SOFTHCA_RX_OK;
	if (mask & SOFTHCA_OPM_SEND) {
		flags = SOFTHCA_CQE_F_IMM;
		if (pkt->flags & SOFTHCA_PKT_SE)
			flags |= SOFTHCA_CQE_F_SOLICITED;
		softhca_hw_resp_cqe(hw, qp, SOFTHCA_CQE_OP_RECV_RDMA_IMM,
				    SOFTHCA_CQE_ST_SUCCESS, 0, qp->woff, flags,
				    pkt->imm, pkt->src_qpn);
		softhca_hw_rq_release(qp);
	}
	softhca_hw_map_put(qp->wseg.map);
	qp->wseg.map = NULL;
	qp->rmsg = 0;
	return SOFTHCA_RX_OK;
}

/* An ACK or NAK in @ans (qp->lock held). */
static bool softhca_hw_resp_ack(struct softhca_hw_qp *qp,
				struct softhca_hw_answer *ans, u8 syndrome,
				u32 psn)
{
	memset(ans, 0, sizeof(*ans));
	ans->pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_ACK;
	ans->pkt.syndrome = syndrome;
	ans->pkt.psn = psn;
	ans->pkt.npkts = 1;
	ans->pkt.msn = qp->msn & SOFTHCA_PSN_MASK;
	ans->pkt.pkey = SOFTHCA_DEFAULT_PKEY;
	ans->pkt.dest_qpn = le32_to_cpu(qp->attr.dest_qpn);
	ans->pkt.src_qpn = qp->qpn;
	return true;
}

/* Mark @res busy (its answer still to send) or not; qp->res_busy counts. */
static void softhca_hw_res_set_busy(struct softhca_hw_qp *qp,
				    struct softhca_hw_res *res, bool busy)
{
	if (res->busy && !busy)
		qp->res_busy--;
	else if (!res->busy && busy)
		qp->res_busy++;
	res->busy = busy;
}

/* The oldest resource whose answer is still to send, or NULL. */
static struct softhca_hw_res *softhca_hw_resp_busy(struct softhca_hw_qp *qp)
{
	u32 i;

	if (!qp->res_busy)
		return NULL;	/* the common case: no walk */

	for (i = qp->res_head; i != qp->res_tail; i++) {
		struct softhca_hw_res *res =
			&qp->res[i % SOFTHCA_HW_MAX_RD_ATOM];

		if (res->busy)
			return res;
	}
	return NULL;
}

/*
 * Must an answer wait (lock held)? Yes while READ responses or atomic
 * ACKs before it are still to go, or a run of them is being sent.
 */
static bool softhca_hw_resp_held(struct softhca_hw_qp *qp)
{
	return qp->push_tx || softhca_hw_resp_busy(qp);
}

/*
 * An ACK or NAK for the requester: in @ans now, or after the answers
 * ahead of it (lock held). Return: whether @ans holds it.
 */
static bool softhca_hw_resp_answer_ack(struct softhca_hw *hw,
				       struct softhca_hw_qp *qp,
				       struct softhca_hw_answer *ans,
				       u8 syndrome, u32 psn)
{
	if (!softhca_hw_resp_held(qp))
		return softhca_hw_resp_ack(qp, ans, syndrome, psn);
	/* the latest one says it all, but an ACK before a NAK says less */
	if (!qp->ack_due ||
	    (qp->ack_syndrome & SOFTHCA_AETH_TYPE_MASK) == SOFTHCA_AETH_TYPE_ACK ||
	    softhca_psn_diff(psn, qp->ack_psn) >= 0) {
		qp->ack_due = true;
		qp->ack_syndrome = syndrome;
		qp->ack_psn = psn;
	}
	softhca_hw_engine_schedule(hw, qp, SOFTHCA_HW_QPW_PUSH);
	return false;
}

/* The atomic ACK of @res (lock held). */
static void softhca_hw_resp_atomic_ack(struct softhca_hw_qp *qp,
				       struct softhca_hw_res *res,
				       struct softhca_hw_answer *ans)
{
	softhca_hw_resp_ack(qp, ans, SOFTHCA_AETH_ACK, res->psn);
	ans->pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_ATOMIC_ACK;
	ans->pkt.orig = res->orig;
	softhca_hw_res_set_busy(qp, res, false);
}

/* The next run of READ responses of @res, in @ans (qp->lock held). */
static u32 softhca_hw_resp_read_run(struct softhca_hw_qp *qp,
				    struct softhca_hw_res *res,
				    struct softhca_hw_answer *ans)
{
	u32 mtu = softhca_mtu_bytes(qp->attr.path_mtu);
	u32 run = min_t(u32, res->len - res->sent, SOFTHCA_HW_SEGMENT);
	bool first = !res->sent, last = res->sent + run == res->len;
	u8 op;

	if (first && last)
		op = SOFTHCA_OP_READ_RESP_ONLY;
	else if (first)
		op = SOFTHCA_OP_READ_RESP_FIRST;
	else if (last)
		op = SOFTHCA_OP_READ_RESP_LAST;
	else
		op = SOFTHCA_OP_READ_RESP_MIDDLE;
	softhca_hw_resp_ack(qp, ans, SOFTHCA_AETH_ACK,
			    softhca_psn_add(res->psn, res->sent / mtu));
	ans->pkt.opcode = SOFTHCA_OP_RC | op;
	ans->pkt.npkts = softhca_hw_packets(qp->attr.path_mtu, run);
	ans->pkt.len = run;
	if (run) {
		ans->seg.map = res->seg.map;
		refcount_inc(&res->seg.map->ref);
		ans->seg.addr = res->seg.addr + res->sent;
		ans->seg.len = run;
		ans->pkt.src.kind = SOFTHCA_HW_SRC_SEGS;
		ans->pkt.src.seg = &ans->seg;
		ans->pkt.src.nseg = 1;
	}
	res->sent += run;
	if (res->sent == res->len) {
		softhca_hw_res_set_busy(qp, res, false);
		softhca_hw_map_put(res->seg.map);
		res->seg.map = NULL;
	}
	return run;
}

/* Drop the reference an answer holds for its payload. */
void softhca_hw_answer_put(struct softhca_hw_answer *ans)
{
	softhca_hw_map_put(ans->seg.map);
	ans->seg.map = NULL;
}

/* (Re)start READ resource @res for the request @pkt. */
static enum softhca_hw_rx softhca_hw_resp_read_start(struct softhca_hw *hw,
						     struct softhca_hw_qp *qp,
						     struct softhca_hw_res *res,
						     const struct softhca_hw_pkt *pkt)
{
	u32 synd;

	softhca_hw_res_set_busy(qp, res, false);
	softhca_hw_map_put(res->seg.map);
	memset(res, 0, sizeof(*res));
	if (pkt->dma_len) {
		synd = softhca_hw_map_get(hw, pkt->rkey, qp->pd,
					  qp->flags & SOFTHCA_QP_PRIV,
					  SOFTHCA_ACCESS_REMOTE_READ, pkt->va,
					  pkt->dma_len, true, &res->seg);
		if (synd)
			return softhca_hw_resp_access(hw, qp, synd);
	}
	res->opcode = SOFTHCA_OP_READ_REQUEST;
	res->psn = pkt->psn;
	res->npkts = softhca_hw_packets(qp->attr.path_mtu, pkt->dma_len);
	res->va = pkt->va;
	res->rkey = pkt->rkey;
	res->len = pkt->dma_len;
	softhca_hw_res_set_busy(qp, res, true);
	return SOFTHCA_RX_OK;
}

/* A free resource for a new READ or atomic, or NULL (too many). */
static struct softhca_hw_res *softhca_hw_resp_res(struct softhca_hw_qp *qp)
{
	u32 max = clamp_t(u32, qp->attr.max_dest_rd_atomic, 1,
			  SOFTHCA_HW_MAX_RD_ATOM);
	struct softhca_hw_res *res;

	res = &qp->res[qp->res_tail % SOFTHCA_HW_MAX_RD_ATOM];
	if (qp->res_busy >= max || res->busy)
		return NULL;
	if (qp->res_tail - qp->res_head == SOFTHCA_HW_MAX_RD_ATOM)
		qp->res_head++;		/* the oldest, done: forgotten */
	qp->res_tail++;
	return res;
}

static enum softhca_hw_rx softhca_hw_resp_read(struct softhca_hw *hw,
					       struct softhca_hw_qp *qp,
					       const struct softhca_hw_pkt *pkt,
					       struct softhca_hw_answer *ans)
{
	struct softhca_hw_res *res;
	enum softhca_hw_rx r;
	bool now;

	if (!(le32_to_cpu(qp->attr.access) & SOFTHCA_ACCESS_REMOTE_READ))
		return softhca_hw_resp_access(hw, qp, SOFTHCA_SYND_QP_ACCESS);
	res = softhca_hw_resp_res(qp);
	if (!res)
		return softhca_hw_resp_access(hw, qp, SOFTHCA_SYND_RD_ATOMIC);
	now = !(pkt->flags & SOFTHCA_PKT_WIRE) && !softhca_hw_resp_held(qp);
	r = softhca_hw_resp_read_start(hw, qp, res, pkt);
	if (r)
		return r;
	if (now)
		softhca_hw_resp_read_run(qp, res, ans);
	return SOFTHCA_RX_OK;
}

static enum softhca_hw_rx softhca_hw_resp_atomic(struct softhca_hw *hw,
						 struct softhca_hw_qp *qp,
						 const struct softhca_hw_pkt *pkt,
						 struct softhca_hw_answer *ans)
{
	struct softhca_hw_seg seg;
	struct softhca_hw_res *res;
	atomic64_t *target;
	u32 synd, contig;
	bool held;
	u64 orig;

	if (!(le32_to_cpu(qp->attr.access) & SOFTHCA_ACCESS_REMOTE_ATOMIC))
		return softhca_hw_resp_access(hw, qp, SOFTHCA_SYND_QP_ACCESS);
	if (pkt->va & 7)
		return softhca_hw_resp_access(hw, qp, SOFTHCA_SYND_ATOMIC_ALIGN);
	synd = softhca_hw_map_get(hw, pkt->rkey, qp->pd,
				  qp->flags & SOFTHCA_QP_PRIV,
				  SOFTHCA_ACCESS_REMOTE_ATOMIC, pkt->va,
				  sizeof(u64), true, &seg);
	if (synd)
		return softhca_hw_resp_access(hw, qp, synd);
	res = softhca_hw_resp_res(qp);
	if (!res) {
		softhca_hw_map_put(seg.map);
		return softhca_hw_resp_access(hw, qp, SOFTHCA_SYND_RD_ATOMIC);
	}
	/* 8 aligned bytes never cross a block or page */
	target = softhca_hw_map_ptr(hw, seg.map, pkt->va, &contig);
	if ((pkt->opcode & SOFTHCA_OP_OPERATION_MASK) == SOFTHCA_OP_CMP_SWAP)
		orig = atomic64_cmpxchg(target, pkt->compare, pkt->swap_add);
	else
		orig = atomic64_fetch_add(pkt->swap_add, target);
	softhca_hw_map_put(seg.map);
	held = softhca_hw_resp_held(qp);
	softhca_hw_res_set_busy(qp, res, false);
	softhca_hw_map_put(res->seg.map);
	memset(res, 0, sizeof(*res));
	res->opcode = pkt->opcode & SOFTHCA_OP_OPERATION_MASK;
	res->psn = pkt->psn;
	res->npkts = 1;
	res->orig = orig;
	/* done now; answered now, or after the answers ahead of it */
	softhca_hw_res_set_busy(qp, res, true);
	if (!held)
		softhca_hw_resp_atomic_ack(qp, res, ans);
	return SOFTHCA_RX_OK;
}

/* A request seen before (RC): answer it again, never execute it twice. */
static bool softhca_hw_resp_duplicate(struct softhca_hw *hw,
				      struct softhca_hw_qp *qp,
				      const struct softhca_hw_pkt *pkt, u32 mask,
				      struct softhca_hw_answer *ans)
{
	u32 epsn = le32_to_cpu(qp->attr.rq_psn), i;
	bool held = softhca_hw_resp_held(qp);

	softhca_hw_count(hw, duplicates);
	if (mask & (SOFTHCA_OPM_READ | SOFTHCA_OPM_ATOMIC)) {
		for (i = qp->res_head; i != qp->res_tail; i++) {
			struct softhca_hw_res *res =
				&qp->res[i % SOFTHCA_HW_MAX_RD_ATOM];
			s32 in = softhca_psn_diff(pkt->psn, res->psn);

			if (in < 0 || in >= res->npkts)
				continue;
			if ((mask & SOFTHCA_OPM_ATOMIC) &&
			    res->opcode != SOFTHCA_OP_READ_REQUEST) {
				/* the saved result */
				softhca_hw_res_set_busy(qp, res, true);
				if (held)
					break;
				softhca_hw_resp_atomic_ack(qp, res, ans);
				return true;
			}
			if ((mask & SOFTHCA_OPM_READ) &&
			    res->opcode == SOFTHCA_OP_READ_REQUEST &&
			    !softhca_hw_resp_read_start(hw, qp, res, pkt)) {
				if (held || (pkt->flags & SOFTHCA_PKT_WIRE))
					break;
				softhca_hw_resp_read_run(qp, res, ans);
				if (res->busy)
					softhca_hw_engine_schedule(hw, qp,
								   SOFTHCA_HW_QPW_PUSH);
				return true;
			}
			return false;
		}
		if (i == qp->res_tail)
			return false;
		/* answered by the engine, after what is ahead of it */
		softhca_hw_engine_schedule(hw, qp, SOFTHCA_HW_QPW_PUSH);
		return false;
	}
	if (!(pkt->flags & SOFTHCA_PKT_ACKREQ))
		return false;
	return softhca_hw_resp_answer_ack(hw, qp, ans, SOFTHCA_AETH_ACK,
					  softhca_psn_add(epsn,
							  SOFTHCA_PSN_MASK));
}

/* The first message a QP in RTR takes establishes the connection. */
static void softhca_hw_resp_comm_est(struct softhca_hw *hw,
				     struct softhca_hw_qp *qp)
{
	if (!qp->comm_est && qp->state == SOFTHCA_QPS_RTR) {
		qp->comm_est = true;
		softhca_hw_async_event(hw, SOFTHCA_EQE_QP_COMM_EST, qp->qpn,
				       0, 0);
	}
}

static const u8 softhca_hw_rx_nak[] = {
	[SOFTHCA_RX_INV_REQ]	= SOFTHCA_AETH_NAK_INV_REQ,
	[SOFTHCA_RX_REM_ACCESS]	= SOFTHCA_AETH_NAK_REM_ACCESS,
	[SOFTHCA_RX_REM_OP]	= SOFTHCA_AETH_NAK_REM_OP,
};

static bool softhca_hw_resp_rc(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			       const struct softhca_hw_pkt *pkt, u32 mask,
			       struct softhca_hw_answer *ans)
{
	u32 epsn = le32_to_cpu(qp->attr.rq_psn), n;
	s32 d = softhca_psn_diff(pkt->psn, epsn);
	enum softhca_hw_rx r;

	if (d > 0) {
		/* a gap: NAK it once, drop until the resend arrives */
		softhca_hw_count(hw, drop_seq);
		if (qp->nak_sent)
			return false;
		qp->nak_sent = true;
		softhca_hw_count(hw, seq_naks_sent);
		return softhca_hw_resp_answer_ack(hw, qp, ans,
						  SOFTHCA_AETH_NAK_PSN_SEQ,
						  epsn);
	}
	if (d < 0)
		return softhca_hw_resp_duplicate(hw, qp, pkt, mask, ans);
	qp->nak_sent = false;
	softhca_hw_resp_comm_est(hw, qp);

	memset(ans, 0, sizeof(*ans));
	if (mask & SOFTHCA_OPM_READ)
		r = softhca_hw_resp_read(hw, qp, pkt, ans);
	else if (mask & SOFTHCA_OPM_ATOMIC)
		r = softhca_hw_resp_atomic(hw, qp, pkt, ans);
	else if (mask & SOFTHCA_OPM_WRITE)
		r = softhca_hw_resp_write(hw, qp, pkt, mask);
	else
		r = softhca_hw_resp_send(hw, qp, pkt, mask);

	switch (r) {
	case SOFTHCA_RX_OK:
		/* a READ takes the PSNs of its responses */
		n = mask & SOFTHCA_OPM_READ ?
		    softhca_hw_packets(qp->attr.path_mtu, pkt->dma_len) :
		    pkt->npkts;
		qp->attr.rq_psn = cpu_to_le32(softhca_psn_add(epsn, n));
		if (mask & SOFTHCA_OPM_LAST)
			qp->msn++;
		if (mask & (SOFTHCA_OPM_READ | SOFTHCA_OPM_ATOMIC)) {
			/* what is not answered now, the engine answers */
			if (softhca_hw_resp_busy(qp))
				softhca_hw_engine_schedule(hw, qp,
							   SOFTHCA_HW_QPW_PUSH);
			return ans->pkt.npkts;
		}
		if (!(pkt->flags & SOFTHCA_PKT_ACKREQ))
			return false;
		return softhca_hw_resp_answer_ack(hw, qp, ans, SOFTHCA_AETH_ACK,
						  softhca_psn_add(epsn,
								  pkt->npkts - 1));
	case SOFTHCA_RX_RNR:
		/*
		 * The rest of the message (on the wire, its packets are on
		 * their way) is dropped without another NAK until the resend.
		 */
		qp->nak_sent = true;
		softhca_hw_count(hw, rnr_naks_sent);
		return softhca_hw_resp_answer_ack(hw, qp, ans, SOFTHCA_AETH_RNR |
						  (qp->attr.min_rnr_timer & 0x1f),
						  pkt->psn);
	default:
		/* the QP is in error now: no engine will answer for it */
		return softhca_hw_resp_ack(qp, ans, softhca_hw_rx_nak[r],
					   pkt->psn);
	}
}

static void softhca_hw_resp_uc(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			       const struct softhca_hw_pkt *pkt, u32 mask)
{
	u32 epsn = le32_to_cpu(qp->attr.rq_psn);
	enum softhca_hw_rx r;

	if (mask & SOFTHCA_OPM_FIRST) {
		/* a first packet starts afresh, whatever came before */
		if (pkt->psn != epsn)
			softhca_hw_count(hw, drop_seq);
		qp->rdrop = false;
		if (qp->rmsg == SOFTHCA_OPM_WRITE) {
			softhca_hw_map_put(qp->wseg.map);
			qp->wseg.map = NULL;
		}
		qp->rmsg = 0;
	} else if (pkt->psn != epsn || qp->rdrop) {
		qp->rdrop = true;
		softhca_hw_count(hw, drop_seq);
		goto seen;
	}
	softhca_hw_resp_comm_est(hw, qp);
	if (mask & SOFTHCA_OPM_WRITE)
		r = softhca_hw_resp_write(hw, qp, pkt, mask);
	else
		r = softhca_hw_resp_send(hw, qp, pkt, mask);
	if (r == SOFTHCA_RX_RNR)
		softhca_hw_count(hw, drop_no_wqe);
	if (r) {
		/* the message is dropped; a receive WQE stays for the next */
		qp->rdrop = true;
		if (qp->rmsg == SOFTHCA_OPM_WRITE) {
			softhca_hw_map_put(qp->wseg.map);
			qp->wseg.map = NULL;
		}
		qp->rmsg = 0;
	} else if (mask & SOFTHCA_OPM_LAST) {
		qp->msn++;
	}
seen:
	qp->attr.rq_psn = cpu_to_le32(softhca_psn_add(pkt->psn, pkt->npkts));
}

static void softhca_hw_resp_ud(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			       const struct softhca_hw_pkt *pkt, u32 mask)
{
	u32 qkey = qp->type == SOFTHCA_QPT_GSI ? SOFTHCA_GSI_QKEY :
						 le32_to_cpu(qp->attr.qkey);
	struct softhca_hw_src grh = { .kind = SOFTHCA_HW_SRC_BUF };
	u8 hdr[SOFTHCA_HW_GRH_SIZE], flags = SOFTHCA_CQE_F_GRH;

	if (pkt->qkey != qkey) {
		softhca_hw_count(hw, drop_qkey);
		return;
	}
	switch (softhca_hw_resp_take(hw, qp, pkt->src_qpn)) {
	case SOFTHCA_RX_OK:
		break;
	case SOFTHCA_RX_RNR:
		softhca_hw_count(hw, drop_no_wqe);
		return;
	default:		/* a bad receive WQE: the QP is in error */
		return;
	}
	if (SOFTHCA_HW_GRH_SIZE + pkt->len > qp->rcap) {
		/* the datagram is lost; the QP goes on (IBA 10.10.2.2) */
		softhca_hw_resp_cqe(hw, qp, SOFTHCA_CQE_OP_RECV,
				    SOFTHCA_CQE_ST_LOC_LEN,
				    SOFTHCA_SYND_RECV_LENGTH, 0, 0, 0,
				    pkt->src_qpn);
		softhca_hw_rq_release(qp);
		return;
	}
	softhca_hw_grh_build(hdr, pkt);
	grh.buf = hdr;
	softhca_hw_copy(hw, qp->rseg, qp->nrseg, 0, &grh, sizeof(hdr));
	softhca_hw_copy(hw, qp->rseg, qp->nrseg, sizeof(hdr), &pkt->src,
			pkt->len);
	if (pkt->flags & SOFTHCA_PKT_IPV4)
		flags |= SOFTHCA_CQE_F_IPV4;
	if (mask & SOFTHCA_OPM_IMMDT)
		flags |= SOFTHCA_CQE_F_IMM;
	if (pkt->flags & SOFTHCA_PKT_SE)
		flags |= SOFTHCA_CQE_F_SOLICITED;
	softhca_hw_resp_cqe(hw, qp, SOFTHCA_CQE_OP_RECV, SOFTHCA_CQE_ST_SUCCESS,
			    0, sizeof(hdr) + pkt->len, flags, pkt->imm,
			    pkt->src_qpn);
	softhca_hw_rq_release(qp);
}

/**
 * softhca_hw_resp_rx - the responder takes a packet for @qp
 * @hw: the card
 * @qp: the destination QP
 * @pkt: the packet
 * @ans: filled with the answer, if there is one
 *
 * Return: whether @ans holds an answer for the requester (an ACK or NAK,
 * a READ response, an atomic ACK). The caller sends it and then drops its
 * reference (softhca_hw_answer_put()).
 */
bool softhca_hw_resp_rx(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			const struct softhca_hw_pkt *pkt,
			struct softhca_hw_answer *ans)
{
	u32 mask = softhca_hw_opcode_mask(pkt->opcode);
	bool answer = false;

	spin_lock_bh(&qp->lock);
	if (!softhca_hw_qp_receives(qp->state) ||
	    !(mask & SOFTHCA_OPM_REQUEST)) {
		softhca_hw_count(hw, drop_no_qp);
		goto out;
	}
	switch (qp->type) {
	case SOFTHCA_QPT_RC:
		if ((pkt->opcode & SOFTHCA_OP_TRANSPORT_MASK) != SOFTHCA_OP_RC)
			break;
		if (!softhca_hw_pkt_from_peer(hw, qp, pkt)) {
			softhca_hw_count(hw, drop_not_peer);
			break;
		}
		answer = softhca_hw_resp_rc(hw, qp, pkt, mask, ans);
		break;
	case SOFTHCA_QPT_UC:
		if ((pkt->opcode & SOFTHCA_OP_TRANSPORT_MASK) != SOFTHCA_OP_UC)
			break;
		if (!softhca_hw_pkt_from_peer(hw, qp, pkt)) {
			softhca_hw_count(hw, drop_not_peer);
			break;
		}
		softhca_hw_resp_uc(hw, qp, pkt, mask);
		break;
	default:
		if ((pkt->opcode & SOFTHCA_OP_TRANSPORT_MASK) != SOFTHCA_OP_UD)
			break;
		softhca_hw_resp_ud(hw, qp, pkt, mask);
		break;
	}
out:
	spin_unlock_bh(&qp->lock);
	return answer;
}

/*
 * The next answer the engine sends for @qp, in @ans (lock held): READ
 * responses and atomic ACKs in PSN order, then the ACK or NAK that waited
 * for them. Return: its payload bytes, or -1 when there is none.
 */
static s64 softhca_hw_resp_next(struct softhca_hw_qp *qp,
				struct softhca_hw_answer *ans)
{
	struct softhca_hw_res *res = softhca_hw_resp_busy(qp);

	if (res && res->opcode == SOFTHCA_OP_READ_REQUEST)
		return softhca_hw_resp_read_run(qp, res, ans);
	if (res) {
		softhca_hw_resp_atomic_ack(qp, res, ans);
		return 0;
	}
	if (!qp->ack_due)
		return -1;
	qp->ack_due = false;
	softhca_hw_resp_ack(qp, ans, qp->ack_syndrome, qp->ack_psn);
	return 0;
}

/**
 * softhca_hw_resp_push - send the answers of @qp that wait for the engine
 * @hw: the card
 * @qp: the responder's QP (its engine context held)
 * @budget: payload bytes this visit may send
 *
 * Return: whether anything was sent.
 */
bool softhca_hw_resp_push(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  u64 budget)
{
	struct softhca_hw_answer ans;
	bool work = false;
	s64 run;

	while (budget) {
		spin_lock_bh(&qp->lock);
		qp->push_tx = false;
		memset(&ans, 0, sizeof(ans));
		run = softhca_hw_qp_receives(qp->state) ?
		      softhca_hw_resp_next(qp, &ans) : -1;
		if (run < 0) {
			clear_bit(SOFTHCA_HW_QPW_PUSH, &qp->work);
			spin_unlock_bh(&qp->lock);
			break;
		}
		/* what comes next waits until this has left */
		qp->push_tx = true;
		spin_unlock_bh(&qp->lock);
		softhca_hw_wire_answer(hw, qp, &ans);
		budget -= min_t(u64, budget, max_t(u64, run, 1));
		work = true;
	}
	if (work) {
		spin_lock_bh(&qp->lock);
		qp->push_tx = false;
		spin_unlock_bh(&qp->lock);
	}
	return work;
}

/* Forget what the responder holds (RESET, flush, destroy; lock held). */
void softhca_hw_resp_reset(struct softhca_hw_qp *qp)
{
	u32 i;

	softhca_hw_segs_put(qp->rseg, qp->nrseg);
	qp->nrseg = 0;
	qp->rwqe = false;
	softhca_hw_map_put(qp->wseg.map);
	qp->wseg.map = NULL;
	for (i = 0; qp->res && i < SOFTHCA_HW_MAX_RD_ATOM; i++) {
		softhca_hw_map_put(qp->res[i].seg.map);
		memset(&qp->res[i], 0, sizeof(qp->res[i]));
	}
	qp->res_head = 0;
	qp->res_tail = 0;
	qp->res_busy = 0;
	qp->rmsg = 0;
	qp->rdrop = false;
	qp->nak_sent = false;
	qp->push_tx = false;
	qp->ack_due = false;
}

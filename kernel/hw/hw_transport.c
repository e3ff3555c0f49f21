// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the transport. The engine executes a QP's send WQEs
 * in order; the wire is a loopback inside the card, so the requester finds
 * the responder QP by destination GID (one of the port's GIDs) and QPN and
 * carries out the responder's side too: receive WQE consumption, RDMA
 * access checks, atomics, and the completions and events of both sides.
 *
 * RC semantics: a destination that does not answer (unknown GID or QPN, a
 * QP not ready to receive) costs the requester timeout x (retry_cnt + 1)
 * and then IBV_WC_RETRY_EXC_ERR; a SEND without a receive WQE is an RNR
 * NAK, retried after the responder's min_rnr_timer up to rnr_retry times
 * (7: forever). UC never retries: what the responder cannot take is
 * dropped and the sender completes.
 *
 * A message travels as packets of the path MTU: it takes one PSN per
 * packet (a READ request the PSNs of its response packets, an atomic or a
 * zero-length message one). The requester's next PSN (sq_psn) moves when
 * the message goes out, the responder's expected PSN (rq_psn) when it is
 * accepted; both are 24-bit and QUERY_QP reports them. The data of a
 * message is moved in one pass over the checked gather and scatter lists.
 */
#include <linux/atomic.h>
#include <linux/slab.h>

#include "hw.h"

#define SOFTHCA_HW_SQ_BUDGET	64
#define SOFTHCA_HW_WQE_SEGS	(SOFTHCA_MAX_WQEBBS * 4)

/* What executing one WQE came to. */
enum softhca_hw_outcome {
	SOFTHCA_HW_DONE,	/* completed (maybe with an error status) */
	SOFTHCA_HW_WAIT,	/* try again at qp->deadline */
};

/* A send WQE as fetched from the SQ. */
struct softhca_hw_wqe {
	u8 raw[SOFTHCA_MAX_WQEBBS * SOFTHCA_WQEBB_SIZE];
	struct softhca_wqe_ctrl *ctrl;
	struct softhca_wqe_raddr *raddr;
	struct softhca_wqe_atomic *atomic;
	struct softhca_wqe_data *data;
	u32 ndata;
	const u8 *inline_data;
	u32 inline_len;
	u32 nbb;
	u32 index;
	/* the result */
	u8 status;			/* softhca_cqe_status */
	u32 syndrome;
	u64 length;
};

/* IB min_rnr_timer encoding (IBA table 45), in microseconds. */
static const u32 softhca_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * The packets a message of @len bytes takes on @qp's path (the MTU is
 * 128 << path_mtu bytes: a shift, not a division, per message).
 */
static u32 softhca_hw_packets(struct softhca_hw_qp *qp, u64 len)
{
	u32 shift = 7 + qp->attr.path_mtu;

	return len ? (len + BIT_ULL(shift) - 1) >> shift : 1;
}

/* Advance a 24-bit PSN in a QP context by @n. */
static void softhca_hw_psn_add(__le32 *psn, u32 n)
{
	*psn = cpu_to_le32((le32_to_cpu(*psn) + n) & SOFTHCA_PSN_MASK);
}

/* The producer counts in @qp's doorbell record (checked at creation). */
static int softhca_hw_qp_dbrec(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			       u32 *rq_pi, u32 *sq_pi)
{
	if (rq_pi)
		*rq_pi = le32_to_cpu(READ_ONCE(qp->db->rq_pi));
	if (sq_pi)
		*sq_pi = le32_to_cpu(READ_ONCE(qp->db->sq_pi));
	/* the WQEs are read after the counts that publish them */
	smp_rmb();
	return 0;
}

/*
 * Read @len bytes (a multiple of 16) of the SQ ring starting @off bytes
 * into the ring. A range that neither wraps the ring nor crosses a PAS
 * block is read a word at a time.
 */
static int softhca_hw_sq_read(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			      u64 off, void *buf, u32 len)
{
	u64 ring = BIT_ULL(qp->log_sq_size + SOFTHCA_LOG_WQEBB);
	void *p;

	off &= ring - 1;
	if (off + len <= ring) {
		p = softhca_hw_pas_ptr(hw, &qp->pas, qp->sq_offset + off, len);
		if (p) {
			softhca_hw_load_words(buf, p, len);
			return 0;
		}
	}
	if (off + len > ring) {
		u32 first = ring - off;

		if (softhca_hw_pas_rw(hw, &qp->pas, qp->sq_offset + off, buf,
				      first, false))
			return -EFAULT;
		buf += first;
		len -= first;
		off = 0;
	}
	return softhca_hw_pas_rw(hw, &qp->pas, qp->sq_offset + off, buf, len,
				 false);
}

static int softhca_hw_post_cqe(struct softhca_hw *hw, struct softhca_hw_cq *cq,
			       u32 qpn, u32 index, u8 opcode, u8 status,
			       u32 syndrome, u64 length, u8 flags, __be32 imm,
			       u32 src_qp)
{
	struct softhca_cqe cqe = {
		.qpn = cpu_to_le32(qpn),
		.byte_cnt = cpu_to_le32(length),
		.imm = imm,
		.src_qp = cpu_to_le32(src_qp),
		.vendor_err = cpu_to_le32(syndrome),
		.wqe_counter = cpu_to_le32(index),
		.opcode = opcode,
		.status = status,
		.flags = flags,
	};

	return softhca_hw_cq_post(hw, cq, &cqe,
				  flags & SOFTHCA_CQE_F_SOLICITED);
}

static u8 softhca_hw_cqe_opcode(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
		return SOFTHCA_CQE_OP_RDMA_WRITE;
	case SOFTHCA_WQE_RDMA_READ:
		return SOFTHCA_CQE_OP_RDMA_READ;
	case SOFTHCA_WQE_ATOMIC_CS:
		return SOFTHCA_CQE_OP_CMP_SWAP;
	case SOFTHCA_WQE_ATOMIC_FA:
		return SOFTHCA_CQE_OP_FETCH_ADD;
	default:
		return SOFTHCA_CQE_OP_SEND;
	}
}

/*
 * Fetch the WQE at qp->sq_ci (whose basic blocks up to @pi are posted) and
 * lay out its segments. Return 0 or a syndrome for a malformed WQE.
 */
static u32 softhca_hw_wqe_fetch(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				u32 pi, struct softhca_hw_wqe *w)
{
	u64 off = (u64)qp->sq_ci << SOFTHCA_LOG_WQEBB;
	u32 units, fixed = 1, i;
	u8 *p;

	/* the first basic block (posted, since pi is past it) in one go */
	w->ctrl = (struct softhca_wqe_ctrl *)w->raw;
	if (softhca_hw_sq_read(hw, qp, off, w->raw, SOFTHCA_WQEBB_SIZE)) {
		memset(w->ctrl, 0, sizeof(*w->ctrl));	/* nothing to trust */
		return SOFTHCA_SYND_WQE_FORMAT;
	}
	units = w->ctrl->ds;
	w->index = qp->sq_ci;
	w->nbb = units ? softhca_wqe_bbs(units) : 1;
	if (!units || w->nbb > SOFTHCA_MAX_WQEBBS || w->nbb > pi - qp->sq_ci ||
	    le16_to_cpu(w->ctrl->wqe_index) != (u16)w->index)
		return SOFTHCA_SYND_WQE_FORMAT;
	if (w->nbb > 1 &&
	    softhca_hw_sq_read(hw, qp, off + SOFTHCA_WQEBB_SIZE,
			       w->raw + SOFTHCA_WQEBB_SIZE,
			       units * SOFTHCA_WQE_DS_SIZE - SOFTHCA_WQEBB_SIZE))
		return SOFTHCA_SYND_WQE_FORMAT;

	p = w->raw + SOFTHCA_WQE_DS_SIZE;
	w->raddr = NULL;
	w->atomic = NULL;
	switch (w->ctrl->opcode) {
	case SOFTHCA_WQE_SEND:
	case SOFTHCA_WQE_SEND_IMM:
		break;
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
	case SOFTHCA_WQE_RDMA_READ:
		w->raddr = (struct softhca_wqe_raddr *)p;
		fixed++;
		break;
	case SOFTHCA_WQE_ATOMIC_CS:
	case SOFTHCA_WQE_ATOMIC_FA:
		w->raddr = (struct softhca_wqe_raddr *)p;
		w->atomic = (struct softhca_wqe_atomic *)(p + SOFTHCA_WQE_DS_SIZE);
		fixed += 2;
		break;
	default:
		return SOFTHCA_SYND_WQE_OPCODE;
	}
	if (fixed > units)
		return SOFTHCA_SYND_WQE_FORMAT;
	p = w->raw + fixed * SOFTHCA_WQE_DS_SIZE;
	w->inline_data = NULL;
	w->inline_len = 0;
	w->data = NULL;
	w->ndata = 0;
	w->length = 0;
	if (w->ctrl->flags & SOFTHCA_WQE_F_INLINE) {
		struct softhca_wqe_inline *inl = (struct softhca_wqe_inline *)p;

		/* the card writes READ and atomic results through an SGE */
		if (w->ctrl->opcode == SOFTHCA_WQE_RDMA_READ || w->atomic ||
		    fixed == units)
			return SOFTHCA_SYND_WQE_FORMAT;
		w->inline_len = le32_to_cpu(inl->byte_count);
		if (w->inline_len > (units - fixed) * SOFTHCA_WQE_DS_SIZE -
				     sizeof(*inl))
			return SOFTHCA_SYND_WQE_FORMAT;
		w->inline_data = p + sizeof(*inl);
		w->length = w->inline_len;
	} else {
		w->data = (struct softhca_wqe_data *)p;
		w->ndata = units - fixed;
		for (i = 0; i < w->ndata; i++)
			w->length += le32_to_cpu(w->data[i].byte_count);
	}
	return 0;
}

/* Is the opcode allowed on this QP type? */
static bool softhca_hw_opcode_ok(struct softhca_hw_qp *qp, u8 opcode)
{
	if (qp->type == SOFTHCA_QPT_RC)
		return true;
	return opcode <= SOFTHCA_WQE_RDMA_WRITE_IMM;	/* UC */
}

/*
 * Check the local gather/scatter list of @w against the QP's PD; local
 * writes (READ responses, atomic results) need LOCAL_WRITE.
 */
static u32 softhca_hw_local_sges(struct softhca_hw *hw,
				 struct softhca_hw_qp *qp,
				 struct softhca_hw_wqe *w, u32 access,
				 struct softhca_hw_sge *sges, u32 *n)
{
	u32 i, synd;

	*n = 0;
	for (i = 0; i < w->ndata; i++) {
		struct softhca_wqe_data *d = &w->data[i];
		u32 len = le32_to_cpu(d->byte_count);

		if (!len)
			continue;
		synd = softhca_hw_mkey_check(hw, &qp->lkey,
					     le32_to_cpu(d->lkey), qp->pd,
					     access, le64_to_cpu(d->addr), len,
					     false, &sges[*n].mkey);
		if (synd)
			return synd;
		sges[*n].addr = le64_to_cpu(d->addr);
		sges[*n].len = len;
		(*n)++;
	}
	return 0;
}

/*
 * Look up the responder QP for @qp's path, or NULL if nothing answers. A
 * connected responder takes packets only from its own peer, as one on a
 * wire checks the source of every RC/UC packet: its destination QPN must
 * be @qp, its destination GID @qp's source GID, and @qp's destination GID
 * its own source GID. Another QP that merely names it gets no answer.
 */
static struct softhca_hw_qp *softhca_hw_find_responder(struct softhca_hw *hw,
						       struct softhca_hw_qp *qp)
{
	struct softhca_hw_qp *dqp;

	if (!softhca_hw_gid_is_local(hw, qp->attr.dgid))
		return NULL;
	dqp = xa_load(&hw->qps, le32_to_cpu(qp->attr.dest_qpn));
	if (!dqp || dqp->type != qp->type)
		return NULL;
	if (le32_to_cpu(dqp->attr.dest_qpn) != qp->qpn ||
	    !softhca_hw_gid_matches(hw, qp->attr.sgid_index, dqp->attr.dgid) ||
	    !softhca_hw_gid_matches(hw, dqp->attr.sgid_index, qp->attr.dgid))
		return NULL;
	switch (dqp->state) {
	case SOFTHCA_QPS_RTR:
	case SOFTHCA_QPS_RTS:
	case SOFTHCA_QPS_SQD:
	case SOFTHCA_QPS_SQE:
		return dqp;
	default:
		return NULL;
	}
}

/*
 * The responder for @qp's path: the answer holds until a QP changes state
 * or attributes or goes away, or the GID table changes (hw->path_gen).
 */
static struct softhca_hw_qp *softhca_hw_responder(struct softhca_hw *hw,
						  struct softhca_hw_qp *qp)
{
	if (qp->resp_gen != hw->path_gen) {
		qp->resp = softhca_hw_find_responder(hw, qp);
		qp->resp_gen = hw->path_gen;
	}
	return qp->resp;
}

/* The responder has a message from @qp: the first one moves RTR along. */
static void softhca_hw_responder_saw(struct softhca_hw *hw,
				     struct softhca_hw_qp *dqp)
{
	if (!dqp->comm_est && dqp->state == SOFTHCA_QPS_RTR) {
		dqp->comm_est = true;
		softhca_hw_async_event(hw, SOFTHCA_EQE_QP_COMM_EST, dqp->qpn,
				       0, 0);
	}
}

/* The responder took @w's message: its expected PSN moves past it. */
static void softhca_hw_responder_took(struct softhca_hw_qp *qp,
				      struct softhca_hw_qp *dqp,
				      struct softhca_hw_wqe *w)
{
	softhca_hw_psn_add(&dqp->attr.rq_psn,
			   softhca_hw_packets(qp, w->length));
}

/*
 * Take the responder's next receive WQE: check its scatter list (responder
 * local protection). Return 1 when there is none (RNR), 0 when @sges is
 * filled, or -1 with *@synd set when the WQE is bad.
 */
static int softhca_hw_rq_take(struct softhca_hw *hw, struct softhca_hw_qp *dqp,
			      struct softhca_hw_sge *sges, u32 *n, u64 *cap,
			      u32 *index, u32 *synd)
{
	u32 stride = BIT(dqp->log_rq_stride), nseg = stride / 16, pi, i;
	struct softhca_wqe_data segs[SOFTHCA_HW_WQE_SEGS];
	void *p;
	u64 off;

	*synd = 0;
	if (softhca_hw_qp_dbrec(hw, dqp, &pi, NULL) ||
	    pi - dqp->rq_ci > BIT(dqp->log_rq_size)) {
		*synd = SOFTHCA_SYND_QUEUE_INDEX;
		return -1;
	}
	if (pi == dqp->rq_ci)
		return 1;
	*index = dqp->rq_ci;
	off = (u64)(dqp->rq_ci & (BIT(dqp->log_rq_size) - 1)) << dqp->log_rq_stride;
	nseg = min_t(u32, nseg, SOFTHCA_HW_WQE_SEGS);
	p = softhca_hw_pas_ptr(hw, &dqp->pas, off, nseg * 16);
	if (p) {
		softhca_hw_load_words(segs, p, nseg * 16);
	} else if (softhca_hw_pas_rw(hw, &dqp->pas, off, segs, nseg * 16,
				     false)) {
		*synd = SOFTHCA_SYND_QUEUE_INDEX;
		return -1;
	}
	*n = 0;
	*cap = 0;
	for (i = 0; i < nseg; i++) {
		u32 key = le32_to_cpu(segs[i].lkey);
		u32 len = le32_to_cpu(segs[i].byte_count);

		if (key == SOFTHCA_INVALID_LKEY)
			break;
		if (!len)
			continue;
		*synd = softhca_hw_mkey_check(hw, &dqp->lkey, key, dqp->pd,
					      SOFTHCA_ACCESS_LOCAL_WRITE,
					      le64_to_cpu(segs[i].addr), len,
					      false, &sges[*n].mkey);
		if (*synd)
			return -1;
		sges[*n].addr = le64_to_cpu(segs[i].addr);
		sges[*n].len = len;
		*cap += len;
		(*n)++;
	}
	return 0;
}

/* A transport timeout or RNR NAK: wait, or give up with @status. */
static enum softhca_hw_outcome softhca_hw_retry(struct softhca_hw_qp *qp,
						struct softhca_hw_wqe *w,
						bool rnr, u32 rnr_timer)
{
	u64 wait_us;

	if (rnr) {
		if (qp->attr.rnr_retry != 7 &&
		    qp->rnr_retries >= qp->attr.rnr_retry) {
			w->status = SOFTHCA_CQE_ST_RNR_RETRY_EXC;
			w->syndrome = SOFTHCA_SYND_RNR;
			return SOFTHCA_HW_DONE;
		}
		qp->rnr_retries++;
		wait_us = softhca_rnr_us[rnr_timer & 31];
	} else {
		/* the first attempt and retry_cnt retries each time out */
		if (qp->attr.timeout && qp->retries > qp->attr.retry_cnt) {
			w->status = SOFTHCA_CQE_ST_RETRY_EXC;
			w->syndrome = SOFTHCA_SYND_NO_RESPONDER;
			return SOFTHCA_HW_DONE;
		}
		qp->retries++;
		/* 4.096 us * 2^timeout; timeout 0 means forever: look again */
		wait_us = qp->attr.timeout ?
			  (4096ULL << qp->attr.timeout) / 1000 : USEC_PER_SEC;
	}
	qp->waiting = true;
	qp->deadline = ktime_add_us(ktime_get(), wait_us);
	return SOFTHCA_HW_WAIT;
}

/* The responder failed the request: its QP goes to error with @event. */
static void softhca_hw_responder_error(struct softhca_hw *hw,
				       struct softhca_hw_qp *dqp, u8 event,
				       u32 synd)
{
	softhca_hw_qp_to_error(hw, dqp, event, synd);
}

/*
 * SEND, SEND_IMM and RDMA_WRITE_IMM: the message consumes a receive WQE.
 * For RDMA_WRITE_IMM @remote is the (checked) target of the write: the
 * data lands there, and only then does the receive complete.
 */
static enum softhca_hw_outcome
softhca_hw_do_recv_side(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			struct softhca_hw_qp *dqp, struct softhca_hw_wqe *w,
			struct softhca_hw_sge *src, u32 nsrc,
			struct softhca_hw_sge *remote)
{
	struct softhca_hw_sge dst[SOFTHCA_HW_WQE_SEGS];
	u8 opcode = w->ctrl->opcode, flags = 0;
	bool is_write = opcode == SOFTHCA_WQE_RDMA_WRITE_IMM;
	u32 ndst = 0, synd;
	u64 cap = 0;
	u32 rindex;
	int ret;

	ret = softhca_hw_rq_take(hw, dqp, dst, &ndst, &cap, &rindex, &synd);
	if (ret > 0) {
		if (qp->type == SOFTHCA_QPT_UC) {
			/* dropped, but its packets were seen */
			softhca_hw_responder_took(qp, dqp, w);
			return SOFTHCA_HW_DONE;
		}
		return softhca_hw_retry(qp, w, true, dqp->attr.min_rnr_timer);
	}
	if (ret < 0) {
		/* the responder's receive WQE is bad: its local error */
		if (synd != SOFTHCA_SYND_QUEUE_INDEX) {
			softhca_hw_post_cqe(hw, dqp->rcq, dqp->qpn, rindex,
					    SOFTHCA_CQE_OP_RECV,
					    SOFTHCA_CQE_ST_LOC_PROT, synd, 0, 0,
					    0, qp->qpn);
			dqp->rq_ci++;
		}
		softhca_hw_responder_error(hw, dqp, synd ==
					   SOFTHCA_SYND_QUEUE_INDEX ?
					   SOFTHCA_EQE_QP_FATAL : 0, synd);
		if (qp->type == SOFTHCA_QPT_RC) {
			w->status = SOFTHCA_CQE_ST_REM_OP;
			w->syndrome = SOFTHCA_SYND_REMOTE_OP;
		}
		return SOFTHCA_HW_DONE;
	}
	qp->rnr_retries = 0;
	softhca_hw_responder_saw(hw, dqp);

	if (!is_write) {
		if (w->length > cap) {
			/* longer than the receive buffers */
			softhca_hw_post_cqe(hw, dqp->rcq, dqp->qpn, rindex,
					    SOFTHCA_CQE_OP_RECV,
					    SOFTHCA_CQE_ST_LOC_LEN,
					    SOFTHCA_SYND_RECV_LENGTH, 0, 0, 0,
					    qp->qpn);
			dqp->rq_ci++;
			softhca_hw_responder_error(hw, dqp, 0,
						   SOFTHCA_SYND_RECV_LENGTH);
			if (qp->type == SOFTHCA_QPT_RC) {
				w->status = SOFTHCA_CQE_ST_REM_INV_REQ;
				w->syndrome = SOFTHCA_SYND_RECV_LENGTH;
			}
			return SOFTHCA_HW_DONE;
		}
		softhca_hw_copy(hw, dst, ndst, src, nsrc, w->inline_data,
				w->length);
	} else if (remote->len) {
		softhca_hw_copy(hw, remote, 1, src, nsrc, w->inline_data,
				w->length);
	}
	if (opcode != SOFTHCA_WQE_SEND)
		flags |= SOFTHCA_CQE_F_IMM;
	if (w->ctrl->flags & SOFTHCA_WQE_F_SOLICITED)
		flags |= SOFTHCA_CQE_F_SOLICITED;
	dqp->rq_ci++;
	softhca_hw_responder_took(qp, dqp, w);
	softhca_hw_post_cqe(hw, dqp->rcq, dqp->qpn, rindex,
			    is_write ? SOFTHCA_CQE_OP_RECV_RDMA_IMM :
				       SOFTHCA_CQE_OP_RECV,
			    SOFTHCA_CQE_ST_SUCCESS, 0, w->length, flags,
			    w->ctrl->imm, qp->qpn);
	return SOFTHCA_HW_DONE;
}

/* Responder checks of an RDMA/atomic request: QP access, then the rkey. */
static u32 softhca_hw_rkey(struct softhca_hw *hw, struct softhca_hw_qp *dqp,
			   struct softhca_hw_wqe *w, u32 access, u64 len,
			   struct softhca_hw_sge *sge)
{
	u64 addr = le64_to_cpu(w->raddr->addr);

	if (!(le32_to_cpu(dqp->attr.access) & access))
		return SOFTHCA_SYND_QP_ACCESS;
	sge->addr = addr;
	sge->len = len;
	if (!len) {
		sge->mkey = NULL;
		return 0;
	}
	return softhca_hw_mkey_check(hw, &dqp->rkey,
				     le32_to_cpu(w->raddr->rkey), dqp->pd,
				     access, addr, len, true, &sge->mkey);
}

/* A failed responder check: both QPs learn of it. */
static enum softhca_hw_outcome
softhca_hw_remote_error(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			struct softhca_hw_qp *dqp, struct softhca_hw_wqe *w,
			u32 synd)
{
	bool access = synd != SOFTHCA_SYND_QP_ACCESS &&
		      synd != SOFTHCA_SYND_ATOMIC_ALIGN;

	if (qp->type == SOFTHCA_QPT_UC)
		return SOFTHCA_HW_DONE;		/* dropped */
	softhca_hw_responder_error(hw, dqp, access ?
				   SOFTHCA_EQE_QP_ACCESS_ERR :
				   SOFTHCA_EQE_QP_REQ_ERR, synd);
	w->status = access ? SOFTHCA_CQE_ST_REM_ACCESS :
			     SOFTHCA_CQE_ST_REM_INV_REQ;
	w->syndrome = synd;
	return SOFTHCA_HW_DONE;
}

static void softhca_hw_atomic(struct softhca_hw *hw, struct softhca_hw_wqe *w,
			      struct softhca_hw_sge *remote,
			      struct softhca_hw_sge *local)
{
	u64 swap = le64_to_cpu(w->atomic->swap_add);
	u64 cmp = le64_to_cpu(w->atomic->compare);
	__le64 orig;
	atomic64_t *target;
	u32 contig;

	target = softhca_hw_mkey_ptr(hw, remote->mkey, remote->addr, &contig);
	if (w->ctrl->opcode == SOFTHCA_WQE_ATOMIC_CS)
		orig = cpu_to_le64(atomic64_cmpxchg(target, cmp, swap));
	else
		orig = cpu_to_le64(atomic64_fetch_add(swap, target));
	softhca_hw_copy(hw, local, 1, NULL, 0, &orig, sizeof(orig));
}

static enum softhca_hw_outcome softhca_hw_execute(struct softhca_hw *hw,
						  struct softhca_hw_qp *qp,
						  struct softhca_hw_wqe *w)
{
	struct softhca_hw_sge local[SOFTHCA_HW_WQE_SEGS], remote;
	u8 opcode = w->ctrl->opcode;
	struct softhca_hw_qp *dqp;
	u32 nlocal = 0, synd, access = 0;

	w->status = SOFTHCA_CQE_ST_SUCCESS;
	w->syndrome = 0;
	if (!softhca_hw_opcode_ok(qp, opcode)) {
		w->status = SOFTHCA_CQE_ST_LOC_QP_OP;
		w->syndrome = SOFTHCA_SYND_WQE_OPCODE;
		return SOFTHCA_HW_DONE;
	}
	if (w->length > SOFTHCA_HW_MAX_MSG) {
		w->status = SOFTHCA_CQE_ST_LOC_LEN;
		w->syndrome = SOFTHCA_SYND_LOCAL_LENGTH;
		return SOFTHCA_HW_DONE;
	}
	if (opcode == SOFTHCA_WQE_RDMA_READ || w->atomic)
		access = SOFTHCA_ACCESS_LOCAL_WRITE;
	/* the original value lands in exactly one 8-byte SGE */
	if (w->atomic && (w->ndata != 1 || w->length != sizeof(u64))) {
		w->status = SOFTHCA_CQE_ST_LOC_LEN;
		w->syndrome = SOFTHCA_SYND_LOCAL_LENGTH;
		return SOFTHCA_HW_DONE;
	}
	synd = softhca_hw_local_sges(hw, qp, w, access, local, &nlocal);
	if (synd) {
		w->status = SOFTHCA_CQE_ST_LOC_PROT;
		w->syndrome = synd;
		return SOFTHCA_HW_DONE;
	}

	dqp = softhca_hw_responder(hw, qp);
	if (!dqp) {
		if (qp->type == SOFTHCA_QPT_UC)
			return SOFTHCA_HW_DONE;	/* sent into the void */
		return softhca_hw_retry(qp, w, false, 0);
	}
	/*
	 * An RC responder takes only the PSN it expects: a message out of
	 * sequence is NAKed, and retried until retry_cnt runs out.
	 */
	if (qp->type == SOFTHCA_QPT_RC && qp->attr.sq_psn != dqp->attr.rq_psn)
		return softhca_hw_retry(qp, w, false, 0);
	qp->retries = 0;

	switch (opcode) {
	case SOFTHCA_WQE_SEND:
	case SOFTHCA_WQE_SEND_IMM:
		return softhca_hw_do_recv_side(hw, qp, dqp, w, local, nlocal,
					       NULL);
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
		synd = softhca_hw_rkey(hw, dqp, w, SOFTHCA_ACCESS_REMOTE_WRITE,
				       w->length, &remote);
		if (synd)
			return softhca_hw_remote_error(hw, qp, dqp, w, synd);
		if (opcode == SOFTHCA_WQE_RDMA_WRITE_IMM)
			return softhca_hw_do_recv_side(hw, qp, dqp, w, local,
						       nlocal, &remote);
		softhca_hw_responder_saw(hw, dqp);
		softhca_hw_responder_took(qp, dqp, w);
		if (remote.len)
			softhca_hw_copy(hw, &remote, 1, local, nlocal,
					w->inline_data, w->length);
		return SOFTHCA_HW_DONE;
	case SOFTHCA_WQE_RDMA_READ:
		synd = softhca_hw_rkey(hw, dqp, w, SOFTHCA_ACCESS_REMOTE_READ,
				       w->length, &remote);
		if (synd)
			return softhca_hw_remote_error(hw, qp, dqp, w, synd);
		softhca_hw_responder_saw(hw, dqp);
		softhca_hw_responder_took(qp, dqp, w);
		if (remote.len)
			softhca_hw_copy(hw, local, nlocal, &remote, 1, NULL,
					w->length);
		return SOFTHCA_HW_DONE;
	default:	/* atomics */
		if (le64_to_cpu(w->raddr->addr) & 7)
			return softhca_hw_remote_error(hw, qp, dqp, w,
						       SOFTHCA_SYND_ATOMIC_ALIGN);
		synd = softhca_hw_rkey(hw, dqp, w, SOFTHCA_ACCESS_REMOTE_ATOMIC,
				       sizeof(u64), &remote);
		if (synd)
			return softhca_hw_remote_error(hw, qp, dqp, w, synd);
		softhca_hw_responder_saw(hw, dqp);
		softhca_hw_responder_took(qp, dqp, w);
		softhca_hw_atomic(hw, w, &remote, local);
		return SOFTHCA_HW_DONE;
	}
}

/* Complete a finished WQE: a CQE when signaled or failed. */
static void softhca_hw_sq_complete(struct softhca_hw *hw,
				   struct softhca_hw_qp *qp,
				   struct softhca_hw_wqe *w)
{
	bool signaled = (w->ctrl->flags & SOFTHCA_WQE_F_SIGNALED) ||
			(qp->flags & SOFTHCA_QP_SIG_ALL);

	if (signaled || w->status)
		softhca_hw_post_cqe(hw, qp->scq, qp->qpn, w->index,
				    softhca_hw_cqe_opcode(w->ctrl->opcode),
				    w->status, w->syndrome, w->length, 0, 0,
				    0);
}

/**
 * softhca_hw_sq_process - execute a QP's newly posted send WQEs
 * @hw: the card (engine lock held)
 * @qp: a QP in RTS
 * @next: lowered to this QP's deadline if it waits on a timer
 *
 * Only a QP waiting on a timer reads the clock: the common path does not
 * (a clock read can be slow: an HPET register access in a VM whose TSC is
 * unstable).
 *
 * Return: whether anything was executed.
 */
bool softhca_hw_sq_process(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			   ktime_t *next)
{
	struct softhca_hw_wqe *w;
	bool work = false;
	u32 pi, synd;
	u16 index;
	int n;

	if (qp->waiting) {
		if (ktime_before(ktime_get(), qp->deadline)) {
			*next = min(*next, qp->deadline);
			return false;
		}
		qp->waiting = false;
	}
	if (softhca_hw_qp_dbrec(hw, qp, NULL, &pi) ||
	    pi - qp->sq_ci > BIT(qp->log_sq_size)) {
		softhca_hw_qp_to_error(hw, qp, SOFTHCA_EQE_QP_FATAL,
				       SOFTHCA_SYND_QUEUE_INDEX);
		return true;
	}
	if (pi == qp->sq_ci)
		return false;

	w = hw->engine_wqe;
	for (n = 0; n < SOFTHCA_HW_SQ_BUDGET && qp->sq_ci != pi; n++) {
		synd = softhca_hw_wqe_fetch(hw, qp, pi, w);
		if (synd) {
			/* a malformed WQE is a local QP operation error */
			softhca_hw_post_cqe(hw, qp->scq, qp->qpn, qp->sq_ci,
					    SOFTHCA_CQE_OP_SEND,
					    SOFTHCA_CQE_ST_LOC_QP_OP, synd, 0,
					    0, 0, 0);
			index = le16_to_cpu(w->ctrl->wqe_index);
			qp->sq_ci += softhca_wqe_span(index, w->ctrl->ds,
						      qp->sq_ci, pi);
			softhca_hw_qp_to_error(hw, qp, 0, synd);
			work = true;
			break;
		}
		if (softhca_hw_execute(hw, qp, w) == SOFTHCA_HW_WAIT) {
			*next = min(*next, qp->deadline);
			break;
		}
		work = true;
		qp->retries = 0;
		qp->rnr_retries = 0;
		if (!w->status)
			softhca_hw_psn_add(&qp->attr.sq_psn,
					   softhca_hw_packets(qp, w->length));
		softhca_hw_sq_complete(hw, qp, w);
		qp->sq_ci += w->nbb;
		if (w->status) {
			softhca_hw_qp_to_error(hw, qp, 0, w->syndrome);
			break;
		}
	}
	return work;
}

/* The engine's scratch WQE (used under the engine lock). */
int softhca_hw_transport_init(struct softhca_hw *hw)
{
	hw->engine_wqe = kmalloc(sizeof(*hw->engine_wqe), GFP_KERNEL);
	return hw->engine_wqe ? 0 : -ENOMEM;
}

void softhca_hw_transport_cleanup(struct softhca_hw *hw)
{
	kfree(hw->engine_wqe);
}

/**
 * softhca_hw_qp_flush - complete everything posted to a QP in error
 * @hw: the card (engine lock held)
 * @qp: the QP
 *
 * Every send WQE (signaled or not) and every receive WQE completes with
 * WR_FLUSH_ERR.
 *
 * Return: whether anything was flushed.
 */
bool softhca_hw_qp_flush(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	u32 rq_pi, sq_pi, nbb;
	struct softhca_wqe_ctrl ctrl;
	bool work = false;

	if (softhca_hw_qp_dbrec(hw, qp, &rq_pi, &sq_pi))
		return false;
	if (sq_pi - qp->sq_ci > BIT(qp->log_sq_size))
		sq_pi = qp->sq_ci;	/* garbage: nothing to trust */
	if (rq_pi - qp->rq_ci > BIT(qp->log_rq_size))
		rq_pi = qp->rq_ci;
	while (qp->sq_ci != sq_pi) {
		if (softhca_hw_sq_read(hw, qp,
				       (u64)qp->sq_ci << SOFTHCA_LOG_WQEBB,
				       &ctrl, sizeof(ctrl)))
			break;
		nbb = softhca_wqe_span(le16_to_cpu(ctrl.wqe_index), ctrl.ds,
				       qp->sq_ci, sq_pi);
		softhca_hw_post_cqe(hw, qp->scq, qp->qpn, qp->sq_ci,
				    softhca_hw_cqe_opcode(ctrl.opcode),
				    SOFTHCA_CQE_ST_WR_FLUSH,
				    SOFTHCA_SYND_FLUSH, 0, 0, 0, 0);
		qp->sq_ci += nbb;
		work = true;
	}
	while (qp->rq_ci != rq_pi) {
		softhca_hw_post_cqe(hw, qp->rcq, qp->qpn, qp->rq_ci,
				    SOFTHCA_CQE_OP_RECV,
				    SOFTHCA_CQE_ST_WR_FLUSH,
				    SOFTHCA_SYND_FLUSH, 0, 0, 0, 0);
		qp->rq_ci++;
		work = true;
	}
	return work;
}

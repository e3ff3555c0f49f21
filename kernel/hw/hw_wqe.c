// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: reading the send queue. A send WQE is fetched from
 * the SQ ring (which it may wrap around), checked against the control
 * segment's index and size and the QP type's layout (include/softhca_prm.h
 * "Send WQEs"), and its segments located; a WQE that breaks a rule is
 * malformed and completes LOC_QP_OP_ERR.
 */
#include "hw.h"
#include "hw_trace.h"

/**
 * softhca_hw_sq_read - read bytes of the SQ ring
 * @hw: the card
 * @qp: the QP
 * @off: bytes into the ring (taken modulo its size)
 * @buf: where to
 * @len: bytes, a multiple of 16
 *
 * A range that neither wraps the ring nor crosses a PAS block is read a
 * word at a time.
 *
 * Return: 0, or -EFAULT if the QP's memory fails the DMA check.
 */
int softhca_hw_sq_read(struct softhca_hw *hw, struct softhca_hw_qp *qp,
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

u8 softhca_hw_cqe_opcode(u8 wqe_opcode)
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
	case SOFTHCA_WQE_LOCAL_INV:
		return SOFTHCA_CQE_OP_LOCAL_INV;
	case SOFTHCA_WQE_REG_MR:
		return SOFTHCA_CQE_OP_REG_MR;
	default:
		return SOFTHCA_CQE_OP_SEND;
	}
}

/*
 * The packets a message of @len bytes takes on a path of MTU code
 * @path_mtu (128 << path_mtu bytes: a shift, not a division).
 */
u32 softhca_hw_packets(u32 path_mtu, u64 len)
{
	u32 shift = 7 + path_mtu;

	return len ? (len + BIT_ULL(shift) - 1) >> shift : 1;
}

/* May a QP of this type (privileged or not) post @opcode? */
static bool softhca_hw_wqe_opcode_ok(struct softhca_hw_qp *qp, u8 opcode)
{
	bool priv = qp->flags & SOFTHCA_QP_PRIV;

	switch (qp->type) {
	case SOFTHCA_QPT_RC:
		if (opcode == SOFTHCA_WQE_LOCAL_INV ||
		    opcode == SOFTHCA_WQE_REG_MR)
			return priv;
		return opcode <= SOFTHCA_WQE_SEND_INV;
	case SOFTHCA_QPT_UC:
		if (opcode == SOFTHCA_WQE_LOCAL_INV ||
		    opcode == SOFTHCA_WQE_REG_MR)
			return priv;
		return opcode <= SOFTHCA_WQE_RDMA_WRITE_IMM;
	default:		/* UD, GSI */
		return opcode == SOFTHCA_WQE_SEND ||
		       opcode == SOFTHCA_WQE_SEND_IMM;
	}
}

/* Locate the segments of the fetched @w (of @units units). */
static u32 softhca_hw_wqe_parse(struct softhca_hw_qp *qp,
				struct softhca_hw_wqe *w, u32 units)
{
	bool ud = qp->type == SOFTHCA_QPT_UD || qp->type == SOFTHCA_QPT_GSI;
	u8 opcode = w->ctrl->opcode, *p = w->raw + SOFTHCA_WQE_DS_SIZE;
	u32 fixed = 1, i;

	w->raddr = NULL;
	w->atomic = NULL;
	w->av = NULL;
	w->reg = NULL;
	w->inline_data = NULL;
	w->inline_len = 0;
	w->data = NULL;
	w->ndata = 0;
	w->length = 0;
	if (!softhca_hw_wqe_opcode_ok(qp, opcode))
		return SOFTHCA_SYND_WQE_OPCODE;
	switch (opcode) {
	case SOFTHCA_WQE_SEND:
	case SOFTHCA_WQE_SEND_IMM:
		if (ud) {
			w->av = (const struct softhca_wqe_av *)p;
			fixed += sizeof(*w->av) / SOFTHCA_WQE_DS_SIZE;
		}
		break;
	case SOFTHCA_WQE_SEND_INV:
		break;
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
	case SOFTHCA_WQE_RDMA_READ:
		w->raddr = (const struct softhca_wqe_raddr *)p;
		fixed++;
		break;
	case SOFTHCA_WQE_ATOMIC_CS:
	case SOFTHCA_WQE_ATOMIC_FA:
		w->raddr = (const struct softhca_wqe_raddr *)p;
		w->atomic = (const struct softhca_wqe_atomic *)
			    (p + SOFTHCA_WQE_DS_SIZE);
		fixed += 2;
		break;
	case SOFTHCA_WQE_REG_MR:
		w->reg = (const struct softhca_wqe_reg_mr *)p;
		fixed += sizeof(*w->reg) / SOFTHCA_WQE_DS_SIZE;
		return units == fixed && !(w->ctrl->flags & SOFTHCA_WQE_F_INLINE) ?
		       0 : SOFTHCA_SYND_WQE_FORMAT;
	case SOFTHCA_WQE_LOCAL_INV:
		return units == 1 && !(w->ctrl->flags & SOFTHCA_WQE_F_INLINE) ?
		       0 : SOFTHCA_SYND_WQE_FORMAT;
	default:
		return SOFTHCA_SYND_WQE_OPCODE;
	}
	if (fixed > units)
		return SOFTHCA_SYND_WQE_FORMAT;
	p = w->raw + fixed * SOFTHCA_WQE_DS_SIZE;
	if (w->ctrl->flags & SOFTHCA_WQE_F_INLINE) {
		const struct softhca_wqe_inline *inl = (const void *)p;

		/* the card writes READ and atomic results through an SGE */
		if (opcode == SOFTHCA_WQE_RDMA_READ || w->atomic ||
		    fixed == units)
			return SOFTHCA_SYND_WQE_FORMAT;
		w->inline_len = le32_to_cpu(inl->byte_count);
		if (w->inline_len > (units - fixed) * SOFTHCA_WQE_DS_SIZE -
				     sizeof(*inl))
			return SOFTHCA_SYND_WQE_FORMAT;
		w->inline_data = p + sizeof(*inl);
		w->length = w->inline_len;
		return 0;
	}
	w->data = (const struct softhca_wqe_data *)p;
	w->ndata = units - fixed;
	for (i = 0; i < w->ndata; i++)
		w->length += le32_to_cpu(w->data[i].byte_count);
	return 0;
}

/**
 * softhca_hw_wqe_fetch - fetch and parse the send WQE at basic block @index
 * @hw: the card
 * @qp: the QP
 * @index: its first basic block (the SQ counter)
 * @pi: basic blocks posted (the WQE must lie before it)
 * @w: filled
 *
 * Return: 0, or SOFTHCA_SYND_WQE_FORMAT/_OPCODE for a malformed WQE (then
 * w->ctrl is what was read, zeroed if nothing could be).
 */
u32 softhca_hw_wqe_fetch(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			 u32 index, u32 pi, struct softhca_hw_wqe *w)
{
	u64 off = (u64)index << SOFTHCA_LOG_WQEBB;
	u32 units;

	w->nseg = 0;
	w->index = index;
	/* the first basic block (posted, since pi is past it) in one go */
	w->ctrl = (struct softhca_wqe_ctrl *)w->raw;
	if (softhca_hw_sq_read(hw, qp, off, w->raw, SOFTHCA_WQEBB_SIZE)) {
		memset(w->ctrl, 0, sizeof(*w->ctrl));	/* nothing to trust */
		w->nbb = 1;
		return SOFTHCA_SYND_WQE_FORMAT;
	}
	units = w->ctrl->ds;
	w->nbb = units ? softhca_wqe_bbs(units) : 1;
	trace_softhca_hw_wqe(hw, qp->qpn, index, w->ctrl->opcode, units,
			     w->nbb);
	if (!units || w->nbb > SOFTHCA_MAX_WQEBBS || w->nbb > pi - index ||
	    le16_to_cpu(w->ctrl->wqe_index) != (u16)index)
		return SOFTHCA_SYND_WQE_FORMAT;
	if (w->nbb > 1 &&
	    softhca_hw_sq_read(hw, qp, off + SOFTHCA_WQEBB_SIZE,
			       w->raw + SOFTHCA_WQEBB_SIZE,
			       units * SOFTHCA_WQE_DS_SIZE - SOFTHCA_WQEBB_SIZE))
		return SOFTHCA_SYND_WQE_FORMAT;
	return softhca_hw_wqe_parse(qp, w, units);
}

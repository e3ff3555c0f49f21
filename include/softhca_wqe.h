/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The softhca WQE encoder: builds send WQEs, receive WQEs and SRQ WQEs in a
 * queue's ring from a verb-neutral description. The driver's kernel QPs
 * (post_send, post_recv, post_srq_recv) and the user-space provider build
 * every WQE with these functions, so the card sees the same bytes from
 * both and the rules (which opcode a QP type takes, what a WQE may hold)
 * are written once. Layouts: include/softhca_prm.h.
 *
 * C, included from the kernel and from C++: no allocation, no locking; the
 * caller owns the ring and its producer index and checks for room.
 * Errors are negative errnos.
 */
#ifndef SOFTHCA_WQE_H
#define SOFTHCA_WQE_H

#include <asm/byteorder.h>
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

#include "softhca_prm.h"

/* A gather or scatter entry in CPU order (ib_sge, ibv_sge). */
struct softhca_wqe_sge {
	__u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * A send work request in CPU order. With SOFTHCA_WQE_F_INLINE in @flags
 * the bytes the gather list names are copied into the WQE: their
 * addresses are then pointers the caller can read (a kernel virtual
 * address in the driver, a user one in the provider).
 */
struct softhca_send_wr {
	__u8 opcode;			/* softhca_wqe_opcode */
	__u8 flags;			/* softhca_wqe_flags */
	__be32 imm;			/* SEND_IMM, RDMA_WRITE_IMM */
	__u32 inv_key;			/* SEND_INV, LOCAL_INV */
	__u64 remote_addr;		/* RDMA, atomics */
	__u32 rkey;
	__u64 swap_add;			/* ATOMIC_CS: swap; ATOMIC_FA: add */
	__u64 compare;			/* ATOMIC_CS */
	const struct softhca_wqe_sge *sg;
	__u32 num_sge;
	const struct softhca_wqe_av *av;	/* UD and GSI sends */
	const struct softhca_wqe_reg_mr *reg;	/* REG_MR */
};

/* A send queue: @wqe_cnt (a power of two) basic blocks at @buf. */
struct softhca_sq {
	void *buf;
	__u32 wqe_cnt;
};

/* What a QP's send queue was sized for (its caps). */
struct softhca_sq_caps {
	__u8 qp_type;			/* softhca_qp_type */
	__u8 priv;			/* a kernel QP: REG_MR, LOCAL_INV */
	__u32 max_sge;
	__u32 max_inline;
};

/* Copy @len bytes into the WQE at basic block @bb, @byte bytes in. */
static inline void softhca_sq_copy(const struct softhca_sq *sq, __u32 bb,
				   __u32 byte, const void *src, __u32 len)
{
	__u32 bytes = sq->wqe_cnt * SOFTHCA_WQEBB_SIZE;
	const __u8 *s = (const __u8 *)src;

	while (len) {
		__u32 off = (bb * SOFTHCA_WQEBB_SIZE + byte) & (bytes - 1);
		__u32 n = len < bytes - off ? len : bytes - off;

		__builtin_memcpy((__u8 *)sq->buf + off, s, n);
		s += n;
		byte += n;
		len -= n;
	}
}

/* May a QP of @caps post @opcode? */
static inline int softhca_wqe_opcode_ok(const struct softhca_sq_caps *caps,
					__u8 opcode)
{
	switch (opcode) {
	case SOFTHCA_WQE_SEND:
	case SOFTHCA_WQE_SEND_IMM:
		return 1;
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
		return caps->qp_type == SOFTHCA_QPT_RC ||
		       caps->qp_type == SOFTHCA_QPT_UC;
	case SOFTHCA_WQE_RDMA_READ:
	case SOFTHCA_WQE_ATOMIC_CS:
	case SOFTHCA_WQE_ATOMIC_FA:
	case SOFTHCA_WQE_SEND_INV:
		return caps->qp_type == SOFTHCA_QPT_RC;
	case SOFTHCA_WQE_LOCAL_INV:
	case SOFTHCA_WQE_REG_MR:
		return caps->priv && (caps->qp_type == SOFTHCA_QPT_RC ||
				      caps->qp_type == SOFTHCA_QPT_UC);
	default:
		return 0;
	}
}

static inline int softhca_wqe_is_ud(const struct softhca_sq_caps *caps)
{
	return caps->qp_type == SOFTHCA_QPT_UD ||
	       caps->qp_type == SOFTHCA_QPT_GSI;
}

/* Units of the segments before the data, for @opcode on @caps's QP. */
static inline __u32 softhca_wqe_fixed_ds(const struct softhca_sq_caps *caps,
					 __u8 opcode)
{
	switch (opcode) {
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
	case SOFTHCA_WQE_RDMA_READ:
		return 2;
	case SOFTHCA_WQE_ATOMIC_CS:
	case SOFTHCA_WQE_ATOMIC_FA:
		return 3;
	case SOFTHCA_WQE_REG_MR:
		return 1 + sizeof(struct softhca_wqe_reg_mr) /
			   SOFTHCA_WQE_DS_SIZE;
	case SOFTHCA_WQE_LOCAL_INV:
		return 1;
	default:		/* sends */
		return softhca_wqe_is_ud(caps) ?
		       1 + sizeof(struct softhca_wqe_av) / SOFTHCA_WQE_DS_SIZE :
		       1;
	}
}

/* Does @opcode carry data (a gather list or inline bytes)? */
static inline int softhca_wqe_has_data(__u8 opcode)
{
	return opcode != SOFTHCA_WQE_LOCAL_INV && opcode != SOFTHCA_WQE_REG_MR;
}

/**
 * softhca_wqe_size - check a send WR and size its WQE
 * @caps: the QP's send queue caps
 * @wr: the work request
 * @ds: the WQE's 16-byte units
 * @inline_len: its inline bytes (with SOFTHCA_WQE_F_INLINE)
 *
 * Return: 0, -EINVAL for an opcode the QP does not take, a gather list
 * longer than its max_sge, inline data longer than its max_inline (or
 * inline on READ and atomics, which land through an SGE), an atomic
 * without exactly one 8-byte SGE, or a UD send without an address, REG_MR
 * without its segment.
 */
static inline int softhca_wqe_size(const struct softhca_sq_caps *caps,
				   const struct softhca_send_wr *wr, __u32 *ds,
				   __u32 *inline_len)
{
	__u32 fixed = softhca_wqe_fixed_ds(caps, wr->opcode), i;
	__u64 len = 0;

	*inline_len = 0;
	if (!softhca_wqe_opcode_ok(caps, wr->opcode))
		return -EINVAL;
	if (softhca_wqe_is_ud(caps) && !wr->av)
		return -EINVAL;
	if (wr->opcode == SOFTHCA_WQE_REG_MR && !wr->reg)
		return -EINVAL;
	if (!softhca_wqe_has_data(wr->opcode)) {
		if (wr->num_sge || (wr->flags & SOFTHCA_WQE_F_INLINE))
			return -EINVAL;
		*ds = fixed;
		return 0;
	}
	if (wr->num_sge > caps->max_sge)
		return -EINVAL;
	if (wr->opcode == SOFTHCA_WQE_ATOMIC_CS ||
	    wr->opcode == SOFTHCA_WQE_ATOMIC_FA) {
		if (wr->num_sge != 1 || wr->sg[0].length != 8 ||
		    (wr->flags & SOFTHCA_WQE_F_INLINE))
			return -EINVAL;
	}
	if (wr->flags & SOFTHCA_WQE_F_INLINE) {
		if (wr->opcode == SOFTHCA_WQE_RDMA_READ)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg[i].length;
		if (len > caps->max_inline)
			return -EINVAL;
		*inline_len = (__u32)len;
		*ds = fixed + softhca_inline_ds(*inline_len);
	} else {
		*ds = fixed + wr->num_sge;
	}
	return softhca_wqe_bbs(*ds) > SOFTHCA_MAX_WQEBBS ? -EINVAL : 0;
}

/**
 * softhca_wqe_write - write the send WQE for @wr at basic block @bb
 * @sq: the send queue
 * @bb: the WQE's first basic block (the SQ's producer counter)
 * @caps: the QP's send queue caps
 * @wr: the work request, checked and sized by softhca_wqe_size()
 * @ds: its units
 * @inline_len: its inline bytes
 *
 * Return: the basic blocks the WQE takes.
 */
static inline __u32 softhca_wqe_write(const struct softhca_sq *sq, __u32 bb,
				      const struct softhca_sq_caps *caps,
				      const struct softhca_send_wr *wr,
				      __u32 ds, __u32 inline_len)
{
	__u32 byte = SOFTHCA_WQE_DS_SIZE, i;
	struct softhca_wqe_ctrl ctrl;

	__builtin_memset(&ctrl, 0, sizeof(ctrl));
	ctrl.wqe_index = __cpu_to_le16((__u16)bb);
	ctrl.opcode = wr->opcode;
	ctrl.ds = (__u8)ds;
	ctrl.flags = wr->flags;
	if (wr->opcode == SOFTHCA_WQE_SEND_INV ||
	    wr->opcode == SOFTHCA_WQE_LOCAL_INV)
		ctrl.imm = __cpu_to_be32(wr->inv_key);
	else
		ctrl.imm = wr->imm;
	softhca_sq_copy(sq, bb, 0, &ctrl, sizeof(ctrl));

	switch (wr->opcode) {
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
	case SOFTHCA_WQE_RDMA_READ:
	case SOFTHCA_WQE_ATOMIC_CS:
	case SOFTHCA_WQE_ATOMIC_FA: {
		struct softhca_wqe_raddr ra;

		__builtin_memset(&ra, 0, sizeof(ra));
		ra.addr = __cpu_to_le64(wr->remote_addr);
		ra.rkey = __cpu_to_le32(wr->rkey);
		softhca_sq_copy(sq, bb, byte, &ra, sizeof(ra));
		byte += sizeof(ra);
		if (wr->opcode == SOFTHCA_WQE_ATOMIC_CS ||
		    wr->opcode == SOFTHCA_WQE_ATOMIC_FA) {
			struct softhca_wqe_atomic at;

			at.swap_add = __cpu_to_le64(wr->swap_add);
			at.compare = __cpu_to_le64(wr->compare);
			softhca_sq_copy(sq, bb, byte, &at, sizeof(at));
			byte += sizeof(at);
		}
		break;
	}
	case SOFTHCA_WQE_REG_MR:
		softhca_sq_copy(sq, bb, byte, wr->reg, sizeof(*wr->reg));
		return softhca_wqe_bbs(ds);
	case SOFTHCA_WQE_LOCAL_INV:
		return softhca_wqe_bbs(ds);
	default:
		if (softhca_wqe_is_ud(caps)) {
			softhca_sq_copy(sq, bb, byte, wr->av, sizeof(*wr->av));
			byte += sizeof(*wr->av);
		}
		break;
	}

	if (wr->flags & SOFTHCA_WQE_F_INLINE) {
		struct softhca_wqe_inline ih;

		ih.byte_count = __cpu_to_le32(inline_len);
		softhca_sq_copy(sq, bb, byte, &ih, sizeof(ih));
		byte += sizeof(ih);
		for (i = 0; i < wr->num_sge; i++) {
			softhca_sq_copy(sq, bb, byte,
					(const void *)(unsigned long)wr->sg[i].addr,
					wr->sg[i].length);
			byte += wr->sg[i].length;
		}
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			struct softhca_wqe_data d;

			d.byte_count = __cpu_to_le32(wr->sg[i].length);
			d.lkey = __cpu_to_le32(wr->sg[i].lkey);
			d.addr = __cpu_to_le64(wr->sg[i].addr);
			softhca_sq_copy(sq, bb, byte, &d, sizeof(d));
			byte += sizeof(d);
		}
	}
	return softhca_wqe_bbs(ds);
}

/*
 * Write a receive WQE of @n segments into @wqe (an RQ WQE of @stride
 * bytes): the segments, then a terminator if they do not fill it.
 * Return: 0, or -EINVAL if @n segments do not fit.
 */
static inline int softhca_rwqe_write(void *wqe, __u32 stride,
				     const struct softhca_wqe_sge *sg, __u32 n)
{
	struct softhca_wqe_data *seg = (struct softhca_wqe_data *)wqe;
	__u32 room = stride / SOFTHCA_WQE_DS_SIZE, i;

	if (n > room)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		seg[i].byte_count = __cpu_to_le32(sg[i].length);
		seg[i].lkey = __cpu_to_le32(sg[i].lkey);
		seg[i].addr = __cpu_to_le64(sg[i].addr);
	}
	if (n < room) {
		seg[n].byte_count = 0;
		seg[n].lkey = __cpu_to_le32(SOFTHCA_INVALID_LKEY);
		seg[n].addr = 0;
	}
	return 0;
}

/*
 * Write the data segments of an SRQ WQE of @stride bytes (its next segment
 * stays as it is). Return: 0, or -EINVAL if @n segments do not fit.
 */
static inline int softhca_srq_wqe_write(void *wqe, __u32 stride,
					const struct softhca_wqe_sge *sg,
					__u32 n)
{
	return softhca_rwqe_write((__u8 *)wqe + sizeof(struct softhca_srq_next),
				  stride - sizeof(struct softhca_srq_next), sg,
				  n);
}

#endif /* SOFTHCA_WQE_H */

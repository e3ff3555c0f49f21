/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The uverbs ABI between softhca.ko and the provider: the driver-private
 * request and response structs that follow the core uverbs ones. Both sides
 * include this file; a change to any struct bumps SOFTHCA_UVERBS_ABI_VERSION.
 */
#ifndef SOFTHCA_ABI_H
#define SOFTHCA_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define SOFTHCA_UVERBS_ABI_VERSION	1

struct softhca_alloc_ucontext_resp {
	__aligned_u64 uar_mmap_offset;	/* mmap() offset of the UAR page */
	__u32 uar_index;
	__u32 cqe_size;			/* bytes */
	__u32 dbrec_align;		/* doorbell records' alignment */
	__u32 max_inline_data;
	__u32 max_sge;
	__u32 max_qp_wr;
};

struct softhca_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

struct softhca_create_cq_req {
	__aligned_u64 buf_addr;		/* the CQE ring, 2^n CQEs */
	__aligned_u64 db_addr;		/* struct softhca_cq_dbrec */
	__u32 cqe_size;			/* must be the context's cqe_size */
	__u32 reserved;
};

struct softhca_create_cq_resp {
	__u32 cqn;
	__u32 reserved;
};

/*
 * RESIZE_CQ: the new CQE ring (2^n CQEs for the core request's cqe + 1).
 * The response says where the card switched (the RESIZE_CQ command of
 * softhca_prm.h): the new ring starts at consumer index base, and the
 * CQEs [base, pi) are still in the old ring, for the provider to move.
 */
struct softhca_resize_cq_req {
	__aligned_u64 buf_addr;
	__u32 cqe_size;			/* must be the context's cqe_size */
	__u32 reserved;
};

struct softhca_resize_cq_resp {
	__u32 base;
	__u32 pi;
};

/*
 * CREATE_QP: the provider's buffer (RQ then SQ, see softhca_prm.h) and the
 * capabilities it reports to the application; the kernel checks that the
 * geometry holds them and reports the same ones from query_qp. A QP on an
 * SRQ has no RQ: log_rq_size, log_rq_stride, max_recv_wr and max_recv_sge
 * are 0 and the buffer is the SQ alone. UD QPs size their SQ for the
 * address vector of every send (softhca_sq_max_ds_qp()).
 */
struct softhca_create_qp_req {
	__aligned_u64 buf_addr;
	__aligned_u64 db_addr;		/* struct softhca_qp_dbrec */
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u8 log_sq_size;		/* send basic blocks */
	__u8 log_rq_size;		/* receive WQEs */
	__u8 log_rq_stride;		/* bytes per receive WQE */
	__u8 reserved0;
	__u32 reserved[2];
};

struct softhca_create_qp_resp {
	__u32 qpn;
	__u32 reserved;
};

/*
 * CREATE_AH: the provider keeps the address vector in user space and puts
 * it in each UD WQE (struct softhca_wqe_av); the kernel resolves what user
 * space cannot, the destination MAC of a RoCE address.
 */
struct softhca_create_ah_resp {
	__u8 dmac[6];
	__u8 reserved[2];
};

/*
 * CREATE_SRQ: the provider's WQE ring (2^log_size WQEs of 2^log_stride
 * bytes, linked into a free list by their next segments) and its doorbell
 * record; max_wr and max_sge are what it reports to the application.
 */
struct softhca_create_srq_req {
	__aligned_u64 buf_addr;
	__aligned_u64 db_addr;		/* struct softhca_srq_dbrec */
	__u32 max_wr;
	__u32 max_sge;
	__u8 log_size;
	__u8 log_stride;
	__u8 reserved0[6];
};

struct softhca_create_srq_resp {
	__u32 srqn;
	__u32 reserved;
};

/*
 * The driver's own uverbs objects and methods (RDMA_VERBS_IOCTL on the
 * command fd, in the driver namespace).
 *
 * SOFTHCA_IB_OBJECT_WAKE_FD is the card's wake-up doorbell as a file, one
 * per user context: SOFTHCA_WAKE_IOCTL on it rings SOFTHCA_REG_ENGINE_DB
 * with the QPN in the argument. A poster that finds the engine IDLE makes
 * this one call; it costs a plain ioctl, a third of a zero-WR post_send
 * through the uverbs write() path, which still works as the wake-up call
 * for providers without the file.
 *
 * SOFTHCA_CQ_DB_IOCTL on it rings the card's CQ doorbell
 * (SOFTHCA_REG_CQ_DB) for a CQ of the context, given by its CQN: a
 * provider that armed a CQ and then finds a CQE already waiting makes
 * this call, and the card raises the event at once (as an mlx5 HCA does
 * for an arm below its producer index).
 */
enum softhca_ib_objects {
	SOFTHCA_IB_OBJECT_WAKE_FD = (1U << UVERBS_ID_NS_SHIFT),
};

enum softhca_ib_wake_fd_methods {
	SOFTHCA_IB_METHOD_WAKE_FD_ALLOC = (1U << UVERBS_ID_NS_SHIFT),
};

enum softhca_ib_wake_fd_alloc_attrs {
	SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

/* ioctl(wake_fd, SOFTHCA_WAKE_IOCTL, qpn) */
#define SOFTHCA_WAKE_IOCTL	_IO(RDMA_IOCTL_MAGIC, 0x80)
/* ioctl(wake_fd, SOFTHCA_CQ_DB_IOCTL, cqn) */
#define SOFTHCA_CQ_DB_IOCTL	_IO(RDMA_IOCTL_MAGIC, 0x81)

#endif /* SOFTHCA_ABI_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The uverbs ABI between softhca.ko and the provider: the driver-private
 * request and response structs that follow the core uverbs ones. Both sides
 * include this file; a change to any struct bumps SOFTHCA_UVERBS_ABI_VERSION.
 */
#ifndef SOFTHCA_ABI_H
#define SOFTHCA_ABI_H

#include <linux/types.h>

#define SOFTHCA_UVERBS_ABI_VERSION	1

struct softhca_alloc_ucontext_resp {
	__aligned_u64 uar_mmap_offset;	/* mmap() offset of the UAR page */
	__u32 uar_index;
	__u32 cqe_size;			/* bytes */
	__u32 dbrec_align;		/* doorbell records' alignment */
	__u32 max_inline_data;
	__u32 max_sge;
	__u32 reserved;
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

#endif /* SOFTHCA_ABI_H */

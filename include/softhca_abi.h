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
	__u32 cqe_size;
	__u32 max_inline_data;
	__u32 max_sge;
	__u32 reserved;
};

#endif /* SOFTHCA_ABI_H */

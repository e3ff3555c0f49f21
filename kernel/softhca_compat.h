/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca driver: the few places where kernel versions differ. Kbuild
 * detects what the headers offer (see kernel/Kbuild); everything
 * version-specific lives here.
 */
#ifndef SOFTHCA_COMPAT_H
#define SOFTHCA_COMPAT_H

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "hw/hw_compat.h"

/* Debian's 6.1 moved the umem block iterator into <rdma/iter.h>. */
#ifdef SOFTHCA_HAVE_RDMA_ITER_H
#include <rdma/iter.h>
#endif

static inline void softhca_vma_mod_flags(struct vm_area_struct *vma,
					 vm_flags_t set, vm_flags_t clear)
{
#ifdef SOFTHCA_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * ib_core asks drivers for SRQs' restrack attributes from 6.5 on; 6.1 has
 * no such operation (softhca_debug.c's functions are built either way).
 */
#ifdef SOFTHCA_HAVE_RES_SRQ
#define SOFTHCA_RES_SRQ_OPS					\
	.fill_res_srq_entry = softhca_fill_res_srq_entry,	\
	.fill_res_srq_entry_raw = softhca_fill_res_srq_entry_raw,
#else
#define SOFTHCA_RES_SRQ_OPS
#endif

/*
 * 6.10 made dma_set_max_seg_size() return nothing (it warns when the
 * device has no DMA parameters); 6.1's returns -EIO then. Both report
 * that case here as -EIO.
 */
static inline int softhca_dma_set_max_seg_size(struct device *dev,
					       unsigned int size)
{
#ifdef SOFTHCA_HAVE_DMA_SEG_SIZE_VOID
	if (!dev->dma_parms)
		return -EIO;
	dma_set_max_seg_size(dev, size);
	return 0;
#else
	return dma_set_max_seg_size(dev, size);
#endif
}

/*
 * 6.12's ib_device_ops.create_cq takes the verb's attribute bundle (NULL
 * for a kernel CQ), 6.1's the driver's udata (NULL for a kernel CQ).
 * softhca_create_cq() takes the udata on every kernel; the ops table
 * points at SOFTHCA_CREATE_CQ_OP.
 */
int softhca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);

#ifdef SOFTHCA_HAVE_CREATE_CQ_ATTRS
static inline int softhca_create_cq_attrs(struct ib_cq *ibcq,
					  const struct ib_cq_init_attr *attr,
					  struct uverbs_attr_bundle *attrs)
{
	return softhca_create_cq(ibcq, attr,
				 attrs ? &attrs->driver_udata : NULL);
}

#define SOFTHCA_CREATE_CQ_OP softhca_create_cq_attrs
#else
#define SOFTHCA_CREATE_CQ_OP softhca_create_cq
#endif

#endif /* SOFTHCA_COMPAT_H */

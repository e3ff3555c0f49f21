/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca driver: the few places where kernel versions differ. Kbuild
 * detects what the headers offer (see kernel/Kbuild); everything
 * version-specific lives here.
 */
#ifndef SOFTHCA_COMPAT_H
#define SOFTHCA_COMPAT_H

#include <linux/mm.h>

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

#endif /* SOFTHCA_COMPAT_H */

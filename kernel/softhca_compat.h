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

#endif /* SOFTHCA_COMPAT_H */

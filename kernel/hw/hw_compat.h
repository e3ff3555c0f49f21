/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca device model: what differs between the kernels it builds on
 * (6.1, 6.12) and is needed without ib_core (the device model's trace
 * events). Probed by kernel/Kbuild; the driver's share is in
 * softhca_compat.h, which includes this one.
 */
#ifndef SOFTHCA_HW_COMPAT_H
#define SOFTHCA_HW_COMPAT_H

/*
 * 6.10 made TRACE_EVENT's __assign_str() take the field alone (the source
 * is the one __string() named); 6.1's takes the source again.
 */
#ifdef SOFTHCA_HAVE_ASSIGN_STR_1
#define softhca_assign_str(dst, src) __assign_str(dst)
#else
#define softhca_assign_str(dst, src) __assign_str(dst, src)
#endif

#endif /* SOFTHCA_HW_COMPAT_H */

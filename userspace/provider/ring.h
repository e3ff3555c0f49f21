/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca provider: ring arithmetic shared by CQs and work queues. Sizes
 * are powers of two; indexes are free-running 32-bit counters; an entry's
 * owner bit says in which pass over the ring the card wrote it
 * (softhca_ring_owner() in softhca_prm.h).
 */
#ifndef SOFTHCA_RING_H
#define SOFTHCA_RING_H

#include <cstdint>

#include "../../include/softhca_prm.h"

namespace softhca {

/* The smallest power of two >= n (n >= 1), or 0 if it would not fit. */
constexpr uint32_t align_queue_size(uint32_t n)
{
	uint32_t size = 1;

	while (size < n) {
		if (size & 0x80000000u)
			return 0;
		size <<= 1;
	}
	return size;
}

constexpr uint32_t log2_of_pow2(uint32_t n)
{
	uint32_t log = 0;

	while ((1u << log) < n)
		log++;
	return log;
}

/* CQ entries to allocate for a CQ that must hold @cqe completions. */
constexpr uint32_t cq_entries_for(uint32_t cqe)
{
	return cqe >= 0x80000000u ? 0 : align_queue_size(cqe + 1);
}

/*
 * Is the CQE with op_own @op_own new for consumer index @ci, in a ring of
 * 2^@log_size CQEs that starts at CQE @base (0, or where RESIZE_CQ put
 * the ring)?
 */
inline bool cqe_is_new(uint8_t op_own, uint32_t ci, uint32_t log_size,
		       uint32_t base = 0)
{
	return (op_own & SOFTHCA_CQE_OWNER) ==
	       softhca_cq_owner(ci, base, log_size);
}

} // namespace softhca

#endif /* SOFTHCA_RING_H */

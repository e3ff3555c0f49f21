/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca provider: ordering between the CPU and the card. The card is a
 * coherent bus master reading and writing host memory, so C++ fences are
 * the barriers: release before handing something over (a doorbell record,
 * a doorbell), acquire after seeing an owner bit, and a full fence between
 * a doorbell write and reading the card's engine state (Dekker-style).
 */
#ifndef SOFTHCA_MMIO_H
#define SOFTHCA_MMIO_H

#include <atomic>
#include <cstdint>
#include <endian.h>

namespace softhca {

/* Stores before this are visible to the card before stores after it. */
inline void to_device_barrier()
{
	std::atomic_thread_fence(std::memory_order_release);
}

/* Loads after this see what the card wrote before its owner bit. */
inline void from_device_barrier()
{
	std::atomic_thread_fence(std::memory_order_acquire);
}

/* Orders earlier stores before later loads. */
inline void full_barrier()
{
	std::atomic_thread_fence(std::memory_order_seq_cst);
}

inline void store_le32(void *p, uint32_t v)
{
	__atomic_store_n(static_cast<uint32_t *>(p), htole32(v),
			 __ATOMIC_RELAXED);
}

inline void store_le64(void *p, uint64_t v)
{
	__atomic_store_n(static_cast<uint64_t *>(p), htole64(v),
			 __ATOMIC_RELAXED);
}

inline uint32_t load_le32(const void *p)
{
	return le32toh(__atomic_load_n(static_cast<const uint32_t *>(p),
				       __ATOMIC_RELAXED));
}

inline uint8_t load_u8(const void *p)
{
	return __atomic_load_n(static_cast<const uint8_t *>(p),
			       __ATOMIC_RELAXED);
}

} // namespace softhca

#endif /* SOFTHCA_MMIO_H */

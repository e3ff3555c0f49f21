/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca provider: DmaBuf, a zeroed, page-aligned buffer the card reads or
 * writes by DMA (queues, doorbell record pages). It is ibv_dontfork_range()d
 * while it lives, so a fork() does not leave the parent a copy-on-write
 * page the card no longer sees, and freed (ibv_dofork_range, free) when it
 * goes.
 */
#ifndef SOFTHCA_DMABUF_H
#define SOFTHCA_DMABUF_H

#include <cstddef>
#include <cstdint>

namespace softhca {

class DmaBuf {
public:
	DmaBuf() = default;
	~DmaBuf()
	{
		reset();
	}
	DmaBuf(const DmaBuf &) = delete;
	DmaBuf &operator=(const DmaBuf &) = delete;
	DmaBuf(DmaBuf &&other) noexcept;
	DmaBuf &operator=(DmaBuf &&other) noexcept;

	/*
	 * @size bytes rounded up to a multiple of @align (a power of two, at
	 * least the page size), aligned to @align and zeroed. Return: 0 or
	 * an errno (nothing is held then).
	 */
	int alloc(size_t size, size_t align);
	/* Give the memory back (ibv_dofork_range, free). */
	void reset();

	uint8_t *data() const
	{
		return static_cast<uint8_t *>(p_);
	}
	size_t size() const
	{
		return size_;
	}

private:
	void *p_ = nullptr;
	size_t size_ = 0;
};

} // namespace softhca

#endif /* SOFTHCA_DMABUF_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "dmabuf.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "rdma_private.h"

namespace softhca {

DmaBuf::DmaBuf(DmaBuf &&other) noexcept : p_(other.p_), size_(other.size_)
{
	other.p_ = nullptr;
	other.size_ = 0;
}

DmaBuf &DmaBuf::operator=(DmaBuf &&other) noexcept
{
	if (this != &other) {
		reset();
		p_ = other.p_;
		size_ = other.size_;
		other.p_ = nullptr;
		other.size_ = 0;
	}
	return *this;
}

int DmaBuf::alloc(size_t size, size_t align)
{
	void *p = nullptr;

	reset();
	if (!size || !align || (align & (align - 1)))
		return EINVAL;
	size = (size + align - 1) & ~(align - 1);
	if (posix_memalign(&p, align, size))
		return ENOMEM;
	memset(p, 0, size);
	/* the card reads it by DMA: keep it out of fork()ed children */
	if (ibv_dontfork_range(p, size)) {
		std::free(p);
		return ENOMEM;
	}
	p_ = p;
	size_ = size;
	return 0;
}

void DmaBuf::reset()
{
	if (!p_)
		return;
	ibv_dofork_range(p_, size_);
	std::free(p_);
	p_ = nullptr;
	size_ = 0;
}

} // namespace softhca

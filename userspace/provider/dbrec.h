/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca provider: doorbell records. Records are small words the card
 * reads by DMA address; the kernel pins the page of each one, so they are
 * packed into pages carved into cache-line slots (as mlx5's dbrec.c does):
 * one bitmap per page, a list of pages, a mutex. A page is released when
 * its last slot is freed.
 */
#ifndef SOFTHCA_DBREC_H
#define SOFTHCA_DBREC_H

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "dmabuf.h"

namespace softhca {

class DbrecAllocator {
public:
	/* @page_size bytes per page, @slot_size bytes per record slot. */
	DbrecAllocator(size_t page_size, size_t slot_size);
	~DbrecAllocator();
	DbrecAllocator(const DbrecAllocator &) = delete;
	DbrecAllocator &operator=(const DbrecAllocator &) = delete;

	/* A zeroed, slot-aligned record, or nullptr with errno set. */
	void *alloc();
	/* Give back a record from alloc(). */
	void free(void *rec);
	/* Pages currently held. */
	size_t pages() const;

private:
	struct Page {
		Page *next = nullptr;
		Page *prev = nullptr;
		DmaBuf buf;
		uint64_t free_mask = 0; /* bit i set: slot i is free */
		unsigned used = 0;
	};

	Page *add_page();
	void release_page(Page *p);

	size_t page_size_;
	size_t slot_size_;
	unsigned slots_;
	uint64_t all_free_;
	Page *head_ = nullptr;
	mutable std::mutex mu_;
};

} // namespace softhca

#endif /* SOFTHCA_DBREC_H */

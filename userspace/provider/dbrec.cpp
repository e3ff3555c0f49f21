// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "dbrec.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "rdma_private.h"

namespace softhca {

DbrecAllocator::DbrecAllocator(size_t page_size, size_t slot_size)
    : page_size_(page_size), slot_size_(slot_size)
{
	size_t n = page_size / slot_size;

	slots_ = n > 64 ? 64 : static_cast<unsigned>(n);
	all_free_ = slots_ == 64 ? ~0ULL : (1ULL << slots_) - 1;
}

DbrecAllocator::~DbrecAllocator()
{
	Page *next;

	for (Page *p = head_; p; p = next) {
		next = p->next;
		delete p;
	}
	head_ = nullptr;
}

DbrecAllocator::Page *DbrecAllocator::add_page()
{
	auto *p = new (std::nothrow) Page{};

	if (!p) {
		errno = ENOMEM;
		return nullptr;
	}
	/* zeroed, page-aligned and kept out of fork()ed children */
	int err = p->buf.alloc(page_size_, page_size_);
	if (err) {
		delete p;
		errno = err;
		return nullptr;
	}
	p->free_mask = all_free_;
	p->next = head_;
	if (head_)
		head_->prev = p;
	head_ = p;
	return p;
}

void DbrecAllocator::release_page(Page *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		head_ = p->next;
	if (p->next)
		p->next->prev = p->prev;
	delete p;
}

void *DbrecAllocator::alloc()
{
	std::lock_guard<std::mutex> lock(mu_);
	Page *p;

	for (p = head_; p; p = p->next)
		if (p->free_mask)
			break;
	if (!p) {
		p = add_page();
		if (!p)
			return nullptr;
	}
	unsigned slot = static_cast<unsigned>(__builtin_ctzll(p->free_mask));

	p->free_mask &= ~(1ULL << slot);
	p->used++;
	void *rec = p->buf.data() + slot * slot_size_;
	memset(rec, 0, slot_size_);
	return rec;
}

void DbrecAllocator::free(void *rec)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto *addr = static_cast<unsigned char *>(rec);

	for (Page *p = head_; p; p = p->next) {
		unsigned char *base = p->buf.data();

		if (addr < base || addr >= base + page_size_)
			continue;
		size_t slot = static_cast<size_t>(addr - base) / slot_size_;

		p->free_mask |= 1ULL << slot;
		if (!--p->used)
			release_page(p);
		return;
	}
}

size_t DbrecAllocator::pages() const
{
	std::lock_guard<std::mutex> lock(mu_);
	size_t n = 0;

	for (Page *p = head_; p; p = p->next)
		n++;
	return n;
}

} // namespace softhca

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca provider: owning types for the memory behind the verbs objects.
 * Nothing here throws (the library is built with -fno-exceptions): every
 * allocation is new (std::nothrow) or posix_memalign, and failure is a
 * null pointer or an errno the caller checks.
 *
 *   Array<T>    a zeroed heap array
 *   DmaBuf      a buffer the card reads or writes by DMA (dmabuf.h)
 *   Dbrec<T>    a doorbell record from the context's DbrecAllocator
 *   SpinLock    a pthread spinlock (the data path's lock)
 */
#ifndef SOFTHCA_BUFFER_H
#define SOFTHCA_BUFFER_H

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <new>
#include <pthread.h>

#include "dbrec.h"
#include "dmabuf.h"

namespace softhca {

/*
 * An owning heap array, as std::unique_ptr<T[]> but standard-layout under
 * every compiler (clang does not count libstdc++'s unique_ptr as such): the
 * objects that hold these start with libibverbs' handle, and to_qp() and
 * friends rely on the handle being their first member (offsetof, pointer
 * interconvertibility).
 */
template <typename T>
class Array {
public:
	Array() = default;
	~Array()
	{
		delete[] p_;
	}
	Array(const Array &) = delete;
	Array &operator=(const Array &) = delete;

	/* @n value-initialised (zeroed) elements. Return: 0 or ENOMEM. */
	int alloc(size_t n)
	{
		reset();
		p_ = new (std::nothrow) T[n]();
		return p_ ? 0 : ENOMEM;
	}
	void reset()
	{
		delete[] p_;
		p_ = nullptr;
	}
	T *get() const
	{
		return p_;
	}
	T &operator[](size_t i) const
	{
		return p_[i];
	}
	explicit operator bool() const
	{
		return p_ != nullptr;
	}

private:
	T *p_ = nullptr;
};

/* A doorbell record of type @T, freed back to its allocator. */
template <typename T>
class Dbrec {
public:
	Dbrec() = default;
	~Dbrec()
	{
		reset();
	}
	Dbrec(const Dbrec &) = delete;
	Dbrec &operator=(const Dbrec &) = delete;

	/* Return: 0 or an errno. */
	int alloc(DbrecAllocator *a)
	{
		reset();
		void *rec = a->alloc();

		if (!rec)
			return errno ? errno : ENOMEM;
		alloc_ = a;
		rec_ = static_cast<T *>(rec);
		return 0;
	}
	void reset()
	{
		if (rec_ && alloc_) /* a borrowed record is not freed */
			alloc_->free(rec_);
		rec_ = nullptr;
		alloc_ = nullptr;
	}
	/* Point at a record someone else owns (host unit tests). */
	void borrow(T *rec)
	{
		reset();
		rec_ = rec;
	}
	T *get() const
	{
		return rec_;
	}
	T *operator->() const
	{
		return rec_;
	}

private:
	DbrecAllocator *alloc_ = nullptr;
	T *rec_ = nullptr;
};

class SpinLock {
public:
	SpinLock()
	{
		pthread_spin_init(&l_, PTHREAD_PROCESS_PRIVATE);
	}
	~SpinLock()
	{
		pthread_spin_destroy(&l_);
	}
	SpinLock(const SpinLock &) = delete;
	SpinLock &operator=(const SpinLock &) = delete;

	void lock()
	{
		pthread_spin_lock(&l_);
	}
	void unlock()
	{
		pthread_spin_unlock(&l_);
	}
	bool try_lock()
	{
		return pthread_spin_trylock(&l_) == 0;
	}

private:
	pthread_spinlock_t l_;
};

} // namespace softhca

#endif /* SOFTHCA_BUFFER_H */

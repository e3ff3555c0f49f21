// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <cerrno>
#include <new>

#include "softhca.h"

namespace softhca {

int QpTable::insert(uint32_t qpn, Qp *qp)
{
	uint32_t t = qpn >> kLeafBits;

	if (t >= kTopSize)
		return EINVAL;
	if (!top[t]) {
		top[t] = new (std::nothrow) Qp *[kLeafSize]();
		if (!top[t])
			return ENOMEM;
	}
	top[t][qpn & (kLeafSize - 1)] = qp;
	return 0;
}

void QpTable::remove(uint32_t qpn)
{
	uint32_t t = qpn >> kLeafBits;

	if (t < kTopSize && top[t])
		top[t][qpn & (kLeafSize - 1)] = nullptr;
}

void QpTable::clear()
{
	for (auto &leaf : top) {
		delete[] leaf;
		leaf = nullptr;
	}
}

} // namespace softhca

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "../provider/dbrec.h"

namespace {

using softhca::DbrecAllocator;

TEST(Dbrec, SlotsAreAlignedDistinctAndZeroed)
{
	DbrecAllocator a(4096, 64);
	std::set<uintptr_t> seen;

	for (int i = 0; i < 64; i++) {
		auto *rec = static_cast<uint32_t *>(a.alloc());
		ASSERT_NE(rec, nullptr);
		auto addr = reinterpret_cast<uintptr_t>(rec);
		EXPECT_EQ(addr % 64, 0u);
		EXPECT_TRUE(seen.insert(addr).second);
		EXPECT_EQ(rec[0], 0u);
		EXPECT_EQ(rec[1], 0u);
		rec[0] = 0xdeadbeef; /* dirty it for the reuse test */
	}
	/* 64 slots of 64 bytes: one 4 KiB page */
	EXPECT_EQ(a.pages(), 1u);
	uintptr_t base = *seen.begin() & ~uintptr_t(4095);
	for (auto addr : seen)
		EXPECT_EQ(addr & ~uintptr_t(4095), base);
}

TEST(Dbrec, SixtyFifthRecordTakesASecondPage)
{
	DbrecAllocator a(4096, 64);
	std::vector<void *> recs;

	for (int i = 0; i < 65; i++)
		recs.push_back(a.alloc());
	EXPECT_EQ(a.pages(), 2u);
	for (auto *r : recs)
		a.free(r);
	EXPECT_EQ(a.pages(), 0u);
}

TEST(Dbrec, PageReleasedOnlyWithItsLastRecord)
{
	DbrecAllocator a(4096, 64);
	void *x = a.alloc();
	void *y = a.alloc();

	a.free(x);
	EXPECT_EQ(a.pages(), 1u);
	a.free(y);
	EXPECT_EQ(a.pages(), 0u);
}

TEST(Dbrec, FreedSlotIsReusedAndZeroed)
{
	DbrecAllocator a(4096, 64);
	std::vector<uint32_t *> recs;

	for (int i = 0; i < 10; i++) {
		recs.push_back(static_cast<uint32_t *>(a.alloc()));
		recs.back()[0] = 7;
	}
	a.free(recs[4]);
	auto *again = static_cast<uint32_t *>(a.alloc());
	EXPECT_EQ(again, recs[4]);
	EXPECT_EQ(again[0], 0u);
	EXPECT_EQ(a.pages(), 1u);
}

TEST(Dbrec, FillsHolesBeforeAddingPages)
{
	DbrecAllocator a(4096, 64);
	std::vector<void *> recs;

	for (int i = 0; i < 128; i++)
		recs.push_back(a.alloc());
	EXPECT_EQ(a.pages(), 2u);
	a.free(recs[3]);   /* a hole in the first page */
	a.free(recs[100]); /* and one in the second */
	void *p = a.alloc();
	void *q = a.alloc();
	EXPECT_TRUE((p == recs[3] && q == recs[100]) ||
		    (p == recs[100] && q == recs[3]));
	EXPECT_EQ(a.pages(), 2u);
	for (auto *r : recs)
		a.free(r);
	EXPECT_EQ(a.pages(), 0u);
}

TEST(Dbrec, LargerSlotsFewerPerPage)
{
	DbrecAllocator a(4096, 128);
	std::vector<void *> recs;

	for (int i = 0; i < 32; i++) {
		recs.push_back(a.alloc());
		EXPECT_EQ(reinterpret_cast<uintptr_t>(recs.back()) % 128, 0u);
	}
	EXPECT_EQ(a.pages(), 1u);
	recs.push_back(a.alloc());
	EXPECT_EQ(a.pages(), 2u);
	for (auto *r : recs)
		a.free(r);
}

} // namespace

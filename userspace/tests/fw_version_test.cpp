// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include "../provider/softhca.h"

namespace {

std::string fw(uint64_t v, size_t len = 64)
{
	char buf[64];

	softhca::format_fw_version(v, buf, len);
	return buf;
}

TEST(FwVersion, MajorMinorSub)
{
	EXPECT_EQ(fw(1ULL << 32), "1.0.0");
	EXPECT_EQ(fw(2ULL << 32 | 3 << 16 | 4), "2.3.4");
}

TEST(FwVersion, FieldLimits)
{
	EXPECT_EQ(fw(0xffffffffULL << 32 | 0xffffffffULL),
		  "4294967295.65535.65535");
	EXPECT_EQ(fw(0), "0.0.0");
}

TEST(FwVersion, TruncatesToBuffer)
{
	EXPECT_EQ(fw(12ULL << 32 | 34 << 16 | 56, 5), "12.3");
}

} // namespace

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include "../provider/rdma_abi.h"

namespace {

using softhca::rdma_abi::built_for;
using softhca::rdma_abi::release_of_path;
using softhca::rdma_abi::serves;

TEST(RdmaAbi, ReleaseOfPath)
{
	EXPECT_EQ(release_of_path(
			  "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
		  44U);
	EXPECT_EQ(release_of_path(
			  "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.56.1"),
		  56U);
	EXPECT_EQ(release_of_path("libibverbs.so.1.14.56"), 56U);
	EXPECT_EQ(release_of_path("/opt/rdma/lib/libibverbs.so.1.15.123.45"),
		  123U);
}

TEST(RdmaAbi, ReleaseOfOtherNames)
{
	EXPECT_EQ(release_of_path(nullptr), 0U);
	EXPECT_EQ(release_of_path(""), 0U);
	/* the links, not the file: no release in them */
	EXPECT_EQ(release_of_path("/usr/lib/libibverbs.so.1"), 0U);
	EXPECT_EQ(release_of_path("/usr/lib/libibverbs.so"), 0U);
	EXPECT_EQ(release_of_path("/usr/lib/libmlx5.so.1.24.44.0"), 0U);
	EXPECT_EQ(release_of_path("/usr/lib/libibverbs.so.1.14.44.0.old"), 0U);
	EXPECT_EQ(release_of_path("/usr/lib/libibverbs.so.1.14.x.0"), 0U);
	EXPECT_EQ(release_of_path("/usr/lib/libibverbs.so.1.14.44x"), 0U);
	EXPECT_EQ(release_of_path("/usr/lib/libibverbs.so.1.14.99999999999"),
		  0U);
	/* a directory named like the library does not count */
	EXPECT_EQ(release_of_path("/libibverbs.so.1.14.44.0/x"), 0U);
}

TEST(RdmaAbi, EpochsOfTheStructChanges)
{
	/* 44's build: not 45's (ibv_qp_ex grows), nor 56's */
	EXPECT_TRUE(serves(44, 44));
	EXPECT_FALSE(serves(44, 45));
	EXPECT_FALSE(serves(44, 56));
	/* 56's build: 49 (active_speed_ex) up to 56 */
	EXPECT_TRUE(serves(56, 56));
	EXPECT_TRUE(serves(56, 49));
	EXPECT_FALSE(serves(56, 48));
	EXPECT_FALSE(serves(56, 44));
	/* releases whose headers nobody read */
	EXPECT_FALSE(serves(56, 57));
	EXPECT_FALSE(serves(44, 43));
	EXPECT_FALSE(serves(56, 0));
	EXPECT_FALSE(serves(60, 60));
}

/* The host tests link the libibverbs the provider was built against. */
TEST(RdmaAbi, ThisProcessIsServed)
{
	EXPECT_EQ(softhca::rdma_abi::running_release(), built_for);
	EXPECT_TRUE(softhca::rdma_abi::check(built_for));
}

TEST(RdmaAbi, RefusalSaysWhy)
{
	unsigned other = built_for == 44 ? 56 : 44;

	testing::internal::CaptureStderr();
	EXPECT_FALSE(softhca::rdma_abi::check(other));
	EXPECT_FALSE(softhca::rdma_abi::check(other));
	std::string said = testing::internal::GetCapturedStderr();
	EXPECT_NE(said.find("built for rdma-core " + std::to_string(built_for)),
		  std::string::npos)
		<< said;
	EXPECT_NE(said.find("not " + std::to_string(other)), std::string::npos)
		<< said;
	/* once per process, not once per device */
	EXPECT_EQ(said.find("softhca:"), said.rfind("softhca:")) << said;
}

} // namespace

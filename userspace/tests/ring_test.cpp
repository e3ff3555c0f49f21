// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include "../provider/ring.h"

namespace {

using namespace softhca;

TEST(Ring, AlignQueueSize)
{
	EXPECT_EQ(align_queue_size(1), 1u);
	EXPECT_EQ(align_queue_size(2), 2u);
	EXPECT_EQ(align_queue_size(3), 4u);
	EXPECT_EQ(align_queue_size(64), 64u);
	EXPECT_EQ(align_queue_size(65), 128u);
	EXPECT_EQ(align_queue_size(0x80000000u), 0x80000000u);
	EXPECT_EQ(align_queue_size(0x80000001u), 0u);
}

TEST(Ring, CqEntriesHoldOneMoreThanAsked)
{
	/* as mlx5: align_queue_size(cqe + 1) */
	EXPECT_EQ(cq_entries_for(1), 2u);
	EXPECT_EQ(cq_entries_for(63), 64u);
	EXPECT_EQ(cq_entries_for(64), 128u);
	EXPECT_EQ(cq_entries_for(4096), 8192u);
	EXPECT_EQ(cq_entries_for(65535), 65536u);
	EXPECT_EQ(cq_entries_for((1u << 22) - 1), 1u << 22);
	EXPECT_EQ(cq_entries_for(0x80000000u), 0u);
}

TEST(Ring, Log2)
{
	EXPECT_EQ(log2_of_pow2(1), 0u);
	EXPECT_EQ(log2_of_pow2(2), 1u);
	EXPECT_EQ(log2_of_pow2(65536), 16u);
}

/* A producer writing owner bits and a consumer checking them, over many
 * wraps: only what the producer wrote this pass is new. */
TEST(Ring, OwnerBitAcrossWraps)
{
	for (uint32_t log = 0; log <= 6; log++) {
		uint32_t n = 1u << log;
		std::vector<uint8_t> owner(n, SOFTHCA_CQE_OWNER);
		uint32_t pi = 0, ci = 0;

		for (int step = 0; step < 1000; step++) {
			/* nothing new when the consumer has caught up */
			EXPECT_FALSE(cqe_is_new(owner[ci & (n - 1)], ci, log));
			uint32_t burst = 1 + step % n;
			for (uint32_t k = 0; k < burst; k++, pi++)
				owner[pi & (n - 1)] =
					softhca_ring_owner(pi, log);
			for (uint32_t k = 0; k < burst; k++, ci++)
				ASSERT_TRUE(cqe_is_new(owner[ci & (n - 1)], ci,
						       log))
					<< "log " << log << " ci " << ci;
		}
	}
}

TEST(Ring, CounterWrapsAt32Bits)
{
	uint32_t log = 4;
	uint32_t ci = 0xfffffff0u;

	/* pass parity of the last pass before the 32-bit wrap, then after */
	EXPECT_EQ(softhca_ring_owner(ci, log), (ci >> log) & 1);
	EXPECT_EQ(softhca_ring_owner(ci + 16, log), 0u);
	EXPECT_TRUE(cqe_is_new(softhca_ring_owner(ci + 16, log), ci + 16, log));
	EXPECT_FALSE(cqe_is_new(softhca_ring_owner(ci, log), ci + 16, log));
}

TEST(Ring, ArmWordRoundTrip)
{
	for (uint32_t sn = 0; sn < 8; sn++) {
		for (int sol = 0; sol < 2; sol++) {
			uint32_t ci = 0x00abcdefu + sn;
			uint32_t arm = softhca_cq_arm(sn, sol, ci);

			EXPECT_EQ(softhca_cq_arm_sn(arm), sn & 3);
			EXPECT_EQ(arm & SOFTHCA_CQ_ARM_CI_MASK,
				  ci & SOFTHCA_CQ_ARM_CI_MASK);
			EXPECT_EQ(!!(arm & SOFTHCA_CQ_ARM_SOLICITED), sol);
			EXPECT_TRUE(arm & SOFTHCA_CQ_ARM_REQUEST);
			uint64_t db = softhca_cq_db(arm, 0x1234);
			EXPECT_EQ(db >> 32, arm);
			EXPECT_EQ(db & 0xffffffffu, 0x1234u);
		}
	}
	/* the consumer index keeps only its low 24 bits */
	EXPECT_EQ(softhca_cq_arm(0, 0, 0x01000005u) & SOFTHCA_CQ_ARM_CI_MASK,
		  5u);
}

} // namespace

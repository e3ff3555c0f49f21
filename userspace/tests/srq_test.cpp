// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SRQ's free list, on a ring in plain memory: posting, the card taking
 * WQEs by following the links from index 0, completions in any order.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <endian.h>
#include <random>
#include <vector>

#include "../provider/ring.h"
#include "../provider/softhca.h"

namespace {

using namespace softhca;

struct FakeSrq {
	Srq srq = {};
	std::vector<uint8_t> ring;
	softhca_srq_dbrec db = {};
	uint32_t card_head = 0; /* the card's next WQE, as the PRM says */
	uint32_t card_taken = 0;

	FakeSrq(uint32_t wqe_cnt, uint32_t stride)
	    : ring(static_cast<size_t>(wqe_cnt) * stride, 0xee)
	{
		srq.wqe_cnt = wqe_cnt;
		srq.stride = stride;
		srq.max_wr = wqe_cnt - 1;
		srq.max_sge = (stride - 16) / 16;
		EXPECT_EQ(srq_alloc_queues(&srq), 0);
		srq.ring = ring.data();
		srq.db.borrow(&db);
		srq_init_ring(&srq);
	}
	softhca_srq_next next(uint32_t idx) const
	{
		softhca_srq_next n;

		memcpy(&n, &ring[idx * srq.stride], sizeof(n));
		return n;
	}
	softhca_wqe_data data(uint32_t idx, uint32_t i) const
	{
		softhca_wqe_data d;

		memcpy(&d, &ring[idx * srq.stride + 16 + i * 16], sizeof(d));
		return d;
	}
	int post(uint64_t wr_id, uint64_t addr = 0x1000)
	{
		ibv_sge sg = { addr, 256, 0x77 };
		ibv_recv_wr wr = {}, *bad = nullptr;

		wr.wr_id = wr_id;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		return srq_post(&srq, &wr, &bad);
	}
	/* What the card does: take the next posted WQE by the links. */
	bool card_take(uint32_t *idx)
	{
		if (card_taken == le32toh(db.wqe_counter))
			return false;
		*idx = card_head;
		card_head = le16toh(next(card_head).next_wqe_index);
		card_taken++;
		return true;
	}
};

TEST(SrqGeometry, OneMoreWqeThanAskedAndRoomForTheNextSegment)
{
	uint32_t cnt, stride;

	ASSERT_EQ(srq_geometry(500, 1, 32768, 16, &cnt, &stride), 0);
	EXPECT_EQ(cnt, 512u);
	EXPECT_EQ(stride, 32u); /* next segment + one data segment */
	ASSERT_EQ(srq_geometry(511, 3, 32768, 16, &cnt, &stride), 0);
	EXPECT_EQ(cnt, 512u);
	EXPECT_EQ(stride, 64u);
	ASSERT_EQ(srq_geometry(512, 16, 32768, 16, &cnt, &stride), 0);
	EXPECT_EQ(cnt, 1024u);
	EXPECT_EQ(stride, 512u);
	EXPECT_EQ(srq_geometry(1, 17, 32768, 16, &cnt, &stride), EINVAL);
	EXPECT_EQ(srq_geometry(40000, 1, 32768, 16, &cnt, &stride), EINVAL);
	/* a 16-bit link cannot name more than 65536 WQEs */
	EXPECT_EQ(srq_geometry(65536, 1, 1u << 20, 16, &cnt, &stride), EINVAL);
}

TEST(SrqFreeList, InitialLinksHeadAndTail)
{
	FakeSrq f(8, 32);

	for (uint32_t i = 0; i < 8; i++)
		EXPECT_EQ(le16toh(f.next(i).next_wqe_index), (i + 1) % 8);
	EXPECT_EQ(f.srq.head, 0u);
	EXPECT_EQ(f.srq.tail, 7u);
	EXPECT_EQ(le32toh(f.db.wqe_counter), 0u);
}

TEST(SrqFreeList, PostWritesTheHeadWqeAndCountsIt)
{
	FakeSrq f(4, 64);
	ibv_sge sg[2] = { { 0x1000, 10, 0x1 }, { 0x2000, 20, 0x2 } };
	ibv_recv_wr wr[2] = {}, *bad = nullptr;

	wr[0].wr_id = 100;
	wr[0].sg_list = sg;
	wr[0].num_sge = 2;
	wr[0].next = &wr[1];
	wr[1].wr_id = 101;
	wr[1].sg_list = sg;
	wr[1].num_sge = 1;
	ASSERT_EQ(srq_post(&f.srq, wr, &bad), 0);
	EXPECT_EQ(le32toh(f.db.wqe_counter), 2u);
	EXPECT_EQ(f.srq.head, 2u);
	/* the next segment is left as it was; data segments after it */
	EXPECT_EQ(le16toh(f.next(0).next_wqe_index), 1u);
	EXPECT_EQ(le64toh(f.data(0, 1).addr), 0x2000u);
	EXPECT_EQ(le32toh(f.data(0, 1).byte_count), 20u);
	EXPECT_EQ(le32toh(f.data(0, 1).lkey), 0x2u);
	EXPECT_EQ(le32toh(f.data(0, 2).lkey), SOFTHCA_INVALID_LKEY);
	EXPECT_EQ(le32toh(f.data(1, 1).lkey), SOFTHCA_INVALID_LKEY);
	/* too many SGEs: refused, nothing counted */
	wr[0].num_sge = 4; /* a 64-byte WQE holds 3 */
	wr[0].next = nullptr;
	EXPECT_EQ(srq_post(&f.srq, wr, &bad), EINVAL);
	EXPECT_EQ(bad, &wr[0]);
	EXPECT_EQ(le32toh(f.db.wqe_counter), 2u);
}

TEST(SrqFreeList, FullKeepsTheTailAndCompletionsMakeRoom)
{
	FakeSrq f(4, 32);
	ibv_sge sg = { 0x1000, 8, 1 };
	ibv_recv_wr wr = {}, *bad = nullptr;
	uint64_t wr_id;
	uint32_t idx;

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(f.post(10 + i), 0);
	/* three posted, one left: the tail, which is never posted */
	wr.sg_list = &sg;
	wr.num_sge = 1;
	EXPECT_EQ(srq_post(&f.srq, &wr, &bad), ENOMEM);
	EXPECT_EQ(bad, &wr);
	EXPECT_EQ(le32toh(f.db.wqe_counter), 3u);

	/* the card takes all three; WQE 1 completes first */
	for (uint32_t want = 0; want < 3; want++) {
		ASSERT_TRUE(f.card_take(&idx));
		EXPECT_EQ(idx, want);
	}
	EXPECT_FALSE(f.card_take(&idx));
	ASSERT_TRUE(srq_complete(&f.srq, 1, &wr_id));
	EXPECT_EQ(wr_id, 11u);
	EXPECT_EQ(f.srq.tail, 1u);
	EXPECT_EQ(le16toh(f.next(3).next_wqe_index), 1u);
	/* completing it twice, or a WQE never posted, is refused */
	EXPECT_FALSE(srq_complete(&f.srq, 1, &wr_id));
	EXPECT_FALSE(srq_complete(&f.srq, 3, &wr_id));
	EXPECT_FALSE(srq_complete(&f.srq, 9, &wr_id));

	/* room for one: the old tail 3, whose link now leads to 1 */
	ASSERT_EQ(f.post(13), 0);
	EXPECT_EQ(srq_post(&f.srq, &wr, &bad), ENOMEM);
	ASSERT_TRUE(f.card_take(&idx));
	EXPECT_EQ(idx, 3u);
	ASSERT_TRUE(srq_complete(&f.srq, 3, &wr_id));
	EXPECT_EQ(wr_id, 13u);
	ASSERT_TRUE(srq_complete(&f.srq, 0, &wr_id));
	EXPECT_EQ(wr_id, 10u);
	ASSERT_TRUE(srq_complete(&f.srq, 2, &wr_id));
	EXPECT_EQ(wr_id, 12u);
	/* all free again: three more fit, and the card finds them in order */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(f.post(20 + i), 0);
	EXPECT_EQ(srq_post(&f.srq, &wr, &bad), ENOMEM);
	for (int i = 0; i < 3; i++) {
		ASSERT_TRUE(f.card_take(&idx));
		EXPECT_EQ(f.srq.wrid[idx], 20u + i);
	}
}

/*
 * Random traffic: the card always takes WQEs in the order they were
 * posted, each with its own wr_id and addresses, whatever order they
 * complete in; the SRQ always holds wqe_cnt - 1.
 */
TEST(SrqFreeList, RandomCompletionOrder)
{
	FakeSrq f(16, 32);
	std::mt19937 rng(12345);
	std::deque<uint64_t> posted;	   /* in post order, not taken */
	std::vector<uint32_t> outstanding; /* taken, not completed */
	uint64_t next_id = 1, wr_id;
	uint32_t idx;

	for (int step = 0; step < 5000; step++) {
		switch (rng() % 3) {
		case 0: {
			int err = f.post(next_id, next_id << 12);

			if (posted.size() + outstanding.size() < 15) {
				ASSERT_EQ(err, 0);
				posted.push_back(next_id++);
			} else {
				ASSERT_EQ(err, ENOMEM);
			}
			break;
		}
		case 1:
			if (!f.card_take(&idx)) {
				ASSERT_TRUE(posted.empty());
				break;
			}
			ASSERT_FALSE(posted.empty());
			EXPECT_EQ(f.srq.wrid[idx], posted.front());
			EXPECT_EQ(le64toh(f.data(idx, 0).addr), posted.front()
									<< 12);
			posted.pop_front();
			outstanding.push_back(idx);
			break;
		default:
			if (outstanding.empty())
				break;
			size_t k = rng() % outstanding.size();

			ASSERT_TRUE(
				srq_complete(&f.srq, outstanding[k], &wr_id));
			outstanding.erase(outstanding.begin() +
					  static_cast<long>(k));
			break;
		}
	}
	EXPECT_GT(next_id, 1000u);
}

} // namespace

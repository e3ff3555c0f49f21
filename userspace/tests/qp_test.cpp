// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* QP geometry and send WQE building, on an SQ in plain memory. */
#include <gtest/gtest.h>

#include <cstring>
#include <endian.h>
#include <vector>

#include "../provider/ring.h"
#include "../provider/softhca.h"

namespace {

using namespace softhca;

ibv_qp_cap caps(uint32_t wr, uint32_t sge, uint32_t inl)
{
	ibv_qp_cap c = {};

	c.max_send_wr = wr;
	c.max_recv_wr = wr;
	c.max_send_sge = sge;
	c.max_recv_sge = sge;
	c.max_inline_data = inl;
	return c;
}

TEST(QpGeometry, SmallQp)
{
	QpGeometry g;

	ASSERT_EQ(qp_geometry(caps(1, 1, 0), 32768, 16, 256, &g), 0);
	EXPECT_EQ(g.wqe_bbs, 1u); /* 4 units: an atomic's */
	EXPECT_EQ(g.sq_wqe_cnt, 1u);
	EXPECT_EQ(g.max_send_wr, 1u);
	EXPECT_EQ(g.max_send_sge, 2u); /* all that fits in one block */
	EXPECT_EQ(g.max_inline_data, 28u);
	EXPECT_EQ(g.rq_wqe_cnt, 1u);
	EXPECT_EQ(g.rq_stride, 16u);
	EXPECT_EQ(g.max_recv_sge, 1u);
}

TEST(QpGeometry, ReportsAtLeastWhatWasAsked)
{
	for (uint32_t wr : { 1u, 10u, 100u, 1000u, 32768u })
		for (uint32_t sge : { 1u, 3u, 7u, 16u })
			for (uint32_t inl : { 0u, 1u, 64u, 200u, 256u }) {
				QpGeometry g;

				ASSERT_EQ(qp_geometry(caps(wr, sge, inl), 32768,
						      16, 256, &g),
					  0);
				EXPECT_GE(g.max_send_wr, wr);
				EXPECT_GE(g.max_send_sge, sge);
				EXPECT_GE(g.max_inline_data, inl);
				EXPECT_GE(g.max_recv_wr, wr);
				EXPECT_GE(g.max_recv_sge, sge);
				/* the geometry holds what it reports */
				uint32_t ds = softhca_sq_max_ds(
					g.max_send_sge, g.max_inline_data);
				EXPECT_LE(softhca_wqe_bbs(ds), g.wqe_bbs);
				EXPECT_LE(uint64_t(g.max_send_wr) * g.wqe_bbs,
					  g.sq_wqe_cnt);
				EXPECT_EQ(g.sq_wqe_cnt & (g.sq_wqe_cnt - 1),
					  0u);
				EXPECT_LE(g.max_recv_sge * 16, g.rq_stride);
			}
}

TEST(QpGeometry, LargestWqe)
{
	QpGeometry g;

	ASSERT_EQ(qp_geometry(caps(16, 16, 256), 32768, 16, 256, &g), 0);
	EXPECT_EQ(g.wqe_bbs, 5u); /* 2 + 18 inline units = 20 */
	EXPECT_EQ(g.max_send_sge, 16u);
	EXPECT_EQ(g.max_inline_data, 256u);
	EXPECT_EQ(g.sq_wqe_cnt, 128u);
	EXPECT_EQ(g.max_send_wr, 25u);
}

TEST(QpGeometry, OverTheDeviceIsRefused)
{
	QpGeometry g;

	EXPECT_EQ(qp_geometry(caps(32769, 1, 0), 32768, 16, 256, &g), EINVAL);
	EXPECT_EQ(qp_geometry(caps(1, 17, 0), 32768, 16, 256, &g), EINVAL);
	EXPECT_EQ(qp_geometry(caps(1, 1, 257), 32768, 16, 256, &g), EINVAL);
}

/* A QP whose SQ is a vector; no device behind it. */
struct FakeQp {
	Qp qp = {};
	std::vector<uint8_t> sq;
	std::vector<uint64_t> wrid;
	std::vector<uint32_t> head;
	std::vector<uint8_t> nbb;

	FakeQp(ibv_qp_type type, uint32_t blocks)
	    : sq(blocks * 64, 0xee), wrid(blocks), head(blocks), nbb(blocks)
	{
		qp.vqp.qp.qp_type = type;
		qp.sq = sq.data();
		qp.sq_wqe_cnt = blocks;
		qp.sq_wrid = wrid.data();
		qp.sq_wqe_head = head.data();
		qp.sq_nbb = nbb.data();
		qp.max_send_wr = blocks;
		qp.max_send_sge = 16;
		qp.max_inline_data = 256;
	}
	softhca_wqe_ctrl ctrl(uint32_t bb) const
	{
		softhca_wqe_ctrl c;

		memcpy(&c, &sq[(bb % qp.sq_wqe_cnt) * 64], sizeof(c));
		return c;
	}
	/* the 16-byte unit @u of the WQE at @bb, following the ring */
	const uint8_t *unit(uint32_t bb, uint32_t u) const
	{
		return &sq[(bb * 64 + u * 16) % sq.size()];
	}
};

TEST(SendWqe, SendWithTwoSges)
{
	FakeQp f(IBV_QPT_RC, 8);
	ibv_sge sg[2] = { { 0x1000, 100, 0x300 }, { 0x2000, 28, 0x400 } };
	ibv_send_wr wr = {};

	wr.wr_id = 42;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr.imm_data = htobe32(0xabcd);
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	auto c = f.ctrl(0);
	EXPECT_EQ(c.opcode, SOFTHCA_WQE_SEND_IMM);
	EXPECT_EQ(c.ds, 3);
	EXPECT_EQ(c.flags, SOFTHCA_WQE_F_SIGNALED | SOFTHCA_WQE_F_SOLICITED);
	EXPECT_EQ(be32toh(c.imm), 0xabcdu);
	EXPECT_EQ(le16toh(c.wqe_index), 0);
	softhca_wqe_data d;
	memcpy(&d, f.unit(0, 2), sizeof(d));
	EXPECT_EQ(le64toh(d.addr), 0x2000u);
	EXPECT_EQ(le32toh(d.byte_count), 28u);
	EXPECT_EQ(le32toh(d.lkey), 0x400u);
	EXPECT_EQ(f.qp.sq_pi, 1u);
	EXPECT_EQ(f.wrid[0], 42u);
	EXPECT_EQ(f.nbb[0], 1);
}

TEST(SendWqe, InlineWriteWrapsAroundTheRing)
{
	FakeQp f(IBV_QPT_RC, 4);
	std::vector<uint8_t> data(100);
	for (size_t i = 0; i < data.size(); i++)
		data[i] = static_cast<uint8_t>(i * 3 + 1);
	ibv_sge sg = { reinterpret_cast<uintptr_t>(data.data()), 100, 0 };
	ibv_send_wr wr = {};

	f.qp.sq_pi = f.qp.sq_tail_bb = 3; /* the last block */
	f.qp.sq_head = f.qp.sq_tail = 3;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = 0x123456789ull;
	wr.wr.rdma.rkey = 0x777;
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	auto c = f.ctrl(3);
	/* control, remote address, then 4 + 100 bytes of inline data */
	EXPECT_EQ(c.ds, 2 + softhca_inline_ds(100));
	EXPECT_EQ(c.flags, SOFTHCA_WQE_F_INLINE);
	EXPECT_EQ(f.qp.sq_pi, 3 + softhca_wqe_bbs(c.ds));
	softhca_wqe_raddr ra;
	memcpy(&ra, f.unit(3, 1), sizeof(ra));
	EXPECT_EQ(le64toh(ra.addr), 0x123456789ull);
	EXPECT_EQ(le32toh(ra.rkey), 0x777u);
	/* the inline bytes continue at the start of the ring */
	std::vector<uint8_t> got(104);
	for (size_t i = 0; i < got.size(); i++)
		got[i] = f.sq[(3 * 64 + 32 + i) % f.sq.size()];
	uint32_t len;
	memcpy(&len, got.data(), 4);
	EXPECT_EQ(le32toh(len), 100u);
	EXPECT_EQ(memcmp(got.data() + 4, data.data(), 100), 0);
}

TEST(SendWqe, Atomic)
{
	FakeQp f(IBV_QPT_RC, 8);
	ibv_sge sg = { 0x5000, 8, 0x900 };
	ibv_send_wr wr = {};

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x1100;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 9;
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	EXPECT_EQ(f.ctrl(0).ds, 4);
	softhca_wqe_atomic at;
	memcpy(&at, f.unit(0, 2), sizeof(at));
	EXPECT_EQ(le64toh(at.swap_add), 9u);
	EXPECT_EQ(le64toh(at.compare), 5u);
	sg.length = 4;
	EXPECT_EQ(sq_build_wqe(&f.qp, &wr), EINVAL);
}

TEST(SendWqe, RefusedWork)
{
	FakeQp uc(IBV_QPT_UC, 8);
	ibv_sge sg = { 0x5000, 8, 0x900 };
	ibv_send_wr wr = {};

	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	EXPECT_EQ(sq_build_wqe(&uc.qp, &wr), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	EXPECT_EQ(sq_build_wqe(&uc.qp, &wr), EINVAL);
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 17;
	EXPECT_EQ(sq_build_wqe(&uc.qp, &wr), EINVAL);
	EXPECT_EQ(uc.qp.sq_pi, 0u);
}

TEST(SendWqe, FullQueueIsEnomemUntilCompletions)
{
	FakeQp f(IBV_QPT_RC, 4);
	ibv_sge sg = { 0x5000, 8, 0x900 };
	ibv_send_wr wr = {};

	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	EXPECT_EQ(sq_build_wqe(&f.qp, &wr), ENOMEM);
	/* what poll_cq does for a completion of WQE 1 (and 0 before it) */
	f.qp.sq_tail_bb = 2;
	f.qp.sq_tail = 2;
	EXPECT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	EXPECT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	EXPECT_EQ(sq_build_wqe(&f.qp, &wr), ENOMEM);
	EXPECT_EQ(le16toh(f.ctrl(5).wqe_index), 5);
}

} // namespace

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* QP geometry and send WQE building, on an SQ in plain memory. */
#include <gtest/gtest.h>

#include <cstring>
#include <endian.h>
#include <vector>

#include "fake_qp.h"

namespace {

using namespace softhca;
using softhca_test::FakeQp;
using softhca_test::make_ah;

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

	ASSERT_EQ(qp_geometry(SOFTHCA_QPT_RC, false, caps(1, 1, 0), 32768, 16,
			      256, &g),
		  0);
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

				ASSERT_EQ(qp_geometry(SOFTHCA_QPT_RC, false,
						      caps(wr, sge, inl), 32768,
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

	ASSERT_EQ(qp_geometry(SOFTHCA_QPT_RC, false, caps(16, 16, 256), 32768,
			      16, 256, &g),
		  0);
	EXPECT_EQ(g.wqe_bbs, 5u); /* 2 + 18 inline units = 20 */
	EXPECT_EQ(g.max_send_sge, 16u);
	EXPECT_EQ(g.max_inline_data, 256u);
	EXPECT_EQ(g.sq_wqe_cnt, 128u);
	EXPECT_EQ(g.max_send_wr, 25u);
}

TEST(QpGeometry, OverTheDeviceIsRefused)
{
	QpGeometry g;

	EXPECT_EQ(qp_geometry(SOFTHCA_QPT_RC, false, caps(32769, 1, 0), 32768,
			      16, 256, &g),
		  EINVAL);
	EXPECT_EQ(qp_geometry(SOFTHCA_QPT_RC, false, caps(1, 17, 0), 32768, 16,
			      256, &g),
		  EINVAL);
	EXPECT_EQ(qp_geometry(SOFTHCA_QPT_RC, false, caps(1, 1, 257), 32768, 16,
			      256, &g),
		  EINVAL);
}

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
	EXPECT_EQ(f.qp.sq_wrid[0], 42u);
	EXPECT_EQ(f.qp.sq_nbb[0], 1);
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

TEST(QpGeometry, UdCarriesTheAddressVector)
{
	QpGeometry g;

	/* control + 3 units of AV + 1 SGE = 5 units: two basic blocks */
	ASSERT_EQ(qp_geometry(SOFTHCA_QPT_UD, false, caps(10, 1, 0), 32768, 16,
			      256, &g),
		  0);
	EXPECT_EQ(g.wqe_bbs, 2u);
	EXPECT_EQ(g.max_send_sge, 4u); /* all that fits after the AV */
	EXPECT_EQ(g.max_inline_data, 4u * 16 - 4);
	EXPECT_EQ(g.sq_wqe_cnt, 32u);
	EXPECT_EQ(g.max_send_wr, 16u);
	/* what it reports, the kernel's check takes */
	EXPECT_LE(softhca_wqe_bbs(softhca_sq_max_ds_qp(
			  SOFTHCA_QPT_UD, g.max_send_sge, g.max_inline_data)),
		  g.wqe_bbs);
	/* 16 SGEs after the AV: 20 units, 5 blocks */
	ASSERT_EQ(qp_geometry(SOFTHCA_QPT_UD, false, caps(1, 16, 0), 32768, 16,
			      256, &g),
		  0);
	EXPECT_EQ(g.wqe_bbs, 5u);
	EXPECT_EQ(g.max_send_sge, 16u);
}

TEST(QpGeometry, SrqMeansNoReceiveQueue)
{
	QpGeometry g;

	/* receive caps are not looked at: the SRQ has its own */
	ASSERT_EQ(qp_geometry(SOFTHCA_QPT_RC, true, caps(1, 1, 0), 32768, 1, 64,
			      &g),
		  0);
	EXPECT_EQ(g.rq_wqe_cnt, 0u);
	EXPECT_EQ(g.rq_stride, 0u);
	EXPECT_EQ(g.max_recv_wr, 0u);
	EXPECT_EQ(g.max_recv_sge, 0u);
	ibv_qp_cap c = caps(1, 1, 0);
	c.max_recv_sge = 99;
	EXPECT_EQ(qp_geometry(SOFTHCA_QPT_RC, true, c, 32768, 1, 64, &g), 0);
	EXPECT_EQ(qp_geometry(SOFTHCA_QPT_RC, false, c, 32768, 1, 64, &g),
		  EINVAL);
}

/* A one-SGE WR of @op on @f's QP, checked field by field afterwards. */
ibv_send_wr one_sge_wr(ibv_wr_opcode op, ibv_sge *sg)
{
	ibv_send_wr wr = {};

	wr.wr_id = 0x1000 + op;
	wr.opcode = op;
	wr.sg_list = sg;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	return wr;
}

TEST(SendWqe, EveryOpcodeFieldByField)
{
	const struct {
		ibv_wr_opcode op;
		uint8_t hw;
		uint32_t fixed; /* units before the data */
	} ops[] = {
		{ IBV_WR_SEND, SOFTHCA_WQE_SEND, 1 },
		{ IBV_WR_SEND_WITH_IMM, SOFTHCA_WQE_SEND_IMM, 1 },
		{ IBV_WR_SEND_WITH_INV, SOFTHCA_WQE_SEND_INV, 1 },
		{ IBV_WR_RDMA_WRITE, SOFTHCA_WQE_RDMA_WRITE, 2 },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, SOFTHCA_WQE_RDMA_WRITE_IMM, 2 },
		{ IBV_WR_RDMA_READ, SOFTHCA_WQE_RDMA_READ, 2 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, SOFTHCA_WQE_ATOMIC_CS, 3 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, SOFTHCA_WQE_ATOMIC_FA, 3 },
	};
	FakeQp f(IBV_QPT_RC, 16);
	ibv_sge sg = { 0xabc000, 8, 0x5501 };
	uint32_t bb = 0;

	for (const auto &o : ops) {
		ibv_send_wr wr = one_sge_wr(o.op, &sg);

		wr.imm_data = htobe32(0x11223344); /* also the invalidate key */
		if (o.op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    o.op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = 0x7000;
			wr.wr.atomic.rkey = 0x66;
			wr.wr.atomic.compare_add = 5;
			wr.wr.atomic.swap = 9;
		} else if (o.fixed == 2) {
			wr.wr.rdma.remote_addr = 0x123456789aull;
			wr.wr.rdma.rkey = 0x77;
		}
		ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0) << int(o.op);
		auto c = f.ctrl(bb);
		SCOPED_TRACE(int(o.op));
		EXPECT_EQ(le16toh(c.wqe_index), bb);
		EXPECT_EQ(c.opcode, o.hw);
		EXPECT_EQ(c.ds, o.fixed + 1);
		EXPECT_EQ(c.flags, SOFTHCA_WQE_F_SIGNALED);
		if (o.op == IBV_WR_SEND_WITH_INV)
			EXPECT_EQ(be32toh(c.imm), wr.invalidate_rkey);
		else if (o.op == IBV_WR_SEND_WITH_IMM ||
			 o.op == IBV_WR_RDMA_WRITE_WITH_IMM)
			EXPECT_EQ(be32toh(c.imm), 0x11223344u);
		else
			EXPECT_EQ(c.imm, 0u);
		if (o.fixed >= 2) {
			auto ra = f.seg<softhca_wqe_raddr>(bb, 1);
			bool at = o.fixed == 3;

			EXPECT_EQ(le64toh(ra.addr),
				  at ? 0x7000u : 0x123456789aull);
			EXPECT_EQ(le32toh(ra.rkey), at ? 0x66u : 0x77u);
		}
		if (o.fixed == 3) {
			auto at = f.seg<softhca_wqe_atomic>(bb, 2);
			bool cs = o.op == IBV_WR_ATOMIC_CMP_AND_SWP;

			EXPECT_EQ(le64toh(at.swap_add), cs ? 9u : 5u);
			EXPECT_EQ(le64toh(at.compare), cs ? 5u : 0u);
		}
		auto d = f.seg<softhca_wqe_data>(bb, o.fixed);
		EXPECT_EQ(le64toh(d.addr), 0xabc000u);
		EXPECT_EQ(le32toh(d.byte_count), 8u);
		EXPECT_EQ(le32toh(d.lkey), 0x5501u);
		EXPECT_EQ(f.qp.sq_wrid[bb], wr.wr_id);
		bb += softhca_wqe_bbs(c.ds);
	}
	EXPECT_EQ(f.qp.sq_pi, bb);
	EXPECT_EQ(f.qp.sq_head, 8u);
}

TEST(SendWqe, UdSendCarriesTheAddressVector)
{
	FakeQp f(IBV_QPT_UD, 8);
	Ah ah = make_ah(3);
	ibv_sge sg[2] = { { 0x1000, 100, 0x300 }, { 0x2000, 28, 0x400 } };
	ibv_send_wr wr = {};

	wr.wr_id = 7;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0x99);
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_SOLICITED;
	wr.wr.ud.ah = &ah.ibah;
	wr.wr.ud.remote_qpn = 0x1234;
	wr.wr.ud.remote_qkey = 0x11111111;
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	auto c = f.ctrl(0);
	EXPECT_EQ(c.opcode, SOFTHCA_WQE_SEND_IMM);
	EXPECT_EQ(c.ds, 1 + 3 + 2);
	EXPECT_EQ(c.flags, SOFTHCA_WQE_F_SOLICITED);
	EXPECT_EQ(be32toh(c.imm), 0x99u);
	auto av = f.seg<softhca_wqe_av>(0, 1);
	EXPECT_EQ(le32toh(av.dest_qpn), 0x1234u);
	EXPECT_EQ(le32toh(av.qkey), 0x11111111u);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(av.dgid[i], 0xa0 + i);
	const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	EXPECT_EQ(memcmp(av.dmac, mac, 6), 0);
	EXPECT_EQ(av.sgid_index, 3);
	EXPECT_EQ(av.hop_limit, 64);
	EXPECT_EQ(av.traffic_class, 0x28);
	EXPECT_EQ(le32toh(av.flow_label), 0xbeef1u);
	auto d = f.seg<softhca_wqe_data>(0, 5);
	EXPECT_EQ(le64toh(d.addr), 0x2000u);
	EXPECT_EQ(le32toh(d.lkey), 0x400u);
	EXPECT_EQ(f.qp.sq_pi, 2u); /* 6 units: two blocks */
	/* the AH is untouched: the next send may go to another QP */
	EXPECT_EQ(ah.av.dest_qpn, 0u);
}

TEST(SendWqe, UdWqeWrapsAroundTheRing)
{
	FakeQp f(IBV_QPT_UD, 4);
	Ah ah = make_ah(1);
	ibv_sge sg = { 0xfeed000, 64, 0x800 };
	ibv_send_wr wr = {};

	f.qp.sq_pi = f.qp.sq_tail_bb = 3; /* the ring's last block */
	f.qp.sq_head = f.qp.sq_tail = 3;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.wr.ud.ah = &ah.ibah;
	wr.wr.ud.remote_qpn = 0x55;
	wr.wr.ud.remote_qkey = 0x80000000;
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	EXPECT_EQ(f.qp.sq_pi, 5u);
	auto c = f.ctrl(3);
	EXPECT_EQ(le16toh(c.wqe_index), 3);
	EXPECT_EQ(c.ds, 5);
	/* the AV's units 1-3 stay in block 3, the data unit is block 0's */
	auto av = f.seg<softhca_wqe_av>(3, 1);
	EXPECT_EQ(le32toh(av.dest_qpn), 0x55u);
	EXPECT_EQ(le32toh(av.qkey), SOFTHCA_QKEY_USE_QP);
	softhca_wqe_data d;
	memcpy(&d, &f.sq[0], sizeof(d));
	EXPECT_EQ(le64toh(d.addr), 0xfeed000u);
	EXPECT_EQ(le32toh(d.byte_count), 64u);
}

TEST(SendWqe, InlineSendIntoTheWqe)
{
	FakeQp f(IBV_QPT_UD, 8);
	Ah ah = make_ah();
	const char a[] = "hello, ", b[] = "world";
	ibv_sge sg[2] = { { reinterpret_cast<uintptr_t>(a), 7, 0 },
			  { reinterpret_cast<uintptr_t>(b), 5, 0 } };
	ibv_send_wr wr = {};

	wr.opcode = IBV_WR_SEND;
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_INLINE;
	wr.wr.ud.ah = &ah.ibah;
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	auto c = f.ctrl(0);
	EXPECT_EQ(c.flags, SOFTHCA_WQE_F_INLINE);
	EXPECT_EQ(c.ds, 4 + softhca_inline_ds(12));
	auto inl = f.bytes(0, 64, 16);
	uint32_t len;
	memcpy(&len, inl.data(), 4);
	EXPECT_EQ(le32toh(len), 12u);
	EXPECT_EQ(memcmp(inl.data() + 4, "hello, world", 12), 0);
}

TEST(SendWqe, InlineIsIgnoredOnReadAndAtomics)
{
	FakeQp f(IBV_QPT_RC, 8);
	ibv_sge sg = { 0x5000, 8, 0x900 };
	ibv_send_wr wr = one_sge_wr(IBV_WR_RDMA_READ, &sg);

	wr.send_flags |= IBV_SEND_INLINE;
	ASSERT_EQ(sq_build_wqe(&f.qp, &wr), 0);
	EXPECT_EQ(f.ctrl(0).flags, SOFTHCA_WQE_F_SIGNALED);
	EXPECT_EQ(f.ctrl(0).ds, 3);
}

TEST(SendWqe, RefusedByQpType)
{
	FakeQp uc(IBV_QPT_UC, 8), ud(IBV_QPT_UD, 8);
	Ah ah = make_ah();
	ibv_sge sg = { 0x5000, 8, 0x900 };

	for (auto op :
	     { IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
	       IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV, IBV_WR_BIND_MW }) {
		ibv_send_wr wr = one_sge_wr(op, &sg);

		EXPECT_EQ(sq_build_wqe(&uc.qp, &wr), EINVAL) << int(op);
	}
	for (auto op : { IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
			 IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV }) {
		ibv_send_wr wr = one_sge_wr(op, &sg);

		wr.wr.ud.ah = &ah.ibah;
		EXPECT_EQ(sq_build_wqe(&ud.qp, &wr), EINVAL) << int(op);
	}
	/* a UD send needs an address */
	ibv_send_wr wr = one_sge_wr(IBV_WR_SEND, &sg);
	EXPECT_EQ(sq_build_wqe(&ud.qp, &wr), EINVAL);
	EXPECT_EQ(uc.qp.sq_pi, 0u);
	EXPECT_EQ(ud.qp.sq_pi, 0u);
}

TEST(RecvWqe, SegmentsAndTerminator)
{
	FakeQp f(IBV_QPT_RC, 4, nullptr, 4, 64);
	ibv_sge sg[2] = { { 0x1000, 40, 0x10 }, { 0x2000, 4096, 0x20 } };
	ibv_recv_wr wr = {};

	wr.wr_id = 5;
	wr.sg_list = sg;
	wr.num_sge = 2;
	ASSERT_EQ(rq_post_one(&f.qp, &wr), 0);
	softhca_wqe_data d[4];
	memcpy(d, f.rq.data(), sizeof(d));
	EXPECT_EQ(le64toh(d[1].addr), 0x2000u);
	EXPECT_EQ(le32toh(d[1].byte_count), 4096u);
	EXPECT_EQ(le32toh(d[1].lkey), 0x20u);
	EXPECT_EQ(le32toh(d[2].lkey), SOFTHCA_INVALID_LKEY);
	EXPECT_EQ(f.qp.rq_pi, 1u);
	EXPECT_EQ(f.qp.rq_wrid[0], 5u);
	wr.num_sge = 5; /* a 64-byte stride holds 4 */
	EXPECT_EQ(rq_post_one(&f.qp, &wr), EINVAL);
}

} // namespace

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ibv_qp_ex posting API (ibv_wr_*) on a QP in plain memory: the WQEs
 * it writes are the ones post_send writes for the same work, the doorbell
 * rings once per wr_complete, and an abort or an error discards everything
 * since wr_start.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <endian.h>
#include <vector>

#include "fake_qp.h"

namespace {

using namespace softhca;
using softhca_test::FakeContext;
using softhca_test::FakeQp;
using softhca_test::make_ah;

ibv_qp_init_attr_ex ex_attr(uint64_t ops)
{
	ibv_qp_init_attr_ex a = {};

	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = ops;
	return a;
}

const uint64_t kRcOps =
	IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
	IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
	IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
	IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV;

/* An ibv_qp_ex on @f's QP. */
ibv_qp_ex *setup(FakeQp &f, uint64_t ops)
{
	auto a = ex_attr(ops);

	EXPECT_EQ(qp_ex_setup(&f.qp, &a), 0);
	return &f.qp.vqp.qp_ex;
}

TEST(QpEx, SendOpsByQpType)
{
	FakeQp rc(IBV_QPT_RC, 8), uc(IBV_QPT_UC, 8), ud(IBV_QPT_UD, 8);
	auto a = ex_attr(kRcOps);

	EXPECT_EQ(qp_ex_setup(&rc.qp, &a), 0);
	EXPECT_EQ(qp_ex_setup(&uc.qp, &a), EOPNOTSUPP);
	EXPECT_EQ(qp_ex_setup(&ud.qp, &a), EOPNOTSUPP);
	a = ex_attr(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
	EXPECT_EQ(qp_ex_setup(&uc.qp, &a), 0);
	a = ex_attr(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	EXPECT_EQ(qp_ex_setup(&ud.qp, &a), 0);
	/* what a user QP of softhca cannot post */
	for (uint64_t op :
	     { IBV_QP_EX_WITH_LOCAL_INV, IBV_QP_EX_WITH_BIND_MW,
	       IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_ATOMIC_WRITE }) {
		a = ex_attr(IBV_QP_EX_WITH_SEND | op);
		EXPECT_EQ(qp_ex_setup(&rc.qp, &a), EOPNOTSUPP) << op;
	}
}

/*
 * Several WRs between start and complete: the same bytes post_send
 * writes, one doorbell, one wake-up for an idle card.
 */
TEST(QpEx, SeveralWrsRingOnceAndMatchPostSend)
{
	FakeContext fc(true), fc2(true);
	FakeQp f(IBV_QPT_RC, 16, &fc), ref(IBV_QPT_RC, 16, &fc2);
	ibv_qp_ex *qx = setup(f, kRcOps);
	uint8_t payload[20];
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = static_cast<uint8_t>(i + 1);
	ibv_sge sg[2] = { { 0x1000, 64, 0x11 }, { 0x2000, 32, 0x22 } };
	ibv_sge at_sg = { 0x3000, 8, 0x33 };

	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge_list(qx, 2, sg);
	qx->wr_id = 2;
	qx->wr_flags = 0;
	ibv_wr_rdma_write_imm(qx, 0x77, 0xaa00, htobe32(5));
	ibv_wr_set_inline_data(qx, payload, sizeof(payload));
	qx->wr_id = 3;
	qx->wr_flags = IBV_SEND_FENCE;
	ibv_wr_atomic_cmp_swp(qx, 0x88, 0xbb00, 10, 20);
	ibv_wr_set_sge(qx, at_sg.lkey, at_sg.addr, at_sg.length);
	qx->wr_id = 4;
	ibv_wr_rdma_read(qx, 0x99, 0xcc00);
	ibv_wr_set_sge(qx, 0x44, 0x4000, 4096);
	qx->wr_id = 5;
	ibv_wr_atomic_fetch_add(qx, 0x98, 0xdd00, 3);
	ibv_wr_set_sge(qx, at_sg.lkey, at_sg.addr, at_sg.length);
	qx->wr_id = 6;
	ibv_wr_send_inv(qx, 0x5501);
	ibv_wr_set_sge(qx, 0x11, 0x1000, 1);
	qx->wr_id = 7;
	ibv_wr_send_imm(qx, htobe32(0x1234));
	ibv_wr_set_sge_list(qx, 0, nullptr);
	/* nothing published before wr_complete */
	EXPECT_EQ(f.dbrec_sq_pi(), 0u);
	EXPECT_EQ(fc.wakes(), 0);
	ASSERT_EQ(ibv_wr_complete(qx), 0);

	/* the same work through post_send, as one list */
	ibv_sge inl = { reinterpret_cast<uintptr_t>(payload), sizeof(payload),
			0 };
	ibv_sge rd = { 0x4000, 4096, 0x44 }, inv = { 0x1000, 1, 0x11 };
	ibv_send_wr wr[7] = {}, *bad = nullptr;
	for (int i = 0; i < 7; i++) {
		wr[i].wr_id = i + 1;
		wr[i].next = i < 6 ? &wr[i + 1] : nullptr;
	}
	wr[0].opcode = IBV_WR_SEND;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].sg_list = sg;
	wr[0].num_sge = 2;
	wr[1].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr[1].send_flags = IBV_SEND_INLINE;
	wr[1].imm_data = htobe32(5);
	wr[1].wr.rdma.rkey = 0x77;
	wr[1].wr.rdma.remote_addr = 0xaa00;
	wr[1].sg_list = &inl;
	wr[1].num_sge = 1;
	wr[2].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr[2].send_flags = IBV_SEND_FENCE;
	wr[2].wr.atomic.rkey = 0x88;
	wr[2].wr.atomic.remote_addr = 0xbb00;
	wr[2].wr.atomic.compare_add = 10;
	wr[2].wr.atomic.swap = 20;
	wr[2].sg_list = &at_sg;
	wr[2].num_sge = 1;
	wr[3].opcode = IBV_WR_RDMA_READ;
	wr[3].send_flags = IBV_SEND_FENCE;
	wr[3].wr.rdma.rkey = 0x99;
	wr[3].wr.rdma.remote_addr = 0xcc00;
	wr[3].sg_list = &rd;
	wr[3].num_sge = 1;
	wr[4].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[4].send_flags = IBV_SEND_FENCE;
	wr[4].wr.atomic.rkey = 0x98;
	wr[4].wr.atomic.remote_addr = 0xdd00;
	wr[4].wr.atomic.compare_add = 3;
	wr[4].sg_list = &at_sg;
	wr[4].num_sge = 1;
	wr[5].opcode = IBV_WR_SEND_WITH_INV;
	wr[5].send_flags = IBV_SEND_FENCE;
	wr[5].invalidate_rkey = 0x5501;
	wr[5].sg_list = &inv;
	wr[5].num_sge = 1;
	wr[6].opcode = IBV_WR_SEND_WITH_IMM;
	wr[6].send_flags = IBV_SEND_FENCE;
	wr[6].imm_data = htobe32(0x1234);
	ASSERT_EQ(post_send(&ref.qp.vqp.qp, wr, &bad), 0);

	EXPECT_EQ(f.qp.sq_pi, ref.qp.sq_pi);
	EXPECT_EQ(f.qp.sq_head, 7u);
	EXPECT_EQ(memcmp(f.sq.data(), ref.sq.data(), f.sq.size()), 0);
	for (uint32_t bb = 0; bb < f.qp.sq_pi; bb++)
		EXPECT_EQ(f.qp.sq_wrid[bb], ref.qp.sq_wrid[bb]) << bb;
	/* one doorbell with the final count, one wake-up call */
	EXPECT_EQ(f.dbrec_sq_pi(), f.qp.sq_pi);
	EXPECT_EQ(fc.sq_doorbell(), uint64_t(f.qp.sq_pi) << 32 | f.qp.qpn);
	EXPECT_EQ(fc.wakes(), 1);
	EXPECT_EQ(fc2.wakes(), 1);
	/* the lock is free again */
	EXPECT_TRUE(f.qp.sq_lock.try_lock());
	f.qp.sq_lock.unlock();
}

TEST(QpEx, AbortDiscardsEverythingSinceStart)
{
	FakeContext fc(true);
	FakeQp f(IBV_QPT_RC, 8, &fc);
	ibv_qp_ex *qx = setup(f, kRcOps);

	ibv_wr_start(qx);
	qx->wr_id = 1;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, 1, 0x1000, 8);
	qx->wr_id = 2;
	ibv_wr_rdma_write(qx, 2, 0x2000);
	ibv_wr_set_sge(qx, 1, 0x1000, 8);
	ibv_wr_abort(qx);
	EXPECT_EQ(f.qp.sq_pi, 0u);
	EXPECT_EQ(f.qp.sq_head, 0u);
	EXPECT_EQ(f.dbrec_sq_pi(), 0u);
	EXPECT_EQ(fc.sq_doorbell(), 0u);
	EXPECT_EQ(fc.wakes(), 0);

	/* the next batch starts where the aborted one did */
	ibv_wr_start(qx);
	qx->wr_id = 3;
	qx->wr_flags = 0;
	ibv_wr_rdma_read(qx, 9, 0x9000);
	ibv_wr_set_sge(qx, 1, 0x1000, 8);
	ASSERT_EQ(ibv_wr_complete(qx), 0);
	EXPECT_EQ(f.ctrl(0).opcode, SOFTHCA_WQE_RDMA_READ);
	EXPECT_EQ(f.qp.sq_wrid[0], 3u);
	EXPECT_EQ(f.dbrec_sq_pi(), 1u);
	EXPECT_EQ(fc.wakes(), 1);
}

TEST(QpEx, ErrorsAreReportedAtCompleteAndDiscardTheBatch)
{
	FakeContext fc;
	FakeQp f(IBV_QPT_RC, 8, &fc);
	ibv_qp_ex *qx = setup(f, kRcOps);
	std::vector<ibv_sge> many(17, ibv_sge{ 0x1000, 8, 1 });
	std::vector<uint8_t> big(257);

	/* a good WR, then one with more SGEs than the QP takes */
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, 1, 0x1000, 8);
	ibv_wr_send(qx);
	ibv_wr_set_sge_list(qx, many.size(), many.data());
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	EXPECT_EQ(f.qp.sq_pi, 0u);
	EXPECT_EQ(f.dbrec_sq_pi(), 0u);

	/* a builder without its data setter */
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	/* a setter without a builder */
	ibv_wr_start(qx);
	ibv_wr_set_sge(qx, 1, 0x1000, 8);
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	/* inline data over max_inline_data, inline on a READ */
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, big.data(), big.size());
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	ibv_wr_rdma_read(qx, 1, 0x1000);
	ibv_wr_set_inline_data(qx, big.data(), 8);
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	/* an operation the QP cannot post */
	ibv_wr_start(qx);
	ibv_wr_local_inv(qx, 5);
	EXPECT_EQ(ibv_wr_complete(qx), EOPNOTSUPP);
	/* a full queue: ENOMEM */
	ibv_wr_start(qx);
	for (int i = 0; i < 9; i++) {
		ibv_wr_send(qx);
		ibv_wr_set_sge(qx, 1, 0x1000, 8);
	}
	EXPECT_EQ(ibv_wr_complete(qx), ENOMEM);
	EXPECT_EQ(f.qp.sq_pi, 0u);
	EXPECT_EQ(f.qp.sq_head, 0u);
	EXPECT_EQ(f.dbrec_sq_pi(), 0u);
	/* a QP that cannot send yet */
	f.qp.state = IBV_QPS_RTR;
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, 1, 0x1000, 8);
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	EXPECT_EQ(f.qp.sq_pi, 0u);
}

TEST(QpEx, UdAddressBeforeOrAfterTheData)
{
	FakeContext fc;
	FakeQp f(IBV_QPT_UD, 8, &fc);
	ibv_qp_ex *qx = setup(f, IBV_QP_EX_WITH_SEND);
	Ah ah = make_ah(2);
	char msg[8] = "abcdefg";

	ibv_wr_start(qx);
	qx->wr_id = 10;
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, &ah.ibah, 0x300, 0x1111);
	ibv_wr_set_sge(qx, 0x5, 0x5000, 100);
	qx->wr_id = 11;
	ibv_wr_send(qx);
	/* inline data first: copied by the setter, so the buffer is free */
	ibv_wr_set_inline_data(qx, msg, sizeof(msg));
	memcpy(msg, "XXXXXXX", 8);
	ibv_wr_set_ud_addr(qx, &ah.ibah, 0x301, 0x2222);
	ASSERT_EQ(ibv_wr_complete(qx), 0);

	auto av = f.seg<softhca_wqe_av>(0, 1);
	EXPECT_EQ(le32toh(av.dest_qpn), 0x300u);
	EXPECT_EQ(le32toh(av.qkey), 0x1111u);
	EXPECT_EQ(av.sgid_index, 2);
	auto d = f.seg<softhca_wqe_data>(0, 4);
	EXPECT_EQ(le64toh(d.addr), 0x5000u);
	EXPECT_EQ(f.ctrl(2).flags, SOFTHCA_WQE_F_INLINE);
	av = f.seg<softhca_wqe_av>(2, 1);
	EXPECT_EQ(le32toh(av.dest_qpn), 0x301u);
	EXPECT_EQ(le32toh(av.qkey), 0x2222u);
	auto inl = f.bytes(2, 64, 12);
	EXPECT_EQ(memcmp(inl.data() + 4, "abcdefg", 8), 0);
	EXPECT_EQ(f.qp.sq_wrid[0], 10u);
	EXPECT_EQ(f.qp.sq_wrid[2], 11u);
	EXPECT_EQ(f.dbrec_sq_pi(), 4u);

	/* a UD send without an address fails the batch */
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, 0x5, 0x5000, 100);
	EXPECT_EQ(ibv_wr_complete(qx), EINVAL);
	EXPECT_EQ(f.dbrec_sq_pi(), 4u);
}

} // namespace

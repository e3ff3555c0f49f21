// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* poll_cq and arming on a CQ ring in plain memory, as the card fills it. */
#include <gtest/gtest.h>

#include <cstring>
#include <endian.h>
#include <vector>

#include "../provider/ring.h"
#include "../provider/softhca.h"

namespace {

using namespace softhca;

struct FakeCq {
	std::vector<softhca_cqe> ring;
	softhca_cq_dbrec db = {};
	Cq cq = {};
	QpTable qps = {};
	Qp qp = {};
	uint64_t sq_wrid[8] = {};
	uint64_t rq_wrid[4] = {};
	uint32_t pi = 0;

	explicit FakeCq(uint32_t log) : ring(1u << log)
	{
		for (auto &c : ring) {
			memset(&c, 0, sizeof(c));
			c.op_own = SOFTHCA_CQE_OWNER;
		}
		cq.ring = ring.data();
		cq.log_size = log;
		cq.db = &db;
		qp.qpn = 0x42;
		qp.sq_wrid = sq_wrid;
		qp.sq_wqe_cnt = 8;
		qp.rq_wrid = rq_wrid;
		qp.rq_wqe_cnt = 4;
		for (int i = 0; i < 8; i++)
			sq_wrid[i] = 1000 + i;
		for (int i = 0; i < 4; i++)
			rq_wrid[i] = 2000 + i;
		qps.insert(0x42, &qp);
	}
	~FakeCq()
	{
		qps.clear();
	}

	/* what the card does: body, then the owner bit of this pass */
	void produce(uint8_t opcode, uint16_t wqe, uint32_t bytes,
		     uint8_t status = SOFTHCA_CQE_ST_SUCCESS, uint8_t flags = 0,
		     uint32_t imm = 0)
	{
		softhca_cqe &c = ring[pi & (ring.size() - 1)];

		c.qpn = htole32(0x42);
		c.byte_cnt = htole32(bytes);
		c.wqe_counter = htole32(wqe);
		c.opcode = opcode;
		c.status = status;
		c.flags = flags;
		c.imm = htobe32(imm);
		c.vendor_err = htole32(status ? 0x77 : 0);
		c.op_own = softhca_ring_owner(pi, cq.log_size);
		pi++;
	}
};

TEST(CqPoll, EmptyRingGivesNothing)
{
	FakeCq f(3);
	ibv_wc wc[4];

	EXPECT_EQ(cq_poll(&f.cq, f.qps, 4, wc), 0);
	EXPECT_EQ(le32toh(f.db.ci), 0u);
}

TEST(CqPoll, CompletionsCarryWrIdAndFields)
{
	FakeCq f(3);
	ibv_wc wc[4];

	f.produce(SOFTHCA_CQE_OP_SEND, 2, 100);
	f.produce(SOFTHCA_CQE_OP_RECV, 1, 64, SOFTHCA_CQE_ST_SUCCESS,
		  SOFTHCA_CQE_F_IMM, 0xcafe);
	f.produce(SOFTHCA_CQE_OP_RDMA_READ, 9, 4096);
	ASSERT_EQ(cq_poll(&f.cq, f.qps, 4, wc), 3);
	EXPECT_EQ(wc[0].wr_id, 1002u);
	EXPECT_EQ(wc[0].opcode, IBV_WC_SEND);
	EXPECT_EQ(wc[0].byte_len, 100u);
	EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc[0].qp_num, 0x42u);
	EXPECT_EQ(wc[1].wr_id, 2001u);
	EXPECT_EQ(wc[1].opcode, IBV_WC_RECV);
	EXPECT_TRUE(wc[1].wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(be32toh(wc[1].imm_data), 0xcafeu);
	EXPECT_EQ(wc[2].wr_id, 1001u); /* wqe 9 in an 8-entry SQ */
	EXPECT_EQ(wc[2].opcode, IBV_WC_RDMA_READ);
	/* the consumer index is published in the doorbell record */
	EXPECT_EQ(le32toh(f.db.ci), 3u);
}

TEST(CqPoll, RespectsTheCountAndResumes)
{
	FakeCq f(3);
	ibv_wc wc[8];

	for (int i = 0; i < 5; i++)
		f.produce(SOFTHCA_CQE_OP_RDMA_WRITE, static_cast<uint16_t>(i),
			  8);
	EXPECT_EQ(cq_poll(&f.cq, f.qps, 2, wc), 2);
	EXPECT_EQ(wc[1].wr_id, 1001u);
	EXPECT_EQ(cq_poll(&f.cq, f.qps, 8, wc), 3);
	EXPECT_EQ(wc[0].wr_id, 1002u);
	EXPECT_EQ(wc[2].wr_id, 1004u);
	EXPECT_EQ(le32toh(f.db.ci), 5u);
}

TEST(CqPoll, StaleEntriesOfTheLastPassAreNotNew)
{
	FakeCq f(2); /* 4 entries */
	ibv_wc wc[8];

	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 3; i++)
			f.produce(SOFTHCA_CQE_OP_SEND,
				  static_cast<uint16_t>(round * 3 + i), 1);
		ASSERT_EQ(cq_poll(&f.cq, f.qps, 8, wc), 3) << "round " << round;
		EXPECT_EQ(cq_poll(&f.cq, f.qps, 8, wc), 0);
	}
	EXPECT_EQ(le32toh(f.db.ci), 30u);
}

TEST(CqPoll, ErrorStatusesMap)
{
	const struct {
		uint8_t hw;
		ibv_wc_status wc;
	} map[] = {
		{ SOFTHCA_CQE_ST_LOC_PROT, IBV_WC_LOC_PROT_ERR },
		{ SOFTHCA_CQE_ST_WR_FLUSH, IBV_WC_WR_FLUSH_ERR },
		{ SOFTHCA_CQE_ST_REM_ACCESS, IBV_WC_REM_ACCESS_ERR },
		{ SOFTHCA_CQE_ST_REM_INV_REQ, IBV_WC_REM_INV_REQ_ERR },
		{ SOFTHCA_CQE_ST_RETRY_EXC, IBV_WC_RETRY_EXC_ERR },
		{ SOFTHCA_CQE_ST_RNR_RETRY_EXC, IBV_WC_RNR_RETRY_EXC_ERR },
		{ SOFTHCA_CQE_ST_LOC_LEN, IBV_WC_LOC_LEN_ERR },
		{ 0xee, IBV_WC_GENERAL_ERR },
	};
	FakeCq f(4);
	ibv_wc wc;

	for (auto &m : map) {
		f.produce(SOFTHCA_CQE_OP_SEND, 0, 0, m.hw);
		ASSERT_EQ(cq_poll(&f.cq, f.qps, 1, &wc), 1);
		EXPECT_EQ(wc.status, m.wc) << int(m.hw);
		EXPECT_EQ(wc.vendor_err, 0x77u);
		EXPECT_EQ(wc.wr_id, 1000u);
	}
}

TEST(CqPoll, UnknownQpIsAGeneralError)
{
	FakeCq f(3);
	ibv_wc wc;

	f.produce(SOFTHCA_CQE_OP_SEND, 0, 0);
	f.ring[0].qpn = htole32(0x99);
	ASSERT_EQ(cq_poll(&f.cq, f.qps, 1, &wc), 1);
	EXPECT_EQ(wc.status, IBV_WC_GENERAL_ERR);
	EXPECT_EQ(wc.qp_num, 0x99u);
}

TEST(CqArm, WritesTheArmWordWithSnAndCi)
{
	FakeCq f(3);
	ibv_wc wc[2];

	f.produce(SOFTHCA_CQE_OP_SEND, 0, 0);
	f.produce(SOFTHCA_CQE_OP_SEND, 1, 0);
	ASSERT_EQ(cq_poll(&f.cq, f.qps, 2, wc), 2);
	cq_arm(&f.cq, false);
	uint32_t arm = le32toh(f.db.arm);
	EXPECT_EQ(arm, softhca_cq_arm(0, 0, 2));
	f.cq.arm_sn++; /* what cq_event does */
	cq_arm(&f.cq, true);
	arm = le32toh(f.db.arm);
	EXPECT_EQ(softhca_cq_arm_sn(arm), 1u);
	EXPECT_TRUE(arm & SOFTHCA_CQ_ARM_SOLICITED);
}

} // namespace

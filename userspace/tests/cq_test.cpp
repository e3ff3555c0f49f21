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
	uint32_t pi = 0;
	uint32_t base = 0; /* the card's: where its ring starts */

	explicit FakeCq(uint32_t log) : ring(1u << log)
	{
		for (auto &c : ring) {
			memset(&c, 0, sizeof(c));
			c.op_own = SOFTHCA_CQE_OWNER;
		}
		cq.ring = ring.data();
		cq.log_size = log;
		cq.db.borrow(&db);
		cq.qps = &qps;
		qp.qpn = 0x42;
		qp.sq.wqe_cnt = 8;
		qp.rq_wqe_cnt = 4;
		EXPECT_EQ(qp.sq_wrid.alloc(8), 0);
		EXPECT_EQ(qp.sq_nbb.alloc(8), 0);
		EXPECT_EQ(qp.sq_wqe_head.alloc(8), 0);
		EXPECT_EQ(qp.rq_wrid.alloc(4), 0);
		for (int i = 0; i < 8; i++)
			qp.sq_wrid[i] = 1000 + i;
		for (int i = 0; i < 4; i++)
			qp.rq_wrid[i] = 2000 + i;
		qps.insert(0x42, &qp);
	}
	~FakeCq()
	{
		qps.clear();
	}

	/* what the card does: body, then the owner bit of this pass */
	softhca_cqe &produce(uint8_t opcode, uint16_t wqe, uint32_t bytes,
			     uint8_t status = SOFTHCA_CQE_ST_SUCCESS,
			     uint8_t flags = 0, uint32_t imm = 0)
	{
		softhca_cqe &c = ring[softhca_cq_slot(pi, base, cq.log_size)];

		c.qpn = htole32(0x42);
		c.byte_cnt = htole32(bytes);
		c.wqe_counter = htole32(wqe);
		c.opcode = opcode;
		c.status = status;
		c.flags = flags;
		c.imm = htobe32(imm);
		c.vendor_err = htole32(status ? 0x77 : 0);
		c.op_own = softhca_cq_owner(pi, base, cq.log_size);
		pi++;
		return c;
	}

	/*
	 * What RESIZE_CQ does: the card's new ring of 2^@log entries starts
	 * at the consumer index (base), and the provider takes it over.
	 */
	void resize(uint32_t log)
	{
		std::vector<softhca_cqe> next(1u << log);

		for (auto &c : next) {
			memset(&c, 0, sizeof(c));
			c.op_own = SOFTHCA_CQE_OWNER;
		}
		base = cq.ci;
		cq_take_ring(&cq, next.data(), log, base, pi);
		ring = std::move(next); /* the same buffer, now the CQ's */
	}
};

TEST(CqPoll, EmptyRingGivesNothing)
{
	FakeCq f(3);
	ibv_wc wc[4];

	EXPECT_EQ(cq_poll(&f.cq, 4, wc), 0);
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
	ASSERT_EQ(cq_poll(&f.cq, 4, wc), 3);
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
	EXPECT_EQ(cq_poll(&f.cq, 2, wc), 2);
	EXPECT_EQ(wc[1].wr_id, 1001u);
	EXPECT_EQ(cq_poll(&f.cq, 8, wc), 3);
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
		ASSERT_EQ(cq_poll(&f.cq, 8, wc), 3) << "round " << round;
		EXPECT_EQ(cq_poll(&f.cq, 8, wc), 0);
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
		ASSERT_EQ(cq_poll(&f.cq, 1, &wc), 1);
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
	ASSERT_EQ(cq_poll(&f.cq, 1, &wc), 1);
	EXPECT_EQ(wc.status, IBV_WC_GENERAL_ERR);
	EXPECT_EQ(wc.qp_num, 0x99u);
}

TEST(CqArm, WritesTheArmWordWithSnAndCi)
{
	FakeCq f(3);
	ibv_wc wc[2];

	f.produce(SOFTHCA_CQE_OP_SEND, 0, 0);
	f.produce(SOFTHCA_CQE_OP_SEND, 1, 0);
	ASSERT_EQ(cq_poll(&f.cq, 2, wc), 2);
	EXPECT_FALSE(cq_arm(&f.cq, false)); /* nothing waits */
	uint32_t arm = le32toh(f.db.arm);
	EXPECT_EQ(arm, softhca_cq_arm(0, 0, 2));
	f.cq.arm_sn++; /* what cq_event does */
	EXPECT_FALSE(cq_arm(&f.cq, true));
	arm = le32toh(f.db.arm);
	EXPECT_EQ(softhca_cq_arm_sn(arm), 1u);
	EXPECT_TRUE(arm & SOFTHCA_CQ_ARM_SOLICITED);
	/* a CQE the card wrote before the arm: the doorbell is needed */
	f.produce(SOFTHCA_CQE_OP_SEND, 2, 0);
	EXPECT_TRUE(cq_arm(&f.cq, false));
	ASSERT_EQ(cq_poll(&f.cq, 2, wc), 1);
	EXPECT_FALSE(cq_arm(&f.cq, false));
}

/* wr_ids 1000 + i for WQE counters i of the fake QP (8 of them) */
static void expect_wr_ids(const ibv_wc *wc, int n, uint64_t first)
{
	for (int i = 0; i < n; i++) {
		EXPECT_EQ(wc[i].status, IBV_WC_SUCCESS) << i;
		EXPECT_EQ(wc[i].wr_id, 1000 + (first + i) % 8) << i;
	}
}

TEST(CqResize, NewRingTakesOverAtTheConsumerIndex)
{
	FakeCq f(3);
	ibv_wc wc[8];

	for (uint16_t i = 0; i < 6; i++)
		f.produce(SOFTHCA_CQE_OP_SEND, i, 0);
	ASSERT_EQ(cq_poll(&f.cq, 2, wc), 2);
	expect_wr_ids(wc, 2, 0);
	/* smaller: the 4 unpolled CQEs just fit, moved to slots 0..3 */
	f.resize(2);
	EXPECT_EQ(f.cq.base, 2u);
	for (uint32_t j = 2; j < 6; j++)
		EXPECT_EQ(f.ring[j - 2].op_own & SOFTHCA_CQE_OWNER, 0) << j;
	ASSERT_EQ(cq_poll(&f.cq, 2, wc), 2);
	expect_wr_ids(wc, 2, 2);
	/* the card writes on into the new ring, its second pass */
	f.produce(SOFTHCA_CQE_OP_SEND, 6, 0);
	f.produce(SOFTHCA_CQE_OP_SEND, 7, 0);
	ASSERT_EQ(cq_poll(&f.cq, 8, wc), 4);
	expect_wr_ids(wc, 4, 4);
	EXPECT_EQ(cq_poll(&f.cq, 8, wc), 0);
	EXPECT_EQ(le32toh(f.db.ci), 8u);
	/* larger, with nothing waiting, then around it once and more */
	f.resize(4);
	EXPECT_EQ(f.cq.base, 8u);
	for (uint32_t round = 0; round < 5; round++) {
		for (uint16_t i = 0; i < 7; i++)
			f.produce(SOFTHCA_CQE_OP_SEND, (8 + round * 7 + i) % 8,
				  0);
		ASSERT_EQ(cq_poll(&f.cq, 8, wc), 7) << round;
		expect_wr_ids(wc, 7, 8 + round * 7);
	}
	/* arming sees a CQE waiting in the new ring by its owner bit */
	EXPECT_FALSE(cq_arm(&f.cq, false));
	f.produce(SOFTHCA_CQE_OP_SEND, 3, 0);
	EXPECT_TRUE(cq_arm(&f.cq, false));
}

TEST(CqPoll, UdReceiveHasTheGrhAndTheSender)
{
	FakeCq f(3);
	ibv_wc wc;

	auto &c = f.produce(
		SOFTHCA_CQE_OP_RECV, 2, 40 + 100, SOFTHCA_CQE_ST_SUCCESS,
		SOFTHCA_CQE_F_GRH | SOFTHCA_CQE_F_IPV4 | SOFTHCA_CQE_F_IMM,
		0x1234);
	c.src_qp = htole32(0xabcd);
	c.pkey_index = htole16(0);
	ASSERT_EQ(cq_poll(&f.cq, 1, &wc), 1);
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_RECV);
	EXPECT_EQ(wc.wr_id, 2002u);
	EXPECT_EQ(wc.byte_len, 140u); /* the GRH's 40 bytes included */
	EXPECT_EQ(wc.src_qp, 0xabcdu);
	EXPECT_EQ(wc.wc_flags, unsigned(IBV_WC_GRH | IBV_WC_WITH_IMM));
	EXPECT_EQ(be32toh(wc.imm_data), 0x1234u);
	EXPECT_EQ(wc.pkey_index, 0);
	EXPECT_EQ(wc.slid, 0);
	EXPECT_EQ(wc.sl, 0);
	/* without the GRH flag (a connected QP) there is no GRH */
	f.produce(SOFTHCA_CQE_OP_RECV, 3, 100);
	ASSERT_EQ(cq_poll(&f.cq, 1, &wc), 1);
	EXPECT_EQ(wc.wc_flags, 0u);
}

TEST(CqPoll, SendWithInvalidateReceive)
{
	FakeCq f(3);
	ibv_wc wc;

	f.produce(SOFTHCA_CQE_OP_RECV, 0, 64, SOFTHCA_CQE_ST_SUCCESS,
		  SOFTHCA_CQE_F_INV, 0x5501);
	ASSERT_EQ(cq_poll(&f.cq, 1, &wc), 1);
	EXPECT_EQ(wc.opcode, IBV_WC_RECV);
	EXPECT_EQ(wc.wc_flags, unsigned(IBV_WC_WITH_INV));
	EXPECT_EQ(wc.invalidated_rkey, 0x5501u);
}

/* An SRQ of 4 WQEs in plain memory. */
struct FakeSrq {
	Srq srq = {};
	std::vector<uint8_t> ring = std::vector<uint8_t>(4 * 32);
	softhca_srq_dbrec db = {};

	FakeSrq()
	{
		srq.wqe_cnt = 4;
		srq.stride = 32;
		srq.max_wr = 3;
		srq.max_sge = 1;
		EXPECT_EQ(srq_alloc_queues(&srq), 0);
		srq.ring = ring.data();
		srq.db.borrow(&db);
		srq_init_ring(&srq);
	}
	void post(uint64_t wr_id)
	{
		ibv_sge sg = { 0x1000, 64, 1 };
		ibv_recv_wr wr = {}, *bad;

		wr.wr_id = wr_id;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		ASSERT_EQ(srq_post(&srq, &wr, &bad), 0);
	}
};

TEST(CqPoll, SrqReceiveTakesItsWrIdAndFreesTheWqe)
{
	FakeCq f(3);
	FakeSrq s;
	ibv_wc wc[2];

	f.qp.srq = &s.srq;
	f.qp.rq_wqe_cnt = 0;
	s.post(500);
	s.post(501);
	s.post(502);
	EXPECT_EQ(s.srq.head, s.srq.tail); /* full */
	/* WQE 2 completes before WQE 0 */
	f.produce(SOFTHCA_CQE_OP_RECV, 2, 10, SOFTHCA_CQE_ST_SUCCESS,
		  SOFTHCA_CQE_F_SRQ);
	f.produce(SOFTHCA_CQE_OP_RECV, 0, 10, SOFTHCA_CQE_ST_SUCCESS,
		  SOFTHCA_CQE_F_SRQ);
	ASSERT_EQ(cq_poll(&f.cq, 2, wc), 2);
	EXPECT_EQ(wc[0].wr_id, 502u);
	EXPECT_EQ(wc[1].wr_id, 500u);
	EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS);
	/* both back on the free list, after the old tail 3 */
	EXPECT_EQ(s.srq.tail, 0u);
	softhca_srq_next n;
	memcpy(&n, &s.ring[3 * 32], sizeof(n));
	EXPECT_EQ(le16toh(n.next_wqe_index), 2u);
	memcpy(&n, &s.ring[2 * 32], sizeof(n));
	EXPECT_EQ(le16toh(n.next_wqe_index), 0u);
	/* a completion for a WQE the card does not own is an error */
	f.produce(SOFTHCA_CQE_OP_RECV, 2, 10, SOFTHCA_CQE_ST_SUCCESS,
		  SOFTHCA_CQE_F_SRQ);
	ASSERT_EQ(cq_poll(&f.cq, 1, wc), 1);
	EXPECT_EQ(wc[0].status, IBV_WC_GENERAL_ERR);
	/* and a receive without F_SRQ on a QP without an RQ */
	f.produce(SOFTHCA_CQE_OP_RECV, 1, 10);
	ASSERT_EQ(cq_poll(&f.cq, 1, wc), 1);
	EXPECT_EQ(wc[0].status, IBV_WC_GENERAL_ERR);
}

ibv_cq_init_attr_ex cq_attr(uint64_t wc_flags)
{
	ibv_cq_init_attr_ex a = {};

	a.cqe = 8;
	a.wc_flags = wc_flags;
	return a;
}

TEST(CqEx, SetupRefusesWhatTheCardCannotDo)
{
	FakeCq f(3);
	auto a = cq_attr(IBV_WC_STANDARD_FLAGS);

	EXPECT_EQ(cq_ex_setup(&f.cq, &a), 0);
	a = cq_attr(uint64_t(IBV_WC_STANDARD_FLAGS) |
		    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), EOPNOTSUPP);
	a = cq_attr(IBV_WC_EX_WITH_FLOW_TAG);
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), EOPNOTSUPP);
	a = cq_attr(0);
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), EOPNOTSUPP);
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags =
		IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN; /* the card's overrun flag */
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), 0);
	a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), 0);
	a.flags = 1u << 7; /* unknown */
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), EOPNOTSUPP);
	a.comp_mask = 1u << 5; /* unknown */
	EXPECT_EQ(cq_ex_setup(&f.cq, &a), EOPNOTSUPP);
}

TEST(CqEx, PollSequenceOverTheRing)
{
	FakeCq f(2); /* 4 entries: the sequence wraps */
	auto a = cq_attr(IBV_WC_STANDARD_FLAGS);
	ASSERT_EQ(cq_ex_setup(&f.cq, &a), 0);
	ibv_cq_ex *cq = &f.cq.vcq.cq_ex;
	ibv_poll_cq_attr pa = {};

	/* empty: ENOENT, and the CQ is not left locked */
	EXPECT_EQ(ibv_start_poll(cq, &pa), ENOENT);
	EXPECT_TRUE(f.cq.lock.try_lock());
	f.cq.lock.unlock();

	for (int round = 0; round < 3; round++) {
		f.produce(SOFTHCA_CQE_OP_SEND, 1, 11);
		auto &r = f.produce(
			SOFTHCA_CQE_OP_RECV, 3, 140, SOFTHCA_CQE_ST_SUCCESS,
			SOFTHCA_CQE_F_GRH | SOFTHCA_CQE_F_IMM, 0xfeed);
		r.src_qp = htole32(0x77);
		f.produce(SOFTHCA_CQE_OP_RDMA_WRITE, 4, 0,
			  SOFTHCA_CQE_ST_REM_ACCESS);

		ASSERT_EQ(ibv_start_poll(cq, &pa), 0);
		EXPECT_FALSE(f.cq.lock.try_lock()); /* held until end_poll */
		EXPECT_EQ(cq->status, IBV_WC_SUCCESS);
		EXPECT_EQ(cq->wr_id, 1001u);
		EXPECT_EQ(ibv_wc_read_opcode(cq), IBV_WC_SEND);
		EXPECT_EQ(ibv_wc_read_byte_len(cq), 11u);
		EXPECT_EQ(ibv_wc_read_qp_num(cq), 0x42u);

		ASSERT_EQ(ibv_next_poll(cq), 0);
		EXPECT_EQ(cq->wr_id, 2003u);
		EXPECT_EQ(ibv_wc_read_opcode(cq), IBV_WC_RECV);
		EXPECT_EQ(ibv_wc_read_byte_len(cq), 140u);
		EXPECT_EQ(ibv_wc_read_src_qp(cq), 0x77u);
		EXPECT_EQ(be32toh(ibv_wc_read_imm_data(cq)), 0xfeedu);
		EXPECT_EQ(ibv_wc_read_wc_flags(cq),
			  unsigned(IBV_WC_GRH | IBV_WC_WITH_IMM));
		EXPECT_EQ(ibv_wc_read_slid(cq), 0u);
		EXPECT_EQ(ibv_wc_read_sl(cq), 0);
		EXPECT_EQ(ibv_wc_read_dlid_path_bits(cq), 0);

		ASSERT_EQ(ibv_next_poll(cq), 0);
		EXPECT_EQ(cq->status, IBV_WC_REM_ACCESS_ERR);
		EXPECT_EQ(cq->wr_id, 1004u);
		EXPECT_EQ(ibv_wc_read_vendor_err(cq), 0x77u);

		EXPECT_EQ(ibv_next_poll(cq), ENOENT);
		/* the consumer index is published by end_poll */
		EXPECT_EQ(le32toh(f.db.ci), uint32_t(round * 3));
		ibv_end_poll(cq);
		EXPECT_EQ(le32toh(f.db.ci), uint32_t(round * 3 + 3));
		EXPECT_TRUE(f.cq.lock.try_lock());
		f.cq.lock.unlock();
	}
}

TEST(CqEx, PlainPollOnTheSameCq)
{
	FakeCq f(3);
	auto a = cq_attr(IBV_WC_EX_WITH_BYTE_LEN);
	ASSERT_EQ(cq_ex_setup(&f.cq, &a), 0);
	ibv_cq_ex *cq = &f.cq.vcq.cq_ex;
	ibv_poll_cq_attr pa = {};
	ibv_wc wc[4];

	f.produce(SOFTHCA_CQE_OP_SEND, 0, 1);
	f.produce(SOFTHCA_CQE_OP_SEND, 1, 2);
	ASSERT_EQ(ibv_start_poll(cq, &pa), 0);
	EXPECT_EQ(cq->wr_id, 1000u);
	ibv_end_poll(cq);
	/* the next one is for poll_cq, through the same ibv_cq */
	ASSERT_EQ(poll_cq(ibv_cq_ex_to_cq(cq), 4, wc), 1);
	EXPECT_EQ(wc[0].wr_id, 1001u);
	EXPECT_EQ(wc[0].byte_len, 2u);
	EXPECT_EQ(le32toh(f.db.ci), 2u);
	EXPECT_EQ(ibv_start_poll(cq, &pa), ENOENT);
}

TEST(CqClean, DropsOneQpsCompletionsAndFreesItsSrqWqes)
{
	FakeCq f(2); /* 4 entries: the survivors move across the wrap */
	FakeSrq s;
	Qp other = {};
	ibv_wc wc[4];

	other.qpn = 0x43;
	other.sq.wqe_cnt = 8;
	ASSERT_EQ(other.sq_wrid.alloc(8), 0);
	ASSERT_EQ(other.sq_nbb.alloc(8), 0);
	ASSERT_EQ(other.sq_wqe_head.alloc(8), 0);
	for (int i = 0; i < 8; i++)
		other.sq_wrid[i] = 3000 + i;
	f.qps.insert(0x43, &other);
	s.post(600);
	s.post(601);
	s.post(602);

	/* one pass consumed, so the ring wraps: ci = 3 */
	for (int i = 0; i < 3; i++)
		f.produce(SOFTHCA_CQE_OP_SEND, 0, 0);
	ASSERT_EQ(cq_poll(&f.cq, 4, wc), 3);
	f.produce(SOFTHCA_CQE_OP_RECV, 1, 0, SOFTHCA_CQE_ST_SUCCESS,
		  SOFTHCA_CQE_F_SRQ);
	f.produce(SOFTHCA_CQE_OP_SEND, 5, 0).qpn = htole32(0x43);
	f.produce(SOFTHCA_CQE_OP_RECV, 0, 0, SOFTHCA_CQE_ST_WR_FLUSH,
		  SOFTHCA_CQE_F_SRQ);
	f.produce(SOFTHCA_CQE_OP_SEND, 6, 0).qpn = htole32(0x43);
	EXPECT_EQ(s.srq.head, s.srq.tail); /* three posted: full */

	cq_clean(&f.cq, 0x42, &s.srq);
	/* the two SRQ WQEs of 0x42's receives are back on the list */
	EXPECT_NE(s.srq.head, s.srq.tail);
	uint64_t id;
	EXPECT_FALSE(srq_complete(&s.srq, 0, &id));
	EXPECT_FALSE(srq_complete(&s.srq, 1, &id));
	EXPECT_TRUE(srq_complete(&s.srq, 2, &id));
	EXPECT_EQ(id, 602u);
	EXPECT_EQ(le32toh(f.db.ci), 5u);
	ASSERT_EQ(cq_poll(&f.cq, 4, wc), 2);
	EXPECT_EQ(wc[0].qp_num, 0x43u);
	EXPECT_EQ(wc[0].wr_id, 3005u);
	EXPECT_EQ(wc[1].wr_id, 3006u);
	EXPECT_EQ(cq_poll(&f.cq, 4, wc), 0);
	/* the card's next CQE lands after them and is seen */
	f.produce(SOFTHCA_CQE_OP_SEND, 7, 0).qpn = htole32(0x43);
	ASSERT_EQ(cq_poll(&f.cq, 4, wc), 1);
	EXPECT_EQ(wc[0].wr_id, 3007u);
	/* nothing to drop: nothing moves */
	cq_clean(&f.cq, 0x42, &s.srq);
	EXPECT_EQ(le32toh(f.db.ci), 8u);
}

} // namespace

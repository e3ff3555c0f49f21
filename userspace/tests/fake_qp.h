/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host-test fixtures: a QP whose queues are vectors, with a context whose
 * UAR page and command fd are ordinary memory and a pipe, so the
 * provider's posting code runs as it does on a card and the test can read
 * back the WQE bytes, the doorbell record, the doorbell and the wake-up
 * calls (each one a zero-WR POST_SEND written into the pipe).
 */
#ifndef SOFTHCA_TESTS_FAKE_QP_H
#define SOFTHCA_TESTS_FAKE_QP_H

#include <gtest/gtest.h>

#include <cstring>
#include <endian.h>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

#include "../provider/ring.h"
#include "../provider/softhca.h"

namespace softhca_test {

using namespace softhca;

/* A context with a UAR in memory and a pipe for the wake-up calls. */
struct FakeContext {
	Context ctx = {};
	std::vector<uint8_t> uar = std::vector<uint8_t>(4096, 0);
	int pipe_fd[2] = { -1, -1 };

	explicit FakeContext(bool idle = false)
	{
		ctx.uar = uar.data();
		ctx.wake_fd = -1; /* wake-ups write a zero-WR POST_SEND */
		if (pipe2(pipe_fd, O_NONBLOCK) == 0)
			ctx.vctx.context.cmd_fd = pipe_fd[1];
		set_idle(idle);
	}
	~FakeContext()
	{
		ctx.qps.clear();
		close(pipe_fd[0]);
		close(pipe_fd[1]);
	}
	FakeContext(const FakeContext &) = delete;
	FakeContext &operator=(const FakeContext &) = delete;

	void set_idle(bool idle)
	{
		uint32_t v = htole32(idle ? SOFTHCA_ENGINE_IDLE
					  : SOFTHCA_ENGINE_RUNNING);
		memcpy(&uar[SOFTHCA_UAR_ENGINE_STATE], &v, sizeof(v));
	}
	/* Wake-up calls made since the last look. */
	int wakes()
	{
		unsigned char buf[4096];
		ssize_t n, total = 0;

		while ((n = read(pipe_fd[0], buf, sizeof(buf))) > 0)
			total += n;
		return static_cast<int>(total /
					static_cast<ssize_t>(sizeof(WakeCmd)));
	}
	uint64_t sq_doorbell() const
	{
		uint64_t v;

		memcpy(&v, &uar[SOFTHCA_UAR_SQ_DB], sizeof(v));
		return le64toh(v);
	}
};

/* A QP of @type whose SQ holds @blocks basic blocks, in RTS. */
struct FakeQp {
	Qp qp = {};
	std::vector<uint8_t> sq;
	std::vector<uint8_t> rq;
	softhca_qp_dbrec db = {};

	FakeQp(ibv_qp_type type, uint32_t blocks, FakeContext *fc = nullptr,
	       uint32_t rq_wqes = 4, uint32_t rq_stride = 64)
	    : sq(blocks * 64, 0xee), rq(rq_wqes * rq_stride, 0xee)
	{
		QpGeometry g = {};

		g.max_send_wr = blocks;
		g.max_send_sge = 16;
		g.max_inline_data = 256;
		g.sq_wqe_cnt = blocks;
		g.rq_wqe_cnt = rq_wqes;
		g.rq_stride = rq_stride;
		g.max_recv_wr = rq_wqes;
		g.max_recv_sge = rq_stride / 16;
		qp.vqp.qp.qp_type = type;
		qp.sq_caps.qp_type = type == IBV_QPT_UD	  ? SOFTHCA_QPT_UD
				     : type == IBV_QPT_UC ? SOFTHCA_QPT_UC
							  : SOFTHCA_QPT_RC;
		EXPECT_EQ(qp_alloc_queues(&qp, g), 0);
		qp.sq.buf = sq.data();
		qp.rq = rq.data();
		qp.db.borrow(&db);
		qp.qpn = 0x42;
		qp.state = IBV_QPS_RTS;
		if (fc) {
			qp.ctx = &fc->ctx;
			qp.vqp.qp.context = &fc->ctx.vctx.context;
			prepare_wake(&qp);
		}
	}
	softhca_wqe_ctrl ctrl(uint32_t bb) const
	{
		softhca_wqe_ctrl c;

		memcpy(&c, unit(bb, 0), sizeof(c));
		return c;
	}
	/* the 16-byte unit @u of the WQE at @bb, following the ring */
	const uint8_t *unit(uint32_t bb, uint32_t u) const
	{
		return &sq[(bb * 64 + u * 16) % sq.size()];
	}
	/* @len bytes of the WQE at @bb from byte @off, across the wrap */
	std::vector<uint8_t> bytes(uint32_t bb, uint32_t off, size_t len) const
	{
		std::vector<uint8_t> out(len);

		for (size_t i = 0; i < len; i++)
			out[i] = sq[(bb * 64 + off + i) % sq.size()];
		return out;
	}
	template <typename T>
	T seg(uint32_t bb, uint32_t u) const
	{
		T t;
		auto b = bytes(bb, u * 16, sizeof(T));

		memcpy(&t, b.data(), sizeof(T));
		return t;
	}
	uint32_t dbrec_sq_pi() const
	{
		return le32toh(db.sq_pi);
	}
};

/* An address handle as create_ah builds it. */
inline Ah make_ah(uint8_t sgid_index = 3)
{
	Ah ah = {};
	ibv_ah_attr attr = {};
	const uint8_t dmac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

	attr.is_global = 1;
	for (int i = 0; i < 16; i++)
		attr.grh.dgid.raw[i] = static_cast<uint8_t>(0xa0 + i);
	attr.grh.sgid_index = sgid_index;
	attr.grh.hop_limit = 64;
	attr.grh.traffic_class = 0x28;
	attr.grh.flow_label = 0xbeef1;
	EXPECT_EQ(ah_attr_to_av(attr, dmac, &ah.av), 0);
	return ah;
}

} // namespace softhca_test

#endif /* SOFTHCA_TESTS_FAKE_QP_H */

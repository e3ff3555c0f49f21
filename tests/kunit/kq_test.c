// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_kq": the bookkeeping of kernel queues,
 * kernel/softhca_kq.c, and the sizing of kernel QPs and SRQs, on plain
 * memory rings. A send completion names its WQE by its first basic block
 * and retires the unsignaled WQEs before it; full queues (by WQEs and by
 * basic blocks) refuse; WQEs wrap around the ring and the 32-bit
 * counters; receive queues return wr_ids in order; an SRQ's free list
 * keeps the order the card walks (the card follows the links from index 0
 * and must take exactly the WQEs posted, in posting order) while WQEs
 * complete in any order. Expected values are computed here, not taken
 * from the code under test.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "softhca.h"

/* A send queue of @wqe_cnt basic blocks on plain memory. */
static void make_sq(struct kunit *test, struct softhca_ksq *sq, u32 wqe_cnt,
		    u8 qp_type, u32 max_sge, u32 max_wr)
{
	memset(sq, 0, sizeof(*sq));
	sq->ring.buf = kunit_kzalloc(test, wqe_cnt * SOFTHCA_WQEBB_SIZE,
				     GFP_KERNEL);
	sq->ring.wqe_cnt = wqe_cnt;
	sq->caps.qp_type = qp_type;
	sq->caps.priv = 1;
	sq->caps.max_sge = max_sge;
	sq->caps.max_inline = 64;
	sq->max_wr = max_wr;
	sq->wrid = kunit_kcalloc(test, wqe_cnt, sizeof(u64), GFP_KERNEL);
	sq->wqe_head = kunit_kcalloc(test, wqe_cnt, sizeof(u32), GFP_KERNEL);
	sq->nbb = kunit_kcalloc(test, wqe_cnt, sizeof(u8), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sq->ring.buf && sq->wrid && sq->wqe_head &&
			  sq->nbb);
}

/* An RDMA WRITE of @nsge SGEs: 2 + nsge units. */
static struct softhca_send_wr write_wr(const struct softhca_wqe_sge *sg,
				       u32 nsge, bool signaled)
{
	struct softhca_send_wr wr = {
		.opcode = SOFTHCA_WQE_RDMA_WRITE,
		.flags = signaled ? SOFTHCA_WQE_F_SIGNALED : 0,
		.remote_addr = 0x1000,
		.rkey = 0x4242,
		.sg = sg,
		.num_sge = nsge,
	};

	return wr;
}

static struct softhca_wqe_sge sges[16];

static void fill_sges(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(sges); i++) {
		sges[i].addr = 0xab0000000ull + i * 0x1000;
		sges[i].length = 100 + i;
		sges[i].lkey = 0x300 + i;
	}
}

/* The 16-byte unit @unit of the WQE at basic block @bb, wrapping. */
static const u8 *unit_at(const struct softhca_ksq *sq, u32 bb, u32 unit)
{
	u32 bytes = sq->ring.wqe_cnt * SOFTHCA_WQEBB_SIZE;

	return (const u8 *)sq->ring.buf +
	       ((bb * SOFTHCA_WQEBB_SIZE + unit * SOFTHCA_WQE_DS_SIZE) &
		(bytes - 1));
}

static u16 wqe_index_at(const struct softhca_ksq *sq, u32 bb)
{
	const struct softhca_wqe_ctrl *c = (const void *)unit_at(sq, bb, 0);

	return le16_to_cpu(c->wqe_index);
}

/* Unsignaled WQEs are retired by the completion of a later one. */
static void ksq_retire_unsignaled_test(struct kunit *test)
{
	struct softhca_send_wr wr;
	struct softhca_ksq sq;

	fill_sges();
	make_sq(test, &sq, 16, SOFTHCA_QPT_RC, 8, 16);
	wr = write_wr(sges, 1, false);		/* 3 units: 1 block */
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0xa), 0);
	wr = write_wr(sges, 3, false);		/* 5 units: 2 blocks */
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0xb), 0);
	wr = write_wr(sges, 2, true);		/* 4 units: 1 block */
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0xc), 0);
	KUNIT_EXPECT_EQ(test, sq.pi, 4u);
	KUNIT_EXPECT_EQ(test, sq.head, 3u);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&sq), 3u);
	KUNIT_EXPECT_EQ(test, wqe_index_at(&sq, 0), 0);
	KUNIT_EXPECT_EQ(test, wqe_index_at(&sq, 1), 1);
	KUNIT_EXPECT_EQ(test, wqe_index_at(&sq, 3), 3);

	/* the card completes the signaled WQE at block 3 */
	KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, 3), 0xcull);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&sq), 0u);
	KUNIT_EXPECT_EQ(test, sq.tail_bb, 4u);

	/* a flush completes every WQE, each by its own block */
	wr = write_wr(sges, 3, false);
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0xd), 0);
	wr = write_wr(sges, 1, false);
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0xe), 0);
	KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, 4), 0xdull);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&sq), 1u);
	KUNIT_EXPECT_EQ(test, sq.tail_bb, 6u);
	KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, 6), 0xeull);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&sq), 0u);
	KUNIT_EXPECT_EQ(test, sq.tail_bb, 7u);
}

/* Full by WQEs (max_wr) and full by basic blocks: -ENOMEM, nothing written. */
static void ksq_full_test(struct kunit *test)
{
	struct softhca_send_wr wr;
	struct softhca_ksq sq;
	u32 i;

	fill_sges();
	make_sq(test, &sq, 16, SOFTHCA_QPT_RC, 8, 4);
	wr = write_wr(sges, 1, true);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, i), 0);
	KUNIT_EXPECT_EQ(test, softhca_ksq_post(&sq, &wr, 9), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sq.pi, 4u);
	KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, 0), 0ull);
	KUNIT_EXPECT_EQ(test, softhca_ksq_post(&sq, &wr, 4), 0);

	/* 8 blocks, WQEs of 3: two fit, the third needs 9 */
	make_sq(test, &sq, 8, SOFTHCA_QPT_RC, 8, 100);
	wr = write_wr(sges, 7, true);		/* 9 units: 3 blocks */
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 1), 0);
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 2), 0);
	KUNIT_EXPECT_EQ(test, softhca_ksq_post(&sq, &wr, 3), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sq.pi, 6u);
	KUNIT_EXPECT_EQ(test, sq.head, 2u);
	KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, 0), 1ull);
	KUNIT_EXPECT_EQ(test, softhca_ksq_post(&sq, &wr, 3), 0);
	KUNIT_EXPECT_EQ(test, sq.pi, 9u);

	/* a WR the QP cannot take is -EINVAL, not -ENOMEM */
	wr = write_wr(sges, 9, true);
	KUNIT_EXPECT_EQ(test, softhca_ksq_post(&sq, &wr, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, sq.pi, 9u);
}

/* Check the RDMA WRITE of 7 SGEs posted at @bb, segment by segment. */
static void check_write7(struct kunit *test, const struct softhca_ksq *sq,
			 u32 bb)
{
	const struct softhca_wqe_ctrl *c = (const void *)unit_at(sq, bb, 0);
	const struct softhca_wqe_raddr *ra = (const void *)unit_at(sq, bb, 1);
	u32 i;

	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->wqe_index), (u16)bb);
	KUNIT_EXPECT_EQ(test, c->opcode, (u8)SOFTHCA_WQE_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, c->ds, 9);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ra->addr), 0x1000ull);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ra->rkey), 0x4242u);
	for (i = 0; i < 7; i++) {
		const struct softhca_wqe_data *d =
			(const void *)unit_at(sq, bb, 2 + i);

		KUNIT_EXPECT_EQ(test, le64_to_cpu(d->addr), sges[i].addr);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(d->byte_count),
				sges[i].length);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(d->lkey), sges[i].lkey);
	}
}

/* WQEs wrap around the ring's end and the 32-bit counters. */
static void ksq_wrap_test(struct kunit *test)
{
	struct softhca_send_wr wr;
	struct softhca_ksq sq;
	u32 start = 0xfffffff0u, bb, i;

	fill_sges();
	make_sq(test, &sq, 8, SOFTHCA_QPT_RC, 8, 100);
	sq.pi = start;
	sq.head = 1000;
	sq.tail = 1000;
	sq.tail_bb = start;
	wr = write_wr(sges, 7, true);
	bb = start;
	for (i = 0; i < 12; i++) {
		KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0x100 + i), 0);
		check_write7(test, &sq, bb);
		KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, bb),
				0x100ull + i);
		KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&sq), 0u);
		bb += 3;
		KUNIT_EXPECT_EQ(test, sq.pi, bb);
		KUNIT_EXPECT_EQ(test, sq.tail_bb, bb);
	}
	/* two in flight across the end of the ring */
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0x200), 0);
	KUNIT_ASSERT_EQ(test, softhca_ksq_post(&sq, &wr, 0x201), 0);
	check_write7(test, &sq, bb);
	check_write7(test, &sq, bb + 3);
	KUNIT_EXPECT_EQ(test, softhca_ksq_complete(&sq, bb + 3), 0x201ull);
	KUNIT_EXPECT_EQ(test, softhca_ksq_outstanding(&sq), 0u);
}

/* Receive WQEs: segments, terminator, order, full, too many SGEs. */
static void krq_test(struct kunit *test)
{
	struct softhca_krq rq = {
		.wqe_cnt = 4, .stride = 32, .max_wr = 4, .max_sge = 2,
	};
	const struct softhca_wqe_data *seg;
	u32 i;

	fill_sges();
	rq.buf = kunit_kzalloc(test, 4 * 32, GFP_KERNEL);
	rq.wrid = kunit_kcalloc(test, 4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rq.buf && rq.wrid);
	memset(rq.buf, 0xee, 4 * 32);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, softhca_krq_post(&rq, sges, 1, 10 + i), 0);
	KUNIT_EXPECT_EQ(test, softhca_krq_post(&rq, sges, 1, 99), -ENOMEM);
	seg = rq.buf + 2 * 32;
	KUNIT_EXPECT_EQ(test, le64_to_cpu(seg[0].addr), sges[0].addr);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(seg[0].lkey), sges[0].lkey);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(seg[0].byte_count), sges[0].length);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(seg[1].lkey),
			(u32)SOFTHCA_INVALID_LKEY);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(seg[1].byte_count), 0u);

	KUNIT_EXPECT_EQ(test, softhca_krq_complete(&rq, 0), 10ull);
	KUNIT_EXPECT_EQ(test, softhca_krq_complete(&rq, 1), 11ull);
	KUNIT_EXPECT_EQ(test, softhca_krq_post(&rq, sges, 3, 98), -EINVAL);
	KUNIT_ASSERT_EQ(test, softhca_krq_post(&rq, sges, 2, 14), 0);
	KUNIT_ASSERT_EQ(test, softhca_krq_post(&rq, sges, 2, 15), 0);
	KUNIT_EXPECT_EQ(test, softhca_krq_post(&rq, sges, 1, 99), -ENOMEM);
	/* WQE 4 is slot 0 again, both segments used */
	seg = rq.buf;
	KUNIT_EXPECT_EQ(test, le32_to_cpu(seg[1].lkey), sges[1].lkey);
	KUNIT_EXPECT_EQ(test, softhca_krq_complete(&rq, 2), 12ull);
	KUNIT_EXPECT_EQ(test, softhca_krq_complete(&rq, 3), 13ull);
	KUNIT_EXPECT_EQ(test, softhca_krq_complete(&rq, 4), 14ull);
	KUNIT_EXPECT_EQ(test, softhca_krq_complete(&rq, 5), 15ull);
	KUNIT_EXPECT_EQ(test, rq.pi - rq.tail, 0u);
}

static u16 srq_next(const struct softhca_ksrq *srq, u32 index)
{
	const struct softhca_srq_next *n = srq->buf + index * srq->stride;

	return le16_to_cpu(n->next_wqe_index);
}

/* A pseudo-random sequence the test can reproduce. */
static u32 lcg(u32 *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

#define SRQ_N		8
#define SRQ_POSTS	4096

/*
 * The SRQ free list under posts and completions in any order, with a
 * simulated card that walks the links from index 0: it must take exactly
 * the WQEs posted, in posting order.
 */
static void ksrq_free_list_test(struct kunit *test)
{
	struct softhca_ksrq srq = { .wqe_cnt = SRQ_N, .stride = 32,
				    .max_sge = 1 };
	u32 *posted, taken_list[SRQ_N], ntaken = 0;
	u32 nposted = 0, card_taken = 0, card_next = 0;
	u32 seed = 12345, step, index, i, k;
	u64 next_id = 1, ids[SRQ_N];

	fill_sges();
	posted = kunit_kcalloc(test, SRQ_POSTS, sizeof(*posted), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, posted);
	srq.buf = kunit_kzalloc(test, SRQ_N * 32, GFP_KERNEL);
	srq.wrid = kunit_kcalloc(test, SRQ_N, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, srq.buf && srq.wrid);
	softhca_ksrq_init(&srq);
	for (i = 0; i < SRQ_N; i++)
		KUNIT_EXPECT_EQ(test, srq_next(&srq, i), (i + 1) % SRQ_N);
	KUNIT_EXPECT_EQ(test, softhca_ksrq_free_count(&srq), (u32)SRQ_N);

	/* fill: SRQ_N - 1 fit, the tail never goes */
	for (i = 0; i < SRQ_N - 1; i++) {
		KUNIT_ASSERT_EQ(test, softhca_ksrq_post(&srq, sges, 1, next_id,
							&index), 0);
		KUNIT_EXPECT_EQ(test, index, i);
		ids[index] = next_id++;
		posted[nposted++] = index;
	}
	KUNIT_EXPECT_EQ(test, softhca_ksrq_post(&srq, sges, 1, 0, &index),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, softhca_ksrq_post(&srq, sges, 2, 0, &index),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, srq.counter, (u32)SRQ_N - 1);

	for (step = 0; step < 3000 && nposted < SRQ_POSTS; step++) {
		switch (lcg(&seed) % 3) {
		case 0:		/* the card takes the next posted WQE */
			if (card_taken == srq.counter)
				break;
			KUNIT_ASSERT_EQ(test, card_next, posted[card_taken]);
			taken_list[ntaken++] = card_next;
			card_next = srq_next(&srq, card_next);
			card_taken++;
			break;
		case 1:		/* a taken WQE completes, any of them */
			if (!ntaken)
				break;
			k = lcg(&seed) % ntaken;
			index = taken_list[k];
			taken_list[k] = taken_list[--ntaken];
			KUNIT_EXPECT_EQ(test, softhca_ksrq_complete(&srq, index),
					ids[index]);
			break;
		default:	/* post one more if there is room */
			if (softhca_ksrq_post(&srq, sges, 1, next_id, &index))
				break;
			ids[index] = next_id++;
			posted[nposted++] = index;
			break;
		}
		/* free + posted but not completed == every WQE */
		KUNIT_ASSERT_EQ(test, softhca_ksrq_free_count(&srq) +
				(srq.counter - card_taken) + ntaken,
				(u32)SRQ_N);
	}
	KUNIT_EXPECT_GT(test, nposted, 500u);
	KUNIT_EXPECT_EQ(test, srq.counter, nposted);
}

static const struct softhca_dev_caps test_caps = {
	.max_qp_wr = 32768,
	.max_sge = 16,
	.max_inline_data = 256,
	.max_srq_wr = 32767,
	.max_srq_sge = 16,
};

/* Kernel QP sizing: what ib_mad, nvme-rdma and an inline user ask for. */
static void kqp_geometry_test(struct kunit *test)
{
	struct softhca_kqp_geom g;
	struct ib_qp_cap want;

	/* ib_mad's GSI QP: 128 x 2 SGEs, 512 x 1 SGE */
	want = (struct ib_qp_cap){ .max_send_wr = 128, .max_recv_wr = 512,
				   .max_send_sge = 2, .max_recv_sge = 1 };
	KUNIT_ASSERT_EQ(test, softhca_kqp_geometry(&test_caps,
						   SOFTHCA_QPT_GSI, &want,
						   false, &g), 0);
	/* ctrl + AV (3) + 2 SGEs = 6 units: 2 blocks, 8 units */
	KUNIT_EXPECT_EQ(test, g.wqe_bbs, 2u);
	KUNIT_EXPECT_EQ(test, g.sq_wqe_cnt, 256u);
	KUNIT_EXPECT_EQ(test, g.cap.max_send_wr, 128u);
	KUNIT_EXPECT_EQ(test, g.cap.max_send_sge, 4u);
	KUNIT_EXPECT_EQ(test, g.cap.max_inline_data, 4u * 16 - 4);
	KUNIT_EXPECT_EQ(test, g.rq_wqe_cnt, 512u);
	KUNIT_EXPECT_EQ(test, g.rq_stride, 16u);
	KUNIT_EXPECT_EQ(test, g.cap.max_recv_wr, 512u);
	KUNIT_EXPECT_EQ(test, g.cap.max_recv_sge, 1u);

	/* nvme-rdma: 3 * 128 + 1 sends of 5 SGEs */
	want = (struct ib_qp_cap){ .max_send_wr = 385, .max_recv_wr = 129,
				   .max_send_sge = 5, .max_recv_sge = 1 };
	KUNIT_ASSERT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_RC,
						   &want, false, &g), 0);
	KUNIT_EXPECT_EQ(test, g.wqe_bbs, 2u);
	KUNIT_EXPECT_EQ(test, g.sq_wqe_cnt, 1024u);
	KUNIT_EXPECT_EQ(test, g.cap.max_send_wr, 512u);
	KUNIT_EXPECT_EQ(test, g.cap.max_send_sge, 6u);
	KUNIT_EXPECT_EQ(test, g.cap.max_inline_data, 6u * 16 - 4);
	KUNIT_EXPECT_EQ(test, g.rq_wqe_cnt, 256u);
	KUNIT_EXPECT_EQ(test, g.cap.max_recv_wr, 256u);

	/* 256 inline bytes: 2 + 17 units, 5 blocks; SGEs capped at 16 */
	want = (struct ib_qp_cap){ .max_send_wr = 3, .max_recv_wr = 0,
				   .max_send_sge = 1, .max_recv_sge = 3,
				   .max_inline_data = 256 };
	KUNIT_ASSERT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_RC,
						   &want, false, &g), 0);
	KUNIT_EXPECT_EQ(test, g.wqe_bbs, 5u);
	KUNIT_EXPECT_EQ(test, g.sq_wqe_cnt, 16u);
	KUNIT_EXPECT_EQ(test, g.cap.max_send_wr, 3u);
	KUNIT_EXPECT_EQ(test, g.cap.max_send_sge, 16u);
	KUNIT_EXPECT_EQ(test, g.cap.max_inline_data, 256u);
	KUNIT_EXPECT_EQ(test, g.rq_wqe_cnt, 1u);
	KUNIT_EXPECT_EQ(test, g.rq_stride, 64u);
	KUNIT_EXPECT_EQ(test, g.cap.max_recv_sge, 4u);

	/* on an SRQ: no RQ, its asks ignored */
	want = (struct ib_qp_cap){ .max_send_wr = 16, .max_recv_wr = 1u << 30,
				   .max_send_sge = 1, .max_recv_sge = 99 };
	KUNIT_ASSERT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_RC,
						   &want, true, &g), 0);
	KUNIT_EXPECT_EQ(test, g.rq_wqe_cnt, 0u);
	KUNIT_EXPECT_EQ(test, g.cap.max_recv_wr, 0u);
	KUNIT_EXPECT_EQ(test, g.cap.max_recv_sge, 0u);

	/* beyond the device */
	want = (struct ib_qp_cap){ .max_send_wr = 1, .max_send_sge = 17 };
	KUNIT_EXPECT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_RC,
						   &want, false, &g), -EINVAL);
	want = (struct ib_qp_cap){ .max_send_wr = 1, .max_inline_data = 257 };
	KUNIT_EXPECT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_RC,
						   &want, false, &g), -EINVAL);
	want = (struct ib_qp_cap){ .max_send_wr = 32769 };
	KUNIT_EXPECT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_RC,
						   &want, false, &g), -EINVAL);
	want = (struct ib_qp_cap){ .max_recv_wr = 32769 };
	KUNIT_EXPECT_EQ(test, softhca_kqp_geometry(&test_caps, SOFTHCA_QPT_UD,
						   &want, false, &g), -EINVAL);
}

/* Kernel SRQ sizing: one spare WQE, strides of 32 bytes and up. */
static void srq_geometry_test(struct kunit *test)
{
	struct ib_srq_attr want = { .max_wr = 100, .max_sge = 3 }, got;
	u32 log_size, stride;

	KUNIT_ASSERT_EQ(test, softhca_srq_geometry(&test_caps, &want,
						   &log_size, &stride, &got), 0);
	KUNIT_EXPECT_EQ(test, log_size, 7u);
	KUNIT_EXPECT_EQ(test, stride, 64u);
	KUNIT_EXPECT_EQ(test, got.max_wr, 127u);
	KUNIT_EXPECT_EQ(test, got.max_sge, 3u);

	want = (struct ib_srq_attr){ .max_wr = 1, .max_sge = 0 };
	KUNIT_ASSERT_EQ(test, softhca_srq_geometry(&test_caps, &want,
						   &log_size, &stride, &got), 0);
	KUNIT_EXPECT_EQ(test, log_size, 1u);
	KUNIT_EXPECT_EQ(test, stride, 32u);
	KUNIT_EXPECT_EQ(test, got.max_wr, 1u);
	KUNIT_EXPECT_EQ(test, got.max_sge, 1u);

	want = (struct ib_srq_attr){ .max_wr = 127, .max_sge = 16 };
	KUNIT_ASSERT_EQ(test, softhca_srq_geometry(&test_caps, &want,
						   &log_size, &stride, &got), 0);
	KUNIT_EXPECT_EQ(test, log_size, 7u);
	KUNIT_EXPECT_EQ(test, stride, 512u);
	KUNIT_EXPECT_EQ(test, got.max_sge, 16u);

	want = (struct ib_srq_attr){ .max_wr = 0, .max_sge = 1 };
	KUNIT_EXPECT_EQ(test, softhca_srq_geometry(&test_caps, &want,
						   &log_size, &stride, &got),
			-EINVAL);
	want = (struct ib_srq_attr){ .max_wr = 32768, .max_sge = 1 };
	KUNIT_EXPECT_EQ(test, softhca_srq_geometry(&test_caps, &want,
						   &log_size, &stride, &got),
			-EINVAL);
	want = (struct ib_srq_attr){ .max_wr = 1, .max_sge = 17 };
	KUNIT_EXPECT_EQ(test, softhca_srq_geometry(&test_caps, &want,
						   &log_size, &stride, &got),
			-EINVAL);
}

static struct kunit_case kq_cases[] = {
	KUNIT_CASE(ksq_retire_unsignaled_test),
	KUNIT_CASE(ksq_full_test),
	KUNIT_CASE(ksq_wrap_test),
	KUNIT_CASE(krq_test),
	KUNIT_CASE(ksrq_free_list_test),
	KUNIT_CASE(kqp_geometry_test),
	KUNIT_CASE(srq_geometry_test),
	{}
};

static struct kunit_suite kq_suite = {
	.name = "softhca_kq",
	.test_cases = kq_cases,
};

kunit_test_suite(kq_suite);

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_kpost": ib_send_wr to struct softhca_send_wr
 * (softhca_kwr_convert() in kernel/softhca_post.c) for every opcode the
 * card has, and the bytes the shared encoder then writes into a ring
 * (softhca_ksq_post()), segment by segment against values written down
 * here: control segments (index, opcode, units, flags, immediate data or
 * the key to invalidate), remote address, atomic, data and inline
 * segments, the address vector of UD and GSI sends (with the GSI Q_Key),
 * the REG_MR segment from a fast-registration MR that map_mr_sg filled.
 * Opcodes, flags and WRs the card has no WQE for are refused.
 */
#include <kunit/test.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "softhca.h"

static struct ib_sge sg3[3] = {
	{ .addr = 0x1111000, .length = 0x100, .lkey = 0x101 },
	{ .addr = 0x2222000, .length = 0x200, .lkey = 0x202 },
	{ .addr = 0x3333000, .length = 0x8, .lkey = 0x303 },
};

static void make_sq(struct kunit *test, struct softhca_ksq *sq, u8 qp_type)
{
	memset(sq, 0, sizeof(*sq));
	sq->ring.wqe_cnt = 16;
	sq->ring.buf = kunit_kzalloc(test, 16 * SOFTHCA_WQEBB_SIZE, GFP_KERNEL);
	sq->caps.qp_type = qp_type;
	sq->caps.priv = 1;
	sq->caps.max_sge = 4;
	sq->caps.max_inline = 64;
	sq->max_wr = 16;
	sq->wrid = kunit_kcalloc(test, 16, sizeof(u64), GFP_KERNEL);
	sq->wqe_head = kunit_kcalloc(test, 16, sizeof(u32), GFP_KERNEL);
	sq->nbb = kunit_kcalloc(test, 16, sizeof(u8), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sq->ring.buf && sq->wrid && sq->wqe_head &&
			  sq->nbb);
}

/* Convert and post @wr on @sq at its current producer block. */
static int post(struct kunit *test, struct softhca_ksq *sq,
		const struct ib_send_wr *wr, bool sig_all)
{
	struct softhca_kwr k;
	int ret;

	ret = softhca_kwr_convert(wr, sq->caps.qp_type, sig_all, &k);
	if (ret)
		return ret;
	return softhca_ksq_post(sq, &k.swr, wr->wr_id);
}

static const void *unit_at(const struct softhca_ksq *sq, u32 bb, u32 unit)
{
	return sq->ring.buf + ((bb * SOFTHCA_WQEBB_SIZE +
				unit * SOFTHCA_WQE_DS_SIZE) &
			       (sq->ring.wqe_cnt * SOFTHCA_WQEBB_SIZE - 1));
}

static void expect_ctrl(struct kunit *test, const struct softhca_ksq *sq,
			u32 bb, u8 opcode, u8 ds, u8 flags, __be32 imm)
{
	const struct softhca_wqe_ctrl *c = unit_at(sq, bb, 0);

	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->wqe_index), (u16)bb);
	KUNIT_EXPECT_EQ(test, c->opcode, opcode);
	KUNIT_EXPECT_EQ(test, c->ds, ds);
	KUNIT_EXPECT_EQ(test, c->flags, flags);
	KUNIT_EXPECT_EQ(test, (__force u32)c->imm, (__force u32)imm);
}

static void expect_data(struct kunit *test, const struct softhca_ksq *sq,
			u32 bb, u32 unit, const struct ib_sge *sg, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		const struct softhca_wqe_data *d = unit_at(sq, bb, unit + i);

		KUNIT_EXPECT_EQ(test, le64_to_cpu(d->addr), sg[i].addr);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(d->byte_count), sg[i].length);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(d->lkey), sg[i].lkey);
	}
}

static void expect_raddr(struct kunit *test, const struct softhca_ksq *sq,
			 u32 bb, u64 addr, u32 rkey)
{
	const struct softhca_wqe_raddr *ra = unit_at(sq, bb, 1);

	KUNIT_EXPECT_EQ(test, le64_to_cpu(ra->addr), addr);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ra->rkey), rkey);
}

/* SEND, SEND_WITH_IMM, SEND_WITH_INV and the send flags. */
static void kwr_send_test(struct kunit *test)
{
	struct ib_send_wr wr = {
		.wr_id = 0x51, .sg_list = sg3, .num_sge = 2,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	struct softhca_kwr k;
	struct softhca_ksq sq;

	make_sq(test, &sq, SOFTHCA_QPT_RC);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr, false), 0);
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_SEND, 3, SOFTHCA_WQE_F_SIGNALED,
		    0);
	expect_data(test, &sq, 0, 1, sg3, 2);
	KUNIT_EXPECT_EQ(test, sq.wrid[0], 0x51ull);

	/* unsignaled unless the QP signals all; the other flags map 1:1 */
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.ex.imm_data = cpu_to_be32(0xfeedbeef);
	wr.send_flags = IB_SEND_SOLICITED | IB_SEND_FENCE;
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr, false), 0);
	expect_ctrl(test, &sq, 1, SOFTHCA_WQE_SEND_IMM, 3,
		    SOFTHCA_WQE_F_SOLICITED | SOFTHCA_WQE_F_FENCE,
		    cpu_to_be32(0xfeedbeef));
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr, true), 0);
	expect_ctrl(test, &sq, 2, SOFTHCA_WQE_SEND_IMM, 3,
		    SOFTHCA_WQE_F_SIGNALED | SOFTHCA_WQE_F_SOLICITED |
		    SOFTHCA_WQE_F_FENCE, cpu_to_be32(0xfeedbeef));

	/* the rkey to invalidate travels in ctrl.imm, network order */
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = 0x12345678;
	wr.send_flags = 0;
	KUNIT_ASSERT_EQ(test, softhca_kwr_convert(&wr, SOFTHCA_QPT_RC, false,
						  &k), 0);
	KUNIT_EXPECT_EQ(test, k.swr.opcode, (u8)SOFTHCA_WQE_SEND_INV);
	KUNIT_EXPECT_EQ(test, k.swr.inv_key, 0x12345678u);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr, false), 0);
	expect_ctrl(test, &sq, 3, SOFTHCA_WQE_SEND_INV, 3, 0,
		    cpu_to_be32(0x12345678));
	/* SEND_WITH_INV is RC only */
	make_sq(test, &sq, SOFTHCA_QPT_UC);
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr, false), -EINVAL);
}

/* RDMA WRITE (with immediate) and READ: remote address then data. */
static void kwr_rdma_test(struct kunit *test)
{
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 7, .sg_list = sg3, .num_sge = 3,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = 0xdead0000beefull, .rkey = 0xabcd01,
	};
	struct softhca_ksq sq;

	make_sq(test, &sq, SOFTHCA_QPT_RC);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_RDMA_WRITE, 5,
		    SOFTHCA_WQE_F_SIGNALED, 0);
	expect_raddr(test, &sq, 0, 0xdead0000beefull, 0xabcd01);
	expect_data(test, &sq, 0, 2, sg3, 3);
	KUNIT_EXPECT_EQ(test, sq.pi, 2u);

	wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.ex.imm_data = cpu_to_be32(0x01020304);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	expect_ctrl(test, &sq, 2, SOFTHCA_WQE_RDMA_WRITE_IMM, 5,
		    SOFTHCA_WQE_F_SIGNALED, cpu_to_be32(0x01020304));
	expect_raddr(test, &sq, 2, 0xdead0000beefull, 0xabcd01);

	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	expect_ctrl(test, &sq, 4, SOFTHCA_WQE_RDMA_READ, 3,
		    SOFTHCA_WQE_F_SIGNALED, 0);
	expect_raddr(test, &sq, 4, 0xdead0000beefull, 0xabcd01);
	expect_data(test, &sq, 4, 2, sg3, 1);

	/* ib_drain_qp's WR: an unsignaled RDMA WRITE without SGEs */
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.num_sge = 0;
	wr.wr.send_flags = 0;
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	expect_ctrl(test, &sq, 5, SOFTHCA_WQE_RDMA_WRITE, 2, 0, 0);

	/* READ is RC only; inline READ has nowhere to land */
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, false), -EINVAL);
	make_sq(test, &sq, SOFTHCA_QPT_UC);
	wr.wr.send_flags = 0;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, false), -EINVAL);
}

/* Compare-and-swap and fetch-and-add: one 8-byte SGE. */
static void kwr_atomic_test(struct kunit *test)
{
	struct ib_atomic_wr wr = {
		.wr = { .wr_id = 9, .sg_list = &sg3[2], .num_sge = 1,
			.opcode = IB_WR_ATOMIC_CMP_AND_SWP },
		.remote_addr = 0x7000008, .rkey = 0x5501,
		.compare_add = 0x1111222233334444ull,
		.swap = 0x5555666677778888ull,
	};
	const struct softhca_wqe_atomic *at;
	struct softhca_ksq sq;

	make_sq(test, &sq, SOFTHCA_QPT_RC);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, true), 0);
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_ATOMIC_CS, 4,
		    SOFTHCA_WQE_F_SIGNALED, 0);
	expect_raddr(test, &sq, 0, 0x7000008, 0x5501);
	at = unit_at(&sq, 0, 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->swap_add), 0x5555666677778888ull);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->compare), 0x1111222233334444ull);
	expect_data(test, &sq, 0, 3, &sg3[2], 1);

	wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, true), 0);
	expect_ctrl(test, &sq, 1, SOFTHCA_WQE_ATOMIC_FA, 4,
		    SOFTHCA_WQE_F_SIGNALED, 0);
	at = unit_at(&sq, 1, 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->swap_add), 0x1111222233334444ull);

	/* exactly one SGE of 8 bytes */
	wr.wr.sg_list = sg3;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, true), -EINVAL);
	wr.wr.sg_list = &sg3[2];
	wr.wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, true), -EINVAL);
}

/* A fast-registration MR, as alloc_mr leaves it, on a fake device. */
static struct softhca_mr *fake_fast_reg_mr(struct kunit *test,
					   struct softhca_dev *dev,
					   u32 max_pages)
{
	struct softhca_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->kind = SOFTHCA_MR_FAST_REG;
	mr->mkey = 0x1234500;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	mr->ibmr.device = &dev->ibdev;
	mr->max_pages = max_pages;
	mr->pages = kunit_kcalloc(test, max_pages, sizeof(__le64), GFP_KERNEL);
	mr->pages_dma = 0x9990000;
	KUNIT_ASSERT_NOT_NULL(test, mr->pages);
	return mr;
}

static struct softhca_dev *fake_dev(struct kunit *test)
{
	struct softhca_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->caps.page_size_cap = SZ_4K | SZ_2M | SZ_1G;
	return dev;
}

/* map_mr_sg: ib_sg_to_pages() cut into 4 KiB pages, iova and length. */
static void map_mr_sg_test(struct kunit *test)
{
	struct softhca_dev *dev = fake_dev(test);
	struct softhca_mr *mr = fake_fast_reg_mr(test, dev, 4);
	struct scatterlist sgl[3];
	unsigned int i;
	static const u64 want[] = { 0x10000000, 0x20000000, 0x20001000,
				    0x30000000 };

	sg_init_table(sgl, 3);
	sg_dma_address(&sgl[0]) = 0x10000200;
	sg_dma_len(&sgl[0]) = 0xe00;
	sg_dma_address(&sgl[1]) = 0x20000000;
	sg_dma_len(&sgl[1]) = 0x2000;
	sg_dma_address(&sgl[2]) = 0x30000000;
	sg_dma_len(&sgl[2]) = 0x100;
	mr->ibmr.page_size = SZ_4K;
	KUNIT_ASSERT_EQ(test, softhca_map_mr_sg(&mr->ibmr, sgl, 3, NULL), 3);
	KUNIT_EXPECT_EQ(test, mr->npages, 4u);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(mr->pages[i]), want[i]);
	KUNIT_EXPECT_EQ(test, mr->ibmr.iova, 0x10000200ull);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 0xe00ull + 0x2000 + 0x100);

	/* a list of 3 pages maps the first two entries only */
	mr = fake_fast_reg_mr(test, dev, 3);
	mr->ibmr.page_size = SZ_4K;
	KUNIT_EXPECT_EQ(test, softhca_map_mr_sg(&mr->ibmr, sgl, 3, NULL), 2);
	KUNIT_EXPECT_EQ(test, mr->npages, 3u);

	/* pages the card does not take, or another kind of MR */
	mr->ibmr.page_size = SZ_64K;
	KUNIT_EXPECT_EQ(test, softhca_map_mr_sg(&mr->ibmr, sgl, 3, NULL),
			-EINVAL);
	mr->ibmr.page_size = SZ_4K;
	mr->kind = SOFTHCA_MR_USER;
	KUNIT_EXPECT_EQ(test, softhca_map_mr_sg(&mr->ibmr, sgl, 3, NULL),
			-EINVAL);
}

/* REG_MR: the REG_MR segment from the MR; LOCAL_INV: the key in imm. */
static void kwr_reg_mr_test(struct kunit *test)
{
	struct softhca_dev *dev = fake_dev(test);
	struct softhca_mr *mr = fake_fast_reg_mr(test, dev, 8);
	const struct softhca_wqe_reg_mr *reg;
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 0x77, .opcode = IB_WR_REG_MR },
		.mr = &mr->ibmr,
		.key = 0x12345a7,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_send_wr inv = {
		.wr_id = 0x78, .opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = 0x12345a7,
	};
	struct softhca_ksq sq;

	mr->ibmr.page_size = SZ_4K;
	mr->ibmr.iova = 0x10000200;
	mr->ibmr.length = 0x2f00;
	mr->npages = 3;
	make_sq(test, &sq, SOFTHCA_QPT_RC);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_REG_MR, 4, 0, 0);
	reg = unit_at(&sq, 0, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(reg->mkey), 0x12345a7u);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(reg->access),
			(u32)(SOFTHCA_ACCESS_LOCAL_WRITE |
			      SOFTHCA_ACCESS_REMOTE_READ |
			      SOFTHCA_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(reg->iova), 0x10000200ull);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(reg->length), 0x2f00ull);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(reg->page_list), 0x9990000ull);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(reg->npages), 3u);
	KUNIT_EXPECT_EQ(test, reg->log_page_size, 12);
	KUNIT_EXPECT_EQ(test, sq.pi, 1u);

	KUNIT_ASSERT_EQ(test, post(test, &sq, &inv, true), 0);
	expect_ctrl(test, &sq, 1, SOFTHCA_WQE_LOCAL_INV, 1,
		    SOFTHCA_WQE_F_SIGNALED, cpu_to_be32(0x12345a7));

	/* another MR's key, another kind of MR, no privilege, a UD QP */
	wr.key = 0x12346a7;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, false), -EINVAL);
	wr.key = 0x12345a8;
	mr->kind = SOFTHCA_MR_DMA;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, false), -EINVAL);
	mr->kind = SOFTHCA_MR_FAST_REG;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	sq.caps.priv = 0;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, post(test, &sq, &inv, false), -EINVAL);
	make_sq(test, &sq, SOFTHCA_QPT_UD);
	KUNIT_EXPECT_EQ(test, post(test, &sq, &inv, false), -EINVAL);
}

/* A fake AH whose vector the test knows. */
static struct softhca_ah *fake_ah(struct kunit *test)
{
	struct softhca_ah *ah = kunit_kzalloc(test, sizeof(*ah), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, ah);
	for (i = 0; i < 16; i++)
		ah->av.dgid[i] = 0xf0 + i;
	for (i = 0; i < 6; i++)
		ah->av.dmac[i] = 0x50 + i;
	ah->av.sgid_index = 3;
	ah->av.hop_limit = 64;
	ah->av.traffic_class = 0x28;
	ah->av.flow_label = cpu_to_le32(0xabcde);
	return ah;
}

/* UD and GSI sends: the AH's vector to remote_qpn, then the data. */
static void kwr_ud_test(struct kunit *test)
{
	struct softhca_ah *ah = fake_ah(test);
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 0x61, .sg_list = sg3, .num_sge = 2,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.ah = &ah->ibah, .remote_qpn = 0x654321,
		.remote_qkey = 0x11223344,
	};
	const struct softhca_wqe_av *av;
	struct softhca_ksq sq;

	make_sq(test, &sq, SOFTHCA_QPT_UD);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, false), 0);
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_SEND, 6, SOFTHCA_WQE_F_SIGNALED,
		    0);
	av = unit_at(&sq, 0, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->dest_qpn), 0x654321u);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->qkey), 0x11223344u);
	KUNIT_EXPECT_EQ(test, av->dgid[0], 0xf0);
	KUNIT_EXPECT_EQ(test, av->dgid[15], 0xff);
	KUNIT_EXPECT_EQ(test, av->dmac[0], 0x50);
	KUNIT_EXPECT_EQ(test, av->dmac[5], 0x55);
	KUNIT_EXPECT_EQ(test, av->sgid_index, 3);
	KUNIT_EXPECT_EQ(test, av->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, av->traffic_class, 0x28);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->flow_label), 0xabcdeu);
	expect_data(test, &sq, 0, 4, sg3, 2);
	/* the AH itself is untouched: each send has its own QPN and Q_Key */
	KUNIT_EXPECT_EQ(test, ah->av.dest_qpn, 0u);
	KUNIT_EXPECT_EQ(test, sq.pi, 2u);

	/* a MAD on QP1: the GSI Q_Key whatever was asked */
	make_sq(test, &sq, SOFTHCA_QPT_GSI);
	wr.remote_qpn = 1;
	wr.remote_qkey = 0x80000000;	/* IB_QP_SET_QKEY */
	wr.wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.wr.ex.imm_data = cpu_to_be32(0x99);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr.wr, true), 0);
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_SEND_IMM, 6,
		    SOFTHCA_WQE_F_SIGNALED, cpu_to_be32(0x99));
	av = unit_at(&sq, 0, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->dest_qpn), 1u);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->qkey), 0x80010000u);

	/* no AH, a P_Key index the port does not have, RDMA on UD */
	wr.wr.opcode = IB_WR_SEND;
	wr.ah = NULL;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, true), -EINVAL);
	wr.ah = &ah->ibah;
	wr.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, true), -EINVAL);
	wr.pkey_index = 0;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr.wr, true), -EINVAL);
	/* only the MAD went in: 6 units, 2 blocks */
	KUNIT_EXPECT_EQ(test, sq.pi, 2u);
	KUNIT_EXPECT_EQ(test, sq.head, 1u);
}

/* IB_SEND_INLINE copies the bytes from the kernel addresses in the SGEs. */
static void kwr_inline_test(struct kunit *test)
{
	static const char a[] = "softhca inline ";	/* 15 bytes + NUL */
	static const char b[] = "data from two SGEs";
	struct ib_sge sg[2] = {
		{ .addr = (uintptr_t)a, .length = 15 },
		{ .addr = (uintptr_t)b, .length = 18 },
	};
	struct ib_send_wr wr = {
		.wr_id = 3, .sg_list = sg, .num_sge = 2, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_INLINE,
	};
	const struct softhca_wqe_inline *ih;
	struct softhca_ksq sq;
	const u8 *bytes;

	make_sq(test, &sq, SOFTHCA_QPT_RC);
	KUNIT_ASSERT_EQ(test, post(test, &sq, &wr, false), 0);
	/* 4 + 33 bytes: 3 units after the control segment */
	expect_ctrl(test, &sq, 0, SOFTHCA_WQE_SEND, 4, SOFTHCA_WQE_F_INLINE,
		    0);
	ih = unit_at(&sq, 0, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ih->byte_count), 33u);
	bytes = (const u8 *)ih + sizeof(*ih);
	KUNIT_EXPECT_EQ(test, memcmp(bytes, a, 15), 0);
	KUNIT_EXPECT_EQ(test, memcmp(bytes + 15, b, 18), 0);

	/* more than the QP's max_inline */
	sg[1].length = 64;
	KUNIT_EXPECT_EQ(test, post(test, &sq, &wr, false), -EINVAL);
}

/* What the card has no WQE for. */
static void kwr_refused_test(struct kunit *test)
{
	static const enum ib_wr_opcode refused[] = {
		IB_WR_LSO, IB_WR_RDMA_READ_WITH_INV, IB_WR_BIND_MW,
		IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
		IB_WR_MASKED_ATOMIC_FETCH_AND_ADD, IB_WR_REG_MR_INTEGRITY,
	};
	struct ib_send_wr wr = { .sg_list = sg3, .num_sge = 1 };
	struct softhca_kwr k;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		wr.opcode = refused[i];
		KUNIT_EXPECT_EQ(test, softhca_kwr_convert(&wr, SOFTHCA_QPT_RC,
							  false, &k), -EINVAL);
	}
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_IP_CSUM;
	KUNIT_EXPECT_EQ(test, softhca_kwr_convert(&wr, SOFTHCA_QPT_RC, false,
						  &k), -EINVAL);
	wr.send_flags = 0;
	wr.num_sge = -1;
	KUNIT_EXPECT_EQ(test, softhca_kwr_convert(&wr, SOFTHCA_QPT_RC, false,
						  &k), -EINVAL);
}

static struct kunit_case kpost_cases[] = {
	KUNIT_CASE(kwr_send_test),
	KUNIT_CASE(kwr_rdma_test),
	KUNIT_CASE(kwr_atomic_test),
	KUNIT_CASE(map_mr_sg_test),
	KUNIT_CASE(kwr_reg_mr_test),
	KUNIT_CASE(kwr_ud_test),
	KUNIT_CASE(kwr_inline_test),
	KUNIT_CASE(kwr_refused_test),
	{}
};

static struct kunit_suite kpost_suite = {
	.name = "softhca_kpost",
	.test_cases = kpost_cases,
};

kunit_test_suite(kpost_suite);

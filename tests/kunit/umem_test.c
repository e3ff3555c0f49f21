// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_umem": the block size (and a queue's page_offset)
 * the driver picks for pinned user memory, kernel/softhca_umem.c, on
 * synthetic ib_umem objects whose DMA scatterlist the test writes itself.
 *
 * The segments below play these pages (all addresses are only numbers,
 * nothing is mapped):
 *   VA      a 2 MiB aligned user address
 *   HP_A    a 2 MiB huge page; HP_C follows it physically and HP_B follows
 *           HP_C, so HP_A and HP_B are not adjacent; HP_C is 4 MiB aligned
 *   P0..P3  scattered 4 KiB pages
 * VA and HP_A/B/C agree modulo 2 MiB but not modulo 1 GiB, as a THP-backed
 * buffer does. Every queue result is also checked against the device
 * model's rule for the PAS it will get (kernel/hw/hw_pas.c): the queue
 * starts page_offset * block/64 bytes into block 0, and nblocks =
 * DIV_ROUND_UP(start + length, block) = ib_umem_num_dma_blocks().
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "softhca.h"
#include "test_util.h"

#define VA	0x7f1234400000ul
#define HP_A	0x100600000ull
#define HP_B	0x100a00000ull
#define HP_C	0x100800000ull
#define P0	0x12345000ull
#define P1	0x0abcd000ull
#define P2	0x33333000ull
#define P3	0x12346000ull

/* What the card takes (caps.page_size_cap, SOFTHCA_HW_BLOCK_SIZES). */
#define CAPS		(SZ_4K | SZ_2M | SZ_1G)
/* Every power of two from 4 KiB to 1 GiB, to see exact caps. */
#define ALL_SIZES	GENMASK(30, 12)

#define UNTOUCHED	0xaa

/* Queue block and page_offset, checked against the card's PAS rule. */
static unsigned long queue_block(struct kunit *test, struct ib_umem *umem,
				 unsigned long bitmap, u8 *page_offset)
{
	unsigned long pgsz;
	u64 start;

	*page_offset = UNTOUCHED;
	pgsz = softhca_umem_queue_block(umem, bitmap, page_offset);
	if (!pgsz) {
		KUNIT_EXPECT_EQ(test, *page_offset, UNTOUCHED);
		return 0;
	}
	KUNIT_EXPECT_TRUE(test, is_power_of_2(pgsz));
	KUNIT_EXPECT_TRUE(test, bitmap & pgsz);
	KUNIT_EXPECT_LT(test, *page_offset, SOFTHCA_PAGE_OFFSET_QUANTA);
	start = (u64)*page_offset * (pgsz / SOFTHCA_PAGE_OFFSET_QUANTA);
	/* the offset is exact: the queue starts where the user buffer does */
	KUNIT_EXPECT_EQ(test, start, (u64)(umem->address & (pgsz - 1)));
	/* ib_umem_find_best_pgsz() left iova at the queue's address */
	KUNIT_EXPECT_EQ(test, umem->iova, (u64)umem->address);
	KUNIT_EXPECT_EQ(test, (u64)ib_umem_num_dma_blocks(umem, pgsz),
			DIV_ROUND_UP_ULL(start + umem->length, pgsz));
	return pgsz;
}

static void page_aligned_test(struct kunit *test)
{
	static const struct softhca_test_seg scattered[] = {
		{ P0, SZ_4K }, { P1, SZ_4K }, { P2, SZ_4K }, { P3, SZ_4K },
	};
	static const struct softhca_test_seg run[] = { { P0, SZ_16K } };
	struct ib_umem *umem;
	u8 off;

	/* four scattered pages */
	umem = softhca_test_umem(test, VA + SZ_64K, SZ_16K, scattered, 4);
	KUNIT_EXPECT_EQ(test, softhca_test_umem_bytes(umem), (u64)SZ_16K);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA + SZ_64K),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 4ul);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0);
	/* the same with every size offered: 16 KiB is not contiguous */
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_4K);

	/* 16 KiB physically contiguous, but not 16 KiB aligned (P0) */
	umem = softhca_test_umem(test, VA + SZ_64K, SZ_16K, run, 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES,
						    VA + SZ_64K),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0);
}

static void offset_64_test(struct kunit *test)
{
	static const struct softhca_test_seg two[] = {
		{ P0, SZ_4K }, { P1, SZ_4K },
	};
	static const struct softhca_test_seg one[] = { { P2, SZ_4K } };
	struct ib_umem *umem;
	unsigned int k;
	u8 off;

	/* 4 KiB starting 64 bytes into a page: two pages, page_offset 1 */
	umem = softhca_test_umem(test, VA + SZ_64K + 64, SZ_4K, two, 2);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 1);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 2ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS,
						    VA + SZ_64K + 64),
			(unsigned long)SZ_4K);

	/* every 64-byte step in one page: page_offset k */
	for (k = 0; k < 64; k++) {
		umem = softhca_test_umem(test, VA + 64 * k, 64, one, 1);
		KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
				(unsigned long)SZ_4K);
		KUNIT_EXPECT_EQ_MSG(test, off, k, "offset %u", 64 * k);
		KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K),
				1ul);
	}
}

static void odd_offset_test(struct kunit *test)
{
	static const u32 offs[] = { 1, 2, 8, 32, 63, 65, 100, 0xfc1, 0xfff };
	static const struct softhca_test_seg two[] = {
		{ P0, SZ_4K }, { P1, SZ_4K },
	};
	struct ib_umem *umem;
	unsigned int i;
	u8 off;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		umem = softhca_test_umem(test, VA + offs[i], SZ_4K, two, 2);
		/* a queue must start on a 64-byte boundary */
		KUNIT_EXPECT_EQ_MSG(test, queue_block(test, umem, CAPS, &off),
				    0ul, "offset %#x", offs[i]);
		KUNIT_EXPECT_EQ_MSG(test,
				    queue_block(test, umem, ALL_SIZES, &off),
				    0ul, "offset %#x", offs[i]);
		/* an MR may start anywhere */
		KUNIT_EXPECT_EQ_MSG(test,
				    softhca_umem_mr_block(umem, CAPS,
							  VA + offs[i]),
				    (unsigned long)SZ_4K, "offset %#x",
				    offs[i]);
	}
}

static void huge_2m_test(struct kunit *test)
{
	/* two huge pages that are not physically adjacent */
	static const struct softhca_test_seg apart[] = {
		{ HP_A, SZ_2M }, { HP_B, SZ_2M },
	};
	/* two adjacent ones (HP_C, HP_B), merged into one segment */
	static const struct softhca_test_seg merged[] = { { HP_C, SZ_4M } };
	/* one huge page, as 512 unmerged 4 KiB segments */
	struct softhca_test_seg *pages;
	struct ib_umem *umem;
	unsigned int i;
	u8 off;

	umem = softhca_test_umem(test, VA, SZ_4M, apart, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_2M), 2ul);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, off, 0);
	/* 4 MiB is not offered; with it, the gap still caps at 2 MiB */
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_2M);

	umem = softhca_test_umem(test, VA, SZ_4M, merged, 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_2M);
	/* contiguous and 4 MiB aligned in both spaces: 4 MiB if offered */
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_4M);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4M), 1ul);

	pages = kunit_kcalloc(test, 512, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < 512; i++) {
		pages[i].dma = HP_A + (u64)i * SZ_4K;
		pages[i].len = SZ_4K;
	}
	umem = softhca_test_umem(test, VA, SZ_2M, pages, 512);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, off, 0);

	/* a whole 1 GiB page, congruent in both spaces */
	{
		static const struct softhca_test_seg gig[] = {
			{ 0x40000000ull, SZ_1G },
		};

		umem = softhca_test_umem(test, 0x7f0040000000ul, SZ_1G, gig, 1);
		KUNIT_EXPECT_EQ(test,
				softhca_umem_mr_block(umem, CAPS,
						      0x7f0040000000ull),
				(unsigned long)SZ_1G);
		KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
				(unsigned long)SZ_1G);
		KUNIT_EXPECT_EQ(test, off, 0);
	}
}

/*
 * A queue inside one huge page at k * 32 KiB gets a 2 MiB block with
 * page_offset k; a start that is no multiple of 32 KiB falls back to 4 KiB
 * blocks with the offset in 64-byte units of the 4 KiB page.
 */
static void queue_quantization_test(struct kunit *test)
{
	struct softhca_test_seg seg;
	struct ib_umem *umem;
	unsigned int k;
	u8 off;

	for (k = 0; k < 64; k++) {
		seg.dma = HP_A + (u64)k * SZ_32K;
		seg.len = SZ_32K;
		umem = softhca_test_umem(test, VA + k * SZ_32K, SZ_32K, &seg, 1);
		KUNIT_EXPECT_EQ_MSG(test, queue_block(test, umem, CAPS, &off),
				    (unsigned long)SZ_2M, "k %u", k);
		KUNIT_EXPECT_EQ_MSG(test, off, k, "k %u", k);
		KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_2M), 1ul);
	}

	/* 36 KiB + 64 B: 32 KiB + 4 KiB + 64 B into the huge page */
	seg.dma = HP_A + SZ_32K + SZ_4K;
	seg.len = 9 * SZ_4K;
	umem = softhca_test_umem(test, VA + SZ_32K + SZ_4K + 64, SZ_32K, &seg,
				 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS,
						    umem->address),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 1);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 9ul);
	/* with 64 KiB blocks offered: 0x9040 = 36 * 1 KiB + 64 */
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_4K);
	/* 16 KiB blocks have a 256-byte quantum: 0x9000 + 0x100 works */
	seg.dma = HP_A + SZ_32K + SZ_4K;
	seg.len = 9 * SZ_4K;
	umem = softhca_test_umem(test, VA + SZ_32K + SZ_4K + 0x100, SZ_32K,
				 &seg, 1);
	KUNIT_EXPECT_EQ(test,
			queue_block(test, umem, SZ_4K | SZ_16K | SZ_2M, &off),
			(unsigned long)SZ_16K);
	/* (0x9100 mod 16 KiB) / 256 = 0x1100 / 0x100 */
	KUNIT_EXPECT_EQ(test, off, 0x11);

	/* only 2 MiB offered and the start does not quantize: none fits */
	seg.dma = HP_A + SZ_32K + SZ_4K;
	seg.len = SZ_32K;
	umem = softhca_test_umem(test, VA + SZ_32K + SZ_4K, SZ_32K, &seg, 1);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, SZ_2M, &off), 0ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, SZ_2M,
						    umem->address),
			(unsigned long)SZ_2M);
}

static void huge_boundary_test(struct kunit *test)
{
	/* 8 KiB: the last page of one huge page, the first of another */
	static const struct softhca_test_seg apart[] = {
		{ HP_A + SZ_2M - SZ_4K, SZ_4K }, { HP_B, SZ_4K },
	};
	/* the same across two physically adjacent huge pages */
	static const struct softhca_test_seg adjacent[] = {
		{ HP_A + SZ_2M - SZ_4K, SZ_8K },
	};
	/* the second half is an ordinary page */
	static const struct softhca_test_seg mixed[] = {
		{ HP_A + SZ_2M - SZ_4K, SZ_4K }, { P0, SZ_4K },
	};
	/* 64 KiB at 63 * 32 KiB: 32 KiB on each side of the boundary */
	static const struct softhca_test_seg last[] = {
		{ HP_A + SZ_2M - SZ_32K, SZ_32K }, { HP_B, SZ_32K },
	};
	struct ib_umem *umem;
	u8 off;

	umem = softhca_test_umem(test, VA + SZ_2M - SZ_4K, SZ_8K, apart, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, umem->address),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_2M), 2ul);
	/* 0x1ff000 is no multiple of 32 KiB */
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 2ul);

	umem = softhca_test_umem(test, VA + SZ_2M - SZ_4K, SZ_8K, adjacent, 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, umem->address),
			(unsigned long)SZ_2M);

	umem = softhca_test_umem(test, VA + SZ_2M - SZ_4K, SZ_8K, mixed, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, umem->address),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);

	umem = softhca_test_umem(test, VA + SZ_2M - SZ_32K, SZ_64K, last, 2);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, off, 63);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_2M), 2ul);
}

static void discontiguous_cap_test(struct kunit *test)
{
	/* 4 MiB: a break in physical contiguity 1 MiB in */
	static const struct softhca_test_seg break_1m[] = {
		{ HP_A, SZ_1M }, { HP_B + SZ_1M, 3 * SZ_1M },
	};
	/* 2 MiB: a break 64 KiB in */
	static const struct softhca_test_seg break_64k[] = {
		{ HP_A, SZ_64K }, { HP_B + SZ_64K, SZ_2M - SZ_64K },
	};
	/* 2 MiB: one foreign page in the middle of a huge page */
	static const struct softhca_test_seg hole[] = {
		{ HP_A, SZ_1M }, { P0, SZ_4K },
		{ HP_A + SZ_1M + SZ_4K, SZ_1M - SZ_4K },
	};
	struct ib_umem *umem;
	u8 off;

	umem = softhca_test_umem(test, VA, SZ_4M, break_1m, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, VA),
			(unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_1M), 4ul);

	umem = softhca_test_umem(test, VA, SZ_2M, break_64k, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, VA),
			(unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);

	umem = softhca_test_umem(test, VA, SZ_2M, hole, 3);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, VA),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, ALL_SIZES, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 512ul);
}

static void zero_length_test(struct kunit *test)
{
	static const struct softhca_test_seg one[] = { { HP_A, SZ_4K } };
	struct ib_umem *umem;
	u8 off = UNTOUCHED;

	umem = softhca_test_umem(test, VA, 0, one, 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA), 0ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_queue_block(umem, CAPS, &off), 0ul);
	KUNIT_EXPECT_EQ(test, off, UNTOUCHED);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, 0), 0ul);
	/* nothing to choose from */
	umem = softhca_test_umem(test, VA, SZ_4K, one, 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, 0, VA), 0ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_queue_block(umem, 0, &off), 0ul);
	KUNIT_EXPECT_EQ(test, off, UNTOUCHED);
}

static void single_byte_test(struct kunit *test)
{
	static const struct softhca_test_seg huge[] = { { HP_A, SZ_4K } };
	struct ib_umem *umem;
	u8 off;

	/* one byte in a huge page still takes the smallest block */
	umem = softhca_test_umem(test, VA, 1, huge, 1);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, VA),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 1ul);

	umem = softhca_test_umem(test, VA + 0xfc0, 1, huge, 1);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 63);

	/* the last byte of a page */
	umem = softhca_test_umem(test, VA + 0xfff, 1, huge, 1);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off), 0ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA + 0xfff),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 1ul);
}

static void cap_4k_only_test(struct kunit *test)
{
	static const struct softhca_test_seg apart[] = {
		{ HP_A, SZ_2M }, { HP_B, SZ_2M },
	};
	struct ib_umem *umem;
	u8 off;

	umem = softhca_test_umem(test, VA, SZ_4M, apart, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, SZ_4K, VA),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, SZ_4K, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 1024ul);

	umem = softhca_test_umem(test, VA + 0x840, SZ_4M - SZ_4K, apart, 2);
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, SZ_4K, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0x21);
	/* with 2 MiB offered too: 0x840 is no multiple of 32 KiB */
	KUNIT_EXPECT_EQ(test, queue_block(test, umem, CAPS, &off),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 0x21);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, SZ_4K,
						    umem->address),
			(unsigned long)SZ_4K);
}

/* An MKEY starts at iova mod block: iova decides as much as the memory. */
static void mr_iova_test(struct kunit *test)
{
	static const struct softhca_test_seg apart[] = {
		{ HP_A, SZ_2M }, { HP_B, SZ_2M },
	};
	struct ib_umem *umem;

	umem = softhca_test_umem(test, VA, SZ_4M, apart, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA),
			(unsigned long)SZ_2M);
	/* same offset modulo 2 MiB */
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, umem->iova, 0ull);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_2M), 2ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0x200000),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS,
						    0x123400000ull),
			(unsigned long)SZ_2M);
	/* same offset modulo 4 KiB only */
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0x1000),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, umem->iova, 0x1000ull);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 1024ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA + 0x3000),
			(unsigned long)SZ_4K);
	/* with every size: the largest power of two iova and memory share */
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, 0x10000),
			(unsigned long)SZ_64K);
	/* different offsets even modulo 4 KiB: no block fits */
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0x1800), 0ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, VA + 8), 0ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, ALL_SIZES, 0x40),
			0ul);
	/* iova + length wraps past 2^64 */
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS,
						    U64_MAX - SZ_1M + 1), 0ul);
	/* ... and the highest iova that does not */
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS,
						    U64_MAX - SZ_4M + 1),
			(unsigned long)SZ_2M);

	/* a buffer 0x100 into a huge page, registered at iova 0x100 */
	umem = softhca_test_umem(test, VA + 0x100, SZ_4M - 0x100, apart, 2);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0x100),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_2M), 2ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0x200100),
			(unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0x1100),
			(unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(umem, SZ_4K), 1024ul);
	KUNIT_EXPECT_EQ(test, softhca_umem_mr_block(umem, CAPS, 0), 0ul);
}

static struct kunit_case softhca_umem_cases[] = {
	KUNIT_CASE(page_aligned_test),
	KUNIT_CASE(offset_64_test),
	KUNIT_CASE(odd_offset_test),
	KUNIT_CASE(huge_2m_test),
	KUNIT_CASE(queue_quantization_test),
	KUNIT_CASE(huge_boundary_test),
	KUNIT_CASE(discontiguous_cap_test),
	KUNIT_CASE(zero_length_test),
	KUNIT_CASE(single_byte_test),
	KUNIT_CASE(cap_4k_only_test),
	KUNIT_CASE(mr_iova_test),
	{}
};

static struct kunit_suite softhca_umem_suite = {
	.name = "softhca_umem",
	.test_cases = softhca_umem_cases,
};

kunit_test_suite(softhca_umem_suite);

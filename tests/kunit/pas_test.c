// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_pas": the driver's PAS list building,
 * kernel/softhca_pas.c. Where entry i of an n-entry list goes
 * (softhca_pas_slot), chaining list pages (softhca_pas_link) and writing
 * the block addresses of pinned memory (softhca_pas_fill_umem) on
 * synthetic ib_umem objects. Every list slot is checked: data slots hold
 * exactly the expected little-endian address, every other slot keeps the
 * fill pattern it started with.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "softhca.h"
#include "test_util.h"

#define VA	0x7f1234400000ul
#define HP_A	0x100600000ull
#define HP_B	0x100a00000ull

#define FILL_BYTE	0xa5
#define FILL		0xa5a5a5a5a5a5a5a5ull

/*
 * The list layout, computed independently of the driver: walk the
 * entries in order; the last slot of a page becomes a link when more than
 * one entry is still to be placed.
 */
struct pas_walk {
	u32 n;
	u32 i;
	u32 page;
	u32 slot;
};

static void pas_walk_next(struct pas_walk *w, u32 *page, u32 *slot)
{
	if (w->slot == SOFTHCA_PAS_PER_PAGE - 1 && w->n - w->i > 1) {
		w->page++;
		w->slot = 0;
	}
	*page = w->page;
	*slot = w->slot;
	w->slot++;
	w->i++;
}

static void slot_check_n(struct kunit *test, u32 n)
{
	u32 npages = softhca_pas_list_pages(n), i, page, slot, rp, rs;
	struct pas_walk w = { .n = n };
	unsigned long *used;

	used = kunit_kcalloc(test, BITS_TO_LONGS(npages * 512),
			     sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, used);
	for (i = 0; i < n; i++) {
		softhca_pas_slot(i, npages, &page, &slot);
		pas_walk_next(&w, &rp, &rs);
		KUNIT_ASSERT_EQ_MSG(test, page, rp, "n %u index %u", n, i);
		KUNIT_ASSERT_EQ_MSG(test, slot, rs, "n %u index %u", n, i);
		KUNIT_ASSERT_LT(test, page, npages);
		KUNIT_ASSERT_LT(test, slot, 512u);
		/* the link slot of a page with a successor never holds data */
		if (page + 1 < npages)
			KUNIT_ASSERT_NE_MSG(test, slot, 511u, "n %u index %u",
					    n, i);
		KUNIT_ASSERT_FALSE_MSG(test,
				       __test_and_set_bit(page * 512 + slot,
							  used),
				       "n %u index %u reuses (%u,%u)", n, i,
				       page, slot);
	}
	/* the walk used exactly the pages the list has */
	KUNIT_EXPECT_EQ_MSG(test, w.page + 1, npages, "n %u", n);
	KUNIT_EXPECT_EQ(test, bitmap_weight(used, npages * 512), n);
}

static void slot_small_test(struct kunit *test)
{
	static const u32 ns[] = { 1, 2, 510, 511, 512, 513, 514, 1022, 1023,
				  1024, 1025, 1534, 1535, 1536 };
	u32 page, slot;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ns); i++)
		slot_check_n(test, ns[i]);

	/* concrete positions */
	softhca_pas_slot(511, 1, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 0u);
	KUNIT_EXPECT_EQ(test, slot, 511u);
	softhca_pas_slot(510, 2, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 0u);
	KUNIT_EXPECT_EQ(test, slot, 510u);
	softhca_pas_slot(511, 2, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 1u);
	KUNIT_EXPECT_EQ(test, slot, 0u);
	softhca_pas_slot(1022, 2, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 1u);
	KUNIT_EXPECT_EQ(test, slot, 511u);
	softhca_pas_slot(1021, 3, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 1u);
	KUNIT_EXPECT_EQ(test, slot, 510u);
	softhca_pas_slot(1022, 3, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 2u);
	KUNIT_EXPECT_EQ(test, slot, 0u);
	softhca_pas_slot(1023, 3, &page, &slot);
	KUNIT_EXPECT_EQ(test, page, 2u);
	KUNIT_EXPECT_EQ(test, slot, 1u);
}

static void slot_large_test(struct kunit *test)
{
	/* every index of 1 GiB in 4 KiB blocks (513 pages) and more */
	static const u32 ns[] = { 262144, 262145, 1000000 };
	/* 2^32 - 1 entries: 8405025 pages, the last holding 31 */
	static const struct {
		u32 index, page, slot;
	} spots[] = {
		{ 0, 0, 0 },
		{ 510, 0, 510 },
		{ 511, 1, 0 },
		{ 4294967263u, 8405023, 510 },
		{ 4294967264u, 8405024, 0 },
		{ 0xfffffffeu, 8405024, 30 },
	};
	u32 page, slot, npages = softhca_pas_list_pages(0xffffffffu);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ns); i++)
		slot_check_n(test, ns[i]);

	KUNIT_ASSERT_EQ(test, npages, 8405025u);
	for (i = 0; i < ARRAY_SIZE(spots); i++) {
		u64 ref_page = min_t(u64, spots[i].index / 511, npages - 1);

		softhca_pas_slot(spots[i].index, npages, &page, &slot);
		KUNIT_EXPECT_EQ_MSG(test, page, spots[i].page, "index %u",
				    spots[i].index);
		KUNIT_EXPECT_EQ_MSG(test, slot, spots[i].slot, "index %u",
				    spots[i].index);
		KUNIT_EXPECT_EQ(test, (u64)page, ref_page);
		KUNIT_EXPECT_EQ(test, (u64)slot,
				spots[i].index - ref_page * 511);
	}
}

/* @npages list pages filled with FILL_BYTE, freed at the end of the case. */
static __le64 **list_pages(struct kunit *test, u32 npages)
{
	__le64 **pages = kunit_kcalloc(test, npages, sizeof(*pages),
				       GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < npages; i++) {
		pages[i] = kunit_kmalloc(test, SOFTHCA_PAS_PAGE_SIZE,
					 GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		memset(pages[i], FILL_BYTE, SOFTHCA_PAS_PAGE_SIZE);
	}
	return pages;
}

/*
 * Every slot of the list: entry i (by the independent walk) holds
 * want[i], every other slot (links included) still holds FILL.
 */
static void check_list(struct kunit *test, __le64 **pages, u32 npages,
		       const u64 *want, u32 n)
{
	struct pas_walk w = { .n = n };
	unsigned long *seen;
	u32 i, page, slot;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(npages * 512), sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < n; i++) {
		pas_walk_next(&w, &page, &slot);
		KUNIT_ASSERT_LT(test, page, npages);
		__set_bit(page * 512 + slot, seen);
		KUNIT_ASSERT_EQ_MSG(test, le64_to_cpu(pages[page][slot]),
				    want[i], "entry %u at (%u,%u)", i, page,
				    slot);
	}
	for (page = 0; page < npages; page++)
		for (slot = 0; slot < 512; slot++)
			if (!test_bit(page * 512 + slot, seen))
				KUNIT_ASSERT_EQ_MSG(test,
						    le64_to_cpu(pages[page][slot]),
						    FILL, "slot (%u,%u)", page,
						    slot);
}

/* Fill the PAS of @umem at @pgsz and check it against @want. */
static void fill_and_check(struct kunit *test, struct ib_umem *umem,
			   unsigned long pgsz, const u64 *want, u32 n)
{
	u32 npages = softhca_pas_list_pages(n);
	__le64 **pages = list_pages(test, npages);

	KUNIT_ASSERT_EQ(test, (u64)ib_umem_num_dma_blocks(umem, pgsz), (u64)n);
	KUNIT_EXPECT_EQ(test, softhca_pas_fill_umem(umem, pgsz, pages, npages),
			n);
	check_list(test, pages, npages, want, n);
}

static void link_test(struct kunit *test)
{
	static const dma_addr_t dma[] = {
		0x1000, 0x0123456789abc000ull, 0xfffffffffffff000ull, 0x2000,
	};
	static const u8 le[8] = { 0x00, 0xc0, 0xab, 0x89, 0x67, 0x45, 0x23,
				  0x01 };
	__le64 **pages = list_pages(test, 4);
	u64 want[1];
	u32 p;

	/* one page: nothing to link */
	softhca_pas_link(pages, dma, 1);
	check_list(test, pages, 1, want, 0);

	softhca_pas_link(pages, dma, 3);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[0][511]), 0x0123456789abc000ull);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[1][511]), 0xfffffffffffff000ull);
	/* little endian in memory */
	KUNIT_EXPECT_EQ(test, memcmp(&pages[0][511], le, 8), 0);
	/* the last page's last slot is data, not a link */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[2][511]), FILL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[3][511]), FILL);
	for (p = 0; p < 4; p++) {
		u32 s;

		for (s = 0; s < 511; s++)
			KUNIT_ASSERT_EQ(test, le64_to_cpu(pages[p][s]), FILL);
	}
	softhca_pas_link(pages, dma, 4);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[2][511]), 0x2000ull);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[3][511]), FILL);
}

static void fill_merged_test(struct kunit *test)
{
	static const struct softhca_test_seg seg[] = { { 0x12340000, SZ_16K } };
	static const u64 want[] = { 0x12340000, 0x12341000, 0x12342000,
				    0x12343000 };
	struct ib_umem *umem = softhca_test_umem(test, VA, SZ_16K, seg, 1);

	fill_and_check(test, umem, SZ_4K, want, 4);
	/* the same memory in 16 KiB blocks, had it been aligned so */
	{
		static const u64 one[] = { 0x12340000 };

		umem = softhca_test_umem(test, VA, SZ_16K, seg, 1);
		fill_and_check(test, umem, SZ_16K, one, 1);
	}
}

static void fill_unmerged_test(struct kunit *test)
{
	static const struct softhca_test_seg segs[] = {
		{ 0x12345000, SZ_4K }, { 0x0abcd000, SZ_4K },
		{ 0x33333000, SZ_4K }, { 0x12346000, SZ_4K },
		{ 0x12347000, SZ_4K },
	};
	static const u64 want[] = { 0x12345000, 0x0abcd000, 0x33333000,
				    0x12346000, 0x12347000 };
	struct ib_umem *umem = softhca_test_umem(test, VA, 5 * SZ_4K, segs, 5);

	fill_and_check(test, umem, SZ_4K, want, 5);
}

static void fill_large_segments_test(struct kunit *test)
{
	static const struct softhca_test_seg segs[] = {
		{ 0x20000000, SZ_8K }, { 0x0abcd000, SZ_4K },
		{ 0x30000000, 3 * SZ_4K }, { 0x40000000, SZ_64K },
	};
	u64 want[22] = { 0x20000000, 0x20001000, 0x0abcd000, 0x30000000,
			 0x30001000, 0x30002000 };
	struct ib_umem *umem;
	u32 i;

	for (i = 0; i < 16; i++)
		want[6 + i] = 0x40000000 + i * SZ_4K;
	umem = softhca_test_umem(test, VA, 22 * SZ_4K, segs, 4);
	fill_and_check(test, umem, SZ_4K, want, 22);
}

static void fill_first_offset_test(struct kunit *test)
{
	static const struct softhca_test_seg three[] = {
		{ 0x50000000, 3 * SZ_4K },
	};
	static const struct softhca_test_seg two[] = {
		{ 0x61000000, SZ_4K }, { 0x62000000, SZ_4K },
	};
	static const struct softhca_test_seg huge[] = {
		{ HP_A + SZ_2M - SZ_32K, SZ_32K }, { HP_B, SZ_32K },
	};
	static const u64 want3[] = { 0x50000000, 0x50001000, 0x50002000 };
	static const u64 want2[] = { 0x61000000, 0x62000000 };
	static const u64 wanth[] = { HP_A, HP_B };
	struct ib_umem *umem;

	/* 8 KiB from 0x100 into a page touch three pages */
	umem = softhca_test_umem(test, VA + 0x100, SZ_8K, three, 1);
	fill_and_check(test, umem, SZ_4K, want3, 3);
	/* 512 bytes across a page boundary: two entries */
	umem = softhca_test_umem(test, VA + 0xf00, 0x200, two, 2);
	fill_and_check(test, umem, SZ_4K, want2, 2);
	/* 64 KiB at 0x1f8000 into a huge page: two 2 MiB blocks */
	umem = softhca_test_umem(test, VA + SZ_2M - SZ_32K, SZ_64K, huge, 2);
	fill_and_check(test, umem, SZ_2M, wanth, 2);
	/* the same queue in 4 KiB blocks */
	{
		u64 want[16];
		u32 i;

		for (i = 0; i < 8; i++) {
			want[i] = HP_A + SZ_2M - SZ_32K + i * SZ_4K;
			want[8 + i] = HP_B + i * SZ_4K;
		}
		fill_and_check(test, umem, SZ_4K, want, 16);
	}
}

/* 2 MiB blocks over unmerged 4 KiB segments, and a list over 3 pages. */
static void fill_huge_many_pages_test(struct kunit *test)
{
	struct softhca_test_seg *segs;
	struct ib_umem *umem;
	u64 *want;
	u32 i;

	segs = kunit_kcalloc(test, 1024, sizeof(*segs), GFP_KERNEL);
	want = kunit_kcalloc(test, 1024, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, segs);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < 1024; i++) {
		segs[i].dma = (i < 512 ? HP_A : HP_B) + (i % 512) * SZ_4K;
		segs[i].len = SZ_4K;
		want[i] = segs[i].dma;
	}
	umem = softhca_test_umem(test, VA, SZ_4M, segs, 1024);
	KUNIT_ASSERT_EQ(test, softhca_umem_mr_block(umem, SZ_4K | SZ_2M, VA),
			(unsigned long)SZ_2M);
	want[0] = HP_A;
	want[1] = HP_B;
	fill_and_check(test, umem, SZ_2M, want, 2);

	/* 1024 entries: 511 + 511 + 2 over three list pages */
	for (i = 0; i < 1024; i++)
		want[i] = segs[i].dma;
	KUNIT_ASSERT_EQ(test, softhca_pas_list_pages(1024), 3u);
	fill_and_check(test, umem, SZ_4K, want, 1024);
}

/* An MR registered at an iova other than its address. */
static void fill_mr_iova_test(struct kunit *test)
{
	static const struct softhca_test_seg apart[] = {
		{ HP_A, SZ_2M }, { HP_B, SZ_2M },
	};
	static const u64 want2[] = { HP_A, HP_B };
	struct ib_umem *umem;
	__le64 **pages;
	u64 *want;
	u32 i;

	umem = softhca_test_umem(test, VA + 0x100, SZ_4M - 0x100, apart, 2);
	KUNIT_ASSERT_EQ(test, softhca_umem_mr_block(umem, SZ_4K | SZ_2M, 0x100),
			(unsigned long)SZ_2M);
	fill_and_check(test, umem, SZ_2M, want2, 2);

	KUNIT_ASSERT_EQ(test, softhca_umem_mr_block(umem, SZ_4K | SZ_2M,
						    0x1100),
			(unsigned long)SZ_4K);
	want = kunit_kcalloc(test, 1024, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < 1024; i++)
		want[i] = (i < 512 ? HP_A : HP_B) + (i % 512) * SZ_4K;
	fill_and_check(test, umem, SZ_4K, want, 1024);

	/* linking the pages afterwards touches only the link slots */
	pages = list_pages(test, 3);
	KUNIT_EXPECT_EQ(test, softhca_pas_fill_umem(umem, SZ_4K, pages, 3),
			1024u);
	{
		static const dma_addr_t dma[] = { 0xa000, 0xb000, 0xc000 };

		softhca_pas_link(pages, dma, 3);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[0][511]), 0xb000ull);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[1][511]), 0xc000ull);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[0][510]), want[510]);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[1][0]), want[511]);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[1][510]), want[1021]);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[2][0]), want[1022]);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[2][1]), want[1023]);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[2][2]), FILL);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[2][511]), FILL);
	}
}

/*
 * A list sized for fewer blocks than the memory has (a umem that grew, a
 * miscount): the entries that do not fit are counted for the caller to
 * see, never written past the list's pages.
 */
static void fill_short_list_test(struct kunit *test)
{
	static const struct softhca_test_seg seg[] = { { HP_A, SZ_4M } };
	struct ib_umem *umem = softhca_test_umem(test, VA, SZ_4M, seg, 1);
	__le64 **pages = list_pages(test, 3);
	u32 i;

	/* two list pages hold 511 + 512 entries; the memory has 1024 */
	KUNIT_EXPECT_EQ(test, softhca_pas_fill_umem(umem, SZ_4K, pages, 2),
			1024u);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pages[1][511]),
			(u64)HP_A + 1022 * SZ_4K);
	for (i = 0; i < SOFTHCA_PAS_PER_PAGE; i++)
		KUNIT_ASSERT_EQ_MSG(test, le64_to_cpu(pages[2][i]), FILL,
				    "slot %u of the page after the list", i);
}

static struct kunit_case softhca_pas_cases[] = {
	KUNIT_CASE(slot_small_test),
	KUNIT_CASE(slot_large_test),
	KUNIT_CASE(link_test),
	KUNIT_CASE(fill_merged_test),
	KUNIT_CASE(fill_unmerged_test),
	KUNIT_CASE(fill_large_segments_test),
	KUNIT_CASE(fill_first_offset_test),
	KUNIT_CASE(fill_huge_many_pages_test),
	KUNIT_CASE(fill_mr_iova_test),
	KUNIT_CASE(fill_short_list_test),
	{}
};

static struct kunit_suite softhca_pas_suite = {
	.name = "softhca_pas",
	.test_cases = softhca_pas_cases,
};

kunit_test_suite(softhca_pas_suite);

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_hw_dma": the device model's DMA checks.
 * softhca_hw_pas_addr() on hand-made PAS contexts (bounds, block crossing,
 * wrap); softhca_hw_pas_ptr() and the engine's word copies, and
 * softhca_hw_dma_read()/write(), softhca_hw_dbrec_ok() and
 * softhca_hw_pas_load() on a real card from softhca_hw_plug(), whose
 * platform device gives the DMA addresses; and PAS lists the driver builds
 * (softhca_pas_from_umem/_from_coherent) read back by the card.
 *
 * The card's copy of the host's RAM ranges: the search on hand-made ones,
 * and a real card's copy against the kernel's page_is_ram().
 *
 * Addresses that are not RAM: 16 TiB (a memory section this 1 GiB guest
 * does not have) and 64 TiB (past every section x86-64 can have).
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "softhca.h"
#include "hw/hw.h"
#include "test_util.h"

#define NOT_RAM		BIT_ULL(44)
#define NOT_RAM2	BIT_ULL(46)
#define POISON_ADDR	0xdeadbeefull

/* ------------------------------------------------------------------------
 * softhca_hw_pas_addr()
 */
static void pas_addr_inside_test(struct kunit *test)
{
	u64 blocks[] = { 0x10000, 0x30000, 0x50000 };
	/* objects that end exactly at the end of their last block */
	struct softhca_hw_pas pas = {
		.blocks = blocks, .nblocks = 3, .log_block_size = 12,
		.offset = 0x100, .size = 3 * 0x1000 - 0x100,
	};
	u64 big[] = { 0x40000000, 0x80000000 };
	struct softhca_hw_pas huge = {
		.blocks = big, .nblocks = 2, .log_block_size = 21,
		.offset = 0x1ff000, .size = 2 * SZ_2M - 0x1ff000,
	};
	u64 a;

	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0, 16, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x10100ull);
	/* the last byte of block 0, the first of block 1 */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0xeff, 1, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x10fffull);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0xf00, 1, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x30000ull);
	/* a whole block */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0xf00, 0x1000, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x30000ull);
	/* the last byte of the last block */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 3 * 0x1000 - 0x101, 1,
						  &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x50fffull);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0x1f00, 0x100, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x50000ull);
	/* zero length inside */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0x1234, 0, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x30334ull);

	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&huge, 0, 0x1000, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x401ff000ull);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&huge, 0x1000, 64, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x80000000ull);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&huge, 0x200fff, 1, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0x801fffffull);
}

static void pas_addr_outside_test(struct kunit *test)
{
	u64 blocks[] = { 0x10000, 0x30000, 0x50000 };
	struct softhca_hw_pas pas = {
		.blocks = blocks, .nblocks = 3, .log_block_size = 12,
		.offset = 0x100, .size = 3 * 0x1000 - 0x100,
	};
	struct softhca_hw_pas empty = { .blocks = blocks, .log_block_size = 12 };
	u64 a = POISON_ADDR;

	/* past the last block */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0x2f00, 1, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0x2f00, 0, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0x1000000, 8, &a),
			-EFAULT);
	/* a range crossing a block boundary, by one byte */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0xefe, 3, &a), -EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0xf00, 0x1001, &a),
			-EFAULT);
	/* the last byte plus one */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0x2eff, 2, &a),
			-EFAULT);
	/* lengths that cannot fit any block */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0, U32_MAX, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 0xf00, 0x80000000u,
						  &a), -EFAULT);
	/* offset + object start wrapping past 2^64 into block 0 */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, U64_MAX - 0xff, 1, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, U64_MAX - 0x7f, 8, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, U64_MAX, 1, &a),
			-EFAULT);
	/* an index that only fits after truncation to 32 bits */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, (1ull << 44) + 0x10,
						  1, &a), -EFAULT);
	/* an object with no blocks */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&empty, 0, 1, &a), -EFAULT);
	/* a failed lookup leaves the address alone */
	KUNIT_EXPECT_EQ(test, a, POISON_ADDR);
}

/* ------------------------------------------------------------------------
 * softhca_hw_dma_read/write, softhca_hw_dbrec_ok
 */
static void dma_rw_test(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	u8 *buf, *tmp;
	dma_addr_t dma;
	u32 i;

	buf = softhca_test_dma_alloc(test, hw, 2 * PAGE_SIZE, &dma);
	tmp = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (i = 0; i < 2 * PAGE_SIZE; i++)
		buf[i] = i * 7 + 3;

	/* across the page boundary */
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, dma + PAGE_SIZE - 5, tmp,
						  10), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, tmp[i],
				(u8)((PAGE_SIZE - 5 + i) * 7 + 3));
	/* both pages whole */
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, dma, tmp, 2 * PAGE_SIZE),
			0);
	KUNIT_EXPECT_EQ(test, memcmp(tmp, buf, 2 * PAGE_SIZE), 0);
	/* a write lands exactly where it should, nothing around it */
	memset(tmp, 0x5a, 16);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_write(hw, dma + PAGE_SIZE - 8, tmp,
						   16), 0);
	for (i = PAGE_SIZE - 16; i < PAGE_SIZE + 16; i++)
		KUNIT_EXPECT_EQ(test, buf[i],
				i >= PAGE_SIZE - 8 && i < PAGE_SIZE + 8 ?
				(u8)0x5a : (u8)(i * 7 + 3));
	/* the last byte of the buffer */
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, dma + 2 * PAGE_SIZE - 1,
						  tmp, 1), 0);
	KUNIT_EXPECT_EQ(test, tmp[0], (u8)((2 * PAGE_SIZE - 1) * 7 + 3));
	/* nothing to copy: nothing is checked or touched */
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, NOT_RAM, tmp, 0), 0);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_write(hw, U64_MAX, tmp, 0), 0);
}

/*
 * softhca_hw_pas_ptr() on a two-block object in real DMA memory: the
 * address of a range inside one block, NULL for a range crossing blocks or
 * leaving the object; and the engine's word copies in and out of it.
 */
static void pas_ptr_test(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	u64 blocks[2], words[8], back[8];
	struct softhca_hw_pas pas = {
		.blocks = blocks, .nblocks = 2, .log_block_size = PAGE_SHIFT,
		.offset = 64, .size = 2 * PAGE_SIZE - 64,
	};
	dma_addr_t dma0, dma1;
	u8 *b0, *b1, *p;
	u32 i;

	/* two separate pages, in the PAS in the opposite order */
	b0 = softhca_test_dma_alloc(test, hw, PAGE_SIZE, &dma0);
	b1 = softhca_test_dma_alloc(test, hw, PAGE_SIZE, &dma1);
	blocks[0] = dma1;
	blocks[1] = dma0;
	for (i = 0; i < PAGE_SIZE; i++) {
		b0[i] = i * 3;
		b1[i] = i * 5;
	}
	KUNIT_EXPECT_PTR_EQ(test, softhca_hw_pas_ptr(hw, &pas, 0, 64),
			    (void *)(b1 + 64));
	KUNIT_EXPECT_PTR_EQ(test, softhca_hw_pas_ptr(hw, &pas,
						     PAGE_SIZE - 128, 64),
			    (void *)(b1 + PAGE_SIZE - 64));
	KUNIT_EXPECT_PTR_EQ(test, softhca_hw_pas_ptr(hw, &pas,
						     PAGE_SIZE - 64, 64),
			    (void *)b0);
	KUNIT_EXPECT_PTR_EQ(test, softhca_hw_pas_ptr(hw, &pas,
						     2 * PAGE_SIZE - 128, 64),
			    (void *)(b0 + PAGE_SIZE - 64));
	/* crossing from block 0 into block 1, by one word */
	p = softhca_hw_pas_ptr(hw, &pas, PAGE_SIZE - 72, 16);
	KUNIT_EXPECT_PTR_EQ(test, p, NULL);
	/* past the object's end, and wrapping */
	p = softhca_hw_pas_ptr(hw, &pas, 2 * PAGE_SIZE - 120, 64);
	KUNIT_EXPECT_PTR_EQ(test, p, NULL);
	p = softhca_hw_pas_ptr(hw, &pas, U64_MAX - 7, 16);
	KUNIT_EXPECT_PTR_EQ(test, p, NULL);

	/* word copies read and write exactly their bytes */
	p = softhca_hw_pas_ptr(hw, &pas, PAGE_SIZE - 64, 64);
	KUNIT_ASSERT_NOT_NULL(test, p);
	softhca_hw_load_words(words, p, sizeof(words));
	KUNIT_EXPECT_EQ(test, memcmp(words, b0, sizeof(words)), 0);
	for (i = 0; i < 8; i++)
		words[i] = 0x0101010101010101ull * (i + 1);
	softhca_hw_store_words(p + 8, words, 48);
	memcpy(back, b0, sizeof(back));
	KUNIT_EXPECT_EQ(test, b0[0], (u8)0);
	KUNIT_EXPECT_EQ(test, b0[7], (u8)21);
	for (i = 1; i < 7; i++)
		KUNIT_EXPECT_EQ(test, back[i], words[i - 1]);
	KUNIT_EXPECT_EQ(test, b0[56], (u8)(56 * 3));
	KUNIT_EXPECT_EQ(test, b0[63], (u8)(63 * 3));
}

static void dma_bad_addr_test(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	u8 tmp[16];

	memset(tmp, 0x11, sizeof(tmp));
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, NOT_RAM, tmp, 8),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, NOT_RAM2, tmp, 8),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_write(hw, NOT_RAM, tmp, 8),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, U64_MAX & PAGE_MASK, tmp,
						  8), -EFAULT);
	/* ranges that wrap past 2^64: addr + len < addr */
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, U64_MAX - 3, tmp, 8),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_write(hw, U64_MAX, tmp, 2),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, U64_MAX - 7, tmp, 16),
			-EFAULT);
	/* the destination of a failed read at the first page is untouched */
	KUNIT_EXPECT_EQ(test, tmp[0], 0x11);
	KUNIT_EXPECT_EQ(test, tmp[15], 0x11);
}

static void dbrec_ok_test(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	dma_addr_t dma;

	softhca_test_dma_alloc(test, hw, PAGE_SIZE, &dma);
	KUNIT_EXPECT_TRUE(test, softhca_hw_dbrec_ok(hw, dma, 8));
	KUNIT_EXPECT_TRUE(test, softhca_hw_dbrec_ok(hw, dma + 0x40, 8));
	KUNIT_EXPECT_TRUE(test, softhca_hw_dbrec_ok(hw, dma + PAGE_SIZE - 8,
						    8));
	/* crossing into the next page */
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, dma + PAGE_SIZE - 8,
						     16));
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, dma + PAGE_SIZE - 4,
						     8));
	/* misaligned, null, not RAM */
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, dma + 4, 8));
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, dma + 1, 4));
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, 0, 8));
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, NOT_RAM, 8));
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, NOT_RAM2 + 0x40, 8));
}

/*
 * Memory the kernel has a struct page for but that is not RAM: the legacy
 * VGA hole at 640 KiB, inside the first (present) memory section, so
 * pfn_valid() is true for it while page_is_ram() is not. hw_dma.c promises
 * to refuse "an address that does not translate to RAM"; only reads and
 * checks are tried here, never a write.
 */
#define VGA_HOLE	0xa0000ull

static void dma_non_ram_page_test(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	struct softhca_hw_pas pas;
	struct softhca_pas d = {};
	dma_addr_t list_dma;
	__le64 *list;
	u8 tmp[8];
	u32 s = 0;
	u8 st;

	/* the premise, by the kernel's own definition of RAM */
	KUNIT_ASSERT_TRUE(test, pfn_valid(PHYS_PFN(VGA_HOLE)));
	KUNIT_ASSERT_FALSE(test, page_is_ram(PHYS_PFN(VGA_HOLE)));

	KUNIT_EXPECT_EQ(test, softhca_hw_dma_read(hw, VGA_HOLE, tmp, 8),
			-EFAULT);
	KUNIT_EXPECT_FALSE(test, softhca_hw_dbrec_ok(hw, VGA_HOLE, 8));

	list = softhca_test_dma_alloc(test, hw, SOFTHCA_PAS_PAGE_SIZE,
				      &list_dma);
	/* a 4 KiB block in the hole */
	list[0] = cpu_to_le64(VGA_HOLE);
	d.list_addr = cpu_to_le64(list_dma);
	d.nblocks = cpu_to_le32(1);
	d.log_block_size = 12;
	st = softhca_hw_pas_load(hw, &d, SZ_4K, true, 0, &pas, &s);
	if (!st)
		softhca_hw_pas_free(&pas);
	KUNIT_EXPECT_EQ(test, st, SOFTHCA_CMD_STAT_DMA_ERROR);
	KUNIT_EXPECT_EQ(test, s, (u32)SOFTHCA_SYND_PAS_BLOCK_ADDR);
	/* a 2 MiB block whose ends are RAM but whose middle is the hole */
	list[0] = 0;
	d.log_block_size = 21;
	s = 0;
	st = softhca_hw_pas_load(hw, &d, SZ_2M, true, 0, &pas, &s);
	if (!st)
		softhca_hw_pas_free(&pas);
	KUNIT_EXPECT_EQ(test, st, SOFTHCA_CMD_STAT_DMA_ERROR);
	KUNIT_EXPECT_EQ(test, s, (u32)SOFTHCA_SYND_PAS_BLOCK_ADDR);
}

/* ------------------------------------------------------------------------
 * softhca_hw_pas_load()
 */
struct pas_env {
	struct softhca_hw *hw;
	__le64 *list[3];		/* three list pages */
	dma_addr_t list_dma[3];
	u8 *data;			/* eight data pages */
	dma_addr_t data_dma;
};

static struct pas_env *pas_env(struct kunit *test)
{
	struct pas_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->hw = softhca_test_plug(test);
	for (i = 0; i < 3; i++) {
		e->list[i] = softhca_test_dma_alloc(test, e->hw,
						    SOFTHCA_PAS_PAGE_SIZE,
						    &e->list_dma[i]);
		KUNIT_ASSERT_EQ(test, e->list_dma[i] & 0xfff, 0ull);
	}
	e->data = softhca_test_dma_alloc(test, e->hw, 8 * SZ_4K, &e->data_dma);
	return e;
}

/* Data page @i of the environment. */
static u64 data_page(struct pas_env *e, unsigned int i)
{
	return e->data_dma + (u64)(i % 8) * SZ_4K;
}

static struct softhca_pas desc(u64 list, u32 n, u8 log, u8 off)
{
	struct softhca_pas d = {
		.list_addr = cpu_to_le64(list),
		.nblocks = cpu_to_le32(n),
		.log_block_size = log,
		.page_offset = off,
	};

	return d;
}

/* Load and expect failure with @st and @synd, leaving nothing behind. */
static void load_fails(struct kunit *test, struct pas_env *e,
		       struct softhca_pas d, u64 min_bytes, bool queue,
		       u64 iova, u8 st, u32 synd)
{
	struct softhca_hw_pas pas;
	u32 s = 0;

	memset(&pas, 0x5a, sizeof(pas));
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_load(e->hw, &d, min_bytes, queue,
						  iova, &pas, &s), st);
	KUNIT_EXPECT_EQ(test, s, synd);
	KUNIT_EXPECT_NULL(test, pas.blocks);
	KUNIT_EXPECT_EQ(test, pas.nblocks, 0u);
}

static void pas_load_ok_test(struct kunit *test)
{
	struct pas_env *e = pas_env(test);
	struct softhca_hw_pas pas;
	struct softhca_pas d;
	u32 s = 0, i;

	/* a queue of 8 KiB, 5 * 64 bytes into its first block: 3 blocks */
	for (i = 0; i < 3; i++)
		e->list[0][i] = cpu_to_le64(data_page(e, 5 - i));
	d = desc(e->list_dma[0], 3, 12, 5);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, SZ_8K, true, 0,
						  &pas, &s), 0);
	KUNIT_EXPECT_EQ(test, s, 0u);
	KUNIT_EXPECT_EQ(test, pas.nblocks, 3u);
	KUNIT_EXPECT_EQ(test, pas.log_block_size, 12);
	KUNIT_EXPECT_EQ(test, pas.offset, 5u * 64);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, pas.blocks[i], data_page(e, 5 - i));
	softhca_hw_pas_free(&pas);
	KUNIT_EXPECT_NULL(test, pas.blocks);

	/* an MKEY: it starts at iova mod block; page_offset must be 0 */
	d = desc(e->list_dma[0], 2, 12, 0);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, 0x1001, false,
						  0x7f0000000fffull, &pas, &s),
			0);
	KUNIT_EXPECT_EQ(test, pas.offset, 0xfffu);
	KUNIT_EXPECT_EQ(test, pas.nblocks, 2u);
	softhca_hw_pas_free(&pas);

	/* a full list page: 512 entries, none of them a link */
	for (i = 0; i < 512; i++)
		e->list[0][i] = cpu_to_le64(data_page(e, i));
	d = desc(e->list_dma[0], 512, 12, 0);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, 512 * SZ_4K,
						  true, 0, &pas, &s), 0);
	for (i = 0; i < 512; i++)
		KUNIT_ASSERT_EQ(test, pas.blocks[i], data_page(e, i));
	softhca_hw_pas_free(&pas);
}

/*
 * softhca_hw_pas_addr() promises -EFAULT "when the range is outside the
 * object"; the object is the min_bytes the PAS was loaded for, not the
 * whole of its last block.
 */
static void pas_addr_object_end_test(struct kunit *test)
{
	struct pas_env *e = pas_env(test);
	struct softhca_hw_pas pas;
	struct softhca_pas d;
	u64 a = POISON_ADDR;
	u32 s = 0, i;

	/* an 8 KiB queue starting 320 bytes into its first block */
	for (i = 0; i < 3; i++)
		e->list[0][i] = cpu_to_le64(data_page(e, i));
	d = desc(e->list_dma[0], 3, 12, 5);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, SZ_8K, true, 0,
						  &pas, &s), 0);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, SZ_8K - 1, 1, &a), 0);
	KUNIT_EXPECT_EQ(test, a, data_page(e, 2) + 320 - 1);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, SZ_8K - 64, 64, &a), 0);
	/* the first byte past the object, still inside block 2 */
	a = POISON_ADDR;
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, SZ_8K, 1, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, SZ_8K - 8, 16, &a),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, SZ_8K + 0x100, 64,
						  &a), -EFAULT);
	KUNIT_EXPECT_EQ(test, a, POISON_ADDR);
	/* past the last block */
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&pas, 3 * SZ_4K - 320, 1,
						  &a), -EFAULT);
	softhca_hw_pas_free(&pas);
}

/* Lists over two and three chained pages. */
static void pas_load_chain_test(struct kunit *test)
{
	struct pas_env *e = pas_env(test);
	struct softhca_hw_pas pas;
	struct softhca_pas d;
	u32 s = 0, i;

	/* 1024 entries: 511 + link, 511 + link, 2 */
	for (i = 0; i < 1024; i++) {
		u32 page, slot;

		softhca_pas_slot(i, 3, &page, &slot);
		e->list[page][slot] = cpu_to_le64(data_page(e, i * 3));
	}
	softhca_pas_link(e->list, e->list_dma, 3);
	d = desc(e->list_dma[0], 1024, 12, 0);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, 1024 * SZ_4K,
						  true, 0, &pas, &s), 0);
	KUNIT_ASSERT_EQ(test, pas.nblocks, 1024u);
	for (i = 0; i < 1024; i++)
		KUNIT_ASSERT_EQ_MSG(test, pas.blocks[i], data_page(e, i * 3),
				    "block %u", i);
	softhca_hw_pas_free(&pas);

	/* 513 entries: two pages, the second holding 2 */
	for (i = 0; i < 513; i++) {
		u32 page, slot;

		softhca_pas_slot(i, 2, &page, &slot);
		e->list[page][slot] = cpu_to_le64(data_page(e, i + 1));
	}
	d = desc(e->list_dma[0], 513, 12, 0);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, 513 * SZ_4K - 1,
						  true, 0, &pas, &s), 0);
	KUNIT_EXPECT_EQ(test, pas.blocks[510], data_page(e, 511));
	KUNIT_EXPECT_EQ(test, pas.blocks[511], data_page(e, 512));
	KUNIT_EXPECT_EQ(test, pas.blocks[512], data_page(e, 513));
	softhca_hw_pas_free(&pas);

	/* broken links: misaligned, not RAM, null */
	e->list[0][511] = cpu_to_le64(e->list_dma[1] + 8);
	load_fails(test, e, d, 513 * SZ_4K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
	e->list[0][511] = cpu_to_le64(NOT_RAM);
	load_fails(test, e, d, 513 * SZ_4K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
	e->list[0][511] = 0;
	load_fails(test, e, d, 513 * SZ_4K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
}

static void pas_load_list_addr_test(struct kunit *test)
{
	static const u64 offs[] = { 8, 0x40, 0x800, 0xff8 };
	struct pas_env *e = pas_env(test);
	unsigned int i;

	e->list[0][0] = cpu_to_le64(data_page(e, 0));
	e->list[0][1] = cpu_to_le64(data_page(e, 1));
	/* 8 bytes at the list address would even hold valid entries */
	for (i = 0; i < ARRAY_SIZE(offs); i++)
		load_fails(test, e, desc(e->list_dma[0] + offs[i], 1, 12, 0),
			   64, true, 0, SOFTHCA_CMD_STAT_DMA_ERROR,
			   SOFTHCA_SYND_PAS_LIST_ADDR);
	load_fails(test, e, desc(0, 1, 12, 0), 64, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
	load_fails(test, e, desc(NOT_RAM, 1, 12, 0), 64, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
	load_fails(test, e, desc(NOT_RAM2, 1, 12, 0), 64, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
	load_fails(test, e, desc(U64_MAX & ~0xfffull, 1, 12, 0), 64, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_LIST_ADDR);
}

static void pas_load_block_addr_test(struct kunit *test)
{
	static const u64 offs[] = { 8, 0x200, 0x800, 0xfff };
	struct pas_env *e = pas_env(test);
	unsigned int i;

	/* block 1 of 2 not block aligned */
	e->list[0][0] = cpu_to_le64(data_page(e, 0));
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		e->list[0][1] = cpu_to_le64(data_page(e, 1) + offs[i]);
		load_fails(test, e, desc(e->list_dma[0], 2, 12, 0), SZ_8K,
			   true, 0, SOFTHCA_CMD_STAT_DMA_ERROR,
			   SOFTHCA_SYND_PAS_BLOCK_ADDR);
	}
	/* not RAM */
	e->list[0][1] = cpu_to_le64(NOT_RAM);
	load_fails(test, e, desc(e->list_dma[0], 2, 12, 0), SZ_8K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_BLOCK_ADDR);
	e->list[0][1] = cpu_to_le64(NOT_RAM2);
	load_fails(test, e, desc(e->list_dma[0], 2, 12, 0), SZ_8K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_BLOCK_ADDR);
	/* 4 KiB aligned is not 2 MiB aligned */
	e->list[0][0] = cpu_to_le64(data_page(e, 0) | SZ_4K);
	load_fails(test, e, desc(e->list_dma[0], 1, 21, 0), SZ_4K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_BLOCK_ADDR);
	/* the top 2 MiB of the address space */
	e->list[0][0] = cpu_to_le64(U64_MAX & ~(u64)(SZ_2M - 1));
	load_fails(test, e, desc(e->list_dma[0], 1, 21, 0), SZ_4K, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_BLOCK_ADDR);
}

static void pas_load_nblocks_test(struct kunit *test)
{
	struct pas_env *e = pas_env(test);
	struct softhca_hw_pas pas;
	struct softhca_pas d;
	u32 s = 0, i;

	for (i = 0; i < 4; i++)
		e->list[0][i] = cpu_to_le64(data_page(e, i));
	/* 8 KiB from offset 0: exactly 2 */
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 0), SZ_8K, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	load_fails(test, e, desc(e->list_dma[0], 3, 12, 0), SZ_8K, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	load_fails(test, e, desc(e->list_dma[0], 0, 12, 0), SZ_8K, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	d = desc(e->list_dma[0], 2, 12, 0);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_load(e->hw, &d, SZ_8K, true, 0,
						  &pas, &s), 0);
	softhca_hw_pas_free(&pas);
	/* 8 KiB from 64 bytes in: 3 */
	load_fails(test, e, desc(e->list_dma[0], 2, 12, 1), SZ_8K, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	d = desc(e->list_dma[0], 3, 12, 1);
	KUNIT_EXPECT_EQ(test, softhca_hw_pas_load(e->hw, &d, SZ_8K, true, 0,
						  &pas, &s), 0);
	softhca_hw_pas_free(&pas);
	/* an MKEY of 2 bytes at iova 0xfff straddles two blocks */
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 0), 2, false, 0xfff,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	/* 2 MiB blocks: 4 KiB at 63 * 32 KiB still fits one */
	load_fails(test, e, desc(e->list_dma[0], 2, 21, 63), SZ_4K, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	/* no bytes, or more than the card ever maps */
	load_fails(test, e, desc(e->list_dma[0], 0, 12, 0), 0, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_TOO_SMALL);
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 0), 0, false, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_TOO_SMALL);
	load_fails(test, e, desc(e->list_dma[0], 0, 12, 0),
		   (1ull << 40) + 1, true, 0, SOFTHCA_CMD_STAT_BAD_PARAM,
		   SOFTHCA_SYND_PAS_TOO_SMALL);
	load_fails(test, e, desc(e->list_dma[0], 0, 12, 0), U64_MAX, false,
		   U64_MAX, SOFTHCA_CMD_STAT_BAD_PARAM,
		   SOFTHCA_SYND_PAS_TOO_SMALL);
}

static void pas_load_log_size_test(struct kunit *test)
{
	static const u8 bad[] = { 0, 6, 11, 13, 16, 20, 22, 29, 31, 32, 40, 63,
				  64, 255 };
	static const u8 good[] = { 12, 21, 30 };
	struct pas_env *e = pas_env(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		load_fails(test, e, desc(e->list_dma[0], 1, bad[i], 0), 64,
			   true, 0, SOFTHCA_CMD_STAT_BAD_PARAM,
			   SOFTHCA_SYND_PAS_LOG_BLOCK);
	/*
	 * The supported sizes pass the size check and fail the next one: an
	 * entry 4 KiB off its block's alignment (none for 4 KiB blocks, so
	 * a non-RAM one there).
	 */
	e->list[0][0] = cpu_to_le64(SZ_1G + SZ_4K);
	for (i = 1; i < ARRAY_SIZE(good); i++)
		load_fails(test, e, desc(e->list_dma[0], 1, good[i], 0), 64,
			   true, 0, SOFTHCA_CMD_STAT_DMA_ERROR,
			   SOFTHCA_SYND_PAS_BLOCK_ADDR);
	e->list[0][0] = cpu_to_le64(NOT_RAM);
	load_fails(test, e, desc(e->list_dma[0], 1, good[0], 0), 64, true, 0,
		   SOFTHCA_CMD_STAT_DMA_ERROR, SOFTHCA_SYND_PAS_BLOCK_ADDR);
}

static void pas_load_page_offset_test(struct kunit *test)
{
	struct pas_env *e = pas_env(test);
	struct softhca_hw_pas pas;
	struct softhca_pas d;
	u32 s = 0;

	e->list[0][0] = cpu_to_le64(data_page(e, 0));
	e->list[0][1] = cpu_to_le64(data_page(e, 1));
	/* 63 is the last valid page_offset: 4032 bytes in */
	d = desc(e->list_dma[0], 1, 12, 63);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(e->hw, &d, 64, true, 0, &pas,
						  &s), 0);
	KUNIT_EXPECT_EQ(test, pas.offset, 4032u);
	softhca_hw_pas_free(&pas);
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 63), 65, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_NBLOCKS);
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 64), 64, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_OFFSET);
	load_fails(test, e, desc(e->list_dma[0], 2, 12, 64), 64, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_OFFSET);
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 255), 64, true, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_OFFSET);
	/* MKEYs take their offset from iova: page_offset must be 0 */
	load_fails(test, e, desc(e->list_dma[0], 1, 12, 1), 64, false, 0,
		   SOFTHCA_CMD_STAT_BAD_PARAM, SOFTHCA_SYND_PAS_OFFSET);
}

/* ------------------------------------------------------------------------
 * Driver-built PAS lists, read back by the card
 */
struct pages_res {
	struct page *page;
	unsigned int order;
};

static void free_pages_res(struct kunit_resource *res)
{
	struct pages_res *p = res->data;

	__free_pages(p->page, p->order);
	kfree(p);
}

static int init_pages_res(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void driver_pas_roundtrip_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);
	struct softhca_test_seg *segs;
	struct softhca_pas_buf pb;
	struct softhca_hw_pas hpas;
	struct softhca_pas d;
	struct ib_umem *umem;
	dma_addr_t dma;
	u8 off;
	u32 s = 0, i;

	/* a kernel queue from one coherent buffer: 3 pages */
	softhca_test_dma_alloc(test, dev->hw, 3 * PAGE_SIZE, &dma);
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, dma,
							3 * PAGE_SIZE - 16,
							&pb), 0);
	softhca_pas_to_prm(&pb, &d);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d.list_addr), (u64)pb.dma[0]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.nblocks), 3u);
	KUNIT_EXPECT_EQ(test, d.log_block_size, PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, d.page_offset, 0);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(dev->hw, &d,
						  3 * PAGE_SIZE - 16, true, 0,
						  &hpas, &s), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, hpas.blocks[i], dma + i * PAGE_SIZE);
	softhca_hw_pas_free(&hpas);
	softhca_pas_free(dev, &pb);
	KUNIT_EXPECT_NULL(test, pb.pages);

	/* user memory over 1100 pages, some repeated: three list pages */
	segs = kunit_kcalloc(test, 1100, sizeof(*segs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, segs);
	for (i = 0; i < 1100; i++) {
		segs[i].dma = dma + ((i * 5 + i / 3) % 3) * PAGE_SIZE;
		segs[i].len = PAGE_SIZE;
	}
	umem = softhca_test_umem(test, 0x7f0000001000ul + 0x240,
				 1100 * PAGE_SIZE - 0x240, segs, 1100);
	KUNIT_ASSERT_EQ(test, softhca_umem_queue_block(umem, SZ_4K | SZ_2M,
						       &off), (unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, off, 9);
	KUNIT_ASSERT_EQ(test, softhca_pas_from_umem(dev, umem, SZ_4K, &pb), 0);
	KUNIT_EXPECT_EQ(test, pb.npages, 3u);
	KUNIT_EXPECT_EQ(test, pb.nblocks, 1100u);
	pb.page_offset = off;
	softhca_pas_to_prm(&pb, &d);
	KUNIT_EXPECT_EQ(test, d.page_offset, 9);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(dev->hw, &d, umem->length,
						  true, 0, &hpas, &s), 0);
	KUNIT_EXPECT_EQ(test, hpas.offset, 0x240u);
	KUNIT_ASSERT_EQ(test, hpas.nblocks, 1100u);
	for (i = 0; i < 1100; i++)
		KUNIT_ASSERT_EQ_MSG(test, hpas.blocks[i], segs[i].dma,
				    "block %u", i);
	/* the card's view of byte 0 and the last byte of the queue */
	{
		u64 a;

		KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&hpas, 0, 64, &a), 0);
		KUNIT_EXPECT_EQ(test, a, segs[0].dma + 0x240);
		KUNIT_EXPECT_EQ(test, softhca_hw_pas_addr(&hpas,
							  umem->length - 1, 1,
							  &a), 0);
		KUNIT_EXPECT_EQ(test, a, segs[1099].dma + PAGE_SIZE - 1);
	}
	softhca_hw_pas_free(&hpas);
	softhca_pas_free(dev, &pb);
}

/* An MR on a real 2 MiB page at an iova 0x100 into its first block. */
static void driver_pas_huge_mr_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);
	struct softhca_test_seg segs[2];
	struct softhca_pas_buf pb;
	struct softhca_hw_pas hpas;
	struct pages_res *pr;
	struct softhca_pas d;
	struct ib_umem *umem;
	unsigned long pgsz;
	dma_addr_t huge;
	u32 s = 0;

	pr = kzalloc(sizeof(*pr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pr);
	pr->order = get_order(SZ_2M);
	pr->page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, pr->order);
	if (!pr->page) {
		kfree(pr);
		KUNIT_ASSERT_FAILURE(test, "no 2 MiB of contiguous memory");
	}
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, init_pages_res,
							 free_pages_res,
							 GFP_KERNEL, pr));
	/* the bus is a 64-bit master without IOMMU: DMA address = phys */
	huge = phys_to_dma(softhca_hw_device(dev->hw), page_to_phys(pr->page));
	KUNIT_ASSERT_EQ(test, huge & (SZ_2M - 1), 0ull);

	/* the same huge page twice, as two non-adjacent 2 MiB pieces */
	segs[0].dma = huge;
	segs[1].dma = huge;
	segs[0].len = SZ_2M;
	segs[1].len = SZ_2M;
	umem = softhca_test_umem(test, 0x7f0000400000ul + 0x100,
				 SZ_4M - 0x100, segs, 2);
	pgsz = softhca_umem_mr_block(umem, SZ_4K | SZ_2M | SZ_1G, 0x100);
	KUNIT_ASSERT_EQ(test, pgsz, (unsigned long)SZ_2M);
	KUNIT_ASSERT_EQ(test, softhca_pas_from_umem(dev, umem, pgsz, &pb), 0);
	KUNIT_EXPECT_EQ(test, pb.nblocks, 2u);
	KUNIT_EXPECT_EQ(test, pb.log_block_size, 21);
	softhca_pas_to_prm(&pb, &d);
	KUNIT_ASSERT_EQ(test, softhca_hw_pas_load(dev->hw, &d, umem->length,
						  false, 0x100, &hpas, &s), 0);
	KUNIT_EXPECT_EQ(test, hpas.offset, 0x100u);
	KUNIT_EXPECT_EQ(test, hpas.blocks[0], (u64)huge);
	KUNIT_EXPECT_EQ(test, hpas.blocks[1], (u64)huge);
	softhca_hw_pas_free(&hpas);
	/* the same PAS for an iova in another place of its block fails */
	load_fails(test, &(struct pas_env){ .hw = dev->hw }, d, umem->length,
		   false, 0x1100, SOFTHCA_CMD_STAT_BAD_PARAM,
		   SOFTHCA_SYND_PAS_NBLOCKS);
	softhca_pas_free(dev, &pb);
}

/* ------------------------------------------------------------------------
 * The card's copy of the RAM ranges (hw_ram.c)
 */
static void ram_covers_test(struct kunit *test)
{
	struct softhca_hw_ram *ram;

	ram = kunit_kzalloc(test, struct_size(ram, r, 3), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ram);
	ram->n = 3;
	ram->r[0] = (struct softhca_hw_ram_range){ 0x1000, 0x9f000 };
	ram->r[1] = (struct softhca_hw_ram_range){ 0x100000, 0x40000000 };
	ram->r[2] = (struct softhca_hw_ram_range){ 0x100000000ull,
						   0x140000000ull };
	/* inside each range, and up to its very end */
	KUNIT_EXPECT_TRUE(test, softhca_hw_ram_covers(ram, 0x1000, 8));
	KUNIT_EXPECT_TRUE(test, softhca_hw_ram_covers(ram, 0x9e000, 0x1000));
	KUNIT_EXPECT_TRUE(test,
			  softhca_hw_ram_covers(ram, 0x100000, 0x3ff00000));
	KUNIT_EXPECT_TRUE(test, softhca_hw_ram_covers(ram, 0x13ffffff8ull, 8));
	/* one byte past an end, before the first, in a gap, past the last */
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0x9e000, 0x1001));
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0, 8));
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0xa0000, 8));
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0x13ffffff8ull, 9));
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0x140000000ull, 1));
	/* two ranges with a gap between them are not one run of RAM */
	KUNIT_EXPECT_FALSE(test,
			   softhca_hw_ram_covers(ram, 0x3ffff000, SZ_4G));
	/* a range starting in a gap and ending in RAM */
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0xff000, 0x2000));
	/* no bytes, and a range that wraps */
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0x1000, 0));
	KUNIT_EXPECT_FALSE(test,
			   softhca_hw_ram_covers(ram, 0x1000, U64_MAX - 0x800));
	/* an empty copy covers nothing */
	ram->n = 0;
	KUNIT_EXPECT_FALSE(test, softhca_hw_ram_covers(ram, 0x1000, 8));
}

/*
 * A card's copy agrees with the kernel's own page_is_ram() (which walks
 * the resource tree) at both ends of every range it holds and on the
 * pages just outside them, and its ranges are sorted and apart.
 */
static void ram_copy_matches_kernel_test(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	const struct softhca_hw_ram *ram;
	u64 total = 0;
	unsigned int i;
	void *buf;

	rcu_read_lock();
	ram = rcu_dereference(hw->ram);
	KUNIT_ASSERT_NOT_NULL(test, ram);
	KUNIT_EXPECT_GT(test, ram->n, 0u);
	for (i = 0; i < ram->n; i++) {
		const struct softhca_hw_ram_range *r = &ram->r[i];
		/* page_is_ram() counts only pages wholly inside a range */
		unsigned long first = PFN_UP(r->start);
		unsigned long end = PFN_DOWN(r->end);

		KUNIT_EXPECT_LT(test, r->start, r->end);
		if (i)
			KUNIT_EXPECT_LT(test, ram->r[i - 1].end, r->start);
		if (first < end) {
			KUNIT_EXPECT_TRUE(test, page_is_ram(first));
			KUNIT_EXPECT_TRUE(test, page_is_ram(end - 1));
		}
		if (first && IS_ALIGNED(r->start, PAGE_SIZE))
			KUNIT_EXPECT_FALSE(test, page_is_ram(first - 1));
		if (IS_ALIGNED(r->end, PAGE_SIZE))
			KUNIT_EXPECT_FALSE(test, page_is_ram(end));
		total += r->end - r->start;
	}
	rcu_read_unlock();
	/* all of the guest's memory, and what firmware kept of it */
	KUNIT_EXPECT_GE(test, total, (u64)totalram_pages() << PAGE_SHIFT);
	/* the kernel's own memory is RAM, the VGA hole is not */
	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_TRUE(test, softhca_hw_is_ram(hw, virt_to_phys(buf), 64));
	KUNIT_EXPECT_FALSE(test, softhca_hw_is_ram(hw, VGA_HOLE, 8));
}

/*
 * The wire's receive path checks addresses in softirq context. The card
 * used to ask the resource tree, whose lock process context takes for
 * writing with softirqs on: lockdep (on the debug kernel KUnit boots)
 * reported it and turned itself off. The same check from a tasklet must
 * leave lockdep on.
 */
struct ram_in_softirq {
	struct tasklet_struct tasklet;
	struct softhca_hw *hw;
	u64 addr;
	bool ok;
	struct completion done;
};

static void ram_in_softirq_fn(struct tasklet_struct *t)
{
	struct ram_in_softirq *r = from_tasklet(r, t, tasklet);

	r->ok = softhca_hw_is_ram(r->hw, r->addr, 64);
	complete(&r->done);
}

static void ram_check_in_softirq_test(struct kunit *test)
{
	struct ram_in_softirq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_TRUE_MSG(test, debug_locks, "lockdep was off already");
	r->hw = softhca_test_plug(test);
	r->addr = virt_to_phys(r);
	init_completion(&r->done);
	tasklet_setup(&r->tasklet, ram_in_softirq_fn);
	tasklet_schedule(&r->tasklet);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&r->done, 10 * HZ));
	tasklet_kill(&r->tasklet);
	KUNIT_EXPECT_TRUE(test, r->ok);
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep reported (and turned off)");
}

static struct kunit_case softhca_hw_dma_cases[] = {
	KUNIT_CASE(ram_covers_test),
	KUNIT_CASE(ram_copy_matches_kernel_test),
	KUNIT_CASE(ram_check_in_softirq_test),
	KUNIT_CASE(pas_addr_inside_test),
	KUNIT_CASE(pas_addr_outside_test),
	KUNIT_CASE(dma_rw_test),
	KUNIT_CASE(pas_ptr_test),
	KUNIT_CASE(dma_bad_addr_test),
	KUNIT_CASE(dbrec_ok_test),
	KUNIT_CASE(dma_non_ram_page_test),
	KUNIT_CASE(pas_load_ok_test),
	KUNIT_CASE(pas_addr_object_end_test),
	KUNIT_CASE(pas_load_chain_test),
	KUNIT_CASE(pas_load_list_addr_test),
	KUNIT_CASE(pas_load_block_addr_test),
	KUNIT_CASE(pas_load_nblocks_test),
	KUNIT_CASE(pas_load_log_size_test),
	KUNIT_CASE(pas_load_page_offset_test),
	KUNIT_CASE(driver_pas_roundtrip_test),
	KUNIT_CASE(driver_pas_huge_mr_test),
	{}
};

static struct kunit_suite softhca_hw_dma_suite = {
	.name = "softhca_hw_dma",
	.test_cases = softhca_hw_dma_cases,
};

kunit_test_suite(softhca_hw_dma_suite);

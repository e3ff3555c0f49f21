// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_kdbrec": the pool of kernel doorbell records,
 * kernel/softhca_kdbrec.c, over a fake page allocator
 * (struct softhca_kdbrec_ops) that hands out plain pages at DMA addresses
 * the test knows, counts them and can fail. A page holds 64 records of 64
 * bytes; a record is zeroed, at its slot's CPU and DMA address, never
 * shared; a page is allocated only when every page is full and freed with
 * its last record; a failed page allocation is -ENOMEM and leaves nothing.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "softhca.h"

#define MAX_PAGES	8
#define DMA_BASE	0x7700000000ull

struct fake_pages {
	struct kunit *test;
	unsigned int allocs;
	unsigned int frees;
	bool fail;
	struct {
		void *cpu;
		dma_addr_t dma;
		bool live;
	} page[MAX_PAGES];
};

static void *fake_alloc(void *ctx, dma_addr_t *dma)
{
	struct fake_pages *f = ctx;
	unsigned int n = f->allocs;
	void *cpu;

	if (f->fail)
		return NULL;
	KUNIT_ASSERT_LT(f->test, n, (unsigned int)MAX_PAGES);
	cpu = (void *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(f->test, cpu);
	/* dirty it: the pool must zero every record it hands out */
	memset(cpu, 0xa5, PAGE_SIZE);
	f->page[n].cpu = cpu;
	f->page[n].dma = DMA_BASE + (u64)n * 0x100000;
	f->page[n].live = true;
	f->allocs++;
	*dma = f->page[n].dma;
	return cpu;
}

static void fake_free(void *ctx, void *cpu, dma_addr_t dma)
{
	struct fake_pages *f = ctx;
	unsigned int i;

	for (i = 0; i < f->allocs; i++) {
		if (f->page[i].cpu == cpu) {
			KUNIT_EXPECT_TRUE(f->test, f->page[i].live);
			KUNIT_EXPECT_EQ(f->test, dma, f->page[i].dma);
			f->page[i].live = false;
			f->frees++;
			free_page((unsigned long)cpu);
			return;
		}
	}
	KUNIT_FAIL(f->test, "free of a page never allocated");
}

static const struct softhca_kdbrec_ops fake_ops = {
	.alloc = fake_alloc,
	.free = fake_free,
};

static struct fake_pages *setup(struct kunit *test,
				struct softhca_kdbrec_pool *pool)
{
	struct fake_pages *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	softhca_kdbrec_pool_init(pool, &fake_ops, f);
	return f;
}

/* @n record handles, off the stack. */
static struct softhca_kdbrec *records(struct kunit *test, unsigned int n)
{
	struct softhca_kdbrec *db = kunit_kcalloc(test, n, sizeof(*db),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, db);
	return db;
}

/* Which fake page @db is on, by its CPU address. */
static int page_of(struct fake_pages *f, const struct softhca_kdbrec *db)
{
	unsigned int i;

	for (i = 0; i < f->allocs; i++)
		if (db->cpu >= f->page[i].cpu &&
		    db->cpu < f->page[i].cpu + PAGE_SIZE)
			return i;
	return -1;
}

/* One page for 64 records, each zeroed, at its slot, CPU and DMA agree. */
static void kdbrec_one_page_test(struct kunit *test)
{
	struct softhca_kdbrec_pool pool;
	struct fake_pages *f = setup(test, &pool);
	struct softhca_kdbrec *db = records(test, SOFTHCA_KDBREC_PER_PAGE);
	DECLARE_BITMAP(seen, SOFTHCA_KDBREC_PER_PAGE);
	unsigned int i;
	int p;

	KUNIT_ASSERT_EQ(test, (unsigned long)SOFTHCA_KDBREC_PER_PAGE,
			PAGE_SIZE / 64);
	bitmap_zero(seen, SOFTHCA_KDBREC_PER_PAGE);
	for (i = 0; i < SOFTHCA_KDBREC_PER_PAGE; i++) {
		u64 off;

		KUNIT_ASSERT_EQ(test, softhca_kdbrec_alloc(&pool, &db[i]), 0);
		p = page_of(f, &db[i]);
		KUNIT_ASSERT_EQ(test, p, 0);
		off = db[i].cpu - f->page[0].cpu;
		KUNIT_EXPECT_EQ(test, off % 64, 0ull);
		KUNIT_EXPECT_EQ(test, (u64)db[i].dma, f->page[0].dma + off);
		KUNIT_EXPECT_EQ(test, (u64)db[i].slot, off / 64);
		KUNIT_EXPECT_FALSE(test, test_bit(db[i].slot, seen));
		__set_bit(db[i].slot, seen);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(db[i].cpu, 0, 64));
	}
	KUNIT_EXPECT_EQ(test, f->allocs, 1u);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&pool), 1u);
	KUNIT_EXPECT_TRUE(test, bitmap_full(seen, SOFTHCA_KDBREC_PER_PAGE));

	for (i = 0; i < SOFTHCA_KDBREC_PER_PAGE; i++) {
		softhca_kdbrec_free(&pool, &db[i]);
		KUNIT_EXPECT_PTR_EQ(test, db[i].cpu, (void *)NULL);
		KUNIT_EXPECT_EQ(test, f->frees,
				i + 1 == SOFTHCA_KDBREC_PER_PAGE ? 1u : 0u);
	}
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&pool), 0u);
}

/* The 65th record opens a second page; a freed slot is reused first. */
static void kdbrec_second_page_test(struct kunit *test)
{
	struct softhca_kdbrec_pool pool;
	struct fake_pages *f = setup(test, &pool);
	struct softhca_kdbrec *db = records(test, SOFTHCA_KDBREC_PER_PAGE + 1);
	unsigned int i;

	for (i = 0; i <= SOFTHCA_KDBREC_PER_PAGE; i++)
		KUNIT_ASSERT_EQ(test, softhca_kdbrec_alloc(&pool, &db[i]), 0);
	KUNIT_EXPECT_EQ(test, f->allocs, 2u);
	KUNIT_EXPECT_EQ(test, page_of(f, &db[SOFTHCA_KDBREC_PER_PAGE]), 1);
	KUNIT_EXPECT_EQ(test, (u64)db[SOFTHCA_KDBREC_PER_PAGE].dma,
			f->page[1].dma);

	/* a hole in page 0 with room on page 1: no new page, zeroed slot */
	memset(db[17].cpu, 0xff, 64);
	softhca_kdbrec_free(&pool, &db[17]);
	KUNIT_ASSERT_EQ(test, softhca_kdbrec_alloc(&pool, &db[17]), 0);
	KUNIT_EXPECT_EQ(test, f->allocs, 2u);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(db[17].cpu, 0, 64));
	KUNIT_EXPECT_GE(test, page_of(f, &db[17]), 0);

	/* page 1 goes with its last record, page 0 stays */
	for (i = 0; i <= SOFTHCA_KDBREC_PER_PAGE; i++)
		if (db[i].cpu && page_of(f, &db[i]) == 1)
			softhca_kdbrec_free(&pool, &db[i]);
	KUNIT_EXPECT_EQ(test, f->frees, 1u);
	KUNIT_EXPECT_FALSE(test, f->page[1].live);
	KUNIT_EXPECT_TRUE(test, f->page[0].live);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&pool), 1u);
	for (i = 0; i <= SOFTHCA_KDBREC_PER_PAGE; i++)
		if (db[i].cpu)
			softhca_kdbrec_free(&pool, &db[i]);
	KUNIT_EXPECT_EQ(test, f->frees, 2u);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&pool), 0u);
}

/* No page to be had: -ENOMEM, the records handed out stay good. */
static void kdbrec_exhaustion_test(struct kunit *test)
{
	struct softhca_kdbrec_pool pool;
	struct fake_pages *f = setup(test, &pool);
	struct softhca_kdbrec *db = records(test, SOFTHCA_KDBREC_PER_PAGE);
	struct softhca_kdbrec extra = {};
	unsigned int i;

	f->fail = true;
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_alloc(&pool, &extra), -ENOMEM);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&pool), 0u);
	f->fail = false;
	for (i = 0; i < SOFTHCA_KDBREC_PER_PAGE; i++)
		KUNIT_ASSERT_EQ(test, softhca_kdbrec_alloc(&pool, &db[i]), 0);
	f->fail = true;
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_alloc(&pool, &extra), -ENOMEM);
	KUNIT_EXPECT_EQ(test, f->allocs, 1u);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_pages(&pool), 1u);
	/* one freed slot is enough again, without a new page */
	softhca_kdbrec_free(&pool, &db[40]);
	KUNIT_EXPECT_EQ(test, softhca_kdbrec_alloc(&pool, &db[40]), 0);
	KUNIT_EXPECT_EQ(test, db[40].slot, 40u);
	for (i = 0; i < SOFTHCA_KDBREC_PER_PAGE; i++)
		softhca_kdbrec_free(&pool, &db[i]);
	KUNIT_EXPECT_EQ(test, f->frees, 1u);
}

static struct kunit_case kdbrec_cases[] = {
	KUNIT_CASE(kdbrec_one_page_test),
	KUNIT_CASE(kdbrec_second_page_test),
	KUNIT_CASE(kdbrec_exhaustion_test),
	{}
};

static struct kunit_suite kdbrec_suite = {
	.name = "softhca_kdbrec",
	.test_cases = kdbrec_cases,
};

kunit_test_suite(kdbrec_suite);

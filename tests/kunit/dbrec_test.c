// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_dbrec": the per-context table of pinned doorbell
 * record pages, kernel/softhca_dbrec.c, through its test seam: a fake
 * struct softhca_dbrec_ops that counts pins and unpins and hands out DMA
 * addresses the test knows. A page is pinned once per owner (process) and
 * page, however many records live on it, and unpinned with its last one.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "softhca.h"

#define MAX_PINS	16
#define DMA_BASE	0x5000000000ull

/* The fake pinner: what was pinned, by whom, and what is still pinned. */
struct fake_pinner {
	struct kunit *test;
	unsigned int pins;
	unsigned int unpins;
	int fail;			/* error of the next pin, once */
	struct {
		const void *owner;
		unsigned long va;
		bool pinned;
	} pin[MAX_PINS];
};

/* The DMA address the fake gives to pin number @n. */
static dma_addr_t fake_dma(unsigned int n)
{
	return DMA_BASE + (u64)n * 0x10000 + 0x3000;
}

static int fake_pin(void *ctx, const void *owner, unsigned long va,
		    dma_addr_t *dma, void **cookie)
{
	struct fake_pinner *f = ctx;
	unsigned int n = f->pins;

	KUNIT_EXPECT_EQ(f->test, va & ~PAGE_MASK, 0ul);
	if (f->fail) {
		int ret = f->fail;

		f->fail = 0;
		return ret;
	}
	KUNIT_ASSERT_LT(f->test, n, (unsigned int)MAX_PINS);
	f->pin[n].owner = owner;
	f->pin[n].va = va;
	f->pin[n].pinned = true;
	f->pins++;
	*dma = fake_dma(n);
	*cookie = &f->pin[n];
	return 0;
}

static void fake_unpin(void *ctx, const void *owner, void *cookie)
{
	struct fake_pinner *f = ctx;
	unsigned int n;

	KUNIT_ASSERT_TRUE(f->test, cookie >= (void *)&f->pin[0] &&
			  cookie < (void *)&f->pin[MAX_PINS]);
	n = (typeof(f->pin[0]) *)cookie - f->pin;
	KUNIT_EXPECT_LT(f->test, n, f->pins);
	KUNIT_EXPECT_TRUE(f->test, f->pin[n].pinned);
	KUNIT_EXPECT_PTR_EQ(f->test, owner, f->pin[n].owner);
	f->pin[n].pinned = false;
	f->unpins++;
}

static const struct softhca_dbrec_ops fake_ops = {
	.pin = fake_pin,
	.unpin = fake_unpin,
};

/* Two fake mm pointers: only their identity matters. */
static int mm_a, mm_b;
#define OWNER_A	((const void *)&mm_a)
#define OWNER_B	((const void *)&mm_b)

#define PAGE_VA	0x7f5500002000ul

struct dbrec_ctx {
	struct fake_pinner f;
	struct softhca_dbrec_table t;
};

static struct dbrec_ctx *dbrec_setup(struct kunit *test)
{
	struct dbrec_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->f.test = test;
	softhca_dbrec_table_init(&c->t, &fake_ops, &c->f);
	KUNIT_EXPECT_PTR_EQ(test, c->t.ops, &fake_ops);
	KUNIT_EXPECT_PTR_EQ(test, c->t.ctx, (void *)&c->f);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);
	return c;
}

static void same_page_test(struct kunit *test)
{
	struct dbrec_ctx *c = dbrec_setup(test);
	struct softhca_dbrec a, b;

	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 0x40,
						&a), 0);
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 0x80,
						&b), 0);
	KUNIT_EXPECT_EQ(test, c->f.pins, 1u);
	KUNIT_EXPECT_EQ(test, c->f.pin[0].va, PAGE_VA);
	KUNIT_EXPECT_PTR_EQ(test, c->f.pin[0].owner, OWNER_A);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 1u);
	KUNIT_EXPECT_PTR_EQ(test, a.page, b.page);
	KUNIT_EXPECT_EQ(test, a.dma, fake_dma(0) + 0x40);
	KUNIT_EXPECT_EQ(test, b.dma, fake_dma(0) + 0x80);
	KUNIT_EXPECT_EQ(test, a.page->refcnt, 2u);
	KUNIT_EXPECT_EQ(test, a.page->va, PAGE_VA);
	KUNIT_EXPECT_EQ(test, a.page->dma, fake_dma(0));

	softhca_dbrec_unmap(&c->t, &a);
	KUNIT_EXPECT_NULL(test, a.page);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 0u);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 1u);
	KUNIT_EXPECT_EQ(test, b.page->refcnt, 1u);
	KUNIT_EXPECT_EQ(test, b.dma, fake_dma(0) + 0x80);

	softhca_dbrec_unmap(&c->t, &b);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 1u);
	KUNIT_EXPECT_FALSE(test, c->f.pin[0].pinned);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);
}

/* The same record address mapped twice (two CQs naming one slot). */
static void same_record_twice_test(struct kunit *test)
{
	struct dbrec_ctx *c = dbrec_setup(test);
	struct softhca_dbrec a, b, d;

	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA, &a),
			0);
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA, &b),
			0);
	KUNIT_EXPECT_EQ(test, c->f.pins, 1u);
	KUNIT_EXPECT_EQ(test, a.dma, fake_dma(0));
	KUNIT_EXPECT_EQ(test, b.dma, fake_dma(0));
	softhca_dbrec_unmap(&c->t, &b);
	softhca_dbrec_unmap(&c->t, &a);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 1u);

	/* after the last unmap the page is pinned afresh */
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A,
						PAGE_VA + 0xff8, &d), 0);
	KUNIT_EXPECT_EQ(test, c->f.pins, 2u);
	KUNIT_EXPECT_EQ(test, d.dma, fake_dma(1) + 0xff8);
	softhca_dbrec_unmap(&c->t, &d);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 2u);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);
}

static void two_owners_test(struct kunit *test)
{
	struct dbrec_ctx *c = dbrec_setup(test);
	struct softhca_dbrec a1, b1, a2, b2;

	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 8,
						&a1), 0);
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_B, PAGE_VA + 8,
						&b1), 0);
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 16,
						&a2), 0);
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_B, PAGE_VA + 16,
						&b2), 0);
	/* one pin per owner, never shared */
	KUNIT_EXPECT_EQ(test, c->f.pins, 2u);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 2u);
	KUNIT_EXPECT_PTR_EQ(test, c->f.pin[0].owner, OWNER_A);
	KUNIT_EXPECT_PTR_EQ(test, c->f.pin[1].owner, OWNER_B);
	KUNIT_EXPECT_EQ(test, c->f.pin[1].va, PAGE_VA);
	KUNIT_EXPECT_PTR_NE(test, a1.page, b1.page);
	KUNIT_EXPECT_PTR_EQ(test, a1.page, a2.page);
	KUNIT_EXPECT_PTR_EQ(test, b1.page, b2.page);
	KUNIT_EXPECT_EQ(test, a1.dma, fake_dma(0) + 8);
	KUNIT_EXPECT_EQ(test, b1.dma, fake_dma(1) + 8);
	KUNIT_EXPECT_EQ(test, a2.dma, fake_dma(0) + 16);
	KUNIT_EXPECT_EQ(test, b2.dma, fake_dma(1) + 16);

	/* owner A goes away; B keeps its page */
	softhca_dbrec_unmap(&c->t, &a1);
	softhca_dbrec_unmap(&c->t, &a2);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 1u);
	KUNIT_EXPECT_FALSE(test, c->f.pin[0].pinned);
	KUNIT_EXPECT_TRUE(test, c->f.pin[1].pinned);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 1u);
	softhca_dbrec_unmap(&c->t, &b2);
	softhca_dbrec_unmap(&c->t, &b1);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 2u);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);
}

static void misaligned_test(struct kunit *test)
{
	static const unsigned long offs[] = { 1, 2, 3, 4, 5, 6, 7, 9, 0x44,
					      0xffc, 0xfff };
	struct dbrec_ctx *c = dbrec_setup(test);
	struct softhca_dbrec db, ok;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		db.page = (void *)0x1;
		db.dma = 0x1234;
		KUNIT_EXPECT_EQ_MSG(test,
				    softhca_dbrec_map(&c->t, OWNER_A,
						      PAGE_VA + offs[i], &db),
				    -EINVAL, "offset %#lx", offs[i]);
		KUNIT_EXPECT_PTR_EQ(test, (void *)db.page, (void *)0x1);
		KUNIT_EXPECT_EQ(test, db.dma, (dma_addr_t)0x1234);
	}
	KUNIT_EXPECT_EQ(test, c->f.pins, 0u);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);

	/* misaligned on a pinned page: refused, the page's count unchanged */
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 0x40,
						&ok), 0);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 0x44,
						&db), -EINVAL);
	KUNIT_EXPECT_EQ(test, ok.page->refcnt, 1u);
	KUNIT_EXPECT_EQ(test, c->f.pins, 1u);
	/* 8-byte alignment is enough, including the page's last record */
	{
		struct softhca_dbrec last;

		KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A,
							PAGE_VA + 0xff8, &last),
				0);
		KUNIT_EXPECT_EQ(test, last.dma, fake_dma(0) + 0xff8);
		softhca_dbrec_unmap(&c->t, &last);
	}
	softhca_dbrec_unmap(&c->t, &ok);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 1u);
}

static void pin_failure_test(struct kunit *test)
{
	static const int errs[] = { -EFAULT, -ENOMEM, -EPERM, -EINVAL };
	struct dbrec_ctx *c = dbrec_setup(test);
	struct softhca_dbrec db, ok;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		c->f.fail = errs[i];
		db.page = (void *)0x1;
		db.dma = 0x1234;
		KUNIT_EXPECT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A,
							PAGE_VA + 0x100, &db),
				errs[i]);
		KUNIT_EXPECT_PTR_EQ(test, (void *)db.page, (void *)0x1);
		KUNIT_EXPECT_EQ(test, db.dma, (dma_addr_t)0x1234);
		KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);
		KUNIT_EXPECT_EQ(test, c->f.pins, 0u);
		KUNIT_EXPECT_EQ(test, c->f.unpins, 0u);
	}

	/* a later map of the same page pins it normally */
	KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 0x100,
						&ok), 0);
	KUNIT_EXPECT_EQ(test, ok.dma, fake_dma(0) + 0x100);
	KUNIT_EXPECT_EQ(test, ok.page->refcnt, 1u);

	/* a failing pin of another page leaves the pinned one alone */
	c->f.fail = -EFAULT;
	KUNIT_EXPECT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A,
						PAGE_VA + PAGE_SIZE, &db),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 1u);
	KUNIT_EXPECT_EQ(test, ok.page->refcnt, 1u);
	/* ... and a record on the pinned page needs no pin at all */
	c->f.fail = -EFAULT;
	KUNIT_EXPECT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, PAGE_VA + 0x140,
						&db), 0);
	KUNIT_EXPECT_EQ(test, db.dma, fake_dma(0) + 0x140);
	c->f.fail = 0;
	softhca_dbrec_unmap(&c->t, &db);
	softhca_dbrec_unmap(&c->t, &ok);
	KUNIT_EXPECT_EQ(test, c->f.pins, 1u);
	KUNIT_EXPECT_EQ(test, c->f.unpins, 1u);
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 0u);
}

/* 4 pages x 64 cache-line records, unmapped in an interleaved order. */
static void many_records_test(struct kunit *test)
{
	struct dbrec_ctx *c = dbrec_setup(test);
	struct softhca_dbrec *db;
	unsigned int i, p, left[4];

	db = kunit_kcalloc(test, 4 * 64, sizeof(*db), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, db);
	for (i = 0; i < 4 * 64; i++) {
		/* record i is slot i / 4 of page i % 4 */
		unsigned long va = PAGE_VA + (i % 4) * PAGE_SIZE +
				   (i / 4) * 64;

		KUNIT_ASSERT_EQ(test, softhca_dbrec_map(&c->t, OWNER_A, va,
							&db[i]), 0);
		/* pins happen in page order of first use */
		KUNIT_ASSERT_EQ(test, db[i].dma, fake_dma(i % 4) + (i / 4) * 64);
	}
	KUNIT_EXPECT_EQ(test, c->f.pins, 4u);
	for (p = 0; p < 4; p++) {
		KUNIT_EXPECT_EQ(test, c->f.pin[p].va, PAGE_VA + p * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, db[p].page->refcnt, 64u);
		left[p] = 64;
	}
	KUNIT_EXPECT_EQ(test, softhca_dbrec_pinned_pages(&c->t), 4u);

	/* unmap with a stride coprime to 256: pages drain in turn */
	for (i = 0; i < 4 * 64; i++) {
		unsigned int r = (i * 77) % 256, pinned = 0;

		p = r % 4;
		softhca_dbrec_unmap(&c->t, &db[r]);
		KUNIT_ASSERT_NULL(test, db[r].page);
		left[p]--;
		KUNIT_ASSERT_EQ(test, c->f.pin[p].pinned, left[p] > 0);
		for (p = 0; p < 4; p++)
			pinned += left[p] > 0;
		KUNIT_ASSERT_EQ(test, softhca_dbrec_pinned_pages(&c->t), pinned);
	}
	KUNIT_EXPECT_EQ(test, c->f.unpins, 4u);
	KUNIT_EXPECT_EQ(test, c->f.pins, 4u);
}

static struct kunit_case softhca_dbrec_cases[] = {
	KUNIT_CASE(same_page_test),
	KUNIT_CASE(same_record_twice_test),
	KUNIT_CASE(two_owners_test),
	KUNIT_CASE(misaligned_test),
	KUNIT_CASE(pin_failure_test),
	KUNIT_CASE(many_records_test),
	{}
};

static struct kunit_suite softhca_dbrec_suite = {
	.name = "softhca_dbrec",
	.test_cases = softhca_dbrec_cases,
};

kunit_test_suite(softhca_dbrec_suite);

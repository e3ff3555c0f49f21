/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the softhca KUnit suites (test_util.c): synthetic
 * ib_umem objects with a hand-made DMA scatterlist, and a plugged device
 * model card that goes away when the case ends.
 */
#ifndef SOFTHCA_TEST_UTIL_H
#define SOFTHCA_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/types.h>

struct ib_umem;
struct softhca_dev;
struct softhca_hw;

/* One DMA segment of a synthetic umem, as ib_umem_get() would merge it. */
struct softhca_test_seg {
	u64 dma;
	u32 len;
};

/*
 * An ib_umem of @length bytes at user address @address whose scatterlist
 * holds @segs (set with sg_dma_address()/sg_dma_len(); nothing is mapped).
 * iova starts equal to @address, as ib_umem_get() leaves it. Freed when
 * the case ends.
 */
struct ib_umem *softhca_test_umem(struct kunit *test, unsigned long address,
				  size_t length,
				  const struct softhca_test_seg *segs,
				  unsigned int nsegs);

/* Bytes the segments of @umem cover. */
u64 softhca_test_umem_bytes(struct ib_umem *umem);

/* A card from softhca_hw_plug(), unplugged when the case ends. */
struct softhca_hw *softhca_test_plug(struct kunit *test);

/*
 * @size bytes of coherent DMA memory of @hw's bus device, freed when the
 * case ends (before the card is unplugged).
 */
void *softhca_test_dma_alloc(struct kunit *test, struct softhca_hw *hw,
			     size_t size, dma_addr_t *dma);

/*
 * A driver device on a freshly plugged card, as far as the tests need
 * one: dev->hw set, dev->cqs initialised and the command queue up
 * (softhca_cmd_init(), polling mode: no EQ, no IRQ, no ib_device
 * registration). Torn down when the case ends.
 */
struct softhca_dev *softhca_test_dev(struct kunit *test);

#endif /* SOFTHCA_TEST_UTIL_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Helpers shared by the softhca KUnit suites. Every object is a KUnit
 * resource, so it is released when the case ends, crashed or not, in the
 * reverse order of creation.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "softhca.h"
#include "test_util.h"

static int softhca_test_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void softhca_test_umem_free(struct kunit_resource *res)
{
	struct ib_umem *umem = res->data;

	sg_free_table(&umem->sgt_append.sgt);
	kfree(umem);
}

struct ib_umem *softhca_test_umem(struct kunit *test, unsigned long address,
				  size_t length,
				  const struct softhca_test_seg *segs,
				  unsigned int nsegs)
{
	struct scatterlist *sg;
	struct ib_umem *umem;
	unsigned int i;

	umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, umem);
	if (sg_alloc_table(&umem->sgt_append.sgt, nsegs, GFP_KERNEL)) {
		kfree(umem);
		KUNIT_ASSERT_FAILURE(test, "sg_alloc_table(%u) failed", nsegs);
	}
	for_each_sg(umem->sgt_append.sgt.sgl, sg, nsegs, i) {
		sg->length = segs[i].len;
		sg_dma_address(sg) = segs[i].dma;
		sg_dma_len(sg) = segs[i].len;
	}
	umem->sgt_append.sgt.nents = nsegs;
	umem->sgt_append.sgt.orig_nents = nsegs;
	umem->address = address;
	umem->length = length;
	umem->iova = address;
	umem->writable = 1;
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, softhca_test_res_init,
						   softhca_test_umem_free,
						   GFP_KERNEL, umem));
	return umem;
}

u64 softhca_test_umem_bytes(struct ib_umem *umem)
{
	struct scatterlist *sg;
	u64 n = 0;
	int i;

	for_each_sgtable_dma_sg(&umem->sgt_append.sgt, sg, i)
		n += sg_dma_len(sg);
	return n;
}

static void softhca_test_unplug(struct kunit_resource *res)
{
	softhca_hw_unplug(res->data);
}

struct softhca_hw *softhca_test_plug(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x53, 0x48, 0x43, 0x41, 0x01 };
	struct softhca_hw *hw = softhca_hw_plug(mac);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hw);
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, softhca_test_res_init,
						   softhca_test_unplug,
						   GFP_KERNEL, hw));
	return hw;
}

struct softhca_test_dma {
	struct softhca_hw *hw;
	size_t size;
	void *cpu;
	dma_addr_t dma;
};

static void softhca_test_dma_free(struct kunit_resource *res)
{
	struct softhca_test_dma *d = res->data;

	dma_free_coherent(softhca_hw_device(d->hw), d->size, d->cpu, d->dma);
	kfree(d);
}

void *softhca_test_dma_alloc(struct kunit *test, struct softhca_hw *hw,
			     size_t size, dma_addr_t *dma)
{
	struct softhca_test_dma *d = kzalloc(sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->hw = hw;
	d->size = size;
	d->cpu = dma_alloc_coherent(softhca_hw_device(hw), size, &d->dma,
				    GFP_KERNEL);
	if (!d->cpu) {
		kfree(d);
		KUNIT_ASSERT_FAILURE(test, "dma_alloc_coherent(%zu) failed",
				     size);
	}
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, softhca_test_res_init,
						   softhca_test_dma_free,
						   GFP_KERNEL, d));
	*dma = d->dma;
	return d->cpu;
}

static void softhca_test_dev_free(struct kunit_resource *res)
{
	struct softhca_dev *dev = res->data;

	softhca_cmd_cleanup(dev);
	xa_destroy(&dev->cqs);
	kfree(dev);
}

struct softhca_dev *softhca_test_dev(struct kunit *test)
{
	struct softhca_hw *hw = softhca_test_plug(test);
	struct softhca_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->hw = hw;
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_BH);
	ret = softhca_cmd_init(dev);
	if (ret) {
		kfree(dev);
		KUNIT_ASSERT_FAILURE(test, "softhca_cmd_init: %d", ret);
	}
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, softhca_test_res_init,
						   softhca_test_dev_free,
						   GFP_KERNEL, dev));
	return dev;
}

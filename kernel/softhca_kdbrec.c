// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: doorbell records of kernel queues. Kernel CQs, QPs and
 * SRQs take a 64-byte slot of a coherent page (a cache line, whatever the
 * card's dbrec_align below that); a page is carved into slots tracked by a
 * bitmap, allocated when no page has a free slot and freed with its last
 * slot (as mlx5's mlx5_db_alloc() does for its kernel queues). The pages
 * come from a struct softhca_kdbrec_ops so that KUnit can count them and
 * make them fail.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "softhca.h"

void softhca_kdbrec_pool_init(struct softhca_kdbrec_pool *pool,
			      const struct softhca_kdbrec_ops *ops, void *ctx)
{
	mutex_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
	pool->ops = ops;
	pool->ctx = ctx;
}

/**
 * softhca_kdbrec_alloc - take a zeroed doorbell record
 * @pool: the device's pool
 * @db: filled with the record's CPU and DMA address
 *
 * May sleep (it allocates pages).
 *
 * Return: 0, or -ENOMEM when no page has room and none can be allocated.
 */
int softhca_kdbrec_alloc(struct softhca_kdbrec_pool *pool,
			 struct softhca_kdbrec *db)
{
	struct softhca_kdbrec_page *p;
	unsigned int slot;
	int ret = 0;

	mutex_lock(&pool->lock);
	list_for_each_entry(p, &pool->pages, list)
		if (p->nused < SOFTHCA_KDBREC_PER_PAGE)
			goto found;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	p->cpu = pool->ops->alloc(pool->ctx, &p->dma);
	if (!p->cpu) {
		kfree(p);
		ret = -ENOMEM;
		goto out;
	}
	list_add(&p->list, &pool->pages);
found:
	slot = find_first_zero_bit(p->used, SOFTHCA_KDBREC_PER_PAGE);
	__set_bit(slot, p->used);
	p->nused++;
	db->page = p;
	db->slot = slot;
	db->cpu = p->cpu + slot * SOFTHCA_KDBREC_SIZE;
	db->dma = p->dma + slot * SOFTHCA_KDBREC_SIZE;
	memset(db->cpu, 0, SOFTHCA_KDBREC_SIZE);
out:
	mutex_unlock(&pool->lock);
	return ret;
}

/* Give a record back; its page goes with its last record. */
void softhca_kdbrec_free(struct softhca_kdbrec_pool *pool,
			 struct softhca_kdbrec *db)
{
	struct softhca_kdbrec_page *p = db->page;

	mutex_lock(&pool->lock);
	__clear_bit(db->slot, p->used);
	if (!--p->nused) {
		list_del(&p->list);
		pool->ops->free(pool->ctx, p->cpu, p->dma);
		kfree(p);
	}
	mutex_unlock(&pool->lock);
	db->page = NULL;
	db->cpu = NULL;
}

/* Pages the pool holds (for tests and the removal check). */
unsigned int softhca_kdbrec_pages(struct softhca_kdbrec_pool *pool)
{
	struct softhca_kdbrec_page *p;
	unsigned int n = 0;

	mutex_lock(&pool->lock);
	list_for_each_entry(p, &pool->pages, list)
		n++;
	mutex_unlock(&pool->lock);
	return n;
}

static void *softhca_kdbrec_coherent_alloc(void *ctx, dma_addr_t *dma)
{
	struct softhca_dev *dev = ctx;

	return dma_alloc_coherent(softhca_hw_device(dev->hw), PAGE_SIZE, dma,
				  GFP_KERNEL);
}

/* A card that never confirmed its reset may still write there: leak it. */
static void softhca_kdbrec_coherent_free(void *ctx, void *cpu, dma_addr_t dma)
{
	struct softhca_dev *dev = ctx;

	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(softhca_hw_device(dev->hw), PAGE_SIZE, cpu,
				  dma);
}

const struct softhca_kdbrec_ops softhca_kdbrec_coherent_ops = {
	.alloc = softhca_kdbrec_coherent_alloc,
	.free = softhca_kdbrec_coherent_free,
};

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: user doorbell records. The provider carves pages into
 * cache-line slots; every CQ, QP and SRQ names its slot by user address.
 * The driver pins each page once per context and process, however many
 * records live on it, and unpins it when the last one goes (as
 * mlx5_ib_db_map_user() does). The table is generic over how a page is
 * pinned so that the bookkeeping can be tested on its own.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <rdma/ib_umem.h>

#include "softhca.h"

void softhca_dbrec_table_init(struct softhca_dbrec_table *t,
			      const struct softhca_dbrec_ops *ops, void *ctx)
{
	mutex_init(&t->lock);
	INIT_LIST_HEAD(&t->pages);
	t->ops = ops;
	t->ctx = ctx;
}

/**
 * softhca_dbrec_map - find or pin the page of the record at @va
 * @t: the context's table
 * @owner: who maps it (the process's mm); pages are never shared across
 * @va: the record's user address (8-byte aligned)
 * @db: filled with the page and the record's DMA address
 *
 * Return: 0, -EINVAL for a misaligned address, or the pin's error.
 */
int softhca_dbrec_map(struct softhca_dbrec_table *t, const void *owner,
		      unsigned long va, struct softhca_dbrec *db)
{
	unsigned long page_va = va & PAGE_MASK;
	struct softhca_dbrec_page *p;
	int ret = 0;

	if (va & 7)
		return -EINVAL;

	mutex_lock(&t->lock);
	list_for_each_entry(p, &t->pages, list)
		if (p->va == page_va && p->owner == owner)
			goto found;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	ret = t->ops->pin(t->ctx, owner, page_va, &p->dma, &p->cookie);
	if (ret) {
		kfree(p);
		goto out;
	}
	p->owner = owner;
	p->va = page_va;
	list_add(&p->list, &t->pages);
found:
	p->refcnt++;
	db->page = p;
	db->dma = p->dma + (va & ~PAGE_MASK);
out:
	mutex_unlock(&t->lock);
	return ret;
}

void softhca_dbrec_unmap(struct softhca_dbrec_table *t,
			 struct softhca_dbrec *db)
{
	struct softhca_dbrec_page *p = db->page;

	mutex_lock(&t->lock);
	if (!--p->refcnt) {
		list_del(&p->list);
		t->ops->unpin(t->ctx, p->owner, p->cookie);
		kfree(p);
	}
	mutex_unlock(&t->lock);
	db->page = NULL;
}

unsigned int softhca_dbrec_pinned_pages(struct softhca_dbrec_table *t)
{
	struct softhca_dbrec_page *p;
	unsigned int n = 0;

	mutex_lock(&t->lock);
	list_for_each_entry(p, &t->pages, list)
		n++;
	mutex_unlock(&t->lock);
	return n;
}

/* Pin with ib_umem (the context's device), holding the mm while pinned. */
static int softhca_dbrec_umem_pin(void *ctx, const void *owner,
				  unsigned long va, dma_addr_t *dma,
				  void **cookie)
{
	struct ib_device *ibdev = ctx;
	struct ib_umem *umem;

	umem = ib_umem_get(ibdev, va, PAGE_SIZE, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	mmgrab((struct mm_struct *)owner);
	*dma = sg_dma_address(umem->sgt_append.sgt.sgl);
	*cookie = umem;
	return 0;
}

static void softhca_dbrec_umem_unpin(void *ctx, const void *owner,
				     void *cookie)
{
	softhca_umem_put(to_sdev(ctx), cookie);
	mmdrop((struct mm_struct *)owner);
}

const struct softhca_dbrec_ops softhca_dbrec_umem_ops = {
	.pin = softhca_dbrec_umem_pin,
	.unpin = softhca_dbrec_umem_unpin,
};

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: building PAS lists. A buffer is described to the card as
 * the DMA addresses of its blocks, kept in chained 4 KiB list pages (the
 * last slot of a full page points to the next page). User buffers come
 * from ib_umem (rdma_umem_for_each_dma_block), kernel buffers from one
 * dma_alloc_coherent() area.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>

#include "softhca.h"
#include "softhca_compat.h"

#define SOFTHCA_PAS_DATA_SLOTS	(SOFTHCA_PAS_PER_PAGE - 1)

/**
 * softhca_pas_slot - where entry @index of a list of @npages pages goes
 * @index: the block number
 * @npages: pages in the list (softhca_pas_list_pages())
 * @page: the list page
 * @slot: the slot in it
 *
 * Every page but the last keeps its last slot for the link; the last page
 * uses all of its slots.
 */
void softhca_pas_slot(u32 index, u32 npages, u32 *page, u32 *slot)
{
	u32 linked = (npages - 1) * SOFTHCA_PAS_DATA_SLOTS;

	if (index >= linked) {
		*page = npages - 1;
		*slot = index - linked;
	} else {
		*page = index / SOFTHCA_PAS_DATA_SLOTS;
		*slot = index % SOFTHCA_PAS_DATA_SLOTS;
	}
}

/* Chain the list pages: the last slot of each page but the last. */
void softhca_pas_link(__le64 **pages, const dma_addr_t *dma, u32 npages)
{
	u32 i;

	for (i = 0; i + 1 < npages; i++)
		pages[i][SOFTHCA_PAS_DATA_SLOTS] = cpu_to_le64(dma[i + 1]);
}

/**
 * softhca_pas_fill_umem - write the DMA address of every block of @umem
 * @umem: the pinned memory (ib_umem_find_best_pgsz() already chose @pgsz)
 * @pgsz: the block size
 * @pages: the list pages
 * @npages: their number
 *
 * Entries beyond what @npages list pages hold are counted, never written.
 *
 * Return: the number of blocks (ib_umem_num_dma_blocks()); the caller
 * checks it against the number the list was sized for.
 */
u32 softhca_pas_fill_umem(struct ib_umem *umem, unsigned long pgsz,
			  __le64 **pages, u32 npages)
{
	u32 room = npages ? npages * SOFTHCA_PAS_DATA_SLOTS + 1 : 0;
	struct ib_block_iter biter;
	u32 i = 0, page, slot;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (i < room) {
			softhca_pas_slot(i, npages, &page, &slot);
			pages[page][slot] =
				cpu_to_le64(rdma_block_iter_dma_address(&biter));
		}
		i++;
	}
	return i;
}

int softhca_pas_alloc(struct softhca_dev *dev, u32 nblocks, u8 log_block_size,
		      struct softhca_pas_buf *pb)
{
	struct device *dma_dev = softhca_hw_device(dev->hw);
	u32 i;

	memset(pb, 0, sizeof(*pb));
	if (!nblocks)
		return -EINVAL;
	pb->nblocks = nblocks;
	pb->log_block_size = log_block_size;
	pb->npages = softhca_pas_list_pages(nblocks);
	pb->pages = kvcalloc(pb->npages, sizeof(*pb->pages), GFP_KERNEL);
	pb->dma = kvcalloc(pb->npages, sizeof(*pb->dma), GFP_KERNEL);
	if (!pb->pages || !pb->dma)
		goto err;
	for (i = 0; i < pb->npages; i++) {
		pb->pages[i] = dma_alloc_coherent(dma_dev, SOFTHCA_PAS_PAGE_SIZE,
						  &pb->dma[i], GFP_KERNEL);
		if (!pb->pages[i])
			goto err;
	}
	softhca_pas_link(pb->pages, pb->dma, pb->npages);
	return 0;

err:
	softhca_pas_free(dev, pb);
	return -ENOMEM;
}

void softhca_pas_free(struct softhca_dev *dev, struct softhca_pas_buf *pb)
{
	struct device *dma_dev = softhca_hw_device(dev->hw);
	u32 i;

	/* a card that did not confirm its reset may still read the list */
	for (i = 0; pb->pages && softhca_cmd_dma_safe(dev) && i < pb->npages;
	     i++)
		if (pb->pages[i])
			dma_free_coherent(dma_dev, SOFTHCA_PAS_PAGE_SIZE,
					  pb->pages[i], pb->dma[i]);
	kvfree(pb->pages);
	kvfree(pb->dma);
	pb->pages = NULL;
	pb->dma = NULL;
}

void softhca_pas_to_prm(const struct softhca_pas_buf *pb,
			struct softhca_pas *pas)
{
	memset(pas, 0, sizeof(*pas));
	pas->list_addr = cpu_to_le64(pb->dma[0]);
	pas->nblocks = cpu_to_le32(pb->nblocks);
	pas->log_block_size = pb->log_block_size;
	pas->page_offset = pb->page_offset;
}

/* The PAS of pinned user memory at block size @pgsz. */
int softhca_pas_from_umem(struct softhca_dev *dev, struct ib_umem *umem,
			  unsigned long pgsz, struct softhca_pas_buf *pb)
{
	u32 n = ib_umem_num_dma_blocks(umem, pgsz);
	int ret;

	ret = softhca_pas_alloc(dev, n, order_base_2(pgsz), pb);
	if (ret)
		return ret;
	if (WARN_ON(softhca_pas_fill_umem(umem, pgsz, pb->pages,
					  pb->npages) != n)) {
		softhca_pas_free(dev, pb);
		return -EINVAL;
	}
	return 0;
}

/* The PAS of a dma_alloc_coherent() buffer, in PAGE_SIZE blocks. */
int softhca_pas_from_coherent(struct softhca_dev *dev, dma_addr_t dma,
			      size_t size, struct softhca_pas_buf *pb)
{
	u32 n = DIV_ROUND_UP(size, PAGE_SIZE), i, page, slot;
	int ret;

	ret = softhca_pas_alloc(dev, n, PAGE_SHIFT, pb);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		softhca_pas_slot(i, pb->npages, &page, &slot);
		pb->pages[page][slot] = cpu_to_le64(dma + (u64)i * PAGE_SIZE);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: choosing the block size of pinned user memory. The card
 * takes any size in caps.page_size_cap. An MKEY may start anywhere in its
 * first block (iova mod block size), so an MR gets the largest size the
 * memory's alignment and physical contiguity allow. A queue's start in its
 * first block is a 6-bit page_offset in block/64 units, so a queue gets the
 * largest size whose offset quantum divides its start (as mlx5 does for
 * CQs with its quantized page offset).
 */
#include <rdma/ib_umem.h>

#include "softhca.h"

/* Return: the block size for an MR registered at @iova, or 0 if none. */
unsigned long softhca_umem_mr_block(struct ib_umem *umem,
				    unsigned long pgsz_bitmap, u64 iova)
{
	if (!umem->length)
		return 0;
	return ib_umem_find_best_pgsz(umem, pgsz_bitmap, iova);
}

/**
 * softhca_umem_queue_block - block size and page offset of a user queue
 * @umem: the queue's pinned buffer
 * @pgsz_bitmap: the sizes the card takes
 * @page_offset: the queue's start in block 0, in block/64 units
 *
 * Return: the block size, or 0 when no size fits the buffer's alignment
 * (it does not start on a 64-byte boundary).
 */
unsigned long softhca_umem_queue_block(struct ib_umem *umem,
				       unsigned long pgsz_bitmap,
				       u8 *page_offset)
{
	unsigned long pgsz, quantum, off;

	if (!umem->length)
		return 0;
	/* a block must hold at least one page_offset quantum */
	pgsz_bitmap &= ~(unsigned long)(SOFTHCA_PAGE_OFFSET_QUANTA - 1);
	while (pgsz_bitmap) {
		pgsz = ib_umem_find_best_pgsz(umem, pgsz_bitmap, umem->address);
		if (!pgsz)
			return 0;
		quantum = pgsz / SOFTHCA_PAGE_OFFSET_QUANTA;
		off = umem->address & (pgsz - 1);
		if (!(off % quantum)) {
			*page_offset = off / quantum;
			return pgsz;
		}
		pgsz_bitmap &= pgsz - 1;	/* only smaller sizes */
	}
	return 0;
}

/*
 * Unpin user memory the card was given. A card that died without
 * confirming its reset might still write there: the pages stay pinned
 * (leaked) rather than go back to the process under it.
 */
void softhca_umem_put(struct softhca_dev *dev, struct ib_umem *umem)
{
	if (!softhca_cmd_dma_safe(dev)) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "leaving %zu bytes of user memory pinned for a dead card\n",
				       umem->length);
		return;
	}
	ib_umem_release(umem);
}

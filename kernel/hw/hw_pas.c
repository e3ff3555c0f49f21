// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: reading a PAS. A command that creates an object on
 * host memory names the memory with a struct softhca_pas; the card reads
 * the list pages once, checks every entry and keeps the block addresses in
 * its own context memory. Afterwards every access of the object goes
 * through softhca_hw_pas_addr(), which refuses anything outside it.
 */
#include <linux/dma-direct.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include "hw.h"

bool softhca_hw_dbrec_ok(struct softhca_hw *hw, u64 addr, u32 len)
{
	return addr && !(addr & 7) &&
	       offset_in_page(addr) + len <= PAGE_SIZE &&
	       softhca_hw_is_ram(hw, addr, len);
}

/* The kernel address of a DMA address already checked to be RAM. */
void *softhca_hw_dma_va(struct softhca_hw *hw, u64 addr)
{
	return phys_to_virt(dma_to_phys(&hw->pdev->dev, addr));
}

/**
 * softhca_hw_pas_load - read and check the PAS of a new object
 * @hw: the card
 * @desc: the PAS as the command gave it
 * @min_bytes: bytes the object needs from its start
 * @queue: a queue starts desc->page_offset block/64 units into block 0
 * @iova: otherwise (MKEYs) the object starts at iova mod block size
 * @pas: filled on success
 * @syndrome: set on failure
 *
 * The PAS must cover the object exactly: the last block holds its last
 * byte. Return: a softhca_cmd_status.
 */
u8 softhca_hw_pas_load(struct softhca_hw *hw, const struct softhca_pas *desc,
		       u64 min_bytes, bool queue, u64 iova,
		       struct softhca_hw_pas *pas, u32 *syndrome)
{
	u64 list = le64_to_cpu(desc->list_addr);
	u32 n = le32_to_cpu(desc->nblocks);
	u8 log = desc->log_block_size;
	u64 block, start, need, run = 0, run_len = 0;
	u32 i;

	memset(pas, 0, sizeof(*pas));
	if (log < SOFTHCA_MIN_LOG_BLOCK || log > SOFTHCA_MAX_LOG_BLOCK ||
	    !(SOFTHCA_HW_BLOCK_SIZES & BIT_ULL(log))) {
		*syndrome = SOFTHCA_SYND_PAS_LOG_BLOCK;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	block = BIT_ULL(log);
	if (queue) {
		if (desc->page_offset >= SOFTHCA_PAGE_OFFSET_QUANTA) {
			*syndrome = SOFTHCA_SYND_PAS_OFFSET;
			return SOFTHCA_CMD_STAT_BAD_PARAM;
		}
		start = desc->page_offset * (block / SOFTHCA_PAGE_OFFSET_QUANTA);
	} else {
		if (desc->page_offset) {
			*syndrome = SOFTHCA_SYND_PAS_OFFSET;
			return SOFTHCA_CMD_STAT_BAD_PARAM;
		}
		start = iova & (block - 1);
	}
	if (!min_bytes || min_bytes > (u64)SOFTHCA_HW_MAX_PAS_BLOCKS << log) {
		*syndrome = SOFTHCA_SYND_PAS_TOO_SMALL;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	need = DIV_ROUND_UP_ULL(start + min_bytes, block);
	if (n != need) {
		*syndrome = SOFTHCA_SYND_PAS_NBLOCKS;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}

	pas->blocks = kvmalloc_array(n, sizeof(u64), GFP_KERNEL | __GFP_NOWARN);
	if (!pas->blocks) {
		*syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	pas->nblocks = n;
	pas->log_block_size = log;
	pas->offset = start;
	pas->size = min_bytes;

	for (i = 0; i < n; ) {
		u32 room = n - i <= SOFTHCA_PAS_PER_PAGE ? n - i :
			   SOFTHCA_PAS_PER_PAGE - 1;
		__le64 next;
		u32 j;

		if (!list || list & (SOFTHCA_PAS_PAGE_SIZE - 1) ||
		    !softhca_hw_is_ram(hw, list, SOFTHCA_PAS_PAGE_SIZE)) {
			*syndrome = SOFTHCA_SYND_PAS_LIST_ADDR;
			goto err_dma;
		}
		for (j = 0; j < room; j++, i++) {
			/* the part of block i the object uses must be RAM */
			u64 from = i ? 0 : start;
			u64 to = min(block, start + min_bytes - (u64)i * block);
			__le64 e;

			if (softhca_hw_dma_read(hw, list + 8 * j, &e, 8)) {
				*syndrome = SOFTHCA_SYND_PAS_LIST_ADDR;
				goto err_dma;
			}
			pas->blocks[i] = le64_to_cpu(e);
			if (pas->blocks[i] & (block - 1)) {
				*syndrome = SOFTHCA_SYND_PAS_BLOCK_ADDR;
				goto err_dma;
			}
			/* check physically contiguous runs at once */
			if (run_len && run + run_len == pas->blocks[i] + from) {
				run_len += to - from;
				continue;
			}
			if (run_len && !softhca_hw_is_ram(hw, run, run_len)) {
				*syndrome = SOFTHCA_SYND_PAS_BLOCK_ADDR;
				goto err_dma;
			}
			run = pas->blocks[i] + from;
			run_len = to - from;
		}
		if (i == n) {
			if (!softhca_hw_is_ram(hw, run, run_len)) {
				*syndrome = SOFTHCA_SYND_PAS_BLOCK_ADDR;
				goto err_dma;
			}
			break;
		}
		if (softhca_hw_dma_read(hw, list + 8 * room, &next, 8)) {
			*syndrome = SOFTHCA_SYND_PAS_LIST_ADDR;
			goto err_dma;
		}
		list = le64_to_cpu(next);
	}
	return SOFTHCA_CMD_STAT_OK;

err_dma:
	softhca_hw_pas_free(pas);
	return SOFTHCA_CMD_STAT_DMA_ERROR;
}

void softhca_hw_pas_free(struct softhca_hw_pas *pas)
{
	kvfree(pas->blocks);
	pas->blocks = NULL;
	pas->nblocks = 0;
}

/**
 * softhca_hw_pas_addr - DMA address of bytes [off, off + len) of an object
 * @pas: the object's PAS
 * @off: offset from the object's start
 * @len: length; the range must not cross a block
 * @addr: the DMA address
 *
 * Return: 0, or -EFAULT when the range is outside the object.
 */
int softhca_hw_pas_addr(const struct softhca_hw_pas *pas, u64 off, u32 len,
			u64 *addr)
{
	u64 pos = pas->offset + off;
	u64 idx = pos >> pas->log_block_size;
	u64 in = pos & (BIT_ULL(pas->log_block_size) - 1);

	if (off + len < off || off + len > pas->size || idx >= pas->nblocks ||
	    in + len > BIT_ULL(pas->log_block_size))
		return -EFAULT;
	*addr = pas->blocks[idx] + in;
	return 0;
}

/**
 * softhca_hw_pas_ptr - kernel address of bytes [off, off + len) of an object
 * @hw: the card
 * @pas: the object's PAS
 * @off: offset from the object's start
 * @len: length
 *
 * For the engine's fixed-size accesses (a CQE, a WQE basic block, a receive
 * WQE), which fit in one block of a ring: one translation, no copy loop.
 *
 * Return: the address, or NULL when the range is outside the object or
 * crosses a block (the caller then falls back to softhca_hw_pas_rw()).
 */
void *softhca_hw_pas_ptr(struct softhca_hw *hw,
			 const struct softhca_hw_pas *pas, u64 off, u32 len)
{
	u64 addr;

	if (softhca_hw_pas_addr(pas, off, len, &addr))
		return NULL;
	return softhca_hw_dma_va(hw, addr);
}

/**
 * softhca_hw_pas_rw - copy bytes [off, off + len) of an object
 * @hw: the card
 * @pas: the object's PAS
 * @off: offset from the object's start
 * @buf: where to copy to (read) or from (write)
 * @len: bytes; the range may cross blocks
 * @write: direction
 *
 * Return: 0, or -EFAULT when the range is outside the object.
 */
int softhca_hw_pas_rw(struct softhca_hw *hw, const struct softhca_hw_pas *pas,
		      u64 off, void *buf, u32 len, bool write)
{
	u64 bsize = BIT_ULL(pas->log_block_size);

	while (len) {
		u64 pos = pas->offset + off, addr;
		u32 n = min_t(u64, len, bsize - (pos & (bsize - 1)));
		void *va;

		if (softhca_hw_pas_addr(pas, off, n, &addr))
			return -EFAULT;
		/* blocks were checked to be RAM when the PAS was loaded */
		va = softhca_hw_dma_va(hw, addr);
		if (write)
			memcpy(va, buf, n);
		else
			memcpy(buf, va, n);
		off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

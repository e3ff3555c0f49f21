// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: bus-master DMA. Every host memory access of the
 * model goes through here, by DMA address. An address that does not
 * translate to RAM, or a range that wraps, is refused with -EFAULT, which
 * the caller turns into a command status or an error CQE/EQE.
 */
#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/platform_device.h>

#include "hw.h"

static int softhca_hw_dma_copy(struct softhca_hw *hw, u64 addr, void *buf,
			       size_t len, bool to_host)
{
	struct device *dev = &hw->pdev->dev;

	if (!len)
		return 0;
	if (addr + len < addr)
		return -EFAULT;

	while (len) {
		phys_addr_t phys = dma_to_phys(dev, addr);
		size_t off = offset_in_page(phys);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		unsigned long pfn = PHYS_PFN(phys);
		void *va;

		if (!pfn_valid(pfn) || !page_is_ram(pfn))
			return -EFAULT;
		va = kmap_local_page(pfn_to_page(pfn));
		if (to_host)
			memcpy(va + off, buf, n);
		else
			memcpy(buf, va + off, n);
		kunmap_local(va);
		addr += n;
		buf += n;
		len -= n;
	}
	return 0;
}

int softhca_hw_dma_read(struct softhca_hw *hw, u64 addr, void *dst, size_t len)
{
	return softhca_hw_dma_copy(hw, addr, dst, len, false);
}

int softhca_hw_dma_write(struct softhca_hw *hw, u64 addr, const void *src,
			 size_t len)
{
	return softhca_hw_dma_copy(hw, addr, (void *)src, len, true);
}

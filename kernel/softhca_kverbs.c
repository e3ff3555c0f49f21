// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: what kernel verbs need from the device at probe. A UAR
 * of the kernel's own (its doorbells and the engine state the card
 * publishes in it), the pool of kernel doorbell records, and, when the
 * card has F_PA MKEYs, the reserved lkey: an MKEY of DMA addresses usable
 * by every PD's kernel QPs (F_PA | F_ANY_PD, LOCAL_WRITE) on a PD of the
 * driver, which becomes ib_device's local_dma_lkey so that ib_alloc_pd()
 * needs no get_dma_mr. softhca_kverbs_cleanup() undoes it in reverse, on a
 * dead card too.
 */
#include <linux/mm.h>

#include "softhca.h"
#include "softhca_trace.h"

/* The driver's limit of AHs: they are driver memory, not card objects. */
#define SOFTHCA_MAX_AH		BIT(16)

static int softhca_kverbs_lkey(struct softhca_dev *dev)
{
	struct softhca_mkey_ctx ctx;
	struct softhca_alloc_out out;
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_PD, NULL, 0, &out,
			       sizeof(out));
	if (ret)
		return ret;
	dev->kpdn = le32_to_cpu(out.num);
	dev->kpd_valid = true;

	memset(&ctx, 0, sizeof(ctx));
	ctx.pdn = cpu_to_le32(dev->kpdn);
	ctx.access = cpu_to_le32(SOFTHCA_ACCESS_LOCAL_WRITE);
	ctx.flags = cpu_to_le32(SOFTHCA_MKEY_F_PA | SOFTHCA_MKEY_F_ANY_PD);
	return softhca_mkey_create(dev, &ctx, &dev->reserved_lkey);
}

/**
 * softhca_kverbs_init - the kernel UAR, dbrec pool and reserved lkey
 * @dev: the device, its command queue and EQs up
 *
 * Return: 0, or the error of the step that failed (undone).
 */
int softhca_kverbs_init(struct softhca_dev *dev)
{
	struct softhca_alloc_out out;
	struct page *page;
	int ret;

	if (dev->caps.dbrec_align > SOFTHCA_KDBREC_SIZE) {
		ibdev_err(&dev->ibdev, "doorbell records aligned to %u bytes\n",
			  dev->caps.dbrec_align);
		return -EIO;
	}
	softhca_kdbrec_pool_init(&dev->kdbrecs, &softhca_kdbrec_coherent_ops,
				 dev);
	xa_init_flags(&dev->srqs, XA_FLAGS_LOCK_BH);
	atomic_set(&dev->num_ahs, 0);
	dev->max_ah = dev->caps.cap_flags & SOFTHCA_CAP_UD ?
		      (dev->caps.max_ah ?: SOFTHCA_MAX_AH) : 0;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_UAR, NULL, 0, &out,
			       sizeof(out));
	if (ret) {
		ibdev_err(&dev->ibdev, "no UAR for the kernel (%d)\n", ret);
		return ret;
	}
	dev->kuar = le32_to_cpu(out.num);
	dev->kuar_valid = true;
	page = softhca_hw_uar_page(dev->hw, dev->kuar);
	if (!page) {
		ibdev_err(&dev->ibdev, "UAR %u has no page\n", dev->kuar);
		ret = -EIO;
		goto err;
	}
	dev->kuar_va = page_address(page);

	if (dev->caps.cap_flags & SOFTHCA_CAP_PA_MKEY) {
		ret = softhca_kverbs_lkey(dev);
		if (ret) {
			ibdev_err(&dev->ibdev, "no reserved lkey (%d)\n", ret);
			goto err;
		}
	}
	return 0;

err:
	softhca_kverbs_cleanup(dev);
	return ret;
}

void softhca_kverbs_cleanup(struct softhca_dev *dev)
{
	if (dev->reserved_lkey &&
	    !softhca_mkey_destroy(dev, dev->reserved_lkey))
		dev->reserved_lkey = 0;
	if (dev->kpd_valid &&
	    !softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_PD, dev->kpdn))
		dev->kpd_valid = false;
	if (dev->kuar_valid &&
	    !softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_UAR, dev->kuar)) {
		dev->kuar_valid = false;
		dev->kuar_va = NULL;
	}
	if (dev->reserved_lkey || dev->kpd_valid || dev->kuar_valid)
		ibdev_warn(&dev->ibdev,
			   "the card kept the kernel's lkey, PD or UAR\n");
	WARN_ON(softhca_kdbrec_pages(&dev->kdbrecs));
	WARN_ON(!xa_empty(&dev->srqs) || atomic_read(&dev->num_ahs));
	xa_destroy(&dev->srqs);
}

/**
 * softhca_kdoorbell - tell the card a kernel queue has new work
 * @dev: the device
 * @qpn: the QP
 *
 * The doorbell record is already written. The engine polls records while
 * it runs; when it says IDLE in the UAR after that write, it needs the
 * wake-up doorbell (the handshake of Documentation/hardware-interface.rst,
 * "Doorbells and the idle protocol"). Kernel posts come from any context
 * (softirq, under the caller's spinlocks), so they ring ENGINE_DB_ASYNC:
 * the card's engine thread visits the QP (or, with the card's
 * engine_kernel_inline, the ringing context when interrupts are on).
 */
void softhca_kdoorbell(struct softhca_dev *dev, u32 qpn)
{
	const __le32 *state = dev->kuar_va + SOFTHCA_UAR_ENGINE_STATE;

	/* the record is visible before we read the engine's state */
	mb();
	if (le32_to_cpu(READ_ONCE(*state)) == SOFTHCA_ENGINE_IDLE) {
		trace_softhca_engine_doorbell(dev, qpn, "kernel-post");
		softhca_hw_write32(dev->hw, SOFTHCA_REG_ENGINE_DB_ASYNC, qpn);
	}
}

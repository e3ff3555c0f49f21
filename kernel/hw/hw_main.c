// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the card itself. A card is a platform device on the
 * "bus" (its struct device is what the driver maps DMA against), a register
 * page, interrupt lines and the engines behind them.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/percpu.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include "../softhca_compat.h"
#include "hw.h"

#define SOFTHCA_HW_NAME		"softhca"
#define SOFTHCA_HW_LOG_CMDQ	5	/* up to 32 command slots */

static void softhca_hw_reg_set(struct softhca_hw *hw, u32 off, u32 val)
{
	__le32 *reg = hw->regs + off;

	WRITE_ONCE(*reg, cpu_to_le32(val));
}

u32 softhca_hw_read32(struct softhca_hw *hw, u32 offset)
{
	__le32 *reg = hw->regs + offset;

	if (WARN_ON_ONCE(offset > SOFTHCA_REG_PAGE_SIZE - 4 || offset & 3))
		return ~0u;
	return le32_to_cpu(READ_ONCE(*reg));
}

/*
 * A posted write from the CPU reaching the card: store it in the register
 * page and let the register's side effect happen, as the silicon would.
 */
void softhca_hw_write32(struct softhca_hw *hw, u32 offset, u32 value)
{
	if (WARN_ON_ONCE(offset > SOFTHCA_REG_PAGE_SIZE - 4 || offset & 3))
		return;

	switch (offset) {
	case SOFTHCA_REG_CTRL:
		softhca_hw_reg_set(hw, offset, value);
		softhca_hw_cmd_enable(hw, value & SOFTHCA_CTRL_ENABLE);
		break;
	case SOFTHCA_REG_CMDQ_ADDR_LO:
	case SOFTHCA_REG_CMDQ_ADDR_HI:
	case SOFTHCA_REG_CMDQ_LOG_SIZE:
		softhca_hw_reg_set(hw, offset, value);
		break;
	case SOFTHCA_REG_CMD_DB:
		softhca_hw_cmd_doorbell(hw, value);
		break;
	case SOFTHCA_REG_ENGINE_DB:
		softhca_hw_engine_kick(hw, value);
		break;
	case SOFTHCA_REG_ENGINE_DB_ASYNC:
		softhca_hw_engine_kick_async(hw, value);
		break;
	case SOFTHCA_REG_CQ_DB:
		softhca_hw_cq_doorbell(hw, value);
		break;
	case SOFTHCA_REG_EQ_DB_BASE ...
	     SOFTHCA_REG_EQ_DB(SOFTHCA_MAX_EQS) - 1:
		if (!(offset & 7))
			softhca_hw_eq_doorbell(hw, (offset -
					       SOFTHCA_REG_EQ_DB_BASE) / 8, value);
		break;
	default:
		/* read-only and unassigned registers ignore writes */
		break;
	}
}

struct device *softhca_hw_device(struct softhca_hw *hw)
{
	return &hw->pdev->dev;
}

static void softhca_hw_release_pdev(struct softhca_hw *hw)
{
	platform_device_unregister(hw->pdev);
}

struct softhca_hw *softhca_hw_plug(const u8 mac[ETH_ALEN])
{
	struct softhca_caps caps;
	struct softhca_hw *hw;
	int ret;

	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return ERR_PTR(-ENOMEM);
	ether_addr_copy(hw->mac, mac);
	softhca_hw_cmd_init(hw);
	softhca_hw_objs_init(hw);

	hw->counters = alloc_percpu(struct softhca_hw_counters);
	if (!hw->counters) {
		ret = -ENOMEM;
		goto err_free;
	}

	hw->regs = (void *)get_zeroed_page(GFP_KERNEL);
	if (!hw->regs) {
		ret = -ENOMEM;
		goto err_counters;
	}

	hw->wq = alloc_ordered_workqueue("softhca-hw", WQ_MEM_RECLAIM);
	if (!hw->wq) {
		ret = -ENOMEM;
		goto err_regs;
	}

	hw->pdev = platform_device_register_simple(SOFTHCA_HW_NAME,
						   PLATFORM_DEVID_AUTO,
						   NULL, 0);
	if (IS_ERR(hw->pdev)) {
		ret = PTR_ERR(hw->pdev);
		goto err_wq;
	}
	/* A 64-bit bus master: no bounce buffers, no segment limit. */
	ret = dma_coerce_mask_and_coherent(&hw->pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_pdev;
	ret = softhca_dma_set_max_seg_size(&hw->pdev->dev, UINT_MAX);
	if (ret)
		goto err_pdev;

	ret = softhca_hw_ram_init(hw);
	if (ret)
		goto err_pdev;

	softhca_hw_caps_fill(hw, &caps);
	ret = softhca_hw_irq_init(hw, SOFTHCA_VEC_COMP_BASE +
				  le32_to_cpu(caps.max_comp_vectors));
	if (ret)
		goto err_ram;
	ret = softhca_hw_engine_start(hw);
	if (ret)
		goto err_irq;

	softhca_hw_reg_set(hw, SOFTHCA_REG_MAGIC, SOFTHCA_DEVICE_MAGIC);
	softhca_hw_reg_set(hw, SOFTHCA_REG_VERSION, SOFTHCA_IF_VERSION);
	softhca_hw_reg_set(hw, SOFTHCA_REG_CMDQ_CAPS,
			   SOFTHCA_HW_LOG_CMDQ | hw->nvec << 8);
	return hw;

err_irq:
	softhca_hw_irq_cleanup(hw);
err_ram:
	softhca_hw_ram_cleanup(hw);
err_pdev:
	softhca_hw_release_pdev(hw);
err_wq:
	destroy_workqueue(hw->wq);
err_regs:
	free_page((unsigned long)hw->regs);
err_counters:
	free_percpu(hw->counters);
err_free:
	kfree(hw);
	return ERR_PTR(ret);
}

void softhca_hw_unplug(struct softhca_hw *hw)
{
	softhca_hw_cmd_enable(hw, false);
	destroy_workqueue(hw->wq);
	softhca_hw_engine_stop(hw);
	softhca_hw_objs_cleanup(hw);
	softhca_hw_irq_cleanup(hw);
	softhca_hw_ram_cleanup(hw);
	softhca_hw_release_pdev(hw);
	free_page((unsigned long)hw->regs);
	free_percpu(hw->counters);
	kfree(hw);
}

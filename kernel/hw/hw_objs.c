// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: protection domains and UARs. A UAR is a page of the
 * card's BAR that one user context maps: the card writes its engine state
 * there and software writes CQ doorbells.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "hw.h"

void softhca_hw_objs_init(struct softhca_hw *hw)
{
	xa_init_flags(&hw->pds, XA_FLAGS_ALLOC1);
	xa_init_flags(&hw->uars, XA_FLAGS_ALLOC);
	xa_init_flags(&hw->eqs, XA_FLAGS_ALLOC);
	xa_init_flags(&hw->cqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&hw->mkeys, XA_FLAGS_ALLOC1);
	xa_init_flags(&hw->qps, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&hw->engine_qps);
	xa_init_flags(&hw->srqs, XA_FLAGS_ALLOC1);
	mutex_init(&hw->uar_lock);
	seqlock_init(&hw->gid_lock);
	/* a zeroed peer cache (generation 0) never matches */
	atomic64_set(&hw->path_gen, 1);
}

static void softhca_hw_uar_free(struct softhca_hw_uar *uar)
{
	__free_page(uar->page);
	kfree(uar);
}

/* Unplug: the card forgets everything the driver left behind. */
void softhca_hw_objs_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_uar *uar;
	struct softhca_hw_pd *pd;
	unsigned long i;

	softhca_hw_qps_cleanup(hw);
	softhca_hw_srqs_cleanup(hw);
	softhca_hw_mkeys_cleanup(hw);
	softhca_hw_cqs_cleanup(hw);
	softhca_hw_eqs_cleanup(hw);
	xa_for_each(&hw->pds, i, pd)
		kfree(pd);
	xa_destroy(&hw->pds);
	xa_for_each(&hw->uars, i, uar)
		softhca_hw_uar_free(uar);
	xa_destroy(&hw->uars);
}

u8 softhca_hw_cmd_alloc_pd(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	struct softhca_alloc_out *out = c->out;
	struct softhca_hw_pd *pd;
	u32 pdn;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	if (xa_alloc(&hw->pds, &pdn, pd, XA_LIMIT(SOFTHCA_HW_PD_FIRST, SOFTHCA_HW_PD_LAST),
		     GFP_KERNEL)) {
		kfree(pd);
		c->syndrome = SOFTHCA_SYND_PD_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	pd->pdn = pdn;
	out->num = cpu_to_le32(pdn);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_dealloc_pd(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	u32 pdn = le32_to_cpu(in->num);
	struct softhca_hw_pd *pd = xa_load(&hw->pds, pdn);

	if (!pd) {
		c->syndrome = SOFTHCA_SYND_NO_PD;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (pd->users) {
		c->syndrome = SOFTHCA_SYND_PD_BUSY;
		return SOFTHCA_CMD_STAT_RESOURCE_BUSY;
	}
	xa_erase(&hw->pds, pdn);
	kfree(pd);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_alloc_uar(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	struct softhca_alloc_out *out = c->out;
	struct softhca_hw_uar *uar;
	u32 index;

	uar = kzalloc(sizeof(*uar), GFP_KERNEL);
	if (!uar)
		goto err_mem;
	uar->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!uar->page) {
		kfree(uar);
		goto err_mem;
	}
	/* the engine publishes its state in every UAR, this one too */
	mutex_lock(&hw->uar_lock);
	if (xa_alloc(&hw->uars, &index, uar, XA_LIMIT(SOFTHCA_HW_UAR_FIRST, SOFTHCA_HW_UAR_LAST),
		     GFP_KERNEL)) {
		mutex_unlock(&hw->uar_lock);
		softhca_hw_uar_free(uar);
		c->syndrome = SOFTHCA_SYND_UAR_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	softhca_hw_uar_publish(hw, uar);
	mutex_unlock(&hw->uar_lock);
	uar->index = index;
	out->num = cpu_to_le32(index);
	return SOFTHCA_CMD_STAT_OK;

err_mem:
	c->syndrome = SOFTHCA_SYND_NO_MEM;
	return SOFTHCA_CMD_STAT_EXCEED_LIM;
}

u8 softhca_hw_cmd_dealloc_uar(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	u32 index = le32_to_cpu(in->num);
	struct softhca_hw_uar *uar = xa_load(&hw->uars, index);

	if (!uar) {
		c->syndrome = SOFTHCA_SYND_NO_UAR;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (uar->users) {
		c->syndrome = SOFTHCA_SYND_UAR_BUSY;
		return SOFTHCA_CMD_STAT_RESOURCE_BUSY;
	}
	mutex_lock(&hw->uar_lock);
	xa_erase(&hw->uars, index);
	mutex_unlock(&hw->uar_lock);
	softhca_hw_uar_free(uar);
	return SOFTHCA_CMD_STAT_OK;
}

struct page *softhca_hw_uar_page(struct softhca_hw *hw, u32 index)
{
	struct softhca_hw_uar *uar = xa_load(&hw->uars, index);

	return uar ? uar->page : NULL;
}

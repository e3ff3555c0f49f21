// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: shared receive queues. An SRQ is a ring of WQEs in
 * host memory named by a PAS, linked into a list by their next segments,
 * and a doorbell record counting the WQEs posted (include/softhca_prm.h).
 * QPs created on it take their receive WQEs from it (hw_rq.c). The limit
 * event is armed by CREATE_SRQ or MODIFY_SRQ and fires once.
 */
#include <linux/slab.h>

#include "hw.h"

static void softhca_hw_srq_free(struct softhca_hw_srq *srq)
{
	softhca_hw_pas_free(&srq->pas);
	kfree_rcu(srq, rcu);
}

u8 softhca_hw_cmd_create_srq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_srq_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u64 dbrec = le64_to_cpu(ctx->dbrec_addr);
	struct softhca_hw_uar *uar;
	struct softhca_hw_srq *srq;
	struct softhca_hw_pd *pd;
	u32 srqn;
	u8 st;

	if (!ctx->log_size || ctx->log_size > SOFTHCA_HW_LOG_MAX_SRQ ||
	    ctx->log_stride < SOFTHCA_HW_LOG_MIN_SRQ_STRIDE ||
	    ctx->log_stride > SOFTHCA_HW_LOG_MAX_SRQ_STRIDE) {
		c->syndrome = SOFTHCA_SYND_SRQ_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (le32_to_cpu(ctx->limit) >= BIT(ctx->log_size)) {
		c->syndrome = SOFTHCA_SYND_SRQ_LIMIT;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	pd = xa_load(&hw->pds, le32_to_cpu(ctx->pdn));
	if (!pd) {
		c->syndrome = SOFTHCA_SYND_NO_PD;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	uar = xa_load(&hw->uars, le32_to_cpu(ctx->uar));
	if (!uar) {
		c->syndrome = SOFTHCA_SYND_NO_UAR;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (!softhca_hw_dbrec_ok(hw, dbrec, sizeof(struct softhca_srq_dbrec))) {
		c->syndrome = SOFTHCA_SYND_DBREC_ADDR;
		return SOFTHCA_CMD_STAT_DMA_ERROR;
	}

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	spin_lock_init(&srq->lock);
	srq->log_size = ctx->log_size;
	srq->log_stride = ctx->log_stride;
	srq->limit = le32_to_cpu(ctx->limit);
	srq->dbrec = dbrec;
	srq->db = softhca_hw_dma_va(hw, dbrec);
	st = softhca_hw_pas_load(hw, &ctx->pas,
				 BIT_ULL(srq->log_size + srq->log_stride), true,
				 0, &srq->pas, &c->syndrome);
	if (st) {
		kfree(srq);
		return st;
	}
	if (xa_alloc_cyclic(&hw->srqs, &srqn, srq,
			    XA_LIMIT(SOFTHCA_HW_SRQ_FIRST, SOFTHCA_HW_SRQ_LAST),
			    &hw->srq_next, GFP_KERNEL) < 0) {
		softhca_hw_srq_free(srq);
		c->syndrome = SOFTHCA_SYND_SRQ_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	srq->srqn = srqn;
	srq->pd = pd;
	srq->uar = uar;
	pd->users++;
	uar->users++;
	out->num = cpu_to_le32(srqn);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_destroy_srq(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_hw_srq *srq = xa_load(&hw->srqs, le32_to_cpu(in->num));

	if (!srq) {
		c->syndrome = SOFTHCA_SYND_NO_SRQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (srq->users) {
		c->syndrome = SOFTHCA_SYND_SRQ_BUSY;
		return SOFTHCA_CMD_STAT_RESOURCE_BUSY;
	}
	xa_erase(&hw->srqs, srq->srqn);
	srq->pd->users--;
	srq->uar->users--;
	softhca_hw_srq_free(srq);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_srq(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_srq_query_out *out = c->out;
	struct softhca_hw_srq *srq = xa_load(&hw->srqs, le32_to_cpu(in->num));

	if (!srq) {
		c->syndrome = SOFTHCA_SYND_NO_SRQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	out->ctx.log_size = srq->log_size;
	out->ctx.log_stride = srq->log_stride;
	out->ctx.pdn = cpu_to_le32(srq->pd->pdn);
	out->ctx.uar = cpu_to_le32(srq->uar->index);
	out->ctx.dbrec_addr = cpu_to_le64(srq->dbrec);
	out->ctx.pas.nblocks = cpu_to_le32(srq->pas.nblocks);
	out->ctx.pas.log_block_size = srq->pas.log_block_size;
	spin_lock_bh(&srq->lock);
	out->ctx.limit = cpu_to_le32(srq->limit);
	out->posted = READ_ONCE(srq->db->wqe_counter);
	out->taken = cpu_to_le32(srq->taken);
	out->head = cpu_to_le32(srq->head);
	spin_unlock_bh(&srq->lock);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_modify_srq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_srq_modify_in *in = c->in;
	struct softhca_hw_srq *srq = xa_load(&hw->srqs, le32_to_cpu(in->srqn));
	u32 limit = le32_to_cpu(in->limit), avail, fire = 0;

	if (!srq) {
		c->syndrome = SOFTHCA_SYND_NO_SRQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (limit >= BIT(srq->log_size)) {
		c->syndrome = SOFTHCA_SYND_SRQ_LIMIT;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	spin_lock_bh(&srq->lock);
	avail = le32_to_cpu(READ_ONCE(srq->db->wqe_counter)) - srq->taken;
	/* already below the new limit: the event is due now (IBA 10.2.9.2) */
	if (limit && avail < limit)
		fire = srq->srqn;
	else
		srq->limit = limit;
	spin_unlock_bh(&srq->lock);
	if (fire)
		softhca_hw_async_event(hw, SOFTHCA_EQE_SRQ_LIMIT, fire, 0, 0);
	return SOFTHCA_CMD_STAT_OK;
}

void softhca_hw_srqs_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_srq *srq;
	unsigned long i;

	xa_for_each(&hw->srqs, i, srq)
		softhca_hw_srq_free(srq);
	xa_destroy(&hw->srqs);
}

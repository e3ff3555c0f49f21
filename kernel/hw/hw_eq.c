// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: event queues. The card writes an EQE at the
 * producer index with the owner bit of that pass, then raises the EQ's
 * interrupt line if the EQ is armed, and disarms it. The driver consumes,
 * writes its consumer index to the EQ's doorbell register and re-arms; if
 * EQEs arrived meanwhile the card raises the line again at once.
 *
 * Command completions have an EQ of their own (SOFTHCA_EQ_CMD), at least
 * as large as the command queue, so it can never overflow; object events
 * go to the async EQ. The card finds both under RCU: DESTROY_EQ clears
 * the pointer and waits for a grace period before it frees the EQ.
 */
#include <linux/slab.h>

#include "hw.h"
#include "hw_trace.h"

static struct softhca_hw_eq *softhca_hw_eq_get(struct softhca_hw *hw, u32 eqn)
{
	return xa_load(&hw->eqs, eqn);
}

static void softhca_hw_eq_free(struct softhca_hw_eq *eq)
{
	softhca_hw_pas_free(&eq->pas);
	kfree(eq);
}

u8 softhca_hw_cmd_create_eq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_eq_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u32 vector = le16_to_cpu(ctx->vector);
	struct softhca_hw_eq *eq;
	u32 eqn;
	u8 st;

	if (!ctx->log_size || ctx->log_size > SOFTHCA_HW_LOG_MAX_EQ) {
		c->syndrome = SOFTHCA_SYND_EQ_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (ctx->type != SOFTHCA_EQ_ASYNC && ctx->type != SOFTHCA_EQ_COMP &&
	    ctx->type != SOFTHCA_EQ_CMD) {
		c->syndrome = SOFTHCA_SYND_EQ_TYPE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if ((ctx->type == SOFTHCA_EQ_ASYNC &&
	     rcu_access_pointer(hw->async_eq)) ||
	    (ctx->type == SOFTHCA_EQ_CMD && rcu_access_pointer(hw->cmd_eq))) {
		c->syndrome = SOFTHCA_SYND_EQ_TYPE;
		return SOFTHCA_CMD_STAT_BAD_STATE;
	}
	/* one completion per command slot must always fit */
	if (ctx->type == SOFTHCA_EQ_CMD && ctx->log_size < hw->cmdq_log_size) {
		c->syndrome = SOFTHCA_SYND_EQ_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (vector >= hw->nvec) {
		c->syndrome = SOFTHCA_SYND_EQ_VECTOR;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}

	eq = kzalloc(sizeof(*eq), GFP_KERNEL);
	if (!eq) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	spin_lock_init(&eq->lock);
	eq->type = ctx->type;
	eq->vector = vector;
	eq->log_size = ctx->log_size;
	st = softhca_hw_pas_load(hw, &ctx->pas,
				 sizeof(struct softhca_eqe) << eq->log_size,
				 true, 0, &eq->pas, &c->syndrome);
	if (st) {
		kfree(eq);
		return st;
	}
	if (xa_alloc(&hw->eqs, &eqn, eq, XA_LIMIT(SOFTHCA_HW_EQ_FIRST, SOFTHCA_HW_EQ_LAST),
		     GFP_KERNEL)) {
		softhca_hw_eq_free(eq);
		c->syndrome = SOFTHCA_SYND_EQ_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	eq->eqn = eqn;
	if (eq->type == SOFTHCA_EQ_ASYNC)
		rcu_assign_pointer(hw->async_eq, eq);
	else if (eq->type == SOFTHCA_EQ_CMD)
		rcu_assign_pointer(hw->cmd_eq, eq);
	out->num = cpu_to_le32(eqn);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_destroy_eq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	u32 eqn = le32_to_cpu(in->num);
	struct softhca_hw_eq *eq = softhca_hw_eq_get(hw, eqn);

	if (!eq) {
		c->syndrome = SOFTHCA_SYND_NO_EQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (eq->users) {
		c->syndrome = SOFTHCA_SYND_EQ_BUSY;
		return SOFTHCA_CMD_STAT_RESOURCE_BUSY;
	}
	if (rcu_access_pointer(hw->async_eq) == eq)
		RCU_INIT_POINTER(hw->async_eq, NULL);
	if (rcu_access_pointer(hw->cmd_eq) == eq)
		RCU_INIT_POINTER(hw->cmd_eq, NULL);
	xa_erase(&hw->eqs, eqn);
	/* doorbell writes and events look EQs up under RCU */
	synchronize_rcu();
	softhca_hw_eq_free(eq);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_eq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_eq_query_out *out = c->out;
	struct softhca_hw_eq *eq = softhca_hw_eq_get(hw, le32_to_cpu(in->num));
	unsigned long flags;

	if (!eq) {
		c->syndrome = SOFTHCA_SYND_NO_EQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	out->ctx.log_size = eq->log_size;
	out->ctx.type = eq->type;
	out->ctx.vector = cpu_to_le16(eq->vector);
	out->ctx.pas.nblocks = cpu_to_le32(eq->pas.nblocks);
	out->ctx.pas.log_block_size = eq->pas.log_block_size;
	spin_lock_irqsave(&eq->lock, flags);
	out->pi = cpu_to_le32(eq->pi);
	out->ci = cpu_to_le32(eq->ci);
	out->armed = cpu_to_le32(eq->armed);
	out->overruns = cpu_to_le32(eq->overruns);
	spin_unlock_irqrestore(&eq->lock, flags);
	return SOFTHCA_CMD_STAT_OK;
}

/* The driver wrote EQ_DB(eqn): a new consumer index, and maybe ARM. */
void softhca_hw_eq_doorbell(struct softhca_hw *hw, u32 eqn, u32 value)
{
	struct softhca_hw_eq *eq;
	unsigned long flags;
	bool raise = false;
	u32 ci;

	rcu_read_lock();
	eq = softhca_hw_eq_get(hw, eqn);
	if (!eq)
		goto out;
	spin_lock_irqsave(&eq->lock, flags);
	/* the doorbell carries 24 bits; the card keeps the full count */
	ci = (eq->pi & ~SOFTHCA_EQ_DB_CI_MASK) | (value & SOFTHCA_EQ_DB_CI_MASK);
	if (ci - eq->pi <= SOFTHCA_EQ_DB_CI_MASK && ci != eq->pi)
		ci -= SOFTHCA_EQ_DB_CI_MASK + 1;
	eq->ci = ci;
	if (value & SOFTHCA_EQ_DB_ARM) {
		if (eq->pi != eq->ci)
			raise = true;	/* events arrived before the arm */
		else
			eq->armed = true;
	}
	spin_unlock_irqrestore(&eq->lock, flags);
	if (raise)
		softhca_hw_raise_irq(hw, eq->vector);
out:
	rcu_read_unlock();
}

/**
 * softhca_hw_eq_post - write one EQE and interrupt if armed
 * @hw: the card
 * @eq: the EQ
 * @type: softhca_eqe_type
 * @obj: the object it is about
 * @data0: first data word
 * @data1: second data word
 *
 * Return: 0, -ENOSPC if the EQ is full (the event is lost and counted), or
 * -EFAULT if the EQ's memory failed the DMA check.
 */
int softhca_hw_eq_post(struct softhca_hw *hw, struct softhca_hw_eq *eq,
		       u8 type, u32 obj, u32 data0, u32 data1)
{
	struct softhca_eqe eqe = {
		.type = type,
		.obj = cpu_to_le32(obj),
		.data0 = cpu_to_le32(data0),
		.data1 = cpu_to_le32(data1),
	};
	struct softhca_eqe *slot;
	unsigned long flags;
	bool raise = false;
	int ret = 0;
	u8 owner;
	u64 off;

	if (READ_ONCE(hw->halted))
		return -ENODEV;		/* a reset card raises nothing */
	spin_lock_irqsave(&eq->lock, flags);
	if (eq->pi - eq->ci >= BIT(eq->log_size)) {
		eq->overruns++;
		ret = -ENOSPC;
		goto out;
	}
	off = (u64)(eq->pi & (BIT(eq->log_size) - 1)) * sizeof(eqe);
	/*
	 * One translation for the body and the owner bit: a 16-byte EQE at a
	 * multiple of 16 never crosses a block, and once it is found the
	 * owner write cannot fail after the EQE was traced.
	 */
	slot = softhca_hw_pas_ptr(hw, &eq->pas, off, sizeof(eqe));
	if (!slot) {
		ret = -EFAULT;
		goto out;
	}
	owner = softhca_ring_owner(eq->pi, eq->log_size);
	/* the body first, with the stale owner bit; then the owner bit */
	eqe.owner = owner ^ SOFTHCA_EQE_OWNER;
	softhca_hw_store_words(slot, &eqe, sizeof(eqe));
	/* the body is visible before the owner bit that validates it */
	wmb();
	/*
	 * Traced before the owner bit: a tasklet already running on another
	 * CPU may take the EQE as soon as it is valid, and a trace read in
	 * order shows the EQE written before it was taken.
	 */
	raise = eq->armed;
	trace_softhca_hw_eqe(hw, eq->eqn, eq->pi, type, obj, data0, raise);
	WRITE_ONCE(slot->owner, owner);
	eq->pi++;
	eq->armed = false;
out:
	spin_unlock_irqrestore(&eq->lock, flags);
	if (raise)
		softhca_hw_raise_irq(hw, eq->vector);
	return ret;
}

/* An event for the async EQ (if the driver has created one). */
int softhca_hw_async_event(struct softhca_hw *hw, u8 type, u32 obj,
			   u32 data0, u32 data1)
{
	struct softhca_hw_eq *eq;
	int ret = -ENODEV;

	rcu_read_lock();
	eq = rcu_dereference(hw->async_eq);
	if (eq)
		ret = softhca_hw_eq_post(hw, eq, type, obj, data0, data1);
	rcu_read_unlock();
	return ret;
}

/* A command in @slot completed: tell the command EQ, if there is one. */
int softhca_hw_cmd_done_event(struct softhca_hw *hw, u32 slot, u32 token)
{
	struct softhca_hw_eq *eq;
	int ret = -ENODEV;

	rcu_read_lock();
	eq = rcu_dereference(hw->cmd_eq);
	if (eq)
		ret = softhca_hw_eq_post(hw, eq, SOFTHCA_EQE_CMD_DONE, slot,
					 token, 0);
	rcu_read_unlock();
	return ret;
}

void softhca_hw_eqs_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_eq *eq;
	unsigned long i;

	RCU_INIT_POINTER(hw->async_eq, NULL);
	RCU_INIT_POINTER(hw->cmd_eq, NULL);
	synchronize_rcu();
	xa_for_each(&hw->eqs, i, eq)
		softhca_hw_eq_free(eq);
	xa_destroy(&hw->eqs);
}

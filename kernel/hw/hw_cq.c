// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: completion queues. A CQ is a ring of 64-byte CQEs
 * in host memory (its PAS), a doorbell record the card reads (consumer
 * index and arm word), the completion EQ its events go to and the UAR its
 * owner rings.
 *
 * Events can be moderated (MODIFY_CQ, for rdma_dim): an armed CQ then
 * raises its event once count CQEs were written, or period_us after the
 * first of them (an hrtimer), whichever comes first. With
 * SOFTHCA_CQ_F_IGNORE_OVERRUN a full CQ keeps being written (the consumer
 * accepts losing CQEs) instead of going to error.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "hw.h"
#include "hw_trace.h"

static void softhca_hw_cq_free(struct softhca_hw_cq *cq)
{
	hrtimer_cancel(&cq->mod_timer);
	softhca_hw_pas_free(&cq->pas);
	kfree_rcu(cq, rcu);
}

static enum hrtimer_restart softhca_hw_cq_mod_timer(struct hrtimer *t)
{
	struct softhca_hw_cq *cq = container_of(t, struct softhca_hw_cq,
						mod_timer);
	bool fire;

	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	fire = cq->mod_pending;
	cq->mod_pending = 0;
	if (fire)
		cq->events++;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire)
		trace_softhca_hw_cq_event(cq->hw, cq->cqn, cq->eq->eqn,
					  cq->arm_sn_fired, "moderation-timer");
	if (fire)
		softhca_hw_eq_post(cq->hw, cq->eq, SOFTHCA_EQE_COMP, cq->cqn, 0,
				   0);
	return HRTIMER_NORESTART;
}

u8 softhca_hw_cmd_create_cq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_cq_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u64 dbrec = le64_to_cpu(ctx->dbrec_addr);
	struct softhca_hw_uar *uar;
	struct softhca_hw_eq *eq;
	struct softhca_hw_cq *cq;
	u32 cqn;
	u8 st;

	if (!ctx->log_size || ctx->log_size > SOFTHCA_HW_LOG_MAX_CQ) {
		c->syndrome = SOFTHCA_SYND_CQ_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (ctx->log_cqe_size != SOFTHCA_LOG_CQE_SIZE) {
		c->syndrome = SOFTHCA_SYND_CQE_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (le32_to_cpu(ctx->flags) & ~SOFTHCA_CQ_F_IGNORE_OVERRUN) {
		c->syndrome = SOFTHCA_SYND_CQ_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	eq = xa_load(&hw->eqs, le32_to_cpu(ctx->eqn));
	if (!eq || eq->type != SOFTHCA_EQ_COMP) {
		c->syndrome = SOFTHCA_SYND_CQ_EQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	uar = xa_load(&hw->uars, le32_to_cpu(ctx->uar));
	if (!uar) {
		c->syndrome = SOFTHCA_SYND_NO_UAR;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (!softhca_hw_dbrec_ok(hw, dbrec, sizeof(struct softhca_cq_dbrec))) {
		c->syndrome = SOFTHCA_SYND_DBREC_ADDR;
		return SOFTHCA_CMD_STAT_DMA_ERROR;
	}

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	spin_lock_init(&cq->lock);
	hrtimer_init(&cq->mod_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	cq->mod_timer.function = softhca_hw_cq_mod_timer;
	cq->hw = hw;
	cq->flags = le32_to_cpu(ctx->flags);
	cq->log_size = ctx->log_size;
	cq->dbrec = dbrec;
	cq->db = softhca_hw_dma_va(hw, dbrec);
	cq->arm_sn_fired = ~0u;
	st = softhca_hw_pas_load(hw, &ctx->pas,
				 (u64)SOFTHCA_CQE_SIZE << cq->log_size, true, 0,
				 &cq->pas, &c->syndrome);
	if (st) {
		kfree(cq);
		return st;
	}
	/* numbers are given cyclically (hw->cq_next) */
	if (xa_alloc_cyclic(&hw->cqs, &cqn, cq,
			    XA_LIMIT(SOFTHCA_HW_CQ_FIRST, SOFTHCA_HW_CQ_LAST),
			    &hw->cq_next, GFP_KERNEL) < 0) {
		softhca_hw_cq_free(cq);
		c->syndrome = SOFTHCA_SYND_CQ_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	cq->cqn = cqn;
	cq->eq = eq;
	eq->users++;
	cq->uar = uar;
	uar->users++;
	out->num = cpu_to_le32(cqn);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_destroy_cq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	u32 cqn = le32_to_cpu(in->num);
	struct softhca_hw_cq *cq = xa_load(&hw->cqs, cqn);

	if (!cq) {
		c->syndrome = SOFTHCA_SYND_NO_CQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (cq->users) {
		c->syndrome = SOFTHCA_SYND_CQ_BUSY;
		return SOFTHCA_CMD_STAT_RESOURCE_BUSY;
	}
	xa_erase(&hw->cqs, cqn);
	/* a CQ doorbell that found it before: done with its record */
	spin_lock_irq(&cq->lock);
	cq->dead = true;
	spin_unlock_irq(&cq->lock);
	/* no QP completes to it (users); its moderation timer is stopped */
	cq->eq->users--;
	cq->uar->users--;
	softhca_hw_cq_free(cq);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_cq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_cq_query_out *out = c->out;
	struct softhca_hw_cq *cq = xa_load(&hw->cqs, le32_to_cpu(in->num));
	unsigned long flags;

	if (!cq) {
		c->syndrome = SOFTHCA_SYND_NO_CQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	out->ctx.log_size = cq->log_size;
	out->ctx.log_cqe_size = SOFTHCA_LOG_CQE_SIZE;
	out->ctx.eqn = cpu_to_le32(cq->eq->eqn);
	out->ctx.uar = cpu_to_le32(cq->uar->index);
	out->ctx.dbrec_addr = cpu_to_le64(cq->dbrec);
	out->ctx.pas.nblocks = cpu_to_le32(cq->pas.nblocks);
	out->ctx.pas.log_block_size = cq->pas.log_block_size;
	out->ctx.pas.page_offset = cq->pas.offset /
		(BIT(cq->pas.log_block_size) / SOFTHCA_PAGE_OFFSET_QUANTA);
	out->ctx.flags = cpu_to_le32(cq->flags);
	spin_lock_irqsave(&cq->lock, flags);
	out->pi = cpu_to_le32(cq->pi);
	out->ci = READ_ONCE(cq->db->ci);
	out->arm_sn_fired = cpu_to_le32(cq->arm_sn_fired);
	out->state = cpu_to_le32(cq->error);
	out->arm = READ_ONCE(cq->db->arm);
	out->mod_count = cpu_to_le16(cq->mod_count);
	out->mod_period_us = cpu_to_le16(cq->mod_period_us);
	out->events = cpu_to_le32(cq->events);
	out->base = cpu_to_le32(cq->base);
	spin_unlock_irqrestore(&cq->lock, flags);
	return SOFTHCA_CMD_STAT_OK;
}

/* The full consumer index from the 24 bits software publishes. */
static u32 softhca_hw_cq_ci(u32 pi, u32 ci24)
{
	u32 ci = (pi & ~SOFTHCA_CQ_ARM_CI_MASK) | (ci24 & SOFTHCA_CQ_ARM_CI_MASK);

	if (ci - pi <= SOFTHCA_CQ_ARM_CI_MASK && ci != pi)
		ci -= SOFTHCA_CQ_ARM_CI_MASK + 1;
	return ci;
}

/**
 * softhca_hw_cmd_resize_cq - RESIZE_CQ: move a CQ to a new ring
 * @hw: the card
 * @c: the command (struct softhca_cq_resize_in / softhca_cq_resize_out)
 *
 * The new ring takes over at the consumer index software published: it
 * starts there (base) and the CQEs from the producer index on go to it
 * (see include/softhca_prm.h). Under the CQ's lock no CQE is being
 * written, so the switch falls between two CQEs; the old ring's memory is
 * not touched again once the lock is dropped.
 */
u8 softhca_hw_cmd_resize_cq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_cq_resize_in *in = c->in;
	struct softhca_cq_resize_out *out = c->out;
	struct softhca_hw_cq *cq = xa_load(&hw->cqs, le32_to_cpu(in->cqn));
	struct softhca_hw_pas pas, old;
	unsigned long flags;
	u32 base, pi;
	u8 st = SOFTHCA_CMD_STAT_OK;

	if (!cq) {
		c->syndrome = SOFTHCA_SYND_NO_CQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (!in->log_size || in->log_size > SOFTHCA_HW_LOG_MAX_CQ) {
		c->syndrome = SOFTHCA_SYND_CQ_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	st = softhca_hw_pas_load(hw, &in->pas,
				 (u64)SOFTHCA_CQE_SIZE << in->log_size, true, 0,
				 &pas, &c->syndrome);
	if (st)
		return st;
	spin_lock_irqsave(&cq->lock, flags);
	pi = cq->pi;
	base = softhca_hw_cq_ci(pi, le32_to_cpu(READ_ONCE(cq->db->ci)));
	if (cq->error) {
		c->syndrome = SOFTHCA_SYND_CQ_RESIZE;
		st = SOFTHCA_CMD_STAT_BAD_STATE;
	} else if (pi - base > BIT(in->log_size)) {
		c->syndrome = SOFTHCA_SYND_CQ_RESIZE;
		st = SOFTHCA_CMD_STAT_BAD_PARAM;
	} else {
		old = cq->pas;
		cq->pas = pas;
		cq->log_size = in->log_size;
		cq->base = base;
		pas = old;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	softhca_hw_pas_free(&pas);
	if (st)
		return st;
	trace_softhca_hw_cq_resize(hw, cq->cqn, in->log_size, base, pi);
	out->base = cpu_to_le32(base);
	out->pi = cpu_to_le32(pi);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_modify_cq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_cq_modify_in *in = c->in;
	struct softhca_hw_cq *cq = xa_load(&hw->cqs, le32_to_cpu(in->cqn));
	unsigned long flags;

	if (!cq) {
		c->syndrome = SOFTHCA_SYND_NO_CQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	spin_lock_irqsave(&cq->lock, flags);
	cq->mod_count = le16_to_cpu(in->count);
	cq->mod_period_us = le16_to_cpu(in->period_us);
	spin_unlock_irqrestore(&cq->lock, flags);
	return SOFTHCA_CMD_STAT_OK;
}

/* Trace an arm request the card has not seen before (cq->lock held). */
static void softhca_hw_cq_arm_seen(struct softhca_hw_cq *cq, u32 arm,
				   const char *via)
{
	if (arm == cq->arm_seen)
		return;
	cq->arm_seen = arm;
	if ((arm & SOFTHCA_CQ_ARM_REQUEST) &&
	    softhca_cq_arm_sn(arm) != cq->arm_sn_fired)
		trace_softhca_hw_cq_arm(cq->hw, cq->cqn, arm, via);
}

/* Should the arm word @arm turn this CQE into a completion event? */
static bool softhca_hw_cq_should_fire(struct softhca_hw_cq *cq, u32 arm,
				      bool solicited, bool error)
{
	if (!(arm & SOFTHCA_CQ_ARM_REQUEST) ||
	    softhca_cq_arm_sn(arm) == cq->arm_sn_fired)
		return false;
	if ((arm & SOFTHCA_CQ_ARM_SOLICITED) && !solicited && !error)
		return false;
	return true;
}

/**
 * softhca_hw_cq_doorbell - CQ_DB: software armed CQ @cqn while CQEs waited
 * @hw: the card
 * @cqn: the CQ
 *
 * The card reads the arm word now. If it requests an event of a new
 * sequence number and CQEs it may fire on (for SOLICITED, a solicited or
 * error CQE) lie at or past the arm word's consumer index, the event is
 * raised at once, as for a CQE written after the arm. Any context: a
 * kernel CQ is armed from its comp_handler, softirq or hardirq.
 */
void softhca_hw_cq_doorbell(struct softhca_hw *hw, u32 cqn)
{
	struct softhca_hw_cq *cq;
	unsigned long flags;
	bool fire = false;
	u32 arm = 0, ci;

	if (READ_ONCE(hw->halted))
		return;
	rcu_read_lock();
	cq = xa_load(&hw->cqs, cqn);
	if (!cq)
		goto out;
	spin_lock_irqsave(&cq->lock, flags);
	if (!cq->dead && !cq->error) {
		arm = le32_to_cpu(READ_ONCE(cq->db->arm));
		softhca_hw_cq_arm_seen(cq, arm, "doorbell");
		ci = softhca_hw_cq_ci(cq->pi, arm & SOFTHCA_CQ_ARM_CI_MASK);
		if ((arm & SOFTHCA_CQ_ARM_REQUEST) &&
		    softhca_cq_arm_sn(arm) != cq->arm_sn_fired)
			fire = arm & SOFTHCA_CQ_ARM_SOLICITED ?
			       (s32)(cq->sol_pi - ci) > 0 : cq->pi != ci;
		if (fire) {
			cq->arm_sn_fired = softhca_cq_arm_sn(arm);
			cq->mod_pending = 0;
			cq->events++;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire) {
		trace_softhca_hw_cq_event(hw, cqn, cq->eq->eqn,
					  softhca_cq_arm_sn(arm), "arm");
		softhca_hw_eq_post(hw, cq->eq, SOFTHCA_EQE_COMP, cqn, 0, 0);
	}
out:
	rcu_read_unlock();
}

/**
 * softhca_hw_cq_post - write a CQE and raise the CQ's event if armed
 * @hw: the card
 * @cq: the CQ
 * @cqe: the CQE (op_own is set here)
 * @solicited: the completed message asked for a solicited event
 *
 * A full CQ (producer a whole ring ahead of the consumer index in the
 * doorbell record) is an overrun: the CQ enters error, the CQE is lost and
 * a CQ_ERROR event goes to the async EQ.
 *
 * Return: 0, -ENOSPC on overrun, -EIO if the CQ is in error, -EFAULT if its
 * memory failed the DMA check.
 */
int softhca_hw_cq_post(struct softhca_hw *hw, struct softhca_hw_cq *cq,
		       struct softhca_cqe *cqe, bool solicited)
{
	u32 size, syndrome = 0, arm = 0;
	bool error = cqe->status != SOFTHCA_CQE_ST_SUCCESS;
	const char *why = NULL;
	struct softhca_cqe *slot;
	unsigned long flags;
	bool fire = false;
	int ret = 0;
	u64 off;
	u8 owner;

	spin_lock_irqsave(&cq->lock, flags);
	size = BIT(cq->log_size);	/* RESIZE_CQ changes it under the lock */
	if (cq->error) {
		ret = -EIO;
		goto out;
	}
	if (cq->pi - softhca_hw_cq_ci(cq->pi,
				      le32_to_cpu(READ_ONCE(cq->db->ci))) >=
	    size && !(cq->flags & SOFTHCA_CQ_F_IGNORE_OVERRUN)) {
		syndrome = SOFTHCA_CQ_SYND_OVERRUN;
		ret = -ENOSPC;
		goto out;
	}
	off = (u64)softhca_cq_slot(cq->pi, cq->base, cq->log_size) *
	      SOFTHCA_CQE_SIZE;
	/* a CQE never crosses a block: 64 B entries from a 64 B offset */
	slot = softhca_hw_pas_ptr(hw, &cq->pas, off, sizeof(*slot));
	if (!slot) {
		syndrome = SOFTHCA_CQ_SYND_DMA;
		ret = -EFAULT;
		goto out;
	}
	/* the body with the stale owner bit, then the owner bit */
	owner = softhca_cq_owner(cq->pi, cq->base, cq->log_size);
	cqe->op_own = owner ^ SOFTHCA_CQE_OWNER;
	softhca_hw_store_words(slot, cqe, sizeof(*cqe));
	/* the body is visible before the owner bit that validates it */
	dma_wmb();
	WRITE_ONCE(slot->op_own, owner);
	trace_softhca_hw_cqe(hw, cq->cqn, cq->pi, cqe);
	cq->pi++;
	if (solicited || error)
		cq->sol_pi = cq->pi;
	/* arms written before this CQE must see it: read the arm word now */
	smp_mb();
	arm = le32_to_cpu(READ_ONCE(cq->db->arm));
	softhca_hw_cq_arm_seen(cq, arm, "cqe");
	if (softhca_hw_cq_should_fire(cq, arm, solicited, error)) {
		cq->arm_sn_fired = softhca_cq_arm_sn(arm);
		fire = true;
		why = "cqe";
		/* moderated: hold it for count CQEs or period_us */
		if (cq->mod_count > 1 || cq->mod_period_us) {
			fire = ++cq->mod_pending >= max_t(u16, cq->mod_count, 1);
			why = "moderation-count";
			if (fire)
				cq->mod_pending = 0;
			else if (cq->mod_period_us)
				hrtimer_start(&cq->mod_timer,
					      ns_to_ktime((u64)cq->mod_period_us * NSEC_PER_USEC),
					      HRTIMER_MODE_REL_SOFT);
		}
	} else if (cq->mod_pending &&
		   ++cq->mod_pending >= max_t(u16, cq->mod_count, 1)) {
		/* CQEs after the arm fired count toward the held event */
		cq->mod_pending = 0;
		fire = true;
		why = "moderation-count";
	}
out:
	if (syndrome)
		cq->error = true;
	if (fire)
		cq->events++;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire) {
		trace_softhca_hw_cq_event(hw, cq->cqn, cq->eq->eqn,
					  softhca_cq_arm_sn(arm), why);
		softhca_hw_eq_post(hw, cq->eq, SOFTHCA_EQE_COMP, cq->cqn, 0, 0);
	}
	if (syndrome) {
		trace_softhca_hw_cq_error(hw, cq->cqn, syndrome);
		softhca_hw_async_event(hw, SOFTHCA_EQE_CQ_ERROR, cq->cqn,
				       syndrome, 0);
	}
	return ret;
}

void softhca_hw_cqs_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_cq *cq;
	unsigned long i;

	xa_for_each(&hw->cqs, i, cq)
		softhca_hw_cq_free(cq);
	xa_destroy(&hw->cqs);
}

/* A CQE for QP @qpn on @cq (see struct softhca_cqe for the fields). */
int softhca_hw_post_cqe(struct softhca_hw *hw, struct softhca_hw_cq *cq,
			u32 qpn, u32 index, u8 opcode, u8 status, u32 syndrome,
			u64 length, u8 flags, __be32 imm, u32 src_qp)
{
	struct softhca_cqe cqe = {
		.qpn = cpu_to_le32(qpn),
		.byte_cnt = cpu_to_le32(length),
		.imm = imm,
		.src_qp = cpu_to_le32(src_qp),
		.vendor_err = cpu_to_le32(syndrome),
		.wqe_counter = cpu_to_le32(index),
		.opcode = opcode,
		.status = status,
		.flags = flags,
	};

	return softhca_hw_cq_post(hw, cq, &cqe,
				  flags & SOFTHCA_CQE_F_SOLICITED);
}

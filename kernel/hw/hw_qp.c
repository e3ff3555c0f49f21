// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: queue pairs. A QP is a buffer (RQ then SQ; only
 * the SQ on an SRQ) named by a PAS, a doorbell record, its PD, CQs, UAR
 * and SRQ, and the attributes and state MODIFY_QP sets. The engine serves
 * QPs in RTR and later.
 *
 * Lifetime: the QP table holds a reference; whoever reaches a QP by
 * number (a packet's destination, a kick, the engine's scan) takes one
 * with softhca_hw_qp_get() and drops it when done; the engine's walk
 * finds it in hw->engine_qps. DESTROY_QP takes the QP out of the table
 * and the engine's list, lets go of what it holds, drops the table's
 * reference and waits for the others before it returns, so the driver may
 * then unpin the QP's memory; the structure itself goes after an RCU grace
 * period (lookups and the walk read it under RCU).
 *
 * Locks: a command changing a QP's state takes qp->run (the engine
 * context: nothing is being sent) and then qp->lock (nothing is being
 * received or completed).
 */
#include <linux/slab.h>

#include "hw.h"

#define SOFTHCA_HW_QP_ACCESS	(SOFTHCA_ACCESS_LOCAL_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_READ |		\
				 SOFTHCA_ACCESS_REMOTE_ATOMIC)

/* The QP numbered @qpn with a reference, or NULL. */
struct softhca_hw_qp *softhca_hw_qp_get(struct softhca_hw *hw, u32 qpn)
{
	struct softhca_hw_qp *qp;

	rcu_read_lock();
	qp = xa_load(&hw->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void softhca_hw_qp_put(struct softhca_hw_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->free);
}

/* May a QP in @state receive? */
bool softhca_hw_qp_receives(u8 state)
{
	return state == SOFTHCA_QPS_RTR || state == SOFTHCA_QPS_RTS ||
	       state == SOFTHCA_QPS_SQD || state == SOFTHCA_QPS_SQE;
}

/*
 * The producer counts in @qp's doorbell record (checked at creation).
 * Return: true (the record is always there; false is kept for a card
 * whose record could fail a DMA check).
 */
bool softhca_hw_qp_dbrec(struct softhca_hw_qp *qp, u32 *rq_pi, u32 *sq_pi)
{
	if (rq_pi)
		*rq_pi = le32_to_cpu(READ_ONCE(qp->db->rq_pi));
	if (sq_pi)
		*sq_pi = le32_to_cpu(READ_ONCE(qp->db->sq_pi));
	/* the WQEs are read after the counts that publish them */
	smp_rmb();
	return true;
}

static void softhca_hw_qp_free(struct softhca_hw_qp *qp)
{
	softhca_hw_pas_free(&qp->pas);
	kvfree(qp->res);
	kfree(qp->sw);
	kfree(qp->cw);
	kfree_rcu(qp, rcu);
}

/* Move @qp to @state (run and lock held). */
static void softhca_hw_qp_set_state(struct softhca_hw *hw,
				    struct softhca_hw_qp *qp, u8 state)
{
	qp->state = state;
	atomic64_inc(&hw->path_gen);	/* responders found may change */
	if (state == SOFTHCA_QPS_RESET) {
		softhca_hw_comp_reset(qp);
		softhca_hw_resp_reset(qp);
		qp->sq_next = 0;
		qp->sq_ci = 0;
		qp->rq_ci = 0;
		qp->msn = 0;
		qp->comm_est = false;
		qp->last_wqe_sent = false;
	}
}

/**
 * softhca_hw_qp_to_error - the QP failed: error state, event, flushing
 * @hw: the card
 * @qp: the QP (its lock held)
 * @event: an EQE type for the async EQ, or 0 for none
 * @syndrome: what failed
 *
 * The flush runs in the QP's engine context, soon.
 */
void softhca_hw_qp_to_error(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    u8 event, u32 syndrome)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == SOFTHCA_QPS_ERR)
		return;
	qp->state = SOFTHCA_QPS_ERR;
	qp->waiting = false;
	qp->timer_armed = false;
	atomic64_inc(&hw->path_gen);
	if (event)
		softhca_hw_async_event(hw, event, qp->qpn, syndrome, 0);
	softhca_hw_engine_schedule(hw, qp, SOFTHCA_HW_QPW_FLUSH);
}

static u8 softhca_hw_qp_check_ctx(struct softhca_hw *hw,
				  const struct softhca_qp_ctx *ctx,
				  struct softhca_hw_srq **srq, u32 *syndrome)
{
	u32 srqn = le32_to_cpu(ctx->srqn);

	if (ctx->type > SOFTHCA_QPT_GSI) {
		*syndrome = SOFTHCA_SYND_QP_TYPE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (ctx->type == SOFTHCA_QPT_GSI && hw->gsi) {
		*syndrome = SOFTHCA_SYND_QP_TYPE;
		return SOFTHCA_CMD_STAT_BAD_STATE;
	}
	if (le32_to_cpu(ctx->flags) & ~(SOFTHCA_QP_SIG_ALL | SOFTHCA_QP_PRIV)) {
		*syndrome = SOFTHCA_SYND_QP_ATTR;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	*srq = NULL;
	if (srqn) {
		*srq = xa_load(&hw->srqs, srqn);
		if (!*srq || ctx->log_rq_size || ctx->log_rq_stride) {
			*syndrome = SOFTHCA_SYND_QP_SRQ;
			return SOFTHCA_CMD_STAT_BAD_PARAM;
		}
	} else if (ctx->log_rq_size > SOFTHCA_HW_LOG_MAX_RQ ||
		   ctx->log_rq_stride < SOFTHCA_HW_LOG_MIN_STRIDE ||
		   ctx->log_rq_stride > SOFTHCA_HW_LOG_MAX_STRIDE) {
		*syndrome = SOFTHCA_SYND_QP_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (ctx->log_sq_size > SOFTHCA_HW_LOG_MAX_SQ) {
		*syndrome = SOFTHCA_SYND_QP_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_create_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_qp_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u64 dbrec = le64_to_cpu(ctx->dbrec_addr);
	struct softhca_hw_cq *scq, *rcq;
	struct softhca_hw_srq *srq;
	struct softhca_hw_uar *uar;
	struct softhca_hw_pd *pd;
	struct softhca_hw_qp *qp;
	u64 rq_bytes, sq_bytes;
	u32 qpn;
	u8 st;

	st = softhca_hw_qp_check_ctx(hw, ctx, &srq, &c->syndrome);
	if (st)
		return st;
	pd = xa_load(&hw->pds, le32_to_cpu(ctx->pdn));
	if (!pd) {
		c->syndrome = SOFTHCA_SYND_NO_PD;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	scq = xa_load(&hw->cqs, le32_to_cpu(ctx->send_cqn));
	rcq = xa_load(&hw->cqs, le32_to_cpu(ctx->recv_cqn));
	if (!scq || !rcq) {
		c->syndrome = SOFTHCA_SYND_QP_CQ;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	uar = xa_load(&hw->uars, le32_to_cpu(ctx->uar));
	if (!uar) {
		c->syndrome = SOFTHCA_SYND_NO_UAR;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (!softhca_hw_dbrec_ok(hw, dbrec, sizeof(struct softhca_qp_dbrec))) {
		c->syndrome = SOFTHCA_SYND_DBREC_ADDR;
		return SOFTHCA_CMD_STAT_DMA_ERROR;
	}

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		goto err_mem;
	qp->sw = kzalloc(sizeof(*qp->sw), GFP_KERNEL);
	qp->cw = kzalloc(sizeof(*qp->cw), GFP_KERNEL);
	if (!qp->sw || !qp->cw)
		goto err_free;
	/* an RC responder's READ and atomic resources */
	if (ctx->type == SOFTHCA_QPT_RC) {
		qp->res = kvcalloc(SOFTHCA_HW_MAX_RD_ATOM, sizeof(*qp->res),
				   GFP_KERNEL);
		if (!qp->res)
			goto err_free;
	}
	spin_lock_init(&qp->run);
	spin_lock_init(&qp->lock);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->free);
	qp->hw = hw;
	softhca_hw_comp_reset(qp);	/* the completer's starting state */
	qp->type = ctx->type;
	qp->flags = le32_to_cpu(ctx->flags);
	qp->log_sq_size = ctx->log_sq_size;
	qp->log_rq_size = ctx->log_rq_size;
	qp->log_rq_stride = ctx->log_rq_stride;
	qp->dbrec = dbrec;
	qp->db = softhca_hw_dma_va(hw, dbrec);
	rq_bytes = srq ? 0 : BIT_ULL(qp->log_rq_size + qp->log_rq_stride);
	sq_bytes = BIT_ULL(qp->log_sq_size + SOFTHCA_LOG_WQEBB);
	qp->sq_offset = rq_bytes;
	st = softhca_hw_pas_load(hw, &ctx->pas, rq_bytes + sq_bytes, true, 0,
				 &qp->pas, &c->syndrome);
	if (st)
		goto err_free_st;
	if (qp->type == SOFTHCA_QPT_GSI) {
		qpn = SOFTHCA_GSI_QPN;
		if (xa_insert(&hw->qps, qpn, qp, GFP_KERNEL))
			goto err_limit;
	} else if (xa_alloc_cyclic(&hw->qps, &qpn, qp,
				   XA_LIMIT(SOFTHCA_HW_QP_FIRST,
					    SOFTHCA_HW_QP_LAST),
				   &hw->qp_next, GFP_KERNEL) < 0) {
		goto err_limit;
	}
	qp->qpn = qpn;
	qp->attr.qpn = cpu_to_le32(qpn);
	qp->engine_listed = true;
	list_add_tail_rcu(&qp->engine_node, &hw->engine_qps);
	qp->pd = pd;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->uar = uar;
	qp->srq = srq;
	pd->users++;
	scq->users++;
	rcq->users++;
	uar->users++;
	if (srq)
		srq->users++;
	if (qp->type == SOFTHCA_QPT_GSI)
		hw->gsi = qp;
	out->num = cpu_to_le32(qpn);
	return SOFTHCA_CMD_STAT_OK;

err_limit:
	c->syndrome = SOFTHCA_SYND_QP_LIMIT;
	st = SOFTHCA_CMD_STAT_EXCEED_LIM;
	softhca_hw_pas_free(&qp->pas);
	goto err_free_st;
err_free:
	c->syndrome = SOFTHCA_SYND_NO_MEM;
	st = SOFTHCA_CMD_STAT_EXCEED_LIM;
err_free_st:
	kvfree(qp->res);
	kfree(qp->sw);
	kfree(qp->cw);
	kfree(qp);
	return st;
err_mem:
	c->syndrome = SOFTHCA_SYND_NO_MEM;
	return SOFTHCA_CMD_STAT_EXCEED_LIM;
}

/* Let go of @qp (run and lock held): nothing of it is used any more. */
static void softhca_hw_qp_quiesce(struct softhca_hw_qp *qp)
{
	softhca_hw_req_reset(qp);
	softhca_hw_comp_reset(qp);
	softhca_hw_resp_reset(qp);
}

u8 softhca_hw_cmd_destroy_qp(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	u32 qpn = le32_to_cpu(in->num);
	struct softhca_hw_qp *qp = xa_load(&hw->qps, qpn);

	if (!qp) {
		c->syndrome = SOFTHCA_SYND_NO_QP;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	xa_erase(&hw->qps, qpn);
	list_del_rcu(&qp->engine_node);
	WRITE_ONCE(qp->engine_listed, false);
	if (hw->gsi == qp)
		hw->gsi = NULL;
	atomic64_inc(&hw->path_gen);
	spin_lock_bh(&qp->run);
	spin_lock_bh(&qp->lock);
	qp->state = SOFTHCA_QPS_RESET;
	softhca_hw_qp_quiesce(qp);
	spin_unlock_bh(&qp->lock);
	spin_unlock_bh(&qp->run);
	/* whoever still holds it (a delivery in progress) lets go first */
	softhca_hw_qp_put(qp);
	wait_for_completion(&qp->free);
	/* a packet that found it before it left the table held it: done */
	spin_lock_bh(&qp->lock);
	softhca_hw_qp_quiesce(qp);
	spin_unlock_bh(&qp->lock);
	qp->pd->users--;
	qp->scq->users--;
	qp->rcq->users--;
	qp->uar->users--;
	if (qp->srq)
		qp->srq->users--;
	softhca_hw_qp_free(qp);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_qp_query_out *out = c->out;
	struct softhca_hw_qp *qp = xa_load(&hw->qps, le32_to_cpu(in->num));
	struct softhca_qp_ctx *ctx = &out->ctx;
	u32 rq_pi, sq_pi;

	if (!qp) {
		c->syndrome = SOFTHCA_SYND_NO_QP;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	ctx->type = qp->type;
	ctx->log_sq_size = qp->log_sq_size;
	ctx->log_rq_size = qp->log_rq_size;
	ctx->log_rq_stride = qp->log_rq_stride;
	ctx->pdn = cpu_to_le32(qp->pd->pdn);
	ctx->send_cqn = cpu_to_le32(qp->scq->cqn);
	ctx->recv_cqn = cpu_to_le32(qp->rcq->cqn);
	ctx->uar = cpu_to_le32(qp->uar->index);
	ctx->flags = cpu_to_le32(qp->flags);
	ctx->dbrec_addr = cpu_to_le64(qp->dbrec);
	ctx->pas.nblocks = cpu_to_le32(qp->pas.nblocks);
	ctx->pas.log_block_size = qp->pas.log_block_size;
	ctx->pas.page_offset = qp->pas.offset /
		(BIT(qp->pas.log_block_size) / SOFTHCA_PAGE_OFFSET_QUANTA);
	ctx->srqn = cpu_to_le32(qp->srq ? qp->srq->srqn : 0);
	softhca_hw_qp_dbrec(qp, &rq_pi, &sq_pi);
	out->sq_pi = cpu_to_le32(sq_pi);
	out->rq_pi = cpu_to_le32(qp->srq ? 0 : rq_pi);
	spin_lock_bh(&qp->lock);
	out->attr = qp->attr;
	out->attr.state = qp->state;
	out->sq_next = cpu_to_le32(READ_ONCE(qp->sq_next));
	out->sq_ci = cpu_to_le32(qp->sq_ci);
	out->rq_ci = cpu_to_le32(qp->rq_ci);
	spin_unlock_bh(&qp->lock);
	return SOFTHCA_CMD_STAT_OK;
}

/* The transitions the card allows (the driver checks the attributes). */
static bool softhca_hw_qp_transition_ok(u8 cur, u8 next)
{
	if (next == SOFTHCA_QPS_RESET || next == SOFTHCA_QPS_ERR)
		return true;
	switch (cur) {
	case SOFTHCA_QPS_RESET:
		return next == SOFTHCA_QPS_INIT;
	case SOFTHCA_QPS_INIT:
		return next == SOFTHCA_QPS_INIT || next == SOFTHCA_QPS_RTR;
	case SOFTHCA_QPS_RTR:
		return next == SOFTHCA_QPS_RTS;
	case SOFTHCA_QPS_RTS:
		return next == SOFTHCA_QPS_RTS || next == SOFTHCA_QPS_SQD;
	case SOFTHCA_QPS_SQD:
		return next == SOFTHCA_QPS_SQD || next == SOFTHCA_QPS_RTS;
	case SOFTHCA_QPS_SQE:
		return next == SOFTHCA_QPS_RTS;
	default:
		return false;
	}
}

static bool softhca_hw_qp_attr_ok(const struct softhca_qp_attr *a, u32 mask)
{
	if ((mask & SOFTHCA_QP_A_PATH_MTU) &&
	    (a->path_mtu < 1 || a->path_mtu > 5))
		return false;
	if ((mask & SOFTHCA_QP_A_AV) && a->sgid_index >= SOFTHCA_HW_GID_TBL_LEN)
		return false;
	if ((mask & SOFTHCA_QP_A_ACCESS) &&
	    (le32_to_cpu(a->access) & ~SOFTHCA_HW_QP_ACCESS))
		return false;
	if ((mask & SOFTHCA_QP_A_TIMEOUT) && a->timeout > 31)
		return false;
	if ((mask & SOFTHCA_QP_A_RETRY_CNT) && a->retry_cnt > 7)
		return false;
	if ((mask & SOFTHCA_QP_A_RNR_RETRY) && a->rnr_retry > 7)
		return false;
	if ((mask & SOFTHCA_QP_A_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return false;
	if ((mask & (SOFTHCA_QP_A_RQ_PSN | SOFTHCA_QP_A_SQ_PSN)) &&
	    ((le32_to_cpu(a->rq_psn) | le32_to_cpu(a->sq_psn)) &
	     ~SOFTHCA_PSN_MASK))
		return false;
	return true;
}

/* Copy the attributes named in @mask from @in into @qa. */
static void softhca_hw_qp_merge_attr(struct softhca_qp_attr *qa,
				     const struct softhca_qp_attr *in, u32 mask)
{
	if (mask & SOFTHCA_QP_A_ACCESS)
		qa->access = in->access;
	if (mask & SOFTHCA_QP_A_PKEY)
		qa->pkey_index = in->pkey_index;
	if (mask & SOFTHCA_QP_A_PORT)
		qa->port = in->port;
	if (mask & SOFTHCA_QP_A_QKEY)
		qa->qkey = in->qkey;
	if (mask & SOFTHCA_QP_A_AV) {
		memcpy(qa->dgid, in->dgid, sizeof(qa->dgid));
		memcpy(qa->dmac, in->dmac, sizeof(qa->dmac));
		qa->sgid_index = in->sgid_index;
		qa->hop_limit = in->hop_limit;
		qa->traffic_class = in->traffic_class;
		qa->flow_label = in->flow_label;
		qa->sl = in->sl;
	}
	if (mask & SOFTHCA_QP_A_PATH_MTU)
		qa->path_mtu = in->path_mtu;
	if (mask & SOFTHCA_QP_A_TIMEOUT)
		qa->timeout = in->timeout;
	if (mask & SOFTHCA_QP_A_RETRY_CNT)
		qa->retry_cnt = in->retry_cnt;
	if (mask & SOFTHCA_QP_A_RNR_RETRY)
		qa->rnr_retry = in->rnr_retry;
	if (mask & SOFTHCA_QP_A_RQ_PSN)
		qa->rq_psn = in->rq_psn;
	if (mask & SOFTHCA_QP_A_MAX_QP_RD_ATOMIC)
		qa->max_rd_atomic = in->max_rd_atomic;
	if (mask & SOFTHCA_QP_A_MIN_RNR_TIMER)
		qa->min_rnr_timer = in->min_rnr_timer;
	if (mask & SOFTHCA_QP_A_SQ_PSN)
		qa->sq_psn = in->sq_psn;
	if (mask & SOFTHCA_QP_A_MAX_DEST_RD_ATOMIC)
		qa->max_dest_rd_atomic = in->max_dest_rd_atomic;
	if (mask & SOFTHCA_QP_A_DEST_QPN)
		qa->dest_qpn = in->dest_qpn;
	if (mask & SOFTHCA_QP_A_SQD_NOTIFY)
		qa->sqd_notify = in->sqd_notify;
	qa->mask = cpu_to_le32(le32_to_cpu(qa->mask) | mask);
}

/* Does moving @qp to @next lack an attribute the card needs? */
static bool softhca_hw_qp_needs(struct softhca_hw_qp *qp, u8 next, u32 mask)
{
	u32 have = le32_to_cpu(qp->attr.mask) | mask;
	u32 path = SOFTHCA_QP_A_AV | SOFTHCA_QP_A_DEST_QPN |
		   SOFTHCA_QP_A_PATH_MTU;

	/* a connected QP needs its path and peer before it can receive */
	return next == SOFTHCA_QPS_RTR && qp->state == SOFTHCA_QPS_INIT &&
	       (qp->type == SOFTHCA_QPT_RC || qp->type == SOFTHCA_QPT_UC) &&
	       (have & path) != path;
}

u8 softhca_hw_cmd_modify_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_qp_attr *in = c->in;
	u32 mask = le32_to_cpu(in->mask);
	struct softhca_hw_qp *qp = softhca_hw_qp_get(hw, le32_to_cpu(in->qpn));
	u8 next, st = SOFTHCA_CMD_STAT_OK;

	if (!qp) {
		c->syndrome = SOFTHCA_SYND_NO_QP;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (!softhca_hw_qp_attr_ok(in, mask)) {
		c->syndrome = SOFTHCA_SYND_QP_ATTR;
		st = SOFTHCA_CMD_STAT_BAD_PARAM;
		goto out;
	}

	spin_lock_bh(&qp->run);
	spin_lock_bh(&qp->lock);
	next = mask & SOFTHCA_QP_A_STATE ? in->state : qp->state;
	if (next > SOFTHCA_QPS_ERR ||
	    !softhca_hw_qp_transition_ok(qp->state, next)) {
		c->syndrome = SOFTHCA_SYND_QP_STATE;
		st = SOFTHCA_CMD_STAT_BAD_STATE;
		goto unlock;
	}
	if (softhca_hw_qp_needs(qp, next, mask)) {
		c->syndrome = SOFTHCA_SYND_QP_ATTR;
		st = SOFTHCA_CMD_STAT_BAD_PARAM;
		goto unlock;
	}
	softhca_hw_qp_merge_attr(&qp->attr, in, mask & ~SOFTHCA_QP_A_STATE);
	/* nothing is ACKed of what the new send PSN starts */
	if (mask & SOFTHCA_QP_A_SQ_PSN)
		qp->acked_psn = le32_to_cpu(qp->attr.sq_psn);
	atomic64_inc(&hw->path_gen);	/* the path may have changed */
	if (next == SOFTHCA_QPS_RESET)
		qp->attr.mask = 0;
	if (next != qp->state) {
		if (next == SOFTHCA_QPS_ERR) {
			/* the engine flushes it, in budgets (hw_flush.c) */
			softhca_hw_qp_to_error(hw, qp, 0, 0);
		} else {
			softhca_hw_qp_set_state(hw, qp, next);
		}
		if (next == SOFTHCA_QPS_SQD && qp->attr.sqd_notify) {
			if (qp->fl_head == qp->fl_tail && !qp->sending)
				softhca_hw_async_event(hw, SOFTHCA_EQE_SQ_DRAINED,
						       qp->qpn, 0, 0);
			else
				qp->sqd_notify_pending = true;
		}
	}
	spin_unlock_bh(&qp->lock);
	if (next == SOFTHCA_QPS_RESET)
		softhca_hw_req_reset(qp);
	spin_unlock_bh(&qp->run);
	goto out;

unlock:
	spin_unlock_bh(&qp->lock);
	spin_unlock_bh(&qp->run);
out:
	softhca_hw_qp_put(qp);
	return st;
}

void softhca_hw_qps_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_qp *qp;
	unsigned long i;

	xa_for_each(&hw->qps, i, qp) {
		xa_erase(&hw->qps, i);
		list_del_rcu(&qp->engine_node);
		spin_lock_bh(&qp->lock);
		softhca_hw_qp_quiesce(qp);
		spin_unlock_bh(&qp->lock);
		softhca_hw_qp_free(qp);
	}
	xa_destroy(&hw->qps);
	hw->gsi = NULL;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: queue pairs. A QP is a buffer (RQ then SQ) named by
 * a PAS, a doorbell record, its PD, CQs and UAR, and the attributes and
 * state MODIFY_QP sets. QPs that have queues to serve (RTS, SQD, SQE, ERR)
 * are on the engine's list; every change of what the engine walks happens
 * under the engine lock.
 */
#include <linux/slab.h>

#include "hw.h"

#define SOFTHCA_HW_QP_ACCESS	(SOFTHCA_ACCESS_LOCAL_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_READ |		\
				 SOFTHCA_ACCESS_REMOTE_ATOMIC)

static void softhca_hw_qp_free(struct softhca_hw_qp *qp)
{
	softhca_hw_pas_free(&qp->pas);
	kfree(qp);
}

static bool softhca_hw_qp_served(u8 state)
{
	return state == SOFTHCA_QPS_RTS || state == SOFTHCA_QPS_SQD ||
	       state == SOFTHCA_QPS_SQE || state == SOFTHCA_QPS_ERR;
}

/* Move @qp to @state; the caller holds the engine lock. */
static void softhca_hw_qp_set_state(struct softhca_hw *hw,
				    struct softhca_hw_qp *qp, u8 state)
{
	bool was = softhca_hw_qp_served(qp->state);

	qp->state = state;
	hw->path_gen++;		/* responders the engine found may change */
	if (state == SOFTHCA_QPS_RESET) {
		qp->sq_ci = 0;
		qp->rq_ci = 0;
		qp->waiting = false;
		qp->retries = 0;
		qp->rnr_retries = 0;
		qp->comm_est = false;
	}
	if (softhca_hw_qp_served(state) && !was)
		softhca_hw_engine_add_qp(hw, qp);
	else if (!softhca_hw_qp_served(state) && was)
		softhca_hw_engine_del_qp(hw, qp);
}

/**
 * softhca_hw_qp_to_error - the QP failed: error state, event, flushing
 * @hw: the card
 * @qp: the QP (the caller holds the engine lock)
 * @event: an EQE type for the async EQ, or 0 for none
 * @syndrome: what failed
 */
void softhca_hw_qp_to_error(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    u8 event, u32 syndrome)
{
	qp->waiting = false;
	softhca_hw_qp_set_state(hw, qp, SOFTHCA_QPS_ERR);
	if (event)
		softhca_hw_async_event(hw, event, qp->qpn, syndrome, 0);
}

u8 softhca_hw_cmd_create_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_qp_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u64 dbrec = le64_to_cpu(ctx->dbrec_addr);
	struct softhca_hw_cq *scq, *rcq;
	struct softhca_hw_uar *uar;
	struct softhca_hw_pd *pd;
	struct softhca_hw_qp *qp;
	u64 rq_bytes, sq_bytes;
	u32 qpn;
	u8 st;

	if (ctx->type != SOFTHCA_QPT_RC && ctx->type != SOFTHCA_QPT_UC) {
		c->syndrome = SOFTHCA_SYND_QP_TYPE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (ctx->log_sq_size > SOFTHCA_HW_LOG_MAX_SQ ||
	    ctx->log_rq_size > SOFTHCA_HW_LOG_MAX_RQ ||
	    ctx->log_rq_stride < SOFTHCA_HW_LOG_MIN_STRIDE ||
	    ctx->log_rq_stride > SOFTHCA_HW_LOG_MAX_STRIDE) {
		c->syndrome = SOFTHCA_SYND_QP_SIZE;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
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
	if (!qp) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	INIT_LIST_HEAD(&qp->engine);
	qp->type = ctx->type;
	qp->flags = le32_to_cpu(ctx->flags);
	qp->log_sq_size = ctx->log_sq_size;
	qp->log_rq_size = ctx->log_rq_size;
	qp->log_rq_stride = ctx->log_rq_stride;
	qp->dbrec = dbrec;
	qp->db = softhca_hw_dma_va(hw, dbrec);
	rq_bytes = BIT_ULL(qp->log_rq_size + qp->log_rq_stride);
	sq_bytes = BIT_ULL(qp->log_sq_size + SOFTHCA_LOG_WQEBB);
	qp->sq_offset = rq_bytes;
	st = softhca_hw_pas_load(hw, &ctx->pas, rq_bytes + sq_bytes, true, 0,
				 &qp->pas, &c->syndrome);
	if (st) {
		kfree(qp);
		return st;
	}
	if (xa_alloc(&hw->qps, &qpn, qp, XA_LIMIT(SOFTHCA_HW_QP_FIRST, SOFTHCA_HW_QP_LAST),
		     GFP_KERNEL)) {
		softhca_hw_qp_free(qp);
		c->syndrome = SOFTHCA_SYND_QP_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	qp->qpn = qpn;
	qp->attr.qpn = cpu_to_le32(qpn);
	qp->pd = pd;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->uar = uar;
	pd->users++;
	scq->users++;
	rcq->users++;
	uar->users++;
	out->num = cpu_to_le32(qpn);
	return SOFTHCA_CMD_STAT_OK;
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
	/* once the engine lock is dropped the engine holds no reference */
	mutex_lock(&hw->engine_lock);
	if (softhca_hw_qp_served(qp->state))
		softhca_hw_engine_del_qp(hw, qp);
	xa_erase(&hw->qps, qpn);
	hw->path_gen++;
	mutex_unlock(&hw->engine_lock);
	qp->pd->users--;
	qp->scq->users--;
	qp->rcq->users--;
	qp->uar->users--;
	softhca_hw_qp_free(qp);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_qp_attr *out = c->out;
	struct softhca_hw_qp *qp = xa_load(&hw->qps, le32_to_cpu(in->num));

	if (!qp) {
		c->syndrome = SOFTHCA_SYND_NO_QP;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	mutex_lock(&hw->engine_lock);
	*out = qp->attr;
	out->state = qp->state;
	mutex_unlock(&hw->engine_lock);
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

u8 softhca_hw_cmd_modify_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_qp_attr *in = c->in;
	u32 mask = le32_to_cpu(in->mask);
	struct softhca_hw_qp *qp = xa_load(&hw->qps, le32_to_cpu(in->qpn));
	u32 have;
	u8 next;

	if (!qp) {
		c->syndrome = SOFTHCA_SYND_NO_QP;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (!softhca_hw_qp_attr_ok(in, mask)) {
		c->syndrome = SOFTHCA_SYND_QP_ATTR;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}

	mutex_lock(&hw->engine_lock);
	next = mask & SOFTHCA_QP_A_STATE ? in->state : qp->state;
	if (next > SOFTHCA_QPS_ERR ||
	    !softhca_hw_qp_transition_ok(qp->state, next)) {
		mutex_unlock(&hw->engine_lock);
		c->syndrome = SOFTHCA_SYND_QP_STATE;
		return SOFTHCA_CMD_STAT_BAD_STATE;
	}
	/* a connected QP needs its path and peer before it can receive */
	have = le32_to_cpu(qp->attr.mask) | mask;
	if (next == SOFTHCA_QPS_RTR && qp->state == SOFTHCA_QPS_INIT &&
	    (have & (SOFTHCA_QP_A_AV | SOFTHCA_QP_A_DEST_QPN |
		     SOFTHCA_QP_A_PATH_MTU)) !=
	    (SOFTHCA_QP_A_AV | SOFTHCA_QP_A_DEST_QPN | SOFTHCA_QP_A_PATH_MTU)) {
		mutex_unlock(&hw->engine_lock);
		c->syndrome = SOFTHCA_SYND_QP_ATTR;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	softhca_hw_qp_merge_attr(&qp->attr, in, mask & ~SOFTHCA_QP_A_STATE);
	hw->path_gen++;		/* the path may have changed */
	if (next == SOFTHCA_QPS_RESET)
		qp->attr.mask = 0;
	if (next != qp->state) {
		softhca_hw_qp_set_state(hw, qp, next);
		if (next == SOFTHCA_QPS_ERR)
			softhca_hw_qp_flush(hw, qp);
		if (next == SOFTHCA_QPS_SQD && qp->attr.sqd_notify)
			softhca_hw_async_event(hw, SOFTHCA_EQE_SQ_DRAINED,
					       qp->qpn, 0, 0);
	}
	mutex_unlock(&hw->engine_lock);
	return SOFTHCA_CMD_STAT_OK;
}

void softhca_hw_qps_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_qp *qp;
	unsigned long i;

	xa_for_each(&hw->qps, i, qp) {
		list_del_init(&qp->engine);
		softhca_hw_qp_free(qp);
	}
	xa_destroy(&hw->qps);
}

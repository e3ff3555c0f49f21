// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: queue pairs and the data path. One page-aligned buffer
 * holds the RQ and then the SQ (only the SQ when receives come from an
 * SRQ). Posting builds WQEs in place with the shared encoder
 * (include/softhca_wqe.h), publishes the new producer count in the
 * doorbell record (after a release barrier), writes the UAR's SQ doorbell,
 * and makes a system call only when the card says its engine is idle: the
 * engine polls doorbell records while it is busy, so a busy device takes
 * posts without any system call.
 */
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <new>
#include <unistd.h>

#include "mmio.h"
#include "ring.h"
#include "softhca.h"

namespace softhca {

int qp_geometry(uint8_t qp_type, bool srq, const struct ibv_qp_cap &want,
		uint32_t dev_max_wr, uint32_t dev_max_sge,
		uint32_t dev_max_inline, QpGeometry *g)
{
	bool ud = qp_type == SOFTHCA_QPT_UD || qp_type == SOFTHCA_QPT_GSI;
	uint32_t send_wr = std::max(want.max_send_wr, 1u);
	uint32_t recv_wr = std::max(want.max_recv_wr, 1u);
	uint32_t send_sge = std::max(want.max_send_sge, 1u);
	uint32_t recv_sge = std::max(want.max_recv_sge, 1u);

	if (send_wr > dev_max_wr || send_sge > dev_max_sge ||
	    want.max_inline_data > dev_max_inline)
		return EINVAL;
	if (!srq && (recv_wr > dev_max_wr || recv_sge > dev_max_sge))
		return EINVAL;
	g->wqe_bbs = softhca_wqe_bbs(
		softhca_sq_max_ds_qp(qp_type, send_sge, want.max_inline_data));
	if (g->wqe_bbs > SOFTHCA_MAX_WQEBBS)
		return EINVAL;
	/*
	 * Report all that fits in the WQE size: after the control segment and
	 * an RDMA WRITE's remote address (RC, UC) or the address vector (UD).
	 */
	uint32_t units =
		g->wqe_bbs * (SOFTHCA_WQEBB_SIZE / SOFTHCA_WQE_DS_SIZE);
	uint32_t fixed =
		ud ? 1 + sizeof(struct softhca_wqe_av) / SOFTHCA_WQE_DS_SIZE
		   : 2;
	g->max_send_sge = std::min(units - fixed, dev_max_sge);
	uint32_t inline_room =
		(units - fixed) * SOFTHCA_WQE_DS_SIZE -
		static_cast<uint32_t>(sizeof(struct softhca_wqe_inline));
	g->max_inline_data = std::min(inline_room, dev_max_inline);
	g->sq_wqe_cnt = align_queue_size(send_wr * g->wqe_bbs);
	if (!g->sq_wqe_cnt)
		return EINVAL;
	g->max_send_wr = std::min(g->sq_wqe_cnt / g->wqe_bbs, dev_max_wr);

	if (srq) {
		g->rq_wqe_cnt = g->rq_stride = 0;
		g->max_recv_wr = g->max_recv_sge = 0;
		return 0;
	}
	g->rq_wqe_cnt = align_queue_size(recv_wr);
	g->rq_stride = align_queue_size(recv_sge * SOFTHCA_WQE_DS_SIZE);
	g->max_recv_wr = std::min(g->rq_wqe_cnt, dev_max_wr);
	g->max_recv_sge =
		std::min(g->rq_stride / SOFTHCA_WQE_DS_SIZE, dev_max_sge);
	return 0;
}

int qp_alloc_queues(Qp *qp, const QpGeometry &g)
{
	qp->sq.wqe_cnt = g.sq_wqe_cnt;
	qp->max_send_wr = g.max_send_wr;
	qp->max_send_sge = g.max_send_sge;
	qp->max_inline_data = g.max_inline_data;
	qp->sq_caps.max_sge = g.max_send_sge;
	qp->sq_caps.max_inline = g.max_inline_data;
	qp->rq_wqe_cnt = g.rq_wqe_cnt;
	qp->rq_stride = g.rq_stride;
	qp->max_recv_wr = g.max_recv_wr;
	qp->max_recv_sge = g.max_recv_sge;
	if (qp->sq_wrid.alloc(g.sq_wqe_cnt) ||
	    qp->sq_wqe_head.alloc(g.sq_wqe_cnt) ||
	    qp->sq_nbb.alloc(g.sq_wqe_cnt) ||
	    qp->sq_sge.alloc(g.max_send_sge) ||
	    qp->ex.inl.alloc(std::max(g.max_inline_data, 1u)))
		return ENOMEM;
	if (g.rq_wqe_cnt && qp->rq_wrid.alloc(g.rq_wqe_cnt))
		return ENOMEM;
	return 0;
}

namespace {

/*
 * The QP's completions still in its CQs go with it (a destroy, a move to
 * RESET): the SRQ WQEs its receives took go back to the SRQ.
 */
void clean_cqs(Qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	if (ibqp->recv_cq)
		cq_clean(to_cq(ibqp->recv_cq), qp->qpn, qp->srq);
	if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
		cq_clean(to_cq(ibqp->send_cq), qp->qpn, nullptr);
}

/* Back to the state of a new QP (after a move to RESET). */
void reset_queues(Qp *qp)
{
	qp->sq_pi = qp->sq_head = qp->sq_tail = qp->sq_tail_bb = 0;
	qp->rq_pi = qp->rq_tail = 0;
	store_le32(&qp->db->sq_pi, 0);
	store_le32(&qp->db->rq_pi, 0);
}

uint8_t wqe_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return SOFTHCA_WQE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return SOFTHCA_WQE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return SOFTHCA_WQE_SEND_INV;
	case IBV_WR_RDMA_WRITE:
		return SOFTHCA_WQE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return SOFTHCA_WQE_RDMA_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return SOFTHCA_WQE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return SOFTHCA_WQE_ATOMIC_CS;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return SOFTHCA_WQE_ATOMIC_FA;
	default:
		/* LOCAL_INV, BIND_MW, TSO...: no user WQE carries them */
		return 0xff;
	}
}

/*
 * The verb-neutral form of @wr for the encoder. Its gather list is
 * copied into the QP's scratch list (held under the SQ lock), its
 * address vector into @av.
 */
int to_send_wr(Qp *qp, const struct ibv_send_wr *wr, struct softhca_send_wr *s,
	       struct softhca_wqe_av *av)
{
	uint8_t op = wqe_opcode(wr->opcode);

	if (op == 0xff || wr->num_sge < 0 ||
	    static_cast<uint32_t>(wr->num_sge) > qp->max_send_sge)
		return EINVAL;
	memset(s, 0, sizeof(*s));
	s->opcode = op;
	s->flags = wqe_flags(wr->send_flags);
	/* READ and atomics land through their SGE: inline means nothing */
	if (op == SOFTHCA_WQE_RDMA_READ || op == SOFTHCA_WQE_ATOMIC_CS ||
	    op == SOFTHCA_WQE_ATOMIC_FA)
		s->flags &= static_cast<uint8_t>(~SOFTHCA_WQE_F_INLINE);
	switch (op) {
	case SOFTHCA_WQE_SEND_IMM:
		s->imm = wr->imm_data;
		break;
	case SOFTHCA_WQE_SEND_INV:
		s->inv_key = wr->invalidate_rkey;
		break;
	case SOFTHCA_WQE_RDMA_WRITE_IMM:
		s->imm = wr->imm_data;
		s->remote_addr = wr->wr.rdma.remote_addr;
		s->rkey = wr->wr.rdma.rkey;
		break;
	case SOFTHCA_WQE_RDMA_WRITE:
	case SOFTHCA_WQE_RDMA_READ:
		s->remote_addr = wr->wr.rdma.remote_addr;
		s->rkey = wr->wr.rdma.rkey;
		break;
	case SOFTHCA_WQE_ATOMIC_CS:
		s->remote_addr = wr->wr.atomic.remote_addr;
		s->rkey = wr->wr.atomic.rkey;
		s->swap_add = wr->wr.atomic.swap;
		s->compare = wr->wr.atomic.compare_add;
		break;
	case SOFTHCA_WQE_ATOMIC_FA:
		s->remote_addr = wr->wr.atomic.remote_addr;
		s->rkey = wr->wr.atomic.rkey;
		s->swap_add = wr->wr.atomic.compare_add;
		break;
	default:
		break;
	}
	if (softhca_wqe_is_ud(&qp->sq_caps)) {
		if (!wr->wr.ud.ah)
			return EINVAL;
		*av = to_ah(wr->wr.ud.ah)->av;
		av->dest_qpn = htole32(wr->wr.ud.remote_qpn);
		av->qkey = htole32(wr->wr.ud.remote_qkey);
		s->av = av;
	}
	for (int i = 0; i < wr->num_sge; i++) {
		qp->sq_sge[i].addr = wr->sg_list[i].addr;
		qp->sq_sge[i].length = wr->sg_list[i].length;
		qp->sq_sge[i].lkey = wr->sg_list[i].lkey;
	}
	s->sg = qp->sq_sge.get();
	s->num_sge = static_cast<uint32_t>(wr->num_sge);
	return 0;
}

} // namespace

uint8_t wqe_flags(unsigned int send_flags)
{
	return (send_flags & IBV_SEND_SIGNALED ? SOFTHCA_WQE_F_SIGNALED : 0) |
	       (send_flags & IBV_SEND_SOLICITED ? SOFTHCA_WQE_F_SOLICITED : 0) |
	       (send_flags & IBV_SEND_FENCE ? SOFTHCA_WQE_F_FENCE : 0) |
	       (send_flags & IBV_SEND_INLINE ? SOFTHCA_WQE_F_INLINE : 0);
}

/* Ring: publish the producer count, then wake the card if it sleeps. */
void ring_sq(Qp *qp)
{
	to_device_barrier();
	store_le32(&qp->db->sq_pi, qp->sq_pi);
	store_le64(qp->ctx->uar + SOFTHCA_UAR_SQ_DB,
		   static_cast<uint64_t>(qp->sq_pi) << 32 | qp->qpn);
	full_barrier();
	if (load_le32(qp->ctx->uar + SOFTHCA_UAR_ENGINE_STATE) ==
	    SOFTHCA_ENGINE_IDLE)
		wake(qp);
}

int sq_post(Qp *qp, const struct softhca_send_wr *wr, uint64_t wr_id)
{
	uint32_t ds, inline_len;
	int err = -softhca_wqe_size(&qp->sq_caps, wr, &ds, &inline_len);

	if (err)
		return err;
	uint32_t nbb = softhca_wqe_bbs(ds);
	uint32_t tail = __atomic_load_n(&qp->sq_tail, __ATOMIC_ACQUIRE);
	uint32_t tail_bb = __atomic_load_n(&qp->sq_tail_bb, __ATOMIC_RELAXED);

	if (qp->sq_head - tail >= qp->max_send_wr ||
	    qp->sq_pi + nbb - tail_bb > qp->sq.wqe_cnt)
		return ENOMEM;

	uint32_t bb = qp->sq_pi;
	softhca_wqe_write(&qp->sq, bb, &qp->sq_caps, wr, ds, inline_len);

	uint32_t slot = bb & (qp->sq.wqe_cnt - 1);
	qp->sq_wrid[slot] = wr_id;
	qp->sq_nbb[slot] = static_cast<uint8_t>(nbb);
	qp->sq_wqe_head[slot] = qp->sq_head;
	qp->sq_head++;
	qp->sq_pi += nbb;
	return 0;
}

int sq_build_wqe(Qp *qp, const struct ibv_send_wr *wr)
{
	struct softhca_send_wr s;
	struct softhca_wqe_av av;
	int err = to_send_wr(qp, wr, &s, &av);

	return err ? err : sq_post(qp, &s, wr->wr_id);
}

int post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
	      struct ibv_send_wr **bad_wr)
{
	Qp *qp = to_qp(ibqp);
	int err = 0, n = 0;

	qp->sq_lock.lock();
	if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT ||
	    qp->state == IBV_QPS_RTR) {
		err = EINVAL;
		*bad_wr = wr;
	}
	for (; wr && !err; wr = wr->next, n++) {
		err = sq_build_wqe(qp, wr);
		if (err)
			*bad_wr = wr;
	}
	if (n)
		ring_sq(qp);
	qp->sq_lock.unlock();
	return err;
}

int rq_post_one(Qp *qp, const struct ibv_recv_wr *wr)
{
	uint32_t tail = __atomic_load_n(&qp->rq_tail, __ATOMIC_ACQUIRE);
	struct softhca_wqe_sge sg[SOFTHCA_WQEBB_SIZE / SOFTHCA_WQE_DS_SIZE];

	if (!qp->rq_wqe_cnt || wr->num_sge < 0 ||
	    static_cast<uint32_t>(wr->num_sge) > qp->max_recv_sge)
		return EINVAL;
	if (qp->rq_pi - tail >= qp->max_recv_wr)
		return ENOMEM;

	uint32_t slot = qp->rq_pi & (qp->rq_wqe_cnt - 1);
	void *wqe = qp->rq + static_cast<size_t>(slot) * qp->rq_stride;
	uint32_t done = 0;

	/* the encoder takes CPU-order entries: convert a few at a time */
	do {
		uint32_t n = std::min<uint32_t>(
			static_cast<uint32_t>(wr->num_sge) - done,
			sizeof(sg) / sizeof(sg[0]));

		for (uint32_t i = 0; i < n; i++) {
			sg[i].addr = wr->sg_list[done + i].addr;
			sg[i].length = wr->sg_list[done + i].length;
			sg[i].lkey = wr->sg_list[done + i].lkey;
		}
		/* the terminator goes after the last batch */
		if (softhca_rwqe_write(
			    static_cast<uint8_t *>(wqe) +
				    static_cast<size_t>(done) *
					    SOFTHCA_WQE_DS_SIZE,
			    qp->rq_stride - done * SOFTHCA_WQE_DS_SIZE, sg, n))
			return EINVAL;
		done += n;
	} while (done < static_cast<uint32_t>(wr->num_sge));
	qp->rq_wrid[slot] = wr->wr_id;
	qp->rq_pi++;
	return 0;
}

int post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
	      struct ibv_recv_wr **bad_wr)
{
	Qp *qp = to_qp(ibqp);
	int err = 0, n = 0;

	qp->rq_lock.lock();
	if (qp->state == IBV_QPS_RESET || qp->srq) {
		err = EINVAL;
		*bad_wr = wr;
	}
	for (; wr && !err; wr = wr->next, n++) {
		err = rq_post_one(qp, wr);
		if (err)
			*bad_wr = wr;
	}
	if (n) {
		to_device_barrier();
		store_le32(&qp->db->rq_pi, qp->rq_pi);
		/*
		 * A QP in error completes new receives with flush errors, which
		 * takes the engine; otherwise receives wait for a sender.
		 */
		if (qp->state == IBV_QPS_ERR) {
			full_barrier();
			if (load_le32(qp->ctx->uar +
				      SOFTHCA_UAR_ENGINE_STATE) ==
			    SOFTHCA_ENGINE_IDLE)
				wake(qp);
		}
	}
	qp->rq_lock.unlock();
	return err;
}

namespace {

uint8_t hw_qp_type(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SOFTHCA_QPT_RC;
	case IBV_QPT_UC:
		return SOFTHCA_QPT_UC;
	case IBV_QPT_UD:
		return SOFTHCA_QPT_UD;
	default:
		return 0xff;
	}
}

/*
 * The comp_mask bits create_qp_ex takes: the PD is required, the send ops
 * select the ibv_qp_ex API; create flags only when none is set.
 */
constexpr uint64_t kQpInitAttrSupported = IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS;

struct ibv_qp *create_qp_common(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr)
{
	Context *ctx = to_ctx(context);
	WriteCmd<ib_uverbs_create_qp, softhca_create_qp_req> cmd = {};
	WriteResp<ib_uverbs_create_qp_resp, softhca_create_qp_resp> resp = {};
	uint8_t type = hw_qp_type(attr->qp_type);
	QpGeometry g = {};
	size_t rq_bytes;
	int err;

	static_assert(offsetof(decltype(cmd), drv) ==
			      sizeof(ib_uverbs_cmd_hdr) +
				      sizeof(ib_uverbs_create_qp),
		      "the driver's request follows the core one");
	static_assert(offsetof(decltype(resp), drv) ==
			      sizeof(ib_uverbs_create_qp_resp),
		      "the driver's response follows the core one");

	if (type == 0xff) {
		softhca_dbg(ctx, "create_qp: type %d unsupported",
			    attr->qp_type);
		errno = EOPNOTSUPP;
		return nullptr;
	}
	if (attr->comp_mask & ~kQpInitAttrSupported ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	     attr->create_flags)) {
		softhca_dbg(ctx, "create_qp: comp_mask 0x%x unsupported",
			    attr->comp_mask);
		errno = EOPNOTSUPP;
		return nullptr;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return nullptr;
	}
	err = qp_geometry(type, attr->srq != nullptr, attr->cap, ctx->max_qp_wr,
			  ctx->max_sge, ctx->max_inline_data, &g);
	if (err) {
		softhca_dbg(ctx, "create_qp: caps out of range");
		errno = err;
		return nullptr;
	}

	auto *qp = new (std::nothrow) Qp{};
	if (!qp) {
		errno = ENOMEM;
		return nullptr;
	}
	qp->ctx = ctx;
	qp->sig_all = attr->sq_sig_all;
	qp->state = IBV_QPS_RESET;
	qp->sq_caps.qp_type = type;
	qp->srq = attr->srq ? to_srq(attr->srq) : nullptr;
	err = qp_alloc_queues(qp, g);
	if (!err && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		err = qp_ex_setup(qp, attr);
	if (err) {
		softhca_dbg(
			ctx, "create_qp: send ops 0x%llx (%d)",
			static_cast<unsigned long long>(attr->send_ops_flags),
			err);
		goto err_free;
	}

	rq_bytes = static_cast<size_t>(g.rq_wqe_cnt) * g.rq_stride;
	err = qp->buf.alloc(rq_bytes + static_cast<size_t>(g.sq_wqe_cnt) *
					       SOFTHCA_WQEBB_SIZE,
			    ctx->page_size);
	if (!err)
		err = qp->db.alloc(ctx->dbrecs);
	if (err)
		goto err_free;
	qp->rq = qp->buf.data();
	qp->sq.buf = qp->buf.data() + rq_bytes;

	cmd.drv.buf_addr = reinterpret_cast<uintptr_t>(qp->buf.data());
	cmd.drv.db_addr = reinterpret_cast<uintptr_t>(qp->db.get());
	cmd.drv.max_send_wr = g.max_send_wr;
	cmd.drv.max_recv_wr = g.max_recv_wr;
	cmd.drv.max_send_sge = g.max_send_sge;
	cmd.drv.max_recv_sge = g.max_recv_sge;
	cmd.drv.max_inline_data = g.max_inline_data;
	cmd.drv.log_sq_size = static_cast<uint8_t>(log2_of_pow2(g.sq_wqe_cnt));
	if (!attr->srq) {
		cmd.drv.log_rq_size =
			static_cast<uint8_t>(log2_of_pow2(g.rq_wqe_cnt));
		cmd.drv.log_rq_stride =
			static_cast<uint8_t>(log2_of_pow2(g.rq_stride));
	}
	{
		/* the kernel's own copy of the caps: what this QP holds */
		struct ibv_qp_init_attr_ex kattr = *attr;

		kattr.comp_mask &=
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		kattr.cap.max_send_wr = g.max_send_wr;
		kattr.cap.max_recv_wr = g.max_recv_wr;
		kattr.cap.max_send_sge = g.max_send_sge;
		kattr.cap.max_recv_sge = g.max_recv_sge;
		kattr.cap.max_inline_data = g.max_inline_data;
		err = ibv_cmd_create_qp_ex(
			context, &qp->vqp, &kattr,
			reinterpret_cast<struct ibv_create_qp *>(&cmd),
			sizeof(cmd),
			reinterpret_cast<ib_uverbs_create_qp_resp *>(&resp),
			sizeof(resp));
	}
	if (err) {
		softhca_dbg(ctx, "create_qp: the kernel refused (%d)", err);
		goto err_free;
	}
	qp->qpn = resp.drv.qpn;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= VERBS_QP_EX;
	prepare_wake(qp);

	pthread_mutex_lock(&ctx->mu);
	err = ctx->qps.insert(qp->qpn, qp);
	pthread_mutex_unlock(&ctx->mu);
	if (err) {
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		goto err_free;
	}
	attr->cap.max_send_wr = g.max_send_wr;
	attr->cap.max_recv_wr = g.max_recv_wr;
	attr->cap.max_send_sge = g.max_send_sge;
	attr->cap.max_recv_sge = g.max_recv_sge;
	attr->cap.max_inline_data = g.max_inline_data;
	return &qp->vqp.qp;

err_free:
	delete qp; /* its members free the buffers */
	errno = err;
	return nullptr;
}

} // namespace

struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {};

	ex.qp_context = attr->qp_context;
	ex.send_cq = attr->send_cq;
	ex.recv_cq = attr->recv_cq;
	ex.srq = attr->srq;
	ex.cap = attr->cap;
	ex.qp_type = attr->qp_type;
	ex.sq_sig_all = attr->sq_sig_all;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	struct ibv_qp *qp = create_qp_common(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_qp *create_qp_ex(struct ibv_context *context,
			    struct ibv_qp_init_attr_ex *attr)
{
	return create_qp_common(context, attr);
}

int modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	Qp *qp = to_qp(ibqp);
	WriteCmd<ib_uverbs_modify_qp, void> cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, mask,
				reinterpret_cast<struct ibv_modify_qp *>(&cmd),
				sizeof(cmd));
	if (err)
		return err;
	if (mask & IBV_QP_STATE) {
		qp->sq_lock.lock();
		qp->rq_lock.lock();
		qp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET)
			reset_queues(qp);
		qp->rq_lock.unlock();
		qp->sq_lock.unlock();
		if (attr->qp_state == IBV_QPS_RESET)
			clean_cqs(qp);
	}
	return 0;
}

int query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
	     struct ibv_qp_init_attr *init)
{
	WriteCmd<ib_uverbs_query_qp, void> cmd = {};
	int err;

	err = ibv_cmd_query_qp(ibqp, attr, mask, init,
			       reinterpret_cast<struct ibv_query_qp *>(&cmd),
			       sizeof(cmd));
	if (!err)
		to_qp(ibqp)->state = attr->qp_state;
	return err;
}

int destroy_qp(struct ibv_qp *ibqp)
{
	Qp *qp = to_qp(ibqp);
	int err = ibv_cmd_destroy_qp(ibqp);

	if (err)
		return err;
	clean_cqs(qp);
	pthread_mutex_lock(&qp->ctx->mu);
	qp->ctx->qps.remove(qp->qpn);
	pthread_mutex_unlock(&qp->ctx->mu);
	delete qp;
	return 0;
}

} // namespace softhca

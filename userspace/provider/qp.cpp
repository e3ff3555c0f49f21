// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: queue pairs and the data path. One page-aligned buffer
 * holds the RQ and then the SQ. Posting builds WQEs in place, publishes the
 * new producer count in the doorbell record (after a release barrier),
 * writes the UAR's SQ doorbell, and makes a system call only when the card
 * says its engine is idle: the engine polls doorbell records while it is
 * busy, so a busy device takes posts without any system call.
 */
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <unistd.h>

#include "mmio.h"
#include "ring.h"
#include "softhca.h"

namespace softhca {

int qp_geometry(const struct ibv_qp_cap &want, uint32_t dev_max_wr,
		uint32_t dev_max_sge, uint32_t dev_max_inline, QpGeometry *g)
{
	uint32_t send_wr = std::max(want.max_send_wr, 1u);
	uint32_t recv_wr = std::max(want.max_recv_wr, 1u);
	uint32_t send_sge = std::max(want.max_send_sge, 1u);
	uint32_t recv_sge = std::max(want.max_recv_sge, 1u);

	if (send_wr > dev_max_wr || recv_wr > dev_max_wr ||
	    send_sge > dev_max_sge || recv_sge > dev_max_sge ||
	    want.max_inline_data > dev_max_inline)
		return EINVAL;
	g->wqe_bbs = softhca_wqe_bbs(
		softhca_sq_max_ds(send_sge, want.max_inline_data));
	if (g->wqe_bbs > SOFTHCA_MAX_WQEBBS)
		return EINVAL;
	/* report all that fits in the WQE size (an RDMA WRITE's worst case) */
	uint32_t units =
		g->wqe_bbs * (SOFTHCA_WQEBB_SIZE / SOFTHCA_WQE_DS_SIZE);
	g->max_send_sge = std::min(units - 2, dev_max_sge);
	uint32_t inline_room =
		(units - 2) * SOFTHCA_WQE_DS_SIZE -
		static_cast<uint32_t>(sizeof(struct softhca_wqe_inline));
	g->max_inline_data = std::min(inline_room, dev_max_inline);
	g->sq_wqe_cnt = align_queue_size(send_wr * g->wqe_bbs);
	if (!g->sq_wqe_cnt)
		return EINVAL;
	g->max_send_wr = std::min(g->sq_wqe_cnt / g->wqe_bbs, dev_max_wr);

	g->rq_wqe_cnt = align_queue_size(recv_wr);
	g->rq_stride = align_queue_size(recv_sge * SOFTHCA_WQE_DS_SIZE);
	g->max_recv_wr = std::min(g->rq_wqe_cnt, dev_max_wr);
	g->max_recv_sge =
		std::min(g->rq_stride / SOFTHCA_WQE_DS_SIZE, dev_max_sge);
	return 0;
}

namespace {

void free_qp_memory(Qp *qp)
{
	delete[] qp->sq_wrid;
	delete[] qp->sq_wqe_head;
	delete[] qp->sq_nbb;
	delete[] qp->rq_wrid;
	if (qp->db)
		qp->ctx->dbrecs->free(qp->db);
	if (qp->buf) {
		ibv_dofork_range(qp->buf, qp->buf_size);
		free(qp->buf);
	}
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	delete qp;
}

/* Back to the state of a new QP (after a move to RESET). */
void reset_queues(Qp *qp)
{
	qp->sq_pi = qp->sq_head = qp->sq_tail = qp->sq_tail_bb = 0;
	qp->rq_pi = qp->rq_tail = 0;
	store_le32(&qp->db->sq_pi, 0);
	store_le32(&qp->db->rq_pi, 0);
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

uint8_t *sq_unit(Qp *qp, uint32_t bb, uint32_t unit)
{
	uint32_t bytes = qp->sq_wqe_cnt * SOFTHCA_WQEBB_SIZE;
	uint32_t off = (bb * SOFTHCA_WQEBB_SIZE + unit * SOFTHCA_WQE_DS_SIZE) &
		       (bytes - 1);

	return qp->sq + off;
}

/* Copy @len bytes into the WQE at @bb starting @byte bytes in (wraps). */
void sq_copy(Qp *qp, uint32_t bb, uint32_t byte, const void *src, size_t len)
{
	uint32_t bytes = qp->sq_wqe_cnt * SOFTHCA_WQEBB_SIZE;
	auto *s = static_cast<const uint8_t *>(src);

	while (len) {
		uint32_t off = (bb * SOFTHCA_WQEBB_SIZE + byte) & (bytes - 1);
		size_t n = std::min<size_t>(len, bytes - off);

		memcpy(qp->sq + off, s, n);
		s += n;
		byte += static_cast<uint32_t>(n);
		len -= n;
	}
}

bool opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return true;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return type == IBV_QPT_RC;
	default:
		return false;
	}
}

uint8_t wqe_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND_WITH_IMM:
		return SOFTHCA_WQE_SEND_IMM;
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
		return SOFTHCA_WQE_SEND;
	}
}

} // namespace

int sq_build_wqe(Qp *qp, const struct ibv_send_wr *wr)
{
	enum ibv_qp_type type = qp->vqp.qp.qp_type;
	uint8_t op = wqe_opcode(wr->opcode);
	bool has_raddr = op >= SOFTHCA_WQE_RDMA_WRITE;
	bool atomic = op >= SOFTHCA_WQE_ATOMIC_CS;
	bool inl = (wr->send_flags & IBV_SEND_INLINE) &&
		   op != SOFTHCA_WQE_RDMA_READ && !atomic;
	uint32_t fixed = 1 + has_raddr + atomic;
	uint64_t inline_len = 0;
	uint32_t ds;

	if (!opcode_ok(type, wr->opcode) || wr->num_sge < 0 ||
	    static_cast<uint32_t>(wr->num_sge) > qp->max_send_sge)
		return EINVAL;
	if (atomic && (wr->num_sge != 1 || wr->sg_list[0].length != 8))
		return EINVAL;
	if (inl) {
		for (int i = 0; i < wr->num_sge; i++)
			inline_len += wr->sg_list[i].length;
		if (inline_len > qp->max_inline_data)
			return EINVAL;
		ds = fixed +
		     softhca_inline_ds(static_cast<uint32_t>(inline_len));
	} else {
		ds = fixed + static_cast<uint32_t>(wr->num_sge);
	}
	uint32_t nbb = softhca_wqe_bbs(ds);
	uint32_t tail = __atomic_load_n(&qp->sq_tail, __ATOMIC_ACQUIRE);
	uint32_t tail_bb = __atomic_load_n(&qp->sq_tail_bb, __ATOMIC_RELAXED);

	if (qp->sq_head - tail >= qp->max_send_wr ||
	    qp->sq_pi + nbb - tail_bb > qp->sq_wqe_cnt)
		return ENOMEM;

	uint32_t bb = qp->sq_pi;
	struct softhca_wqe_ctrl ctrl = {};

	ctrl.wqe_index = htole16(static_cast<uint16_t>(bb));
	ctrl.opcode = op;
	ctrl.ds = static_cast<uint8_t>(ds);
	ctrl.flags =
		(wr->send_flags & IBV_SEND_SIGNALED ? SOFTHCA_WQE_F_SIGNALED
						    : 0) |
		(wr->send_flags & IBV_SEND_SOLICITED ? SOFTHCA_WQE_F_SOLICITED
						     : 0) |
		(wr->send_flags & IBV_SEND_FENCE ? SOFTHCA_WQE_F_FENCE : 0) |
		(inl ? SOFTHCA_WQE_F_INLINE : 0);
	ctrl.imm = wr->imm_data;
	memcpy(sq_unit(qp, bb, 0), &ctrl, sizeof(ctrl));

	uint32_t unit = 1;
	if (has_raddr) {
		struct softhca_wqe_raddr ra = {};

		if (atomic) {
			ra.addr = htole64(wr->wr.atomic.remote_addr);
			ra.rkey = htole32(wr->wr.atomic.rkey);
		} else {
			ra.addr = htole64(wr->wr.rdma.remote_addr);
			ra.rkey = htole32(wr->wr.rdma.rkey);
		}
		memcpy(sq_unit(qp, bb, unit++), &ra, sizeof(ra));
	}
	if (atomic) {
		struct softhca_wqe_atomic at = {};

		at.swap_add = htole64(wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP
					      ? wr->wr.atomic.swap
					      : wr->wr.atomic.compare_add);
		at.compare = htole64(wr->wr.atomic.compare_add);
		memcpy(sq_unit(qp, bb, unit++), &at, sizeof(at));
	}
	if (inl) {
		struct softhca_wqe_inline ih = {};
		uint32_t byte = unit * SOFTHCA_WQE_DS_SIZE;

		ih.byte_count = htole32(static_cast<uint32_t>(inline_len));
		sq_copy(qp, bb, byte, &ih, sizeof(ih));
		byte += sizeof(ih);
		for (int i = 0; i < wr->num_sge; i++) {
			/* inline: copy from the application's address */
			const void *data =
				reinterpret_cast<const void *>( // NOLINT
					wr->sg_list[i].addr);

			sq_copy(qp, bb, byte, data, wr->sg_list[i].length);
			byte += wr->sg_list[i].length;
		}
	} else {
		for (int i = 0; i < wr->num_sge; i++) {
			struct softhca_wqe_data d = {};

			d.byte_count = htole32(wr->sg_list[i].length);
			d.lkey = htole32(wr->sg_list[i].lkey);
			d.addr = htole64(wr->sg_list[i].addr);
			memcpy(sq_unit(qp, bb, unit++), &d, sizeof(d));
		}
	}

	uint32_t slot = bb & (qp->sq_wqe_cnt - 1);
	qp->sq_wrid[slot] = wr->wr_id;
	qp->sq_nbb[slot] = static_cast<uint8_t>(nbb);
	qp->sq_wqe_head[slot] = qp->sq_head;
	qp->sq_head++;
	qp->sq_pi += nbb;
	return 0;
}

int post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
	      struct ibv_send_wr **bad_wr)
{
	Qp *qp = to_qp(ibqp);
	int err = 0, n = 0;

	pthread_spin_lock(&qp->sq_lock);
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
	pthread_spin_unlock(&qp->sq_lock);
	return err;
}

int post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
	      struct ibv_recv_wr **bad_wr)
{
	Qp *qp = to_qp(ibqp);
	int err = 0, n = 0;

	pthread_spin_lock(&qp->rq_lock);
	if (qp->state == IBV_QPS_RESET) {
		err = EINVAL;
		*bad_wr = wr;
	}
	for (; wr && !err; wr = wr->next, n++) {
		uint32_t tail = __atomic_load_n(&qp->rq_tail, __ATOMIC_ACQUIRE);

		if (wr->num_sge < 0 ||
		    static_cast<uint32_t>(wr->num_sge) > qp->max_recv_sge) {
			err = EINVAL;
		} else if (qp->rq_pi - tail >= qp->max_recv_wr) {
			err = ENOMEM;
		}
		if (err) {
			*bad_wr = wr;
			break;
		}
		size_t off =
			static_cast<size_t>(qp->rq_pi & (qp->rq_wqe_cnt - 1)) *
			qp->rq_stride;
		auto *seg = reinterpret_cast<struct softhca_wqe_data *>(qp->rq +
									off);
		int i;

		for (i = 0; i < wr->num_sge; i++) {
			seg[i].byte_count = htole32(wr->sg_list[i].length);
			seg[i].lkey = htole32(wr->sg_list[i].lkey);
			seg[i].addr = htole64(wr->sg_list[i].addr);
		}
		if (static_cast<uint32_t>(i) <
		    qp->rq_stride / SOFTHCA_WQE_DS_SIZE) {
			seg[i].byte_count = 0;
			seg[i].lkey = htole32(SOFTHCA_INVALID_LKEY);
			seg[i].addr = 0;
		}
		qp->rq_wrid[qp->rq_pi & (qp->rq_wqe_cnt - 1)] = wr->wr_id;
		qp->rq_pi++;
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
	pthread_spin_unlock(&qp->rq_lock);
	return err;
}

struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	Context *ctx = to_ctx(pd->context);
	WriteCmd<ib_uverbs_create_qp, softhca_create_qp_req> cmd = {};
	WriteResp<ib_uverbs_create_qp_resp, softhca_create_qp_resp> resp = {};
	QpGeometry g = {};
	void *buf = nullptr;
	size_t rq_bytes, sq_bytes;
	int err;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC) {
		softhca_dbg(ctx, "create_qp: type %d unsupported",
			    attr->qp_type);
		errno = EOPNOTSUPP;
		return nullptr;
	}
	if (attr->srq) {
		errno = EOPNOTSUPP;
		return nullptr;
	}
	err = qp_geometry(attr->cap, ctx->max_qp_wr, ctx->max_sge,
			  ctx->max_inline_data, &g);
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
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	qp->sq_wqe_cnt = g.sq_wqe_cnt;
	qp->max_send_wr = g.max_send_wr;
	qp->max_send_sge = g.max_send_sge;
	qp->max_inline_data = g.max_inline_data;
	qp->rq_wqe_cnt = g.rq_wqe_cnt;
	qp->rq_stride = g.rq_stride;
	qp->max_recv_wr = g.max_recv_wr;
	qp->max_recv_sge = g.max_recv_sge;
	qp->sig_all = attr->sq_sig_all;
	qp->state = IBV_QPS_RESET;

	rq_bytes = static_cast<size_t>(g.rq_wqe_cnt) * g.rq_stride;
	sq_bytes = static_cast<size_t>(g.sq_wqe_cnt) * SOFTHCA_WQEBB_SIZE;
	qp->buf_size = (rq_bytes + sq_bytes + ctx->page_size - 1) &
		       ~(ctx->page_size - 1);
	err = posix_memalign(&buf, ctx->page_size, qp->buf_size);
	if (err) {
		buf = nullptr;
		goto err_free;
	}
	memset(buf, 0, qp->buf_size);
	err = ibv_dontfork_range(buf, qp->buf_size);
	if (err) {
		free(buf);
		goto err_free;
	}
	qp->buf = static_cast<uint8_t *>(buf);
	qp->rq = qp->buf;
	qp->sq = qp->buf + rq_bytes;
	qp->db = static_cast<struct softhca_qp_dbrec *>(ctx->dbrecs->alloc());
	qp->sq_wrid = new (std::nothrow) uint64_t[g.sq_wqe_cnt]();
	qp->sq_wqe_head = new (std::nothrow) uint32_t[g.sq_wqe_cnt]();
	qp->sq_nbb = new (std::nothrow) uint8_t[g.sq_wqe_cnt]();
	qp->rq_wrid = new (std::nothrow) uint64_t[g.rq_wqe_cnt]();
	if (!qp->db || !qp->sq_wrid || !qp->sq_wqe_head || !qp->sq_nbb ||
	    !qp->rq_wrid) {
		err = ENOMEM;
		goto err_free;
	}

	cmd.drv.buf_addr = reinterpret_cast<uintptr_t>(qp->buf);
	cmd.drv.db_addr = reinterpret_cast<uintptr_t>(qp->db);
	cmd.drv.max_send_wr = g.max_send_wr;
	cmd.drv.max_recv_wr = g.max_recv_wr;
	cmd.drv.max_send_sge = g.max_send_sge;
	cmd.drv.max_recv_sge = g.max_recv_sge;
	cmd.drv.max_inline_data = g.max_inline_data;
	cmd.drv.log_sq_size = static_cast<uint8_t>(log2_of_pow2(g.sq_wqe_cnt));
	cmd.drv.log_rq_size = static_cast<uint8_t>(log2_of_pow2(g.rq_wqe_cnt));
	cmd.drv.log_rq_stride = static_cast<uint8_t>(log2_of_pow2(g.rq_stride));
	err = ibv_cmd_create_qp(
		pd, &qp->vqp.qp, attr,
		reinterpret_cast<struct ibv_create_qp *>(&cmd), sizeof(cmd),
		reinterpret_cast<ib_uverbs_create_qp_resp *>(&resp),
		sizeof(resp));
	if (err) {
		softhca_dbg(ctx, "create_qp: the kernel refused (%d)", err);
		goto err_free;
	}
	qp->qpn = resp.drv.qpn;
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
	free_qp_memory(qp);
	errno = err;
	return nullptr;
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
		pthread_spin_lock(&qp->sq_lock);
		pthread_spin_lock(&qp->rq_lock);
		qp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET)
			reset_queues(qp);
		pthread_spin_unlock(&qp->rq_lock);
		pthread_spin_unlock(&qp->sq_lock);
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
	pthread_mutex_lock(&qp->ctx->mu);
	qp->ctx->qps.remove(qp->qpn);
	pthread_mutex_unlock(&qp->ctx->mu);
	free_qp_memory(qp);
	return 0;
}

} // namespace softhca

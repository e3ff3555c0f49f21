// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: the ibv_qp_ex posting API (ibv_wr_*). wr_start takes
 * the SQ lock and notes the SQ's counters; a builder (wr_send, wr_rdma_write,
 * ...) opens a WR with the QP's wr_id and wr_flags; its setters give it
 * data (an SGE list, or inline bytes copied at once) and, on UD, an
 * address; as soon as it has what it needs, the shared encoder writes it at
 * the producer index like post_send would. wr_complete rings the doorbell
 * once for everything written, or, if anything failed, puts the counters
 * back (nothing was published, so the card never saw those WQEs) and
 * returns the first error; wr_abort does the same without an error.
 */
#include <cerrno>
#include <cstring>

#include "softhca.h"

namespace softhca {
namespace {

void ex_fail(Qp *qp, int err)
{
	if (!qp->ex.err)
		qp->ex.err = err;
}

/* Write the open WR once it has its data and (UD) its address. */
void ex_try_write(Qp *qp)
{
	ExPost &ex = qp->ex;

	if (!ex.open || !ex.has_data || !ex.has_av)
		return;
	ex.open = false;
	if (ex.err)
		return;
	int err = sq_post(qp, &ex.wr, ex.wr_id);
	if (err)
		ex_fail(qp, err);
	else
		ex.nreq++;
}

/* A builder: open a WR of @opcode. */
struct softhca_send_wr *ex_open(struct ibv_qp_ex *ibqp, uint8_t opcode)
{
	Qp *qp = to_qp(ibqp);
	ExPost &ex = qp->ex;

	/* the WR before this one never got its setters */
	if (ex.open)
		ex_fail(qp, EINVAL);
	memset(&ex.wr, 0, sizeof(ex.wr));
	ex.wr.opcode = opcode;
	ex.wr.flags = wqe_flags(ibqp->wr_flags & ~IBV_SEND_INLINE);
	ex.wr_id = ibqp->wr_id;
	ex.open = true;
	ex.has_data = false;
	ex.has_av = !softhca_wqe_is_ud(&qp->sq_caps);
	if (!ex.has_av)
		ex.wr.av = &ex.av;
	return &ex.wr;
}

void wr_send(struct ibv_qp_ex *ibqp)
{
	ex_open(ibqp, SOFTHCA_WQE_SEND);
}

void wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm)
{
	ex_open(ibqp, SOFTHCA_WQE_SEND_IMM)->imm = imm;
}

void wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	ex_open(ibqp, SOFTHCA_WQE_SEND_INV)->inv_key = rkey;
}

void wr_rdma(struct ibv_qp_ex *ibqp, uint8_t opcode, uint32_t rkey,
	     uint64_t remote_addr, __be32 imm)
{
	struct softhca_send_wr *wr = ex_open(ibqp, opcode);

	wr->rkey = rkey;
	wr->remote_addr = remote_addr;
	wr->imm = imm;
}

void wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr)
{
	wr_rdma(ibqp, SOFTHCA_WQE_RDMA_WRITE, rkey, addr, 0);
}

void wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
		       __be32 imm)
{
	wr_rdma(ibqp, SOFTHCA_WQE_RDMA_WRITE_IMM, rkey, addr, imm);
}

void wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr)
{
	wr_rdma(ibqp, SOFTHCA_WQE_RDMA_READ, rkey, addr, 0);
}

void wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
		       uint64_t compare, uint64_t swap)
{
	struct softhca_send_wr *wr = ex_open(ibqp, SOFTHCA_WQE_ATOMIC_CS);

	wr->rkey = rkey;
	wr->remote_addr = addr;
	wr->compare = compare;
	wr->swap_add = swap;
}

void wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
			 uint64_t add)
{
	struct softhca_send_wr *wr = ex_open(ibqp, SOFTHCA_WQE_ATOMIC_FA);

	wr->rkey = rkey;
	wr->remote_addr = addr;
	wr->swap_add = add;
}

/* Operations a user QP of softhca cannot post. */
void wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *, uint32_t,
		const struct ibv_mw_bind_info *)
{
	ex_fail(to_qp(ibqp), EOPNOTSUPP);
}

void wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t)
{
	ex_fail(to_qp(ibqp), EOPNOTSUPP);
}

void wr_send_tso(struct ibv_qp_ex *ibqp, void *, uint16_t, uint16_t)
{
	ex_fail(to_qp(ibqp), EOPNOTSUPP);
}

void wr_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t)
{
	ex_fail(to_qp(ibqp), EOPNOTSUPP);
}

void wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t, uint64_t, const void *)
{
	ex_fail(to_qp(ibqp), EOPNOTSUPP);
}

/* A setter's WR: the open one, or null (and an error) if there is none. */
ExPost *ex_setter(struct ibv_qp_ex *ibqp)
{
	Qp *qp = to_qp(ibqp);

	if (!qp->ex.open) {
		ex_fail(qp, EINVAL);
		return nullptr;
	}
	return &qp->ex;
}

void wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
		    uint32_t remote_qpn, uint32_t remote_qkey)
{
	Qp *qp = to_qp(ibqp);
	ExPost *ex = ex_setter(ibqp);

	if (!ex)
		return;
	if (!softhca_wqe_is_ud(&qp->sq_caps) || !ah || ex->has_av) {
		ex_fail(qp, EINVAL);
		return;
	}
	ex->av = to_ah(ah)->av;
	ex->av.dest_qpn = htole32(remote_qpn);
	ex->av.qkey = htole32(remote_qkey);
	ex->has_av = true;
	ex_try_write(qp);
}

void wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
		     const struct ibv_sge *sg_list)
{
	Qp *qp = to_qp(ibqp);
	ExPost *ex = ex_setter(ibqp);

	if (!ex)
		return;
	if (ex->has_data || num_sge > qp->max_send_sge) {
		ex_fail(qp, EINVAL);
		ex->has_data = true;
		ex_try_write(qp);
		return;
	}
	for (size_t i = 0; i < num_sge; i++) {
		qp->sq_sge[i].addr = sg_list[i].addr;
		qp->sq_sge[i].length = sg_list[i].length;
		qp->sq_sge[i].lkey = sg_list[i].lkey;
	}
	ex->wr.sg = qp->sq_sge.get();
	ex->wr.num_sge = static_cast<uint32_t>(num_sge);
	ex->has_data = true;
	ex_try_write(qp);
}

void wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey, uint64_t addr,
		uint32_t length)
{
	struct ibv_sge sge = { addr, length, lkey };

	wr_set_sge_list(ibqp, 1, &sge);
}

/* Inline data is copied now: the caller may reuse its buffers at once. */
void wr_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num_buf,
			     const struct ibv_data_buf *buf_list)
{
	Qp *qp = to_qp(ibqp);
	ExPost *ex = ex_setter(ibqp);
	size_t len = 0;

	if (!ex)
		return;
	for (size_t i = 0; i < num_buf && !ex->has_data; i++) {
		if (buf_list[i].length > qp->max_inline_data - len) {
			len = SIZE_MAX;
			break;
		}
		if (buf_list[i].length)
			memcpy(ex->inl.get() + len, buf_list[i].addr,
			       buf_list[i].length);
		len += buf_list[i].length;
	}
	if (ex->has_data || len == SIZE_MAX) {
		ex_fail(qp, EINVAL);
		ex->has_data = true;
		ex_try_write(qp);
		return;
	}
	ex->inl_sge.addr = reinterpret_cast<uintptr_t>(ex->inl.get());
	ex->inl_sge.length = static_cast<uint32_t>(len);
	ex->inl_sge.lkey = 0;
	ex->wr.sg = &ex->inl_sge;
	ex->wr.num_sge = 1;
	ex->wr.flags |= SOFTHCA_WQE_F_INLINE;
	ex->has_data = true;
	ex_try_write(qp);
}

void wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr, size_t length)
{
	struct ibv_data_buf buf = { addr, length };

	wr_set_inline_data_list(ibqp, 1, &buf);
}

void wr_start(struct ibv_qp_ex *ibqp)
{
	Qp *qp = to_qp(ibqp);

	qp->sq_lock.lock();
	qp->ex.err = 0;
	qp->ex.nreq = 0;
	qp->ex.open = false;
	qp->ex.pi_rb = qp->sq_pi;
	qp->ex.head_rb = qp->sq_head;
	/* a QP that cannot send takes nothing (post_send says EINVAL too) */
	if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT ||
	    qp->state == IBV_QPS_RTR)
		ex_fail(qp, EINVAL);
}

/* Forget every WQE written since wr_start: none was published. */
void ex_rollback(Qp *qp)
{
	qp->sq_pi = qp->ex.pi_rb;
	qp->sq_head = qp->ex.head_rb;
	qp->ex.open = false;
	qp->ex.nreq = 0;
}

int wr_complete(struct ibv_qp_ex *ibqp)
{
	Qp *qp = to_qp(ibqp);
	int err;

	/* the last WR never got its setters */
	if (qp->ex.open)
		ex_fail(qp, EINVAL);
	err = qp->ex.err;
	if (err)
		ex_rollback(qp);
	else if (qp->ex.nreq)
		ring_sq(qp);
	qp->sq_lock.unlock();
	return err;
}

void wr_abort(struct ibv_qp_ex *ibqp)
{
	Qp *qp = to_qp(ibqp);

	ex_rollback(qp);
	qp->sq_lock.unlock();
}

/* The send_ops_flags a QP of each type can post. */
uint64_t supported_send_ops(uint8_t qp_type)
{
	const uint64_t send =
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	const uint64_t write =
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;

	switch (qp_type) {
	case SOFTHCA_QPT_RC:
		return send | write | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_SEND_WITH_INV;
	case SOFTHCA_QPT_UC:
		return send | write;
	case SOFTHCA_QPT_UD:
		return send;
	default:
		return 0;
	}
}

} // namespace

int qp_ex_setup(Qp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	if (attr->send_ops_flags & ~supported_send_ops(qp->sq_caps.qp_type))
		return EOPNOTSUPP;
	x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	x->wr_bind_mw = wr_bind_mw;
	x->wr_local_inv = wr_local_inv;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_send_inv = wr_send_inv;
	x->wr_send_tso = wr_send_tso;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	x->wr_atomic_write = wr_atomic_write;
	return 0;
}

} // namespace softhca

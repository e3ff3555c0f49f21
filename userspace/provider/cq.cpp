// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: completion queues. The CQ is a page-aligned ring of
 * 64-byte CQEs the card writes, plus a doorbell record holding the
 * consumer index and the arm word. Polling reads CQEs by owner bit and
 * publishes the consumer index in the record; arming writes the arm word
 * and the UAR's CQ doorbell; an event advances the arm sequence number.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "mmio.h"
#include "ring.h"
#include "softhca.h"

namespace softhca {
namespace {

enum ibv_wc_status wc_status(uint8_t st)
{
	switch (st) {
	case SOFTHCA_CQE_ST_SUCCESS:
		return IBV_WC_SUCCESS;
	case SOFTHCA_CQE_ST_LOC_LEN:
		return IBV_WC_LOC_LEN_ERR;
	case SOFTHCA_CQE_ST_LOC_QP_OP:
		return IBV_WC_LOC_QP_OP_ERR;
	case SOFTHCA_CQE_ST_LOC_PROT:
		return IBV_WC_LOC_PROT_ERR;
	case SOFTHCA_CQE_ST_WR_FLUSH:
		return IBV_WC_WR_FLUSH_ERR;
	case SOFTHCA_CQE_ST_MW_BIND:
		return IBV_WC_MW_BIND_ERR;
	case SOFTHCA_CQE_ST_BAD_RESP:
		return IBV_WC_BAD_RESP_ERR;
	case SOFTHCA_CQE_ST_LOC_ACCESS:
		return IBV_WC_LOC_ACCESS_ERR;
	case SOFTHCA_CQE_ST_REM_INV_REQ:
		return IBV_WC_REM_INV_REQ_ERR;
	case SOFTHCA_CQE_ST_REM_ACCESS:
		return IBV_WC_REM_ACCESS_ERR;
	case SOFTHCA_CQE_ST_REM_OP:
		return IBV_WC_REM_OP_ERR;
	case SOFTHCA_CQE_ST_RETRY_EXC:
		return IBV_WC_RETRY_EXC_ERR;
	case SOFTHCA_CQE_ST_RNR_RETRY_EXC:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case SOFTHCA_CQE_ST_REM_ABORT:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

enum ibv_wc_opcode wc_opcode(uint8_t op)
{
	switch (op) {
	case SOFTHCA_CQE_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case SOFTHCA_CQE_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case SOFTHCA_CQE_OP_CMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case SOFTHCA_CQE_OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case SOFTHCA_CQE_OP_RECV:
		return IBV_WC_RECV;
	case SOFTHCA_CQE_OP_RECV_RDMA_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_WC_SEND;
	}
}

} // namespace

void cqe_to_wc(const struct softhca_cqe *cqe, const QpTable &qps,
	       struct ibv_wc *wc)
{
	uint32_t qpn = le32toh(cqe->qpn);
	uint32_t idx = le32toh(cqe->wqe_counter);
	Qp *qp = qps.find(qpn);

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn;
	wc->status = wc_status(cqe->status);
	wc->vendor_err = le32toh(cqe->vendor_err);
	wc->opcode = wc_opcode(cqe->opcode);
	if (!qp) {
		wc->status = IBV_WC_GENERAL_ERR;
		return;
	}
	/* the card moves a QP to error with its first error completion */
	if (wc->status != IBV_WC_SUCCESS)
		__atomic_store_n(&qp->state, IBV_QPS_ERR, __ATOMIC_RELAXED);
	if (cqe->opcode & SOFTHCA_CQE_OP_RECV) {
		wc->wr_id = qp->rq_wrid[idx & (qp->rq_wqe_cnt - 1)];
		__atomic_store_n(&qp->rq_tail, idx + 1, __ATOMIC_RELEASE);
	} else {
		uint32_t slot = idx & (qp->sq_wqe_cnt - 1);

		wc->wr_id = qp->sq_wrid[slot];
		/* this WQE and every unsignaled one before it are done */
		if (qp->sq_wqe_head) {
			qp->sq_tail_bb = idx + qp->sq_nbb[slot];
			__atomic_store_n(&qp->sq_tail,
					 qp->sq_wqe_head[slot] + 1,
					 __ATOMIC_RELEASE);
		}
	}
	wc->byte_len = le32toh(cqe->byte_cnt);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->pkey_index = le16toh(cqe->pkey_index);
	if (cqe->flags & SOFTHCA_CQE_F_IMM) {
		wc->imm_data = cqe->imm;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	}
	if (cqe->flags & SOFTHCA_CQE_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
}

int cq_poll(Cq *cq, const QpTable &qps, int ne, struct ibv_wc *wc)
{
	uint32_t mask = (1u << cq->log_size) - 1;
	int n = 0;

	while (n < ne) {
		const struct softhca_cqe *cqe = &cq->ring[cq->ci & mask];

		if (!cqe_is_new(load_u8(&cqe->op_own), cq->ci, cq->log_size))
			break;
		from_device_barrier();
		cqe_to_wc(cqe, qps, &wc[n++]);
		cq->ci++;
	}
	if (n) {
		/* the CQEs are read before the card may overwrite them */
		to_device_barrier();
		store_le32(&cq->db->ci, cq->ci & SOFTHCA_CQ_ARM_CI_MASK);
	}
	return n;
}

void cq_arm(Cq *cq, bool solicited)
{
	uint32_t arm = softhca_cq_arm(cq->arm_sn, solicited,
				      cq->ci & SOFTHCA_CQ_ARM_CI_MASK);

	store_le32(&cq->db->arm, arm);
	/* the record first, then the doorbell */
	to_device_barrier();
	if (cq->ctx && cq->ctx->uar)
		store_le64(cq->ctx->uar + SOFTHCA_UAR_CQ_DB,
			   softhca_cq_db(arm, cq->cqn));
}

int poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	Cq *cq = to_cq(ibcq);
	int n;

	pthread_spin_lock(&cq->lock);
	n = cq_poll(cq, cq->ctx->qps, ne, wc);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	Cq *cq = to_cq(ibcq);

	pthread_spin_lock(&cq->lock);
	cq_arm(cq, solicited_only != 0);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

void cq_event(struct ibv_cq *ibcq)
{
	to_cq(ibcq)->arm_sn++;
}

struct ibv_cq *create_cq(struct ibv_context *context, int cqe,
			 struct ibv_comp_channel *channel, int comp_vector)
{
	Context *ctx = to_ctx(context);
	WriteCmd<ib_uverbs_create_cq, softhca_create_cq_req> cmd = {};
	WriteResp<ib_uverbs_create_cq_resp, softhca_create_cq_resp> resp = {};
	uint32_t nent =
		cqe > 0 ? cq_entries_for(static_cast<uint32_t>(cqe)) : 0;
	void *buf = nullptr;
	int err;

	if (!nent) {
		softhca_dbg(ctx, "create_cq: %d CQEs", cqe);
		errno = EINVAL;
		return nullptr;
	}
	auto *cq = new (std::nothrow) Cq{};
	if (!cq) {
		errno = ENOMEM;
		return nullptr;
	}
	cq->ctx = ctx;
	cq->log_size = log2_of_pow2(nent);
	cq->buf_size = static_cast<size_t>(nent) * sizeof(struct softhca_cqe);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	err = posix_memalign(&buf, ctx->page_size, cq->buf_size);
	if (err)
		goto err_cq;
	cq->ring = static_cast<struct softhca_cqe *>(buf);
	memset(buf, 0, cq->buf_size);
	/* every CQE starts owned by the card: owner bit of no pass yet */
	for (uint32_t i = 0; i < nent; i++)
		cq->ring[i].op_own = SOFTHCA_CQE_OWNER;
	err = ibv_dontfork_range(buf, cq->buf_size);
	if (err)
		goto err_buf;
	cq->db = static_cast<struct softhca_cq_dbrec *>(ctx->dbrecs->alloc());
	if (!cq->db) {
		err = errno;
		goto err_fork;
	}

	cmd.drv.buf_addr = reinterpret_cast<uintptr_t>(buf);
	cmd.drv.db_addr = reinterpret_cast<uintptr_t>(cq->db);
	cmd.drv.cqe_size = sizeof(struct softhca_cqe);
	err = ibv_cmd_create_cq(
		context, static_cast<int>(nent - 1), channel, comp_vector,
		&cq->vcq.cq, reinterpret_cast<struct ibv_create_cq *>(&cmd),
		sizeof(cmd),
		reinterpret_cast<ib_uverbs_create_cq_resp *>(&resp),
		sizeof(resp));
	if (err) {
		softhca_dbg(ctx, "create_cq: the kernel refused (%d)", err);
		goto err_db;
	}
	cq->cqn = resp.drv.cqn;
	return &cq->vcq.cq;

err_db:
	ctx->dbrecs->free(cq->db);
err_fork:
	ibv_dofork_range(buf, cq->buf_size);
err_buf:
	free(buf);
err_cq:
	pthread_spin_destroy(&cq->lock);
	delete cq;
	errno = err;
	return nullptr;
}

int destroy_cq(struct ibv_cq *ibcq)
{
	Cq *cq = to_cq(ibcq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	cq->ctx->dbrecs->free(cq->db);
	ibv_dofork_range(cq->ring, cq->buf_size);
	free(cq->ring);
	pthread_spin_destroy(&cq->lock);
	delete cq;
	return 0;
}

} // namespace softhca

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: shared receive queues. The ring holds 2^n WQEs of
 * 2^m bytes (a next segment, then data segments); the WQEs software owns
 * are linked into a free list by their next segments, from head to tail
 * (include/softhca_prm.h). Posting writes the head WQE's data segments,
 * moves the head along its link and counts the WQE in the doorbell record
 * after a release barrier; the card takes WQEs in the order they were
 * posted by following the same links from index 0. Posting makes no
 * system call: receives wait for senders, whose posts wake the card. The
 * tail WQE is never posted, so the link after the last posted WQE is
 * always there for the card; a completion puts its WQE after the tail.
 */
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <new>

#include "mmio.h"
#include "ring.h"
#include "softhca.h"

namespace softhca {
namespace {

struct softhca_srq_next *srq_next(Srq *srq, uint32_t idx)
{
	return reinterpret_cast<struct softhca_srq_next *>(
		srq->ring + static_cast<size_t>(idx) * srq->stride);
}

/* The largest ring a 16-bit next_wqe_index can link. */
constexpr uint32_t kMaxSrqWqes = 1u << 16;

} // namespace

int srq_geometry(uint32_t max_wr, uint32_t max_sge, uint32_t dev_max_wr,
		 uint32_t dev_max_sge, uint32_t *wqe_cnt, uint32_t *stride)
{
	max_wr = std::max(max_wr, 1u);
	max_sge = std::max(max_sge, 1u);
	if (max_wr > dev_max_wr || max_sge > dev_max_sge ||
	    max_wr >= kMaxSrqWqes)
		return EINVAL;
	/* one WQE more than asked: the tail is never posted */
	*wqe_cnt = align_queue_size(max_wr + 1);
	*stride = align_queue_size(static_cast<uint32_t>(
		sizeof(struct softhca_srq_next) +
		max_sge * sizeof(struct softhca_wqe_data)));
	*stride = std::max(*stride, 32u);
	return *wqe_cnt && *wqe_cnt <= kMaxSrqWqes ? 0 : EINVAL;
}

int srq_alloc_queues(Srq *srq)
{
	if (srq->wrid.alloc(srq->wqe_cnt) || srq->posted.alloc(srq->wqe_cnt) ||
	    srq->sge.alloc(srq->max_sge))
		return ENOMEM;
	return 0;
}

void srq_init_ring(Srq *srq)
{
	for (uint32_t i = 0; i < srq->wqe_cnt; i++) {
		struct softhca_srq_next *next = srq_next(srq, i);

		memset(next, 0, sizeof(*next));
		next->next_wqe_index = htole16(
			static_cast<uint16_t>((i + 1) & (srq->wqe_cnt - 1)));
		srq->posted[i] = 0;
	}
	srq->head = 0;
	srq->tail = srq->wqe_cnt - 1;
	srq->counter = 0;
}

int srq_post(Srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	int err = 0;
	uint32_t n = 0;

	srq->lock.lock();
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 ||
		    static_cast<uint32_t>(wr->num_sge) > srq->max_sge) {
			err = EINVAL;
		} else if (srq->head == srq->tail) {
			err = ENOMEM; /* only the tail is left */
		}
		if (err) {
			*bad_wr = wr;
			break;
		}
		uint32_t idx = srq->head;
		struct softhca_srq_next *wqe = srq_next(srq, idx);

		for (int i = 0; i < wr->num_sge; i++) {
			srq->sge[i].addr = wr->sg_list[i].addr;
			srq->sge[i].length = wr->sg_list[i].length;
			srq->sge[i].lkey = wr->sg_list[i].lkey;
		}
		softhca_srq_wqe_write(wqe, srq->stride, srq->sge.get(),
				      static_cast<uint32_t>(wr->num_sge));
		srq->wrid[idx] = wr->wr_id;
		srq->posted[idx] = 1;
		srq->head = le16toh(wqe->next_wqe_index) & (srq->wqe_cnt - 1);
		srq->counter++;
		n++;
	}
	if (n) {
		/* the WQEs before the count that hands them over */
		to_device_barrier();
		store_le32(&srq->db->wqe_counter, srq->counter);
	}
	srq->lock.unlock();
	return err;
}

bool srq_complete(Srq *srq, uint32_t idx, uint64_t *wr_id)
{
	bool ok = false;

	srq->lock.lock();
	if (idx < srq->wqe_cnt && srq->posted[idx]) {
		*wr_id = srq->wrid[idx];
		srq->posted[idx] = 0;
		srq_next(srq, srq->tail)->next_wqe_index =
			htole16(static_cast<uint16_t>(idx));
		srq->tail = idx;
		ok = true;
	}
	srq->lock.unlock();
	return ok;
}

int post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	return srq_post(to_srq(ibsrq), wr, bad_wr);
}

struct ibv_srq *create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	Context *ctx = to_ctx(pd->context);
	WriteCmd<ib_uverbs_create_srq, softhca_create_srq_req> cmd = {};
	WriteResp<ib_uverbs_create_srq_resp, softhca_create_srq_resp> resp = {};
	uint32_t wqe_cnt, stride;
	int err;

	static_assert(offsetof(decltype(cmd), drv) ==
			      sizeof(ib_uverbs_cmd_hdr) +
				      sizeof(ib_uverbs_create_srq),
		      "the driver's request follows the core one");
	static_assert(offsetof(decltype(resp), drv) ==
			      sizeof(ib_uverbs_create_srq_resp),
		      "the driver's response follows the core one");
	err = srq_geometry(attr->attr.max_wr, attr->attr.max_sge,
			   ctx->max_qp_wr, ctx->max_sge, &wqe_cnt, &stride);
	if (err) {
		softhca_dbg(ctx, "create_srq: %u WRs of %u SGEs out of range",
			    attr->attr.max_wr, attr->attr.max_sge);
		errno = err;
		return nullptr;
	}
	auto *srq = new (std::nothrow) Srq{};
	if (!srq) {
		errno = ENOMEM;
		return nullptr;
	}
	srq->ctx = ctx;
	srq->wqe_cnt = wqe_cnt;
	srq->stride = stride;
	srq->max_wr = std::min(wqe_cnt - 1, ctx->max_qp_wr);
	srq->max_sge =
		std::min(static_cast<uint32_t>(
				 (stride - sizeof(struct softhca_srq_next)) /
				 sizeof(struct softhca_wqe_data)),
			 ctx->max_sge);
	err = srq_alloc_queues(srq);
	if (!err)
		err = srq->buf.alloc(static_cast<size_t>(wqe_cnt) * stride,
				     ctx->page_size);
	if (!err)
		err = srq->db.alloc(ctx->dbrecs);
	if (err)
		goto err_free;
	srq->ring = srq->buf.data();
	srq_init_ring(srq);

	cmd.drv.buf_addr = reinterpret_cast<uintptr_t>(srq->ring);
	cmd.drv.db_addr = reinterpret_cast<uintptr_t>(srq->db.get());
	cmd.drv.max_wr = srq->max_wr;
	cmd.drv.max_sge = srq->max_sge;
	cmd.drv.log_size = static_cast<uint8_t>(log2_of_pow2(wqe_cnt));
	cmd.drv.log_stride = static_cast<uint8_t>(log2_of_pow2(stride));
	{
		struct ibv_srq_init_attr kattr = *attr;

		kattr.attr.max_wr = srq->max_wr;
		kattr.attr.max_sge = srq->max_sge;
		err = ibv_cmd_create_srq(
			pd, &srq->ibsrq, &kattr,
			reinterpret_cast<struct ibv_create_srq *>(&cmd),
			sizeof(cmd),
			reinterpret_cast<ib_uverbs_create_srq_resp *>(&resp),
			sizeof(resp));
	}
	if (err) {
		softhca_dbg(ctx, "create_srq: the kernel refused (%d)", err);
		goto err_free;
	}
	srq->srqn = resp.drv.srqn;
	attr->attr.max_wr = srq->max_wr;
	attr->attr.max_sge = srq->max_sge;
	return &srq->ibsrq;

err_free:
	delete srq;
	errno = err;
	return nullptr;
}

int modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	WriteCmd<ib_uverbs_modify_srq, void> cmd = {};

	/* the ring cannot grow (IBV_SRQ_MAX_WR): only the limit changes */
	if (mask & ~IBV_SRQ_LIMIT) {
		softhca_dbg(to_srq(ibsrq)->ctx, "modify_srq: mask 0x%x", mask);
		return EINVAL;
	}
	return ibv_cmd_modify_srq(
		ibsrq, attr, mask,
		reinterpret_cast<struct ibv_modify_srq *>(&cmd), sizeof(cmd));
}

int query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	WriteCmd<ib_uverbs_query_srq, void> cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr,
				 reinterpret_cast<struct ibv_query_srq *>(&cmd),
				 sizeof(cmd));
}

int destroy_srq(struct ibv_srq *ibsrq)
{
	int err = ibv_cmd_destroy_srq(ibsrq);

	if (err)
		return err;
	delete to_srq(ibsrq);
	return 0;
}

} // namespace softhca

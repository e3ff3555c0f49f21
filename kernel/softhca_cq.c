// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: completion queues. A user CQ is the provider's CQE ring,
 * pinned and described to the card by its PAS, plus a doorbell record in a
 * pinned dbrec page, the completion EQ of its comp_vector and the
 * context's UAR. Completion events arrive through that EQ's tasklet
 * (softhca_cq_event()) and go to the CQ's comp_handler, which for user CQs
 * is ib_uverbs_comp_handler feeding the completion channel.
 */
#include <linux/log2.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"

static int softhca_cq_hw_create(struct softhca_dev *dev, struct softhca_cq *cq,
				struct softhca_ucontext *uctx, u32 log_size,
				u32 eqn, unsigned long pgsz, u8 page_offset)
{
	struct softhca_create_out out;
	struct softhca_pas_buf pb;
	struct softhca_cq_ctx ctx;
	int ret;

	ret = softhca_pas_from_umem(dev, cq->umem, pgsz, &pb);
	if (ret)
		return ret;
	pb.page_offset = page_offset;
	memset(&ctx, 0, sizeof(ctx));
	ctx.log_size = log_size;
	ctx.log_cqe_size = SOFTHCA_LOG_CQE_SIZE;
	ctx.eqn = cpu_to_le32(eqn);
	ctx.uar = cpu_to_le32(uctx->uar);
	ctx.dbrec_addr = cpu_to_le64(cq->db.dma);
	softhca_pas_to_prm(&pb, &ctx.pas);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_CQ, &ctx, sizeof(ctx),
			       &out, sizeof(out));
	softhca_pas_free(dev, &pb);
	if (!ret)
		cq->cqn = le32_to_cpu(out.num);
	return ret;
}


int softhca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq *cq = to_scq(ibcq);
	struct softhca_create_cq_resp resp = {};
	struct softhca_create_cq_req req;
	struct softhca_ucontext *uctx;
	unsigned long pgsz;
	u32 nent, log_size;
	u8 page_offset;
	int ret;

	if (!udata) {
		ibdev_dbg(&dev->ibdev, "create_cq: kernel CQs unsupported\n");
		return -EOPNOTSUPP;
	}
	uctx = rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	if (attr->flags) {
		ibdev_dbg(&dev->ibdev, "create_cq: flags 0x%x unsupported\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	if (attr->cqe < 1 || attr->cqe > dev->caps.max_cqe) {
		ibdev_dbg(&dev->ibdev, "create_cq: %u CQEs out of [1, %u]\n",
			  attr->cqe, dev->caps.max_cqe);
		return -EINVAL;
	}
	if (attr->comp_vector >= dev->num_ceqs) {
		ibdev_dbg(&dev->ibdev, "create_cq: no comp_vector %u\n",
			  attr->comp_vector);
		return -EINVAL;
	}
	if (udata->inlen < sizeof(req)) {
		ibdev_dbg(&dev->ibdev, "create_cq: request of %zu bytes, need %zu\n",
			  udata->inlen, sizeof(req));
		return -EINVAL;
	}
	ret = ib_copy_from_udata(&req, udata, sizeof(req));
	if (ret)
		return ret;
	if (req.reserved || req.cqe_size != dev->caps.cqe_size ||
	    (udata->inlen > sizeof(req) &&
	     !ib_is_udata_cleared(udata, sizeof(req),
				  udata->inlen - sizeof(req)))) {
		ibdev_dbg(&dev->ibdev,
			  "create_cq: bad request (cqe_size %u, reserved %u)\n",
			  req.cqe_size, req.reserved);
		return -EINVAL;
	}

	nent = roundup_pow_of_two(attr->cqe + 1);
	log_size = ilog2(nent);
	cq->umem = ib_umem_get(&dev->ibdev, req.buf_addr,
			       (size_t)nent * SOFTHCA_CQE_SIZE,
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem)) {
		ret = PTR_ERR(cq->umem);
		ibdev_dbg(&dev->ibdev, "create_cq: cannot pin buffer 0x%llx (%d)\n",
			  req.buf_addr, ret);
		return ret;
	}
	pgsz = softhca_umem_queue_block(cq->umem, dev->caps.page_size_cap,
					&page_offset);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "create_cq: buffer 0x%llx misaligned\n",
			  req.buf_addr);
		ret = -EINVAL;
		goto err_umem;
	}
	ret = softhca_dbrec_map(&uctx->dbrecs, current->mm, req.db_addr,
				&cq->db);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_cq: dbrec 0x%llx unusable (%d)\n",
			  req.db_addr, ret);
		goto err_umem;
	}

	ret = softhca_cq_hw_create(dev, cq, uctx, log_size,
				   dev->ceqs[attr->comp_vector].eqn, pgsz,
				   page_offset);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_cq: CREATE_CQ failed (%d)\n",
			  ret);
		goto err_db;
	}
	refcount_set(&cq->refcount, 1);
	init_completion(&cq->free);
	ret = xa_insert_bh(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (ret)
		goto err_hw;

	ibcq->cqe = nent - 1;
	resp.cqn = cq->cqn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_xa;
	return 0;

err_xa:
	xa_erase_bh(&dev->cqs, cq->cqn);
err_hw:
	softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_CQ, cq->cqn);
err_db:
	softhca_dbrec_unmap(&uctx->dbrecs, &cq->db);
err_umem:
	softhca_umem_put(dev, cq->umem);
	return ret;
}

int softhca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq *cq = to_scq(ibcq);
	struct softhca_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	int ret;

	/* the card stops first, then no EQ tasklet may still hold it */
	ret = softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_CQ, cq->cqn);
	if (ret)
		return ret;
	xa_erase_bh(&dev->cqs, cq->cqn);
	if (!refcount_dec_and_test(&cq->refcount))
		wait_for_completion(&cq->free);
	softhca_dbrec_unmap(&uctx->dbrecs, &cq->db);
	softhca_umem_put(dev, cq->umem);
	return 0;
}

/* An EQE about CQ @cqn (from an EQ tasklet). */
void softhca_cq_event(struct softhca_dev *dev, u32 cqn, u8 type, u32 data)
{
	struct softhca_cq *cq;
	struct ib_event ev;

	xa_lock_bh(&dev->cqs);
	cq = xa_load(&dev->cqs, cqn);
	if (cq)
		refcount_inc(&cq->refcount);
	xa_unlock_bh(&dev->cqs);
	if (!cq) {
		ibdev_dbg(&dev->ibdev, "event 0x%x for unknown CQ %u\n", type,
			  cqn);
		return;
	}

	if (type == SOFTHCA_EQE_COMP) {
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	} else {
		ibdev_warn_ratelimited(&dev->ibdev, "CQ %u error 0x%x\n", cqn,
				       data);
		if (cq->ibcq.event_handler) {
			ev.device = &dev->ibdev;
			ev.element.cq = &cq->ibcq;
			ev.event = IB_EVENT_CQ_ERR;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
	}
	if (refcount_dec_and_test(&cq->refcount))
		complete(&cq->free);
}

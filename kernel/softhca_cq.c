// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: completion queues. A user CQ is the provider's CQE ring,
 * pinned and described to the card by its PAS, plus a doorbell record in a
 * pinned dbrec page, the completion EQ of its comp_vector and the
 * context's UAR. A kernel CQ is the driver's own (softhca_kcq.c).
 * Completion events arrive through that EQ's tasklet (softhca_cq_event())
 * and go to the CQ's comp_handler, which for user CQs is
 * ib_uverbs_comp_handler feeding the completion channel and for kernel CQs
 * ib_core's or the ULP's handler.
 */
#include <linux/log2.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"
#include "softhca_trace.h"

/**
 * softhca_cq_hw_create - CREATE_CQ for a ring described by @pb
 * @dev: the device
 * @cq: the CQ (its flags are the context's; cqn is set on success)
 * @pb: the ring's PAS
 * @log_size: log2 of its CQEs
 * @eqn: the completion EQ
 * @uar: the UAR its doorbells go to
 * @dbrec: the DMA address of its doorbell record
 *
 * Return: 0 or the command's error.
 */
int softhca_cq_hw_create(struct softhca_dev *dev, struct softhca_cq *cq,
			 const struct softhca_pas_buf *pb, u32 log_size,
			 u32 eqn, u32 uar, dma_addr_t dbrec)
{
	struct softhca_create_out out;
	struct softhca_cq_ctx ctx;
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	ctx.log_size = log_size;
	ctx.log_cqe_size = SOFTHCA_LOG_CQE_SIZE;
	ctx.eqn = cpu_to_le32(eqn);
	ctx.uar = cpu_to_le32(uar);
	ctx.dbrec_addr = cpu_to_le64(dbrec);
	ctx.flags = cpu_to_le32(cq->flags);
	softhca_pas_to_prm(pb, &ctx.pas);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_CQ, &ctx, sizeof(ctx),
			       &out, sizeof(out));
	if (!ret)
		cq->cqn = le32_to_cpu(out.num);
	return ret;
}

/**
 * softhca_cq_hw_resize - RESIZE_CQ to the ring described by @pb
 * @dev: the device
 * @cq: the CQ
 * @pb: the new ring's PAS
 * @log_size: log2 of its CQEs
 * @base: set to the consumer index the new ring starts at
 * @pi: set to the first CQE the card writes into it
 *
 * Return: 0 or the command's error (-EINVAL when the CQEs waiting do not
 * fit the new ring, or the CQ is in error).
 */
int softhca_cq_hw_resize(struct softhca_dev *dev, struct softhca_cq *cq,
			 const struct softhca_pas_buf *pb, u32 log_size,
			 u32 *base, u32 *pi)
{
	struct softhca_cq_resize_out out;
	struct softhca_cq_resize_in in;
	int ret;

	memset(&in, 0, sizeof(in));
	in.cqn = cpu_to_le32(cq->cqn);
	in.log_size = log_size;
	softhca_pas_to_prm(pb, &in.pas);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_RESIZE_CQ, &in, sizeof(in),
			       &out, sizeof(out));
	if (ret)
		return ret;
	*base = le32_to_cpu(out.base);
	*pi = le32_to_cpu(out.pi);
	return 0;
}

/* The provider's ring and record: pin them and create the CQ. */
static int softhca_ucq_create(struct softhca_dev *dev, struct softhca_cq *cq,
			      const struct ib_cq_init_attr *attr,
			      struct ib_udata *udata, u32 log_size)
{
	struct softhca_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	struct softhca_create_cq_req req;
	struct softhca_pas_buf pb;
	unsigned long pgsz;
	u8 page_offset;
	int ret;

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

	cq->uctx = uctx;
	cq->umem = ib_umem_get(&dev->ibdev, req.buf_addr,
			       (size_t)SOFTHCA_CQE_SIZE << log_size,
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
	ret = softhca_pas_from_umem(dev, cq->umem, pgsz, &pb);
	if (ret)
		goto err_db;
	pb.page_offset = page_offset;
	ret = softhca_cq_hw_create(dev, cq, &pb, log_size,
				   dev->ceqs[attr->comp_vector].eqn, uctx->uar,
				   cq->db.dma);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_cq: CREATE_CQ failed (%d)\n",
			  ret);
		goto err_db;
	}
	return 0;

err_db:
	softhca_dbrec_unmap(&uctx->dbrecs, &cq->db);
err_umem:
	softhca_umem_put(dev, cq->umem);
	return ret;
}

/* Undo softhca_ucq_create() or softhca_kcq_create() once the card let go. */
static void softhca_cq_free_mem(struct softhca_dev *dev, struct softhca_cq *cq,
				struct ib_udata *udata)
{
	struct softhca_ucontext *uctx;

	if (cq->kernel) {
		softhca_kcq_free_mem(dev, cq);
		return;
	}
	uctx = rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	softhca_dbrec_unmap(&uctx->dbrecs, &cq->db);
	softhca_umem_put(dev, cq->umem);
}

int softhca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq *cq = to_scq(ibcq);
	struct softhca_create_cq_resp resp = {};
	u32 nent, log_size;
	int ret;

	/* no timestamps; a consumer that accepts losing CQEs may overrun */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN) {
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

	nent = roundup_pow_of_two(attr->cqe + 1);
	log_size = ilog2(nent);
	cq->kernel = !udata;
	cq->vector = attr->comp_vector;
	mutex_init(&cq->resize_lock);
	cq->flags = attr->flags & IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN ?
		    SOFTHCA_CQ_F_IGNORE_OVERRUN : 0;
	if (cq->kernel)
		ret = softhca_kcq_create(dev, cq, attr, log_size);
	else
		ret = softhca_ucq_create(dev, cq, attr, udata, log_size);
	if (ret)
		return ret;
	refcount_set(&cq->refcount, 1);
	init_completion(&cq->free);
	ret = xa_insert_bh(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (ret)
		goto err_hw;

	ibcq->cqe = nent - 1;
	if (udata) {
		resp.cqn = cq->cqn;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase_bh(&dev->cqs, cq->cqn);
err_hw:
	/* a CQ the card will not give back stays the card's, memory too */
	if (!softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_CQ, cq->cqn))
		softhca_cq_free_mem(dev, cq, udata);
	return ret;
}

/*
 * A user CQ moves to the provider's new ring: pin it, RESIZE_CQ, and let
 * go of the old one, which the card no longer writes (the provider moves
 * the CQEs still in it).
 */
static int softhca_ucq_resize(struct softhca_dev *dev, struct softhca_cq *cq,
			      u32 log_size, struct ib_udata *udata)
{
	struct softhca_resize_cq_resp resp = {};
	struct softhca_resize_cq_req req;
	struct softhca_pas_buf pb;
	struct ib_umem *umem;
	unsigned long pgsz;
	u8 page_offset;
	int ret;

	if (udata->inlen < sizeof(req)) {
		ibdev_dbg(&dev->ibdev, "resize_cq: request of %zu bytes, need %zu\n",
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
			  "resize_cq: bad request (cqe_size %u, reserved %u)\n",
			  req.cqe_size, req.reserved);
		return -EINVAL;
	}
	umem = ib_umem_get(&dev->ibdev, req.buf_addr,
			   (size_t)SOFTHCA_CQE_SIZE << log_size,
			   IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem)) {
		ret = PTR_ERR(umem);
		ibdev_dbg(&dev->ibdev, "resize_cq: cannot pin buffer 0x%llx (%d)\n",
			  req.buf_addr, ret);
		return ret;
	}
	pgsz = softhca_umem_queue_block(umem, dev->caps.page_size_cap,
					&page_offset);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "resize_cq: buffer 0x%llx misaligned\n",
			  req.buf_addr);
		ret = -EINVAL;
		goto err_umem;
	}
	ret = softhca_pas_from_umem(dev, umem, pgsz, &pb);
	if (ret)
		goto err_umem;
	pb.page_offset = page_offset;
	ret = softhca_cq_hw_resize(dev, cq, &pb, log_size, &resp.base,
				   &resp.pi);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "resize_cq: RESIZE_CQ of CQ %u failed (%d)\n",
			  cq->cqn, ret);
		goto err_umem;
	}
	softhca_umem_put(dev, cq->umem);
	cq->umem = umem;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));

err_umem:
	softhca_umem_put(dev, umem);
	return ret;
}

/**
 * softhca_resize_cq - move a CQ to a ring of at least @cqe CQEs
 * @ibcq: the CQ, user or kernel
 * @cqe: the CQEs it must hold
 * @udata: a user CQ's request (the provider's new ring) and response
 *
 * Return: 0, -EINVAL for a size out of range or too small for the CQEs
 * waiting, or another error of the pin or the command; the CQ is then as
 * it was.
 */
int softhca_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq *cq = to_scq(ibcq);
	u32 nent, log_size;
	int ret;

	if (cqe < 1 || cqe > dev->caps.max_cqe) {
		ibdev_dbg(&dev->ibdev, "resize_cq: %d CQEs out of [1, %u]\n",
			  cqe, dev->caps.max_cqe);
		return -EINVAL;
	}
	nent = roundup_pow_of_two(cqe + 1);
	log_size = ilog2(nent);
	mutex_lock(&cq->resize_lock);
	if (cq->kernel)
		ret = nent == ibcq->cqe + 1 ? 0 :
		      softhca_kcq_resize(dev, cq, log_size);
	else
		ret = softhca_ucq_resize(dev, cq, log_size, udata);
	if (!ret)
		ibcq->cqe = nent - 1;
	mutex_unlock(&cq->resize_lock);
	return ret;
}

int softhca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq *cq = to_scq(ibcq);
	int ret;

	/* the card stops first, then no EQ tasklet may still hold it */
	ret = softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_CQ, cq->cqn);
	if (ret)
		return ret;
	xa_erase_bh(&dev->cqs, cq->cqn);
	/* events raised before the destroy and not yet taken reach nothing */
	if (cq->vector < dev->num_ceqs)
		softhca_eq_forget_cq(&dev->ceqs[cq->vector], cq->cqn);
	softhca_eq_forget_cq(&dev->async_eq, cq->cqn);
	if (!refcount_dec_and_test(&cq->refcount))
		wait_for_completion(&cq->free);
	softhca_cq_free_mem(dev, cq, udata);
	return 0;
}

/**
 * softhca_modify_cq - completion event moderation (MODIFY_CQ)
 * @ibcq: the CQ, kernel or user
 * @count: CQEs that raise the event
 * @period: microseconds after the first CQE that raise it
 *
 * Return: 0, -EOPNOTSUPP when the card does not moderate, -EINVAL beyond
 * its limits, or the command's error.
 */
int softhca_modify_cq(struct ib_cq *ibcq, u16 count, u16 period)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq_modify_in in = {};
	int ret;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_CQ_MODERATION)) {
		ibdev_dbg(&dev->ibdev, "modify_cq: the card does not moderate\n");
		return -EOPNOTSUPP;
	}
	if (count > dev->caps.max_cq_count ||
	    period > dev->caps.max_cq_period_us) {
		ibdev_dbg(&dev->ibdev,
			  "modify_cq: count %u period %u us over %u/%u\n",
			  count, period, dev->caps.max_cq_count,
			  dev->caps.max_cq_period_us);
		return -EINVAL;
	}
	in.cqn = cpu_to_le32(to_scq(ibcq)->cqn);
	in.count = cpu_to_le16(count);
	in.period_us = cpu_to_le16(period);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_MODIFY_CQ, &in, sizeof(in),
			       NULL, 0);
	if (ret)
		ibdev_dbg(&dev->ibdev, "modify_cq: MODIFY_CQ failed (%d)\n", ret);
	return ret;
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
		/* the card fired this arm: the next one is a new request */
		if (cq->kernel)
			softhca_kcq_event(cq);
		trace_softhca_cq_comp(dev, cqn, cq->kernel);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	} else {
		ibdev_warn_ratelimited(&dev->ibdev, "CQ %u error 0x%x\n", cqn,
				       data);
		trace_softhca_cq_error(dev, cqn, data);
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

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: shared receive queues. An SRQ is 2^log_size WQEs of
 * 2^log_stride bytes linked into a free list by their next segments, and a
 * doorbell record counting the WQEs posted (the card takes them in that
 * order, following the links). A user SRQ is the provider's ring and
 * record, pinned as QP buffers are; a kernel SRQ is a coherent ring the
 * driver links and posts to (softhca_kq.c, softhca_post.c), whose WQEs
 * poll_cq returns to the free list. The limit event (SRQ_LIMIT, armed by
 * modify_srq) goes to the SRQ's event handler.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"

#define SOFTHCA_SRQ_MIN_STRIDE	32
#define SOFTHCA_SRQ_MAX_WQES	BIT(16)

/* The data segments a WQE of @stride bytes holds after its next segment. */
static u32 softhca_srq_stride_sges(u32 stride)
{
	return (stride - sizeof(struct softhca_srq_next)) / SOFTHCA_WQE_DS_SIZE;
}

/**
 * softhca_srq_geometry - size a kernel SRQ for @want
 * @c: the device's caps
 * @want: max_wr and max_sge asked for
 * @log_size: log2 of its WQEs (one more than max_wr: the free list's tail)
 * @stride: bytes per WQE
 * @got: what it holds
 *
 * Return: 0, or -EINVAL beyond the device's limits.
 */
int softhca_srq_geometry(const struct softhca_dev_caps *c,
			 const struct ib_srq_attr *want, u32 *log_size,
			 u32 *stride, struct ib_srq_attr *got)
{
	u32 nent;

	/* WQEs link by a 16-bit index: at most 2^16 of them */
	if (!want->max_wr || want->max_wr > c->max_srq_wr ||
	    want->max_wr >= SOFTHCA_SRQ_MAX_WQES ||
	    want->max_sge > c->max_srq_sge)
		return -EINVAL;
	nent = roundup_pow_of_two(want->max_wr + 1);
	*log_size = ilog2(nent);
	*stride = max_t(u32, SOFTHCA_SRQ_MIN_STRIDE,
			roundup_pow_of_two(sizeof(struct softhca_srq_next) +
					   max(want->max_sge, 1U) *
					   SOFTHCA_WQE_DS_SIZE));
	got->max_wr = min(nent - 1, c->max_srq_wr);
	got->max_sge = min(softhca_srq_stride_sges(*stride), c->max_srq_sge);
	got->srq_limit = 0;
	return 0;
}

static int softhca_srq_hw_create(struct softhca_dev *dev,
				 struct softhca_srq *srq, u32 log_size,
				 u32 stride, u32 uar, dma_addr_t dbrec,
				 const struct softhca_pas_buf *pb)
{
	struct softhca_create_out out;
	struct softhca_srq_ctx ctx;
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	ctx.log_size = log_size;
	ctx.log_stride = ilog2(stride);
	ctx.pdn = cpu_to_le32(to_spd(srq->ibsrq.pd)->pdn);
	ctx.uar = cpu_to_le32(uar);
	ctx.dbrec_addr = cpu_to_le64(dbrec);
	softhca_pas_to_prm(pb, &ctx.pas);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_SRQ, &ctx, sizeof(ctx),
			       &out, sizeof(out));
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_srq: CREATE_SRQ failed (%d)\n",
			  ret);
		return ret;
	}
	srq->srqn = le32_to_cpu(out.num);
	return 0;
}

/* A kernel SRQ: coherent ring linked into its free list, kernel dbrec. */
static int softhca_ksrq_create(struct softhca_dev *dev,
			       struct softhca_srq *srq,
			       struct ib_srq_init_attr *init)
{
	struct device *dma_dev = softhca_hw_device(dev->hw);
	struct ib_srq_attr got;
	struct softhca_pas_buf pb;
	u32 log_size, stride;
	int ret;

	if (!dev->kuar_valid) {
		ibdev_dbg(&dev->ibdev, "create_srq: no kernel UAR\n");
		return -EOPNOTSUPP;
	}
	ret = softhca_srq_geometry(&dev->caps, &init->attr, &log_size, &stride,
				   &got);
	if (ret) {
		ibdev_dbg(&dev->ibdev,
			  "create_srq: %u WRs of %u SGEs out of [1, %u] x %u\n",
			  init->attr.max_wr, init->attr.max_sge,
			  dev->caps.max_srq_wr, dev->caps.max_srq_sge);
		return ret;
	}
	spin_lock_init(&srq->lock);
	srq->ring.wqe_cnt = BIT(log_size);
	srq->ring.stride = stride;
	srq->ring.max_sge = got.max_sge;
	srq->ring_size = (size_t)stride << log_size;
	srq->ring.buf = dma_alloc_coherent(dma_dev, srq->ring_size,
					   &srq->ring_dma, GFP_KERNEL);
	if (!srq->ring.buf)
		return -ENOMEM;
	srq->ring.wrid = kvcalloc(srq->ring.wqe_cnt, sizeof(u64), GFP_KERNEL);
	if (!srq->ring.wrid) {
		ret = -ENOMEM;
		goto err_ring;
	}
	softhca_ksrq_init(&srq->ring);
	ret = softhca_kdbrec_alloc(&dev->kdbrecs, &srq->kdb);
	if (ret)
		goto err_wrid;
	srq->dbrec = srq->kdb.cpu;
	ret = softhca_pas_from_coherent(dev, srq->ring_dma, srq->ring_size,
					&pb);
	if (ret)
		goto err_dbrec;
	ret = softhca_srq_hw_create(dev, srq, log_size, stride, dev->kuar,
				    srq->kdb.dma, &pb);
	softhca_pas_free(dev, &pb);
	if (ret)
		goto err_dbrec;
	srq->max_wr = got.max_wr;
	srq->max_sge = got.max_sge;
	return 0;

err_dbrec:
	softhca_kdbrec_free(&dev->kdbrecs, &srq->kdb);
err_wrid:
	kvfree(srq->ring.wrid);
err_ring:
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(dma_dev, srq->ring_size, srq->ring.buf,
				  srq->ring_dma);
	return ret;
}

/* Does the provider's ring hold what it reports? */
static bool softhca_usrq_geometry_ok(struct softhca_dev *dev,
				     const struct softhca_create_srq_req *req,
				     const struct ib_srq_attr *want)
{
	if (BIT_ULL(req->log_size) > SOFTHCA_SRQ_MAX_WQES ||
	    req->log_stride > 16 ||
	    BIT(req->log_stride) < SOFTHCA_SRQ_MIN_STRIDE)
		return false;
	return req->max_wr >= want->max_wr && req->max_sge >= want->max_sge &&
	       req->max_wr && req->max_wr <= dev->caps.max_srq_wr &&
	       req->max_sge <= dev->caps.max_srq_sge &&
	       req->max_wr < BIT(req->log_size) &&
	       req->max_sge <= softhca_srq_stride_sges(BIT(req->log_stride));
}

/* A user SRQ: pin the provider's ring and record. */
static int softhca_usrq_create(struct softhca_dev *dev,
			       struct softhca_srq *srq,
			       struct ib_srq_init_attr *init,
			       struct ib_udata *udata)
{
	struct softhca_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	struct softhca_create_srq_resp resp = {};
	struct softhca_create_srq_req req;
	struct softhca_pas_buf pb;
	unsigned long pgsz;
	u8 page_offset;
	int ret;

	if (udata->inlen < sizeof(req)) {
		ibdev_dbg(&dev->ibdev, "create_srq: request of %zu bytes\n",
			  udata->inlen);
		return -EINVAL;
	}
	ret = ib_copy_from_udata(&req, udata, sizeof(req));
	if (ret)
		return ret;
	if (memchr_inv(req.reserved0, 0, sizeof(req.reserved0)) ||
	    (udata->inlen > sizeof(req) &&
	     !ib_is_udata_cleared(udata, sizeof(req),
				  udata->inlen - sizeof(req))) ||
	    !softhca_usrq_geometry_ok(dev, &req, &init->attr)) {
		ibdev_dbg(&dev->ibdev,
			  "create_srq: bad request (2^%u x 2^%u, %u WRs of %u SGEs)\n",
			  req.log_size, req.log_stride, req.max_wr,
			  req.max_sge);
		return -EINVAL;
	}
	srq->umem = ib_umem_get(&dev->ibdev, req.buf_addr,
				(size_t)1 << (req.log_size + req.log_stride),
				IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(srq->umem)) {
		ret = PTR_ERR(srq->umem);
		ibdev_dbg(&dev->ibdev, "create_srq: cannot pin buffer (%d)\n",
			  ret);
		return ret;
	}
	pgsz = softhca_umem_queue_block(srq->umem, dev->caps.page_size_cap,
					&page_offset);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "create_srq: buffer 0x%llx misaligned\n",
			  req.buf_addr);
		ret = -EINVAL;
		goto err_umem;
	}
	ret = softhca_dbrec_map(&uctx->dbrecs, current->mm, req.db_addr,
				&srq->db);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_srq: dbrec 0x%llx unusable (%d)\n",
			  req.db_addr, ret);
		goto err_umem;
	}
	ret = softhca_pas_from_umem(dev, srq->umem, pgsz, &pb);
	if (ret)
		goto err_db;
	pb.page_offset = page_offset;
	ret = softhca_srq_hw_create(dev, srq, req.log_size, BIT(req.log_stride),
				    uctx->uar, srq->db.dma, &pb);
	softhca_pas_free(dev, &pb);
	if (ret)
		goto err_db;
	srq->max_wr = req.max_wr;
	srq->max_sge = req.max_sge;
	resp.srqn = srq->srqn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_hw;
	return 0;

err_hw:
	if (softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_SRQ, srq->srqn))
		return ret;	/* the card keeps it: so does the SRQ its memory */
err_db:
	softhca_dbrec_unmap(&uctx->dbrecs, &srq->db);
err_umem:
	softhca_umem_put(dev, srq->umem);
	return ret;
}

/* Undo softhca_usrq_create() or softhca_ksrq_create(): the card let go. */
static void softhca_srq_free_mem(struct softhca_dev *dev,
				 struct softhca_srq *srq,
				 struct ib_udata *udata)
{
	struct softhca_ucontext *uctx;

	if (!srq->kernel) {
		uctx = rdma_udata_to_drv_context(udata, struct softhca_ucontext,
						 ibuc);
		softhca_dbrec_unmap(&uctx->dbrecs, &srq->db);
		softhca_umem_put(dev, srq->umem);
		return;
	}
	softhca_kdbrec_free(&dev->kdbrecs, &srq->kdb);
	kvfree(srq->ring.wrid);
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(softhca_hw_device(dev->hw), srq->ring_size,
				  srq->ring.buf, srq->ring_dma);
}

int softhca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibsrq->device);
	struct softhca_srq *srq = to_ssrq(ibsrq);
	int ret;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_SRQ) || !dev->caps.max_srq) {
		ibdev_dbg(&dev->ibdev, "create_srq: the card has no SRQs\n");
		return -EOPNOTSUPP;
	}
	if (init->srq_type != IB_SRQT_BASIC) {
		ibdev_dbg(&dev->ibdev, "create_srq: type %d unsupported\n",
			  init->srq_type);
		return -EOPNOTSUPP;
	}
	srq->kernel = !udata;
	if (srq->kernel)
		ret = softhca_ksrq_create(dev, srq, init);
	else
		ret = softhca_usrq_create(dev, srq, init, udata);
	if (ret)
		return ret;
	refcount_set(&srq->refcount, 1);
	init_completion(&srq->free);
	ret = xa_insert_bh(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (ret)
		goto err_hw;
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	return 0;

err_hw:
	if (!softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_SRQ, srq->srqn))
		softhca_srq_free_mem(dev, srq, udata);
	return ret;
}

int softhca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibsrq->device);
	struct softhca_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_SRQ, srq->srqn);
	if (ret)
		return ret;
	xa_erase_bh(&dev->srqs, srq->srqn);
	if (!refcount_dec_and_test(&srq->refcount))
		wait_for_completion(&srq->free);
	softhca_srq_free_mem(dev, srq, udata);
	return 0;
}

/**
 * softhca_modify_srq - arm the SRQ's limit
 * @ibsrq: the SRQ
 * @attr: srq_limit (0 disarms)
 * @mask: IB_SRQ_LIMIT; resizing (IB_SRQ_MAX_WR) is not supported
 * @udata: user data (none expected)
 *
 * Return: 0, -EOPNOTSUPP for a resize, -EINVAL for a limit over max_wr, or
 * the command's error.
 */
int softhca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibsrq->device);
	struct softhca_srq *srq = to_ssrq(ibsrq);
	struct softhca_srq_modify_in in = {};
	int ret;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)) {
		ibdev_dbg(&dev->ibdev, "modify_srq: mask 0x%x unknown\n", mask);
		return -EINVAL;
	}
	if (mask & IB_SRQ_MAX_WR) {
		ibdev_dbg(&dev->ibdev, "modify_srq: SRQ %u cannot be resized\n",
			  srq->srqn);
		return -EOPNOTSUPP;
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&dev->ibdev, "modify_srq: unexpected request data\n");
		return -EINVAL;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr) {
		ibdev_dbg(&dev->ibdev, "modify_srq: limit %u over %u WRs\n",
			  attr->srq_limit, srq->max_wr);
		return -EINVAL;
	}
	in.srqn = cpu_to_le32(srq->srqn);
	in.limit = cpu_to_le32(attr->srq_limit);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_MODIFY_SRQ, &in, sizeof(in),
			       NULL, 0);
	if (ret)
		ibdev_dbg(&dev->ibdev, "modify_srq: MODIFY_SRQ failed (%d)\n",
			  ret);
	return ret;
}

int softhca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct softhca_dev *dev = to_sdev(ibsrq->device);
	struct softhca_srq *srq = to_ssrq(ibsrq);
	struct softhca_obj_in in = { .num = cpu_to_le32(srq->srqn) };
	struct softhca_srq_query_out out;
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_SRQ, &in, sizeof(in),
			       &out, sizeof(out));
	if (ret) {
		ibdev_dbg(&dev->ibdev, "query_srq: QUERY_SRQ failed (%d)\n",
			  ret);
		return ret;
	}
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = le32_to_cpu(out.ctx.limit);
	return 0;
}

/*
 * Kernel SRQs take receives at their free list's head; the card sees them
 * through the doorbell record's count (it takes SRQ WQEs as messages
 * arrive, so there is no doorbell to ring). ULPs post from any context.
 */
int softhca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct softhca_dev *dev = to_sdev(ibsrq->device);
	struct softhca_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int ret = 0, n = 0;
	u32 index;

	if (!srq->kernel || softhca_cmd_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "post_srq_recv: SRQ %u is %s\n",
			  srq->srqn, srq->kernel ? "on a dead device" :
			  "a user SRQ");
		*bad_wr = wr;
		return srq->kernel ? -EIO : -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next, n++) {
		ret = wr->num_sge < 0 ? -EINVAL :
		      softhca_ksrq_post(&srq->ring, softhca_sgl(wr->sg_list),
					wr->num_sge, wr->wr_id, &index);
		if (ret) {
			ibdev_dbg(&dev->ibdev,
				  "post_srq_recv: SRQ %u, %d SGEs: %s (%d)\n",
				  srq->srqn, wr->num_sge,
				  ret == -ENOMEM ? "the SRQ is full" :
				  "too many SGEs", ret);
			*bad_wr = wr;
			break;
		}
	}
	if (n) {
		/* the WQEs are written before the card may read them */
		dma_wmb();
		WRITE_ONCE(srq->dbrec->wqe_counter,
			   cpu_to_le32(srq->ring.counter));
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}

/* An async EQE about SRQ @srqn (from the async EQ's tasklet). */
void softhca_srq_event(struct softhca_dev *dev, u32 srqn, u8 type, u32 data)
{
	struct softhca_srq *srq;
	struct ib_event ev;

	xa_lock_bh(&dev->srqs);
	srq = xa_load(&dev->srqs, srqn);
	if (srq)
		refcount_inc(&srq->refcount);
	xa_unlock_bh(&dev->srqs);
	if (!srq) {
		ibdev_dbg(&dev->ibdev, "event 0x%x for unknown SRQ %u\n", type,
			  srqn);
		return;
	}
	if (srq->ibsrq.event_handler) {
		ev.device = &dev->ibdev;
		ev.element.srq = &srq->ibsrq;
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	if (refcount_dec_and_test(&srq->refcount))
		complete(&srq->free);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: queue pairs. A user QP is the provider's buffer (RQ then
 * SQ) pinned and described by its PAS, a doorbell record in a pinned dbrec
 * page, and attributes the card keeps; a kernel QP is the driver's own
 * (softhca_kqp.c). modify_qp checks the transition and the attributes as
 * ib_modify_qp_is_ok() defines them before the card sees them. A user
 * QP's posting never comes here: the provider writes WQEs and doorbell
 * records itself and, when the card says its engine is idle, makes a
 * wake-up call: an ioctl on its wake-up file (softhca_wake.c) or, without
 * one, a zero-WR post_send.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"
#include "softhca_trace.h"

#define SOFTHCA_QP_ATTR_MASK	(IB_QP_STATE | IB_QP_CUR_STATE |	\
				 IB_QP_EN_SQD_ASYNC_NOTIFY | IB_QP_ACCESS_FLAGS | \
				 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY | \
				 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_TIMEOUT | \
				 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |	\
				 IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | \
				 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN |	\
				 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_DEST_QPN)

static const u8 softhca_qps_to_hw[] = {
	[IB_QPS_RESET] = SOFTHCA_QPS_RESET,
	[IB_QPS_INIT] = SOFTHCA_QPS_INIT,
	[IB_QPS_RTR] = SOFTHCA_QPS_RTR,
	[IB_QPS_RTS] = SOFTHCA_QPS_RTS,
	[IB_QPS_SQD] = SOFTHCA_QPS_SQD,
	[IB_QPS_SQE] = SOFTHCA_QPS_SQE,
	[IB_QPS_ERR] = SOFTHCA_QPS_ERR,
};

static const enum ib_qp_state softhca_qps_from_hw[] = {
	[SOFTHCA_QPS_RESET] = IB_QPS_RESET,
	[SOFTHCA_QPS_INIT] = IB_QPS_INIT,
	[SOFTHCA_QPS_RTR] = IB_QPS_RTR,
	[SOFTHCA_QPS_RTS] = IB_QPS_RTS,
	[SOFTHCA_QPS_SQD] = IB_QPS_SQD,
	[SOFTHCA_QPS_SQE] = IB_QPS_SQE,
	[SOFTHCA_QPS_ERR] = IB_QPS_ERR,
};

static u32 softhca_qp_access_to_hw(int flags)
{
	return (flags & IB_ACCESS_REMOTE_WRITE ? SOFTHCA_ACCESS_REMOTE_WRITE : 0) |
	       (flags & IB_ACCESS_REMOTE_READ ? SOFTHCA_ACCESS_REMOTE_READ : 0) |
	       (flags & IB_ACCESS_REMOTE_ATOMIC ?
		SOFTHCA_ACCESS_REMOTE_ATOMIC : 0);
}

static int softhca_qp_access_from_hw(u32 hw)
{
	return (hw & SOFTHCA_ACCESS_REMOTE_WRITE ? IB_ACCESS_REMOTE_WRITE : 0) |
	       (hw & SOFTHCA_ACCESS_REMOTE_READ ? IB_ACCESS_REMOTE_READ : 0) |
	       (hw & SOFTHCA_ACCESS_REMOTE_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC : 0);
}

/* Does the geometry of @req hold the capabilities it reports? */
static bool softhca_qp_geometry_ok(struct softhca_dev *dev, u8 hw_type,
				   bool srq,
				   const struct softhca_create_qp_req *req,
				   const struct ib_qp_cap *want)
{
	const struct softhca_dev_caps *c = &dev->caps;
	u32 ds, bbs;

	if (req->max_send_wr < want->max_send_wr ||
	    req->max_send_sge < want->max_send_sge ||
	    req->max_inline_data < want->max_inline_data)
		return false;
	if (req->max_send_wr > c->max_qp_wr || req->max_send_sge > c->max_sge ||
	    req->max_inline_data > c->max_inline_data)
		return false;
	if (req->log_sq_size > 31 || req->log_rq_size > 31 ||
	    req->log_rq_stride > 31)
		return false;
	ds = softhca_sq_max_ds_qp(hw_type, req->max_send_sge,
				  req->max_inline_data);
	bbs = softhca_wqe_bbs(ds);
	if (bbs > SOFTHCA_MAX_WQEBBS ||
	    (u64)req->max_send_wr * bbs > BIT_ULL(req->log_sq_size))
		return false;
	/* a QP on an SRQ has no RQ of its own */
	if (srq)
		return !req->max_recv_wr && !req->max_recv_sge &&
		       !req->log_rq_size && !req->log_rq_stride;
	if (req->max_recv_wr < want->max_recv_wr ||
	    req->max_recv_sge < want->max_recv_sge ||
	    req->max_recv_wr > c->max_qp_wr || req->max_recv_sge > c->max_sge)
		return false;
	return req->max_recv_wr <= BIT_ULL(req->log_rq_size) &&
	       max(req->max_recv_sge, 1U) * SOFTHCA_WQE_DS_SIZE <=
	       BIT_ULL(req->log_rq_stride);
}

/**
 * softhca_qp_hw_create - CREATE_QP
 * @dev: the device
 * @qp: the QP (hw_type set; qpn is set on success)
 * @attr: its init attributes
 * @ctx: geometry, UAR, flags, dbrec and PAS filled in; the rest is filled
 *	 here
 *
 * Return: 0 or the command's error.
 */
int softhca_qp_hw_create(struct softhca_dev *dev, struct softhca_qp *qp,
			 const struct ib_qp_init_attr *attr,
			 struct softhca_qp_ctx *ctx)
{
	struct softhca_create_out out;
	int ret;

	ctx->type = qp->hw_type;
	ctx->pdn = cpu_to_le32(to_spd(qp->ibqp.pd)->pdn);
	ctx->send_cqn = cpu_to_le32(to_scq(attr->send_cq)->cqn);
	ctx->recv_cqn = cpu_to_le32(to_scq(attr->recv_cq)->cqn);
	if (attr->sq_sig_type == IB_SIGNAL_ALL_WR)
		ctx->flags |= cpu_to_le32(SOFTHCA_QP_SIG_ALL);
	if (attr->srq)
		ctx->srqn = cpu_to_le32(to_ssrq(attr->srq)->srqn);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_QP, ctx, sizeof(*ctx),
			       &out, sizeof(out));
	if (!ret)
		qp->qpn = le32_to_cpu(out.num);
	return ret;
}

/* QP types: what the card calls them, if it has them. */
static int softhca_qp_hw_type(struct softhca_dev *dev,
			      enum ib_qp_type type, bool kernel, u8 *hw_type)
{
	u32 cap = dev->caps.cap_flags;

	switch (type) {
	case IB_QPT_RC:
		*hw_type = SOFTHCA_QPT_RC;
		return 0;
	case IB_QPT_UC:
		*hw_type = SOFTHCA_QPT_UC;
		return 0;
	case IB_QPT_UD:
		*hw_type = SOFTHCA_QPT_UD;
		return cap & SOFTHCA_CAP_UD ? 0 : -EOPNOTSUPP;
	case IB_QPT_GSI:
		*hw_type = SOFTHCA_QPT_GSI;
		return kernel && (cap & SOFTHCA_CAP_GSI) ? 0 : -EOPNOTSUPP;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * Creation flags: none changes what the card does; the padding hint
 * (mlx5's end-of-line padding for PCI writes) means nothing to it.
 */
#define SOFTHCA_QP_CREATE_HINTS	IB_QP_CREATE_PCI_WRITE_END_PADDING

static int softhca_qp_check_init_attr(struct softhca_dev *dev,
				      struct ib_qp_init_attr *attr,
				      bool kernel, u8 *hw_type)
{
	bool srq = attr->srq;

	if (softhca_qp_hw_type(dev, attr->qp_type, kernel, hw_type)) {
		ibdev_dbg(&dev->ibdev, "create_qp: type %d unsupported\n",
			  attr->qp_type);
		return -EOPNOTSUPP;
	}
	if (attr->create_flags & ~SOFTHCA_QP_CREATE_HINTS) {
		ibdev_dbg(&dev->ibdev, "create_qp: flags 0x%x unsupported\n",
			  attr->create_flags & ~SOFTHCA_QP_CREATE_HINTS);
		return -EOPNOTSUPP;
	}
	if (attr->rwq_ind_tbl) {
		ibdev_dbg(&dev->ibdev, "create_qp: RSS unsupported\n");
		return -EOPNOTSUPP;
	}
	if (*hw_type == SOFTHCA_QPT_GSI && attr->port_num != SOFTHCA_PORT) {
		ibdev_dbg(&dev->ibdev, "create_qp: GSI QP on port %u\n",
			  attr->port_num);
		return -EINVAL;
	}
	if (attr->cap.max_send_wr > dev->caps.max_qp_wr ||
	    attr->cap.max_send_sge > dev->caps.max_sge ||
	    attr->cap.max_inline_data > dev->caps.max_inline_data ||
	    (!srq && (attr->cap.max_recv_wr > dev->caps.max_qp_wr ||
		      attr->cap.max_recv_sge > dev->caps.max_sge))) {
		ibdev_dbg(&dev->ibdev, "create_qp: caps over the device's\n");
		return -EINVAL;
	}
	return 0;
}

/* The provider's buffer and record: pin them and create the QP. */
static int softhca_uqp_create(struct softhca_dev *dev, struct softhca_qp *qp,
			      struct ib_qp_init_attr *attr,
			      struct ib_udata *udata)
{
	struct softhca_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	struct softhca_create_qp_resp resp = {};
	struct softhca_create_qp_req req;
	struct softhca_pas_buf pb;
	struct softhca_qp_ctx ctx;

	qp->uctx = uctx;
	unsigned long pgsz;
	u8 page_offset;
	size_t size;
	int ret;

	if (udata->inlen < sizeof(req)) {
		ibdev_dbg(&dev->ibdev, "create_qp: request of %zu bytes\n",
			  udata->inlen);
		return -EINVAL;
	}
	ret = ib_copy_from_udata(&req, udata, sizeof(req));
	if (ret)
		return ret;
	if (req.reserved0 || req.reserved[0] || req.reserved[1] ||
	    (udata->inlen > sizeof(req) &&
	     !ib_is_udata_cleared(udata, sizeof(req),
				  udata->inlen - sizeof(req))) ||
	    !softhca_qp_geometry_ok(dev, qp->hw_type, attr->srq, &req,
				    &attr->cap)) {
		ibdev_dbg(&dev->ibdev,
			  "create_qp: bad request (sq 2^%u, rq 2^%u x 2^%u)\n",
			  req.log_sq_size, req.log_rq_size, req.log_rq_stride);
		return -EINVAL;
	}

	size = (attr->srq ? 0 :
		(size_t)1 << (req.log_rq_size + req.log_rq_stride)) +
	       ((size_t)1 << (req.log_sq_size + SOFTHCA_LOG_WQEBB));
	qp->umem = ib_umem_get(&dev->ibdev, req.buf_addr, size,
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(qp->umem)) {
		ret = PTR_ERR(qp->umem);
		ibdev_dbg(&dev->ibdev, "create_qp: cannot pin buffer (%d)\n",
			  ret);
		return ret;
	}
	pgsz = softhca_umem_queue_block(qp->umem, dev->caps.page_size_cap,
					&page_offset);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "create_qp: buffer 0x%llx misaligned\n",
			  req.buf_addr);
		ret = -EINVAL;
		goto err_umem;
	}
	ret = softhca_dbrec_map(&uctx->dbrecs, current->mm, req.db_addr,
				&qp->db);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_qp: dbrec 0x%llx unusable (%d)\n",
			  req.db_addr, ret);
		goto err_umem;
	}
	ret = softhca_pas_from_umem(dev, qp->umem, pgsz, &pb);
	if (ret)
		goto err_db;
	pb.page_offset = page_offset;
	memset(&ctx, 0, sizeof(ctx));
	ctx.log_sq_size = req.log_sq_size;
	ctx.log_rq_size = req.log_rq_size;
	ctx.log_rq_stride = req.log_rq_stride;
	ctx.uar = cpu_to_le32(uctx->uar);
	ctx.dbrec_addr = cpu_to_le64(qp->db.dma);
	softhca_pas_to_prm(&pb, &ctx.pas);
	ret = softhca_qp_hw_create(dev, qp, attr, &ctx);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_qp: CREATE_QP failed (%d)\n",
			  ret);
		goto err_db;
	}

	qp->cap.max_send_wr = req.max_send_wr;
	qp->cap.max_recv_wr = req.max_recv_wr;
	qp->cap.max_send_sge = req.max_send_sge;
	qp->cap.max_recv_sge = req.max_recv_sge;
	qp->cap.max_inline_data = req.max_inline_data;
	resp.qpn = qp->qpn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_hw;
	return 0;

err_hw:
	if (softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_QP, qp->qpn))
		return ret;	/* the card keeps it: so does the QP its memory */
err_db:
	softhca_dbrec_unmap(&uctx->dbrecs, &qp->db);
err_umem:
	softhca_umem_put(dev, qp->umem);
	return ret;
}

/* Undo softhca_uqp_create() or softhca_kqp_create() once the card let go. */
static void softhca_qp_free_mem(struct softhca_dev *dev, struct softhca_qp *qp,
				struct ib_udata *udata)
{
	struct softhca_ucontext *uctx;

	if (qp->kernel) {
		softhca_kqp_free_mem(dev, qp);
		return;
	}
	uctx = rdma_udata_to_drv_context(udata, struct softhca_ucontext, ibuc);
	softhca_dbrec_unmap(&uctx->dbrecs, &qp->db);
	softhca_umem_put(dev, qp->umem);
}

int softhca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		      struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp *qp = to_sqp(ibqp);
	int ret;

	qp->kernel = !udata;
	ret = softhca_qp_check_init_attr(dev, attr, qp->kernel, &qp->hw_type);
	if (ret)
		return ret;
	qp->sq_sig_type = attr->sq_sig_type;
	if (qp->kernel)
		ret = softhca_kqp_create(dev, qp, attr);
	else
		ret = softhca_uqp_create(dev, qp, attr, udata);
	if (ret)
		return ret;
	if (qp->hw_type == SOFTHCA_QPT_GSI && qp->qpn != SOFTHCA_GSI_QPN)
		ibdev_warn(&dev->ibdev, "the card made GSI QP %u, not QP1\n",
			   qp->qpn);

	refcount_set(&qp->refcount, 1);
	init_completion(&qp->free);
	ret = xa_insert_bh(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (ret)
		goto err_hw;
	attr->cap = qp->cap;
	ibqp->qp_num = qp->qpn;
	return 0;

err_hw:
	if (!softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_QP, qp->qpn))
		softhca_qp_free_mem(dev, qp, udata);
	return ret;
}

int softhca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp *qp = to_sqp(ibqp);
	int ret;

	/* the card lets go of the QP (its engine too), then the EQ tasklet */
	ret = softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_QP, qp->qpn);
	if (ret)
		return ret;
	xa_erase_bh(&dev->qps, qp->qpn);
	if (!refcount_dec_and_test(&qp->refcount))
		wait_for_completion(&qp->free);
	if (qp->kernel)
		softhca_kqp_clean_cqs(qp);
	softhca_qp_free_mem(dev, qp, udata);
	return 0;
}

static int softhca_qp_query_hw(struct softhca_dev *dev, u32 qpn,
			       struct softhca_qp_attr *attr)
{
	struct softhca_obj_in in = { .num = cpu_to_le32(qpn) };
	struct softhca_qp_query_out out;
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_QP, &in, sizeof(in),
			       &out, sizeof(out));
	if (!ret)
		*attr = out.attr;
	return ret;
}

/* Check attribute values the core's transition table does not. */
static int softhca_qp_check_attr(struct softhca_dev *dev, struct ib_qp *ibqp,
				 struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != SOFTHCA_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index > 0)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 ||
	     attr->path_mtu > ib_mtu_int_to_enum(dev->caps.max_mtu)))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > dev->caps.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > dev->caps.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & IB_QP_AV) {
		const struct ib_global_route *grh;

		if (!(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
			return -EINVAL;	/* RoCE needs a GRH */
		grh = rdma_ah_read_grh(&attr->ah_attr);
		if (grh->sgid_index >= dev->caps.gid_table_len)
			return -EINVAL;
	}
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	return 0;
}

static void softhca_qp_attr_to_hw(struct ib_qp_attr *attr, int mask,
				  struct softhca_qp_attr *a)
{
	u32 m = 0;

	if (mask & IB_QP_STATE) {
		m |= SOFTHCA_QP_A_STATE;
		a->state = softhca_qps_to_hw[attr->qp_state];
	}
	if (mask & IB_QP_ACCESS_FLAGS) {
		m |= SOFTHCA_QP_A_ACCESS;
		a->access = cpu_to_le32(softhca_qp_access_to_hw(attr->qp_access_flags));
	}
	if (mask & IB_QP_PKEY_INDEX) {
		m |= SOFTHCA_QP_A_PKEY;
		a->pkey_index = cpu_to_le16(attr->pkey_index);
	}
	if (mask & IB_QP_PORT) {
		m |= SOFTHCA_QP_A_PORT;
		a->port = attr->port_num;
	}
	if (mask & IB_QP_QKEY) {
		m |= SOFTHCA_QP_A_QKEY;
		a->qkey = cpu_to_le32(attr->qkey);
	}
	if (mask & IB_QP_AV) {
		const struct ib_global_route *grh =
			rdma_ah_read_grh(&attr->ah_attr);

		m |= SOFTHCA_QP_A_AV;
		memcpy(a->dgid, grh->dgid.raw, sizeof(a->dgid));
		memcpy(a->dmac, attr->ah_attr.roce.dmac, sizeof(a->dmac));
		a->sgid_index = grh->sgid_index;
		a->hop_limit = grh->hop_limit;
		a->traffic_class = grh->traffic_class;
		a->flow_label = cpu_to_le32(grh->flow_label);
		a->sl = rdma_ah_get_sl(&attr->ah_attr);
	}
	if (mask & IB_QP_PATH_MTU) {
		m |= SOFTHCA_QP_A_PATH_MTU;
		a->path_mtu = attr->path_mtu;
	}
	if (mask & IB_QP_TIMEOUT) {
		m |= SOFTHCA_QP_A_TIMEOUT;
		a->timeout = attr->timeout;
	}
	if (mask & IB_QP_RETRY_CNT) {
		m |= SOFTHCA_QP_A_RETRY_CNT;
		a->retry_cnt = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		m |= SOFTHCA_QP_A_RNR_RETRY;
		a->rnr_retry = attr->rnr_retry;
	}
	if (mask & IB_QP_RQ_PSN) {
		m |= SOFTHCA_QP_A_RQ_PSN;
		a->rq_psn = cpu_to_le32(attr->rq_psn);
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		m |= SOFTHCA_QP_A_MAX_QP_RD_ATOMIC;
		a->max_rd_atomic = attr->max_rd_atomic;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		m |= SOFTHCA_QP_A_MIN_RNR_TIMER;
		a->min_rnr_timer = attr->min_rnr_timer;
	}
	if (mask & IB_QP_SQ_PSN) {
		m |= SOFTHCA_QP_A_SQ_PSN;
		a->sq_psn = cpu_to_le32(attr->sq_psn);
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		m |= SOFTHCA_QP_A_MAX_DEST_RD_ATOMIC;
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	if (mask & IB_QP_DEST_QPN) {
		m |= SOFTHCA_QP_A_DEST_QPN;
		a->dest_qpn = cpu_to_le32(attr->dest_qp_num);
	}
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) {
		m |= SOFTHCA_QP_A_SQD_NOTIFY;
		a->sqd_notify = attr->en_sqd_async_notify;
	}
	a->mask = cpu_to_le32(m);
}

int softhca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, next;
	struct softhca_qp_attr a;
	int ret;

	if (mask & ~SOFTHCA_QP_ATTR_MASK) {
		ibdev_dbg(&dev->ibdev, "modify_qp: attributes 0x%x unsupported\n",
			  mask & ~SOFTHCA_QP_ATTR_MASK);
		return -EOPNOTSUPP;
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&dev->ibdev, "modify_qp: unexpected request data\n");
		return -EINVAL;
	}
	ret = softhca_qp_query_hw(dev, qp->qpn, &a);
	if (ret)
		return ret;
	cur = a.state <= SOFTHCA_QPS_ERR ? softhca_qps_from_hw[a.state] :
					   IB_QPS_ERR;
	if (mask & IB_QP_CUR_STATE)
		cur = attr->cur_qp_state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		ibdev_dbg(&dev->ibdev,
			  "modify_qp: QP %u %d -> %d with mask 0x%x is not allowed\n",
			  qp->qpn, cur, next, mask);
		return -EINVAL;
	}
	ret = softhca_qp_check_attr(dev, ibqp, attr, mask);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "modify_qp: QP %u attribute out of range\n",
			  qp->qpn);
		return ret;
	}

	memset(&a, 0, sizeof(a));
	a.qpn = cpu_to_le32(qp->qpn);
	softhca_qp_attr_to_hw(attr, mask & ~IB_QP_CUR_STATE, &a);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_MODIFY_QP, &a, sizeof(a),
			       NULL, 0);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "modify_qp: MODIFY_QP failed (%d)\n", ret);
		return ret;
	}
	if (qp->kernel && (mask & IB_QP_STATE))
		softhca_kqp_set_state(qp, next);
	return 0;
}

int softhca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp *qp = to_sqp(ibqp);
	struct softhca_qp_attr a;
	union ib_gid dgid;
	int ret;

	ret = softhca_qp_query_hw(dev, qp->qpn, &a);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = a.state <= SOFTHCA_QPS_ERR ?
			 softhca_qps_from_hw[a.state] : IB_QPS_ERR;
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = a.path_mtu ? a.path_mtu : IB_MTU_1024;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(a.qkey);
	attr->rq_psn = le32_to_cpu(a.rq_psn);
	attr->sq_psn = le32_to_cpu(a.sq_psn);
	attr->dest_qp_num = le32_to_cpu(a.dest_qpn);
	attr->qp_access_flags = softhca_qp_access_from_hw(le32_to_cpu(a.access));
	attr->cap = qp->cap;
	attr->pkey_index = le16_to_cpu(a.pkey_index);
	attr->en_sqd_async_notify = a.sqd_notify;
	attr->sq_draining = 0;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->port_num = SOFTHCA_PORT;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	memcpy(dgid.raw, a.dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(&attr->ah_attr, &dgid, le32_to_cpu(a.flow_label),
			a.sgid_index, a.hop_limit, a.traffic_class);
	rdma_ah_set_sl(&attr->ah_attr, a.sl);
	rdma_ah_set_port_num(&attr->ah_attr, SOFTHCA_PORT);

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->port_num = SOFTHCA_PORT;
	return 0;
}

/*
 * A kernel QP posts through the driver (softhca_post.c). A user QP's
 * posting is the provider's; a zero-WR post is the wake-up call for an
 * idle card of a provider without a wake-up file: ring the engine's
 * doorbell. Work requests on a user QP are refused: its rings are the
 * provider's.
 */
int softhca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp *qp = to_sqp(ibqp);

	if (qp->kernel)
		return softhca_kqp_post_send(dev, qp, wr, bad_wr);
	if (wr) {
		ibdev_dbg(&dev->ibdev, "post_send: WRs on user QP %u\n",
			  qp->qpn);
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	trace_softhca_engine_doorbell(dev, qp->qpn, "post_send");
	softhca_hw_write32(dev->hw, SOFTHCA_REG_ENGINE_DB, qp->qpn);
	return 0;
}

int softhca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp *qp = to_sqp(ibqp);

	if (qp->kernel)
		return softhca_kqp_post_recv(dev, qp, wr, bad_wr);
	if (wr) {
		ibdev_dbg(&dev->ibdev, "post_recv: WRs on user QP %u\n",
			  qp->qpn);
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	trace_softhca_engine_doorbell(dev, qp->qpn, "post_recv");
	softhca_hw_write32(dev->hw, SOFTHCA_REG_ENGINE_DB, qp->qpn);
	return 0;
}

static const enum ib_event_type softhca_qp_events[] = {
	[SOFTHCA_EQE_QP_FATAL] = IB_EVENT_QP_FATAL,
	[SOFTHCA_EQE_QP_LAST_WQE] = IB_EVENT_QP_LAST_WQE_REACHED,
	[SOFTHCA_EQE_QP_COMM_EST] = IB_EVENT_COMM_EST,
	[SOFTHCA_EQE_QP_REQ_ERR] = IB_EVENT_QP_REQ_ERR,
	[SOFTHCA_EQE_QP_ACCESS_ERR] = IB_EVENT_QP_ACCESS_ERR,
	[SOFTHCA_EQE_SQ_DRAINED] = IB_EVENT_SQ_DRAINED,
};

/* An async EQE about QP @qpn (from the async EQ's tasklet). */
void softhca_qp_event(struct softhca_dev *dev, u32 qpn, u8 type, u32 data)
{
	struct softhca_qp *qp;
	struct ib_event ev;

	xa_lock_bh(&dev->qps);
	qp = xa_load(&dev->qps, qpn);
	if (qp)
		refcount_inc(&qp->refcount);
	xa_unlock_bh(&dev->qps);
	if (!qp) {
		ibdev_dbg(&dev->ibdev, "event 0x%x for unknown QP %u\n", type,
			  qpn);
		return;
	}
	if (type != SOFTHCA_EQE_QP_COMM_EST && type != SOFTHCA_EQE_SQ_DRAINED)
		ibdev_dbg(&dev->ibdev, "QP %u error event 0x%x syndrome 0x%x\n",
			  qpn, type, data);
	if (qp->ibqp.event_handler && type < ARRAY_SIZE(softhca_qp_events)) {
		ev.device = &dev->ibdev;
		ev.element.qp = &qp->ibqp;
		ev.event = softhca_qp_events[type];
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	if (refcount_dec_and_test(&qp->refcount))
		complete(&qp->free);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: kernel CQs. The ring is coherent memory with every owner
 * bit preset (as the provider presets its rings), described by a PAS; the
 * doorbell record is a kernel dbrec slot; doorbells go to the kernel UAR.
 *
 * poll_cq reads CQEs by owner bit, turns each into an ib_wc (the wr_id
 * comes back from the QP's or SRQ's bookkeeping, softhca_kq.c) and then
 * publishes the consumer index. req_notify_cq writes the arm word with
 * the CQ's arm sequence number; the card raises one event per sequence
 * number, and softhca_kcq_event() advances it when that event arrives.
 * ib_core's poll contexts call poll_cq from softirq (IB_POLL_SOFTIRQ),
 * from a workqueue or directly, and rely on IB_CQ_REPORT_MISSED_EVENTS:
 * a CQE already valid after arming is reported so that they poll again.
 *
 * The CQ's lock (taken with interrupts off: any context polls) covers the
 * consumer index, the arm sequence number and the doorbell record.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>

#include "softhca.h"
#include "softhca_trace.h"

static const enum ib_wc_status softhca_wc_status[SOFTHCA_CQE_ST_MAX + 1] = {
	[SOFTHCA_CQE_ST_SUCCESS]	= IB_WC_SUCCESS,
	[SOFTHCA_CQE_ST_LOC_LEN]	= IB_WC_LOC_LEN_ERR,
	[SOFTHCA_CQE_ST_LOC_QP_OP]	= IB_WC_LOC_QP_OP_ERR,
	[SOFTHCA_CQE_ST_LOC_PROT]	= IB_WC_LOC_PROT_ERR,
	[SOFTHCA_CQE_ST_WR_FLUSH]	= IB_WC_WR_FLUSH_ERR,
	[SOFTHCA_CQE_ST_MW_BIND]	= IB_WC_MW_BIND_ERR,
	[SOFTHCA_CQE_ST_BAD_RESP]	= IB_WC_BAD_RESP_ERR,
	[SOFTHCA_CQE_ST_LOC_ACCESS]	= IB_WC_LOC_ACCESS_ERR,
	[SOFTHCA_CQE_ST_REM_INV_REQ]	= IB_WC_REM_INV_REQ_ERR,
	[SOFTHCA_CQE_ST_REM_ACCESS]	= IB_WC_REM_ACCESS_ERR,
	[SOFTHCA_CQE_ST_REM_OP]		= IB_WC_REM_OP_ERR,
	[SOFTHCA_CQE_ST_RETRY_EXC]	= IB_WC_RETRY_EXC_ERR,
	[SOFTHCA_CQE_ST_RNR_RETRY_EXC]	= IB_WC_RNR_RETRY_EXC_ERR,
	[SOFTHCA_CQE_ST_REM_ABORT]	= IB_WC_REM_ABORT_ERR,
	[SOFTHCA_CQE_ST_GENERAL]	= IB_WC_GENERAL_ERR,
};

static enum ib_wc_opcode softhca_wc_opcode(u8 op)
{
	switch (op) {
	case SOFTHCA_CQE_OP_SEND:
		return IB_WC_SEND;
	case SOFTHCA_CQE_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case SOFTHCA_CQE_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case SOFTHCA_CQE_OP_CMP_SWAP:
		return IB_WC_COMP_SWAP;
	case SOFTHCA_CQE_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case SOFTHCA_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SOFTHCA_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case SOFTHCA_CQE_OP_RECV_RDMA_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		/* only the receive bit is known of an unknown opcode */
		return op & SOFTHCA_CQE_OP_RECV ? IB_WC_RECV : IB_WC_SEND;
	}
}

/**
 * softhca_cqe_to_wc - everything an ib_wc takes from the CQE alone
 * @cqe: the CQE
 * @wc: filled but for wr_id and qp, which the CQE's QP gives
 *
 * The immediate data stays in network order; the rkey a SEND_INV
 * invalidated is returned in CPU order (ib_wc's invalidate_rkey). A UD
 * receive with a GRH says which network header the 40 bytes before its
 * payload hold, as RoCE consumers (ib_init_ah_attr_from_wc) need.
 */
void softhca_cqe_to_wc(const struct softhca_cqe *cqe, struct ib_wc *wc)
{
	u8 flags = cqe->flags;

	wc->status = cqe->status <= SOFTHCA_CQE_ST_MAX ?
		     softhca_wc_status[cqe->status] : IB_WC_GENERAL_ERR;
	wc->opcode = softhca_wc_opcode(cqe->opcode);
	wc->vendor_err = le32_to_cpu(cqe->vendor_err);
	wc->byte_len = le32_to_cpu(cqe->byte_cnt);
	wc->src_qp = le32_to_cpu(cqe->src_qp);
	wc->pkey_index = le16_to_cpu(cqe->pkey_index);
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	wc->port_num = SOFTHCA_PORT;
	wc->vlan_id = 0;
	eth_zero_addr(wc->smac);
	wc->network_hdr_type = 0;
	wc->wc_flags = 0;
	wc->ex.imm_data = 0;
	if (flags & SOFTHCA_CQE_F_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->imm);
	} else if (flags & SOFTHCA_CQE_F_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm;
	}
	if (flags & SOFTHCA_CQE_F_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = flags & SOFTHCA_CQE_F_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
}

/* The CQE at the consumer index if the card wrote it, else NULL. */
static struct softhca_cqe *softhca_kcq_next(struct softhca_cq *cq)
{
	struct softhca_cqe *cqe =
		&cq->ring[softhca_cq_slot(cq->ci, cq->base, cq->log_size)];

	if ((READ_ONCE(cqe->op_own) & SOFTHCA_CQE_OWNER) !=
	    softhca_cq_owner(cq->ci, cq->base, cq->log_size))
		return NULL;
	/* read the body only after seeing the owner bit */
	dma_rmb();
	return cqe;
}

/* A receive completed on SRQ WQE @index: back to the free list. */
static u64 softhca_kcq_srq_complete(struct softhca_srq *srq, u32 index)
{
	unsigned long flags;
	u64 wr_id;

	spin_lock_irqsave(&srq->lock, flags);
	wr_id = softhca_ksrq_complete(&srq->ring, index);
	spin_unlock_irqrestore(&srq->lock, flags);
	return wr_id;
}

/**
 * softhca_kcq_cqe_to_wc - a CQE of a kernel QP as ib_core wants it
 * @dev: the device
 * @cqe: the CQE
 * @wc: filled completely, wc->qp and wr_id included
 *
 * The WQE the CQE names leaves its queue: a send WQE retires every
 * unsignaled one before it, an SRQ WQE returns to the SRQ's free list. An
 * error completion means the card moved the QP to ERR.
 *
 * Return: true, or false for a CQE of no kernel QP (one destroyed
 * meanwhile is cleaned from its CQs; nothing else should be here), which
 * the caller drops.
 */
static bool softhca_kcq_cqe_to_wc(struct softhca_dev *dev,
				  const struct softhca_cqe *cqe,
				  struct ib_wc *wc)
{
	u32 qpn = le32_to_cpu(cqe->qpn), index = le32_to_cpu(cqe->wqe_counter);
	struct softhca_qp *qp = xa_load(&dev->qps, qpn);

	if (!qp || !qp->kernel) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "poll_cq: CQE of unknown QP %u dropped\n",
				      qpn);
		return false;
	}
	softhca_cqe_to_wc(cqe, wc);
	wc->qp = &qp->ibqp;
	if (!(cqe->opcode & SOFTHCA_CQE_OP_RECV))
		wc->wr_id = softhca_ksq_complete(&qp->sq, index);
	else if (qp->ibqp.srq)
		wc->wr_id = softhca_kcq_srq_complete(to_ssrq(qp->ibqp.srq),
						     index);
	else
		wc->wr_id = softhca_krq_complete(&qp->rq, index);
	if (wc->status != IB_WC_SUCCESS)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	return true;
}

/* Publish the consumer index: the card may reuse the CQEs before it. */
static void softhca_kcq_update_ci(struct softhca_cq *cq)
{
	/* the CQEs are read before the card may overwrite them */
	mb();
	WRITE_ONCE(cq->dbrec->ci, cpu_to_le32(cq->ci & SOFTHCA_CQ_ARM_CI_MASK));
}

int softhca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq *cq = to_scq(ibcq);
	struct softhca_cqe *cqe;
	unsigned long flags;
	u32 start;
	int n = 0;

	if (!cq->kernel) {
		ibdev_dbg(&dev->ibdev, "poll_cq: CQ %u is a user CQ\n",
			  cq->cqn);
		return -EINVAL;
	}
	spin_lock_irqsave(&cq->lock, flags);
	start = cq->ci;
	while (n < num_entries && (cqe = softhca_kcq_next(cq))) {
		cq->ci++;
		if (softhca_kcq_cqe_to_wc(dev, cqe, &wc[n]))
			n++;
	}
	if (cq->ci != start)
		softhca_kcq_update_ci(cq);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * softhca_kcq_arm - write the arm word (CQ lock held)
 * @cq: the kernel CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, maybe with
 *	   IB_CQ_REPORT_MISSED_EVENTS
 *
 * The card raises the event when it writes a CQE after seeing the arm.
 * A CQE it wrote before, still unpolled, is reported with
 * IB_CQ_REPORT_MISSED_EVENTS; without, CQ_DB makes the card raise the
 * event at once.
 *
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS and a CQE waits at the
 * consumer index, else 0.
 */
static int softhca_kcq_arm(struct softhca_cq *cq,
			   enum ib_cq_notify_flags flags)
{
	bool solicited = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED;
	u32 arm = softhca_cq_arm(cq->arm_sn, solicited,
				 cq->ci & SOFTHCA_CQ_ARM_CI_MASK);

	WRITE_ONCE(cq->dbrec->arm, cpu_to_le32(arm));
	trace_softhca_kcq_arm(to_sdev(cq->ibcq.device), cq->cqn, arm);
	if (cq->uar) {
		/* the record first, then the doorbell */
		wmb();
		WRITE_ONCE(*(__le64 *)(cq->uar + SOFTHCA_UAR_CQ_DB),
			   cpu_to_le64(softhca_cq_db(arm, cq->cqn)));
	}
	/*
	 * The card writes a CQE, then reads the arm word; we write the arm
	 * word, then read the CQE: with a full barrier on both sides, one of
	 * us sees the other. A CQE the card wrote before it could see the
	 * arm is reported (IB_CQ_REPORT_MISSED_EVENTS), or the card is told
	 * through CQ_DB and raises the event at once.
	 */
	mb();
	if (!softhca_kcq_next(cq))
		return 0;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		return 1;
	trace_softhca_cq_doorbell(to_sdev(cq->ibcq.device), cq->cqn);
	softhca_hw_write32(to_sdev(cq->ibcq.device)->hw, SOFTHCA_REG_CQ_DB,
			   cq->cqn);
	return 0;
}

int softhca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct softhca_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret;

	if (!cq->kernel) {
		ibdev_dbg(ibcq->device, "req_notify_cq: CQ %u is a user CQ\n",
			  cq->cqn);
		return -EINVAL;
	}
	spin_lock_irqsave(&cq->lock, irqflags);
	ret = softhca_kcq_arm(cq, flags);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/* The card raised the event of the current arm (EQ tasklet). */
void softhca_kcq_event(struct softhca_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->arm_sn++;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * softhca_kcq_clean - forget the CQEs of QP @qpn still in a kernel CQ
 * @cq: the CQ (a user CQ is left alone)
 * @qpn: the QP, destroyed or reset: the card writes no more CQEs for it
 * @srq: its SRQ if it has one, whose WQEs those CQEs hold
 *
 * The CQEs stay where they are with their QP number cleared (QPN 0 is no
 * QP): poll_cq consumes and drops them. SRQ WQEs they completed return to
 * the SRQ's free list.
 */
void softhca_kcq_clean(struct softhca_cq *cq, u32 qpn, struct softhca_srq *srq)
{
	struct softhca_cqe *cqe;
	unsigned long flags;
	u32 ci;

	if (!cq->kernel)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	ci = cq->ci;
	while ((cqe = softhca_kcq_next(cq))) {
		u32 index = le32_to_cpu(cqe->wqe_counter);

		if (le32_to_cpu(cqe->qpn) == qpn) {
			if (srq && (cqe->opcode & SOFTHCA_CQE_OP_RECV))
				softhca_kcq_srq_complete(srq, index);
			cqe->qpn = cpu_to_le32(0);
		}
		cq->ci++;
	}
	cq->ci = ci;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * softhca_kcq_create - a kernel CQ of 2^@log_size CQEs
 * @dev: the device
 * @cq: the CQ
 * @attr: its attributes (checked)
 * @log_size: log2 of its CQEs
 *
 * Return: 0 or an errno; on error nothing is left allocated.
 */
int softhca_kcq_create(struct softhca_dev *dev, struct softhca_cq *cq,
		       const struct ib_cq_init_attr *attr, u32 log_size)
{
	struct device *dma_dev = softhca_hw_device(dev->hw);
	size_t size = (size_t)SOFTHCA_CQE_SIZE << log_size;
	struct softhca_pas_buf pb;
	u32 i;
	int ret;

	if (!dev->kuar_valid) {
		ibdev_dbg(&dev->ibdev, "create_cq: no kernel UAR\n");
		return -EOPNOTSUPP;
	}
	spin_lock_init(&cq->lock);
	cq->log_size = log_size;
	cq->base = 0;
	cq->ci = 0;
	cq->arm_sn = 0;
	cq->uar = dev->kuar_va;
	cq->ring = dma_alloc_coherent(dma_dev, size, &cq->ring_dma,
				      GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	/* every CQE starts owned by the card: the owner bit of no pass yet */
	for (i = 0; i < BIT(log_size); i++)
		cq->ring[i].op_own = SOFTHCA_CQE_OWNER;

	ret = softhca_kdbrec_alloc(&dev->kdbrecs, &cq->kdb);
	if (ret)
		goto err_ring;
	cq->dbrec = cq->kdb.cpu;
	ret = softhca_pas_from_coherent(dev, cq->ring_dma, size, &pb);
	if (ret)
		goto err_dbrec;
	ret = softhca_cq_hw_create(dev, cq, &pb, log_size,
				   dev->ceqs[attr->comp_vector].eqn, dev->kuar,
				   cq->kdb.dma);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "create_cq: CREATE_CQ failed (%d)\n",
			  ret);
		goto err_dbrec;
	}
	return 0;

err_dbrec:
	softhca_kdbrec_free(&dev->kdbrecs, &cq->kdb);
err_ring:
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(dma_dev, size, cq->ring, cq->ring_dma);
	return ret;
}

/**
 * softhca_kcq_resize - move a kernel CQ to a new ring of 2^@log_size CQEs
 * @dev: the device
 * @cq: the kernel CQ (its resize_lock held)
 * @log_size: log2 of the new ring's CQEs
 *
 * RESIZE_CQ switches the card to the new ring at the consumer index it
 * finds in the doorbell record (base); pollers meanwhile keep taking the
 * CQEs the card wrote into the old ring before the switch (up to pi).
 * Under the CQ's lock those still unpolled move to their slots in the new
 * ring, with its owner bits, and the new ring takes over; the old one is
 * freed after.
 *
 * Return: 0, or an errno with the CQ as it was.
 */
int softhca_kcq_resize(struct softhca_dev *dev, struct softhca_cq *cq,
		       u32 log_size)
{
	struct device *dma_dev = softhca_hw_device(dev->hw);
	size_t size = (size_t)SOFTHCA_CQE_SIZE << log_size, old_size;
	struct softhca_cqe *ring, *old;
	struct softhca_pas_buf pb;
	dma_addr_t dma, old_dma;
	unsigned long flags;
	u32 base, pi, j;
	int ret;

	ring = dma_alloc_coherent(dma_dev, size, &dma, GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	/* owned by the card: the owner bit of no pass yet */
	for (j = 0; j < BIT(log_size); j++)
		ring[j].op_own = SOFTHCA_CQE_OWNER;
	ret = softhca_pas_from_coherent(dev, dma, size, &pb);
	if (ret)
		goto err_ring;
	ret = softhca_cq_hw_resize(dev, cq, &pb, log_size, &base, &pi);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "resize_cq: RESIZE_CQ of CQ %u failed (%d)\n",
			  cq->cqn, ret);
		goto err_ring;
	}

	spin_lock_irqsave(&cq->lock, flags);
	/* the CQEs before pi are written: read them after knowing so */
	dma_rmb();
	for (j = cq->ci; j != pi; j++) {
		struct softhca_cqe *from =
			&cq->ring[softhca_cq_slot(j, cq->base, cq->log_size)];
		struct softhca_cqe *to =
			&ring[softhca_cq_slot(j, base, log_size)];

		memcpy(to, from, sizeof(*to));
		to->op_own = (from->op_own & ~SOFTHCA_CQE_OWNER) |
			     softhca_cq_owner(j, base, log_size);
	}
	old = cq->ring;
	old_dma = cq->ring_dma;
	old_size = (size_t)SOFTHCA_CQE_SIZE << cq->log_size;
	cq->ring = ring;
	cq->ring_dma = dma;
	cq->log_size = log_size;
	cq->base = base;
	spin_unlock_irqrestore(&cq->lock, flags);
	dma_free_coherent(dma_dev, old_size, old, old_dma);
	return 0;

err_ring:
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(dma_dev, size, ring, dma);
	return ret;
}

/* Free a kernel CQ's memory once the card let go of it. */
void softhca_kcq_free_mem(struct softhca_dev *dev, struct softhca_cq *cq)
{
	softhca_kdbrec_free(&dev->kdbrecs, &cq->kdb);
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(softhca_hw_device(dev->hw),
				  (size_t)SOFTHCA_CQE_SIZE << cq->log_size,
				  cq->ring, cq->ring_dma);
	cq->ring = NULL;
}

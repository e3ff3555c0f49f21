// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: posting to kernel QPs. Each ib_send_wr becomes a struct
 * softhca_send_wr (softhca_kwr_convert()) that the shared encoder sizes
 * and writes (include/softhca_wqe.h); receives are written by
 * softhca_rwqe_write(). A post publishes the new producer count in the
 * doorbell record after a write barrier and rings the card
 * (softhca_kdoorbell()). Kernel SRQs post in softhca_srq.c.
 *
 * ULPs post from any context (process, softirq, completion handlers), so
 * each queue's producer side is under a spinlock taken with interrupts
 * off. Posting follows the verbs rules on the QP's state: no sends before
 * RTS, no receives in RESET; a QP in ERR takes both and the card flushes
 * them, unsignaled ones included (what ib_drain_qp() relies on).
 */
#include <linux/log2.h>

#include "softhca.h"
#include "softhca_trace.h"

#define SOFTHCA_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED |	\
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/* REG_MR: the MR's page list, as map_mr_sg filled it, under @wr->key. */
static int softhca_kwr_reg(const struct ib_reg_wr *wr, struct softhca_kwr *k)
{
	struct softhca_mr *mr = to_smr(wr->mr);
	struct softhca_wqe_reg_mr *reg = &k->reg;

	if (mr->kind != SOFTHCA_MR_FAST_REG ||
	    SOFTHCA_MKEY_INDEX(wr->key) != SOFTHCA_MKEY_INDEX(mr->mkey) ||
	    !is_power_of_2(mr->ibmr.page_size) ||
	    mr->npages > mr->max_pages ||
	    (wr->access & ~(SOFTHCA_MR_ACCESS | IB_ACCESS_OPTIONAL)))
		return -EINVAL;
	memset(reg, 0, sizeof(*reg));
	reg->mkey = cpu_to_le32(wr->key);
	reg->access = cpu_to_le32(softhca_mr_access(wr->access));
	reg->iova = cpu_to_le64(mr->ibmr.iova);
	reg->length = cpu_to_le64(mr->ibmr.length);
	reg->page_list = cpu_to_le64(mr->pages_dma);
	reg->npages = cpu_to_le32(mr->npages);
	reg->log_page_size = ilog2(mr->ibmr.page_size);
	k->swr.reg = reg;
	return 0;
}

/* A UD or GSI send: the AH's address vector, to remote_qpn. */
static int softhca_kwr_ud(const struct ib_ud_wr *wr, u8 qp_type,
			  struct softhca_kwr *k)
{
	if (!wr->ah || wr->pkey_index)
		return -EINVAL;
	k->av = to_sah(wr->ah)->av;
	k->av.dest_qpn = cpu_to_le32(wr->remote_qpn);
	/*
	 * GSI sends carry the GSI Q_Key whatever the MAD layer asks
	 * (IB_QP_SET_QKEY, i.e. "the QP's own", which is the same value).
	 */
	k->av.qkey = cpu_to_le32(qp_type == SOFTHCA_QPT_GSI ?
				 SOFTHCA_GSI_QKEY : wr->remote_qkey);
	k->swr.av = &k->av;
	return 0;
}

/**
 * softhca_kwr_convert - an ib_send_wr in the encoder's terms
 * @wr: the work request
 * @qp_type: the QP's softhca_qp_type
 * @sig_all: the QP signals every WR (IB_SIGNAL_ALL_WR)
 * @k: filled: k->swr points at the SGE list of @wr and at k->av or k->reg
 *
 * Only the WR's form is checked here; whether the QP takes it is
 * softhca_wqe_size()'s.
 *
 * Return: 0, or -EINVAL for an opcode or flag the card has no WQE for, a
 * UD send without AH or on a P_Key index but 0, a REG_MR of an MR that is
 * not a fast-registration MR of that key.
 */
int softhca_kwr_convert(const struct ib_send_wr *wr, u8 qp_type, bool sig_all,
			struct softhca_kwr *k)
{
	struct softhca_send_wr *s = &k->swr;
	bool ud = qp_type == SOFTHCA_QPT_UD || qp_type == SOFTHCA_QPT_GSI;

	memset(s, 0, sizeof(*s));
	if ((wr->send_flags & ~SOFTHCA_SEND_FLAGS) || wr->num_sge < 0)
		return -EINVAL;
	s->flags = (wr->send_flags & IB_SEND_SIGNALED || sig_all ?
		    SOFTHCA_WQE_F_SIGNALED : 0) |
		   (wr->send_flags & IB_SEND_SOLICITED ?
		    SOFTHCA_WQE_F_SOLICITED : 0) |
		   (wr->send_flags & IB_SEND_FENCE ? SOFTHCA_WQE_F_FENCE : 0) |
		   (wr->send_flags & IB_SEND_INLINE ? SOFTHCA_WQE_F_INLINE : 0);
	s->sg = softhca_sgl(wr->sg_list);
	s->num_sge = wr->num_sge;

	switch (wr->opcode) {
	case IB_WR_SEND:
		s->opcode = SOFTHCA_WQE_SEND;
		break;
	case IB_WR_SEND_WITH_IMM:
		s->opcode = SOFTHCA_WQE_SEND_IMM;
		s->imm = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
		s->opcode = SOFTHCA_WQE_SEND_INV;
		s->inv_key = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		s->imm = wr->ex.imm_data;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		s->opcode = wr->opcode == IB_WR_RDMA_READ ?
			    SOFTHCA_WQE_RDMA_READ :
			    wr->opcode == IB_WR_RDMA_WRITE ?
			    SOFTHCA_WQE_RDMA_WRITE : SOFTHCA_WQE_RDMA_WRITE_IMM;
		s->remote_addr = rdma_wr(wr)->remote_addr;
		s->rkey = rdma_wr(wr)->rkey;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		s->opcode = SOFTHCA_WQE_ATOMIC_CS;
		s->remote_addr = atomic_wr(wr)->remote_addr;
		s->rkey = atomic_wr(wr)->rkey;
		s->swap_add = atomic_wr(wr)->swap;
		s->compare = atomic_wr(wr)->compare_add;
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		s->opcode = SOFTHCA_WQE_ATOMIC_FA;
		s->remote_addr = atomic_wr(wr)->remote_addr;
		s->rkey = atomic_wr(wr)->rkey;
		s->swap_add = atomic_wr(wr)->compare_add;
		return 0;
	case IB_WR_LOCAL_INV:
		s->opcode = SOFTHCA_WQE_LOCAL_INV;
		s->inv_key = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_REG_MR:
		s->opcode = SOFTHCA_WQE_REG_MR;
		return softhca_kwr_reg(reg_wr(wr), k);
	default:
		return -EINVAL;
	}
	/* SEND and SEND_WITH_IMM: a datagram needs its address */
	return ud ? softhca_kwr_ud(ud_wr(wr), qp_type, k) : 0;
}

static const char *softhca_post_refusal(int err)
{
	return err == -ENOMEM ? "the queue is full" :
	       "the QP cannot take it";
}

int softhca_kqp_post_send(struct softhca_dev *dev, struct softhca_qp *qp,
			  const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	bool sig_all = qp->sq_sig_type == IB_SIGNAL_ALL_WR;
	enum ib_qp_state state;
	struct softhca_kwr k;
	unsigned long flags;
	int ret = 0, n = 0;

	if (softhca_cmd_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "post_send: QP %u: the device is dead\n",
			  qp->qpn);
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		ibdev_dbg(&dev->ibdev, "post_send: QP %u in state %d\n",
			  qp->qpn, state);
		*bad_wr = wr;
		ret = -EINVAL;
		goto out;
	}
	for (; wr; wr = wr->next, n++) {
		ret = softhca_kwr_convert(wr, qp->hw_type, sig_all, &k);
		if (!ret)
			ret = softhca_ksq_post(&qp->sq, &k.swr, wr->wr_id);
		/* the key the card will know the MKEY by (dereg needs it) */
		if (!ret && wr->opcode == IB_WR_REG_MR)
			WRITE_ONCE(to_smr(reg_wr(wr)->mr)->reg_key,
				   reg_wr(wr)->key);
		if (ret) {
			ibdev_dbg(&dev->ibdev,
				  "post_send: QP %u opcode %d, %d SGEs, flags 0x%x: %s (%d)\n",
				  qp->qpn, wr->opcode, wr->num_sge,
				  wr->send_flags, softhca_post_refusal(ret),
				  ret);
			*bad_wr = wr;
			break;
		}
	}
	if (n) {
		/* the WQEs are written before the card may read them */
		dma_wmb();
		WRITE_ONCE(qp->dbrec->sq_pi, cpu_to_le32(qp->sq.pi));
		trace_softhca_kqp_doorbell(dev, qp->qpn, true, qp->sq.pi);
		WRITE_ONCE(*(__le64 *)(dev->kuar_va + SOFTHCA_UAR_SQ_DB),
			   cpu_to_le64((u64)qp->sq.pi << 32 | qp->qpn));
	}
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (n)
		softhca_kdoorbell(dev, qp->qpn);
	return ret;
}

int softhca_kqp_post_recv(struct softhca_dev *dev, struct softhca_qp *qp,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	enum ib_qp_state state;
	unsigned long flags;
	int ret = 0, n = 0;

	if (softhca_cmd_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "post_recv: QP %u: the device is dead\n",
			  qp->qpn);
		*bad_wr = wr;
		return -EIO;
	}
	if (qp->ibqp.srq) {
		ibdev_dbg(&dev->ibdev, "post_recv: QP %u receives from an SRQ\n",
			  qp->qpn);
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET) {
		ibdev_dbg(&dev->ibdev, "post_recv: QP %u in RESET\n", qp->qpn);
		*bad_wr = wr;
		ret = -EINVAL;
		goto out;
	}
	for (; wr; wr = wr->next, n++) {
		ret = wr->num_sge < 0 ? -EINVAL :
		      softhca_krq_post(&qp->rq, softhca_sgl(wr->sg_list),
				       wr->num_sge, wr->wr_id);
		if (ret) {
			ibdev_dbg(&dev->ibdev,
				  "post_recv: QP %u, %d SGEs: %s (%d)\n",
				  qp->qpn, wr->num_sge,
				  softhca_post_refusal(ret), ret);
			*bad_wr = wr;
			break;
		}
	}
	if (n) {
		/* the WQEs are written before the card may read them */
		dma_wmb();
		WRITE_ONCE(qp->dbrec->rq_pi, cpu_to_le32(qp->rq.pi));
		trace_softhca_kqp_doorbell(dev, qp->qpn, false, qp->rq.pi);
	}
out:
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	/* receives wait for senders, but a QP in ERR flushes them */
	if (n && state == IB_QPS_ERR)
		softhca_kdoorbell(dev, qp->qpn);
	return ret;
}

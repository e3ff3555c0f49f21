// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: what the card holds, for people and tests. The contexts
 * come from the card itself (QUERY_CQ/QP/MKEY/SRQ/EQ), shown in debugfs
 * under softhca/<ibdev>/ (root only) and as restrack driver attributes
 * ("rdma resource show cq|qp|mr|srq -dd"). Those attributes reach any
 * user who may list resources, so they carry no key and no address: keys,
 * IOVAs and DMA addresses are only in the raw contexts ("rdma resource
 * show ... -r"), which ib_core gives to CAP_NET_ADMIN alone, as it hides
 * its own key attributes from other users.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "softhca.h"

static struct dentry *softhca_debugfs_root;

static int softhca_query(struct softhca_dev *dev, u16 opcode, u32 num,
			 void *out, u32 out_len)
{
	struct softhca_obj_in in = { .num = cpu_to_le32(num) };

	return softhca_cmd_exec(dev, opcode, &in, sizeof(in), out, out_len);
}

static u64 softhca_block_size(const struct softhca_pas *pas)
{
	return BIT_ULL(pas->log_block_size);
}

static int softhca_cqs_show(struct seq_file *s, void *unused)
{
	struct softhca_dev *dev = s->private;
	struct softhca_cq_query_out q;
	unsigned long cqn;
	void *entry;

	xa_for_each(&dev->cqs, cqn, entry) {
		if (softhca_query(dev, SOFTHCA_CMD_QUERY_CQ, cqn, &q, sizeof(q)))
			continue;	/* destroyed meanwhile */
		seq_printf(s,
			   "cqn %lu entries %lu cqe_size %lu block_size %llu page_offset %u pas_entries %u dbrec 0x%llx eqn %u uar %u pi %u ci %u\n",
			   cqn, BIT(q.ctx.log_size), BIT(q.ctx.log_cqe_size),
			   softhca_block_size(&q.ctx.pas), q.ctx.pas.page_offset,
			   le32_to_cpu(q.ctx.pas.nblocks),
			   le64_to_cpu(q.ctx.dbrec_addr), le32_to_cpu(q.ctx.eqn),
			   le32_to_cpu(q.ctx.uar), le32_to_cpu(q.pi),
			   le32_to_cpu(q.ci));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softhca_cqs);

static int softhca_mrs_show(struct seq_file *s, void *unused)
{
	struct softhca_dev *dev = s->private;
	struct softhca_mkey_query_out q;
	unsigned long index;
	void *entry;

	xa_for_each(&dev->mrs, index, entry) {
		if (softhca_query(dev, SOFTHCA_CMD_QUERY_MKEY,
				  xa_to_value(entry), &q, sizeof(q)))
			continue;
		seq_printf(s,
			   "mkey 0x%x pdn %u access 0x%x iova 0x%llx length %llu block_size %llu pas_entries %u\n",
			   le32_to_cpu(q.mkey), le32_to_cpu(q.ctx.pdn),
			   le32_to_cpu(q.ctx.access), le64_to_cpu(q.ctx.iova),
			   le64_to_cpu(q.ctx.length),
			   softhca_block_size(&q.ctx.pas),
			   le32_to_cpu(q.ctx.pas.nblocks));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softhca_mrs);

static int softhca_qps_show(struct seq_file *s, void *unused)
{
	struct softhca_dev *dev = s->private;
	struct softhca_qp_query_out q;
	unsigned long qpn;
	void *entry;

	xa_for_each(&dev->qps, qpn, entry) {
		if (softhca_query(dev, SOFTHCA_CMD_QUERY_QP, qpn, &q, sizeof(q)))
			continue;
		seq_printf(s,
			   "qpn %lu type %u state %u dest_qpn %u path_mtu %u sq_psn %u rq_psn %u pdn %u send_cqn %u recv_cqn %u srqn %u sq_bbs %lu rq_wqes %lu block_size %llu pas_entries %u dbrec 0x%llx sq_pi %u sq_next %u sq_ci %u rq_pi %u rq_ci %u\n",
			   qpn, q.ctx.type, q.attr.state,
			   le32_to_cpu(q.attr.dest_qpn), q.attr.path_mtu,
			   le32_to_cpu(q.attr.sq_psn), le32_to_cpu(q.attr.rq_psn),
			   le32_to_cpu(q.ctx.pdn), le32_to_cpu(q.ctx.send_cqn),
			   le32_to_cpu(q.ctx.recv_cqn), le32_to_cpu(q.ctx.srqn),
			   BIT(q.ctx.log_sq_size),
			   q.ctx.srqn ? 0 : BIT(q.ctx.log_rq_size),
			   softhca_block_size(&q.ctx.pas),
			   le32_to_cpu(q.ctx.pas.nblocks),
			   le64_to_cpu(q.ctx.dbrec_addr), le32_to_cpu(q.sq_pi),
			   le32_to_cpu(q.sq_next), le32_to_cpu(q.sq_ci),
			   le32_to_cpu(q.rq_pi), le32_to_cpu(q.rq_ci));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softhca_qps);

static void softhca_eq_show(struct seq_file *s, struct softhca_dev *dev,
			    struct softhca_eq *eq)
{
	struct softhca_eq_query_out q;

	if (softhca_query(dev, SOFTHCA_CMD_QUERY_EQ, eq->eqn, &q, sizeof(q)))
		return;
	seq_printf(s,
		   "eqn %u name %s irq %d vector %u entries %lu pi %u ci %u armed %u overruns %u\n",
		   eq->eqn, eq->name, eq->irq, le16_to_cpu(q.ctx.vector),
		   BIT(q.ctx.log_size), le32_to_cpu(q.pi), le32_to_cpu(q.ci),
		   le32_to_cpu(q.armed), le32_to_cpu(q.overruns));
}

static int softhca_eqs_show(struct seq_file *s, void *unused)
{
	struct softhca_dev *dev = s->private;
	u32 i;

	softhca_eq_show(s, dev, &dev->cmd_eq);
	softhca_eq_show(s, dev, &dev->async_eq);
	for (i = 0; i < dev->num_ceqs; i++)
		softhca_eq_show(s, dev, &dev->ceqs[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softhca_eqs);

static int softhca_dbrecs_show(struct seq_file *s, void *unused)
{
	struct softhca_dev *dev = s->private;
	struct softhca_ucontext *uctx;
	struct softhca_dbrec_page *p;

	mutex_lock(&dev->uctx_lock);
	list_for_each_entry(uctx, &dev->uctx_list, list) {
		seq_printf(s, "pid %d uar %u pinned_pages %u\n",
			   uctx->pid, uctx->uar,
			   softhca_dbrec_pinned_pages(&uctx->dbrecs));
		mutex_lock(&uctx->dbrecs.lock);
		list_for_each_entry(p, &uctx->dbrecs.pages, list)
			seq_printf(s, "  page 0x%lx records %u\n", p->va,
				   p->refcnt);
		mutex_unlock(&uctx->dbrecs.lock);
	}
	mutex_unlock(&dev->uctx_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softhca_dbrecs);

void softhca_debugfs_init(struct softhca_dev *dev, const char *name)
{
	if (!softhca_debugfs_root)
		return;
	dev->debugfs = debugfs_create_dir(name, softhca_debugfs_root);
	debugfs_create_file("cqs", 0400, dev->debugfs, dev, &softhca_cqs_fops);
	debugfs_create_file("mrs", 0400, dev->debugfs, dev, &softhca_mrs_fops);
	debugfs_create_file("qps", 0400, dev->debugfs, dev, &softhca_qps_fops);
	debugfs_create_file("eqs", 0400, dev->debugfs, dev, &softhca_eqs_fops);
	debugfs_create_file("dbrec_pages", 0400, dev->debugfs, dev,
			    &softhca_dbrecs_fops);
}

void softhca_debugfs_cleanup(struct softhca_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

void softhca_debugfs_module_init(void)
{
	softhca_debugfs_root = debugfs_create_dir(SOFTHCA_DRV_NAME, NULL);
	if (IS_ERR(softhca_debugfs_root))
		softhca_debugfs_root = NULL;
}

void softhca_debugfs_module_exit(void)
{
	debugfs_remove_recursive(softhca_debugfs_root);
}

/*
 * The restrack views ("rdma resource show <type> -dd"): the card's context
 * of the object, as QUERY_* returns it, put as driver attributes. Anyone
 * who may list resources reads them, so they carry no key and no address:
 * a doorbell record is shown by its slot in its page, never by address.
 * The card's object numbers are hw_cqn, hw_pdn, hw_srqn: ib_core's own
 * cqn, pdn and srqn are its restrack ids.
 */

/* Which 64-byte slot of its page a doorbell record at DMA @addr is. */
static u32 softhca_dbrec_slot(u64 addr)
{
	return (addr & (PAGE_SIZE - 1)) / SOFTHCA_KDBREC_SIZE;
}

/* The PAS of an object: block size, blocks, page_offset. */
static int softhca_put_pas(struct sk_buff *msg, const struct softhca_pas *pas)
{
	if (rdma_nl_put_driver_u64(msg, "block_size", softhca_block_size(pas)) ||
	    rdma_nl_put_driver_u32(msg, "pas_entries",
				   le32_to_cpu(pas->nblocks)) ||
	    rdma_nl_put_driver_u32(msg, "page_offset", pas->page_offset))
		return -EMSGSIZE;
	return 0;
}

static int softhca_put_cq(struct sk_buff *msg, const struct softhca_cq *cq,
			  const struct softhca_cq_query_out *q)
{
	u32 arm = le32_to_cpu(q->arm);
	bool armed = (arm & SOFTHCA_CQ_ARM_REQUEST) &&
		     softhca_cq_arm_sn(arm) != le32_to_cpu(q->arm_sn_fired);

	if (rdma_nl_put_driver_u32(msg, "hw_cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "log_size", q->ctx.log_size) ||
	    rdma_nl_put_driver_u32(msg, "cqe_size", BIT(q->ctx.log_cqe_size)) ||
	    softhca_put_pas(msg, &q->ctx.pas) ||
	    rdma_nl_put_driver_u32(msg, "dbrec_slot",
				   softhca_dbrec_slot(le64_to_cpu(q->ctx.dbrec_addr))) ||
	    rdma_nl_put_driver_u32(msg, "eqn", le32_to_cpu(q->ctx.eqn)) ||
	    rdma_nl_put_driver_u32(msg, "vector", cq->vector) ||
	    rdma_nl_put_driver_u32(msg, "uar", le32_to_cpu(q->ctx.uar)) ||
	    rdma_nl_put_driver_u32(msg, "pi", le32_to_cpu(q->pi)) ||
	    rdma_nl_put_driver_u32(msg, "ci", le32_to_cpu(q->ci)) ||
	    rdma_nl_put_driver_u32(msg, "arm_sn", softhca_cq_arm_sn(arm)) ||
	    rdma_nl_put_driver_u32(msg, "armed", armed) ||
	    rdma_nl_put_driver_u32(msg, "solicited_only",
				   !!(arm & SOFTHCA_CQ_ARM_SOLICITED)) ||
	    rdma_nl_put_driver_u32(msg, "events", le32_to_cpu(q->events)) ||
	    rdma_nl_put_driver_string(msg, "state",
				      q->state ? "error" : "ok") ||
	    rdma_nl_put_driver_u32(msg, "ignore_overrun",
				   !!(le32_to_cpu(q->ctx.flags) &
				      SOFTHCA_CQ_F_IGNORE_OVERRUN)) ||
	    rdma_nl_put_driver_u32(msg, "mod_count",
				   le16_to_cpu(q->mod_count)) ||
	    rdma_nl_put_driver_u32(msg, "mod_period_us",
				   le16_to_cpu(q->mod_period_us)))
		return -EMSGSIZE;
	return 0;
}

/* Close the nest of driver attributes, or drop it if they did not fit. */
static int softhca_nest_end(struct sk_buff *msg, struct nlattr *table,
			    int err)
{
	if (err) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

int softhca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq_query_out q;
	struct nlattr *table;

	if (softhca_query(dev, SOFTHCA_CMD_QUERY_CQ, to_scq(ibcq)->cqn, &q,
			  sizeof(q)))
		return 0;	/* destroyed meanwhile, or a dead card */
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	return softhca_nest_end(msg, table, softhca_put_cq(msg, to_scq(ibcq),
							   &q));
}

static int softhca_put_qp(struct sk_buff *msg,
			  const struct softhca_qp_query_out *q)
{
	const struct softhca_qp_attr *a = &q->attr;
	const struct softhca_qp_ctx *c = &q->ctx;
	u32 flags = le32_to_cpu(c->flags);

	if (rdma_nl_put_driver_u32(msg, "hw_pdn", le32_to_cpu(c->pdn)) ||
	    rdma_nl_put_driver_u32(msg, "send_cqn", le32_to_cpu(c->send_cqn)) ||
	    rdma_nl_put_driver_u32(msg, "recv_cqn", le32_to_cpu(c->recv_cqn)) ||
	    (c->srqn && rdma_nl_put_driver_u32(msg, "srqn",
					       le32_to_cpu(c->srqn))) ||
	    rdma_nl_put_driver_u32(msg, "uar", le32_to_cpu(c->uar)) ||
	    rdma_nl_put_driver_u32(msg, "sq_bbs", BIT(c->log_sq_size)) ||
	    (!c->srqn &&
	     (rdma_nl_put_driver_u32(msg, "rq_wqes", BIT(c->log_rq_size)) ||
	      rdma_nl_put_driver_u32(msg, "rq_stride",
				     BIT(c->log_rq_stride)))) ||
	    softhca_put_pas(msg, &c->pas) ||
	    rdma_nl_put_driver_u32(msg, "dbrec_slot",
				   softhca_dbrec_slot(le64_to_cpu(c->dbrec_addr))) ||
	    rdma_nl_put_driver_u32(msg, "sq_pi", le32_to_cpu(q->sq_pi)) ||
	    rdma_nl_put_driver_u32(msg, "sq_next", le32_to_cpu(q->sq_next)) ||
	    rdma_nl_put_driver_u32(msg, "sq_ci", le32_to_cpu(q->sq_ci)) ||
	    (!c->srqn &&
	     (rdma_nl_put_driver_u32(msg, "rq_pi", le32_to_cpu(q->rq_pi)) ||
	      rdma_nl_put_driver_u32(msg, "rq_ci", le32_to_cpu(q->rq_ci)))) ||
	    rdma_nl_put_driver_u32(msg, "path_mtu",
				   a->path_mtu ? softhca_mtu_bytes(a->path_mtu) : 0) ||
	    rdma_nl_put_driver_u32(msg, "timeout", a->timeout) ||
	    rdma_nl_put_driver_u32(msg, "retry_cnt", a->retry_cnt) ||
	    rdma_nl_put_driver_u32(msg, "rnr_retry", a->rnr_retry) ||
	    rdma_nl_put_driver_u32(msg, "max_rd_atomic", a->max_rd_atomic) ||
	    rdma_nl_put_driver_u32(msg, "max_dest_rd_atomic",
				   a->max_dest_rd_atomic) ||
	    rdma_nl_put_driver_u32(msg, "kernel",
				   !!(flags & SOFTHCA_QP_PRIV)) ||
	    rdma_nl_put_driver_u32(msg, "sig_all",
				   !!(flags & SOFTHCA_QP_SIG_ALL)))
		return -EMSGSIZE;
	return 0;
}

int softhca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct softhca_dev *dev = to_sdev(ibqp->device);
	struct softhca_qp_query_out q;
	struct nlattr *table;

	if (softhca_query(dev, SOFTHCA_CMD_QUERY_QP, to_sqp(ibqp)->qpn, &q,
			  sizeof(q)))
		return 0;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	return softhca_nest_end(msg, table, softhca_put_qp(msg, &q));
}

static const char *softhca_mr_kind_name(enum softhca_mr_kind kind)
{
	switch (kind) {
	case SOFTHCA_MR_DMA:
		return "dma";
	case SOFTHCA_MR_FAST_REG:
		return "fast_reg";
	default:
		return "user";
	}
}

static int softhca_put_mr(struct sk_buff *msg, const struct softhca_mr *mr,
			  const struct softhca_mkey_query_out *q)
{
	if (rdma_nl_put_driver_string(msg, "kind",
				      softhca_mr_kind_name(mr->kind)) ||
	    rdma_nl_put_driver_u32(msg, "hw_pdn", le32_to_cpu(q->ctx.pdn)) ||
	    rdma_nl_put_driver_u32_hex(msg, "access",
				       le32_to_cpu(q->ctx.access)) ||
	    rdma_nl_put_driver_u64(msg, "block_size",
				   softhca_block_size(&q->ctx.pas)) ||
	    rdma_nl_put_driver_u32(msg, "pas_entries",
				   le32_to_cpu(q->ctx.pas.nblocks)) ||
	    (mr->kind == SOFTHCA_MR_FAST_REG &&
	     (rdma_nl_put_driver_u32(msg, "max_pages", mr->max_pages) ||
	      rdma_nl_put_driver_u32(msg, "mapped_pages", mr->npages))))
		return -EMSGSIZE;
	return 0;
}

int softhca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct softhca_dev *dev = to_sdev(ibmr->device);
	struct softhca_mkey_query_out q;
	struct nlattr *table;

	if (softhca_query(dev, SOFTHCA_CMD_QUERY_MKEY, to_smr(ibmr)->mkey, &q,
			  sizeof(q)))
		return 0;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	return softhca_nest_end(msg, table, softhca_put_mr(msg, to_smr(ibmr),
							   &q));
}

static int softhca_put_srq(struct sk_buff *msg, const struct softhca_srq *srq,
			   const struct softhca_srq_query_out *q)
{
	const struct softhca_srq_ctx *c = &q->ctx;

	if (rdma_nl_put_driver_u32(msg, "hw_srqn", srq->srqn) ||
	    rdma_nl_put_driver_u32(msg, "hw_pdn", le32_to_cpu(c->pdn)) ||
	    rdma_nl_put_driver_u32(msg, "uar", le32_to_cpu(c->uar)) ||
	    rdma_nl_put_driver_u32(msg, "wqes", BIT(c->log_size)) ||
	    rdma_nl_put_driver_u32(msg, "stride", BIT(c->log_stride)) ||
	    softhca_put_pas(msg, &c->pas) ||
	    rdma_nl_put_driver_u32(msg, "dbrec_slot",
				   softhca_dbrec_slot(le64_to_cpu(c->dbrec_addr))) ||
	    rdma_nl_put_driver_u32(msg, "limit", le32_to_cpu(c->limit)) ||
	    rdma_nl_put_driver_u32(msg, "posted", le32_to_cpu(q->posted)) ||
	    rdma_nl_put_driver_u32(msg, "taken", le32_to_cpu(q->taken)) ||
	    rdma_nl_put_driver_u32(msg, "head", le32_to_cpu(q->head)))
		return -EMSGSIZE;
	return 0;
}

/* (ib_core asks for SRQs' attributes from 6.5 on; see softhca_compat.h) */
int softhca_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	struct softhca_dev *dev = to_sdev(ibsrq->device);
	struct softhca_srq_query_out q;
	struct nlattr *table;

	if (softhca_query(dev, SOFTHCA_CMD_QUERY_SRQ, to_ssrq(ibsrq)->srqn, &q,
			  sizeof(q)))
		return 0;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	return softhca_nest_end(msg, table,
				softhca_put_srq(msg, to_ssrq(ibsrq), &q));
}

/*
 * The card's context of an object, as QUERY_* returns it, for "rdma
 * resource show <type> -r": ib_core gives it to CAP_NET_ADMIN alone (as
 * it hides its own key attributes from other users), so it may hold keys
 * and DMA addresses (the dbrec, a list's).
 */
static int softhca_fill_raw(struct sk_buff *msg, struct softhca_dev *dev,
			    u16 opcode, u32 num, size_t len)
{
	void *q = kzalloc(len, GFP_KERNEL);
	int ret;

	if (!q)
		return -ENOMEM;
	ret = softhca_query(dev, opcode, num, q, len);
	if (!ret)
		ret = nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, len, q);
	else
		ret = 0;	/* destroyed meanwhile, or a dead card */
	kfree(q);
	return ret;
}

int softhca_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq)
{
	return softhca_fill_raw(msg, to_sdev(ibcq->device),
				SOFTHCA_CMD_QUERY_CQ, to_scq(ibcq)->cqn,
				sizeof(struct softhca_cq_query_out));
}

int softhca_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr)
{
	return softhca_fill_raw(msg, to_sdev(ibmr->device),
				SOFTHCA_CMD_QUERY_MKEY, to_smr(ibmr)->mkey,
				sizeof(struct softhca_mkey_query_out));
}

int softhca_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	return softhca_fill_raw(msg, to_sdev(ibqp->device),
				SOFTHCA_CMD_QUERY_QP, to_sqp(ibqp)->qpn,
				sizeof(struct softhca_qp_query_out));
}

int softhca_fill_res_srq_entry_raw(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	return softhca_fill_raw(msg, to_sdev(ibsrq->device),
				SOFTHCA_CMD_QUERY_SRQ, to_ssrq(ibsrq)->srqn,
				sizeof(struct softhca_srq_query_out));
}

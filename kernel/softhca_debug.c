// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: what the card holds, for people and tests. The contexts
 * come from the card itself (QUERY_CQ/QUERY_MKEY/QUERY_EQ), shown in
 * debugfs under softhca/<ibdev>/ (root only) and as restrack driver
 * attributes ("rdma resource show cq|mr -dd"). Those attributes reach any
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
	struct softhca_qp_attr q;
	unsigned long qpn;
	void *entry;

	xa_for_each(&dev->qps, qpn, entry) {
		if (softhca_query(dev, SOFTHCA_CMD_QUERY_QP, qpn, &q, sizeof(q)))
			continue;
		seq_printf(s, "qpn %lu state %u dest_qpn %u path_mtu %u sq_psn %u rq_psn %u\n",
			   qpn, q.state, le32_to_cpu(q.dest_qpn), q.path_mtu,
			   le32_to_cpu(q.sq_psn), le32_to_cpu(q.rq_psn));
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

int softhca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct softhca_dev *dev = to_sdev(ibcq->device);
	struct softhca_cq_query_out q;
	struct nlattr *table;

	if (softhca_query(dev, SOFTHCA_CMD_QUERY_CQ, to_scq(ibcq)->cqn, &q,
			  sizeof(q)))
		return 0;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cqn", to_scq(ibcq)->cqn) ||
	    rdma_nl_put_driver_u32(msg, "log_size", q.ctx.log_size) ||
	    rdma_nl_put_driver_u64(msg, "block_size",
				   softhca_block_size(&q.ctx.pas)) ||
	    rdma_nl_put_driver_u32(msg, "page_offset", q.ctx.pas.page_offset) ||
	    rdma_nl_put_driver_u32(msg, "pas_entries",
				   le32_to_cpu(q.ctx.pas.nblocks)) ||
	    rdma_nl_put_driver_u32(msg, "eqn", le32_to_cpu(q.ctx.eqn)) ||
	    rdma_nl_put_driver_u32(msg, "uar", le32_to_cpu(q.ctx.uar)) ||
	    rdma_nl_put_driver_u32(msg, "pi", le32_to_cpu(q.pi)) ||
	    rdma_nl_put_driver_u32(msg, "ci", le32_to_cpu(q.ci))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
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
	if (rdma_nl_put_driver_u32(msg, "pdn", le32_to_cpu(q.ctx.pdn)) ||
	    rdma_nl_put_driver_u64(msg, "block_size",
				   softhca_block_size(&q.ctx.pas)) ||
	    rdma_nl_put_driver_u32(msg, "pas_entries",
				   le32_to_cpu(q.ctx.pas.nblocks))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/* The card's context of an object, as QUERY_* returns it (admin only). */
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
				sizeof(struct softhca_qp_attr));
}

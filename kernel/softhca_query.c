// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: device and port attributes. Device attributes come from
 * the card's QUERY_CAPS; the port's state, MTU and speed from its Ethernet
 * port (the netdev), as for any RoCE NIC.
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "softhca.h"

int softhca_query_caps(struct softhca_dev *dev)
{
	struct softhca_dev_caps *c = &dev->caps;
	struct softhca_caps *hw;
	int ret;

	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_CAPS, NULL, 0,
			       hw, sizeof(*hw));
	if (ret)
		goto out;

	c->fw_version = le64_to_cpu(hw->fw_version);
	c->node_guid = le64_to_cpu(hw->node_guid);
	c->sys_image_guid = le64_to_cpu(hw->sys_image_guid);
	c->max_mr_size = le64_to_cpu(hw->max_mr_size);
	c->page_size_cap = le64_to_cpu(hw->page_size_cap);
	c->vendor_id = le32_to_cpu(hw->vendor_id);
	c->vendor_part_id = le32_to_cpu(hw->vendor_part_id);
	c->hw_version = le32_to_cpu(hw->hw_version);
	c->cap_flags = le32_to_cpu(hw->cap_flags);
	c->max_qp = le32_to_cpu(hw->max_qp);
	c->max_qp_wr = le32_to_cpu(hw->max_qp_wr);
	c->max_sge = le32_to_cpu(hw->max_sge);
	c->max_sge_rd = le32_to_cpu(hw->max_sge_rd);
	c->max_cq = le32_to_cpu(hw->max_cq);
	c->max_cqe = le32_to_cpu(hw->max_cqe);
	/* less the PD and MKEY of the reserved lkey (softhca_kverbs.c) */
	c->max_mr = le32_to_cpu(hw->max_mr) - 1;
	c->max_pd = le32_to_cpu(hw->max_pd) - 1;
	c->max_srq = le32_to_cpu(hw->max_srq);
	c->max_srq_wr = le32_to_cpu(hw->max_srq_wr);
	c->max_srq_sge = le32_to_cpu(hw->max_srq_sge);
	c->max_qp_rd_atom = le32_to_cpu(hw->max_qp_rd_atom);
	c->max_qp_init_rd_atom = le32_to_cpu(hw->max_qp_init_rd_atom);
	c->max_inline_data = le32_to_cpu(hw->max_inline_data);
	c->max_uar = le32_to_cpu(hw->max_uar);
	c->max_eq = le32_to_cpu(hw->max_eq);
	c->max_comp_vectors = le32_to_cpu(hw->max_comp_vectors);
	c->log_max_eq_size = le32_to_cpu(hw->log_max_eq_size);
	c->max_msg_size = le32_to_cpu(hw->max_msg_size);
	c->max_mtu = le32_to_cpu(hw->max_mtu);
	c->gid_table_len = le32_to_cpu(hw->gid_table_len);
	c->local_ca_ack_delay = le32_to_cpu(hw->local_ca_ack_delay);
	c->cqe_size = le32_to_cpu(hw->cqe_size);
	c->dbrec_align = le32_to_cpu(hw->dbrec_align);
	c->max_ah = le32_to_cpu(hw->max_ah);
	c->max_fast_reg_pages = le32_to_cpu(hw->max_fast_reg_pages);
	c->max_cq_count = le32_to_cpu(hw->max_cq_count);
	c->max_cq_period_us = le32_to_cpu(hw->max_cq_period_us);

	if (!c->max_comp_vectors || !c->gid_table_len ||
	    c->cqe_size != SOFTHCA_CQE_SIZE || !c->page_size_cap) {
		ibdev_err(&dev->ibdev, "device reports unusable caps\n");
		ret = -EIO;
	}
out:
	kfree(hw);
	return ret;
}

int softhca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibdev);
	const struct softhca_dev_caps *c = &dev->caps;

	if (udata && (udata->inlen || udata->outlen)) {
		ibdev_dbg(ibdev, "query_device: unexpected driver data\n");
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = c->fw_version;
	attr->sys_image_guid = cpu_to_be64(c->sys_image_guid);
	attr->max_mr_size = c->max_mr_size;
	attr->page_size_cap = c->page_size_cap;
	attr->vendor_id = c->vendor_id;
	attr->vendor_part_id = c->vendor_part_id;
	attr->hw_ver = c->hw_version;
	attr->max_qp = c->max_qp;
	attr->max_qp_wr = c->max_qp_wr;
	attr->device_cap_flags = IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_PORT_ACTIVE_EVENT;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* kernel verbs: only what the card does */
	if (dev->reserved_lkey)
		attr->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
	if (c->cap_flags & SOFTHCA_CAP_FAST_REG) {
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		attr->max_fast_reg_page_list_len = c->max_fast_reg_pages;
	}
	if (c->cap_flags & SOFTHCA_CAP_CQ_MODERATION) {
		attr->cq_caps.max_cq_moderation_count =
			min_t(u32, c->max_cq_count, U16_MAX);
		attr->cq_caps.max_cq_moderation_period =
			min_t(u32, c->max_cq_period_us, U16_MAX);
	}
	attr->max_send_sge = c->max_sge;
	attr->max_recv_sge = c->max_sge;
	attr->max_sge_rd = c->max_sge_rd;
	attr->max_cq = c->max_cq;
	attr->max_cqe = c->max_cqe;
	attr->max_mr = c->max_mr;
	attr->max_pd = c->max_pd;
	attr->max_qp_rd_atom = c->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = c->max_qp_init_rd_atom;
	attr->max_res_rd_atom = c->max_qp_rd_atom * c->max_qp;
	attr->atomic_cap = c->cap_flags & SOFTHCA_CAP_ATOMIC ?
			   IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	attr->max_srq = c->cap_flags & SOFTHCA_CAP_SRQ ? c->max_srq : 0;
	attr->max_srq_wr = attr->max_srq ? c->max_srq_wr : 0;
	attr->max_srq_sge = attr->max_srq ? c->max_srq_sge : 0;
	attr->max_ah = dev->max_ah;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = c->local_ca_ack_delay;
	return 0;
}

int softhca_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *attr)
{
	struct softhca_dev *dev = to_sdev(ibdev);
	enum ib_mtu max_mtu = ib_mtu_int_to_enum(dev->caps.max_mtu);
	bool up = netif_running(dev->ndev) && netif_carrier_ok(dev->ndev);
	int ret;

	/* the core zeroes *attr */
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = max_mtu;
	attr->active_mtu = min(max_mtu, iboe_get_mtu(READ_ONCE(dev->ndev->mtu)));
	attr->gid_tbl_len = dev->caps.gid_table_len;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = dev->caps.max_msg_size;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (ret)
		ibdev_dbg(ibdev, "no link speed from %s (%d)\n",
			  netdev_name(dev->ndev), ret);
	return 0;
}

int softhca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int softhca_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer softhca_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

void softhca_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 v = to_sdev(ibdev)->caps.fw_version;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", (u32)(v >> 32),
		 (u32)(v >> 16) & 0xffff, (u32)v & 0xffff);
}

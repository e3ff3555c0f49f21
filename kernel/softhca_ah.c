// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: address handles. An AH is no object of the card: UD
 * sends carry their address vector in the WQE (struct softhca_wqe_av).
 * A kernel AH keeps the vector for the driver's UD posts; a user AH
 * returns the destination MAC, which ib_core resolved and user space
 * cannot, and the provider builds its own vector. AHs are counted per
 * device against max_ah.
 *
 * ib_core creates kernel AHs in atomic context (the CM does, without
 * RDMA_CREATE_AH_SLEEPABLE): nothing here sleeps.
 */
#include <linux/etherdevice.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"

/**
 * softhca_ah_to_av - the address vector of a RoCE AH attribute
 * @attr: the attribute, with its GRH and source GID entry
 * @gid_table_len: the GID table's length
 * @av: filled; dest_qpn and qkey stay 0 (each send gives them)
 *
 * Return: 0, or -EINVAL for an attribute that is not RoCE, has no GRH or
 * no source GID entry, or names a GID index the table does not have.
 */
int softhca_ah_to_av(const struct rdma_ah_attr *attr, u32 gid_table_len,
		     struct softhca_wqe_av *av)
{
	const struct ib_global_route *grh;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr || grh->sgid_attr->index >= gid_table_len)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	ether_addr_copy(av->dmac, attr->roce.dmac);
	av->sgid_index = grh->sgid_attr->index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = cpu_to_le32(grh->flow_label);
	return 0;
}

int softhca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibah->device);
	struct softhca_ah *ah = to_sah(ibah);
	struct softhca_create_ah_resp resp = {};
	int ret;

	if (!dev->max_ah) {
		ibdev_dbg(&dev->ibdev, "create_ah: the card has no UD\n");
		return -EOPNOTSUPP;
	}
	ret = softhca_ah_to_av(init->ah_attr, dev->caps.gid_table_len,
			       &ah->av);
	if (ret) {
		ibdev_dbg(&dev->ibdev,
			  "create_ah: not a RoCE address with a GRH and a known source GID (type %d, flags 0x%x)\n",
			  init->ah_attr->type,
			  rdma_ah_get_ah_flags(init->ah_attr));
		return ret;
	}
	if (atomic_inc_return(&dev->num_ahs) > dev->max_ah) {
		ibdev_dbg(&dev->ibdev, "create_ah: %u AHs already\n",
			  dev->max_ah);
		ret = -ENOMEM;
		goto err_count;
	}
	if (udata) {
		if (udata->inlen &&
		    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
			ibdev_dbg(&dev->ibdev, "create_ah: unexpected request data\n");
			ret = -EINVAL;
			goto err_count;
		}
		ether_addr_copy(resp.dmac, ah->av.dmac);
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_count;
	}
	return 0;

err_count:
	atomic_dec(&dev->num_ahs);
	return ret;
}

int softhca_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_sdev(ibah->device)->num_ahs);
	return 0;
}

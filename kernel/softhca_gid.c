// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the card's GID table follows ib_core's RoCE GID table
 * (the netdev's addresses), as mlx5 loads its roce addresses.
 */
#include "softhca.h"

static int softhca_set_gid(const struct ib_gid_attr *attr, bool valid)
{
	struct softhca_dev *dev = to_sdev(attr->device);
	struct softhca_set_gid_in in = {};
	int ret;

	in.index = cpu_to_le32(attr->index);
	in.valid = valid;
	if (valid)
		memcpy(in.gid, attr->gid.raw, sizeof(in.gid));
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_SET_GID, &in, sizeof(in),
			       NULL, 0);
	if (ret)
		ibdev_dbg(&dev->ibdev, "SET_GID %u failed (%d)\n", attr->index,
			  ret);
	return ret;
}

int softhca_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return softhca_set_gid(attr, true);
}

int softhca_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return softhca_set_gid(attr, false);
}

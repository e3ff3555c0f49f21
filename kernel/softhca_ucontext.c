// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: user contexts. A context tells the provider the device
 * parameters its data path depends on.
 */
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"

int softhca_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibuc->device);
	struct softhca_alloc_ucontext_resp resp = {};

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&dev->ibdev, "alloc_ucontext: unknown request data\n");
		return -EINVAL;
	}
	resp.cqe_size = dev->caps.cqe_size;
	resp.max_inline_data = dev->caps.max_inline_data;
	resp.max_sge = dev->caps.max_sge;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

void softhca_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

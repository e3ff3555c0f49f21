// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* softhca driver: protection domains, allocated by the card. */
#include "../include/softhca_abi.h"
#include "softhca.h"

int softhca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibpd->device);
	struct softhca_pd *pd = to_spd(ibpd);
	struct softhca_alloc_pd_resp resp = {};
	struct softhca_alloc_out out;
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_PD, NULL, 0, &out,
			       sizeof(out));
	if (ret) {
		ibdev_dbg(&dev->ibdev, "alloc_pd: ALLOC_PD failed (%d)\n", ret);
		return ret;
	}
	pd->pdn = le32_to_cpu(out.num);
	if (udata) {
		resp.pdn = pd->pdn;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret) {
			softhca_dealloc_pd(ibpd, udata);
			return ret;
		}
	}
	return 0;
}

int softhca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibpd->device);
	struct softhca_obj_in in = { .num = cpu_to_le32(to_spd(ibpd)->pdn) };
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_DEALLOC_PD, &in, sizeof(in),
			       NULL, 0);
	if (ret)
		ibdev_warn_ratelimited(&dev->ibdev, "DEALLOC_PD failed (%d)\n",
				       ret);
	return 0;
}

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
			softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_PD,
					    pd->pdn);
			return ret;
		}
	}
	return 0;
}

/* Return: 0, or the card's error (-EBUSY: MKEYs or QPs still use it). */
int softhca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return softhca_cmd_destroy(to_sdev(ibpd->device),
				   SOFTHCA_CMD_DEALLOC_PD, to_spd(ibpd)->pdn);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: address handles. The address vector lives in user
 * space, in the card's format, and goes into every UD send to it
 * (struct softhca_wqe_av); the kernel creates the AH object and resolves
 * what user space cannot: the next hop's MAC (struct
 * softhca_create_ah_resp).
 */
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <new>

#include "softhca.h"

namespace softhca {

int ah_attr_to_av(const struct ibv_ah_attr &attr, const uint8_t *dmac,
		  struct softhca_wqe_av *av)
{
	/* RoCE: a datagram is routed by its GRH, so an AH needs one */
	if (!attr.is_global)
		return EINVAL;
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, attr.grh.dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, dmac, sizeof(av->dmac));
	av->sgid_index = attr.grh.sgid_index;
	av->hop_limit = attr.grh.hop_limit;
	av->traffic_class = attr.grh.traffic_class;
	av->flow_label = htole32(attr.grh.flow_label);
	return 0;
}

struct ibv_ah *create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	Context *ctx = to_ctx(pd->context);
	WriteResp<ib_uverbs_create_ah_resp, softhca_create_ah_resp> resp = {};
	static_assert(offsetof(decltype(resp), drv) ==
			      sizeof(ib_uverbs_create_ah_resp),
		      "the driver's response follows the core one");

	if (!attr->is_global) {
		/* RoCE addresses by GID: an AH without a GRH cannot */
		softhca_dbg(ctx, "create_ah: no GRH (is_global = 0)");
		errno = EINVAL;
		return nullptr;
	}
	auto *ah = new (std::nothrow) Ah{};
	if (!ah) {
		errno = ENOMEM;
		return nullptr;
	}
	int err = ibv_cmd_create_ah(
		pd, &ah->ibah, attr,
		reinterpret_cast<ib_uverbs_create_ah_resp *>(&resp),
		offsetof(decltype(resp), drv) + sizeof(resp.drv));
	if (err) {
		softhca_dbg(ctx, "create_ah: the kernel refused (%d)", err);
		delete ah;
		errno = err;
		return nullptr;
	}
	/* cannot fail: is_global was checked */
	ah_attr_to_av(*attr, resp.drv.dmac, &ah->av);
	return &ah->ibah;
}

int destroy_ah(struct ibv_ah *ibah)
{
	int err = ibv_cmd_destroy_ah(ibah);

	if (err)
		return err;
	delete to_ah(ibah);
	return 0;
}

} // namespace softhca

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* softhca provider: protection domains and memory regions. */
#include <cerrno>
#include <new>

#include "softhca.h"

namespace softhca {

struct ibv_pd *alloc_pd(struct ibv_context *context)
{
	WriteCmd<ib_uverbs_alloc_pd, void> cmd = {};
	WriteResp<ib_uverbs_alloc_pd_resp, softhca_alloc_pd_resp> resp = {};
	auto *pd = new (std::nothrow) Pd{};
	int ret;

	if (!pd) {
		errno = ENOMEM;
		return nullptr;
	}
	ret = ibv_cmd_alloc_pd(
		context, &pd->ibpd,
		reinterpret_cast<struct ibv_alloc_pd *>(&cmd), sizeof(cmd),
		reinterpret_cast<ib_uverbs_alloc_pd_resp *>(&resp),
		sizeof(resp));
	if (ret) {
		delete pd;
		errno = ret;
		return nullptr;
	}
	pd->pdn = resp.drv.pdn;
	return &pd->ibpd;
}

int dealloc_pd(struct ibv_pd *ibpd)
{
	int ret = ibv_cmd_dealloc_pd(ibpd);

	if (ret)
		return ret;
	delete to_pd(ibpd);
	return 0;
}

struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		      uint64_t hca_va, int access)
{
	WriteCmd<ib_uverbs_reg_mr, void> cmd = {};
	WriteResp<ib_uverbs_reg_mr_resp, void> resp = {};
	auto *vmr = new (std::nothrow) verbs_mr{};
	int ret;

	if (!vmr) {
		errno = ENOMEM;
		return nullptr;
	}
	ret = ibv_cmd_reg_mr(
		pd, addr, length, hca_va, access, vmr,
		reinterpret_cast<struct ibv_reg_mr *>(&cmd), sizeof(cmd),
		reinterpret_cast<ib_uverbs_reg_mr_resp *>(&resp), sizeof(resp));
	if (ret) {
		delete vmr;
		errno = ret;
		return nullptr;
	}
	return &vmr->ibv_mr;
}

int dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (ret)
		return ret;
	delete vmr;
	return 0;
}

} // namespace softhca

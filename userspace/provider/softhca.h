/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca provider: the objects behind libibverbs' handles. Everything here
 * is internal; the library exports nothing but registers itself with
 * libibverbs from a constructor.
 */
#ifndef SOFTHCA_PROVIDER_H
#define SOFTHCA_PROVIDER_H

#include <cstddef>
#include <cstdint>

#include "../../include/softhca_abi.h"
#include "../../include/softhca_prm.h"
#include "rdma_private.h"

#define softhca_log(ctx, level, fmt, ...)                                      \
	__verbs_log(&(ctx)->vctx, level, "%s: %s:%d: " fmt "\n",               \
		    (ctx)->vctx.context.device->name, __func__, __LINE__,      \
		    ##__VA_ARGS__)
#define softhca_err(ctx, fmt, ...)                                             \
	softhca_log(ctx, SOFTHCA_LOG_ERR, fmt, ##__VA_ARGS__)
#define softhca_dbg(ctx, fmt, ...)                                             \
	softhca_log(ctx, SOFTHCA_LOG_DEBUG, fmt, ##__VA_ARGS__)

namespace softhca {

struct Device {
	struct verbs_device vdev;
};

/*
 * A user context. libibverbs allocates it (zeroed, not constructed) around
 * vctx, so members are plain data initialised in alloc_context.
 */
struct Context {
	struct verbs_context vctx;
	uint32_t cqe_size;
	uint32_t max_inline_data;
	uint32_t max_sge;
};

inline Context *to_ctx(struct ibv_context *ibctx)
{
	return reinterpret_cast<Context *>(reinterpret_cast<char *>(ibctx) -
					   offsetof(Context, vctx.context));
}

/* query.cpp */
/* QUERY_CAPS' fw_version (major << 32 | minor << 16 | sub) as text. */
void format_fw_version(uint64_t fw, char *buf, size_t len);
int query_device_ex(struct ibv_context *context,
		    const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr, size_t attr_size);
int query_port(struct ibv_context *context, uint8_t port,
	       struct ibv_port_attr *attr);

} /* namespace softhca */

#endif /* SOFTHCA_PROVIDER_H */

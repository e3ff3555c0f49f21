// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: device and port queries, answered by the kernel from
 * the card's capabilities.
 */
#include <cstdio>

#include "softhca.h"

namespace softhca {

void format_fw_version(uint64_t fw, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%u.%u.%u", static_cast<unsigned>(fw >> 32),
		       static_cast<unsigned>((fw >> 16) & 0xffff),
		       static_cast<unsigned>(fw & 0xffff));
}

int query_device_ex(struct ibv_context *context,
		    const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	format_fw_version(resp.base.fw_ver, attr->orig_attr.fw_ver,
			  sizeof(attr->orig_attr.fw_ver));
	return 0;
}

int query_port(struct ibv_context *context, uint8_t port,
	       struct ibv_port_attr *attr)
{
	WriteCmd<ib_uverbs_query_port, void> cmd = {};

	return ibv_cmd_query_port(
		context, port, attr,
		reinterpret_cast<struct ibv_query_port *>(&cmd), sizeof(cmd));
}

} /* namespace softhca */

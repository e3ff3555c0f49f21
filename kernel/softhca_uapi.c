// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the uverbs objects and methods of its own, merged by
 * ib_core into the device's uverbs API (ib_device.driver_def).
 */
#include <rdma/uverbs_ioctl.h>

#include "softhca.h"

const struct uapi_definition softhca_uapi_defs[] = {
	UAPI_DEF_CHAIN(softhca_wake_defs),
	{}
};

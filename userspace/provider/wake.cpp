// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: the wake-up call. A poster that finds the card's engine
 * IDLE after writing a doorbell record makes one system call to wake it.
 * The cheap one is SOFTHCA_WAKE_IOCTL on the context's wake-up file, which
 * the driver's own uverbs method SOFTHCA_IB_METHOD_WAKE_FD_ALLOC creates;
 * the fallback is a zero-WR POST_SEND through the command fd, as siw rings
 * its doorbell. SOFTHCA_WAKE_CALL=post_send in the environment selects the
 * fallback (to test it, or to compare the two).
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/ioctl.h>
#include <unistd.h>

#include "softhca.h"

namespace softhca {

int open_wake_file(Context *ctx)
{
	struct ib_uverbs_ioctl_hdr hdr = {};
	struct ib_uverbs_attr attr = {};
	/* the header and its attribute array, as the kernel reads them */
	alignas(8) unsigned char cmd[sizeof(hdr) + sizeof(attr)];
	const char *call = getenv("SOFTHCA_WAKE_CALL");

	if (call && !strcmp(call, "post_send")) {
		softhca_dbg(ctx,
			    "wake-up call: zero-WR post_send (environment)");
		return -1;
	}
	hdr.length = sizeof(cmd);
	hdr.object_id = SOFTHCA_IB_OBJECT_WAKE_FD;
	hdr.method_id = SOFTHCA_IB_METHOD_WAKE_FD_ALLOC;
	hdr.num_attrs = 1;
	hdr.driver_id = RDMA_DRIVER_UNKNOWN;
	attr.attr_id = SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE;
	attr.flags = UVERBS_ATTR_F_MANDATORY;
	memcpy(cmd, &hdr, sizeof(hdr));
	memcpy(cmd + sizeof(hdr), &attr, sizeof(attr));
	if (ioctl(ctx->vctx.context.cmd_fd, RDMA_VERBS_IOCTL, cmd)) {
		/* an older driver: its zero-WR post_send wakes the card too */
		softhca_dbg(ctx, "no wake-up file (%d): zero-WR post_send",
			    errno);
		return -1;
	}
	/* uverbs returns the new file descriptor in the attribute */
	memcpy(&attr, cmd + sizeof(hdr), sizeof(attr));
	return static_cast<int>(attr.data);
}

void prepare_wake(Qp *qp)
{
	struct ib_uverbs_post_send core = {};

	core.response = reinterpret_cast<uintptr_t>(&qp->wake_resp);
	core.qp_handle = qp->vqp.qp.handle;
	core.wr_count = 0;
	core.sge_count = 0;
	core.wqe_size = sizeof(struct ib_uverbs_send_wr);
	qp->wake_cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	qp->wake_cmd.hdr.in_words = sizeof(qp->wake_cmd) / 4;
	qp->wake_cmd.hdr.out_words = sizeof(qp->wake_resp) / 4;
	memcpy(qp->wake_cmd.core, &core, sizeof(core));
}

void wake(Qp *qp)
{
	int fd = qp->ctx->wake_fd;

	if (fd >= 0) {
		if (ioctl(fd, SOFTHCA_WAKE_IOCTL,
			  static_cast<unsigned long>(qp->qpn)))
			softhca_dbg(qp->ctx, "wake-up call failed (%d)", errno);
		return;
	}
	if (write(qp->vqp.qp.context->cmd_fd, &qp->wake_cmd,
		  sizeof(qp->wake_cmd)) !=
	    static_cast<ssize_t>(sizeof(qp->wake_cmd)))
		softhca_dbg(qp->ctx, "wake-up call failed (%d)", errno);
}

} // namespace softhca

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: registration with libibverbs, device matching and user
 * contexts. The kernel driver is out of tree (RDMA_DRIVER_UNKNOWN), so the
 * device is matched by the modalias of its parent, the card's platform
 * device, and the context passes the same driver id back.
 */
#include <cerrno>
#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

#include "rdma_abi.h"
#include "softhca.h"

namespace softhca {
namespace {

const struct verbs_match_ent match_table[] = {
	{ nullptr, { "platform:softhca" }, 0, 0, VERBS_MATCH_MODALIAS },
	{ nullptr, { nullptr }, 0, 0, VERBS_MATCH_SENTINEL },
};

/* Undo what alloc_context set up, and free the context. */
void release_context(Context *ctx)
{
	if (ctx->wake_fd >= 0)
		close(ctx->wake_fd);
	if (ctx->uar)
		munmap(ctx->uar, ctx->page_size);
	delete ctx->dbrecs;
	ctx->qps.clear();
	pthread_mutex_destroy(&ctx->mu);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

void free_context(struct ibv_context *ibctx)
{
	release_context(to_ctx(ibctx));
}

const struct verbs_context_ops context_ops = [] {
	struct verbs_context_ops ops = {};

	ops.alloc_pd = alloc_pd;
	ops.cq_event = cq_event;
	ops.create_ah = create_ah;
	ops.create_cq = create_cq;
	ops.create_cq_ex = create_cq_ex;
	ops.create_qp = create_qp;
	ops.create_qp_ex = create_qp_ex;
	ops.create_srq = create_srq;
	ops.dealloc_pd = dealloc_pd;
	ops.dereg_mr = dereg_mr;
	ops.destroy_ah = destroy_ah;
	ops.destroy_cq = destroy_cq;
	ops.destroy_qp = destroy_qp;
	ops.destroy_srq = destroy_srq;
	ops.free_context = free_context;
	ops.modify_qp = modify_qp;
	ops.modify_srq = modify_srq;
	ops.poll_cq = poll_cq;
	ops.post_recv = post_recv;
	ops.post_send = post_send;
	ops.post_srq_recv = post_srq_recv;
	ops.query_device_ex = query_device_ex;
	ops.query_port = query_port;
	ops.query_qp = query_qp;
	ops.query_srq = query_srq;
	ops.reg_mr = reg_mr;
	ops.req_notify_cq = req_notify_cq;
	ops.resize_cq = resize_cq;
	return ops;
}();

struct verbs_context *alloc_context(struct ibv_device *ibdev, int cmd_fd,
				    void *)
{
	WriteCmd<ib_uverbs_get_context, void> cmd = {};
	WriteResp<ib_uverbs_get_context_resp, softhca_alloc_ucontext_resp>
		resp = {};
	static_assert(sizeof(cmd) == sizeof(ib_uverbs_cmd_hdr) +
					     sizeof(ib_uverbs_get_context),
		      "layout");
	static_assert(offsetof(decltype(resp), drv) ==
			      sizeof(ib_uverbs_get_context_resp),
		      "layout");

	/* libibverbs takes the offset of vctx disguised as a pointer. */
	auto *vctx_offset = reinterpret_cast<struct verbs_context *>( // NOLINT
		offsetof(Context, vctx));
	auto *ctx = static_cast<Context *>(_verbs_init_and_alloc_context(
		ibdev, cmd_fd, sizeof(Context), vctx_offset,
		RDMA_DRIVER_UNKNOWN));
	if (!ctx)
		return nullptr;

	pthread_mutex_init(&ctx->mu, nullptr);
	ctx->wake_fd = -1;
	ctx->page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	int err = ibv_cmd_get_context(
		&ctx->vctx, reinterpret_cast<struct ibv_get_context *>(&cmd),
		sizeof(cmd),
		reinterpret_cast<ib_uverbs_get_context_resp *>(&resp),
		sizeof(resp));
	if (err) {
		release_context(ctx);
		errno = err;
		return nullptr;
	}
	ctx->uar_index = resp.drv.uar_index;
	ctx->cqe_size = resp.drv.cqe_size;
	ctx->max_inline_data = resp.drv.max_inline_data;
	ctx->max_sge = resp.drv.max_sge;
	ctx->max_qp_wr = resp.drv.max_qp_wr;
	if (ctx->cqe_size != sizeof(struct softhca_cqe)) {
		softhca_err(ctx, "kernel CQE size %u, provider %zu",
			    ctx->cqe_size, sizeof(struct softhca_cqe));
		release_context(ctx);
		errno = EPROTO;
		return nullptr;
	}

	void *uar = mmap(nullptr, ctx->page_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, cmd_fd,
			 static_cast<off_t>(resp.drv.uar_mmap_offset));
	if (uar == MAP_FAILED) {
		err = errno;
		softhca_err(ctx, "cannot map the UAR (%d)", err);
		release_context(ctx);
		errno = err;
		return nullptr;
	}
	ctx->uar = static_cast<uint8_t *>(uar);

	/* one record per cache line, at least the card's alignment */
	size_t slot = resp.drv.dbrec_align > 64 ? resp.drv.dbrec_align : 64;
	ctx->dbrecs = new (std::nothrow) DbrecAllocator(ctx->page_size, slot);
	if (!ctx->dbrecs) {
		release_context(ctx);
		errno = ENOMEM;
		return nullptr;
	}
	ctx->wake_fd = open_wake_file(ctx);
	verbs_set_ops(&ctx->vctx, &context_ops);
	return &ctx->vctx;
}

struct verbs_device *alloc_device(struct verbs_sysfs_dev *)
{
	/* A libibverbs whose structs are laid out otherwise gets no device. */
	if (!rdma_abi::check(rdma_abi::running_release())) {
		errno = ENOTSUP;
		return nullptr;
	}
	auto *dev = new (std::nothrow) Device{};

	return dev ? &dev->vdev : nullptr;
}

void uninit_device(struct verbs_device *vdev)
{
	delete reinterpret_cast<Device *>(vdev);
}

const struct verbs_device_ops device_ops = {
	"softhca",		    /* name */
	SOFTHCA_UVERBS_ABI_VERSION, /* match_min_abi_version */
	SOFTHCA_UVERBS_ABI_VERSION, /* match_max_abi_version */
	match_table,
	nullptr, /* static_providers */
	nullptr, /* match_device */
	alloc_context,
	nullptr, /* import_context */
	alloc_device,
	uninit_device,
};

__attribute__((constructor)) void register_provider()
{
	verbs_register_driver_34(&device_ops);
}

} /* namespace */
} /* namespace softhca */

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
#include <mutex>
#include <pthread.h>

#include "../../include/softhca_abi.h"
#include "../../include/softhca_prm.h"
#include "dbrec.h"
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

struct Qp;

/*
 * QPN -> Qp for the completions of a context: two levels of 256 so that a
 * lookup is two loads. Changed under the context's mutex; read by poll_cq
 * without it (a QP is only looked up while it has completions).
 */
struct QpTable {
	static constexpr unsigned kLeafBits = 8;
	static constexpr unsigned kLeafSize = 1u << kLeafBits;
	static constexpr unsigned kTopSize = 256;

	Qp **top[kTopSize];

	Qp *find(uint32_t qpn) const
	{
		uint32_t t = qpn >> kLeafBits;

		if (t >= kTopSize || !top[t])
			return nullptr;
		return top[t][qpn & (kLeafSize - 1)];
	}
	int insert(uint32_t qpn, Qp *qp);
	void remove(uint32_t qpn);
	void clear();
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
	uint32_t uar_index;
	uint8_t *uar; /* the mapped UAR page */
	size_t page_size;
	DbrecAllocator *dbrecs;
	pthread_mutex_t mu; /* qps */
	QpTable qps;
};

inline Context *to_ctx(struct ibv_context *ibctx)
{
	return reinterpret_cast<Context *>(reinterpret_cast<char *>(ibctx) -
					   offsetof(Context, vctx.context));
}

struct Pd {
	struct ibv_pd ibpd;
	uint32_t pdn;
};

static_assert(offsetof(Pd, ibpd) == 0, "ibv_pd must come first");

inline Pd *to_pd(struct ibv_pd *ibpd)
{
	return reinterpret_cast<Pd *>(ibpd);
}

struct Cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct softhca_cqe *ring;
	size_t buf_size;
	uint32_t log_size;
	uint32_t ci; /* consumer index */
	uint32_t cqn;
	uint32_t arm_sn; /* sequence number of the next arm */
	struct softhca_cq_dbrec *db;
	Context *ctx;
};

static_assert(offsetof(Cq, vcq) == 0, "verbs_cq must come first");

inline Cq *to_cq(struct ibv_cq *ibcq)
{
	return reinterpret_cast<Cq *>(ibcq);
}

/* The part of a QP completions need: wr_ids by WQE index. */
struct Qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	uint64_t *sq_wrid;
	uint32_t sq_wqe_cnt;
	uint64_t *rq_wrid;
	uint32_t rq_wqe_cnt;
};

static_assert(offsetof(Qp, vqp) == 0, "verbs_qp must come first");

/* query.cpp */
/* QUERY_CAPS' fw_version (major << 32 | minor << 16 | sub) as text. */
void format_fw_version(uint64_t fw, char *buf, size_t len);
int query_device_ex(struct ibv_context *context,
		    const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr, size_t attr_size);
int query_port(struct ibv_context *context, uint8_t port,
	       struct ibv_port_attr *attr);

/* pd_mr.cpp */
struct ibv_pd *alloc_pd(struct ibv_context *context);
int dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		      uint64_t hca_va, int access);
int dereg_mr(struct verbs_mr *vmr);

/* cq.cpp */
struct ibv_cq *create_cq(struct ibv_context *context, int cqe,
			 struct ibv_comp_channel *channel, int comp_vector);
int destroy_cq(struct ibv_cq *cq);
int poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int req_notify_cq(struct ibv_cq *cq, int solicited_only);
void cq_event(struct ibv_cq *cq);
/* The pieces of poll_cq and req_notify_cq, for tests. */
int cq_poll(Cq *cq, const QpTable &qps, int ne, struct ibv_wc *wc);
void cq_arm(Cq *cq, bool solicited);
void cqe_to_wc(const struct softhca_cqe *cqe, const QpTable &qps,
	       struct ibv_wc *wc);

} // namespace softhca

#endif /* SOFTHCA_PROVIDER_H */

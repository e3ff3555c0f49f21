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
	uint32_t max_qp_wr;
	uint8_t *uar; /* the mapped UAR page */
	size_t page_size;
	DbrecAllocator *dbrecs;
	pthread_mutex_t mu; /* qps */
	QpTable qps;
	int wake_fd; /* the wake-up file, or -1: see wake.cpp */
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

/*
 * The zero-WR POST_SEND through the command fd that wakes an idle card when
 * there is no wake-up file (built once per QP, as siw does).
 */
struct WakeCmd {
	struct ib_uverbs_cmd_hdr hdr;
	alignas(8) unsigned char core[sizeof(struct ib_uverbs_post_send)];
};

struct Qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	Context *ctx;
	uint8_t *buf;
	size_t buf_size;
	struct softhca_qp_dbrec *db;
	enum ibv_qp_state state;

	/* send queue, in 64-byte basic blocks */
	pthread_spinlock_t sq_lock;
	uint8_t *sq;
	uint32_t sq_wqe_cnt;   /* basic blocks (a power of two) */
	uint32_t sq_pi;	       /* basic blocks posted */
	uint32_t sq_head;      /* WQEs posted */
	uint32_t sq_tail;      /* WQEs completed */
	uint32_t sq_tail_bb;   /* first basic block not completed */
	uint64_t *sq_wrid;     /* by first basic block */
	uint32_t *sq_wqe_head; /* sq_head when the WQE was posted */
	uint8_t *sq_nbb;       /* basic blocks of the WQE */
	uint32_t max_send_wr;
	uint32_t max_send_sge;
	uint32_t max_inline_data;
	bool sig_all;

	/* receive queue */
	pthread_spinlock_t rq_lock;
	uint8_t *rq;
	uint32_t rq_wqe_cnt;
	uint32_t rq_stride;
	uint32_t rq_pi;
	uint32_t rq_tail;
	uint64_t *rq_wrid;
	uint32_t max_recv_wr;
	uint32_t max_recv_sge;

	WakeCmd wake_cmd;
	struct ib_uverbs_post_send_resp wake_resp;
};

inline Qp *to_qp(struct ibv_qp *ibqp)
{
	return reinterpret_cast<Qp *>(ibqp);
}

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

/* wake.cpp */
int open_wake_file(Context *ctx);
void prepare_wake(Qp *qp);
void wake(Qp *qp);

/* qp.cpp */
struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
	     struct ibv_qp_init_attr *init);
int destroy_qp(struct ibv_qp *qp);
int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
	      struct ibv_send_wr **bad_wr);
int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
	      struct ibv_recv_wr **bad_wr);
/* The geometry of a QP for the requested caps (0 or an errno). */
struct QpGeometry {
	uint32_t max_send_wr, max_send_sge, max_inline_data;
	uint32_t max_recv_wr, max_recv_sge;
	uint32_t wqe_bbs;    /* basic blocks of the largest send WQE */
	uint32_t sq_wqe_cnt; /* basic blocks */
	uint32_t rq_wqe_cnt, rq_stride;
};
int qp_geometry(const struct ibv_qp_cap &want, uint32_t dev_max_wr,
		uint32_t dev_max_sge, uint32_t dev_max_inline, QpGeometry *g);
/* Build the send WQE for @wr at the SQ's producer index (no doorbell). */
int sq_build_wqe(Qp *qp, const struct ibv_send_wr *wr);

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

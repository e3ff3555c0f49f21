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
#include <type_traits>

#include "../../include/softhca_abi.h"
#include "../../include/softhca_prm.h"
#include "../../include/softhca_wqe.h"
#include "buffer.h"
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

/*
 * An address handle: the address vector every UD send to it carries, in
 * the card's format (dest_qpn and qkey are filled per work request).
 */
struct Ah {
	struct ibv_ah ibah;
	struct softhca_wqe_av av;
};

static_assert(offsetof(Ah, ibah) == 0, "ibv_ah must come first");

inline Ah *to_ah(struct ibv_ah *ibah)
{
	return reinterpret_cast<Ah *>(ibah);
}

/*
 * A shared receive queue: 2^n WQEs of @stride bytes, each a next segment
 * and data segments. The WQEs software owns form a list linked by their
 * next segments, from @head (the next one posted) to @tail (the last one
 * freed); the tail is never posted, so the card always finds the link
 * after the last posted WQE (mlx5's scheme). Posting takes the head,
 * a completion returns its WQE to the tail, both under @lock.
 */
struct Srq {
	struct ibv_srq ibsrq;
	uint32_t srqn;
	Context *ctx;
	SpinLock lock;
	DmaBuf buf;
	uint8_t *ring;
	uint32_t wqe_cnt; /* a power of two */
	uint32_t stride;  /* bytes per WQE */
	uint32_t max_wr;  /* wqe_cnt - 1 */
	uint32_t max_sge;
	uint32_t head;	  /* the next WQE to post */
	uint32_t tail;	  /* the last free WQE */
	uint32_t counter; /* WQEs posted (the doorbell record) */
	Array<uint64_t> wrid;
	Array<uint8_t> posted;		   /* 1: the card owns the WQE */
	Array<struct softhca_wqe_sge> sge; /* one WR's scatter list */
	Dbrec<struct softhca_srq_dbrec> db;
};

static_assert(offsetof(Srq, ibsrq) == 0, "ibv_srq must come first");

inline Srq *to_srq(struct ibv_srq *ibsrq)
{
	return reinterpret_cast<Srq *>(ibsrq);
}

struct Cq {
	struct verbs_cq vcq;
	SpinLock lock;
	DmaBuf buf;
	struct softhca_cqe *ring;
	uint32_t log_size;
	uint32_t base; /* the ring starts at CQE base (resize_cq) */
	uint32_t ci;   /* consumer index */
	uint32_t cqn;
	uint32_t arm_sn; /* sequence number of the next arm */
	Dbrec<struct softhca_cq_dbrec> db;
	Context *ctx;
	const QpTable *qps; /* the context's, for wr_ids */
	/* ibv_cq_ex: the completion start_poll/next_poll stand on */
	uint64_t wc_flags;
	struct ibv_wc cur;
};

static_assert(offsetof(Cq, vcq) == 0, "verbs_cq must come first");

inline Cq *to_cq(struct ibv_cq *ibcq)
{
	return reinterpret_cast<Cq *>(ibcq);
}

inline Cq *to_cq(struct ibv_cq_ex *ibcq)
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

/*
 * ibv_qp_ex posting (wr_start .. wr_complete/wr_abort, under the SQ lock):
 * the WR being built collects its builder's fields and its setters' data,
 * and is written with the shared encoder once it has all it needs (data,
 * and on UD the address). Errors wait for wr_complete, which then discards
 * everything since wr_start.
 */
struct ExPost {
	int err;	/* the first error since wr_start */
	uint32_t nreq;	/* WQEs written since wr_start */
	uint32_t pi_rb; /* rollback: the SQ's counters at wr_start */
	uint32_t head_rb;
	bool open; /* a WR waits for setters */
	bool has_data;
	bool has_av;
	uint64_t wr_id;
	struct softhca_send_wr wr;
	struct softhca_wqe_av av;
	Array<uint8_t> inl; /* inline data, copied by the setter */
	struct softhca_wqe_sge inl_sge;
};

struct Qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	Context *ctx;
	DmaBuf buf; /* the RQ, then the SQ */
	Dbrec<struct softhca_qp_dbrec> db;
	enum ibv_qp_state state;
	Srq *srq; /* receives take WQEs from it (no RQ), or null */

	/* send queue, in 64-byte basic blocks */
	SpinLock sq_lock;
	struct softhca_sq sq;		/* ring and basic blocks */
	struct softhca_sq_caps sq_caps; /* what the encoder checks */
	uint32_t sq_pi;			/* basic blocks posted */
	uint32_t sq_head;		/* WQEs posted */
	uint32_t sq_tail;		/* WQEs completed */
	uint32_t sq_tail_bb;		/* first basic block not completed */
	Array<uint64_t> sq_wrid;	/* by first basic block */
	Array<uint32_t> sq_wqe_head;	/* sq_head when the WQE was posted */
	Array<uint8_t> sq_nbb;		/* basic blocks of the WQE */
	Array<struct softhca_wqe_sge> sq_sge; /* one WR's gather list */
	uint32_t max_send_wr;
	uint32_t max_send_sge;
	uint32_t max_inline_data;
	bool sig_all;

	/* receive queue (none with an SRQ) */
	SpinLock rq_lock;
	uint8_t *rq;
	uint32_t rq_wqe_cnt;
	uint32_t rq_stride;
	uint32_t rq_pi;
	uint32_t rq_tail;
	Array<uint64_t> rq_wrid;
	uint32_t max_recv_wr;
	uint32_t max_recv_sge;

	ExPost ex;

	WakeCmd wake_cmd;
	struct ib_uverbs_post_send_resp wake_resp;
};

inline Qp *to_qp(struct ibv_qp *ibqp)
{
	return reinterpret_cast<Qp *>(ibqp);
}

inline Qp *to_qp(struct ibv_qp_ex *ibqp)
{
	return reinterpret_cast<Qp *>(ibqp);
}

static_assert(offsetof(Qp, vqp) == 0, "verbs_qp must come first");
/* the verbs handle is pointer-interconvertible with its object */
static_assert(std::is_standard_layout<Qp>::value, "Qp");
static_assert(std::is_standard_layout<Cq>::value, "Cq");
static_assert(std::is_standard_layout<Srq>::value, "Srq");

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
struct ibv_qp *create_qp_ex(struct ibv_context *context,
			    struct ibv_qp_init_attr_ex *attr);
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
	uint32_t rq_wqe_cnt, rq_stride; /* 0, 0 on an SRQ */
};
/* @qp_type: softhca_qp_type; @srq: receives come from an SRQ (no RQ). */
int qp_geometry(uint8_t qp_type, bool srq, const struct ibv_qp_cap &want,
		uint32_t dev_max_wr, uint32_t dev_max_sge,
		uint32_t dev_max_inline, QpGeometry *g);
/* Size the SQ's bookkeeping for @g (0 or an errno). */
int qp_alloc_queues(Qp *qp, const QpGeometry &g);
/* Build the send WQE for @wr at the SQ's producer index (no doorbell). */
int sq_build_wqe(Qp *qp, const struct ibv_send_wr *wr);
/* Write @wr (checked by the encoder) at the producer index; account it. */
int sq_post(Qp *qp, const struct softhca_send_wr *wr, uint64_t wr_id);
/* Publish the SQ's producer count and wake the card if it sleeps. */
void ring_sq(Qp *qp);
/* Write one receive WQE (0 or an errno). */
int rq_post_one(Qp *qp, const struct ibv_recv_wr *wr);
/* The SEND/RDMA/atomic flags of the card for ibv_send_flags. */
uint8_t wqe_flags(unsigned int send_flags);

/* qp_ex.cpp */
/*
 * Check @attr's send_ops_flags for a QP of @qp_type and install the
 * ibv_qp_ex operations (0 or an errno).
 */
int qp_ex_setup(Qp *qp, const struct ibv_qp_init_attr_ex *attr);

/* ah.cpp */
struct ibv_ah *create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int destroy_ah(struct ibv_ah *ah);
/* The address vector of @attr, with the resolved @dmac (0 or an errno). */
int ah_attr_to_av(const struct ibv_ah_attr &attr, const uint8_t *dmac,
		  struct softhca_wqe_av *av);

/* srq.cpp */
struct ibv_srq *create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
int modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int destroy_srq(struct ibv_srq *srq);
int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
/* SRQ geometry: WQEs and stride for @max_wr, @max_sge (0 or an errno). */
int srq_geometry(uint32_t max_wr, uint32_t max_sge, uint32_t dev_max_wr,
		 uint32_t dev_max_sge, uint32_t *wqe_cnt, uint32_t *stride);
/* Allocate the bookkeeping of @srq's wqe_cnt WQEs (0 or an errno). */
int srq_alloc_queues(Srq *srq);
/* Link every WQE of @srq's ring into the free list. */
void srq_init_ring(Srq *srq);
/* The free-list WQEs (post/complete, for tests and poll_cq). */
int srq_post(Srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
/*
 * The card completed WQE @idx: its wr_id, and the WQE back to the free
 * list. False if @idx is no WQE the card owns.
 */
bool srq_complete(Srq *srq, uint32_t idx, uint64_t *wr_id);

/* cq.cpp */
struct ibv_cq *create_cq(struct ibv_context *context, int cqe,
			 struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *create_cq_ex(struct ibv_context *context,
			       struct ibv_cq_init_attr_ex *attr);
int destroy_cq(struct ibv_cq *cq);
int poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int req_notify_cq(struct ibv_cq *cq, int solicited_only);
void cq_event(struct ibv_cq *cq);
/* The pieces of poll_cq and req_notify_cq, for tests. */
int cq_poll(Cq *cq, int ne, struct ibv_wc *wc);
/*
 * Write the arm word and the UAR's CQ doorbell; true when a CQE already
 * waits (the card raises the event only through cq_doorbell()).
 */
bool cq_arm(Cq *cq, bool solicited);
/* Ring the card's CQ doorbell (SOFTHCA_CQ_DB_IOCTL on the wake-up file). */
void cq_doorbell(Cq *cq);
void cqe_to_wc(const struct softhca_cqe *cqe, const QpTable &qps,
	       struct ibv_wc *wc);
/*
 * Drop the completions of QP @qpn that are still in @cq (it is being
 * destroyed or reset), returning the SRQ WQEs of its receives to @srq.
 */
void cq_clean(Cq *cq, uint32_t qpn, Srq *srq);
int resize_cq(struct ibv_cq *cq, int cqe);
/*
 * After RESIZE_CQ (which started the new ring at CQE @base and writes
 * CQEs @pi and later to it): move the CQEs [ci, pi) still in @cq's ring
 * to their slots in @ring (2^@log_size CQEs), with its owner bits, and
 * make @ring the CQ's.
 */
void cq_take_ring(Cq *cq, struct softhca_cqe *ring, uint32_t log_size,
		  uint32_t base, uint32_t pi);
/* Check @attr for create_cq_ex and install the ibv_cq_ex poll functions. */
int cq_ex_setup(Cq *cq, const struct ibv_cq_init_attr_ex *attr);

} // namespace softhca

#endif /* SOFTHCA_PROVIDER_H */

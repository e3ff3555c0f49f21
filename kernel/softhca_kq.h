/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca driver: the rings of kernel queues (kernel QPs and SRQs) as
 * plain data, and the bookkeeping that turns a completion back into the
 * work request it completes. Nothing here touches the card, ib_core
 * objects or locks: the caller holds the queue's lock (softhca_kq.c has
 * the rules), so KUnit drives these on hand-made rings.
 */
#ifndef SOFTHCA_KQ_H
#define SOFTHCA_KQ_H

#include <linux/types.h>

#include "../include/softhca_wqe.h"

/*
 * A kernel send queue. The producer side (pi, head, the ring, the
 * per-WQE arrays at the slots it writes) belongs to post_send under the
 * QP's SQ lock; tail and tail_bb belong to poll_cq under the send CQ's
 * lock, which publishes them with release semantics.
 */
struct softhca_ksq {
	struct softhca_sq ring;		/* buf, wqe_cnt basic blocks */
	struct softhca_sq_caps caps;	/* what softhca_wqe_size() checks */
	u32 max_wr;			/* WQEs it holds at once */
	u32 pi;				/* basic blocks posted */
	u32 head;			/* WQEs posted */
	u32 tail;			/* WQEs completed or retired */
	u32 tail_bb;			/* first basic block still in use */
	u64 *wrid;			/* by a WQE's first basic block */
	u32 *wqe_head;			/* head when that WQE was posted */
	u8 *nbb;			/* basic blocks that WQE takes */
};

/* A kernel receive queue; same split: pi is post_recv's, tail poll_cq's. */
struct softhca_krq {
	void *buf;
	u32 wqe_cnt;			/* a power of two */
	u32 stride;			/* bytes per WQE */
	u32 max_wr;
	u32 max_sge;
	u32 pi;				/* WQEs posted */
	u32 tail;			/* WQEs completed */
	u64 *wrid;			/* by WQE index */
};

/*
 * A kernel SRQ ring: free WQEs form a list linked by their next segments,
 * from head (where post_srq_recv writes) to tail (where poll_cq returns
 * completed ones). The tail WQE is never posted: its next link is not
 * written yet, and the card follows links from a WQE it takes. So an SRQ
 * of wqe_cnt WQEs holds wqe_cnt - 1 posted receives (mlx5's scheme).
 */
struct softhca_ksrq {
	void *buf;
	u32 wqe_cnt;			/* a power of two, at least 2 */
	u32 stride;			/* bytes per WQE, at least 32 */
	u32 max_sge;
	u16 head;			/* first free WQE */
	u16 tail;			/* last free WQE */
	u32 counter;			/* WQEs posted (the dbrec's count) */
	u64 *wrid;			/* by WQE index */
};

/* softhca_kq.c */
int softhca_ksq_post(struct softhca_ksq *sq, const struct softhca_send_wr *wr,
		     u64 wr_id);
u64 softhca_ksq_complete(struct softhca_ksq *sq, u32 wqe_counter);
u32 softhca_ksq_outstanding(const struct softhca_ksq *sq);
void softhca_ksq_reset(struct softhca_ksq *sq);
int softhca_krq_post(struct softhca_krq *rq, const struct softhca_wqe_sge *sg,
		     u32 n, u64 wr_id);
u64 softhca_krq_complete(struct softhca_krq *rq, u32 wqe_counter);
void softhca_krq_reset(struct softhca_krq *rq);
void softhca_ksrq_init(struct softhca_ksrq *srq);
int softhca_ksrq_post(struct softhca_ksrq *srq,
		      const struct softhca_wqe_sge *sg, u32 n, u64 wr_id,
		      u32 *index);
u64 softhca_ksrq_complete(struct softhca_ksrq *srq, u32 index);
u32 softhca_ksrq_free_count(const struct softhca_ksrq *srq);

#endif /* SOFTHCA_KQ_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the bookkeeping of kernel queues (softhca_kq.h). Posting
 * writes WQEs with the shared encoder (include/softhca_wqe.h) and records,
 * per WQE, its wr_id; a completion names the WQE by its index
 * (wqe_counter of the CQE) and gets the wr_id back.
 *
 * Send queues count basic blocks: a WQE takes 1 to SOFTHCA_MAX_WQEBBS of
 * them and is known by the counter of its first one. Unsignaled WQEs make
 * no CQE of their own; the CQE of a later WQE retires them too (the card
 * executes a send queue in order), so the queue's tail moves to just past
 * the completed WQE, as the provider's cqe_to_wc() does.
 *
 * Locking: a post runs under its queue's lock, a completion under the CQ's
 * lock; they share only tail (and tail_bb), which the completion side
 * stores with release semantics after tail_bb and the post side loads
 * with acquire semantics before tail_bb.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <asm/barrier.h>

#include "softhca_kq.h"

/**
 * softhca_ksq_post - write one send WQE and remember its wr_id
 * @sq: the send queue
 * @wr: the work request, in the encoder's terms
 * @wr_id: the caller's id (a wr_cqe pointer for most kernel users)
 *
 * Return: 0, -EINVAL for a WR the QP cannot take (softhca_wqe_size()),
 * -ENOMEM when the queue has no room for it.
 */
int softhca_ksq_post(struct softhca_ksq *sq, const struct softhca_send_wr *wr,
		     u64 wr_id)
{
	u32 ds, inline_len, nbb, slot, tail;
	int ret;

	ret = softhca_wqe_size(&sq->caps, wr, &ds, &inline_len);
	if (ret)
		return ret;
	nbb = softhca_wqe_bbs(ds);
	/* pairs with the release in softhca_ksq_complete(): tail_bb too */
	tail = smp_load_acquire(&sq->tail);
	if (sq->head - tail >= sq->max_wr ||
	    sq->pi + nbb - READ_ONCE(sq->tail_bb) > sq->ring.wqe_cnt)
		return -ENOMEM;

	softhca_wqe_write(&sq->ring, sq->pi, &sq->caps, wr, ds, inline_len);
	slot = sq->pi & (sq->ring.wqe_cnt - 1);
	sq->wrid[slot] = wr_id;
	sq->wqe_head[slot] = sq->head;
	sq->nbb[slot] = nbb;
	sq->head++;
	sq->pi += nbb;
	return 0;
}

/**
 * softhca_ksq_complete - the send WQE at basic block @wqe_counter completed
 * @sq: the send queue
 * @wqe_counter: the CQE's wqe_counter (the WQE's first basic block)
 *
 * The WQE and every WQE posted before it (unsignaled ones) leave the
 * queue.
 *
 * Return: the WQE's wr_id.
 */
u64 softhca_ksq_complete(struct softhca_ksq *sq, u32 wqe_counter)
{
	u32 slot = wqe_counter & (sq->ring.wqe_cnt - 1);

	WRITE_ONCE(sq->tail_bb, wqe_counter + sq->nbb[slot]);
	/* tail_bb before tail, for softhca_ksq_post() */
	smp_store_release(&sq->tail, sq->wqe_head[slot] + 1);
	return sq->wrid[slot];
}

/* WQEs posted and not yet completed or retired. */
u32 softhca_ksq_outstanding(const struct softhca_ksq *sq)
{
	/* pairs with the release in softhca_ksq_complete() */
	return sq->head - smp_load_acquire(&sq->tail);
}

/* Back to a new queue's counters (the QP went to RESET). */
void softhca_ksq_reset(struct softhca_ksq *sq)
{
	sq->pi = 0;
	sq->head = 0;
	WRITE_ONCE(sq->tail_bb, 0);
	WRITE_ONCE(sq->tail, 0);
}

/**
 * softhca_krq_post - write one receive WQE and remember its wr_id
 * @rq: the receive queue
 * @sg: its scatter list (ib_sge has the same layout)
 * @n: entries in @sg
 * @wr_id: the caller's id
 *
 * Return: 0, -EINVAL for more than max_sge entries, -ENOMEM when full.
 */
int softhca_krq_post(struct softhca_krq *rq, const struct softhca_wqe_sge *sg,
		     u32 n, u64 wr_id)
{
	u32 index = rq->pi & (rq->wqe_cnt - 1);
	int ret;

	if (n > rq->max_sge)
		return -EINVAL;
	/* pairs with the release in softhca_krq_complete() */
	if (rq->pi - smp_load_acquire(&rq->tail) >= rq->max_wr)
		return -ENOMEM;
	ret = softhca_rwqe_write((u8 *)rq->buf + (size_t)index * rq->stride,
				 rq->stride, sg, n);
	if (ret)
		return ret;
	rq->wrid[index] = wr_id;
	rq->pi++;
	return 0;
}

/* The receive WQE @wqe_counter completed (in order): return its wr_id. */
u64 softhca_krq_complete(struct softhca_krq *rq, u32 wqe_counter)
{
	u64 wr_id = rq->wrid[wqe_counter & (rq->wqe_cnt - 1)];

	/* the slot is read before softhca_krq_post() may reuse it */
	smp_store_release(&rq->tail, wqe_counter + 1);
	return wr_id;
}

void softhca_krq_reset(struct softhca_krq *rq)
{
	rq->pi = 0;
	WRITE_ONCE(rq->tail, 0);
}

static struct softhca_srq_next *softhca_ksrq_next(struct softhca_ksrq *srq,
						  u32 index)
{
	return (struct softhca_srq_next *)((u8 *)srq->buf +
					   (size_t)index * srq->stride);
}

/* Link every WQE into the free list 0 -> 1 -> ... -> wqe_cnt - 1. */
void softhca_ksrq_init(struct softhca_ksrq *srq)
{
	u32 i;

	for (i = 0; i < srq->wqe_cnt; i++)
		softhca_ksrq_next(srq, i)->next_wqe_index =
			cpu_to_le16((i + 1) & (srq->wqe_cnt - 1));
	srq->head = 0;
	srq->tail = srq->wqe_cnt - 1;
	srq->counter = 0;
}

/**
 * softhca_ksrq_post - post one receive WQE at the free list's head
 * @srq: the SRQ ring
 * @sg: the scatter list
 * @n: its entries
 * @wr_id: the caller's id
 * @index: set to the WQE's index
 *
 * Return: 0, -EINVAL for more than max_sge entries, -ENOMEM when only the
 * tail is free.
 */
int softhca_ksrq_post(struct softhca_ksrq *srq,
		      const struct softhca_wqe_sge *sg, u32 n, u64 wr_id,
		      u32 *index)
{
	struct softhca_srq_next *wqe;
	int ret;

	if (n > srq->max_sge)
		return -EINVAL;
	if (srq->head == srq->tail)
		return -ENOMEM;
	wqe = softhca_ksrq_next(srq, srq->head);
	ret = softhca_srq_wqe_write(wqe, srq->stride, sg, n);
	if (ret)
		return ret;
	*index = srq->head;
	srq->wrid[srq->head] = wr_id;
	srq->head = le16_to_cpu(wqe->next_wqe_index) & (srq->wqe_cnt - 1);
	srq->counter++;
	return 0;
}

/*
 * The SRQ WQE at @index completed (in any order): it goes back to the
 * free list's tail. Return its wr_id.
 */
u64 softhca_ksrq_complete(struct softhca_ksrq *srq, u32 index)
{
	index &= srq->wqe_cnt - 1;
	softhca_ksrq_next(srq, srq->tail)->next_wqe_index = cpu_to_le16(index);
	srq->tail = index;
	return srq->wrid[index];
}

/* WQEs on the free list, the tail included (for tests and debugging). */
u32 softhca_ksrq_free_count(const struct softhca_ksrq *srq)
{
	const struct softhca_srq_next *wqe;
	u32 n = 1, i = srq->head;

	while (i != srq->tail && n <= srq->wqe_cnt) {
		wqe = (const struct softhca_srq_next *)((const u8 *)srq->buf +
						       (size_t)i * srq->stride);
		i = le16_to_cpu(wqe->next_wqe_index) & (srq->wqe_cnt - 1);
		n++;
	}
	return n;
}

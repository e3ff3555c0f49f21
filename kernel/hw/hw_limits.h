/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca device model: every limit of the silicon, once. QUERY_CAPS
 * reports these (hw_caps.c) and the commands and the engine check against
 * them, so what the driver is told is exactly what the card accepts: an
 * object table whose numbers run from FIRST to LAST holds LAST - FIRST + 1
 * objects, and that is its max_*.
 */
#ifndef SOFTHCA_HW_LIMITS_H
#define SOFTHCA_HW_LIMITS_H

#include <linux/bits.h>
#include <linux/sizes.h>

/* Object numbers: [FIRST, LAST]; 0 (and QPs 0 and 1) are reserved. */
#define SOFTHCA_HW_PD_FIRST		1
#define SOFTHCA_HW_PD_LAST		(BIT(16) - 1)
#define SOFTHCA_HW_UAR_FIRST		0
#define SOFTHCA_HW_UAR_LAST		(BIT(12) - 1)
#define SOFTHCA_HW_CQ_FIRST		1
#define SOFTHCA_HW_CQ_LAST		(BIT(16) - 1)
#define SOFTHCA_HW_QP_FIRST		2
#define SOFTHCA_HW_QP_LAST		(BIT(16) - 1)
#define SOFTHCA_HW_MKEY_FIRST		1
#define SOFTHCA_HW_MKEY_LAST		(BIT(20) - 1)
#define SOFTHCA_HW_EQ_FIRST		0
#define SOFTHCA_HW_EQ_LAST		(SOFTHCA_MAX_EQS - 1)
#define SOFTHCA_HW_SRQ_FIRST		1
#define SOFTHCA_HW_SRQ_LAST		(BIT(14) - 1)

#define SOFTHCA_HW_COUNT(obj) \
	(SOFTHCA_HW_##obj##_LAST - SOFTHCA_HW_##obj##_FIRST + 1)

/* Queue geometry. */
#define SOFTHCA_HW_LOG_MAX_CQ		22	/* CQEs */
#define SOFTHCA_HW_LOG_MAX_EQ		16	/* EQEs */
#define SOFTHCA_HW_LOG_MAX_SQ		18	/* send basic blocks */
#define SOFTHCA_HW_LOG_MAX_RQ		15	/* receive WQEs */
#define SOFTHCA_HW_LOG_MIN_STRIDE	4	/* receive WQE bytes */
#define SOFTHCA_HW_LOG_MAX_STRIDE	8
#define SOFTHCA_HW_MAX_QP_WR		BIT(15)
#define SOFTHCA_HW_MAX_SGE		16
#define SOFTHCA_HW_MAX_INLINE		256
#define SOFTHCA_HW_MAX_RD_ATOM		128	/* as rxe: peers ask for it */
#define SOFTHCA_HW_LOG_MAX_SRQ		15	/* SRQ WQEs */
#define SOFTHCA_HW_LOG_MIN_SRQ_STRIDE	5	/* next segment + one SGE */
#define SOFTHCA_HW_LOG_MAX_SRQ_STRIDE	9

/* Memory. */
#define SOFTHCA_HW_MAX_MR_SIZE		BIT_ULL(40)
#define SOFTHCA_HW_MAX_PAS_BLOCKS	BIT(26)
#define SOFTHCA_HW_MAX_FAST_REG_PAGES	512

/* Transport. */
#define SOFTHCA_HW_MAX_MSG		BIT_ULL(31)
#define SOFTHCA_HW_MAX_MTU		4096
#define SOFTHCA_HW_MAX_COMP_VECTORS	32
#define SOFTHCA_HW_GID_TBL_LEN		64
#define SOFTHCA_HW_ACK_DELAY		15
#define SOFTHCA_HW_MAX_UD_MSG		4096	/* a UD message: one packet */
#define SOFTHCA_HW_MAX_UNACKED		256	/* RC PSNs on the wire unACKed */
/* RC to another host: the congestion window (PSNs), hw_comp.c */
#define SOFTHCA_HW_CWND_INIT		32	/* at RTR, and the slow start */
#define SOFTHCA_HW_CWND_MIN		4	/* after a timeout */

/* Completion event moderation (MODIFY_CQ). */
#define SOFTHCA_HW_MAX_CQ_COUNT		U16_MAX
#define SOFTHCA_HW_MAX_CQ_PERIOD_US	U16_MAX

/* Address handles: the driver's objects; the card bounds their number. */
#define SOFTHCA_HW_MAX_AH		BIT(16)

/*
 * The engine's work units: a QP's visit moves at most this many payload
 * bytes (or SOFTHCA_HW_SQ_BUDGET WQEs) before the next QP's turn; between
 * QPs of the card a message travels in runs of packets of at most
 * SOFTHCA_HW_SEGMENT bytes, each copied once.
 */
#define SOFTHCA_HW_QP_BUDGET		SZ_256K
#define SOFTHCA_HW_SQ_BUDGET		64
/*
 * A QP in error flushes at most this many WQEs (send and receive) a
 * visit, then waits for its next turn: the engine context holds the QP's
 * run lock with BHs off, and a full 32K-entry queue would keep them off
 * for its whole flush.
 */
#define SOFTHCA_HW_FLUSH_BUDGET		256
#define SOFTHCA_HW_SEGMENT		SZ_64K

#endif /* SOFTHCA_HW_LIMITS_H */

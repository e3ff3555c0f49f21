/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the softhca device model (the "silicon"). Nothing here knows
 * ib_core: the model sees registers, commands, contexts, queues and DMA
 * addresses only.
 */
#ifndef SOFTHCA_HW_INTERNAL_H
#define SOFTHCA_HW_INTERNAL_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "../../include/softhca_prm.h"
#include "softhca_hw.h"
#include "hw_limits.h"
#include "hw_pkt.h"

struct platform_device;

/* The block sizes the card's PAS/MTT takes: the CPU's page sizes. */
#define SOFTHCA_HW_BLOCK_SIZES	(SZ_4K | SZ_2M | SZ_1G)
struct irq_domain;

/* One interrupt line, delivered like an MSI-X message to its target CPU. */
struct softhca_hw_vec {
	struct softhca_hw *hw;
	unsigned int hwirq;
	unsigned int virq;
	int target_cpu;			/* set by the irq_chip's set_affinity */
	call_single_data_t csd;		/* remote delivery */
	struct irq_work local;		/* delivery on the raising CPU */
};

/*
 * What the port counts (the driver reads them for "rdma statistic"):
 * packets and bytes each way, NAKs and retries, and what was dropped why.
 * Per CPU: every packet counts, from any CPU and context, and a shared
 * counter would be a cache line all of them write; QUERY_COUNTERS sums.
 */
struct softhca_hw_counters {
	u64 tx_packets;
	u64 tx_bytes;
	u64 rx_packets;
	u64 rx_bytes;
	u64 retransmits;		/* resent after a NAK or timeout */
	u64 timeouts;			/* transport timer expiries */
	u64 seq_naks_sent;
	u64 seq_naks_rcvd;
	u64 rnr_naks_sent;
	u64 rnr_naks_rcvd;
	u64 duplicates;			/* requests seen again */
	u64 drop_no_qp;			/* no QP (in a receiving state) */
	u64 drop_qkey;			/* UD/GSI Q_Key mismatch */
	u64 drop_not_peer;		/* RC/UC from other than the peer */
	u64 drop_no_wqe;		/* UD/UC with no receive WQE */
	u64 drop_seq;			/* out of sequence */
	u64 drop_icrc;			/* bad ICRC (the wire) */
	u64 drop_malformed;		/* headers that do not parse */
	u64 tx_dropped;			/* could not be sent */
	u64 kwake_inline;		/* ENGINE_DB_ASYNC served by its writer */
	u64 kwake_engine;		/* ... left to the engine thread */
};

/* count one (or @n) in counter @c, on this CPU */
#define softhca_hw_count(hw, c)		this_cpu_inc((*(hw)->counters).c)
#define softhca_hw_count_n(hw, c, n)	this_cpu_add((*(hw)->counters).c, n)

struct softhca_hw {
	struct platform_device *pdev;
	u8 mac[ETH_ALEN];
	void *regs;			/* register page */

	/* interrupts */
	struct fwnode_handle *fwnode;
	struct irq_domain *irq_domain;
	unsigned int nvec;
	struct softhca_hw_vec *vecs;

	/* command interface */
	struct workqueue_struct *wq;
	struct work_struct cmd_work;
	atomic_long_t cmd_pending;	/* slots rung, bitmap */
	u64 cmdq_dma;
	u32 cmdq_log_size;
	bool cmdq_enabled;
	struct mutex cmd_mutex;		/* serialises command execution */
	wait_queue_head_t cmd_stall;	/* fault injection: a hung command */
	u32 cmds_aborted;		/* commands a reset cut short */
	/*
	 * Set by a reset (CTRL.ENABLE cleared): the card has stopped its
	 * engine and raises no event; it touches host memory no more.
	 * Written under engine_lock; read locklessly to skip work.
	 */
	bool halted;

	/* objects, indexed by their numbers; changed under cmd_mutex */
	struct xarray pds;
	struct xarray uars;
	struct xarray eqs;
	struct xarray cqs;
	struct xarray mkeys;
	struct xarray qps;
	struct xarray srqs;
	/*
	 * Every QP, oldest first: what the engine walks when it polls
	 * (read under RCU; changed under cmd_mutex, with qps).
	 */
	struct list_head engine_qps;
	u32 mkey_variant;
	/*
	 * The next number tried for each kind (cmd_mutex): numbers are given
	 * cyclically, as rxe's pools do, so a destroyed object's number comes
	 * back only after every other one. An event, a CQE or a packet of
	 * the old object still on its way cannot pass for a new one's, and
	 * the driver, which forgets the old number only once its destroy
	 * command has completed, never sees it handed out again meanwhile.
	 */
	u32 cq_next;
	u32 qp_next;
	u32 srq_next;
	u32 mkey_next;
	struct softhca_hw_qp *gsi;	/* QP1, or NULL (cmd_mutex) */
	struct softhca_hw_eq __rcu *async_eq;	/* events of objects */
	struct softhca_hw_eq __rcu *cmd_eq;	/* command completions */

	/* the port's GID table, as SET_GID loaded it */
	u8 gids[SOFTHCA_HW_GID_TBL_LEN][16];
	unsigned long gid_valid[BITS_TO_LONGS(SOFTHCA_HW_GID_TBL_LEN)];

	/* the data-path engine (hw_engine.c) */
	struct task_struct *engine;
	atomic_t engine_kicked;		/* a wake-up doorbell was rung */
	/* engine_state and the UARs it is published in */
	struct mutex uar_lock;
	u32 engine_state;		/* SOFTHCA_ENGINE_* published in UARs */
	unsigned long engine_quiet_until; /* jiffies: wake-ups leave it asleep */
	/*
	 * local_clock() of the last wake-up doorbell (racy: a hint), and of
	 * the last one that asked the engine thread to poll on
	 */
	u64 engine_kick_ns;
	u64 engine_poll_from_ns;
	/*
	 * Wakes the engine thread for a transport timer that a doorbell's
	 * visit in another thread armed (the sleeping engine did not see it).
	 */
	struct hrtimer engine_timer;
	spinlock_t engine_timer_lock;	/* reading and moving its expiry */
	/*
	 * Bumped (under gid_lock, or by QP commands) when the responder of a
	 * path may change: GIDs, QP states and attributes, QPs destroyed. A
	 * requester's cached peer holds while it is unchanged.
	 */
	atomic64_t path_gen;
	seqlock_t gid_lock;		/* gids, gid_valid (BHs off to write) */
	struct softhca_hw_counters __percpu *counters;

	/*
	 * The netdev the port is wired to (hw_roce.c): set and cleared under
	 * RTNL, read under RCU by senders and the receive handler.
	 */
	struct net_device __rcu *ndev;

	/* the host's RAM ranges (hw_ram.c), read under RCU */
	struct softhca_hw_ram __rcu *ram;
	struct mutex ram_lock;		/* replacing ram */
	struct notifier_block ram_nb;	/* memory online/offline */
};

/* The host's System RAM as the card copied it (hw_ram.c). */
struct softhca_hw_ram_range {
	u64 start;
	u64 end;			/* exclusive */
};

struct softhca_hw_ram {
	struct rcu_head rcu;
	unsigned int n;
	struct softhca_hw_ram_range r[];	/* sorted, adjacent ones merged */
};

/* A buffer in host memory as the card keeps it after reading its PAS. */
struct softhca_hw_pas {
	u64 *blocks;			/* DMA address of each block */
	u32 nblocks;
	u8 log_block_size;
	u32 offset;			/* where the object starts in block 0 */
	u64 size;			/* the object's bytes */
};

struct softhca_hw_pd {
	u32 pdn;
	u32 users;			/* MKEYs, QPs and SRQs on it */
};

struct softhca_hw_uar {
	u32 index;
	struct page *page;
	u32 users;			/* CQs, QPs and SRQs that ring it */
};

struct softhca_hw_eq {
	u32 eqn;
	u8 type;			/* softhca_eq_type */
	u32 vector;
	u32 log_size;
	struct softhca_hw_pas pas;
	spinlock_t lock;		/* pi, ci, armed */
	u32 pi;
	u32 ci;
	bool armed;
	u32 overruns;
	u32 users;			/* CQs reporting to it */
	struct rcu_head rcu;
};

struct softhca_hw_cq {
	u32 cqn;
	u32 log_size;
	u32 flags;			/* softhca_cq_flags */
	struct softhca_hw_eq *eq;
	struct softhca_hw_uar *uar;
	u64 dbrec;
	struct softhca_cq_dbrec *db;	/* dbrec, checked to be RAM */
	struct softhca_hw_pas pas;
	/*
	 * pi, the arm state, error, moderation, dead; taken with interrupts
	 * off (the wire's receive path completes in softirq, CQ_DB comes
	 * from any context) and nested inside a QP's lock.
	 */
	spinlock_t lock;
	u32 pi;
	u32 base;			/* CQE base is slot 0, first pass */
	u32 sol_pi;			/* pi after the last solicited/error CQE */
	bool dead;			/* destroyed: CQ_DB finds nothing */
	u32 arm_sn_fired;
	u32 arm_seen;			/* the arm word last read (tracing) */
	bool error;
	/* moderation (MODIFY_CQ): hold the event for count CQEs or period */
	u16 mod_count;
	u16 mod_period_us;
	u32 mod_pending;		/* CQEs since the arm, event held */
	struct hrtimer mod_timer;
	u32 events;			/* completion events raised */
	struct softhca_hw *hw;
	u32 users;			/* QPs completing to it */
	struct rcu_head rcu;
};

/*
 * One translation of an MKEY (an MR's whole life, or one fast
 * registration): what a key may reach. Users (a WQE being sent, a receive
 * being filled, a READ being answered) hold a reference; DESTROY_MKEY
 * waits for them, a new REG_MR or an invalidation just drops the MKEY's.
 */
struct softhca_hw_map {
	refcount_t ref;
	struct completion *gone;	/* completed by the last put, if set */
	u32 key;			/* the key that reaches it */
	u32 access;			/* softhca_mkey_access */
	u32 flags;			/* softhca_mkey_flags (PA) */
	u64 iova;
	u64 length;
	struct softhca_hw_pas pas;	/* not for F_PA */
	struct rcu_head rcu;
};

struct softhca_hw_mkey {
	u32 index;
	u32 flags;			/* softhca_mkey_flags */
	u32 max_pages;			/* F_FAST_REG */
	struct softhca_hw_pd *pd;
	spinlock_t lock;		/* map changes and key */
	u32 key;			/* the current key (index << 8 | byte) */
	struct softhca_hw_map __rcu *map;	/* NULL: free */
	struct rcu_head rcu;
};

struct softhca_hw_srq {
	u32 srqn;
	u32 log_size;
	u32 log_stride;
	struct softhca_hw_pd *pd;
	struct softhca_hw_uar *uar;
	u64 dbrec;
	struct softhca_srq_dbrec *db;
	struct softhca_hw_pas pas;
	spinlock_t lock;		/* head, taken, limit (BHs off) */
	u32 head;
	u32 taken;
	u32 limit;
	u32 users;			/* QPs on it */
	struct rcu_head rcu;
};

/* The most segments a WQE holds: 8 basic blocks of 4 units. */
#define SOFTHCA_HW_WQE_SEGS	(SOFTHCA_MAX_WQEBBS * 4)

/* A send WQE as fetched from the SQ, its segments located. */
struct softhca_hw_wqe {
	u8 raw[SOFTHCA_MAX_WQEBBS * SOFTHCA_WQEBB_SIZE];
	struct softhca_wqe_ctrl *ctrl;
	const struct softhca_wqe_raddr *raddr;
	const struct softhca_wqe_atomic *atomic;
	const struct softhca_wqe_av *av;
	const struct softhca_wqe_reg_mr *reg;
	const struct softhca_wqe_data *data;
	u32 ndata;
	const u8 *inline_data;
	u32 inline_len;
	u32 index;			/* basic-block counter of its first */
	u32 nbb;
	u64 length;
	/* its gather list, checked: references held */
	struct softhca_hw_seg seg[SOFTHCA_HW_MAX_SGE];
	u32 nseg;
};

/* A send WQE between its first packet and its completion. */
struct softhca_hw_flight {
	u32 index;			/* first basic block */
	u32 nbb;
	u32 first_psn;
	u32 last_psn;			/* inclusive */
	u64 length;
	u64 got;			/* READ: response bytes written */
	u32 syndrome;
	u8 opcode;			/* softhca_wqe_opcode */
	u8 status;			/* softhca_cqe_status */
	bool signaled;
	bool rd;			/* holds a READ/atomic credit */
	bool done;
};

#define SOFTHCA_HW_FLIGHT	32	/* WQEs a QP has in flight */

/* A READ or atomic the responder answers (max_dest_rd_atomic of them). */
struct softhca_hw_res {
	u8 opcode;			/* READ_REQUEST, CMP_SWAP, FETCH_ADD */
	bool busy;			/* its answer still to send */
	u32 psn;			/* of the request */
	u32 npkts;			/* PSNs it takes */
	/* READ */
	struct softhca_hw_seg seg;	/* what is read (reference held) */
	u64 va;
	u32 rkey;
	u32 len;
	u32 sent;			/* response bytes sent */
	/* atomic */
	u64 orig;			/* the result, replayed to duplicates */
};

/* Why the engine must visit a QP (qp->work bits). */
enum softhca_hw_qp_work {
	SOFTHCA_HW_QPW_RUN	= 0,	/* the requester may go on */
	SOFTHCA_HW_QPW_PUSH	= 1,	/* the responder has READ responses */
	SOFTHCA_HW_QPW_FLUSH	= 2,	/* in error: complete what is posted */
};

struct softhca_hw_qp {
	/* set at creation, constant */
	u32 qpn;
	u8 type;			/* softhca_qp_type */
	u32 flags;			/* softhca_qp_flags */
	struct softhca_hw *hw;
	struct softhca_hw_pd *pd;
	struct softhca_hw_cq *scq;
	struct softhca_hw_cq *rcq;
	struct softhca_hw_uar *uar;
	struct softhca_hw_srq *srq;	/* or NULL: its own RQ */
	struct softhca_hw_pas pas;	/* RQ, then SQ */
	u32 log_sq_size;		/* basic blocks */
	u32 log_rq_size;		/* receive WQEs */
	u32 log_rq_stride;
	u64 sq_offset;			/* bytes from the start of the buffer */
	u64 dbrec;
	struct softhca_qp_dbrec *db;	/* dbrec, checked to be RAM */

	/* lifetime */
	refcount_t ref;			/* the table's, and every user's */
	struct completion free;		/* the last reference went */
	unsigned long work;		/* softhca_hw_qp_work bits */
	struct rcu_head rcu;
	struct list_head engine_node;	/* in hw->engine_qps */
	bool engine_listed;		/* ... still (cleared when it leaves) */

	/*
	 * The QP's engine context: sending (the requester), the responder's
	 * READ responses, flushing. One thread at a time; commands take it
	 * to change the state under the engine's feet. Taken with BHs off
	 * (spin_lock_bh): a visit never sleeps, so a kernel QP's post in
	 * softirq or under its caller's spinlocks can run it. Taken before
	 * qp->lock.
	 */
	spinlock_t run;
	struct softhca_hw_wqe *sw;	/* the WQE being sent (run) */
	bool sending;			/* sw holds a WQE partly sent */
	u64 sent;			/* its bytes sent so far */
	u32 sent_psn;			/* the PSN of its next packet */
	u32 sq_next;			/* the next WQE to fetch (run + lock) */
	u64 path_gen;			/* hw->path_gen when peer was found */
	struct softhca_hw_qp *peer;	/* RC/UC: the responder (cached) */
	bool peer_remote;		/* ... is on another host */
	u32 fl_send;			/* flight place of the next WQE sent */
	bool resend_psn_valid;		/* after a rewind: from resend_psn */
	u32 resend_psn;

	/*
	 * Everything else: state and attributes, the flight (requester and
	 * completer share it), the completer's and the responder's state.
	 * A spinlock taken with BHs off (packets arrive in softirq); never
	 * held while another QP's lock is taken. Nests: qp->lock, then a
	 * CQ's lock, then an EQ's.
	 */
	spinlock_t lock;
	u8 state;			/* softhca_qp_state */
	struct softhca_qp_attr attr;	/* as MODIFY_QP set it (run + lock) */
	bool last_wqe_sent;		/* SRQ: LAST_WQE_REACHED given */

	/* the flight: sent WQEs, oldest first */
	struct softhca_hw_flight flight[SOFTHCA_HW_FLIGHT];
	u32 fl_head;			/* oldest */
	u32 fl_tail;			/* next free */
	u32 sq_ci;			/* the oldest WQE not completed */
	u32 rd_out;			/* READs and atomics in flight */

	/* completer */
	struct softhca_hw_wqe *cw;	/* the READ/atomic being completed */
	bool cw_loaded;			/* cw holds flight[fl_head]'s WQE */
	u32 retries;			/* transport retries of this PSN */
	u32 rnr_retries;
	bool rewind;			/* resend from rewind_psn */
	u32 rewind_psn;
	bool waiting;			/* resend not before deadline */
	bool timer_armed;		/* no ACK by deadline: retry */
	ktime_t deadline;
	u32 acked_psn;			/* the PSNs before it are ACKed */
	bool sqd_notify_pending;	/* SQ_DRAINED when the flight empties */
	bool rd_gap;			/* a READ response was missing: resent */
	bool nak_rewound;		/* went back for a sequence NAK ... */
	u32 nak_psn;			/* ... of this PSN, no progress since */
	/*
	 * RC to another host: PSNs that may be unACKed (the congestion
	 * window, at most SOFTHCA_HW_MAX_UNACKED), grown per PSN ACKed up to
	 * ssthresh, then by one a window; a loss halves it, a timeout
	 * drops it to SOFTHCA_HW_CWND_MIN. cwnd_acked: PSNs ACKed towards
	 * the next step past ssthresh.
	 */
	u32 cwnd;
	u32 ssthresh;
	u32 cwnd_acked;

	/* responder */
	bool comm_est;			/* first message seen in RTR */
	bool nak_sent;			/* a PSN sequence NAK stands */
	u32 msn;
	u32 rq_ci;			/* the next receive WQE */
	u32 rmsg;			/* OPM_SEND or OPM_WRITE going on, or 0 */
	bool rdrop;			/* UC: dropping the rest of a message */
	bool rwqe;			/* a receive WQE is being filled */
	u32 rwqe_index;			/* its RQ counter or SRQ index */
	u64 rcap;			/* its bytes */
	u64 roff;			/* bytes written into it */
	struct softhca_hw_seg rseg[SOFTHCA_HW_MAX_SGE];
	u32 nrseg;
	struct softhca_hw_seg wseg;	/* WRITE target (reference held) */
	u64 woff;			/* bytes written into it */
	struct softhca_hw_res *res;	/* SOFTHCA_HW_MAX_RD_ATOM of them */
	u32 res_head;			/* oldest READ still answering */
	u32 res_tail;			/* next free */
	u32 res_busy;			/* of them with an answer to send */
	/*
	 * Answers leave in PSN order: while READ responses or atomic ACKs
	 * wait for the engine (busy resources, or a run being sent:
	 * push_tx), an ACK or NAK waits too, the latest one kept here.
	 */
	bool push_tx;
	bool ack_due;
	u8 ack_syndrome;
	u32 ack_psn;
};

/* What a command handler gets and returns. */
struct softhca_hw_cmd_ctx {
	const void *in;
	u32 in_len;
	void *out;
	u32 out_len;			/* room; set to bytes written */
	u32 syndrome;			/* set on failure */
};

/* Syndromes: which check a failed command tripped (reported to driver). */
enum softhca_hw_syndrome {
	SOFTHCA_SYND_NONE		= 0,
	SOFTHCA_SYND_OPCODE		= 0x1001,
	SOFTHCA_SYND_IN_LEN		= 0x1002,
	SOFTHCA_SYND_OUT_LEN		= 0x1003,
	SOFTHCA_SYND_MAILBOX_DMA	= 0x1004,
	SOFTHCA_SYND_NO_MEM		= 0x1005,
	SOFTHCA_SYND_PAS_LOG_BLOCK	= 0x1101,
	SOFTHCA_SYND_PAS_NBLOCKS	= 0x1102,
	SOFTHCA_SYND_PAS_LIST_ADDR	= 0x1103,
	SOFTHCA_SYND_PAS_BLOCK_ADDR	= 0x1104,
	SOFTHCA_SYND_PAS_TOO_SMALL	= 0x1105,
	SOFTHCA_SYND_PAS_OFFSET		= 0x1106,
	SOFTHCA_SYND_NO_PD		= 0x1201,
	SOFTHCA_SYND_PD_LIMIT		= 0x1202,
	SOFTHCA_SYND_PD_BUSY		= 0x1203,
	SOFTHCA_SYND_NO_UAR		= 0x1301,
	SOFTHCA_SYND_UAR_LIMIT		= 0x1302,
	SOFTHCA_SYND_UAR_BUSY		= 0x1303,
	SOFTHCA_SYND_NO_EQ		= 0x1401,
	SOFTHCA_SYND_EQ_LIMIT		= 0x1402,
	SOFTHCA_SYND_EQ_BUSY		= 0x1403,
	SOFTHCA_SYND_EQ_SIZE		= 0x1404,
	SOFTHCA_SYND_EQ_TYPE		= 0x1405,
	SOFTHCA_SYND_EQ_VECTOR		= 0x1406,
	SOFTHCA_SYND_NO_CQ		= 0x1501,
	SOFTHCA_SYND_CQ_LIMIT		= 0x1502,
	SOFTHCA_SYND_CQ_BUSY		= 0x1503,
	SOFTHCA_SYND_CQ_SIZE		= 0x1504,
	SOFTHCA_SYND_CQE_SIZE		= 0x1505,
	SOFTHCA_SYND_CQ_EQ		= 0x1506,
	SOFTHCA_SYND_DBREC_ADDR		= 0x1507,
	SOFTHCA_SYND_NO_MKEY		= 0x1601,
	SOFTHCA_SYND_MKEY_LIMIT		= 0x1602,
	SOFTHCA_SYND_MKEY_ACCESS	= 0x1603,
	SOFTHCA_SYND_MKEY_LENGTH	= 0x1604,
	SOFTHCA_SYND_MKEY_FLAGS		= 0x1605,
	SOFTHCA_SYND_NO_QP		= 0x1701,
	SOFTHCA_SYND_QP_LIMIT		= 0x1702,
	SOFTHCA_SYND_QP_TYPE		= 0x1703,
	SOFTHCA_SYND_QP_SIZE		= 0x1704,
	SOFTHCA_SYND_QP_CQ		= 0x1705,
	SOFTHCA_SYND_QP_STATE		= 0x1706,
	SOFTHCA_SYND_QP_ATTR		= 0x1707,
	SOFTHCA_SYND_QP_SRQ		= 0x1708,
	SOFTHCA_SYND_GID_INDEX		= 0x1801,
	SOFTHCA_SYND_NO_SRQ		= 0x1901,
	SOFTHCA_SYND_SRQ_LIMIT		= 0x1902,
	SOFTHCA_SYND_SRQ_SIZE		= 0x1903,
	SOFTHCA_SYND_SRQ_BUSY		= 0x1904,
	SOFTHCA_SYND_SRQ_ARM		= 0x1905,
	SOFTHCA_SYND_CQ_MODERATION	= 0x1a01,
	SOFTHCA_SYND_CQ_RESIZE		= 0x1a02, /* waiting CQEs do not fit */
	/* data path: vendor_err of error CQEs, data0 of QP error EQEs */
	SOFTHCA_SYND_WQE_FORMAT		= 0x2001,
	SOFTHCA_SYND_WQE_OPCODE		= 0x2002,
	SOFTHCA_SYND_LKEY		= 0x2003,
	SOFTHCA_SYND_LKEY_PD		= 0x2004,
	SOFTHCA_SYND_LKEY_BOUNDS	= 0x2005,
	SOFTHCA_SYND_LKEY_ACCESS	= 0x2006,
	SOFTHCA_SYND_RKEY		= 0x2007,
	SOFTHCA_SYND_RKEY_PD		= 0x2008,
	SOFTHCA_SYND_RKEY_BOUNDS	= 0x2009,
	SOFTHCA_SYND_RKEY_ACCESS	= 0x200a,
	SOFTHCA_SYND_QP_ACCESS		= 0x200b,
	SOFTHCA_SYND_RECV_LENGTH	= 0x200c,
	SOFTHCA_SYND_ATOMIC_ALIGN	= 0x200d,
	SOFTHCA_SYND_RNR		= 0x200e,
	SOFTHCA_SYND_NO_RESPONDER	= 0x200f,
	SOFTHCA_SYND_REMOTE_OP		= 0x2010,
	SOFTHCA_SYND_QUEUE_INDEX	= 0x2011,
	SOFTHCA_SYND_LOCAL_LENGTH	= 0x2012,
	SOFTHCA_SYND_FLUSH		= 0x2013,
	SOFTHCA_SYND_NAK_INV_REQ	= 0x2014, /* the responder's NAKs */
	SOFTHCA_SYND_NAK_REM_ACCESS	= 0x2015,
	SOFTHCA_SYND_NAK_REM_OP		= 0x2016,
	SOFTHCA_SYND_MKEY_STATE		= 0x2017, /* fast-reg MKEY not free/valid */
	SOFTHCA_SYND_PAGE_LIST		= 0x2018,
	SOFTHCA_SYND_NOT_PRIV		= 0x2019, /* a kernel-only operation */
	SOFTHCA_SYND_INVALIDATE		= 0x201a,
	SOFTHCA_SYND_UD_LENGTH		= 0x201b,
	SOFTHCA_SYND_AV			= 0x201c,
	SOFTHCA_SYND_RD_ATOMIC		= 0x201d, /* too many READs/atomics */
};

/* hw_caps.c */
void softhca_hw_caps_fill(const struct softhca_hw *hw,
			  struct softhca_caps *caps);
u8 softhca_hw_cmd_query_caps(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);

/* hw_cmd.c */
void softhca_hw_cmd_init(struct softhca_hw *hw);
void softhca_hw_cmd_doorbell(struct softhca_hw *hw, u32 slots);
void softhca_hw_cmd_enable(struct softhca_hw *hw, bool enable);

/* hw_dma.c: the only way the model touches host memory */
int softhca_hw_dma_read(struct softhca_hw *hw, u64 addr, void *dst,
			size_t len);
int softhca_hw_dma_write(struct softhca_hw *hw, u64 addr, const void *src,
			 size_t len);

/* hw_pas.c */
u8 softhca_hw_pas_load(struct softhca_hw *hw, const struct softhca_pas *desc,
		       u64 min_bytes, bool queue, u64 iova,
		       struct softhca_hw_pas *pas, u32 *syndrome);
void softhca_hw_pas_free(struct softhca_hw_pas *pas);
int softhca_hw_pas_addr(const struct softhca_hw_pas *pas, u64 off, u32 len,
			u64 *addr);
int softhca_hw_pas_rw(struct softhca_hw *hw, const struct softhca_hw_pas *pas,
		      u64 off, void *buf, u32 len, bool write);
void *softhca_hw_pas_ptr(struct softhca_hw *hw,
			 const struct softhca_hw_pas *pas, u64 off, u32 len);

/*
 * Copy @bytes (a multiple of 8) between an 8-byte aligned ring entry in
 * host memory and the card's own buffer, a word at a time, each word read
 * or written once: for the small fixed-size entries the engine moves on
 * every message, cheaper than a memcpy() call and its string instruction.
 */
static inline void softhca_hw_load_words(void *dst, const void *src,
					 u32 bytes)
{
	const u64 *s = src;
	u64 *d = dst;
	u32 i;

	for (i = 0; i < bytes / 8; i++)
		d[i] = READ_ONCE(s[i]);
}

static inline void softhca_hw_store_words(void *dst, const void *src,
					  u32 bytes)
{
	const u64 *s = src;
	u64 *d = dst;
	u32 i;

	for (i = 0; i < bytes / 8; i++)
		WRITE_ONCE(d[i], s[i]);
}

bool softhca_hw_dbrec_ok(struct softhca_hw *hw, u64 addr, u32 len);
void *softhca_hw_dma_va(struct softhca_hw *hw, u64 addr);

/* hw_ram.c: which physical addresses are RAM (any context) */
int softhca_hw_ram_init(struct softhca_hw *hw);
void softhca_hw_ram_cleanup(struct softhca_hw *hw);
bool softhca_hw_is_ram(struct softhca_hw *hw, u64 addr, u64 len);
bool softhca_hw_ram_covers(const struct softhca_hw_ram *ram, u64 phys,
			   u64 len);

/* hw_objs.c: PDs and UARs */
void softhca_hw_objs_init(struct softhca_hw *hw);
void softhca_hw_objs_cleanup(struct softhca_hw *hw);
u8 softhca_hw_cmd_alloc_pd(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_dealloc_pd(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_alloc_uar(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_dealloc_uar(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c);

/* hw_eq.c */
u8 softhca_hw_cmd_create_eq(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_eq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_eq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
void softhca_hw_eq_doorbell(struct softhca_hw *hw, u32 eqn, u32 value);
int softhca_hw_eq_post(struct softhca_hw *hw, struct softhca_hw_eq *eq,
		       u8 type, u32 obj, u32 data0, u32 data1);
int softhca_hw_async_event(struct softhca_hw *hw, u8 type, u32 obj,
			   u32 data0, u32 data1);
int softhca_hw_cmd_done_event(struct softhca_hw *hw, u32 slot, u32 token);
void softhca_hw_eqs_cleanup(struct softhca_hw *hw);

/* hw_cq.c */
u8 softhca_hw_cmd_create_cq(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_cq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_cq(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_modify_cq(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_resize_cq(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
void softhca_hw_cqs_cleanup(struct softhca_hw *hw);
int softhca_hw_cq_post(struct softhca_hw *hw, struct softhca_hw_cq *cq,
		       struct softhca_cqe *cqe, bool solicited);
void softhca_hw_cq_doorbell(struct softhca_hw *hw, u32 cqn);

/* hw_mkey.c */
u8 softhca_hw_cmd_create_mkey(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_mkey(struct softhca_hw *hw,
			       struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_mkey(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
void softhca_hw_mkeys_cleanup(struct softhca_hw *hw);
u32 softhca_hw_mkey_reg(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			const struct softhca_wqe_reg_mr *reg);
u32 softhca_hw_mkey_invalidate(struct softhca_hw *hw, struct softhca_hw_pd *pd,
			       u32 key);

/* hw_mem.c: memory keys at work, and the data mover */
u32 softhca_hw_map_get(struct softhca_hw *hw, u32 key, struct softhca_hw_pd *pd,
		       bool priv, u32 access, u64 addr, u64 len, bool remote,
		       struct softhca_hw_seg *seg);
void softhca_hw_map_put(struct softhca_hw_map *map);
void softhca_hw_segs_put(struct softhca_hw_seg *seg, u32 n);
void *softhca_hw_map_ptr(struct softhca_hw *hw, struct softhca_hw_map *map,
			 u64 addr, u32 *contig);
u64 softhca_hw_copy(struct softhca_hw *hw, const struct softhca_hw_seg *dst,
		    u32 ndst, u64 dst_off, const struct softhca_hw_src *src,
		    u64 len);
u64 softhca_hw_src_read(struct softhca_hw *hw, const struct softhca_hw_src *src,
			u64 off, void *buf, u64 len);

/* hw_gid.c */
u8 softhca_hw_cmd_set_gid(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
bool softhca_hw_gid_is_local(struct softhca_hw *hw, const u8 *gid);
bool softhca_hw_gid_matches(struct softhca_hw *hw, u32 index, const u8 *gid);
bool softhca_hw_gid_get(struct softhca_hw *hw, u32 index, u8 *gid);

/* hw_srq.c */
u8 softhca_hw_cmd_create_srq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_srq(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_srq(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_modify_srq(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
void softhca_hw_srqs_cleanup(struct softhca_hw *hw);

/* hw_rq.c: receive WQEs from an RQ or an SRQ */
int softhca_hw_rq_take(struct softhca_hw *hw, struct softhca_hw_qp *qp,
		       u32 *synd);
void softhca_hw_rq_release(struct softhca_hw_qp *qp);

/* hw_qp.c */
u8 softhca_hw_cmd_create_qp(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_qp(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_modify_qp(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
void softhca_hw_qps_cleanup(struct softhca_hw *hw);
struct softhca_hw_qp *softhca_hw_qp_get(struct softhca_hw *hw, u32 qpn);
void softhca_hw_qp_put(struct softhca_hw_qp *qp);
void softhca_hw_qp_to_error(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    u8 event, u32 syndrome);
bool softhca_hw_qp_receives(u8 state);
bool softhca_hw_qp_dbrec(struct softhca_hw_qp *qp, u32 *rq_pi, u32 *sq_pi);
int softhca_hw_post_cqe(struct softhca_hw *hw, struct softhca_hw_cq *cq,
			u32 qpn, u32 index, u8 opcode, u8 status, u32 syndrome,
			u64 length, u8 flags, __be32 imm, u32 src_qp);

/* hw_wqe.c: the send queue */
u32 softhca_hw_wqe_fetch(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			 u32 index, u32 pi, struct softhca_hw_wqe *w);
int softhca_hw_sq_read(struct softhca_hw *hw, struct softhca_hw_qp *qp,
		       u64 off, void *buf, u32 len);
u8 softhca_hw_cqe_opcode(u8 wqe_opcode);
u32 softhca_hw_packets(u32 path_mtu, u64 len);

/* hw_opcode.c */
u32 softhca_hw_opcode_mask(u8 opcode);

/* hw_grh.c: the network header of a UD receive */
#define SOFTHCA_HW_GRH_SIZE	40
bool softhca_hw_gid_is_v4(const u8 *gid);
u32 softhca_hw_udp_len(const struct softhca_hw_pkt *pkt);
void softhca_hw_grh_build(u8 *grh, const struct softhca_hw_pkt *pkt);

/* hw_req.c: the requester */
u32 softhca_hw_rnr_us(u8 timer);
u64 softhca_hw_timeout_us(struct softhca_hw_qp *qp);
u32 softhca_hw_req_segs(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			struct softhca_hw_wqe *w);
u64 softhca_hw_req_run_len(u64 left, u64 budget, u32 mtu);
bool softhca_hw_req_run(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			u64 budget, ktime_t *next);
void softhca_hw_req_reset(struct softhca_hw_qp *qp);

/* hw_resp.c: the responder */

/* What the responder answers: a packet, and a reference for its payload. */
struct softhca_hw_answer {
	struct softhca_hw_pkt pkt;
	struct softhca_hw_seg seg;	/* READ response bytes */
};

bool softhca_hw_pkt_from_peer(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			      const struct softhca_hw_pkt *pkt);
bool softhca_hw_resp_rx(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			const struct softhca_hw_pkt *pkt,
			struct softhca_hw_answer *ans);
void softhca_hw_answer_put(struct softhca_hw_answer *ans);
bool softhca_hw_resp_push(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  u64 budget);
void softhca_hw_resp_reset(struct softhca_hw_qp *qp);

/* hw_comp.c: the completer */
bool softhca_hw_comp_rx(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			const struct softhca_hw_pkt *pkt, bool from_wire);
void softhca_hw_comp_advance(struct softhca_hw *hw, struct softhca_hw_qp *qp);
bool softhca_hw_comp_timers(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    ktime_t *next);
void softhca_hw_comp_take_segs(struct softhca_hw_qp *qp,
			       struct softhca_hw_wqe *w);
void softhca_hw_comp_reset(struct softhca_hw_qp *qp);
u32 softhca_hw_comp_base_psn(struct softhca_hw_qp *qp, u32 next);
void softhca_hw_comp_cwnd_grow(struct softhca_hw_qp *qp, u32 acked);
void softhca_hw_comp_cwnd_loss(struct softhca_hw_qp *qp, bool timeout);

/* hw_wire.c: where packets go */
bool softhca_hw_wire_send(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  struct softhca_hw_pkt *pkt);
void softhca_hw_wire_answer(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    struct softhca_hw_answer *ans);
bool softhca_hw_wire_path(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  struct softhca_hw_pkt *pkt);

/* hw_icrc.c: the RoCEv2 invariant CRC */
u32 softhca_hw_icrc(const u8 *l3, u32 len, bool ipv4);

/* hw_roce.c: the port on the wire (RoCEv2) */
bool softhca_hw_roce_send(struct softhca_hw *hw,
			  const struct softhca_hw_pkt *pkt);
u8 softhca_hw_roce_piece(u8 run_op, bool first, bool last);
u32 softhca_hw_roce_build(struct softhca_hw *hw,
			  const struct softhca_hw_pkt *pkt, u8 opcode, u32 psn,
			  bool ackreq, u64 off, u32 len, u8 *l3, u32 room);
bool softhca_hw_roce_parse(const u8 *l3, u32 len, bool v4,
			   struct softhca_hw_pkt *pkt);

/* hw_counters.c */
u8 softhca_hw_cmd_query_counters(struct softhca_hw *hw,
				 struct softhca_hw_cmd_ctx *c);

/* hw_flush.c */
bool softhca_hw_qp_flush(struct softhca_hw *hw, struct softhca_hw_qp *qp);

/* hw_engine.c */
int softhca_hw_engine_start(struct softhca_hw *hw);
void softhca_hw_engine_stop(struct softhca_hw *hw);
bool softhca_hw_engine_pass(struct softhca_hw *hw, ktime_t *next);
void softhca_hw_engine_kick(struct softhca_hw *hw, u32 qpn);
void softhca_hw_engine_kick_async(struct softhca_hw *hw, u32 qpn);
void softhca_hw_engine_answered(struct softhca_hw *hw, struct softhca_hw_qp *qp);
void softhca_hw_engine_halt(struct softhca_hw *hw);
void softhca_hw_engine_resume(struct softhca_hw *hw);
void softhca_hw_engine_schedule(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				int work);
void softhca_hw_uar_publish(struct softhca_hw *hw, struct softhca_hw_uar *uar);

/* hw_irq.c */
int softhca_hw_irq_init(struct softhca_hw *hw, unsigned int nvec);
void softhca_hw_irq_cleanup(struct softhca_hw *hw);
void softhca_hw_raise_irq(struct softhca_hw *hw, unsigned int vector);

#endif /* SOFTHCA_HW_INTERNAL_H */

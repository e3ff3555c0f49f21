/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the softhca device model (the "silicon"). Nothing here knows
 * ib_core: the model sees registers, commands, contexts, queues and DMA
 * addresses only.
 */
#ifndef SOFTHCA_HW_INTERNAL_H
#define SOFTHCA_HW_INTERNAL_H

#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "../../include/softhca_prm.h"
#include "softhca_hw.h"
#include "hw_limits.h"

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
	u32 mkey_variant;
	struct softhca_hw_eq __rcu *async_eq;	/* events of objects */
	struct softhca_hw_eq __rcu *cmd_eq;	/* command completions */

	/* the port's GID table, as SET_GID loaded it */
	u8 gids[SOFTHCA_HW_GID_TBL_LEN][16];
	unsigned long gid_valid[BITS_TO_LONGS(SOFTHCA_HW_GID_TBL_LEN)];

	/* the data-path engine (hw_engine.c) */
	struct task_struct *engine;
	/*
	 * One engine pass at a time; also taken by commands that change what
	 * the engine walks.
	 */
	struct mutex engine_lock;
	struct list_head engine_qps;	/* QPs with queues to serve */
	atomic_t engine_kicked;		/* a wake-up doorbell was rung */
	struct softhca_hw_wqe *engine_wqe;	/* scratch, under engine_lock */
	u32 engine_state;		/* SOFTHCA_ENGINE_* published in UARs */
	unsigned long engine_quiet_until; /* jiffies: wake-ups leave it asleep */
	/*
	 * Generations of what the engine's per-QP lookup caches depend on,
	 * bumped under engine_lock: MKEYs destroyed, and QP states, QP
	 * attributes, QPs destroyed and GIDs (the responder of a path).
	 */
	u64 mkey_gen;
	u64 path_gen;
};

/* An MKEY the engine found for a key, valid while hw->mkey_gen == gen. */
struct softhca_hw_key_cache {
	u64 gen;
	u32 key;
	struct softhca_hw_mkey *mkey;
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
	u32 users;			/* MKEYs and QPs on it */
};

struct softhca_hw_uar {
	u32 index;
	struct page *page;
	u32 users;			/* CQs and QPs that ring it */
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
	struct softhca_hw_eq *eq;
	struct softhca_hw_uar *uar;
	u64 dbrec;
	struct softhca_cq_dbrec *db;	/* dbrec, checked to be RAM */
	struct softhca_hw_pas pas;
	spinlock_t lock;		/* pi, arm state, error; process context */
	u32 pi;
	u32 arm_sn_fired;
	bool error;
	u32 users;			/* QPs completing to it */
	struct rcu_head rcu;
};

struct softhca_hw_qp {
	u32 qpn;
	u8 type;			/* softhca_qp_type */
	u8 state;			/* softhca_qp_state */
	u32 flags;			/* softhca_qp_flags */
	struct softhca_hw_pd *pd;
	struct softhca_hw_cq *scq;
	struct softhca_hw_cq *rcq;
	struct softhca_hw_uar *uar;
	struct softhca_hw_pas pas;	/* RQ, then SQ */
	u32 log_sq_size;		/* basic blocks */
	u32 log_rq_size;		/* receive WQEs */
	u32 log_rq_stride;
	u64 sq_offset;			/* bytes from the start of the buffer */
	u64 dbrec;
	struct softhca_qp_dbrec *db;	/* dbrec, checked to be RAM */
	struct softhca_qp_attr attr;	/* as MODIFY_QP set it */

	/* engine state, under hw->engine_lock */
	struct list_head engine;	/* hw->engine_qps */
	u32 sq_ci;			/* next send basic block */
	u32 rq_ci;			/* next receive WQE */
	u32 retries;			/* transport retries spent on this WQE */
	u32 rnr_retries;		/* RNR retries spent on this WQE */
	bool waiting;			/* the SQ waits until @deadline */
	ktime_t deadline;
	bool comm_est;			/* first message seen in RTR */
	/* lookups the engine repeats for every message */
	struct softhca_hw_key_cache lkey;	/* this QP's SGEs */
	struct softhca_hw_key_cache rkey;	/* rkeys of requests to it */
	u64 resp_gen;			/* hw->path_gen when resp was found */
	struct softhca_hw_qp *resp;	/* the responder of its path, or NULL */
};

struct softhca_hw_mkey {
	u32 key;
	struct softhca_hw_pd *pd;
	u32 access;
	u64 iova;
	u64 length;
	struct softhca_hw_pas pas;
	struct rcu_head rcu;
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
	SOFTHCA_SYND_NO_QP		= 0x1701,
	SOFTHCA_SYND_QP_LIMIT		= 0x1702,
	SOFTHCA_SYND_QP_TYPE		= 0x1703,
	SOFTHCA_SYND_QP_SIZE		= 0x1704,
	SOFTHCA_SYND_QP_CQ		= 0x1705,
	SOFTHCA_SYND_QP_STATE		= 0x1706,
	SOFTHCA_SYND_QP_ATTR		= 0x1707,
	SOFTHCA_SYND_GID_INDEX		= 0x1801,
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
void softhca_hw_cqs_cleanup(struct softhca_hw *hw);

/* hw_mkey.c */
u8 softhca_hw_cmd_create_mkey(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_mkey(struct softhca_hw *hw,
			       struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_mkey(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
void softhca_hw_mkeys_cleanup(struct softhca_hw *hw);

/* hw_cq.c: completions */
int softhca_hw_cq_post(struct softhca_hw *hw, struct softhca_hw_cq *cq,
		       struct softhca_cqe *cqe, bool solicited);

/* hw_gid.c */
u8 softhca_hw_cmd_set_gid(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
bool softhca_hw_gid_is_local(struct softhca_hw *hw, const u8 *gid);
bool softhca_hw_gid_matches(struct softhca_hw *hw, u32 index, const u8 *gid);

/* hw_qp.c */
u8 softhca_hw_cmd_create_qp(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_destroy_qp(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_query_qp(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
u8 softhca_hw_cmd_modify_qp(struct softhca_hw *hw,
			    struct softhca_hw_cmd_ctx *c);
void softhca_hw_qps_cleanup(struct softhca_hw *hw);
void softhca_hw_qp_to_error(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    u8 event, u32 syndrome);

/* hw_mem.c: MKEY checks and the data mover */
struct softhca_hw_sge {
	struct softhca_hw_mkey *mkey;
	u64 addr;
	u32 len;
};

u32 softhca_hw_mkey_check(struct softhca_hw *hw,
			  struct softhca_hw_key_cache *kc, u32 key,
			  struct softhca_hw_pd *pd, u32 access, u64 addr,
			  u64 len, bool remote, struct softhca_hw_mkey **out);
void *softhca_hw_mkey_ptr(struct softhca_hw *hw, struct softhca_hw_mkey *mkey,
			  u64 addr, u32 *contig);
u64 softhca_hw_copy(struct softhca_hw *hw, struct softhca_hw_sge *dst,
		    u32 ndst, struct softhca_hw_sge *src, u32 nsrc,
		    const void *inline_src, u64 len);

/* hw_engine.c */
int softhca_hw_engine_start(struct softhca_hw *hw);
void softhca_hw_engine_stop(struct softhca_hw *hw);
void softhca_hw_engine_kick(struct softhca_hw *hw, u32 qpn);
void softhca_hw_engine_halt(struct softhca_hw *hw);
void softhca_hw_engine_resume(struct softhca_hw *hw);
void softhca_hw_engine_add_qp(struct softhca_hw *hw, struct softhca_hw_qp *qp);
void softhca_hw_engine_del_qp(struct softhca_hw *hw, struct softhca_hw_qp *qp);
void softhca_hw_uar_publish(struct softhca_hw *hw, struct softhca_hw_uar *uar);

/* hw_transport.c: executing send WQEs on the loopback wire */
struct softhca_hw_wqe;
int softhca_hw_transport_init(struct softhca_hw *hw);
void softhca_hw_transport_cleanup(struct softhca_hw *hw);
bool softhca_hw_sq_process(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			   ktime_t *next);
bool softhca_hw_qp_flush(struct softhca_hw *hw, struct softhca_hw_qp *qp);

/* hw_irq.c */
int softhca_hw_irq_init(struct softhca_hw *hw, unsigned int nvec);
void softhca_hw_irq_cleanup(struct softhca_hw *hw);
void softhca_hw_raise_irq(struct softhca_hw *hw, unsigned int vector);

#endif /* SOFTHCA_HW_INTERNAL_H */

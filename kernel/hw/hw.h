/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the softhca device model (the "silicon"). Nothing here knows
 * ib_core: the model sees registers, commands, contexts, queues and DMA
 * addresses only.
 */
#ifndef SOFTHCA_HW_INTERNAL_H
#define SOFTHCA_HW_INTERNAL_H

#include <linux/irq_work.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "../../include/softhca_prm.h"
#include "softhca_hw.h"

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

	/* objects, indexed by their numbers; changed under cmd_mutex */
	struct xarray pds;
	struct xarray uars;
	struct xarray eqs;
	struct xarray cqs;
	struct xarray mkeys;
	u32 mkey_variant;
	struct softhca_hw_eq *async_eq;
};

/* A buffer in host memory as the card keeps it after reading its PAS. */
struct softhca_hw_pas {
	u64 *blocks;			/* DMA address of each block */
	u32 nblocks;
	u8 log_block_size;
	u32 offset;			/* where the object starts in block 0 */
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
	struct softhca_hw_pas pas;
	spinlock_t lock;		/* pi, arm state, error */
	u32 pi;
	u32 arm_sn_fired;
	bool error;
	u32 users;			/* QPs completing to it */
	struct rcu_head rcu;
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
bool softhca_hw_dbrec_ok(struct softhca_hw *hw, u64 addr, u32 len);

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

/* hw_irq.c */
int softhca_hw_irq_init(struct softhca_hw *hw, unsigned int nvec);
void softhca_hw_irq_cleanup(struct softhca_hw *hw);
void softhca_hw_raise_irq(struct softhca_hw *hw, unsigned int vector);

#endif /* SOFTHCA_HW_INTERNAL_H */

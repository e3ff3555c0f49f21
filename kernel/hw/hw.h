/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the softhca device model (the "silicon"). Nothing here knows
 * ib_core: the model sees registers, commands, contexts, queues and DMA
 * addresses only.
 */
#ifndef SOFTHCA_HW_INTERNAL_H
#define SOFTHCA_HW_INTERNAL_H

#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "../../include/softhca_prm.h"
#include "softhca_hw.h"

struct platform_device;
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

/* hw_irq.c */
int softhca_hw_irq_init(struct softhca_hw *hw, unsigned int nvec);
void softhca_hw_irq_cleanup(struct softhca_hw *hw);
void softhca_hw_raise_irq(struct softhca_hw *hw, unsigned int vector);

#endif /* SOFTHCA_HW_INTERNAL_H */

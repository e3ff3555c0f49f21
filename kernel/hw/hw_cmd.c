// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the command processor. It fetches rung entries from
 * the command queue in host memory, reads the input mailbox, runs the
 * command, writes the output mailbox and hands the entry back to the driver.
 *
 * Fault injection, for testing the driver's handling of a hung card:
 * hw_fault_cmd_stall names an opcode whose commands hang for
 * hw_fault_cmd_stall_ms before they run, holding up every command behind
 * them, as a wedged firmware would; a reset (CTRL.ENABLE cleared) abandons
 * a hung command, which then never runs.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "hw.h"
#include "hw_trace.h"

static unsigned int hw_fault_cmd_stall;
module_param(hw_fault_cmd_stall, uint, 0644);
MODULE_PARM_DESC(hw_fault_cmd_stall,
		 "Fault injection: the opcode of commands the card hangs on (0: none)");

static unsigned int hw_fault_cmd_stall_ms = 60000;
module_param(hw_fault_cmd_stall_ms, uint, 0644);
MODULE_PARM_DESC(hw_fault_cmd_stall_ms,
		 "Fault injection: how long such a command hangs (ms)");

/* Hang on @opcode if told to; false when a reset abandoned the command. */
static bool softhca_hw_cmd_fault_stall(struct softhca_hw *hw, u16 opcode)
{
	unsigned int ms = READ_ONCE(hw_fault_cmd_stall_ms);

	if (!opcode || opcode != READ_ONCE(hw_fault_cmd_stall))
		return true;
	wait_event_timeout(hw->cmd_stall, !READ_ONCE(hw->cmdq_enabled),
			   msecs_to_jiffies(ms));
	if (READ_ONCE(hw->cmdq_enabled))
		return true;
	hw->cmds_aborted++;
	return false;
}

struct softhca_hw_cmd_desc {
	u16 opcode;
	u16 in_size;
	u16 out_size;
	u8 (*exec)(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c);
};

#define SOFTHCA_HW_CMD(op, in, out, fn) \
	{ SOFTHCA_CMD_##op, in, out, softhca_hw_cmd_##fn }
#define SZ_OBJ	sizeof(struct softhca_obj_in)
#define SZ_NUM	sizeof(struct softhca_create_out)

static const struct softhca_hw_cmd_desc softhca_hw_cmds[] = {
	SOFTHCA_HW_CMD(QUERY_CAPS, 0, sizeof(struct softhca_caps), query_caps),
	SOFTHCA_HW_CMD(ALLOC_PD, 0, SZ_NUM, alloc_pd),
	SOFTHCA_HW_CMD(DEALLOC_PD, SZ_OBJ, 0, dealloc_pd),
	SOFTHCA_HW_CMD(ALLOC_UAR, 0, SZ_NUM, alloc_uar),
	SOFTHCA_HW_CMD(DEALLOC_UAR, SZ_OBJ, 0, dealloc_uar),
	SOFTHCA_HW_CMD(CREATE_EQ, sizeof(struct softhca_eq_ctx), SZ_NUM,
		       create_eq),
	SOFTHCA_HW_CMD(DESTROY_EQ, SZ_OBJ, 0, destroy_eq),
	SOFTHCA_HW_CMD(QUERY_EQ, SZ_OBJ, sizeof(struct softhca_eq_query_out),
		       query_eq),
	SOFTHCA_HW_CMD(CREATE_CQ, sizeof(struct softhca_cq_ctx), SZ_NUM,
		       create_cq),
	SOFTHCA_HW_CMD(DESTROY_CQ, SZ_OBJ, 0, destroy_cq),
	SOFTHCA_HW_CMD(QUERY_CQ, SZ_OBJ, sizeof(struct softhca_cq_query_out),
		       query_cq),
	SOFTHCA_HW_CMD(MODIFY_CQ, sizeof(struct softhca_cq_modify_in), 0,
		       modify_cq),
	SOFTHCA_HW_CMD(RESIZE_CQ, sizeof(struct softhca_cq_resize_in),
		       sizeof(struct softhca_cq_resize_out), resize_cq),
	SOFTHCA_HW_CMD(CREATE_MKEY, sizeof(struct softhca_mkey_ctx), SZ_NUM,
		       create_mkey),
	SOFTHCA_HW_CMD(DESTROY_MKEY, SZ_OBJ, 0, destroy_mkey),
	SOFTHCA_HW_CMD(QUERY_MKEY, SZ_OBJ,
		       sizeof(struct softhca_mkey_query_out), query_mkey),
	SOFTHCA_HW_CMD(CREATE_QP, sizeof(struct softhca_qp_ctx), SZ_NUM,
		       create_qp),
	SOFTHCA_HW_CMD(DESTROY_QP, SZ_OBJ, 0, destroy_qp),
	SOFTHCA_HW_CMD(QUERY_QP, SZ_OBJ, sizeof(struct softhca_qp_query_out),
		       query_qp),
	SOFTHCA_HW_CMD(MODIFY_QP, sizeof(struct softhca_qp_attr), 0,
		       modify_qp),
	SOFTHCA_HW_CMD(CREATE_SRQ, sizeof(struct softhca_srq_ctx), SZ_NUM,
		       create_srq),
	SOFTHCA_HW_CMD(DESTROY_SRQ, SZ_OBJ, 0, destroy_srq),
	SOFTHCA_HW_CMD(QUERY_SRQ, SZ_OBJ, sizeof(struct softhca_srq_query_out),
		       query_srq),
	SOFTHCA_HW_CMD(MODIFY_SRQ, sizeof(struct softhca_srq_modify_in), 0,
		       modify_srq),
	SOFTHCA_HW_CMD(SET_GID, sizeof(struct softhca_set_gid_in), 0,
		       set_gid),
	SOFTHCA_HW_CMD(QUERY_COUNTERS, 0, sizeof(struct softhca_counters),
		       query_counters),
};

static const struct softhca_hw_cmd_desc *softhca_hw_cmd_find(u16 opcode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(softhca_hw_cmds); i++)
		if (softhca_hw_cmds[i].opcode == opcode)
			return &softhca_hw_cmds[i];
	return NULL;
}

/* Run one command whose mailboxes have been fetched into @c. */
static u8 softhca_hw_cmd_run(struct softhca_hw *hw, u16 opcode,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_hw_cmd_desc *d = softhca_hw_cmd_find(opcode);
	u32 room = c->out_len;
	u8 status;

	c->out_len = 0;
	if (!d) {
		c->syndrome = SOFTHCA_SYND_OPCODE;
		return SOFTHCA_CMD_STAT_BAD_OPCODE;
	}
	if (c->in_len != d->in_size) {
		c->syndrome = SOFTHCA_SYND_IN_LEN;
		return SOFTHCA_CMD_STAT_BAD_INPUT_LEN;
	}
	if (room < d->out_size) {
		c->syndrome = SOFTHCA_SYND_OUT_LEN;
		return SOFTHCA_CMD_STAT_BAD_OUTPUT_LEN;
	}
	memset(c->out, 0, d->out_size);
	mutex_lock(&hw->cmd_mutex);
	status = d->exec(hw, c);
	mutex_unlock(&hw->cmd_mutex);
	if (status == SOFTHCA_CMD_STAT_OK)
		c->out_len = d->out_size;
	return status;
}

static void softhca_hw_cmd_exec_slot(struct softhca_hw *hw, unsigned int slot,
				     void *in, void *out)
{
	u64 addr = hw->cmdq_dma + slot * sizeof(struct softhca_cmd_entry);
	struct softhca_hw_cmd_ctx c = { .in = in, .out = out };
	struct softhca_cmd_entry e;
	u64 in_addr, out_addr;
	u8 ctrl, status;

	if (softhca_hw_dma_read(hw, addr, &e, sizeof(e)))
		return;
	if (!(e.ctrl & SOFTHCA_CMD_CTRL_OWNER_HW))
		return;	/* rung, but not handed over: nothing to do */

	if (!softhca_hw_cmd_fault_stall(hw, le16_to_cpu(e.opcode)))
		return;	/* reset while hung: the entry stays the driver's */
	c.in_len = le32_to_cpu(e.in_len);
	c.out_len = le32_to_cpu(e.out_len);
	in_addr = le64_to_cpu(e.in_addr);
	out_addr = le64_to_cpu(e.out_addr);

	if (c.in_len > SOFTHCA_CMD_MAILBOX_MAX) {
		status = SOFTHCA_CMD_STAT_BAD_INPUT_LEN;
		c.syndrome = SOFTHCA_SYND_IN_LEN;
		c.out_len = 0;
	} else if (c.out_len > SOFTHCA_CMD_MAILBOX_MAX) {
		status = SOFTHCA_CMD_STAT_BAD_OUTPUT_LEN;
		c.syndrome = SOFTHCA_SYND_OUT_LEN;
		c.out_len = 0;
	} else if (c.in_len && softhca_hw_dma_read(hw, in_addr, in, c.in_len)) {
		status = SOFTHCA_CMD_STAT_DMA_ERROR;
		c.syndrome = SOFTHCA_SYND_MAILBOX_DMA;
		c.out_len = 0;
	} else {
		status = softhca_hw_cmd_run(hw, le16_to_cpu(e.opcode), &c);
		if (c.out_len &&
		    softhca_hw_dma_write(hw, out_addr, out, c.out_len)) {
			status = SOFTHCA_CMD_STAT_DMA_ERROR;
			c.syndrome = SOFTHCA_SYND_MAILBOX_DMA;
			c.out_len = 0;
		}
	}

	trace_softhca_hw_cmd(hw, slot, le16_to_cpu(e.opcode), status,
			     c.syndrome);
	e.status = status;
	e.syndrome = cpu_to_le32(c.syndrome);
	e.out_written = cpu_to_le32(c.out_len);
	if (softhca_hw_dma_write(hw, addr, &e, sizeof(e)))
		return;
	/* The result must be visible before the entry changes hands. */
	wmb();
	ctrl = e.ctrl & ~SOFTHCA_CMD_CTRL_OWNER_HW;
	if (softhca_hw_dma_write(hw, addr + offsetof(struct softhca_cmd_entry,
						     ctrl), &ctrl, 1))
		return;
	if (ctrl & SOFTHCA_CMD_CTRL_EVENT)
		softhca_hw_cmd_done_event(hw, slot, le32_to_cpu(e.token));
}

static void softhca_hw_cmd_work(struct work_struct *work)
{
	struct softhca_hw *hw = container_of(work, struct softhca_hw, cmd_work);
	unsigned long pending;
	unsigned int slot;
	void *in, *out;

	in = kmalloc(SOFTHCA_CMD_MAILBOX_MAX, GFP_KERNEL);
	out = kmalloc(SOFTHCA_CMD_MAILBOX_MAX, GFP_KERNEL);
	if (!in || !out) {
		/* try again later; the doorbell bits stay pending */
		kfree(in);
		kfree(out);
		queue_work(hw->wq, &hw->cmd_work);
		return;
	}

	while ((pending = atomic_long_xchg(&hw->cmd_pending, 0))) {
		for_each_set_bit(slot, &pending, 1u << hw->cmdq_log_size) {
			if (!READ_ONCE(hw->cmdq_enabled))
				break;
			softhca_hw_cmd_exec_slot(hw, slot, in, out);
		}
	}
	kfree(in);
	kfree(out);
}

void softhca_hw_cmd_doorbell(struct softhca_hw *hw, u32 slots)
{
	if (!READ_ONCE(hw->cmdq_enabled))
		return;
	if (hw->cmdq_log_size < 5)
		slots &= BIT(BIT(hw->cmdq_log_size)) - 1;
	if (!slots)
		return;
	atomic_long_or(slots, &hw->cmd_pending);
	queue_work(hw->wq, &hw->cmd_work);
}

/* CTRL.ENABLE written: take the queue address and size, or stop. */
void softhca_hw_cmd_enable(struct softhca_hw *hw, bool enable)
{
	u32 log_max = SOFTHCA_CMDQ_CAPS_LOG_MAX_SIZE(softhca_hw_read32(hw,
						     SOFTHCA_REG_CMDQ_CAPS));
	u32 status = softhca_hw_read32(hw, SOFTHCA_REG_STATUS);
	__le32 *status_reg = hw->regs + SOFTHCA_REG_STATUS;
	struct softhca_cmd_entry probe;
	u64 addr;
	u32 log;

	if (!enable) {
		/* reset: abandon a hung command, stop the engine, then say so */
		WRITE_ONCE(hw->cmdq_enabled, false);
		wake_up_all(&hw->cmd_stall);
		flush_work(&hw->cmd_work);
		atomic_long_set(&hw->cmd_pending, 0);
		softhca_hw_engine_halt(hw);
		status &= ~SOFTHCA_STATUS_READY;
		WRITE_ONCE(*status_reg, cpu_to_le32(status));
		return;
	}

	addr = softhca_hw_read32(hw, SOFTHCA_REG_CMDQ_ADDR_LO) |
	       (u64)softhca_hw_read32(hw, SOFTHCA_REG_CMDQ_ADDR_HI) << 32;
	log = softhca_hw_read32(hw, SOFTHCA_REG_CMDQ_LOG_SIZE);
	/* the queue must be naturally aligned, fit the caps and be memory */
	if (log > log_max || !addr ||
	    addr & ((sizeof(probe) << log) - 1) ||
	    softhca_hw_dma_read(hw, addr, &probe, sizeof(probe))) {
		status |= SOFTHCA_STATUS_FATAL;
		WRITE_ONCE(*status_reg, cpu_to_le32(status));
		return;
	}
	hw->cmdq_dma = addr;
	hw->cmdq_log_size = log;
	softhca_hw_engine_resume(hw);
	WRITE_ONCE(hw->cmdq_enabled, true);
	status = (status & ~SOFTHCA_STATUS_FATAL) | SOFTHCA_STATUS_READY;
	WRITE_ONCE(*status_reg, cpu_to_le32(status));
}

void softhca_hw_cmd_init(struct softhca_hw *hw)
{
	INIT_WORK(&hw->cmd_work, softhca_hw_cmd_work);
	mutex_init(&hw->cmd_mutex);
	init_waitqueue_head(&hw->cmd_stall);
}

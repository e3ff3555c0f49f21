// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the command interface. A command takes a free slot of the
 * command queue, copies its input into the slot's input mailbox, hands the
 * entry to the device and rings SOFTHCA_REG_CMD_DB. Completion is polled
 * from the entry's owner bit until the async EQ exists; from then on it
 * arrives as a SOFTHCA_EQE_CMD_DONE event (softhca_cmd_event()).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>

#include "softhca.h"

#define SOFTHCA_CMDQ_LOG_SIZE	4
#define SOFTHCA_CMD_TIMEOUT_MS	10000

static const int softhca_cmd_errnos[SOFTHCA_CMD_STAT_MAX + 1] = {
	[SOFTHCA_CMD_STAT_OK]			= 0,
	[SOFTHCA_CMD_STAT_BAD_OPCODE]		= -EOPNOTSUPP,
	[SOFTHCA_CMD_STAT_BAD_PARAM]		= -EINVAL,
	[SOFTHCA_CMD_STAT_BAD_STATE]		= -EINVAL,
	[SOFTHCA_CMD_STAT_BAD_RESOURCE]		= -EINVAL,
	[SOFTHCA_CMD_STAT_RESOURCE_BUSY]	= -EBUSY,
	[SOFTHCA_CMD_STAT_EXCEED_LIM]		= -ENOMEM,
	[SOFTHCA_CMD_STAT_BAD_INPUT_LEN]	= -EIO,
	[SOFTHCA_CMD_STAT_BAD_OUTPUT_LEN]	= -EIO,
	[SOFTHCA_CMD_STAT_DMA_ERROR]		= -EFAULT,
	[SOFTHCA_CMD_STAT_INTERNAL_ERR]		= -EIO,
};

int softhca_cmd_status_to_errno(u8 status)
{
	if (status > SOFTHCA_CMD_STAT_MAX)
		return -EIO;
	return softhca_cmd_errnos[status];
}

static struct device *softhca_cmd_dma_dev(struct softhca_dev *dev)
{
	return softhca_hw_device(dev->hw);
}

static int softhca_cmd_get_slot(struct softhca_dev *dev)
{
	struct softhca_cmdq *q = &dev->cmdq;
	int slot;

	down(&q->sem);
	spin_lock(&q->lock);
	slot = __ffs(q->free_slots);
	__clear_bit(slot, &q->free_slots);
	spin_unlock(&q->lock);
	return slot;
}

static void softhca_cmd_put_slot(struct softhca_dev *dev, int slot)
{
	struct softhca_cmdq *q = &dev->cmdq;

	spin_lock(&q->lock);
	__set_bit(slot, &q->free_slots);
	spin_unlock(&q->lock);
	up(&q->sem);
}

static bool softhca_cmd_owned_by_hw(struct softhca_cmd_entry *e)
{
	return READ_ONCE(e->ctrl) & SOFTHCA_CMD_CTRL_OWNER_HW;
}

static int softhca_cmd_wait(struct softhca_dev *dev, int slot)
{
	struct softhca_cmdq *q = &dev->cmdq;
	struct softhca_cmd_entry *e = &q->entries[slot];
	unsigned long timeout = jiffies +
				msecs_to_jiffies(SOFTHCA_CMD_TIMEOUT_MS);

	if (q->events) {
		unsigned long left = msecs_to_jiffies(SOFTHCA_CMD_TIMEOUT_MS);

		if (!wait_for_completion_timeout(&q->slots[slot].done, left))
			return -ETIMEDOUT;
		return softhca_cmd_owned_by_hw(e) ? -EIO : 0;
	}

	while (softhca_cmd_owned_by_hw(e)) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		usleep_range(5, 50);
	}
	return 0;
}

/**
 * softhca_cmd_exec - run one device command and wait for it
 * @dev: the device
 * @opcode: SOFTHCA_CMD_*
 * @in: input, copied to the input mailbox
 * @in_len: its length (at most SOFTHCA_CMD_MAILBOX_MAX)
 * @out: where the output goes (zero-filled past what the device wrote)
 * @out_len: its length (at most SOFTHCA_CMD_MAILBOX_MAX)
 *
 * Return: 0, the errno of the command status, or -ETIMEDOUT.
 */
int softhca_cmd_exec(struct softhca_dev *dev, u16 opcode, const void *in,
		     u32 in_len, void *out, u32 out_len)
{
	struct softhca_cmdq *q = &dev->cmdq;
	struct softhca_cmd_entry *e;
	struct softhca_cmd_slot *s;
	u32 written, syndrome;
	int slot, ret;
	u8 status;

	if (WARN_ON(in_len > SOFTHCA_CMD_MAILBOX_MAX ||
		    out_len > SOFTHCA_CMD_MAILBOX_MAX))
		return -EINVAL;

	slot = softhca_cmd_get_slot(dev);
	s = &q->slots[slot];
	e = &q->entries[slot];

	memcpy(s->in, in, in_len);
	memset(e, 0, sizeof(*e));
	e->opcode = cpu_to_le16(opcode);
	e->in_len = cpu_to_le32(in_len);
	e->in_addr = cpu_to_le64(s->in_dma);
	e->out_addr = cpu_to_le64(s->out_dma);
	e->out_len = cpu_to_le32(out_len);
	s->token = q->next_token++;
	e->token = cpu_to_le32(s->token);
	reinit_completion(&s->done);
	/* The entry is complete before the device may look at it. */
	dma_wmb();
	WRITE_ONCE(e->ctrl, SOFTHCA_CMD_CTRL_OWNER_HW |
			    (q->events ? SOFTHCA_CMD_CTRL_EVENT : 0));
	/* ... and handed over before the doorbell write reaches the card. */
	wmb();
	softhca_hw_write32(dev->hw, SOFTHCA_REG_CMD_DB, BIT(slot));

	ret = softhca_cmd_wait(dev, slot);
	if (ret) {
		/*
		 * The device still owns the slot and its mailboxes: never
		 * reuse them. The device is treated as broken from here on.
		 */
		ibdev_err(&dev->ibdev, "command 0x%x timed out in slot %d\n",
			  opcode, slot);
		return ret;
	}
	dma_rmb();
	status = e->status;
	syndrome = le32_to_cpu(e->syndrome);
	written = min(le32_to_cpu(e->out_written), out_len);
	if (out_len) {
		memcpy(out, s->out, written);
		memset(out + written, 0, out_len - written);
	}
	softhca_cmd_put_slot(dev, slot);

	ret = softhca_cmd_status_to_errno(status);
	if (ret)
		ibdev_dbg(&dev->ibdev,
			  "command 0x%x failed: status 0x%x syndrome 0x%x (%d)\n",
			  opcode, status, syndrome, ret);
	return ret;
}

/* A SOFTHCA_EQE_CMD_DONE arrived for @slot (events mode). */
void softhca_cmd_event(struct softhca_dev *dev, u32 slot, u32 token)
{
	struct softhca_cmdq *q = &dev->cmdq;

	if (slot >= BIT(q->log_size) || q->slots[slot].token != token) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "stale command completion slot %u\n", slot);
		return;
	}
	complete(&q->slots[slot].done);
}

static void softhca_cmd_free_slots(struct softhca_dev *dev, unsigned int n)
{
	struct device *dma = softhca_cmd_dma_dev(dev);
	struct softhca_cmdq *q = &dev->cmdq;
	unsigned int i;

	for (i = 0; i < n; i++) {
		dma_free_coherent(dma, SOFTHCA_CMD_MAILBOX_MAX, q->slots[i].in,
				  q->slots[i].in_dma);
		dma_free_coherent(dma, SOFTHCA_CMD_MAILBOX_MAX, q->slots[i].out,
				  q->slots[i].out_dma);
	}
	kfree(q->slots);
}

int softhca_cmd_init(struct softhca_dev *dev)
{
	struct device *dma = softhca_cmd_dma_dev(dev);
	struct softhca_cmdq *q = &dev->cmdq;
	u32 caps, nslots, i;
	int ret, tries;
	size_t qsize;

	caps = softhca_hw_read32(dev->hw, SOFTHCA_REG_CMDQ_CAPS);
	q->log_size = min_t(u32, SOFTHCA_CMDQ_LOG_SIZE,
			    SOFTHCA_CMDQ_CAPS_LOG_MAX_SIZE(caps));
	nslots = BIT(q->log_size);
	qsize = nslots * sizeof(*q->entries);
	spin_lock_init(&q->lock);
	sema_init(&q->sem, nslots);
	q->free_slots = BIT(nslots) - 1;

	q->slots = kcalloc(nslots, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots)
		return -ENOMEM;
	for (i = 0; i < nslots; i++) {
		struct softhca_cmd_slot *s = &q->slots[i];

		init_completion(&s->done);
		s->in = dma_alloc_coherent(dma, SOFTHCA_CMD_MAILBOX_MAX,
					   &s->in_dma, GFP_KERNEL);
		s->out = dma_alloc_coherent(dma, SOFTHCA_CMD_MAILBOX_MAX,
					    &s->out_dma, GFP_KERNEL);
		if (!s->in || !s->out) {
			if (s->in)
				dma_free_coherent(dma, SOFTHCA_CMD_MAILBOX_MAX,
						  s->in, s->in_dma);
			if (s->out)
				dma_free_coherent(dma, SOFTHCA_CMD_MAILBOX_MAX,
						  s->out, s->out_dma);
			ret = -ENOMEM;
			goto err_slots;
		}
	}

	q->entries = dma_alloc_coherent(dma, qsize, &q->dma, GFP_KERNEL);
	if (!q->entries) {
		ret = -ENOMEM;
		goto err_slots;
	}

	softhca_hw_write32(dev->hw, SOFTHCA_REG_CMDQ_ADDR_LO, lower_32_bits(q->dma));
	softhca_hw_write32(dev->hw, SOFTHCA_REG_CMDQ_ADDR_HI, upper_32_bits(q->dma));
	softhca_hw_write32(dev->hw, SOFTHCA_REG_CMDQ_LOG_SIZE, q->log_size);
	softhca_hw_write32(dev->hw, SOFTHCA_REG_CTRL, SOFTHCA_CTRL_ENABLE);
	for (tries = 0; tries < 100; tries++) {
		u32 st = softhca_hw_read32(dev->hw, SOFTHCA_REG_STATUS);

		if (st & SOFTHCA_STATUS_FATAL) {
			ret = -EIO;
			goto err_queue;
		}
		if (st & SOFTHCA_STATUS_READY)
			return 0;
		usleep_range(1000, 2000);
	}
	ret = -ETIMEDOUT;

err_queue:
	softhca_hw_write32(dev->hw, SOFTHCA_REG_CTRL, 0);
	dma_free_coherent(dma, qsize, q->entries, q->dma);
err_slots:
	softhca_cmd_free_slots(dev, i);
	return ret;
}

void softhca_cmd_cleanup(struct softhca_dev *dev)
{
	struct softhca_cmdq *q = &dev->cmdq;
	size_t qsize = BIT(q->log_size) * sizeof(*q->entries);

	softhca_hw_write32(dev->hw, SOFTHCA_REG_CTRL, 0);
	dma_free_coherent(softhca_cmd_dma_dev(dev), qsize, q->entries, q->dma);
	softhca_cmd_free_slots(dev, BIT(q->log_size));
}

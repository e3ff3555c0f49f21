// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the command interface. A command takes a free slot of the
 * command queue, copies its input into the slot's input mailbox, hands the
 * entry to the device and rings SOFTHCA_REG_CMD_DB. Completion is polled
 * from the entry's owner bit until the command EQ exists; from then on it
 * arrives as a SOFTHCA_EQE_CMD_DONE event (softhca_cmd_event()).
 *
 * Health (as mlx5's and erdma's command interfaces keep it): a command the
 * card does not finish within cmd_timeout_ms means the card is wedged. The
 * first caller to see that resets the card (CTRL.ENABLE cleared) and waits
 * until STATUS.READY says it stopped, so no memory handed to a command or
 * an object is touched any more when the callers free it; the device is
 * then dead: every waiter and every later command fails at once with -EIO,
 * and IB_EVENT_DEVICE_FATAL goes to ib_core's clients. Removal still works:
 * destroy paths free what the dead card can no longer use. Should the card
 * not confirm the reset, the memory it might still use is leaked rather
 * than freed under it (softhca_cmd_dma_safe()).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>

#include "softhca.h"
#include "softhca_trace.h"

#define SOFTHCA_CMDQ_LOG_SIZE		4
#define SOFTHCA_CMD_RESET_TIMEOUT_MS	5000

static unsigned int cmd_timeout_ms = 10000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms,
		 "How long a command may take before the card is declared dead (ms)");

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

static const char *const softhca_cmd_status_names[SOFTHCA_CMD_STAT_MAX + 1] = {
	[SOFTHCA_CMD_STAT_OK]			= "OK",
	[SOFTHCA_CMD_STAT_BAD_OPCODE]		= "BAD_OPCODE",
	[SOFTHCA_CMD_STAT_BAD_PARAM]		= "BAD_PARAM",
	[SOFTHCA_CMD_STAT_BAD_STATE]		= "BAD_STATE",
	[SOFTHCA_CMD_STAT_BAD_RESOURCE]		= "BAD_RESOURCE",
	[SOFTHCA_CMD_STAT_RESOURCE_BUSY]	= "RESOURCE_BUSY",
	[SOFTHCA_CMD_STAT_EXCEED_LIM]		= "EXCEED_LIM",
	[SOFTHCA_CMD_STAT_BAD_INPUT_LEN]	= "BAD_INPUT_LEN",
	[SOFTHCA_CMD_STAT_BAD_OUTPUT_LEN]	= "BAD_OUTPUT_LEN",
	[SOFTHCA_CMD_STAT_DMA_ERROR]		= "DMA_ERROR",
	[SOFTHCA_CMD_STAT_INTERNAL_ERR]		= "INTERNAL_ERR",
};

int softhca_cmd_status_to_errno(u8 status)
{
	if (status > SOFTHCA_CMD_STAT_MAX)
		return -EIO;
	return softhca_cmd_errnos[status];
}

/* The name of a command, for the log. */
const char *softhca_cmd_name(u16 opcode)
{
	switch (opcode) {
	case SOFTHCA_CMD_QUERY_CAPS:	return "QUERY_CAPS";
	case SOFTHCA_CMD_ALLOC_PD:	return "ALLOC_PD";
	case SOFTHCA_CMD_DEALLOC_PD:	return "DEALLOC_PD";
	case SOFTHCA_CMD_ALLOC_UAR:	return "ALLOC_UAR";
	case SOFTHCA_CMD_DEALLOC_UAR:	return "DEALLOC_UAR";
	case SOFTHCA_CMD_CREATE_EQ:	return "CREATE_EQ";
	case SOFTHCA_CMD_DESTROY_EQ:	return "DESTROY_EQ";
	case SOFTHCA_CMD_QUERY_EQ:	return "QUERY_EQ";
	case SOFTHCA_CMD_CREATE_CQ:	return "CREATE_CQ";
	case SOFTHCA_CMD_DESTROY_CQ:	return "DESTROY_CQ";
	case SOFTHCA_CMD_QUERY_CQ:	return "QUERY_CQ";
	case SOFTHCA_CMD_MODIFY_CQ:	return "MODIFY_CQ";
	case SOFTHCA_CMD_RESIZE_CQ:	return "RESIZE_CQ";
	case SOFTHCA_CMD_CREATE_MKEY:	return "CREATE_MKEY";
	case SOFTHCA_CMD_DESTROY_MKEY:	return "DESTROY_MKEY";
	case SOFTHCA_CMD_QUERY_MKEY:	return "QUERY_MKEY";
	case SOFTHCA_CMD_CREATE_QP:	return "CREATE_QP";
	case SOFTHCA_CMD_DESTROY_QP:	return "DESTROY_QP";
	case SOFTHCA_CMD_QUERY_QP:	return "QUERY_QP";
	case SOFTHCA_CMD_MODIFY_QP:	return "MODIFY_QP";
	case SOFTHCA_CMD_CREATE_SRQ:	return "CREATE_SRQ";
	case SOFTHCA_CMD_DESTROY_SRQ:	return "DESTROY_SRQ";
	case SOFTHCA_CMD_QUERY_SRQ:	return "QUERY_SRQ";
	case SOFTHCA_CMD_MODIFY_SRQ:	return "MODIFY_SRQ";
	case SOFTHCA_CMD_SET_GID:	return "SET_GID";
	case SOFTHCA_CMD_QUERY_COUNTERS: return "QUERY_COUNTERS";
	default:			return "UNKNOWN";
	}
}

static const char *softhca_cmd_status_name(u8 status)
{
	if (status > SOFTHCA_CMD_STAT_MAX)
		return "UNKNOWN";
	return softhca_cmd_status_names[status];
}

static struct device *softhca_cmd_dma_dev(struct softhca_dev *dev)
{
	return softhca_hw_device(dev->hw);
}

/* Is the device dead (or being declared so)? */
bool softhca_cmd_dead(struct softhca_dev *dev)
{
	return READ_ONCE(dev->cmdq.health) != SOFTHCA_CMD_HEALTHY;
}

/*
 * May memory the card was given be freed? Always, but for a dead card
 * that never confirmed its reset: it might still use it.
 */
bool softhca_cmd_dma_safe(struct softhca_dev *dev)
{
	return !softhca_cmd_dead(dev) || dev->cmdq.quiesced;
}

/* Take a free slot (into *@slot), or -EIO (into *@slot) for a dead card. */
static bool softhca_cmd_try_slot(struct softhca_cmdq *q, int *slot)
{
	bool done = true;

	spin_lock(&q->lock);
	if (q->health != SOFTHCA_CMD_HEALTHY) {
		*slot = -EIO;
	} else if (q->free_slots) {
		*slot = __ffs(q->free_slots);
		__clear_bit(*slot, &q->free_slots);
	} else {
		done = false;
	}
	spin_unlock(&q->lock);
	return done;
}

static int softhca_cmd_get_slot(struct softhca_dev *dev)
{
	int slot;

	wait_event(dev->cmdq.wait, softhca_cmd_try_slot(&dev->cmdq, &slot));
	return slot;
}

static void softhca_cmd_put_slot(struct softhca_dev *dev, int slot)
{
	struct softhca_cmdq *q = &dev->cmdq;

	spin_lock(&q->lock);
	__set_bit(slot, &q->free_slots);
	spin_unlock(&q->lock);
	wake_up(&q->wait);
}

static bool softhca_cmd_owned_by_hw(struct softhca_cmd_entry *e)
{
	return READ_ONCE(e->ctrl) & SOFTHCA_CMD_CTRL_OWNER_HW;
}

/* The command timeout: the device's own (tests set it), or the module's. */
static unsigned int softhca_cmd_timeout_ms(struct softhca_cmdq *q)
{
	return q->timeout_ms ?: READ_ONCE(cmd_timeout_ms);
}

static int softhca_cmd_wait(struct softhca_dev *dev, int slot)
{
	struct softhca_cmdq *q = &dev->cmdq;
	struct softhca_cmd_entry *e = &q->entries[slot];
	unsigned long left = msecs_to_jiffies(softhca_cmd_timeout_ms(q));
	unsigned long timeout = jiffies + left;

	if (q->events) {
		if (!wait_for_completion_timeout(&q->slots[slot].done, left))
			return -ETIMEDOUT;
		return softhca_cmd_owned_by_hw(e) ? -EIO : 0;
	}

	while (softhca_cmd_owned_by_hw(e)) {
		if (softhca_cmd_dead(dev))
			return -EIO;
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		usleep_range(5, 50);
	}
	return 0;
}

/* Reset the card and wait until it says it stopped. */
static bool softhca_cmd_reset_card(struct softhca_dev *dev)
{
	unsigned long until = jiffies +
			      msecs_to_jiffies(SOFTHCA_CMD_RESET_TIMEOUT_MS);

	softhca_hw_write32(dev->hw, SOFTHCA_REG_CTRL, 0);
	while (softhca_hw_read32(dev->hw, SOFTHCA_REG_STATUS) &
	       SOFTHCA_STATUS_READY) {
		if (time_after(jiffies, until))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

/*
 * A command timed out: the first caller to see it resets the card and
 * declares the device dead; the others wait for that. Return when the
 * device is dead and, as far as the card can say, quiet.
 */
static void softhca_cmd_timed_out(struct softhca_dev *dev, u16 opcode,
				  int slot)
{
	struct softhca_cmdq *q = &dev->cmdq;
	bool first;
	u32 i;

	spin_lock(&q->lock);
	first = q->health == SOFTHCA_CMD_HEALTHY;
	if (first)
		q->health = SOFTHCA_CMD_RESETTING;
	spin_unlock(&q->lock);
	if (!first) {
		wait_event(q->wait, READ_ONCE(q->health) == SOFTHCA_CMD_DEAD);
		return;
	}

	ibdev_err(&dev->ibdev,
		  "command %s (0x%x) in slot %d timed out after %u ms: resetting the card, the device is dead\n",
		  softhca_cmd_name(opcode), opcode, slot,
		  softhca_cmd_timeout_ms(q));
	q->quiesced = softhca_cmd_reset_card(dev);
	if (!q->quiesced)
		ibdev_err(&dev->ibdev,
			  "the card did not confirm its reset: memory given to it is leaked, not freed\n");

	spin_lock(&q->lock);
	q->health = SOFTHCA_CMD_DEAD;
	spin_unlock(&q->lock);
	/* every waiter fails now, and every later command at once */
	for (i = 0; i < BIT(q->log_size); i++)
		complete(&q->slots[i].done);
	wake_up_all(&q->wait);
	if (q->fatal_event)
		queue_work(softhca_wq, &q->fatal_work);
}

/* Tell ib_core's clients (uverbs: every process) the device is gone. */
static void softhca_cmd_fatal_work(struct work_struct *work)
{
	struct softhca_dev *dev = container_of(work, struct softhca_dev,
					       cmdq.fatal_work);
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = SOFTHCA_PORT,
	};

	ib_dispatch_event(&ev);
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
 * When this returns, the card is done with everything the command named:
 * it finished it, or it was reset (see the file comment).
 *
 * Return: 0, the errno of the command status, -ETIMEDOUT when this command
 * timed out, or -EIO when the device is dead.
 */
int softhca_cmd_exec(struct softhca_dev *dev, u16 opcode, const void *in,
		     u32 in_len, void *out, u32 out_len)
{
	struct softhca_cmdq *q = &dev->cmdq;
	struct softhca_cmd_entry *e;
	struct softhca_cmd_slot *s;
	u32 written, syndrome;
	int slot, ret;
	u64 t0;
	u8 status;

	if (WARN_ON(in_len > SOFTHCA_CMD_MAILBOX_MAX ||
		    out_len > SOFTHCA_CMD_MAILBOX_MAX))
		return -EINVAL;

	slot = softhca_cmd_get_slot(dev);
	if (slot < 0) {
		ibdev_dbg(&dev->ibdev, "command %s not issued: the device is dead\n",
			  softhca_cmd_name(opcode));
		return slot;
	}
	s = &q->slots[slot];
	e = &q->entries[slot];

	memcpy(s->in, in, in_len);
	memset(e, 0, sizeof(*e));
	e->opcode = cpu_to_le16(opcode);
	e->in_len = cpu_to_le32(in_len);
	e->in_addr = cpu_to_le64(s->in_dma);
	e->out_addr = cpu_to_le64(s->out_dma);
	e->out_len = cpu_to_le32(out_len);

	/* a card declared dead meanwhile gets no new command */
	spin_lock(&q->lock);
	if (q->health != SOFTHCA_CMD_HEALTHY) {
		spin_unlock(&q->lock);
		ibdev_dbg(&dev->ibdev, "command %s not issued: the device is dead\n",
			  softhca_cmd_name(opcode));
		return -EIO;
	}
	s->token = q->next_token++;
	e->token = cpu_to_le32(s->token);
	reinit_completion(&s->done);
	/* The entry is complete before the device may look at it. */
	dma_wmb();
	WRITE_ONCE(e->ctrl, SOFTHCA_CMD_CTRL_OWNER_HW |
			    (q->events ? SOFTHCA_CMD_CTRL_EVENT : 0));
	/* ... and handed over before the doorbell write reaches the card. */
	wmb();
	t0 = ktime_get_ns();
	trace_softhca_cmd_issue(dev, slot, opcode, s->token, in_len);
	softhca_hw_write32(dev->hw, SOFTHCA_REG_CMD_DB, BIT(slot));
	spin_unlock(&q->lock);

	ret = softhca_cmd_wait(dev, slot);
	if (ret == -ETIMEDOUT)
		softhca_cmd_timed_out(dev, opcode, slot);
	if (ret) {
		trace_softhca_cmd_done(dev, slot, opcode, 0, 0, ret,
				       ktime_get_ns() - t0);
		/* dead: the slot is never reused, the card was reset */
		if (ret != -ETIMEDOUT) {
			wait_event(q->wait,
				   READ_ONCE(q->health) == SOFTHCA_CMD_DEAD);
			ibdev_dbg(&dev->ibdev,
				  "command %s failed: the device is dead\n",
				  softhca_cmd_name(opcode));
		}
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
	trace_softhca_cmd_done(dev, slot, opcode, status, syndrome, ret,
			       ktime_get_ns() - t0);
	if (ret)
		ibdev_dbg(&dev->ibdev,
			  "command %s (0x%x) failed: status %s (0x%x) syndrome 0x%x (%d)\n",
			  softhca_cmd_name(opcode), opcode,
			  softhca_cmd_status_name(status), status, syndrome,
			  ret);
	return ret;
}

/**
 * softhca_cmd_destroy - run a DESTROY/DEALLOC command for object @num
 * @dev: the device
 * @opcode: the command
 * @num: the object's number
 *
 * Return: 0 when the card no longer holds the object: it destroyed it, or
 * it is dead (reset: it holds nothing); otherwise the command's error
 * (-EBUSY while the object is in use), and the object stays.
 */
int softhca_cmd_destroy(struct softhca_dev *dev, u16 opcode, u32 num)
{
	struct softhca_obj_in in = { .num = cpu_to_le32(num) };
	int ret;

	ret = softhca_cmd_exec(dev, opcode, &in, sizeof(in), NULL, 0);
	if (ret && softhca_cmd_dead(dev))
		return 0;
	if (ret)
		ibdev_dbg(&dev->ibdev, "%s of 0x%x failed (%d)\n",
			  softhca_cmd_name(opcode), num, ret);
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
	init_waitqueue_head(&q->wait);
	INIT_WORK(&q->fatal_work, softhca_cmd_fatal_work);
	q->health = SOFTHCA_CMD_HEALTHY;
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
	bool safe;

	cancel_work_sync(&q->fatal_work);
	safe = softhca_cmd_reset_card(dev) && softhca_cmd_dma_safe(dev);
	if (!safe) {
		ibdev_err(&dev->ibdev,
			  "the card did not stop: its command queue is leaked\n");
		return;
	}
	dma_free_coherent(softhca_cmd_dma_dev(dev), qsize, q->entries, q->dma);
	softhca_cmd_free_slots(dev, BIT(q->log_size));
}

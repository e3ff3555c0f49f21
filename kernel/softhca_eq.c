// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: event queues and their interrupts. One command EQ (the
 * completions of commands, nothing else), one async EQ (CQ/QP errors and
 * other object events) and one completion EQ per completion vector, each
 * on its own interrupt line (SOFTHCA_VEC_*) and CPU. The hardirq
 * handler only schedules the EQ's tasklet; the tasklet consumes EQEs by
 * owner bit, dispatches them, writes the consumer index back and re-arms.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "softhca.h"
#include "softhca_trace.h"

/*
 * The async EQ carries events of every QP, CQ and SRQ: 4096 entries; a
 * flood beyond that loses events (the card counts overruns), never a
 * command completion, which has the command EQ to itself.
 */
#define SOFTHCA_ASYNC_EQ_LOG	12
#define SOFTHCA_CEQ_LOG		10
#define SOFTHCA_EQ_BUDGET	64

/* The next new EQE at consumer index @ci, or NULL. */
struct softhca_eqe *softhca_eq_next(struct softhca_eqe *buf, u32 log_size,
				    u32 ci)
{
	struct softhca_eqe *eqe = &buf[ci & (BIT(log_size) - 1)];

	if (!softhca_ring_entry_valid(READ_ONCE(eqe->owner), ci, log_size))
		return NULL;
	/* read the body only after seeing the owner bit */
	dma_rmb();
	return eqe;
}

static void softhca_eq_dispatch(struct softhca_dev *dev,
				const struct softhca_eqe *eqe)
{
	u32 obj = le32_to_cpu(eqe->obj);
	u32 data0 = le32_to_cpu(eqe->data0);

	switch (eqe->type) {
	case SOFTHCA_EQE_COMP:
	case SOFTHCA_EQE_CQ_ERROR:
		softhca_cq_event(dev, obj, eqe->type, data0);
		break;
	case SOFTHCA_EQE_CMD_DONE:
		softhca_cmd_event(dev, obj, data0);
		break;
	case SOFTHCA_EQE_QP_FATAL:
	case SOFTHCA_EQE_QP_LAST_WQE:
	case SOFTHCA_EQE_QP_COMM_EST:
	case SOFTHCA_EQE_QP_REQ_ERR:
	case SOFTHCA_EQE_QP_ACCESS_ERR:
	case SOFTHCA_EQE_SQ_DRAINED:
		softhca_qp_event(dev, obj, eqe->type, data0);
		break;
	case SOFTHCA_EQE_SRQ_LIMIT:
		softhca_srq_event(dev, obj, eqe->type, data0);
		break;
	default:
		ibdev_warn_ratelimited(&dev->ibdev,
				       "unexpected EQE type 0x%x obj 0x%x\n",
				       eqe->type, obj);
		break;
	}
}

/**
 * softhca_eq_poll - consume up to @budget new EQEs
 * @eq: the EQ
 * @budget: the most to consume
 *
 * Return: how many were consumed; eq->ci has advanced by that.
 */
int softhca_eq_poll(struct softhca_eq *eq, int budget)
{
	struct softhca_eqe *eqe;
	int n = 0;

	while (n < budget &&
	       (eqe = softhca_eq_next(eq->buf, eq->log_size, eq->ci))) {
		trace_softhca_eqe(eq->dev, eq->eqn, eq->ci, eqe);
		softhca_eq_dispatch(eq->dev, eqe);
		eq->ci++;
		n++;
	}
	return n;
}

static void softhca_eq_doorbell(struct softhca_eq *eq, bool arm)
{
	trace_softhca_eq_doorbell(eq->dev, eq->eqn, eq->ci, arm);
	softhca_hw_write32(eq->dev->hw, SOFTHCA_REG_EQ_DB(eq->eqn),
			   softhca_eq_db(eq->ci, arm));
}

static void softhca_eq_tasklet(struct tasklet_struct *t)
{
	struct softhca_eq *eq = from_tasklet(eq, t, tasklet);
	int n;

	spin_lock(&eq->lock);
	n = softhca_eq_poll(eq, SOFTHCA_EQ_BUDGET);
	trace_softhca_eq_tasklet(eq->dev, eq->eqn, n, eq->ci,
				 n < SOFTHCA_EQ_BUDGET);
	/* with the budget spent more may wait: hand back, come again */
	softhca_eq_doorbell(eq, n < SOFTHCA_EQ_BUDGET);
	spin_unlock(&eq->lock);
	if (n == SOFTHCA_EQ_BUDGET)
		tasklet_schedule(&eq->tasklet);
}

/**
 * softhca_eq_forget_cq - no EQE waiting in @eq may reach CQ @cqn any more
 * @eq: a completion EQ or the async EQ
 * @cqn: a CQ the card has destroyed (it raises nothing for it any more)
 *
 * Events the card raised before DESTROY_CQ may still wait in the EQ; the
 * CQ is gone from dev->cqs, so they would reach nothing, until a new CQ
 * got the same number. Their object becomes SOFTHCA_CQN_NONE, as irdma's
 * irdma_sc_cleanup_ceqes() does. Under the EQ's lock the tasklet neither
 * consumes nor hands back entries, so the card writes none of those we
 * look at, and no tasklet is between reading one and dispatching it.
 */
void softhca_eq_forget_cq(struct softhca_eq *eq, u32 cqn)
{
	struct softhca_eqe *eqe;
	u32 i, n = 0;

	if (!eq->created)
		return;
	spin_lock_bh(&eq->lock);
	for (i = 0; i < BIT(eq->log_size); i++) {
		eqe = softhca_eq_next(eq->buf, eq->log_size, eq->ci + i);
		if (!eqe)
			break;
		if ((eqe->type == SOFTHCA_EQE_COMP ||
		     eqe->type == SOFTHCA_EQE_CQ_ERROR) &&
		    le32_to_cpu(eqe->obj) == cqn) {
			WRITE_ONCE(eqe->obj, cpu_to_le32(SOFTHCA_CQN_NONE));
			n++;
		}
	}
	spin_unlock_bh(&eq->lock);
	if (n)
		ibdev_dbg(&eq->dev->ibdev, "%u events of destroyed CQ %u dropped from EQ %u\n",
			  n, cqn, eq->eqn);
}

static irqreturn_t softhca_eq_irq(int irq, void *data)
{
	struct softhca_eq *eq = data;

	trace_softhca_eq_irq(eq->dev, eq->eqn, irq);
	tasklet_schedule(&eq->tasklet);
	return IRQ_HANDLED;
}

static int softhca_eq_create(struct softhca_dev *dev, struct softhca_eq *eq,
			     u8 type, u32 vector, u32 log_size, int cpu)
{
	struct device *dma_dev = softhca_hw_device(dev->hw);
	size_t size = sizeof(struct softhca_eqe) << log_size;
	struct softhca_create_out out;
	struct softhca_pas_buf pb;
	struct softhca_eq_ctx ctx;
	u32 i;
	int ret;

	eq->dev = dev;
	eq->log_size = log_size;
	eq->vector = vector;
	spin_lock_init(&eq->lock);
	eq->ci = 0;
	eq->buf = dma_alloc_coherent(dma_dev, size, &eq->dma, GFP_KERNEL);
	if (!eq->buf)
		return -ENOMEM;
	/* every entry starts owned by the card (owner bit of no pass yet) */
	for (i = 0; i < BIT(log_size); i++)
		eq->buf[i].owner = SOFTHCA_EQE_OWNER;

	ret = softhca_pas_from_coherent(dev, eq->dma, size, &pb);
	if (ret)
		goto err_buf;
	memset(&ctx, 0, sizeof(ctx));
	ctx.log_size = log_size;
	ctx.type = type;
	ctx.vector = cpu_to_le16(vector);
	softhca_pas_to_prm(&pb, &ctx.pas);
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_EQ, &ctx, sizeof(ctx),
			       &out, sizeof(out));
	softhca_pas_free(dev, &pb);
	if (ret)
		goto err_buf;
	eq->eqn = le32_to_cpu(out.num);

	tasklet_setup(&eq->tasklet, softhca_eq_tasklet);
	eq->irq = softhca_hw_irq_vector(dev->hw, vector);
	ret = request_irq(eq->irq, softhca_eq_irq, 0, eq->name, eq);
	if (ret)
		goto err_destroy;
	if (cpu >= 0)
		irq_set_affinity_and_hint(eq->irq, cpumask_of(cpu));
	eq->created = true;
	softhca_eq_doorbell(eq, true);
	return 0;

err_destroy:
	softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_EQ, eq->eqn);
err_buf:
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(dma_dev, size, eq->buf, eq->dma);
	return ret;
}

/* Teardown order: quiesce the IRQ, kill the tasklet, then destroy. */
static void softhca_eq_destroy(struct softhca_dev *dev, struct softhca_eq *eq)
{
	bool gone;

	if (!eq->created)
		return;
	disable_irq(eq->irq);		/* also synchronize_irq() */
	tasklet_kill(&eq->tasklet);
	gone = !softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_EQ, eq->eqn);
	if (!gone)
		ibdev_warn(&dev->ibdev, "DESTROY_EQ %u failed: its buffer stays the card's\n",
			   eq->eqn);
	irq_update_affinity_hint(eq->irq, NULL);
	free_irq(eq->irq, eq);
	if (gone && softhca_cmd_dma_safe(dev))
		dma_free_coherent(softhca_hw_device(dev->hw),
				  sizeof(struct softhca_eqe) << eq->log_size,
				  eq->buf, eq->dma);
	eq->created = false;
}

/**
 * softhca_eqs_init - create the async EQ and the completion EQs
 * @dev: the device
 * @name: the ib_device name, for the IRQ names
 *
 * Commands complete by polling until the command EQ is up, by EQE after;
 * it holds twice as many entries as there are command slots, so it never
 * fills. There is one completion EQ per online CPU, up to the card's
 * maximum.
 */
int softhca_eqs_init(struct softhca_dev *dev, const char *name)
{
	u32 n, i;
	int ret;

	snprintf(dev->cmd_eq.name, sizeof(dev->cmd_eq.name), "%s-cmd", name);
	ret = softhca_eq_create(dev, &dev->cmd_eq, SOFTHCA_EQ_CMD,
				SOFTHCA_VEC_CMD, dev->cmdq.log_size + 1, -1);
	if (ret)
		return ret;
	dev->cmdq.events = true;

	snprintf(dev->async_eq.name, sizeof(dev->async_eq.name), "%s-async",
		 name);
	ret = softhca_eq_create(dev, &dev->async_eq, SOFTHCA_EQ_ASYNC,
				SOFTHCA_VEC_ASYNC, SOFTHCA_ASYNC_EQ_LOG, -1);
	if (ret)
		goto err;

	n = min3(num_online_cpus(), dev->caps.max_comp_vectors,
		 softhca_hw_num_vectors(dev->hw) - SOFTHCA_VEC_COMP_BASE);
	dev->ceqs = kcalloc(n, sizeof(*dev->ceqs), GFP_KERNEL);
	if (!dev->ceqs) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < n; i++) {
		struct softhca_eq *eq = &dev->ceqs[i];

		snprintf(eq->name, sizeof(eq->name), "%s-ceq%u", name, i);
		ret = softhca_eq_create(dev, eq, SOFTHCA_EQ_COMP,
					SOFTHCA_VEC_COMP_BASE + i,
					SOFTHCA_CEQ_LOG,
					cpumask_local_spread(i, NUMA_NO_NODE));
		if (ret)
			goto err;
		dev->num_ceqs = i + 1;
	}
	return 0;

err:
	softhca_eqs_cleanup(dev);
	return ret;
}

void softhca_eqs_cleanup(struct softhca_dev *dev)
{
	u32 i;

	for (i = 0; i < dev->num_ceqs; i++)
		softhca_eq_destroy(dev, &dev->ceqs[i]);
	kfree(dev->ceqs);
	dev->ceqs = NULL;
	dev->num_ceqs = 0;
	softhca_eq_destroy(dev, &dev->async_eq);
	/* the command EQ's own destruction completes by polling */
	dev->cmdq.events = false;
	softhca_eq_destroy(dev, &dev->cmd_eq);
}

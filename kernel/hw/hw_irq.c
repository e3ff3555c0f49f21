// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: interrupt lines. The card has its own irq_domain
 * with one line per vector; the driver request_irq()s them as it would MSI-X
 * vectors. Setting a line's affinity picks the CPU the "message" targets,
 * and raising a line runs the Linux IRQ in hardirq context on that CPU:
 * through an IPI (smp_call_function_single_async) when it is another CPU,
 * through a hard irq_work (a self-IPI) when it is the raising CPU.
 */
#include <linux/cpumask.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include "hw.h"
#include "hw_trace.h"

static void softhca_hw_irq_noop(struct irq_data *d)
{
}

static int softhca_hw_irq_set_affinity(struct irq_data *d,
				       const struct cpumask *mask, bool force)
{
	struct softhca_hw *hw = irq_data_get_irq_chip_data(d);
	struct softhca_hw_vec *v = &hw->vecs[irqd_to_hwirq(d)];
	unsigned int cpu = cpumask_first_and(mask, cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	WRITE_ONCE(v->target_cpu, cpu);
	irq_data_update_effective_affinity(d, cpumask_of(cpu));
	return IRQ_SET_MASK_OK_DONE;
}

static struct irq_chip softhca_hw_irq_chip = {
	.name			= "softhca-msi",
	.irq_mask		= softhca_hw_irq_noop,
	.irq_unmask		= softhca_hw_irq_noop,
	.irq_set_affinity	= softhca_hw_irq_set_affinity,
};

static int softhca_hw_irq_map(struct irq_domain *d, unsigned int virq,
			      irq_hw_number_t hwirq)
{
	irq_set_chip_and_handler(virq, &softhca_hw_irq_chip, handle_simple_irq);
	irq_set_chip_data(virq, d->host_data);
	/*
	 * The line's target is a variable the raising CPU reads, so a new
	 * affinity takes effect at once. Without this flag x86 (which has
	 * GENERIC_PENDING_IRQ) only records the mask as pending, to apply it
	 * when a chip's ack next calls irq_move_irq(), which this chip never
	 * does: every line would stay on the raising CPU.
	 */
	irq_set_status_flags(virq, IRQ_MOVE_PCNTXT);
	return 0;
}

static const struct irq_domain_ops softhca_hw_irq_domain_ops = {
	.map = softhca_hw_irq_map,
};

static void softhca_hw_vec_deliver(struct softhca_hw_vec *v)
{
	generic_handle_domain_irq(v->hw->irq_domain, v->hwirq);
}

static void softhca_hw_vec_ipi(void *data)
{
	softhca_hw_vec_deliver(data);
}

static void softhca_hw_vec_local(struct irq_work *work)
{
	softhca_hw_vec_deliver(container_of(work, struct softhca_hw_vec, local));
}

void softhca_hw_raise_irq(struct softhca_hw *hw, unsigned int vector)
{
	struct softhca_hw_vec *v;
	int cpu, this_cpu;

	if (WARN_ON_ONCE(vector >= hw->nvec))
		return;
	v = &hw->vecs[vector];
	cpu = READ_ONCE(v->target_cpu);
	this_cpu = get_cpu();
	if (cpu < 0 || !cpu_online(cpu))
		cpu = this_cpu;
	trace_softhca_hw_irq(hw, vector, cpu, cpu != this_cpu);
	/* A line already in flight absorbs the new edge (-EBUSY/false). */
	if (cpu == this_cpu)
		irq_work_queue(&v->local);
	else
		smp_call_function_single_async(cpu, &v->csd);
	put_cpu();
}

unsigned int softhca_hw_num_vectors(struct softhca_hw *hw)
{
	return hw->nvec;
}

int softhca_hw_irq_vector(struct softhca_hw *hw, unsigned int vector)
{
	if (vector >= hw->nvec)
		return -EINVAL;
	return hw->vecs[vector].virq;
}

int softhca_hw_irq_init(struct softhca_hw *hw, unsigned int nvec)
{
	unsigned int i;
	int ret;

	hw->vecs = kcalloc(nvec, sizeof(*hw->vecs), GFP_KERNEL);
	if (!hw->vecs)
		return -ENOMEM;

	hw->fwnode = irq_domain_alloc_named_fwnode(dev_name(&hw->pdev->dev));
	if (!hw->fwnode) {
		ret = -ENOMEM;
		goto err_vecs;
	}
	hw->irq_domain = irq_domain_create_linear(hw->fwnode, nvec,
						  &softhca_hw_irq_domain_ops, hw);
	if (!hw->irq_domain) {
		ret = -ENOMEM;
		goto err_fwnode;
	}

	for (i = 0; i < nvec; i++) {
		struct softhca_hw_vec *v = &hw->vecs[i];

		v->hw = hw;
		v->hwirq = i;
		v->target_cpu = -1;
		INIT_CSD(&v->csd, softhca_hw_vec_ipi, v);
		v->local = IRQ_WORK_INIT_HARD(softhca_hw_vec_local);
		v->virq = irq_create_mapping(hw->irq_domain, i);
		if (!v->virq) {
			ret = -ENOSPC;
			goto err_mappings;
		}
		hw->nvec = i + 1;
	}
	return 0;

err_mappings:
	softhca_hw_irq_cleanup(hw);
	return ret;
err_fwnode:
	irq_domain_free_fwnode(hw->fwnode);
err_vecs:
	kfree(hw->vecs);
	return ret;
}

void softhca_hw_irq_cleanup(struct softhca_hw *hw)
{
	unsigned int i;

	/* Let every delivery still in flight finish before the lines go. */
	for (i = 0; i < hw->nvec; i++)
		irq_work_sync(&hw->vecs[i].local);
	kick_all_cpus_sync();

	for (i = 0; i < hw->nvec; i++)
		irq_dispose_mapping(hw->vecs[i].virq);
	irq_domain_remove(hw->irq_domain);
	irq_domain_free_fwnode(hw->fwnode);
	kfree(hw->vecs);
	hw->nvec = 0;
}

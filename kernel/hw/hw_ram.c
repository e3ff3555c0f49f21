// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: which host physical addresses are RAM.
 *
 * The card reads and writes host memory by physical address through the
 * kernel's physical-address MKEYs (the local DMA lkey, get_dma_mr) and
 * checks every such access, and every PAS and doorbell record, against
 * the System RAM ranges of the host's resource tree: never a hole, never
 * firmware or device memory. Reading the tree takes resource_lock, which
 * is not softirq safe (process context takes it for writing with softirqs
 * on), and the wire's receive path checks addresses in softirq context,
 * where taking it could deadlock against a writer on the same CPU
 * (lockdep: "inconsistent {SOFTIRQ-ON-W} -> {IN-SOFTIRQ-R} usage"). So
 * the card keeps its own copy of the ranges, sorted and with adjacent
 * ones merged, read under RCU without a lock: made when it is plugged,
 * made again when memory goes online or offline (the memory notifier).
 */
#include <linux/dma-direct.h>
#include <linux/ioport.h>
#include <linux/memory.h>
#include <linux/platform_device.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "hw.h"

struct softhca_hw_ram_walk {
	struct softhca_hw_ram *ram;	/* NULL: count only */
	unsigned int n;
	unsigned int max;
};

static int softhca_hw_ram_walk_one(struct resource *res, void *arg)
{
	struct softhca_hw_ram_walk *w = arg;
	struct softhca_hw_ram_range *last;
	u64 start = res->start, end = res->end + 1;

	if (!w->ram) {
		w->n++;
		return 0;
	}
	last = w->n ? &w->ram->r[w->n - 1] : NULL;
	if (last && start <= last->end) {	/* adjacent (or overlapping) */
		last->end = max(last->end, end);
		return 0;
	}
	if (w->n == w->max)
		return -EAGAIN;		/* the tree grew since it was counted */
	w->ram->r[w->n].start = start;
	w->ram->r[w->n].end = end;
	w->n++;
	return 0;
}

/* walk_system_ram_res(), which is not exported: the same resources */
static int softhca_hw_ram_walk(struct softhca_hw_ram_walk *w)
{
	return walk_iomem_res_desc(IORES_DESC_NONE,
				   IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY,
				   0, U64_MAX, w, softhca_hw_ram_walk_one);
}

/* A copy of the System RAM ranges (process context), or NULL. */
static struct softhca_hw_ram *softhca_hw_ram_read(void)
{
	struct softhca_hw_ram_walk w;
	int tries;

	/* the walk visits ranges in address order, which the merge needs */
	for (tries = 0; tries < 3; tries++) {
		w = (struct softhca_hw_ram_walk){};
		softhca_hw_ram_walk(&w);
		w.max = w.n + 4;
		w.n = 0;
		w.ram = kzalloc(struct_size(w.ram, r, w.max), GFP_KERNEL);
		if (!w.ram)
			return NULL;
		if (softhca_hw_ram_walk(&w) != -EAGAIN) {
			w.ram->n = w.n;
			return w.ram;
		}
		kfree(w.ram);
	}
	return NULL;
}

/* Take a new copy; an old one is freed after its readers. */
static int softhca_hw_ram_update(struct softhca_hw *hw)
{
	struct softhca_hw_ram *ram = softhca_hw_ram_read(), *old;

	if (!ram)
		return -ENOMEM;
	mutex_lock(&hw->ram_lock);
	old = rcu_replace_pointer(hw->ram, ram, lockdep_is_held(&hw->ram_lock));
	mutex_unlock(&hw->ram_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static int softhca_hw_ram_notify(struct notifier_block *nb,
				 unsigned long action, void *arg)
{
	struct softhca_hw *hw = container_of(nb, struct softhca_hw, ram_nb);

	if (action != MEM_ONLINE && action != MEM_OFFLINE)
		return NOTIFY_OK;
	/* on failure the old copy stays: memory it lacks is refused */
	if (softhca_hw_ram_update(hw))
		dev_warn(&hw->pdev->dev,
			 "cannot copy the RAM ranges after a memory %s\n",
			 action == MEM_ONLINE ? "online" : "offline");
	return NOTIFY_OK;
}

int softhca_hw_ram_init(struct softhca_hw *hw)
{
	int ret;

	mutex_init(&hw->ram_lock);
	ret = softhca_hw_ram_update(hw);
	if (ret)
		return ret;
	hw->ram_nb.notifier_call = softhca_hw_ram_notify;
	ret = register_memory_notifier(&hw->ram_nb);
	if (ret)
		goto err_free;
	return 0;

err_free:
	kfree(rcu_dereference_protected(hw->ram, true));
	RCU_INIT_POINTER(hw->ram, NULL);
	return ret;
}

void softhca_hw_ram_cleanup(struct softhca_hw *hw)
{
	unregister_memory_notifier(&hw->ram_nb);
	/* no reader is left: the engine and the commands have stopped */
	kfree(rcu_dereference_protected(hw->ram, true));
	RCU_INIT_POINTER(hw->ram, NULL);
}

/*
 * Is the physical range [phys, phys + len) within one run of RAM of @ram
 * (the first range ending past phys: binary search)?
 */
bool softhca_hw_ram_covers(const struct softhca_hw_ram *ram, u64 phys,
			   u64 len)
{
	unsigned int lo = 0, hi = ram->n;

	if (!len || phys + len < phys)
		return false;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (ram->r[mid].end <= phys)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ram->n && ram->r[lo].start <= phys &&
	       phys + len <= ram->r[lo].end;
}

/* Is [addr, addr + len) system RAM (not a hole, not firmware memory)? */
bool softhca_hw_is_ram(struct softhca_hw *hw, u64 addr, u64 len)
{
	phys_addr_t phys = dma_to_phys(&hw->pdev->dev, addr);
	const struct softhca_hw_ram *ram;
	bool ok;

	rcu_read_lock();
	ram = rcu_dereference(hw->ram);
	ok = ram && softhca_hw_ram_covers(ram, phys, len);
	rcu_read_unlock();
	return ok;
}

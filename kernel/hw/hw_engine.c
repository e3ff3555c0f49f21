// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the engine. Plain stores to doorbell records cannot
 * trap, so while there is work the engine polls the doorbell records of the
 * QPs it serves. When it has found nothing for engine_spin_us, or when
 * another task wants its CPU, it says so in every UAR (SOFTHCA_ENGINE_IDLE)
 * and sleeps; a poster that then sees IDLE after writing its doorbell
 * record rings SOFTHCA_REG_ENGINE_DB once (a zero-WR post through the
 * uverbs command fd). That doorbell runs one engine pass in the ringing
 * thread when the engine is free, and wakes the engine thread, which keeps
 * polling as long as it has its CPU to itself (as KVM's halt polling does):
 * a busy device takes posts with no system call when a CPU is free for it,
 * and costs the application threads nothing when none is.
 *
 * The handshake is Dekker's: poster "store record; full barrier; load
 * state", engine "store IDLE; full barrier; scan records", so one of them
 * sees the other. An idle engine costs no CPU; one waiting for a retry or
 * RNR timer sleeps until the earliest deadline.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>

#include "hw.h"

static unsigned int engine_spin_us = 100;
module_param(engine_spin_us, uint, 0644);
MODULE_PARM_DESC(engine_spin_us,
		 "How long the engine keeps polling doorbells after its last work (us)");

static unsigned int engine_poll_us;
module_param(engine_poll_us, uint, 0644);
MODULE_PARM_DESC(engine_poll_us,
		 "Pause between the engine's polls while it spins (us, 0: none)");

static unsigned int engine_share_us = 50;
module_param(engine_share_us, uint, 0644);
MODULE_PARM_DESC(engine_share_us,
		 "How long the polling engine shares its CPU with another runnable task before it goes idle (us)");

static unsigned int engine_backoff_us = 10000;
module_param(engine_backoff_us, uint, 0644);
MODULE_PARM_DESC(engine_backoff_us,
		 "After the engine found its CPU taken and no work, how long wake-up doorbells leave it asleep (us)");

static bool engine_fifo;
module_param(engine_fifo, bool, 0444);
MODULE_PARM_DESC(engine_fifo, "Run the engine as a SCHED_FIFO thread");

static bool engine_kick_inline = true;
module_param(engine_kick_inline, bool, 0644);
MODULE_PARM_DESC(engine_kick_inline,
		 "A wake-up doorbell runs the engine in the ringing thread when it is free");

void softhca_hw_engine_add_qp(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	lockdep_assert_held(&hw->engine_lock);
	list_add_tail(&qp->engine, &hw->engine_qps);
}

void softhca_hw_engine_del_qp(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	lockdep_assert_held(&hw->engine_lock);
	list_del_init(&qp->engine);
}

/* Write the engine state into @uar (engine lock held). */
void softhca_hw_uar_publish(struct softhca_hw *hw, struct softhca_hw_uar *uar)
{
	__le32 *state = page_address(uar->page) + SOFTHCA_UAR_ENGINE_STATE;

	WRITE_ONCE(*state, cpu_to_le32(hw->engine_state));
}

static void softhca_hw_engine_publish(struct softhca_hw *hw, u32 state)
{
	struct softhca_hw_uar *uar;
	unsigned long i;

	mutex_lock(&hw->engine_lock);
	hw->engine_state = state;
	xa_for_each(&hw->uars, i, uar)
		softhca_hw_uar_publish(hw, uar);
	mutex_unlock(&hw->engine_lock);
	/* the state is visible before we look at doorbell records again */
	smp_mb();
}

/*
 * One pass over every served QP: execute new send WQEs, flush QPs in
 * error. Return whether anything was done; @next gets the earliest
 * deadline of a QP waiting for a timer.
 */
static bool softhca_hw_engine_pass(struct softhca_hw *hw, ktime_t *next)
{
	struct softhca_hw_qp *qp, *tmp;
	ktime_t now = ktime_get();
	bool work = false;

	lockdep_assert_held(&hw->engine_lock);
	list_for_each_entry_safe(qp, tmp, &hw->engine_qps, engine) {
		if (qp->state == SOFTHCA_QPS_ERR)
			work |= softhca_hw_qp_flush(hw, qp);
		else if (qp->state == SOFTHCA_QPS_RTS)
			work |= softhca_hw_sq_process(hw, qp, now, next);
	}
	return work;
}

static bool softhca_hw_engine_run(struct softhca_hw *hw, ktime_t *next)
{
	bool work;

	*next = KTIME_MAX;
	mutex_lock(&hw->engine_lock);
	work = softhca_hw_engine_pass(hw, next);
	mutex_unlock(&hw->engine_lock);
	return work;
}

static void softhca_hw_engine_sleep(ktime_t next)
{
	if (next == KTIME_MAX)
		schedule();
	else
		schedule_hrtimeout_range(&next, 10 * NSEC_PER_USEC,
					 HRTIMER_MODE_ABS);
}

/*
 * Keep polling while there was work lately and the CPU is not wanted by
 * another task for longer than engine_share_us (a task that wakes up
 * briefly just preempts the engine; one that keeps running, such as an
 * application busy-polling its CQ, gets the CPU back).
 */
static bool softhca_hw_engine_keep_polling(ktime_t last_work,
					   ktime_t *contended)
{
	ktime_t now = ktime_get();

	if (ktime_us_delta(now, last_work) >= READ_ONCE(engine_spin_us))
		return false;
	if (single_task_running()) {
		*contended = 0;
		return true;
	}
	if (!*contended)
		*contended = now;
	return ktime_us_delta(now, *contended) < READ_ONCE(engine_share_us);
}

static int softhca_hw_engine_fn(void *data)
{
	struct softhca_hw *hw = data;
	ktime_t last_work = ktime_get(), next, contended = 0;
	bool found = false;

	while (!kthread_should_stop()) {
		atomic_set(&hw->engine_kicked, 0);
		if (softhca_hw_engine_run(hw, &next)) {
			last_work = ktime_get();
			found = true;
		}
		if (softhca_hw_engine_keep_polling(last_work, &contended)) {
			if (READ_ONCE(engine_poll_us))
				usleep_range(engine_poll_us, 2 * engine_poll_us);
			else
				cond_resched();
			continue;
		}

		/*
		 * Polling on a CPU others want, without finding anything the
		 * posters had not already run themselves, only slows them:
		 * leave the next wake-ups to them for a while.
		 */
		if (contended && !found)
			WRITE_ONCE(hw->engine_backoff,
				   ktime_add_us(ktime_get(),
						READ_ONCE(engine_backoff_us)));
		found = false;

		/* go idle: say so, then look once more */
		softhca_hw_engine_publish(hw, SOFTHCA_ENGINE_IDLE);
		if (softhca_hw_engine_run(hw, &next)) {
			softhca_hw_engine_publish(hw, SOFTHCA_ENGINE_RUNNING);
			last_work = ktime_get();
			continue;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		if (!atomic_read(&hw->engine_kicked) && !kthread_should_stop())
			softhca_hw_engine_sleep(next);
		__set_current_state(TASK_RUNNING);
		softhca_hw_engine_publish(hw, SOFTHCA_ENGINE_RUNNING);
		last_work = ktime_get();
		contended = 0;
	}
	return 0;
}

/**
 * softhca_hw_engine_kick - the wake-up doorbell (SOFTHCA_REG_ENGINE_DB)
 * @hw: the card
 * @qpn: the QP that has new work (informational: the engine scans all)
 *
 * When the engine is free the ringing thread runs one pass itself, so a
 * post to an idle card is served without a thread switch; the engine
 * thread is woken either way to keep polling while work continues.
 */
void softhca_hw_engine_kick(struct softhca_hw *hw, u32 qpn)
{
	ktime_t next;

	if (READ_ONCE(engine_kick_inline) && mutex_trylock(&hw->engine_lock)) {
		next = KTIME_MAX;
		softhca_hw_engine_pass(hw, &next);
		mutex_unlock(&hw->engine_lock);
		/* all done here and nothing to poll for: let the engine sleep */
		if (next == KTIME_MAX &&
		    (!READ_ONCE(engine_spin_us) ||
		     ktime_before(ktime_get(), READ_ONCE(hw->engine_backoff))))
			return;
	}
	atomic_set(&hw->engine_kicked, 1);
	wake_up_process(hw->engine);
}

int softhca_hw_engine_start(struct softhca_hw *hw)
{
	hw->engine_state = SOFTHCA_ENGINE_RUNNING;
	hw->engine = kthread_create(softhca_hw_engine_fn, hw, "%s-engine",
				    dev_name(&hw->pdev->dev));
	if (IS_ERR(hw->engine))
		return PTR_ERR(hw->engine);
	if (engine_fifo)
		sched_set_fifo_low(hw->engine);
	wake_up_process(hw->engine);
	return 0;
}

void softhca_hw_engine_stop(struct softhca_hw *hw)
{
	kthread_stop(hw->engine);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the engine. Plain stores to doorbell records cannot
 * trap, so while there is work the engine polls the doorbell records of the
 * QPs it serves. When it has found nothing for engine_spin_us, or when
 * another task wants its CPU, it says so in every UAR (SOFTHCA_ENGINE_IDLE)
 * and sleeps; a poster that then sees IDLE after writing its doorbell
 * record has the driver ring SOFTHCA_REG_ENGINE_DB once (an ioctl on its
 * wake-up file, or a zero-WR post). That doorbell runs one engine pass in
 * the ringing thread when the engine is free, and, when doorbells come
 * close together (engine_poll_gap_us), wakes the engine thread, which
 * keeps polling as long as it has its CPU to itself (as KVM's halt
 * polling does): a busy device takes posts with no system call when a CPU
 * is free for it, and costs the application threads nothing when none is.
 *
 * The handshake is Dekker's: poster "store record; full barrier; load
 * state", engine "store IDLE; full barrier; scan records", so one of them
 * sees the other. An idle engine costs no CPU; one waiting for a retry or
 * RNR timer sleeps until the earliest deadline.
 *
 * The doorbell path reads no ktime: in a VM whose TSC is unstable,
 * ktime_get() is an HPET register read, which under emulation costs more
 * than the rest of a pass. The polling thread, a wake-up waiting for
 * another thread's pass, and the gap between two wake-ups are timed with
 * local_clock() (the TSC), wake-up back-off is in jiffies, and only a QP
 * waiting on a timer, or a pass that had to skip a QP, reads ktime.
 *
 * There is no lock over a pass: each QP has its engine context (qp->run,
 * a spinlock taken with BHs off: a visit never sleeps), which one thread
 * holds while it visits the QP (sends within a budget, pushes READ
 * responses, flushes), so two threads serve two QPs at once and a wake-up
 * serves the QP that rang first. A kernel QP's wake-up goes to the engine
 * thread, or with engine_kernel_inline is served in the posting context
 * when interrupts are on. A pass walks the card's
 * list of QPs (hw->engine_qps, under RCU: a list step costs less than an
 * xarray search, and the pass runs between every two polls of a doorbell
 * record) and takes a reference on each QP it visits.
 */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/sched/task.h>

#include "hw.h"
#include "hw_trace.h"

static unsigned int engine_spin_us = 1000;
module_param(engine_spin_us, uint, 0644);
MODULE_PARM_DESC(engine_spin_us,
		 "How long the engine keeps polling doorbells after its last work (us)");

static unsigned int engine_backoff_us = 10000;
module_param(engine_backoff_us, uint, 0644);
MODULE_PARM_DESC(engine_backoff_us,
		 "When another task wants the engine's CPU, how long wake-up doorbells leave it asleep (us)");

static bool engine_kick_inline = true;
module_param(engine_kick_inline, bool, 0644);
MODULE_PARM_DESC(engine_kick_inline,
		 "A wake-up doorbell runs the engine in the ringing thread when it is free");

/*
 * Off by default: in the test VM (2 vCPUs) NVMe over the loopback is
 * faster when the engine thread takes kernel posts (10.3k against 6.7k
 * IOPS at iodepth 16, 3.3k against 1.8k at 1): the thread polls on the
 * CPU the scheduler finds free, a stage of its own, where served inline
 * the whole transfer lands on the posting CPU, busy with the submitter.
 */
static bool engine_kernel_inline;
module_param(engine_kernel_inline, bool, 0644);
MODULE_PARM_DESC(engine_kernel_inline,
		 "A kernel QP's wake-up doorbell runs the engine in the posting context (task or softirq, interrupts on) when the QP is free (default: the engine thread does)");

/*
 * A doorbell in a latency-bound exchange (one message a round trip, a
 * round trip of hundreds of microseconds over a wire) gains nothing from
 * a polling engine: the next post comes after the poll window, and the
 * poller takes a CPU from the application and the network, and in a VM
 * whose vCPUs share host cores, from the other vCPU it needs. So a served
 * doorbell sets the engine polling only when it came within
 * engine_poll_gap_us of the one before: a card posted to that often is
 * busy, and the posts after it need no doorbell while the engine polls.
 */
static unsigned int engine_poll_gap_us = 100;
module_param(engine_poll_gap_us, uint, 0644);
MODULE_PARM_DESC(engine_poll_gap_us,
		 "A served wake-up doorbell sets the engine thread polling only when it comes within this long of the previous one (us; 0: never)");

static unsigned int engine_kick_wait_us = 20;
module_param(engine_kick_wait_us, uint, 0644);
MODULE_PARM_DESC(engine_kick_wait_us,
		 "How long a wake-up doorbell waits for a pass in another thread to end before leaving the work to the engine thread (us)");

/* @qp has @work for the engine (any context): the engine thread visits. */
void softhca_hw_engine_schedule(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				int work)
{
	set_bit(work, &qp->work);
	atomic_set(&hw->engine_kicked, 1);
	wake_up_process(hw->engine);
}

/* Write the engine state into @uar (uar_lock held). */
void softhca_hw_uar_publish(struct softhca_hw *hw, struct softhca_hw_uar *uar)
{
	__le32 *state = page_address(uar->page) + SOFTHCA_UAR_ENGINE_STATE;

	WRITE_ONCE(*state, cpu_to_le32(hw->engine_state));
}

static void softhca_hw_engine_publish(struct softhca_hw *hw, u32 state)
{
	struct softhca_hw_uar *uar;
	unsigned long i;

	mutex_lock(&hw->uar_lock);
	if (hw->engine_state != state)
		trace_softhca_hw_engine_state(hw, state);
	hw->engine_state = state;
	xa_for_each(&hw->uars, i, uar)
		softhca_hw_uar_publish(hw, uar);
	mutex_unlock(&hw->uar_lock);
	/* the state is visible before we look at doorbell records again */
	smp_mb();
}

/*
 * Has @qp something for the engine now: a posted WQE not yet taken, a
 * resend, an RNR wait, READ responses, WQEs to flush? A transport timer
 * alone is not (softhca_hw_qp_has_work). Read without locks: a stale
 * answer costs one visit or waits for the next pass.
 */
static bool softhca_hw_qp_can_send(struct softhca_hw_qp *qp)
{
	u32 rq_pi, sq_pi;
	u8 state;

	if (READ_ONCE(qp->work))
		return true;
	state = READ_ONCE(qp->state);
	if (state == SOFTHCA_QPS_ERR) {
		/* posted since the last flush (garbage counts are not) */
		softhca_hw_qp_dbrec(qp, &rq_pi, &sq_pi);
		sq_pi -= READ_ONCE(qp->sq_ci);
		rq_pi -= READ_ONCE(qp->rq_ci);
		return (sq_pi && sq_pi <= BIT(qp->log_sq_size)) ||
		       (!qp->srq && rq_pi && rq_pi <= BIT(qp->log_rq_size));
	}
	if (state != SOFTHCA_QPS_RTS && !READ_ONCE(qp->sending))
		return false;
	softhca_hw_qp_dbrec(qp, NULL, &sq_pi);
	return sq_pi != READ_ONCE(qp->sq_next) || READ_ONCE(qp->sending) ||
	       READ_ONCE(qp->waiting) || READ_ONCE(qp->rewind);
}

/* ... or a transport timer to watch: what a pass visits the QP for. */
static bool softhca_hw_qp_has_work(struct softhca_hw_qp *qp)
{
	return softhca_hw_qp_can_send(qp) || READ_ONCE(qp->timer_armed);
}

/*
 * Visit @qp in its engine context (held): flush it in error, else push
 * its READ responses and send, each within the QP budget. Return whether
 * anything was done; @next gets the QP's timer.
 */
static bool softhca_hw_qp_visit(struct softhca_hw *hw, struct softhca_hw_qp *qp,
				ktime_t *next)
{
	bool work = false;

	clear_bit(SOFTHCA_HW_QPW_RUN, &qp->work);
	if (READ_ONCE(qp->state) == SOFTHCA_QPS_ERR)
		return softhca_hw_qp_flush(hw, qp);
	if (test_bit(SOFTHCA_HW_QPW_PUSH, &qp->work))
		work |= softhca_hw_resp_push(hw, qp, SOFTHCA_HW_QP_BUDGET);
	work |= softhca_hw_req_run(hw, qp, SOFTHCA_HW_QP_BUDGET, next);
	if (READ_ONCE(qp->state) == SOFTHCA_QPS_ERR)
		work |= softhca_hw_qp_flush(hw, qp);
	return work;
}

/*
 * The next QP after @prev (from the first when NULL) that the engine
 * serves and that has work, referenced, or NULL. @prev is referenced: if
 * it is still listed, its successor is valid under RCU; if it left the
 * list meanwhile, the walk starts again from the first QP (a visit with
 * nothing to do costs little).
 */
static struct softhca_hw_qp *softhca_hw_engine_next(struct softhca_hw *hw,
						    struct softhca_hw_qp *prev)
{
	struct softhca_hw_qp *qp;

	rcu_read_lock();
	if (prev && READ_ONCE(prev->engine_listed))
		qp = prev;
	else
		qp = list_entry(&hw->engine_qps, struct softhca_hw_qp,
				engine_node);
	list_for_each_entry_continue_rcu(qp, &hw->engine_qps, engine_node) {
		if (READ_ONCE(qp->state) >= SOFTHCA_QPS_RTR &&
		    softhca_hw_qp_has_work(qp) &&
		    refcount_inc_not_zero(&qp->ref))
			goto found;
	}
	qp = NULL;
found:
	rcu_read_unlock();
	return qp;
}

/*
 * Visit @qp if no other thread holds its engine context: return whether
 * it was free. What the visit did is or-ed into @work, its timer into
 * @next. The lock is taken and released here alone, so sparse can follow
 * it.
 */
static bool softhca_hw_engine_try_visit(struct softhca_hw *hw,
					struct softhca_hw_qp *qp, ktime_t *next,
					bool *work)
{
	if (!spin_trylock_bh(&qp->run))
		return false;
	if (!READ_ONCE(hw->halted))
		*work |= softhca_hw_qp_visit(hw, qp, next);
	spin_unlock_bh(&qp->run);
	return true;
}

/*
 * How soon a pass comes back for a QP it skipped (us). A visitor that
 * holds the QP's engine context looks for work left when it lets go
 * (softhca_hw_engine_visit_here), but a command does not: modify to ERR
 * schedules the flush while it holds the context, and the engine thread
 * woken for it finds the context taken. Slept on until the next doorbell,
 * that flush might never run (its owner waits for LAST_WQE_REACHED and
 * posts nothing), so the engine sleeps at most this long.
 */
#define SOFTHCA_HW_ENGINE_SKIP_RETRY_US	50

/**
 * softhca_hw_engine_pass - one pass over the QPs with work
 * @hw: the card
 * @next: the earliest time the engine must look again (KTIME_MAX: none)
 *
 * Visits the QPs the engine serves (RTR and later) that have work. The
 * walk follows hw->engine_qps, one referenced QP at a time, outside RCU.
 * A QP another thread is visiting is skipped: @next then asks for a pass
 * within SOFTHCA_HW_ENGINE_SKIP_RETRY_US. Otherwise @next gets the
 * earliest timer of a QP. The engine thread's loop runs it; any thread
 * may.
 *
 * Return: whether anything was done.
 */
bool softhca_hw_engine_pass(struct softhca_hw *hw, ktime_t *next)
{
	struct softhca_hw_qp *qp, *prev = NULL;
	bool work = false;
	ktime_t retry;

	while (!READ_ONCE(hw->halted) &&
	       (qp = softhca_hw_engine_next(hw, prev))) {
		if (prev)
			softhca_hw_qp_put(prev);
		if (!softhca_hw_engine_try_visit(hw, qp, next, &work)) {
			retry = ktime_add_us(ktime_get(),
					     SOFTHCA_HW_ENGINE_SKIP_RETRY_US);
			*next = min(*next, retry);
		}
		prev = qp;
	}
	if (prev)
		softhca_hw_qp_put(prev);
	return work;
}

/* Run a pass (the engine thread). */
static bool softhca_hw_engine_run(struct softhca_hw *hw, ktime_t *next)
{
	*next = KTIME_MAX;
	return softhca_hw_engine_pass(hw, next);
}

/* The polling thread's clock (ns): cheap, and it only times itself. */
static u64 softhca_hw_engine_clock(void)
{
	return local_clock();
}

static void softhca_hw_engine_sleep(ktime_t next)
{
	if (next == KTIME_MAX)
		schedule();
	else
		schedule_hrtimeout_range(&next, 10 * NSEC_PER_USEC,
					 HRTIMER_MODE_ABS);
}

/* What the polling engine does next. */
enum softhca_hw_engine_step {
	SOFTHCA_HW_POLL,	/* keep polling */
	SOFTHCA_HW_IDLE,	/* no work lately: sleep */
	SOFTHCA_HW_BACK_OFF,	/* another task wants this CPU: sleep */
};

/* Idle passes between two looks at the clock while polling. */
#define SOFTHCA_HW_IDLE_CLOCK_PASSES	8

/*
 * Poll while there was work lately and the CPU is ours alone. When another
 * task wants it (an application busy-polling its CQ, say) the engine goes
 * to sleep at once and wake-ups leave it asleep for engine_backoff_us:
 * posters ring for themselves meanwhile and the ringing thread does the
 * work, so an engine that kept waking up would only take turns from the
 * applications (each turn a context switch in their latency).
 *
 * @idle passes in a row found nothing, the first at @idle_since. The
 * clock is read every few idle passes only: a pass over a quiet card
 * costs about what a clock read does, and the poll loop is what a post
 * to a busy card waits for.
 */
static enum softhca_hw_engine_step
softhca_hw_engine_next_step(u64 idle_since, unsigned int idle)
{
	u64 spin_ns = (u64)READ_ONCE(engine_spin_us) * NSEC_PER_USEC;

	if (!spin_ns)
		return SOFTHCA_HW_IDLE;
	if (idle && !(idle % SOFTHCA_HW_IDLE_CLOCK_PASSES) &&
	    softhca_hw_engine_clock() - idle_since >= spin_ns)
		return SOFTHCA_HW_IDLE;
	if (single_task_running())
		return SOFTHCA_HW_POLL;
	return SOFTHCA_HW_BACK_OFF;
}

static int softhca_hw_engine_fn(void *data)
{
	struct softhca_hw *hw = data;
	u64 idle_since = 0;
	unsigned int idle = 0;
	unsigned long backoff;
	bool aside = false;
	ktime_t next;

	while (!kthread_should_stop()) {
		atomic_set(&hw->engine_kicked, 0);
		if (softhca_hw_engine_run(hw, &next))
			idle = 0;
		else if (!idle++)
			idle_since = softhca_hw_engine_clock();
		switch (softhca_hw_engine_next_step(idle_since, idle)) {
		case SOFTHCA_HW_POLL:
			if (aside) {
				softhca_hw_engine_publish(hw,
							  SOFTHCA_ENGINE_RUNNING);
				aside = false;
			}
			/* never leave the CPU while posters count on us */
			if (need_resched()) {
				softhca_hw_engine_publish(hw,
							  SOFTHCA_ENGINE_IDLE);
				aside = true;
				cond_resched();
			}
			continue;
		case SOFTHCA_HW_BACK_OFF:
			backoff = usecs_to_jiffies(READ_ONCE(engine_backoff_us));
			WRITE_ONCE(hw->engine_quiet_until, jiffies + backoff);
			break;
		case SOFTHCA_HW_IDLE:
			break;
		}
		aside = false;

		/* go idle: say so, then look once more */
		softhca_hw_engine_publish(hw, SOFTHCA_ENGINE_IDLE);
		if (softhca_hw_engine_run(hw, &next)) {
			softhca_hw_engine_publish(hw, SOFTHCA_ENGINE_RUNNING);
			idle = 0;
			continue;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		if (!atomic_read(&hw->engine_kicked) && !kthread_should_stop())
			softhca_hw_engine_sleep(next);
		__set_current_state(TASK_RUNNING);
		softhca_hw_engine_publish(hw, SOFTHCA_ENGINE_RUNNING);
		/*
		 * Woken: poll on if the first passes find work, or if a
		 * doorbell asked for polling (engine_poll_from_ns); a wake-up
		 * for a timer that finds nothing goes back to sleep.
		 */
		idle = 1;
		idle_since = READ_ONCE(hw->engine_poll_from_ns);
	}
	return 0;
}

static enum hrtimer_restart softhca_hw_engine_timer_fn(struct hrtimer *t)
{
	struct softhca_hw *hw = container_of(t, struct softhca_hw, engine_timer);

	atomic_set(&hw->engine_kicked, 1);
	wake_up_process(hw->engine);
	return HRTIMER_NORESTART;
}

/*
 * Have the engine thread woken by @at (a transport timer a visit in this
 * thread armed): the card's timer moves earlier if it must, and is left
 * alone when it already fires by then.
 */
static void softhca_hw_engine_timer_at(struct softhca_hw *hw, ktime_t at)
{
	unsigned long flags;

	spin_lock_irqsave(&hw->engine_timer_lock, flags);
	if (!hrtimer_is_queued(&hw->engine_timer) ||
	    ktime_before(at, hrtimer_get_expires(&hw->engine_timer)))
		hrtimer_start_range_ns(&hw->engine_timer, at,
				       10 * NSEC_PER_USEC, HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&hw->engine_timer_lock, flags);
}

/*
 * Visit @qp (referenced) in this thread. With @wait, another thread may
 * hold its engine context for a few microseconds, typically the engine
 * thread polling it: wait for that for up to engine_kick_wait_us rather
 * than hand the work to the engine thread, which would need a CPU and a
 * thread switch; without, visit only if it is free. Return whether that
 * left the QP with nothing to do but, perhaps, a transport timer, which
 * the card's timer then watches: the engine thread need not come for it.
 * When the context stays taken the QP is marked for the engine thread's
 * next pass.
 */
static bool softhca_hw_engine_visit_here(struct softhca_hw *hw,
					 struct softhca_hw_qp *qp, bool wait)
{
	ktime_t next = KTIME_MAX;
	bool work = false;
	u64 until = 0;

	while (!softhca_hw_engine_try_visit(hw, qp, &next, &work)) {
		if (!wait || (until && softhca_hw_engine_clock() > until)) {
			set_bit(SOFTHCA_HW_QPW_RUN, &qp->work);
			return false;
		}
		if (!until)
			until = softhca_hw_engine_clock() +
				(u64)READ_ONCE(engine_kick_wait_us) *
				NSEC_PER_USEC;
		cpu_relax();
	}
	/* served, unless its budget ran out before its work */
	if (softhca_hw_qp_can_send(qp))
		return false;
	if (next != KTIME_MAX)
		softhca_hw_engine_timer_at(hw, next);
	return true;
}

/**
 * softhca_hw_engine_answered - an answer reached @qp's requester
 * @hw: the card
 * @qp: the QP (referenced)
 *
 * Called after the completer took an ACK, NAK or READ/atomic response
 * (any context). Nothing is done unless the requester can send again
 * (the window opened, a resend, WQEs posted behind): an ACK of all that
 * was sent needs no thread, and one that leaves packets in flight moves
 * the transport timer later than the one the engine already sleeps
 * towards. When it can, the engine thread sends. (Sending right in the
 * receive softirq, as rxe's requester does, was slower: ib_write_bw
 * between two TCG VMs fell from about 11 to 8.6 MB/s, the sending taking
 * the CPU that takes the ACKs.)
 */
void softhca_hw_engine_answered(struct softhca_hw *hw, struct softhca_hw_qp *qp)
{
	if (softhca_hw_qp_can_send(qp))
		softhca_hw_engine_schedule(hw, qp, SOFTHCA_HW_QPW_RUN);
}

/*
 * Should a served doorbell set the engine thread polling? Only when
 * polling is on, the engine is not backing off, and this doorbell came
 * within engine_poll_gap_us of the one before (engine_poll_gap_us).
 */
static bool softhca_hw_engine_kick_polls(struct softhca_hw *hw, u64 gap_ns)
{
	if (!READ_ONCE(engine_spin_us) ||
	    time_before(jiffies, READ_ONCE(hw->engine_quiet_until)))
		return false;
	return gap_ns < (u64)READ_ONCE(engine_poll_gap_us) * NSEC_PER_USEC;
}

/**
 * softhca_hw_engine_kick - the wake-up doorbell (SOFTHCA_REG_ENGINE_DB)
 * @hw: the card
 * @qpn: the QP that has new work
 *
 * The ringing thread visits that QP itself (after waiting briefly for
 * another thread's visit to end), so a post to an idle card is served
 * without a thread switch; a transport timer the visit armed goes to the
 * card's timer. The engine thread is woken when the visit left work (the
 * QP taken by another thread, the budget spent, an RNR wait), or to poll
 * while posts keep coming (softhca_hw_engine_kick_polls); otherwise it
 * sleeps on.
 */
void softhca_hw_engine_kick(struct softhca_hw *hw, u32 qpn)
{
	struct softhca_hw_qp *qp;
	bool served = false;
	u64 now, prev;

	if (READ_ONCE(hw->halted))
		return;
	trace_softhca_hw_engine_wake(hw, qpn, false);
	now = softhca_hw_engine_clock();
	prev = READ_ONCE(hw->engine_kick_ns);
	WRITE_ONCE(hw->engine_kick_ns, now);
	qp = READ_ONCE(engine_kick_inline) ? softhca_hw_qp_get(hw, qpn) : NULL;
	if (qp) {
		served = softhca_hw_engine_visit_here(hw, qp, true);
		softhca_hw_qp_put(qp);
	}
	if (served) {
		if (!softhca_hw_engine_kick_polls(hw, now - prev))
			return;	/* all done here, nothing to poll for */
		WRITE_ONCE(hw->engine_poll_from_ns, now);
	}
	atomic_set(&hw->engine_kicked, 1);
	wake_up_process(hw->engine);
}

/*
 * The wake-up doorbell from any context (a kernel QP's post:
 * SOFTHCA_REG_ENGINE_DB_ASYNC): the engine thread visits the QP. With
 * engine_kernel_inline, interrupts on (a task, or softirq: a ULP posting
 * from its completion handler) and the QP free, the writer visits it
 * instead, as rxe's requester runs in the poster's context, saving a
 * thread switch per hop; with interrupts off (a post under a
 * spin_lock_irqsave), the QP taken, or work left (the budget, a timer),
 * the engine thread still takes it.
 */
void softhca_hw_engine_kick_async(struct softhca_hw *hw, u32 qpn)
{
	struct softhca_hw_qp *qp;
	bool served = false;

	if (READ_ONCE(hw->halted))
		return;
	trace_softhca_hw_engine_wake(hw, qpn, true);
	qp = softhca_hw_qp_get(hw, qpn);
	if (!qp)
		return;
	if (READ_ONCE(engine_kernel_inline) && !in_hardirq() &&
	    !irqs_disabled())
		served = softhca_hw_engine_visit_here(hw, qp, false);
	if (served) {
		softhca_hw_count(hw, kwake_inline);
	} else {
		softhca_hw_count(hw, kwake_engine);
		softhca_hw_engine_schedule(hw, qp, SOFTHCA_HW_QPW_RUN);
	}
	softhca_hw_qp_put(qp);
}

/*
 * A reset stops the engine: once this returns no visit runs and none will,
 * so the card touches no queue or buffer any more.
 */
void softhca_hw_engine_halt(struct softhca_hw *hw)
{
	struct softhca_hw_qp *qp;
	unsigned long i;

	WRITE_ONCE(hw->halted, true);
	/* wait out the visits in progress */
	xa_for_each(&hw->qps, i, qp) {
		spin_lock_bh(&qp->run);
		spin_unlock_bh(&qp->run);
	}
}

void softhca_hw_engine_resume(struct softhca_hw *hw)
{
	WRITE_ONCE(hw->halted, false);
}

int softhca_hw_engine_start(struct softhca_hw *hw)
{
	hw->engine_state = SOFTHCA_ENGINE_RUNNING;
	hw->engine_quiet_until = jiffies;
	spin_lock_init(&hw->engine_timer_lock);
	hrtimer_init(&hw->engine_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	hw->engine_timer.function = softhca_hw_engine_timer_fn;
	hw->engine = kthread_create(softhca_hw_engine_fn, hw, "%s-engine",
				    dev_name(&hw->pdev->dev));
	if (IS_ERR(hw->engine))
		return PTR_ERR(hw->engine);
	/* the card's timer may wake it until it is cancelled, after the stop */
	get_task_struct(hw->engine);
	wake_up_process(hw->engine);
	return 0;
}

void softhca_hw_engine_stop(struct softhca_hw *hw)
{
	kthread_stop(hw->engine);
	hrtimer_cancel(&hw->engine_timer);
	put_task_struct(hw->engine);
}

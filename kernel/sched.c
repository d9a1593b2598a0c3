/*
 * kernel/sched.c: running tasks - the run queue, context switching,
 * sleeping and waking, creation onto the queue and exit.
 *
 * One run queue per hart (kernel/sched_rq.c: queueing, stealing, which
 * idle hart to wake), each with its own lock; the lock rules are above
 * struct run_queue (kernel/sched_internal.h). A hart's lock is held across
 * the switch itself: the task that was switched to releases it in
 * finish_switch(), after the previous task's context is fully saved,
 * which is what lets a waker on another hart see a consistent
 * on_cpu/on_rq/state triple.
 *
 * Lock order: any wait-queue lock -> a run queue's lock. kernel/task.c
 * holds the rest of a task's life (allocation, the task list, references
 * and join).
 */
#include <stdio.h>
#include <string.h>
#include <kernel/sched.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/timer.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <mm/vm.h>
#include <fs/vfs.h>
#include "sched_internal.h"

#define TIME_SLICE_TICKS 5

static struct task idle_tasks[MAX_CPUS];

BUILD_BUG_ON(offsetof(struct task, stack_lo) !=
	     offsetof(struct task_head, stack_lo));
BUILD_BUG_ON(offsetof(struct task, cpu) != offsetof(struct task_head, cpu));

/* ---- preemption ---- */

/* The fast paths are inline in kernel/sched.h (the lock paths use them). */
void preempt_disable(void)
{
	__preempt_disable();
}

void preempt_enable_no_resched(void)
{
	__preempt_enable_no_resched();
}

bool preemptible(void)
{
	return current_task()->preempt_count == 0 && !in_interrupt() &&
	       arch_irqs_enabled();
}

/* Does this hart hold a lock (a spinlock turns preemption off) or run an
 * interrupt handler? Then a wake-up's IPI waits (send_kick). */
static bool in_locked_section(void)
{
	return this_cpu()->irq_depth || current_task()->preempt_count;
}

/* The exact check, with interrupts off; callers peek first
 * (__preempt_check_resched, kernel/sched.h). */
void preempt_check_resched(void)
{
	unsigned long flags = arch_irq_save();
	bool resched = this_cpu()->need_resched && this_cpu()->online;

	sched_send_owed_kicks();
	arch_irq_restore(flags);
	if (resched && preemptible())
		schedule_preempt();
}

void preempt_enable(void)
{
	__preempt_enable();
}

/*
 * IPI @c now, or, while this hart holds a lock (a spinlock, so
 * preemption is off, or an interrupt handler runs), once it lets go:
 * wakers call in here under their queue's lock (a mutex's or an
 * rw-semaphore's wait_lock, a wait queue's lock), and an IPI is an SBI
 * call, a trap into M-mode and, under QEMU, the big QEMU lock: sent under
 * the queue's lock it made every hart that wanted the lock spin for that
 * long, and longer when the host took this hart's thread off its core in
 * between. The wake-up itself (the task runnable, need_resched set on @c)
 * is done already; only the nudge waits, until sched_send_kicks: the
 * lock's release (preempt_check_resched), the end of the interrupt, or
 * this hart's next switch. Caller has interrupts off.
 */
static void send_kick(struct cpu *c)
{
	if (!c)
		return;
	if (in_locked_section()) {
		this_cpu()->kicks |= 1UL << c->id;
		return;
	}
	arch_send_ipi(c);
}

void sched_send_owed_kicks(void)
{
	if (this_cpu()->kicks && !in_locked_section())
		sched_send_kicks();
}

void sched_send_kicks(void)
{
	unsigned long flags = arch_irq_save();
	struct cpu *self = this_cpu(), *c;
	unsigned long kicks = self->kicks;

	self->kicks = 0;
	for_each_cpu (c)
		if (kicks & (1UL << c->id))
			arch_send_ipi(c);
	arch_irq_restore(flags);
}

/* ---- switching ---- */

static void set_running(struct cpu *c, struct task *next)
{
	next->on_cpu = true;
	next->cpu = c;
	next->slice = TIME_SLICE_TICKS;
	c->current = next;
}

/* Runs on the new task right after a switch, with the lock of this hart's
 * queue held and interrupts off. */
static void finish_switch(struct task *prev)
{
	bool dead = prev->state == TASK_DEAD;

	prev->on_cpu = false;
	raw_spin_unlock(&cpu_rq(this_cpu())->lock);
	if (dead)
		task_put_own(prev);
}

/*
 * @preempt: the task did not ask to stop (tick, preempt_enable). It stays
 * on the run queue even if it was about to sleep: it will re-check its
 * condition when it runs again, so no wake-up can be lost.
 */
static void __schedule(bool preempt)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	struct run_queue *rq = cpu_rq(c);
	struct task *prev = c->current, *next;
	uint64_t now = time_ns();

	WARN_ON_ONCE(prev->preempt_count != 0);
	if (c->kicks) /* owed from a section that ended in a switch */
		sched_send_kicks();
	if (preempt)
		raw_spin_lock_uncounted(&rq->lock);
	else
		raw_spin_lock(&rq->lock);
	WRITE_ONCE(c->need_resched, false);
	if ((preempt || prev->state == TASK_RUNNABLE) && prev != c->idle &&
	    prev->state != TASK_DEAD && !prev->on_rq)
		enqueue(rq, prev);
	next = pick_next(c);
	if (next == prev) {
		prev->slice = TIME_SLICE_TICKS; /* nobody else wants the hart */
		raw_spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		return;
	}
	prev->runtime_ns += now - c->switched_at;
	c->switched_at = now;
	next->switches++;
	set_running(c, next);
	c->switch_from = prev;
	trace_event(TRACE_SWITCH, next->tid, prev->tid);
	arch_switch_context(&prev->ctx, &next->ctx, next);
	/* prev runs again here, perhaps on another hart */
	finish_switch(this_cpu()->switch_from);
	arch_irq_restore(flags);
}

void schedule(void)
{
	struct task *t = current_task();

	/* About to sleep: I/O held on the task's plug may be what it waits
	 * for, so send it to the disk first. */
	if (t->plug && t->state == TASK_SLEEPING)
		blk_flush_plug(t);
	__schedule(false);
}

/* A preempted task may wait for a hart a while: the I/O held on its plug
 * goes to the disk now, as when it sleeps (another task may wait for a
 * page that I/O writes: fsync beside the flusher). */
void schedule_preempt(void)
{
	struct task *t = current_task();

	if (t->plug)
		blk_flush_plug(t);
	__schedule(true);
}

/*
 * The waker has made the sleeper's condition true; the fence orders that
 * before the read of the state (set_current_state's fence pairs with it):
 * a task that is not TASK_SLEEPING here sees the condition when it checks
 * it, so it needs no wake-up and no run queue's lock is taken.
 *
 * The task goes back onto the queue of the hart it last ran on, whose
 * lock is the one that guards it (task_rq_lock follows a steal); an idle
 * hart takes it from there (kick_idle_cpu). Under that lock the wake-up
 * is exact: a task still on its hart (on_cpu) or still queued (on_rq,
 * preempted while it was going to sleep) is only marked runnable, so it
 * is on at most one queue and runs once however many wake it, and
 * whichever hart takes it.
 */
void wake_up_task(struct task *t)
{
	struct cpu *kick = NULL;
	struct run_queue *rq;
	unsigned long flags;

	smp_mb();
	if (READ_ONCE(t->state) != TASK_SLEEPING)
		return;
	flags = arch_irq_save();
	rq = task_rq_lock(t);
	if (t->state == TASK_SLEEPING) {
		WRITE_ONCE(t->state, TASK_RUNNABLE);
		if (!t->on_cpu && !t->on_rq) {
			enqueue(rq, t);
			kick = kick_idle_cpu(t);
		}
	}
	raw_spin_unlock(&rq->lock);
	send_kick(kick);
	arch_irq_restore(flags);
}

/*
 * Set the running task's state, with no lock: only the task itself stores
 * TASK_SLEEPING, and wakers store TASK_RUNNABLE under its queue's lock. A task
 * marks itself TASK_SLEEPING before re-checking the condition it waits for; the
 * fence orders the store before that check (wake_up_task's fence pairs
 * with it), so either the waker sees TASK_SLEEPING or the task sees the
 * condition: no wake-up is lost. __schedule reads the state under its
 * hart's queue lock, the one a waker takes for this task:
 * a wake-up after the check but before the switch finds the task on its
 * hart (on_cpu) and leaves it TASK_RUNNABLE, so it is not dequeued.
 */
void set_current_state(enum task_state state)
{
	WRITE_ONCE(current_task()->state, state);
	smp_mb();
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct task *t = c->current;

	if (!t)
		return;
	if (t == c->idle) {
		if (work_for(c))
			c->need_resched = true;
	} else if (t->slice && --t->slice == 0) {
		c->need_resched = true;
	}
}

/* ---- task life ---- */

__noreturn void task_entry(void)
{
	struct cpu *c = this_cpu();
	struct task *t = c->current;

	finish_switch(c->switch_from);
	arch_irq_enable();
	task_exit(t->fn(t->arg));
}

struct task *
task_create_on(const char *name, int (*fn)(void *), void *arg, int cpu)
{
	struct task *t = task_alloc(name, fn, arg);
	struct run_queue *rq;
	struct cpu *kick;
	unsigned long flags;

	if (IS_ERR(t))
		return t;
	t->affinity = cpu;
	cwd_inherit(t);
	task_register(t);
	flags = arch_irq_save();
	/* its pinned hart's queue, else this hart's: an idle hart steals it */
	rq = cpu_rq(cpu == CPU_ANY ? this_cpu() : &cpus[cpu]);
	raw_spin_lock(&rq->lock);
	enqueue(rq, t);
	kick = kick_idle_cpu(t);
	raw_spin_unlock(&rq->lock);
	send_kick(kick);
	arch_irq_restore(flags);
	__preempt_check_resched();
	return t;
}

struct task *task_create(const char *name, int (*fn)(void *), void *arg)
{
	return task_create_on(name, fn, arg, CPU_ANY);
}

void task_exit(int code)
{
	struct task *t = current_task();
	unsigned long flags;

	DEBUG_ASSERT(t != this_cpu()->idle);
	if (t->lockdep.depth)
		pr_warn("task %s exits holding %u locks\n",
			t->name,
			t->lockdep.depth);
	t->exit_code = code;
	flags = arch_irq_save();
	raw_spin_lock(&cpu_rq(this_cpu())->lock);
	t->state = TASK_DEAD;
	raw_spin_unlock(&cpu_rq(this_cpu())->lock);
	arch_irq_restore(flags);
	schedule();
	panic("dead task %s scheduled", t->name);
}

void task_yield(void)
{
	schedule();
}

static void wake_timer_fn(struct ktimer *tm)
{
	wake_up_task(tm->data);
}

bool schedule_until(uint64_t deadline_ns)
{
	struct ktimer tm;

	timer_init(&tm, wake_timer_fn);
	tm.data = current_task();
	timer_arm(&tm, deadline_ns);
	schedule();
	timer_cancel(&tm);
	return time_ns() < deadline_ns;
}

void task_sleep_ns(uint64_t ns)
{
	uint64_t deadline = time_ns() + ns;

	do {
		set_current_state(TASK_SLEEPING);
	} while (schedule_until(deadline));
	set_current_state(TASK_RUNNABLE);
}

void task_sleep_ms(unsigned int ms)
{
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC);
}

/* ---- idle ---- */

struct task *sched_idle_task(unsigned int cpu)
{
	return &idle_tasks[cpu];
}

/*
 * Make idle_tasks[c->id] the context of hart @c before it runs C code that
 * looks at the running task (printk, locks). @stack is the stack the hart
 * boots on; it stays the idle task's stack.
 */
void sched_prepare_cpu(struct cpu *c, void *stack, size_t stack_size)
{
	struct task *idle = &idle_tasks[c->id];

	/* no snprintf: newlib needs the running task, which this becomes */
	strcpy(idle->name, "idle0");
	idle->name[4] = (char)('0' + c->id % 10);
	idle->stack = stack;
	idle->stack_size = stack_size;
	idle->stack_lo = (uintptr_t)stack;
	idle->affinity = (int)c->id;
	idle->state = TASK_RUNNABLE;
	list_init(&idle->run_node);
	wait_queue_init(&idle->exited);
	_REENT_INIT_PTR(&idle->reent);
	rq_init(c);
	c->idle = idle;
	set_running(c, idle);
}

/* On the hart itself, once the scheduler may run: list the idle task. */
void sched_start_cpu(void)
{
	struct cpu *c = this_cpu();

	task_register(c->idle);
	c->switched_at = time_ns();
}

void sched_idle_loop(void)
{
	for (;;) {
		arch_irq_disable();
		/* Only work this hart may take wakes it: tasks pinned to other
		 * harts must not keep it spinning. */
		if (this_cpu()->kicks)
			sched_send_kicks();
		/* current (idle) before the queues' counts: pairs with
		 * kick_idle_cpu's fence, so a task queued meanwhile is seen
		 * here or its waker sees this hart idle and tells it */
		smp_mb();
		if (!READ_ONCE(this_cpu()->need_resched) &&
		    !work_for(this_cpu()))
			arch_wait_for_interrupt();
		arch_irq_enable();
		schedule();
	}
}

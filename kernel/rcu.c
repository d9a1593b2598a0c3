/*
 * kernel/rcu.c: grace periods and deferred frees (the rules are in
 * kernel/rcu.h).
 *
 * Callbacks queue on one list under rcu_lock (irqsave: put_page may run
 * in an I/O completion). A batch is the whole list, taken at once: one
 * grace period, then every callback of it runs. The "rcu" task runs
 * batches as they come; rcu_barrier runs one itself and then waits until
 * no batch is in flight, so that every callback queued before it has run.
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>

static DEFINE_SPINLOCK(rcu_lock);
/* protected by rcu_lock: */
static struct rcu_head *queued, **queued_tail = &queued;
static unsigned int batches_in_flight;

static struct task *rcu_task;
static struct wait_queue_head batch_done_wq;
static unsigned long nr_grace_periods, nr_callbacks_run;

void rcu_read_lock(void)
{
	struct cpu *c;

	__preempt_disable();
	DEBUG_ASSERT(!in_interrupt());
	c = this_cpu();
	WRITE_ONCE(c->rcu_depth, c->rcu_depth + 1);
	if (c->rcu_depth == 1)
		smp_mb(); /* the depth is seen before any pointer is read */
}

void rcu_read_unlock(void)
{
	struct cpu *c = this_cpu();
	unsigned int depth = c->rcu_depth - 1;

	DEBUG_ASSERT(c->rcu_depth > 0);
	/* Release: the section's reads come before a waiter sees it end. */
	__atomic_store_n(&c->rcu_depth, depth, __ATOMIC_RELEASE);
	if (!depth)
		__atomic_store_n(
		    &c->rcu_ends, c->rcu_ends + 1, __ATOMIC_RELEASE);
	__preempt_enable();
}

bool rcu_read_lock_held(void)
{
	bool held;

	__preempt_disable();
	held = this_cpu()->rcu_depth > 0;
	__preempt_enable();
	return held;
}

/* Has @c been outside a read-side section since it showed @ends? */
static bool cpu_quiescent(const struct cpu *c, unsigned long ends)
{
	return !__atomic_load_n(&c->rcu_depth, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&c->rcu_ends, __ATOMIC_ACQUIRE) != ends;
}

void synchronize_rcu(void)
{
	unsigned long ends[MAX_CPUS];
	struct cpu *c;

	WARN_ON_ONCE(rcu_read_lock_held());
	smp_mb(); /* the caller's unpublishing comes before the depths */
	for_each_cpu (c)
		ends[c->id] = __atomic_load_n(&c->rcu_ends, __ATOMIC_ACQUIRE);
	race_point(RACE_RCU_GP_WAIT, NULL);
	for_each_cpu (c) {
		for (unsigned int spins = 0; !cpu_quiescent(c, ends[c->id]);
		     spins++) {
			arch_cpu_relax();
			/* The reader's hart may be ours: let it run. */
			if (spins % 64 == 63)
				task_yield();
		}
	}
	__atomic_fetch_add(&nr_grace_periods, 1, __ATOMIC_RELAXED);
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	unsigned long flags;
	bool was_empty;

	head->func = func;
	head->next = NULL;
	flags = spin_lock_irqsave(&rcu_lock);
	was_empty = !queued;
	*queued_tail = head;
	queued_tail = &head->next;
	spin_unlock_irqrestore(&rcu_lock, flags);
	/* wake_up_task takes only the run queue's lock: callable under any
	 * lock the queuer holds. */
	if (was_empty && READ_ONCE(rcu_task))
		wake_up_task(rcu_task);
}

/* Take the queued callbacks, wait a grace period, run them. */
static void run_batch(void)
{
	struct rcu_head *batch, *next;
	unsigned long flags = spin_lock_irqsave(&rcu_lock);
	unsigned long n = 0;

	batch = queued;
	queued = NULL;
	queued_tail = &queued;
	batches_in_flight++;
	spin_unlock_irqrestore(&rcu_lock, flags);
	if (batch)
		synchronize_rcu();
	for (; batch; batch = next, n++) {
		next = batch->next;
		batch->func(batch);
	}
	__atomic_fetch_add(&nr_callbacks_run, n, __ATOMIC_RELAXED);
	flags = spin_lock_irqsave(&rcu_lock);
	batches_in_flight--;
	spin_unlock_irqrestore(&rcu_lock, flags);
	wake_up_all(&batch_done_wq);
}

static bool idle_now(void)
{
	unsigned long flags = spin_lock_irqsave(&rcu_lock);
	bool idle = !queued && !batches_in_flight;

	spin_unlock_irqrestore(&rcu_lock, flags);
	return idle;
}

void rcu_barrier(void)
{
	run_batch();
	wait_event(&batch_done_wq, idle_now());
}

static int rcu_main(void *arg)
{
	(void)arg;
	for (;;) {
		set_current_state(TASK_SLEEPING);
		if (!READ_ONCE(queued))
			schedule();
		set_current_state(TASK_RUNNABLE);
		run_batch();
	}
	return 0;
}

static int rcu_init(void)
{
	struct task *t;

	wait_queue_init(&batch_done_wq);
	t = task_create("rcu", rcu_main, NULL);
	if (IS_ERR(t))
		return PTR_ERR(t);
	WRITE_ONCE(rcu_task, t);
	return 0;
}
INIT_HOOK(rcu, rcu_init, INIT_LEVEL_SCHED);

unsigned long rcu_grace_periods(void)
{
	return __atomic_load_n(&nr_grace_periods, __ATOMIC_RELAXED);
}

unsigned long rcu_callbacks_run(void)
{
	return __atomic_load_n(&nr_callbacks_run, __ATOMIC_RELAXED);
}

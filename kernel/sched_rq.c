/*
 * kernel/sched_rq.c: the per-hart run queues - queueing, picking the next
 * task, stealing from another hart, and choosing the idle hart a new
 * runnable task wakes.
 *
 * Each hart runs the tasks of its own queue, oldest first. A hart whose
 * queue is empty takes the oldest task that may run anywhere (CPU_ANY)
 * from another hart's queue (steal_task), so a task woken or created on a
 * busy hart runs on an idle one. A task pinned to a hart is only ever on
 * that hart's queue and is never stolen.
 *
 * Where a task goes: a woken task onto the queue of the hart it last ran
 * on (its t->cpu, whose lock the waker already holds to look at the
 * task: no second lock, and a task woken by an interrupt on its own idle
 * hart runs right there); a new task onto its pinned hart's queue, else
 * the creating hart's. Either way an idle hart is told (kick_idle_cpu)
 * and steals it when it is not that task's own hart.
 *
 * The lock rules are above struct run_queue (kernel/sched_internal.h).
 */
#include <kernel/sched.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include "sched_internal.h"

static struct run_queue run_queues[MAX_CPUS];

void rq_init(const struct cpu *c)
{
	struct run_queue *rq = &run_queues[c->id];

	spin_lock_init(&rq->lock, "rq.lock");
	list_init(&rq->tasks);
}

struct run_queue *cpu_rq(const struct cpu *c)
{
	return &run_queues[c->id];
}

unsigned long sched_steals(unsigned int cpu)
{
	return READ_ONCE(run_queues[cpu].steals);
}

struct run_queue *task_rq_lock(struct task *t)
{
	for (;;) {
		struct cpu *c = READ_ONCE(t->cpu);
		struct run_queue *rq = cpu_rq(c);

		raw_spin_lock(&rq->lock);
		if (likely(t->cpu == c))
			return rq;
		raw_spin_unlock(&rq->lock); /* stolen meanwhile: follow it */
	}
}

static bool can_run_on(const struct task *t, const struct cpu *c)
{
	return t->affinity == CPU_ANY || t->affinity == (int)c->id;
}

static bool stealable(const struct task *t)
{
	return t->affinity == CPU_ANY;
}

void enqueue(struct run_queue *rq, struct task *t)
{
	DEBUG_ASSERT(!t->on_rq);
	DEBUG_ASSERT(spin_lock_held(&rq->lock));
	t->on_rq = true;
	t->cpu = &cpus[rq - run_queues];
	list_add_tail(&t->run_node, &rq->tasks);
	WRITE_ONCE(rq->nr_queued, rq->nr_queued + 1);
	if (stealable(t))
		WRITE_ONCE(rq->nr_stealable, rq->nr_stealable + 1);
}

static void dequeue(struct run_queue *rq, struct task *t)
{
	list_del(&t->run_node);
	t->on_rq = false;
	WRITE_ONCE(rq->nr_queued, rq->nr_queued - 1);
	if (stealable(t))
		WRITE_ONCE(rq->nr_stealable, rq->nr_stealable - 1);
}

/*
 * Take the oldest task that may run anywhere from another hart's queue,
 * for hart @c, whose own queue is empty. The other queue's lock is only
 * tried (the lock rules: no waiting for a second rq lock); a busy one is
 * passed over this time, and work_for keeps the hart looking. The task
 * becomes @c's (t->cpu) with both locks held. Caller holds @c's lock.
 */
static struct task *steal_task(struct cpu *c)
{
	for (unsigned int i = 1; i < ncpus; i++) {
		struct run_queue *rq = cpu_rq(&cpus[(c->id + i) % ncpus]);
		struct task *t;

		if (!READ_ONCE(rq->nr_stealable) ||
		    !raw_spin_trylock(&rq->lock))
			continue;
		list_for_each_entry (t, &rq->tasks, run_node) {
			if (stealable(t)) {
				DEBUG_ASSERT(!t->on_cpu);
				dequeue(rq, t);
				race_point(RACE_SCHED_STEAL, t);
				t->cpu = c;
				raw_spin_unlock(&rq->lock);
				race_point(RACE_SCHED_STOLEN, t);
				cpu_rq(c)->steals++;
				return t;
			}
		}
		raw_spin_unlock(&rq->lock);
	}
	return NULL;
}

struct task *pick_next(struct cpu *c)
{
	struct run_queue *rq = cpu_rq(c);
	struct task *t;

	if (!list_empty(&rq->tasks)) {
		t = list_first_entry(&rq->tasks, struct task, run_node);
		dequeue(rq, t);
		return t;
	}
	t = steal_task(c);
	return t ? t : c->idle;
}

bool work_for(const struct cpu *c)
{
	struct cpu *o;

	if (READ_ONCE(cpu_rq(c)->nr_queued))
		return true;
	for_each_cpu (o)
		if (o != c && READ_ONCE(cpu_rq(o)->nr_stealable))
			return true;
	return false;
}

/* Idle, and not told already (a hart told is about to take a task:
 * another idle one takes this one). A hint: @c's own fields. */
static bool idle_untold(const struct cpu *c)
{
	return c->online && READ_ONCE(c->current) == c->idle &&
	       !READ_ONCE(c->need_resched);
}

static struct cpu *tell(struct cpu *c)
{
	WRITE_ONCE(c->need_resched, true);
	this_cpu()->ipis_sent++;
	return c;
}

/*
 * In order: this hart, if it is idle (an interrupt here woke the task, an
 * I/O completion: it runs the task on its way out of the interrupt, with
 * no IPI, which costs an SBI call, a trap and a scramble for the queue's
 * lock on the other hart); the task's own hart, if idle; any idle hart
 * that may run it (it steals the task). With none idle, the task's hart
 * is asked to switch at its next preemption point (a tick at the latest):
 * no IPI to interrupt a busy hart.
 */
struct cpu *kick_idle_cpu(const struct task *t)
{
	struct cpu *self = this_cpu(), *home = t->cpu, *c;

	/* The queued task before the reads of other harts' current: pairs
	 * with sched_idle_loop's fence between its current and work_for. */
	smp_mb();
	if (self->current == self->idle && can_run_on(t, self)) {
		self->need_resched = true;
		return NULL;
	}
	if (home != self && idle_untold(home))
		return tell(home);
	for_each_cpu (c)
		if (c != self && c != home && stealable(t) && idle_untold(c))
			return tell(c);
	WRITE_ONCE(home->need_resched, true);
	return NULL;
}

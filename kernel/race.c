/*
 * kernel/race.c: the hook table of kernel/race.h, written only by tests
 * and read with one load at each race point; and the gates, a hook that
 * stops a task where the code may sleep.
 *
 * race_lock guards the gates; a stopped task sleeps on its gate's own
 * queue until the gate is released (race_wq tells the waiting test that a
 * task stopped): releasing one gate, or stopping at another, never wakes a
 * task stopped elsewhere, so a stopped task stays asleep (a debugger
 * looking at a race finds it so). Arming and releasing are for one test
 * at a time.
 */
#include <errno.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/wait.h>

race_fn *race_hooks[NR_RACE_POINTS];

static DEFINE_SPINLOCK(race_lock);
static DEFINE_WAIT_QUEUE_HEAD(race_wq);
/* protected by race_lock: */
static struct gate {
	struct task *only;    /* the task the gate is for, or NULL: any */
	void *obj;	      /* the object it is for, or NULL: any */
	struct task *stopped; /* the task held here, or NULL */
	bool released;
	struct wait_queue_head wq; /* the stopped task waits here */
} gates[NR_RACE_POINTS];

static int gates_init(void)
{
	for (unsigned int i = 0; i < NR_RACE_POINTS; i++)
		wait_queue_init(&gates[i].wq);
	return 0;
}
INIT_HOOK(race_gates, gates_init, INIT_LEVEL_EARLY);

static const char *const names[NR_RACE_POINTS] = {
	[RACE_FILL_START] = "fill: i_size sampled, before the lock",
	[RACE_FILL_MAPPED] = "fill: page inserted, block mapped",
	[RACE_INVAL_DROPPED] = "invalidation: cache dropped, blocks not freed",
	[RACE_LOCK_TWO_FIRST] = "lock_two: first mapping locked",
	[RACE_INODES_TWO_FIRST] = "lock_two_inodes: first inode locked",
	[RACE_READ_COPY] = "read: page found, i_size read, before the copy",
	[RACE_FILL_INSERTED] = "fill: pages inserted, blocks not mapped",
	[RACE_ALLOC_LINKED] = "alloc_range: blocks mapped, not yet zeroed",
	[RACE_RA_WORKER] = "readahead worker: window taken, not read",
	[RACE_WB_MAPPED] = "writeback: blocks mapped, bio not submitted",
	[RACE_RECLAIM_CHOSEN] = "reclaim: page chosen, not locked",
	[RACE_WRITE_COPY] = "write: page locked, before the copy",
	[RACE_INVAL_FREED] = "invalidation: blocks changed, edges not zeroed",
	[RACE_INVAL_UNLOCK] = "invalidation: done, lock not dropped yet",
	[RACE_FAULT_PAGE_FOUND] = "fault: page found, not locked",
};

static void gate_reached(enum race_id rp, void *obj)
{
	struct gate *g = &gates[rp];
	bool stop;

	spin_lock(&race_lock);
	stop = READ_ONCE(race_hooks[rp]) && !g->stopped &&
	       (!g->only || g->only == current_task()) &&
	       (!g->obj || g->obj == obj);
	if (stop) {
		g->stopped = current_task();
		g->released = false;
	}
	spin_unlock(&race_lock);
	if (!stop)
		return;
	pr_info("race: %s stops at \"%s\"\n", current_task_name(), names[rp]);
	wake_up_all(&race_wq);
	wait_event(&g->wq, READ_ONCE(g->released));
}

/* A hook knows its object, not its point: one per gated point. */
static void gate_fill_start(void *obj)
{
	gate_reached(RACE_FILL_START, obj);
}

static void gate_fill_mapped(void *obj)
{
	gate_reached(RACE_FILL_MAPPED, obj);
}

static void gate_inval_dropped(void *obj)
{
	gate_reached(RACE_INVAL_DROPPED, obj);
}

static void gate_lock_two_first(void *obj)
{
	gate_reached(RACE_LOCK_TWO_FIRST, obj);
}

static void gate_inodes_two_first(void *obj)
{
	gate_reached(RACE_INODES_TWO_FIRST, obj);
}

static void gate_read_copy(void *obj)
{
	gate_reached(RACE_READ_COPY, obj);
}

static void gate_fill_inserted(void *obj)
{
	gate_reached(RACE_FILL_INSERTED, obj);
}

static void gate_alloc_linked(void *obj)
{
	gate_reached(RACE_ALLOC_LINKED, obj);
}

static void gate_ra_worker(void *obj)
{
	gate_reached(RACE_RA_WORKER, obj);
}

static void gate_wb_mapped(void *obj)
{
	gate_reached(RACE_WB_MAPPED, obj);
}

static void gate_reclaim_chosen(void *obj)
{
	gate_reached(RACE_RECLAIM_CHOSEN, obj);
}

static void gate_write_copy(void *obj)
{
	gate_reached(RACE_WRITE_COPY, obj);
}

static void gate_inval_freed(void *obj)
{
	gate_reached(RACE_INVAL_FREED, obj);
}

static void gate_inval_unlock(void *obj)
{
	gate_reached(RACE_INVAL_UNLOCK, obj);
}

static void gate_fault_page_found(void *obj)
{
	gate_reached(RACE_FAULT_PAGE_FOUND, obj);
}

static race_fn *const gate_hooks[NR_RACE_POINTS] = {
	[RACE_FILL_START] = gate_fill_start,
	[RACE_FILL_MAPPED] = gate_fill_mapped,
	[RACE_INVAL_DROPPED] = gate_inval_dropped,
	[RACE_LOCK_TWO_FIRST] = gate_lock_two_first,
	[RACE_INODES_TWO_FIRST] = gate_inodes_two_first,
	[RACE_READ_COPY] = gate_read_copy,
	[RACE_FILL_INSERTED] = gate_fill_inserted,
	[RACE_ALLOC_LINKED] = gate_alloc_linked,
	[RACE_RA_WORKER] = gate_ra_worker,
	[RACE_WB_MAPPED] = gate_wb_mapped,
	[RACE_RECLAIM_CHOSEN] = gate_reclaim_chosen,
	[RACE_WRITE_COPY] = gate_write_copy,
	[RACE_INVAL_FREED] = gate_inval_freed,
	[RACE_INVAL_UNLOCK] = gate_inval_unlock,
	[RACE_FAULT_PAGE_FOUND] = gate_fault_page_found,
};

void race_arm(enum race_id rp)
{
	race_arm_for(rp, NULL);
}

void race_arm_for(enum race_id rp, struct task *only)
{
	race_arm_for_obj(rp, only, NULL);
}

void race_arm_for_obj(enum race_id rp, struct task *only, void *obj)
{
	if (WARN_ON_ONCE(!gate_hooks[rp]))
		return; /* not a point where the code may sleep */
	spin_lock(&race_lock);
	gates[rp].only = only;
	gates[rp].obj = obj;
	gates[rp].stopped = NULL;
	gates[rp].released = false;
	spin_unlock(&race_lock);
	race_hook_set(rp, gate_hooks[rp]);
}

/* A task stopped at @rp and asleep there, off its hart: the test that goes
 * on (and a debugger looking at it) finds it really stopped. */
static bool stopped(enum race_id rp)
{
	struct task *s;

	if (rp >= NR_RACE_POINTS)
		return false;
	s = READ_ONCE(gates[rp].stopped);
	return s && READ_ONCE(s->state) == TASK_SLEEPING &&
	       !READ_ONCE(s->on_cpu);
}

int race_wait(enum race_id rp, bool (*cond)(void *), void *arg)
{
	uint64_t deadline = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;

	for (;;) {
		if (stopped(rp))
			return 1;
		if (cond && cond(arg))
			return 0;
		if (time_ns() > deadline) {
			pr_err("race: nothing happened in %u ms (%s)\n",
			       RACE_TIMEOUT_MS,
			       rp < NR_RACE_POINTS ? names[rp] : "a condition");
			return -ETIMEDOUT;
		}
		/* Polls the condition; the order does not depend on it. */
		wait_event_timeout(&race_wq, stopped(rp), NSEC_PER_MSEC);
	}
}

int race_wait_until(bool (*cond)(void *), void *arg)
{
	return race_wait(NR_RACE_POINTS, cond, arg);
}

void race_release(enum race_id rp)
{
	race_hook_set(rp, NULL);
	spin_lock(&race_lock);
	gates[rp].released = true;
	spin_unlock(&race_lock);
	wake_up_all(&gates[rp].wq);
}

/*
 * kernel/race.c: race point gates (see kernel/race.h).
 *
 * race_lock guards the gates; a stopped task sleeps on race_wq until its
 * gate is released. Arming and releasing are for one test at a time.
 */
#include <errno.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/wait.h>

unsigned long race_armed;

static DEFINE_SPINLOCK(race_lock);
static DEFINE_WAIT_QUEUE_HEAD(race_wq);
/* protected by race_lock: */
static struct gate {
	struct task *only;    /* the task the gate is for, or NULL: any */
	struct task *stopped; /* the task held here, or NULL */
	bool released;
} gates[RP_NR];

static const char *const names[RP_NR] = {
	[RP_FILL_START] = "fill: i_size sampled, before the lock",
	[RP_FILL_MAPPED] = "fill: page inserted, block mapped",
	[RP_INVAL_DROPPED] = "invalidation: cache dropped, blocks not freed",
	[RP_LOCK_TWO_FIRST] = "lock_two: first mapping locked",
};

const char *race_point_name(enum race_point rp)
{
	return names[rp];
}

void race_point_reached(enum race_point rp)
{
	struct gate *g = &gates[rp];
	bool stop;

	spin_lock(&race_lock);
	stop = (race_armed & (1UL << rp)) && !g->stopped &&
	       (!g->only || g->only == current_task());
	if (stop) {
		g->stopped = current_task();
		g->released = false;
	}
	spin_unlock(&race_lock);
	if (!stop)
		return;
	pr_info("race: %s stops at \"%s\"\n", current_task_name(), names[rp]);
	wake_up_all(&race_wq);
	wait_event(&race_wq, READ_ONCE(g->released));
}

void race_arm(enum race_point rp)
{
	race_arm_for(rp, NULL);
}

void race_arm_for(enum race_point rp, struct task *only)
{
	spin_lock(&race_lock);
	gates[rp] = (struct gate){ only, NULL, false };
	__atomic_fetch_or(&race_armed, 1UL << rp, __ATOMIC_SEQ_CST);
	spin_unlock(&race_lock);
}

static bool stopped(enum race_point rp)
{
	return rp < RP_NR && READ_ONCE(gates[rp].stopped) != NULL;
}

int race_wait(enum race_point rp, bool (*cond)(void *), void *arg)
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
			       rp < RP_NR ? names[rp] : "a condition");
			return -ETIMEDOUT;
		}
		/* Polls the condition; the order does not depend on it. */
		wait_event_timeout(&race_wq, stopped(rp), NSEC_PER_MSEC);
	}
}

int race_wait_until(bool (*cond)(void *), void *arg)
{
	return race_wait(RP_NR, cond, arg);
}

void race_release(enum race_point rp)
{
	spin_lock(&race_lock);
	__atomic_fetch_and(&race_armed, ~(1UL << rp), __ATOMIC_SEQ_CST);
	gates[rp].released = true;
	spin_unlock(&race_lock);
	wake_up_all(&race_wq);
}

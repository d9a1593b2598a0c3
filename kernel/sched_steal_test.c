/*
 * kernel/sched_steal_test.c: suite sched_steal - per-hart run queues: an
 * idle hart takes the work queued on a busy one, and a task woken while
 * another hart steals it runs once.
 *
 * The busy hart is held with preemption off (a task that spins inside
 * preempt_disable), so only another hart can run what is queued there:
 * without stealing each case waits out its bound and fails. Bounds are
 * counted in the held hart's ticks, not in time a busy host stretches.
 */
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include "sched_internal.h"

#define WAKER_HART 0
#define HELD_HART  1
/* 10 s of the held hart's ticks: a loaded host may leave the other
 * harts unrun for seconds; without stealing each case waits it out */
#define BOUND_TICKS 2500
#define SPREAD_N    12

struct spread {
	int started, done; /* atomic */
	int first_cpu[SPREAD_N], last_cpu[SPREAD_N];
	bool held; /* the creator holds HELD_HART */
};

struct spreader {
	struct spread *s;
	int i;
};

static int spreader_fn(void *arg)
{
	struct spreader *sp = arg;
	struct spread *s = sp->s;
	uint64_t start = READ_ONCE(this_cpu()->ticks);

	s->first_cpu[sp->i] = (int)cpu_id();
	__atomic_fetch_add(&s->started, 1, __ATOMIC_RELAXED);
	/* Busy until another one runs too: this hart keeps this task (its
	 * own queue first), so the other is on another hart. */
	while (__atomic_load_n(&s->started, __ATOMIC_RELAXED) < 2 &&
	       READ_ONCE(this_cpu()->ticks) - start < BOUND_TICKS)
		arch_cpu_relax();
	task_yield(); /* back onto this hart's queue, taken again */
	s->last_cpu[sp->i] = (int)cpu_id();
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Hold this hart, preemption off, until @cond or BOUND_TICKS of its
 * ticks. Return: the ticks it took. */
static uint64_t hold_hart_until(bool (*cond)(void *), void *arg)
{
	uint64_t start, n;

	preempt_disable();
	start = READ_ONCE(this_cpu()->ticks);
	while (!cond(arg) && READ_ONCE(this_cpu()->ticks) - start < BOUND_TICKS)
		arch_cpu_relax();
	n = READ_ONCE(this_cpu()->ticks) - start;
	preempt_enable();
	return n;
}

static bool all_done(void *arg)
{
	struct spread *s = arg;

	return __atomic_load_n(&s->done, __ATOMIC_ACQUIRE) == SPREAD_N;
}

/* On HELD_HART: queue SPREAD_N tasks here (a task free to run anywhere
 * goes onto its creator's queue), then hold the hart until they are
 * done. Return: the ticks that took. */
static int spread_creator(void *arg)
{
	struct spread *s = arg;
	struct spreader sp[SPREAD_N];
	struct task *tasks[SPREAD_N];
	uint64_t ticks;

	for (int i = 0; i < SPREAD_N; i++) {
		sp[i] = (struct spreader){ .s = s, .i = i };
		tasks[i] = task_create("spreader", spreader_fn, &sp[i]);
		if (IS_ERR(tasks[i]))
			return -1;
	}
	ticks = hold_hart_until(all_done, s);
	for (int i = 0; i < SPREAD_N; i++)
		task_join(tasks[i]);
	return (int)ticks;
}

/* N tasks made runnable on one hart, which stays busy, all run and end,
 * on other harts: idle harts steal them, two at once at least (the
 * first two wait for each other). */
static void queued_on_a_busy_hart_run_elsewhere(struct ktest *t)
{
	struct spread s = { 0 };
	unsigned long steals_before = 0, steals_after = 0;
	unsigned int harts = 0;
	bool seen[MAX_CPUS] = { false };
	struct task *c;
	int ticks;

	KTEST_ASSERT_GE(t, ncpus, 3);
	for (unsigned int i = 0; i < ncpus; i++)
		steals_before += sched_steals(i);
	c = task_create_on("spread_creator", spread_creator, &s, HELD_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(c));
	ticks = task_join(c);
	KTEST_ASSERT_GE(t, ticks, 0);
	KTEST_EXPECT_LT(t, ticks, BOUND_TICKS);
	KTEST_EXPECT_EQ(t, s.done, SPREAD_N);
	for (int i = 0; i < SPREAD_N; i++) {
		KTEST_EXPECT_TRUE(
		    t, s.first_cpu[i] >= 0 && s.first_cpu[i] < (int)ncpus);
		if (!seen[s.first_cpu[i]])
			harts++;
		seen[s.first_cpu[i]] = true;
	}
	for (unsigned int i = 0; i < ncpus; i++)
		steals_after += sched_steals(i);
	ktest_log(t, "ran on %u harts in %d ticks", harts, ticks);
	KTEST_EXPECT_GE(t, harts, 2);
	KTEST_EXPECT_GT(t, steals_after, steals_before);
}

struct single {
	bool ran;
	int cpu;
};

static int single_fn(void *arg)
{
	struct single *s = arg;

	s->cpu = (int)cpu_id();
	ktest_flag_raise(&s->ran);
	return 0;
}

static bool single_ran(void *arg)
{
	return ktest_flag_up(&((struct single *)arg)->ran);
}

/* On HELD_HART: create one task and hold the hart. Return: the ticks
 * until the task ran, BOUND_TICKS if it did not. */
static int single_creator(void *arg)
{
	struct single *s = arg;
	struct task *task = task_create("single", single_fn, s);
	uint64_t ticks;

	if (IS_ERR(task))
		return -1;
	ticks = hold_hart_until(single_ran, s);
	task_join(task);
	return (int)ticks;
}

/* One task queued on a busy hart: an idle hart is told (kick_idle_cpu)
 * and takes it within a tick or two of the busy hart, where it would
 * wait for ever without stealing. */
static void idle_hart_takes_queued_task(struct ktest *t)
{
	struct single s = { .cpu = -1 };
	struct task *c;
	int ticks;

	KTEST_ASSERT_GE(t, ncpus, 2);
	c = task_create_on("single_creator", single_creator, &s, HELD_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(c));
	ticks = task_join(c);
	ktest_log(t, "ran on hart %d after %d ticks", s.cpu, ticks);
	KTEST_EXPECT_TRUE(t, s.ran);
	KTEST_EXPECT_NE(t, s.cpu, HELD_HART);
	KTEST_EXPECT_LT(t, ticks, BOUND_TICKS);
}

struct holder {
	bool holding, release;
	uint64_t ticks_at_hold;
	int cpu; /* the hart it holds */
};

/* Hold this hart, preemption off, until released (bounded). */
static int holder_fn(void *arg)
{
	struct holder *h = arg;
	uint64_t start;

	preempt_disable();
	start = READ_ONCE(this_cpu()->ticks);
	WRITE_ONCE(h->ticks_at_hold, start);
	WRITE_ONCE(h->cpu, (int)cpu_id());
	ktest_flag_raise(&h->holding);
	while (!ktest_flag_up(&h->release) &&
	       READ_ONCE(this_cpu()->ticks) - start < BOUND_TICKS)
		arch_cpu_relax();
	preempt_enable();
	return 0;
}

static bool holding(void *arg)
{
	return ktest_flag_up(&((struct holder *)arg)->holding);
}

#define PINNED_WAIT_TICKS 25

static bool held_hart_ticked(void *arg)
{
	struct holder *h = arg;

	return READ_ONCE(cpus[HELD_HART].ticks) - READ_ONCE(h->ticks_at_hold) >=
	       PINNED_WAIT_TICKS;
}

/* A task pinned to a busy hart waits for that hart, however idle the
 * others are: PINNED_WAIT_TICKS of the held hart pass with it queued and
 * not run; let go, the hart runs it. The holder is pinned too: it holds
 * HELD_HART itself, or the case would prove nothing (a pinned holder
 * stolen by an idle hart leaves HELD_HART free to run the task). */
static void pinned_task_is_not_stolen(struct ktest *t)
{
	struct holder h = { 0 };
	struct single pinned = { .cpu = -1 };
	struct task *hold, *p;

	KTEST_ASSERT_GE(t, ncpus, 2);
	hold = task_create_on("holder", holder_fn, &h, HELD_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(hold));
	KTEST_ASSERT_EQ(t, race_wait_until(holding, &h), 0);
	KTEST_EXPECT_EQ(t, READ_ONCE(h.cpu), HELD_HART);
	p = task_create_on("pinned", single_fn, &pinned, HELD_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(p));
	KTEST_EXPECT_EQ(t, race_wait_until(held_hart_ticked, &h), 0);
	KTEST_EXPECT_FALSE(t, ktest_flag_up(&pinned.ran));
	ktest_flag_raise(&h.release);
	task_join(hold);
	task_join(p);
	KTEST_EXPECT_EQ(t, pinned.cpu, HELD_HART);
}

/*
 * A task woken while another hart steals it. The victim marks itself
 * sleeping and is preempted (schedule_preempt) on a hart held by a hog,
 * so it sits queued there, TASK_SLEEPING; an idle hart steals it, and at
 * RACE_SCHED_STEAL - the task off the old queue, t->cpu still the old
 * hart, both queues' locks held - the hook has the waker, on another
 * hart, call wake_up_task and waits until it spins on the old hart's
 * queue lock; at RACE_SCHED_STOLEN (the task the new hart's, the old lock
 * dropped, the task not running yet) the hook waits until the waker
 * spins on the new hart's lock. The waker must follow the task to its new
 * hart (task_rq_lock) and find it there: the task is queued nowhere
 * else, runs once, on one hart, and returns from its sleep only when
 * woken. Taking t->cpu without the second look queues it on the old
 * hart too, where it is not (on_cpu is not set yet).
 */
struct steal_wake {
	struct task *victim;
	int round;	   /* the round the waker woke */
	int stolen_round;  /* the hook fired in this round (atomic) */
	bool hook_armed;   /* one forced steal per round */
	bool stolen_armed; /* the victim's steal is under way */
	bool forced_old;   /* the waker came for the old hart's lock */
	bool forced_new;   /* and then for the new one's */
	bool queued_twice; /* queued again while stolen */
	bool hog_go, hog_stop;
	int victim_cpu, stolen_to;
	int spurious; /* returns from schedule() with no wake-up */
};

static struct steal_wake *sw;

/* Hold the lock this hart holds (marked) until another hart spins on it
 * or @also(@v); bounded. Return: whether another hart came for it. */
static bool hold_until_wanted(struct spinlock *l,
			      bool (*also)(struct task *),
			      struct task *v)
{
	uint64_t until = time_ns() + 2 * NSEC_PER_SEC;

	spin_lock_mark(l);
	while (!spin_lock_wanted(l) && !also(v) && time_ns() < until)
		arch_cpu_relax();
	return spin_lock_wanted(l);
}

static bool never(struct task *v)
{
	(void)v;
	return false;
}

static bool queued(struct task *v)
{
	return READ_ONCE(v->on_rq);
}

/* RACE_SCHED_STEAL: the victim off its old queue, t->cpu still the old
 * hart. Start the waker and hold the old queue's lock until it spins on
 * it. */
static void steal_hook(void *obj)
{
	struct task *v = obj;

	if (v != sw->victim || !READ_ONCE(sw->hook_armed) ||
	    READ_ONCE(v->state) != TASK_SLEEPING)
		return;
	WRITE_ONCE(sw->hook_armed, false);
	WRITE_ONCE(sw->stolen_armed, true);
	__atomic_store_n(&sw->stolen_round, sw->round + 1, __ATOMIC_RELEASE);
	WRITE_ONCE(sw->forced_old,
		   hold_until_wanted(&cpu_rq(v->cpu)->lock, never, v));
}

/* RACE_SCHED_STOLEN: the victim is this hart's now, the old lock free, the
 * victim not running yet. The waker, which had the old lock, must come
 * for this hart's; queueing the victim on the old hart instead is the
 * bug. */
static void stolen_hook(void *obj)
{
	struct task *v = obj;

	if (v != sw->victim || !READ_ONCE(sw->stolen_armed))
		return;
	WRITE_ONCE(sw->stolen_armed, false);
	WRITE_ONCE(sw->forced_new,
		   hold_until_wanted(&cpu_rq(v->cpu)->lock, queued, v));
	WRITE_ONCE(sw->queued_twice, READ_ONCE(v->on_rq));
}

static int steal_hog_fn(void *arg)
{
	uint64_t until = time_ns() + 10 * NSEC_PER_SEC;

	(void)arg;
	while (!READ_ONCE(sw->hog_go)) /* the victim back on the hart */
		task_yield();
	preempt_disable();
	while (!READ_ONCE(sw->hog_stop) && time_ns() < until)
		arch_cpu_relax();
	preempt_enable();
	return 0;
}

static int steal_victim_fn(void *arg)
{
	int round = (int)(uintptr_t)arg;
	struct task *hog;

	sw->victim_cpu = (int)cpu_id();
	/* a hog pinned to this hart, queued ahead of this task */
	if (sw->victim_cpu == WAKER_HART)
		return 1; /* not stolen at its start: no case this round */
	hog = task_create_on("steal_hog", steal_hog_fn, NULL, sw->victim_cpu);
	if (IS_ERR(hog))
		return -1;
	/* The hog's creation preempts this task (the hart's own pinned task
	 * goes first); the hog yields it the hart back until hog_go. */
	if ((int)cpu_id() != sw->victim_cpu || !READ_ONCE(hog->on_rq)) {
		/* stolen meanwhile: no case this round */
		WRITE_ONCE(sw->hog_go, true);
		WRITE_ONCE(sw->hog_stop, true);
		task_join(hog);
		return 1;
	}
	WRITE_ONCE(sw->hook_armed, true);
	WRITE_ONCE(sw->hog_go, true);
	set_current_state(TASK_SLEEPING);
	schedule_preempt(); /* queued behind the hog, still sleeping */
	sw->stolen_to = (int)cpu_id();
	for (;;) {
		set_current_state(TASK_SLEEPING);
		if (__atomic_load_n(&sw->round, __ATOMIC_ACQUIRE) > round)
			break;
		schedule();
		if (__atomic_load_n(&sw->round, __ATOMIC_ACQUIRE) <= round)
			sw->spurious++;
	}
	set_current_state(TASK_RUNNABLE);
	WRITE_ONCE(sw->hog_stop, true);
	task_join(hog);
	return 0;
}

/* The victim was stolen asleep (the hook fired), or ended its round
 * early, or the bound passed: the waker's hart's ticks. */
static bool stolen_or_done(int round, uint64_t start)
{
	return __atomic_load_n(&sw->stolen_round, __ATOMIC_ACQUIRE) > round ||
	       READ_ONCE(sw->victim->state) == TASK_DEAD ||
	       READ_ONCE(this_cpu()->ticks) - start >= BOUND_TICKS;
}

struct steal_result {
	int forced, bad_exit, spurious, not_moved, queued_twice;
};

/* One round, on WAKER_HART: make the victim here (pinned nowhere: an idle
 * hart steals it at its start), wait for the hook, wake it. */
static void steal_wake_round(struct steal_result *res, int r)
{
	struct steal_wake *s = sw;
	uint64_t start;
	int code;

	*s = (struct steal_wake){ .round = r, .stolen_round = r };
	s->victim =
	    task_create("steal_victim", steal_victim_fn, (void *)(uintptr_t)r);
	if (IS_ERR(s->victim)) {
		res->bad_exit++;
		return;
	}
	preempt_disable(); /* this hart stays the waker's */
	start = READ_ONCE(this_cpu()->ticks);
	while (!stolen_or_done(r, start))
		arch_cpu_relax();
	__atomic_store_n(&s->round, r + 1, __ATOMIC_RELEASE);
	wake_up_task(s->victim);
	preempt_enable();
	code = task_join(s->victim);
	res->bad_exit += code < 0;
	res->spurious += s->spurious;
	res->queued_twice += READ_ONCE(s->queued_twice);
	if (code == 0 && READ_ONCE(s->forced_old) && READ_ONCE(s->forced_new)) {
		res->forced++;
		res->not_moved += s->stolen_to == s->victim_cpu;
	}
}

static int steal_waker_fn(void *arg)
{
	struct steal_result *res = arg;

	for (int r = 0; r < 40 && res->forced < 5; r++)
		steal_wake_round(res, r);
	return 0;
}

static void woken_while_stolen_runs_once(struct ktest *t)
{
	static struct steal_wake state;
	struct steal_result res = { 0 };
	struct task *w;

	KTEST_ASSERT_GE(t, ncpus, 3);
	sw = &state;
	race_hook_set(RACE_SCHED_STEAL, steal_hook);
	race_hook_set(RACE_SCHED_STOLEN, stolen_hook);
	w = task_create_on("steal_waker", steal_waker_fn, &res, WAKER_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(w));
	task_join(w);
	race_hook_set(RACE_SCHED_STEAL, NULL);
	race_hook_set(RACE_SCHED_STOLEN, NULL);
	ktest_log(t, "%d forced steals", res.forced);
	KTEST_EXPECT_GE(t, res.forced, 1);
	KTEST_EXPECT_EQ(t, res.bad_exit, 0);
	KTEST_EXPECT_EQ(t, res.spurious, 0);
	KTEST_EXPECT_EQ(t, res.not_moved, 0);
	KTEST_EXPECT_EQ(t, res.queued_twice, 0);
}

static struct ktest_case steal_cases[] = {
	KTEST_CASE(queued_on_a_busy_hart_run_elsewhere),
	KTEST_CASE(idle_hart_takes_queued_task),
	KTEST_CASE(pinned_task_is_not_stolen),
	KTEST_CASE(woken_while_stolen_runs_once),
	{},
};
KTEST_SUITE(sched_steal, steal_cases);

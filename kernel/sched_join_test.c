/*
 * kernel/sched_join_test.c: suite sched_join - a joined task is not freed
 * while the hart that switched away from it still uses it, and is freed
 * by the time task_join returns.
 *
 * The interleaving is forced: the victim's last switch stops at
 * RACE_TASK_EXIT_WAKE (off the cpu, its hart's queue lock dropped, joiners
 * not yet woken, the exited queue's lock held) and only then lets the
 * joiner, on another hart, call task_join; it holds until the joiner has
 * come for that lock (spin_lock_wanted) or task_join has returned, and looks
 * whether the task is still registered (a freed task leaves the task
 * list first). Before tasks were reference counted, task_join returned
 * there, having freed the task, and finish_switch went on to wake a freed
 * wait queue. (Before, the hold waited up to a second for the joiner to
 * start and then 50 ms for the join to return: a host that did not run
 * the joiner's hart that long failed the case or hid the bug.)
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>

#define EXIT_CODE 42

struct join_race {
	struct task *victim;
	bool go;	/* r.victim is set: the victim may exit */
	bool in_window; /* the victim's last switch is at the race point */
	bool joining;	/* the joiner is calling task_join */
	bool joined;	/* task_join(victim) returned */
	bool hook_ran;
	bool at_lock; /* the joiner came for the exited queue's lock */
	bool joining_in_window, joined_in_window;
	bool registered; /* set by find_task */
};

static struct join_race *race;

static void find_task(struct task *t, void *arg)
{
	struct join_race *r = arg;

	if (t == r->victim)
		r->registered = true;
}

static bool victim_registered(struct join_race *r)
{
	r->registered = false;
	task_for_each(find_task, r);
	return r->registered;
}

static bool joined(struct join_race *r)
{
	return __atomic_load_n(&r->joined, __ATOMIC_ACQUIRE);
}

/* RACE_TIMEOUT_MS only bounds a broken run: the hold ends when the
 * joiner has come for the lock or its join has returned. */
static void hold_exit_wake(void *obj)
{
	struct join_race *r = race;
	struct task *victim = obj;
	uint64_t end = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
	bool locked;

	if (!r || victim != READ_ONCE(r->victim))
		return;
	r->hook_ran = true;
	locked = spin_lock_held(&victim->exited.lock);
	if (locked) /* before in_window: the joiner is not at the lock yet */
		spin_lock_mark(&victim->exited.lock);
	__atomic_store_n(&r->in_window, true, __ATOMIC_RELEASE);
	while (!joined(r) &&
	       !(locked && spin_lock_wanted(&victim->exited.lock)) &&
	       time_ns() < end)
		arch_cpu_relax();
	r->at_lock = locked && spin_lock_wanted(&victim->exited.lock);
	r->joined_in_window = joined(r);
	r->joining_in_window = __atomic_load_n(&r->joining, __ATOMIC_ACQUIRE);
}

static int victim(void *arg)
{
	struct join_race *r = arg;

	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	return EXIT_CODE;
}

static int joiner(void *arg)
{
	struct join_race *r = arg;
	int code;

	while (!__atomic_load_n(&r->in_window, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	__atomic_store_n(&r->joining, true, __ATOMIC_RELEASE);
	code = task_join(r->victim);
	__atomic_store_n(&r->joined, true, __ATOMIC_RELEASE);
	return code;
}

static void join_during_last_switch(struct ktest *t)
{
	struct join_race r = { 0 };
	struct task *j;

	KTEST_ASSERT_GE(t, ncpus, 2);
	race = &r;
	race_hook_set(RACE_TASK_EXIT_WAKE, hold_exit_wake);
	j = task_create_on("joiner", joiner, &r, 1);
	KTEST_ASSERT_FALSE(t, IS_ERR(j));
	r.victim = task_create_on("victim", victim, &r, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(r.victim));
	__atomic_store_n(&r.go, true, __ATOMIC_RELEASE);
	KTEST_EXPECT_EQ(t, task_join(j), EXIT_CODE);
	race_hook_set(RACE_TASK_EXIT_WAKE, NULL);
	race = NULL;
	KTEST_EXPECT_TRUE(t, r.hook_ran);
	/* The joiner was in task_join during the hold, and did not return
	 * (and free the task) before the last switch was done with it. */
	KTEST_EXPECT_TRUE(t, r.joining_in_window);
	KTEST_EXPECT_TRUE(t, r.at_lock || r.joined_in_window);
	KTEST_EXPECT_FALSE(t, r.joined_in_window);
	/* Once task_join returned, the task is freed. */
	KTEST_EXPECT_FALSE(t, victim_registered(&r));
}

static struct ktest_case join_cases[] = {
	KTEST_CASE(join_during_last_switch),
	{},
};
KTEST_SUITE(sched_join, join_cases);

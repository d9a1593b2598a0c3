/*
 * kernel/wait_test.c: suite locks_completion - a completion may live on its
 * waiter's stack: when wait_for_completion returns, complete() is done with
 * it (kernel/wait.c).
 *
 * The interleaving is forced: the waker stops at RACE_COMPLETE_WAKE (count
 * taken, waiters not yet woken) and only then lets the waiter, pinned to
 * another hart, call wait_for_completion; it holds there until the waiter
 * has come for the completion's lock (spin_lock_wanted) or has returned.
 * Had complete() dropped the lock before waking, the waiter would see the
 * count and return (its frame, and the completion with it, gone) while
 * the waker still had to touch the completion. (Before, the waker waited
 * 50 ms for the waiter to return: a waiter whose hart the host did not run
 * that long let the bug pass.)
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/wait.h>

struct complete_race {
	struct completion *c; /* the waiter's, on its stack */
	bool go;	      /* waker is inside complete(): wait now */
	bool returned;	      /* wait_for_completion returned */
	bool hook_ran;
	bool at_lock;		   /* the waiter came for the lock meanwhile */
	bool returned_in_complete; /* the bug */
};

static struct complete_race *race;

static bool waiter_returned(struct complete_race *r)
{
	return __atomic_load_n(&r->returned, __ATOMIC_ACQUIRE);
}

/* RACE_TIMEOUT_MS only bounds a broken run: the hold ends when the
 * waiter has come for the lock or has returned. */
static void hold_in_complete(void *obj)
{
	struct complete_race *r = race;
	struct completion *c = obj;
	uint64_t end = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
	bool locked;

	if (!r || c != READ_ONCE(r->c))
		return;
	r->hook_ran = true;
	locked = spin_lock_held(&c->wq.lock);
	if (locked) /* before go: the waiter is not at the lock yet */
		spin_lock_mark(&c->wq.lock);
	__atomic_store_n(&r->go, true, __ATOMIC_RELEASE);
	while (!waiter_returned(r) &&
	       !(locked && spin_lock_wanted(&c->wq.lock)) && time_ns() < end)
		arch_cpu_relax();
	r->at_lock = locked && spin_lock_wanted(&c->wq.lock);
	r->returned_in_complete = waiter_returned(r);
}

static int waiter(void *arg)
{
	struct complete_race *r = arg;
	struct completion c;

	init_completion(&c);
	__atomic_store_n(&r->c, &c, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	wait_for_completion(&c);
	__atomic_store_n(&r->returned, true, __ATOMIC_RELEASE);
	return 0;
}

static int waker(void *arg)
{
	struct complete_race *r = arg;
	struct completion *c;

	while (!(c = __atomic_load_n(&r->c, __ATOMIC_ACQUIRE)))
		task_yield();
	complete(c);
	return 0;
}

static void stack_completion_outlives_complete(struct ktest *t)
{
	struct complete_race r = { 0 };
	struct task *w, *k;

	KTEST_ASSERT_GE(t, ncpus, 2);
	race = &r;
	race_hook_set(RACE_COMPLETE_WAKE, hold_in_complete);
	w = task_create_on("cwaiter", waiter, &r, 1);
	KTEST_ASSERT_FALSE(t, IS_ERR(w));
	k = task_create_on("cwaker", waker, &r, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(k));
	/* The waiter first: had it returned early, its stack goes now, and
	 * the waker faults on the completion it still uses. */
	KTEST_EXPECT_EQ(t, task_join(w), 0);
	KTEST_EXPECT_EQ(t, task_join(k), 0);
	race_hook_set(RACE_COMPLETE_WAKE, NULL);
	race = NULL;
	KTEST_EXPECT_TRUE(t, r.hook_ran);
	KTEST_EXPECT_TRUE(t, r.at_lock || r.returned_in_complete);
	KTEST_EXPECT_TRUE(t, r.returned);
	KTEST_EXPECT_FALSE(t, r.returned_in_complete);
}

static struct ktest_case completion_cases[] = {
	KTEST_CASE(stack_completion_outlives_complete),
	{},
};
KTEST_SUITE(locks_completion, completion_cases);

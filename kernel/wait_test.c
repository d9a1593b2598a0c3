/*
 * kernel/wait_test.c: suite locks_completion - a completion may live on its
 * waiter's stack: when wait_for_completion returns, complete() is done with
 * it (kernel/wait.c).
 *
 * The interleaving is forced: the waker stops at RACE_COMPLETE_WAKE (count
 * taken, waiters not yet woken) and only then lets the waiter, pinned to
 * another hart, call wait_for_completion; it waits up to HOLD_NS for the
 * waiter to return. Had complete() dropped the lock before waking, the
 * waiter would see the count and return (its frame, and the completion
 * with it, gone) while the waker still had to touch the completion.
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/wait.h>

#define HOLD_NS (50 * NSEC_PER_MSEC)

struct complete_race {
	struct completion *c; /* the waiter's, on its stack */
	bool go;	      /* waker is inside complete(): wait now */
	bool returned;	      /* wait_for_completion returned */
	bool hook_ran;
	bool returned_in_complete; /* the bug */
};

static struct complete_race *race;

static void hold_in_complete(void *obj)
{
	struct complete_race *r = race;
	uint64_t end = time_ns() + HOLD_NS;

	if (!r || obj != READ_ONCE(r->c))
		return;
	r->hook_ran = true;
	__atomic_store_n(&r->go, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->returned, __ATOMIC_ACQUIRE) &&
	       time_ns() < end)
		arch_cpu_relax();
	r->returned_in_complete =
	    __atomic_load_n(&r->returned, __ATOMIC_ACQUIRE);
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
	KTEST_EXPECT_EQ(t, task_join(k), 0);
	KTEST_EXPECT_EQ(t, task_join(w), 0);
	race_hook_set(RACE_COMPLETE_WAKE, NULL);
	race = NULL;
	KTEST_EXPECT_TRUE(t, r.hook_ran);
	KTEST_EXPECT_TRUE(t, r.returned);
	KTEST_EXPECT_FALSE(t, r.returned_in_complete);
}

static struct ktest_case completion_cases[] = {
	KTEST_CASE(stack_completion_outlives_complete),
	{},
};
KTEST_SUITE(locks_completion, completion_cases);

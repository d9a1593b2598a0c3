/*
 * kernel/ktest_overlap_test.c: suite ktest_overlap - the overlap recorder
 * of <kernel/ktest.h> that the concurrency cases wait in.
 *
 * ktest_overlap_enter_all once waited for all workers to be inside at
 * the same moment of its own look: a worker that saw them all, did its
 * work and left before a slower one looked again left that one waiting
 * RACE_TIMEOUT_MS and its case failing (.max was right, the wait's
 * answer wrong). It showed on aarch64 under TCG, whose harts the host
 * runs unevenly: mm_vm's harts_map_stacks_concurrently stalled 30 s. The
 * case here forces that order on one hart.
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>

struct late_look {
	struct ktest_overlap o;
	bool slow_came, quick_came;
};

/* Enters first and yields while the other is not there. */
static int slow_worker(void *arg)
{
	struct late_look *l = arg;

	l->slow_came = ktest_overlap_enter_all(&l->o, 2);
	ktest_overlap_exit(&l->o);
	return 0;
}

/* Once the slow one is inside: enters, finds both there and leaves
 * before its hart may switch back to the slow one. */
static int quick_worker(void *arg)
{
	struct late_look *l = arg;

	while (!__atomic_load_n(&l->o.inside, __ATOMIC_SEQ_CST))
		task_yield();
	preempt_disable();
	l->quick_came = ktest_overlap_enter_all(&l->o, 2);
	ktest_overlap_exit(&l->o);
	preempt_enable();
	return 0;
}

/* Both workers on the last hart, the slow one queued first: when the
 * slow one looks again, the quick one has come and gone. Both came. */
static void late_look_sees_all_came(struct ktest *t)
{
	struct late_look l = { { 0, 0 }, false, false };
	int cpu = (int)ncpus - 1;
	struct task *slow, *quick;

	slow = task_create_on("ovl_slow", slow_worker, &l, cpu);
	KTEST_ASSERT_FALSE(t, IS_ERR(slow));
	quick = task_create_on("ovl_quick", quick_worker, &l, cpu);
	KTEST_ASSERT_FALSE(t, IS_ERR(quick));
	task_join(quick);
	task_join(slow);
	KTEST_EXPECT_EQ(t, l.o.max, 2u);
	KTEST_EXPECT_EQ(t, l.o.inside, 0u);
	KTEST_EXPECT_TRUE(t, l.quick_came);
	KTEST_EXPECT_TRUE(t, l.slow_came);
}

static struct ktest_case overlap_cases[] = {
	KTEST_CASE(late_look_sees_all_came),
	{},
};
KTEST_SUITE(ktest_overlap, overlap_cases);

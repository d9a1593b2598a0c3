/*
 * mm/mm_test.h: helpers shared by the mm test suites (tests only).
 *
 *   failures = mm_test_on_every_hart(t, "name", fn, args, sizeof(args[0]));
 *
 * starts fn(&args[i]) pinned to hart i for every online hart, joins them
 * all and returns how many did not return 0 (a killed task counts). Each
 * task waits, before it calls fn, until every one is there
 * (ktest_overlap_enter_all): the calls overlap however the host runs the
 * harts, and the case fails if they did not all come.
 *
 *   mm_test_alone(t, fn, arg);
 *
 * runs fn(arg) on hart 0 with interrupts off while every other hart spins
 * with interrupts off, so that nothing else in the kernel runs meanwhile:
 * fn sees the allocator exactly as it leaves it. fn must not sleep (use
 * GFP_ATOMIC) and should be short.
 * test_rand() is a xorshift generator for patterns and random sizes.
 */
#pragma once

#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>

struct mm_hart_run {
	int (*fn)(void *);
	void *arg;
	struct ktest_overlap *overlap;
};

static inline int mm_test_hart_main(void *p)
{
	struct mm_hart_run *r = p;
	int ret;

	ktest_overlap_enter_all(r->overlap, ncpus);
	ret = r->fn(r->arg);
	ktest_overlap_exit(r->overlap);
	return ret;
}

static inline int mm_test_on_every_hart(struct ktest *t,
					const char *name,
					int (*fn)(void *),
					void *args,
					size_t arg_size)
{
	struct mm_hart_run runs[MAX_CPUS];
	struct task *tasks[MAX_CPUS];
	struct ktest_overlap overlap = { 0, 0 };
	int failures = 0;

	for (unsigned int c = 0; c < ncpus; c++) {
		runs[c] = (struct mm_hart_run){ fn,
						(char *)args + c * arg_size,
						&overlap };
		tasks[c] =
		    task_create_on(name, mm_test_hart_main, &runs[c], (int)c);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[c]));
	}
	for (unsigned int c = 0; c < ncpus; c++)
		failures += task_join(tasks[c]) != 0;
	KTEST_EXPECT_EQ(t, overlap.max, ncpus); /* all ran together */
	return failures;
}

static inline uint64_t test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

struct mm_test_quiet {
	void (*fn)(void *arg);
	void *arg;
	unsigned int arrived; /* harts spinning, atomic */
	bool released;	      /* atomic */
};

static inline int mm_test_quiet_spin(void *arg)
{
	struct mm_test_quiet *q = arg;
	unsigned long flags = arch_irq_save();

	__atomic_add_fetch(&q->arrived, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&q->released, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	arch_irq_restore(flags);
	return 0;
}

static inline int mm_test_quiet_run(void *arg)
{
	struct mm_test_quiet *q = arg;
	unsigned long flags;

	while (__atomic_load_n(&q->arrived, __ATOMIC_ACQUIRE) + 1 < ncpus)
		task_yield();
	flags = arch_irq_save();
	q->fn(q->arg);
	__atomic_store_n(&q->released, true, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
	return 0;
}

static inline void
mm_test_alone(struct ktest *t, void (*fn)(void *arg), void *arg)
{
	struct mm_test_quiet q = { .fn = fn, .arg = arg };
	struct task *tasks[MAX_CPUS];

	for (unsigned int c = 0; c < ncpus; c++) {
		tasks[c] =
		    task_create_on("mm_alone",
				   c ? mm_test_quiet_spin : mm_test_quiet_run,
				   &q,
				   (int)c);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[c]));
	}
	for (unsigned int c = 0; c < ncpus; c++)
		task_join(tasks[c]);
}

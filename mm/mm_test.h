/*
 * mm/mm_test.h: helpers shared by the mm test suites (tests only).
 *
 *   failures = mm_test_on_every_hart(t, "name", fn, args, sizeof(args[0]));
 *
 * starts fn(&args[i]) pinned to hart i for every online hart, joins them
 * all and returns how many did not return 0 (a killed task counts).
 * test_rand() is a xorshift generator for patterns and random sizes.
 */
#pragma once

#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>

static inline int mm_test_on_every_hart(struct ktest *t,
					const char *name,
					int (*fn)(void *),
					void *args,
					size_t arg_size)
{
	struct task *tasks[MAX_CPUS];
	int failures = 0;

	for (unsigned int c = 0; c < ncpus; c++) {
		tasks[c] = task_create_on(
		    name, fn, (char *)args + c * arg_size, (int)c);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[c]));
	}
	for (unsigned int c = 0; c < ncpus; c++)
		failures += task_join(tasks[c]) != 0;
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

/*
 * kernel/trap_test.c: suite traps - a task that faults is reported and
 * killed, and the kernel goes on running tasks.
 */
#include <kernel/arch.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/err.h>

/* An address the compiler cannot see through. */
static volatile uintptr_t null_address = 16;

static int store_to_null(void *arg)
{
	(void)arg;
	*(volatile int *)null_address = 1;
	return 0;
}

static int illegal_instruction(void *arg)
{
	(void)arg;
	arch_execute_illegal_instruction();
	return 0;
}

static int load_unmapped(void *arg)
{
	(void)arg;
	return *(volatile int *)(null_address + 0x4000000000UL);
}

static int fine(void *arg)
{
	(void)arg;
	return 42;
}

static int run(int (*fn)(void *))
{
	struct task *task = task_create("victim", fn, NULL);
	return IS_ERR(task) ? -1 : task_join(task);
}

static void faulting_task_is_killed(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, run(store_to_null), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, run(fine), 42);
}

static void illegal_instruction_is_killed(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, run(illegal_instruction), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, run(fine), 42);
}

static void unmapped_load_is_killed(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, run(load_unmapped), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, run(fine), 42);
}

static struct ktest_case trap_cases[] = {
	KTEST_CASE(faulting_task_is_killed),
	KTEST_CASE(illegal_instruction_is_killed),
	KTEST_CASE(unmapped_load_is_killed),
	{},
};
KTEST_SUITE(traps, trap_cases);

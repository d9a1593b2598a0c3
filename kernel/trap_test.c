/*
 * kernel/trap_test.c: suite traps - a task that faults is reported and
 * killed, and the kernel goes on running tasks; a copy made with faults
 * off (arch_copy_nofault) stops at the fault and says what is left.
 */
#include <string.h>
#include <kernel/arch.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/err.h>
#include <mm/page_alloc.h>
#include <mm/vm.h>

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

/* The fault ends the copy, not the task: what came before it is copied,
 * the rest is counted. The source runs off the top of a stack (the next
 * slot starts unmapped): 16 bytes by words, 13 bytes by bytes. */
static void copy_nofault_stops_at_the_fault(struct ktest *t)
{
	char *stack = vm_alloc_stack(PAGE_SIZE), *top, dst[64];

	KTEST_ASSERT_NOT_NULL(t, stack);
	top = stack + PAGE_SIZE;
	memset(stack, 'x', PAGE_SIZE);
	memset(dst, 0, sizeof(dst));
	KTEST_EXPECT_EQ(t, arch_copy_nofault(dst, top - 16, 40), 24);
	KTEST_EXPECT_EQ(t, dst[15], 'x');
	KTEST_EXPECT_EQ(t, dst[16], 0);
	memset(dst, 0, sizeof(dst));
	KTEST_EXPECT_EQ(t, arch_copy_nofault(dst + 1, top - 13, 20), 7);
	KTEST_EXPECT_EQ(t, dst[13], 'x');
	KTEST_EXPECT_EQ(t, dst[14], 0);
	KTEST_EXPECT_EQ(
	    t,
	    arch_copy_nofault(dst, (void *)(null_address + 0x4000000000UL), 8),
	    8);
	vm_free_stack(stack, PAGE_SIZE);
}

static struct ktest_case trap_cases[] = {
	KTEST_CASE(faulting_task_is_killed),
	KTEST_CASE(illegal_instruction_is_killed),
	KTEST_CASE(unmapped_load_is_killed),
	KTEST_CASE(copy_nofault_stops_at_the_fault),
	{},
};
KTEST_SUITE(traps, trap_cases);

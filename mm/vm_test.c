/*
 * mm/vm_test.c: suite mm_vm - the page table enforces the kernel's
 * permissions (text and rodata are not writable, data is not executable),
 * a stack overflow hits the guard page and kills only its task, and stacks
 * are mapped, usable from any hart, unmapped and reused.
 */
#include <kernel/arch.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include <mm/mm_test.h>
#include <mm/vm.h>

#define STACK_SIZE (16 * 1024)

static const int read_only_value = 42;

static int run(int (*fn)(void *), void *arg)
{
	struct task *task = task_create("victim", fn, arg);

	return IS_ERR(task) ? -1 : task_join(task);
}

static int write_to_text(void *arg)
{
	volatile uint32_t *insn = (volatile uint32_t *)(uintptr_t)write_to_text;

	(void)arg;
	*insn = *insn; /* the load succeeds, the store must fault */
	return 0;
}

static int write_to_rodata(void *arg)
{
	(void)arg;
	*(volatile int *)&read_only_value = 1;
	return 0;
}

static int execute_heap(void *arg)
{
	void *code = arg;

	arch_write_return_stub(code);
	((void (*)(void))code)();
	return 0;
}

static int fine(void *arg)
{
	return (int)(uintptr_t)arg;
}

static void text_and_rodata_are_read_only(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, run(write_to_text, NULL), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, run(write_to_rodata, NULL), TASK_EXIT_KILLED);
	/* Read the memory, not the constant the compiler knows: the store
	 * above must not have landed. */
	KTEST_EXPECT_EQ(t, *(volatile const int *)&read_only_value, 42);
	KTEST_EXPECT_EQ(t, run(fine, (void *)7), 7);
}

static void data_is_not_executable(struct ktest *t)
{
	void *code = kmalloc(64, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, code);
	KTEST_EXPECT_EQ(t, run(execute_heap, code), TASK_EXIT_KILLED);
	kfree(code);
}

/* Far deeper than any stack: the compiler cannot prove it ends, nor
 * that it does not. */
static volatile int recursion_limit = 1 << 30;

static int recurse(int depth)
{
	volatile char frame[256];

	frame[0] = (char)depth;
	if (depth >= recursion_limit)
		return 0;
	return recurse(depth + 1) + frame[0];
}

static int overflow_stack(void *arg)
{
	(void)arg;
	return recurse(0);
}

static void stack_overflow_kills_task(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, run(overflow_stack, NULL), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, run(fine, (void *)5), 5);
}

static void stack_has_guard_and_is_reused(struct ktest *t)
{
	unsigned long start = pages_free();
	char *stack = vm_alloc_stack(STACK_SIZE), *again;

	KTEST_ASSERT_NOT_NULL(t, stack);
	for (size_t i = 0; i < STACK_SIZE; i++)
		stack[i] = (char)i;
	KTEST_EXPECT_EQ(t, stack[STACK_SIZE - 1], (char)(STACK_SIZE - 1));
	KTEST_EXPECT_TRUE(t, vm_is_stack_guard((uintptr_t)stack - 1));
	KTEST_EXPECT_TRUE(t, vm_is_stack_guard((uintptr_t)stack - PAGE_SIZE));
	KTEST_EXPECT_FALSE(t, vm_is_stack_guard((uintptr_t)stack));
	KTEST_EXPECT_FALSE(
	    t, vm_is_stack_guard((uintptr_t)stack + STACK_SIZE - 1));
	KTEST_EXPECT_FALSE(t, vm_is_stack_guard((uintptr_t)&start));
	KTEST_EXPECT_LT(t, pages_free(), start);
	vm_free_stack(stack, STACK_SIZE);
	KTEST_EXPECT_FALSE(t, vm_is_stack_guard((uintptr_t)stack - 1));
	again = vm_alloc_stack(STACK_SIZE);
	KTEST_EXPECT_TRUE(t, again == stack);
	vm_free_stack(again, STACK_SIZE);
	KTEST_EXPECT_EQ(t, pages_free(), start);
}

static int touch(void *arg)
{
	return *(volatile char *)arg;
}

static int run_on(int cpu, int (*fn)(void *), void *arg)
{
	struct task *task = task_create_on("victim", fn, arg, cpu);

	return IS_ERR(task) ? -1 : task_join(task);
}

/* A hart that used a stack page must not reach it through a stale TLB
 * entry once the stack is freed. The slot is taken again at once by a
 * one-page stack, so the victim task cannot be given the old pages. */
static void freed_stack_is_unmapped(struct ktest *t)
{
	for (unsigned int c = 0; c < ncpus; c++) {
		char *stack = vm_alloc_stack(STACK_SIZE), *top;

		KTEST_ASSERT_NOT_NULL(t, stack);
		stack[100] = 9;
		KTEST_EXPECT_EQ(t, run_on((int)c, touch, stack + 100), 9);
		vm_free_stack(stack, STACK_SIZE);
		top = vm_alloc_stack(PAGE_SIZE);
		KTEST_ASSERT_TRUE(t, top == stack + STACK_SIZE - PAGE_SIZE);
		KTEST_EXPECT_TRUE(t, vm_is_stack_guard((uintptr_t)stack + 100));
		KTEST_EXPECT_EQ(
		    t, run_on((int)c, touch, stack + 100), TASK_EXIT_KILLED);
		vm_free_stack(top, PAGE_SIZE);
	}
}

#define STACKS 8

/* Each hart maps stacks and fills them; any hart may have cached the
 * unmapped entries first, which the spurious-fault path must absorb. */
static int stacks_on_hart(void *arg)
{
	char *stacks[STACKS];
	int bad = 0;

	(void)arg;
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < STACKS; i++) {
			stacks[i] = vm_alloc_stack(STACK_SIZE);
			if (!stacks[i])
				return -1;
			for (size_t b = 0; b < STACK_SIZE; b += 512)
				stacks[i][b] = (char)(i + round);
		}
		for (int i = 0; i < STACKS; i++) {
			for (size_t b = 0; b < STACK_SIZE; b += 512)
				bad += stacks[i][b] != (char)(i + round);
			vm_free_stack(stacks[i], STACK_SIZE);
		}
	}
	return bad;
}

static void harts_map_stacks_concurrently(struct ktest *t)
{
	unsigned long start = pages_free(), tables = vm_page_table_pages();

	KTEST_EXPECT_EQ(
	    t, mm_test_on_every_hart(t, "stacks", stacks_on_hart, NULL, 0), 0);
	/* new slots may have needed new page tables, which stay */
	KTEST_EXPECT_EQ(
	    t, pages_free() + (vm_page_table_pages() - tables), start);
}

static struct ktest_case vm_cases[] = {
	KTEST_CASE(text_and_rodata_are_read_only),
	KTEST_CASE(data_is_not_executable),
	KTEST_CASE(stack_overflow_kills_task),
	KTEST_CASE(stack_has_guard_and_is_reused),
	KTEST_CASE(freed_stack_is_unmapped),
	KTEST_CASE(harts_map_stacks_concurrently),
	{},
};
KTEST_SUITE(mm_vm, vm_cases);

/*
 * kernel/printk_test.c: suite printk_lines - tasks on every hart print at
 * once; each line must reach the console whole. The boot "printk" of
 * tools/boots.py checks the console afterwards: every line from every
 * task, each intact, none mixed with another.
 */
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/printk.h>
#include <kernel/sched.h>

#define LINES_PER_TASK 200
#define PAYLOAD	       "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

static struct ktest_overlap chatting; /* tasks printing at once */

static int chatter(void *arg)
{
	int id = (int)(uintptr_t)arg;

	ktest_overlap_enter(&chatting);
	for (int i = 0; i < LINES_PER_TASK; i++)
		pr_info("printk-test task=%d seq=%d %s end\n", id, i, PAYLOAD);
	ktest_overlap_exit(&chatting);
	return 0;
}

static void lines_from_all_harts(struct ktest *t)
{
	struct task *tasks[MAX_CPUS];

	for (unsigned int c = 0; c < ncpus; c++) {
		tasks[c] = task_create_on(
		    "chatter", chatter, (void *)(uintptr_t)c, (int)c);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[c]));
	}
	for (unsigned int c = 0; c < ncpus; c++)
		KTEST_EXPECT_EQ(t, task_join(tasks[c]), 0);
	/* Lines can only be cut or mixed if tasks printed at the same time. */
	KTEST_EXPECT_GE(t, chatting.max, 2);
	ktest_log(t, "printk-test tasks=%u lines=%d", ncpus, LINES_PER_TASK);
}

static struct ktest_case printk_cases[] = {
	KTEST_CASE(lines_from_all_harts),
	{},
};
KTEST_SUITE(printk_lines, printk_cases);

/*
 * kernel/printk_test.c: suite printk_lines - tasks on every hart print at
 * once; each line must reach the console whole. The boot "printk" of
 * tools/boots.py checks the console afterwards: every line from every
 * task, each intact, none mixed with another.
 *
 * Suite printk_cut - a line longer than the console's line buffer keeps its
 * start and ends with a mark saying how many bytes were cut (the console
 * output is captured at console_putc to check it); and output made while
 * no console is registered waits for the next one, its overflow counted.
 */
#include <stdio.h>
#include <string.h>
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

	ktest_overlap_enter_all(&chatting, ncpus);
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
	/* Lines can only be cut or mixed if tasks printed at the same time:
	 * all were printing together. */
	KTEST_EXPECT_EQ(t, chatting.max, ncpus);
	ktest_log(t, "printk-test tasks=%u lines=%d", ncpus, LINES_PER_TASK);
}

static struct ktest_case printk_cases[] = {
	KTEST_CASE(lines_from_all_harts),
	{},
};
KTEST_SUITE(printk_lines, printk_cases);

#define CUT_PAYLOAD 1000
/* Starts with '[' so the KTAP runner takes the line for a log line. */
#define CUT_TAG "[cut-test] "

static char captured[CONSOLE_EARLY_MAX + 2 * CONSOLE_LINE_MAX];
static size_t ncaptured;
static void (*real_putc)(char c);

static void capture_putc(char c)
{
	if (ncaptured < sizeof(captured) - 1)
		captured[ncaptured++] = c;
	real_putc(c);
}

/*
 * Check the captured line that holds CUT_TAG: from @line_start it must
 * fit in CONSOLE_LINE_MAX - 1 bytes (the console adds a '\r' before the
 * newline) and end with " [... N bytes cut]\n" where the bytes kept plus N
 * are the @whole length the line would have had.
 */
static void expect_cut(struct ktest *t, const char *line_start, size_t whole)
{
	const char *mark = strstr(line_start, " [... "), *payload;
	size_t cut = 0, kept;
	char tail[32];

	KTEST_ASSERT_NOT_NULL(t, mark);
	kept = mark - line_start;
	KTEST_EXPECT_EQ(t, sscanf(mark, " [... %zu bytes cut]", &cut), 1);
	KTEST_EXPECT_EQ(t, kept + cut, whole);
	snprintf(tail, sizeof(tail), " [... %zu bytes cut]\r\n", cut);
	KTEST_EXPECT_EQ(t, strncmp(mark, tail, strlen(tail)), 0);
	KTEST_EXPECT_LE(t, kept + strlen(tail) - 1, CONSOLE_LINE_MAX - 1);
	/* What was kept is the line's start, unchanged. */
	payload = strstr(line_start, CUT_TAG) + strlen(CUT_TAG);
	KTEST_EXPECT_EQ(t, strspn(payload, "x"), kept - (payload - line_start));
}

static void capture_begin(void)
{
	ncaptured = 0;
	real_putc = console_putc;
	console_putc = capture_putc;
}

static void capture_end(void)
{
	console_putc = real_putc;
	captured[ncaptured] = '\0';
}

static void long_lines_mark_the_cut(struct ktest *t)
{
	static char payload[CUT_PAYLOAD + 1];
	const char *line, *start;

	memset(payload, 'x', CUT_PAYLOAD);
	capture_begin();
	console_printf(CUT_TAG "%s end\n", payload);
	capture_end();
	line = strstr(captured, CUT_TAG);
	KTEST_ASSERT_NOT_NULL(t, line);
	expect_cut(t, line, strlen(CUT_TAG) + CUT_PAYLOAD + strlen(" end\n"));

	capture_begin();
	pr_warn(CUT_TAG "%s end\n", payload);
	capture_end();
	line = strstr(captured, CUT_TAG);
	KTEST_ASSERT_NOT_NULL(t, line);
	/* The timestamp "[    1.234567] " comes first. */
	for (start = line - 1; start > captured && *start != '['; start--)
		;
	KTEST_ASSERT_EQ(t, *start, '[');
	expect_cut(t,
		   start,
		   (line - start) + strlen(CUT_TAG) + CUT_PAYLOAD +
		       strlen(" end\n"));
}

#define EARLY_TAG  "[early-test] "
#define EARLY_OVER 100 /* bytes past what is kept */

/* Output while no console is registered waits for the next one: the first
 * CONSOLE_EARLY_MAX bytes, then a line counting the rest. */
static void early_output_waits_for_the_console(struct ktest *t)
{
	static const char mark[] = "[... 100 bytes of early output lost]\r\n";
	size_t tag = strlen(EARLY_TAG),
	       ys = CONSOLE_EARLY_MAX + EARLY_OVER - tag;
	char y[64];

	memset(y, 'y', sizeof(y));
	real_putc = console_unregister();
	console_write(EARLY_TAG, tag);
	for (size_t n = 0; n < ys; n += MIN(sizeof(y), ys - n))
		console_write(y, MIN(sizeof(y), ys - n));
	ncaptured = 0;
	console_register(capture_putc); /* writes what waited */
	console_register(real_putc);
	captured[ncaptured] = '\0';
	KTEST_EXPECT_EQ(t, ncaptured, CONSOLE_EARLY_MAX + strlen(mark));
	KTEST_EXPECT_EQ(t, strncmp(captured, EARLY_TAG, tag), 0);
	KTEST_EXPECT_EQ(
	    t, strspn(captured + tag, "y"), CONSOLE_EARLY_MAX - tag);
	KTEST_EXPECT_STREQ(t, captured + CONSOLE_EARLY_MAX, mark);
}

static struct ktest_case printk_cut_cases[] = {
	KTEST_CASE(long_lines_mark_the_cut),
	KTEST_CASE(early_output_waits_for_the_console),
	{},
};
KTEST_SUITE(printk_cut, printk_cut_cases);

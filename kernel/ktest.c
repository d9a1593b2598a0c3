/*
 * kernel/ktest.c: runs suites and prints KTAP v1.
 *
 * Output shape (subtests indented four spaces, as KUnit does):
 *   KTAP version 1
 *   1..S
 *       KTAP version 1
 *       # Subtest: suite
 *       1..C
 *       # case: EXPECTATION FAILED at file:line
 *       not ok 1 case
 *       ok 2 other_case
 *   not ok 1 suite
 * Diagnostics of a case are printed as it runs, before its result line.
 * KTAP lines go straight to the console, without printk's time prefix, so
 * the host runner can tell them from log lines.
 *
 * Boot argument ktest.cases=GLOBS (the filter's syntax, over case names)
 * narrows every suite to the cases it matches, numbered and planned as if
 * they were all the suite has: a short boot for a few cases (tools/lab
 * grades with it).
 */
#include <stdarg.h>
#include <kernel/ktest.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/bootargs.h>
#include <kernel/wait.h>
#include <kernel/err.h>

extern const struct ktest_suite __ktest_suites_start[], __ktest_suites_end[];

#define KTEST_ABORTED 0x4b54 /* exit code of a case ended by ASSERT */

/* Does @s match the glob from @p to @end ('*', '?')? */
static bool glob_match_n(const char *p, const char *end, const char *s)
{
	if (p == end)
		return !*s;
	if (*p == '*')
		return glob_match_n(p + 1, end, s) ||
		       (*s && glob_match_n(p, end, s + 1));
	if (*s && (*p == '?' || *p == *s))
		return glob_match_n(p + 1, end, s + 1);
	return false;
}

bool ktest_filter_match(const char *filter, const char *name)
{
	bool included = false;

	for (const char *p = filter; *p;) {
		const char *end = p + strcspn(p, ",");
		bool exclude = *p == '-';
		if (glob_match_n(p + exclude, end, name)) {
			if (exclude)
				return false;
			included = true;
		}
		p = *end ? end + 1 : end;
	}
	return included;
}

void ktest_log(struct ktest *t, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_printf("    # %s\n", buf);
}

void ktest_fail(
    struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	t->failed = true;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_printf("    # %s: EXPECTATION FAILED at %s:%d\n    # %s\n",
		       t->name,
		       file,
		       line,
		       buf);
}

void ktest_abort(struct ktest *t)
{
	(void)t;
	task_exit(KTEST_ABORTED);
}

struct case_run {
	struct ktest t;
	struct ktest_case *c;
};

static int case_entry(void *arg)
{
	struct case_run *run = arg;

	run->c->fn(&run->t);
	return 0;
}

/* Boot argument trace=GLOB: trace each case whose name matches (the
 * trace starts before its task does; tools/trace race draws it). */
static bool trace_case(const char *name)
{
	char glob[64];

	if (!bootarg_get("trace", glob, sizeof(glob)) ||
	    !glob_match_n(glob, glob + strlen(glob), name))
		return false;
	if (trace_start(0)) {
		console_printf("    # trace: cannot start for %s\n", name);
		return false;
	}
	return true;
}

/* Run one case in its own task. Return: true if it passed. */
static bool
run_case(const struct ktest_suite *s, struct ktest_case *c, unsigned int n)
{
	struct case_run run = { { .suite = s->name, .name = c->name }, c };
	struct ktest *t = &run.t;
	bool traced = trace_case(c->name);
	struct task *task = task_create(c->name, case_entry, &run);
	int code;

	if (IS_ERR(task)) {
		console_printf("    # %s: cannot start task (%ld)\n",
			       c->name,
			       PTR_ERR(task));
		t->failed = true;
	} else {
		code = task_join(task);
		if (code == TASK_EXIT_KILLED) {
			console_printf("    # %s: task crashed\n", c->name);
			t->failed = true;
		}
	}
	if (traced)
		trace_dump(); /* "trace: " lines: KTAP ignores them */
	console_printf(
	    "    %s %u %s\n", t->failed ? "not ok" : "ok", n, c->name);
	return !t->failed;
}

/* The boot argument ktest.cases, or "" for every case. */
static char case_filter[256];

static bool case_selected(const struct ktest_case *c)
{
	return !case_filter[0] || ktest_filter_match(case_filter, c->name);
}

static int run_suite(const struct ktest_suite *s, unsigned int n)
{
	unsigned int count = 0, i, k = 0;
	int failed = 0;

	for (i = 0; s->cases[i].name; i++)
		count += case_selected(&s->cases[i]);
	console_printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n",
		       s->name,
		       count);
	for (i = 0; s->cases[i].name; i++)
		if (case_selected(&s->cases[i]))
			failed += !run_case(s, &s->cases[i], ++k);
	console_printf("%s %u %s\n", failed ? "not ok" : "ok", n, s->name);
	return failed;
}

int ktest_run(const char *filter)
{
	const struct ktest_suite *s;
	unsigned int total = 0, n = 0;
	int failed = 0;

	if (!bootarg_get("ktest.cases", case_filter, sizeof(case_filter)))
		case_filter[0] = '\0';
	for (s = __ktest_suites_start; s < __ktest_suites_end; s++)
		total += ktest_filter_match(filter, s->name);
	console_printf("KTAP version 1\n1..%u\n", total);
	for (s = __ktest_suites_start; s < __ktest_suites_end; s++)
		if (ktest_filter_match(filter, s->name))
			failed += run_suite(s, ++n);
	return failed;
}

bool ktest_overlap_enter_all(struct ktest_overlap *o, unsigned int n)
{
	uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;

	/* .max, not .inside: once all @n were inside together, the first
	 * may finish its work and leave before a slower one looks again;
	 * that one must still see that all came (.max never falls) */
	ktest_overlap_enter(o);
	while (__atomic_load_n(&o->max, __ATOMIC_SEQ_CST) < n &&
	       time_ns() < give_up)
		task_yield();
	return __atomic_load_n(&o->max, __ATOMIC_SEQ_CST) >= n;
}

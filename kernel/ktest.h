/*
 * kernel/ktest.h: in-kernel tests in KUnit's shape, reported as KTAP v1.
 *
 *   static void my_case(struct ktest *t)
 *   {
 *           KTEST_EXPECT_EQ(t, 1 + 1, 2);       // records, continues
 *           KTEST_ASSERT_NOT_NULL(t, p);        // records, ends the case
 *   }
 *   static struct ktest_case my_cases[] = { KTEST_CASE(my_case), {} };
 *   KTEST_SUITE(mm_example, my_cases);
 *
 * Each case runs in a task of its own; a case whose task traps fails with
 * the trap report. A case that hangs is caught by the host's boot timeout.
 * Suites run in name order; ktest_run("mm_*,-mm_vm") runs those the filter
 * selects (see ktest_run). The boot argument ktest.cases=GLOBS runs only
 * the cases whose names match, in whichever suite (kernel/ktest.c).
 */
#pragma once

#include <stdio.h>
#include <string.h>
#include <kernel/compiler.h>

struct ktest {
	const char *suite;
	const char *name;
	bool failed;
	void *priv; /* for the suite's own use */
};

struct ktest_case {
	const char *name;
	void (*fn)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	struct ktest_case *cases;
};

/* clang-format cannot lay out a stringified initializer: */
/* clang-format off */
#define KTEST_CASE(fn) { #fn, fn }
/* clang-format on */

#define KTEST_SUITE(sname, scases)                                   \
	static const struct ktest_suite __ktest_suite_##sname __used \
	    __section(".ktest_suites." #sname) = { #sname, scases }

/* Run the suites @filter selects; return the number of failed cases.
 * @filter: comma-separated globs ('*', '?'); a leading '-' excludes:
 * "*,-virtio_blk_*" is every suite but the disk ones. */
int ktest_run(const char *filter);
bool ktest_filter_match(const char *filter, const char *name);
__printf(2, 3) void ktest_log(struct ktest *t, const char *fmt, ...);
void ktest_fail(struct ktest *t,
		const char *file,
		int line,
		const char *fmt,
		...) __printf(4, 5);
__noreturn void ktest_abort(struct ktest *t);

#define __KTEST_CHECK(t, cond, abort, fmt, ...)                                \
	do {                                                                   \
		if (unlikely(!(cond))) {                                       \
			ktest_fail(t, __FILE__, __LINE__, fmt, ##__VA_ARGS__); \
			if (abort)                                             \
				ktest_abort(t);                                \
		}                                                              \
	} while (0)

#define __KTEST_BINOP(t, a, op, b, abort)                             \
	do {                                                          \
		long long __a = (long long)(a), __b = (long long)(b); \
		__KTEST_CHECK(t,                                      \
			      __a op __b,                             \
			      abort,                                  \
			      "expected %s " #op                      \
			      " %s, but %s == %lld (%#llx), "         \
			      "%s == %lld (%#llx)",                   \
			      #a,                                     \
			      #b,                                     \
			      #a,                                     \
			      __a,                                    \
			      (unsigned long long)__a,                \
			      #b,                                     \
			      __b,                                    \
			      (unsigned long long)__b);               \
	} while (0)

#define KTEST_EXPECT_TRUE(t, c) \
	__KTEST_CHECK(t, (c), false, "expected %s to be true", #c)
#define KTEST_EXPECT_FALSE(t, c) \
	__KTEST_CHECK(t, !(c), false, "expected %s to be false", #c)
#define KTEST_EXPECT_EQ(t, a, b) __KTEST_BINOP(t, a, ==, b, false)
#define KTEST_EXPECT_NE(t, a, b) __KTEST_BINOP(t, a, !=, b, false)
#define KTEST_EXPECT_LT(t, a, b) __KTEST_BINOP(t, a, <, b, false)
#define KTEST_EXPECT_LE(t, a, b) __KTEST_BINOP(t, a, <=, b, false)
#define KTEST_EXPECT_GT(t, a, b) __KTEST_BINOP(t, a, >, b, false)
#define KTEST_EXPECT_GE(t, a, b) __KTEST_BINOP(t, a, >=, b, false)
#define KTEST_EXPECT_NULL(t, p) \
	__KTEST_CHECK(t, (p) == NULL, false, "expected %s to be NULL", #p)
#define KTEST_EXPECT_NOT_NULL(t, p) \
	__KTEST_CHECK(t, (p) != NULL, false, "expected %s to be non-NULL", #p)
/* Each operand is evaluated once. */
#define KTEST_EXPECT_STREQ(t, a, b)                                       \
	do {                                                              \
		const char *__sa = (a), *__sb = (b);                      \
		__KTEST_CHECK(t,                                          \
			      !strcmp(__sa, __sb),                        \
			      false,                                      \
			      "expected %s == %s, got \"%s\" and \"%s\"", \
			      #a,                                         \
			      #b,                                         \
			      __sa,                                       \
			      __sb);                                      \
	} while (0)
#define KTEST_EXPECT_MEMEQ(t, a, b, n)                            \
	__KTEST_CHECK(t,                                          \
		      !memcmp((a), (b), (n)),                     \
		      false,                                      \
		      "expected %zu bytes of %s and %s to match", \
		      (size_t)(n),                                \
		      #a,                                         \
		      #b)

#define KTEST_ASSERT_TRUE(t, c) \
	__KTEST_CHECK(t, (c), true, "expected %s to be true", #c)
#define KTEST_ASSERT_FALSE(t, c) \
	__KTEST_CHECK(t, !(c), true, "expected %s to be false", #c)
#define KTEST_ASSERT_EQ(t, a, b) __KTEST_BINOP(t, a, ==, b, true)
#define KTEST_ASSERT_NE(t, a, b) __KTEST_BINOP(t, a, !=, b, true)
#define KTEST_ASSERT_LT(t, a, b) __KTEST_BINOP(t, a, <, b, true)
#define KTEST_ASSERT_LE(t, a, b) __KTEST_BINOP(t, a, <=, b, true)
#define KTEST_ASSERT_GT(t, a, b) __KTEST_BINOP(t, a, >, b, true)
#define KTEST_ASSERT_GE(t, a, b) __KTEST_BINOP(t, a, >=, b, true)
#define KTEST_ASSERT_NULL(t, p) \
	__KTEST_CHECK(t, (p) == NULL, true, "expected %s to be NULL", #p)
#define KTEST_ASSERT_NOT_NULL(t, p) \
	__KTEST_CHECK(t, (p) != NULL, true, "expected %s to be non-NULL", #p)

/*
 * Overlap recorder for concurrency cases, which must show that what they
 * claim ran concurrently did: each worker brackets its work with
 * ktest_overlap_enter_all/exit, and the case checks .max (the most
 * workers inside at once), which is then every worker: each waits inside
 * until all are, before it does its work. (Counting on workers started
 * together to overlap by chance failed when the host ran one hart's
 * worker to its end before another's began.)
 */
struct ktest_overlap {
	unsigned int inside, max; /* atomic */
};

static inline void ktest_overlap_enter(struct ktest_overlap *o)
{
	unsigned int in = __atomic_add_fetch(&o->inside, 1, __ATOMIC_SEQ_CST);
	unsigned int max = __atomic_load_n(&o->max, __ATOMIC_RELAXED);

	while (
	    in > max &&
	    !__atomic_compare_exchange_n(
		&o->max, &max, in, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* A flag one task raises and another watches: the raiser's writes before
 * it are seen by the watcher after it sees the flag. */
static inline void ktest_flag_raise(bool *flag)
{
	__atomic_store_n(flag, true, __ATOMIC_RELEASE);
}

static inline bool ktest_flag_up(const bool *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* Enter @o and yield until @n workers are or have been inside it
 * together (.max: one of them may already have left again); a worker
 * that never comes ends the wait after RACE_TIMEOUT_MS (kernel/race.h),
 * and the case's check of .max fails. Return: whether all @n came. */
bool ktest_overlap_enter_all(struct ktest_overlap *o, unsigned int n);

static inline void ktest_overlap_exit(struct ktest_overlap *o)
{
	__atomic_sub_fetch(&o->inside, 1, __ATOMIC_SEQ_CST);
}

/*
 * kernel/bootargs_test.c: suite bootargs - look-ups in the running
 * kernel's command line, which tools/boots.py gives this boot.
 */
#include <kernel/bootargs.h>
#include <kernel/ktest.h>

static void finds_the_test_filter(struct ktest *t)
{
	char buf[512], tiny[4];

	KTEST_ASSERT_TRUE(t, bootarg_get("ktest.filter", buf, sizeof(buf)));
	KTEST_EXPECT_TRUE(t, ktest_filter_match(buf, "bootargs"));
	/* too long for the buffer: refused, not cut */
	KTEST_EXPECT_FALSE(t, bootarg_get("ktest.filter", tiny, sizeof(tiny)));
	KTEST_EXPECT_FALSE(t, bootarg_present("no.such.arg"));
	KTEST_EXPECT_EQ(t, bootarg_get_long("no.such.arg", 42), 42);
}

static void filter_globs_and_exclusions(struct ktest *t)
{
	KTEST_EXPECT_TRUE(t, ktest_filter_match("*", "mm_vm"));
	KTEST_EXPECT_TRUE(t, ktest_filter_match("a,mm_*", "mm_vm"));
	KTEST_EXPECT_FALSE(t, ktest_filter_match("*,-mm_*", "mm_vm"));
	KTEST_EXPECT_TRUE(t, ktest_filter_match("*,-mm_*", "traps"));
	KTEST_EXPECT_FALSE(t, ktest_filter_match("mm_?", "mm_vm"));
	KTEST_EXPECT_TRUE(t, ktest_filter_match("mm_??", "mm_vm"));
	KTEST_EXPECT_FALSE(t, ktest_filter_match("", "mm_vm"));
}

static struct ktest_case bootargs_cases[] = {
	KTEST_CASE(finds_the_test_filter),
	KTEST_CASE(filter_globs_and_exclusions),
	{},
};
KTEST_SUITE(bootargs, bootargs_cases);

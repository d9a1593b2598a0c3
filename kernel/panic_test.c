/*
 * kernel/panic_test.c: suite selftest_panic - panic() reports and powers
 * off with PANIC_EXIT_CODE. Run alone, in the boot "panic" of
 * tools/boots.py, which checks the exit code and that the backtrace names
 * this function.
 */
#include <kernel/ktest.h>
#include <kernel/panic.h>

static void panic_is_reported(struct ktest *t)
{
	(void)t;
	panic("deliberate panic from suite selftest_panic");
}

static struct ktest_case panic_cases[] = {
	KTEST_CASE(panic_is_reported),
	{},
};
KTEST_SUITE(selftest_panic, panic_cases);

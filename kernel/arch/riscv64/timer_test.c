/*
 * kernel/arch/riscv64/timer_test.c: suite riscv_timer - which way the
 * tick's timer is set (kernel/arch/riscv64/arch.c, arch_timer_set).
 *
 * Rules checked: the timer is Sstc's stimecmp exactly when the board's
 * harts have Sstc, which the boot says with riscv.timer=sstc or
 * riscv.timer=sbi (the core boot has QEMU's default CPU, with Sstc;
 * aia_mmio's is started with sstc=off, so its ticks go through SBI);
 * with Sstc each tick writes the next one's time to stimecmp and calls
 * no SBI, without it each calls SBI's set_timer, and ticks keep coming
 * either way.
 */
#include <string.h>
#include <kernel/arch.h>
#include <kernel/bootargs.h>
#include <kernel/cpu.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/sched.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/sbi.h>

static void timer_is_the_one_the_board_has(struct ktest *t)
{
	char want[8];

	KTEST_ASSERT_TRUE(t, bootarg_get("riscv.timer", want, sizeof(want)));
	KTEST_EXPECT_TRUE(t, !strcmp(want, "sstc") || !strcmp(want, "sbi"));
	KTEST_EXPECT_EQ(t, platform.harts_sstc, !strcmp(want, "sstc"));
}

static uint64_t ticks_taken(void)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < ncpus; i++)
		n += READ_ONCE(cpus[i].ticks);
	return n;
}

/* With Sstc, this hart's stimecmp holds its next tick's time (the
 * register does not exist without it), before and after a sleep that
 * spans several ticks, and no tick calls SBI (whose set_timer writes
 * stimecmp as well where the hart has Sstc: the calls tell the ways
 * apart); without it, the ticks call SBI. Either way ticks come. */
static void ticks_set_the_next_one(struct ktest *t)
{
	uint64_t before = ticks_taken();
	unsigned long calls = READ_ONCE(sbi_set_timer_calls);
	unsigned long flags;

	for (int i = 0; i < 2; i++) {
		flags = arch_irq_save();
		if (platform.harts_sstc)
			KTEST_EXPECT_EQ(
			    t, csr_read(0x14d), this_cpu()->next_tick);
		arch_irq_restore(flags);
		if (!i)
			task_sleep_ms(20); /* five ticks at 250 Hz */
	}
	KTEST_EXPECT_GT(t, ticks_taken(), before);
	if (platform.harts_sstc)
		KTEST_EXPECT_EQ(t, READ_ONCE(sbi_set_timer_calls), calls);
	else
		KTEST_EXPECT_GT(t, READ_ONCE(sbi_set_timer_calls), calls);
}

static struct ktest_case riscv_timer_cases[] = {
	KTEST_CASE(timer_is_the_one_the_board_has),
	KTEST_CASE(ticks_set_the_next_one),
	{},
};
KTEST_SUITE(riscv_timer, riscv_timer_cases);

/*
 * kernel/timer_test.c: suite timers - a timer fires after its deadline, a
 * cancelled one never fires, and cancel waits for a callback that is
 * already running (callers free timers that live on their stack).
 */
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/ktest.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <kernel/sched.h>

struct probe {
	struct ktimer tm;
	volatile int started, finished;
	volatile unsigned int hart; /* where the callback ran */
	uint64_t fired_at, finished_at;
	uint64_t spin_ns;
};

static void probe_fn(struct ktimer *tm)
{
	struct probe *p = tm->data;

	p->hart = cpu_id();
	p->fired_at = time_ns();
	p->started = 1;
	time_delay_ns(p->spin_ns);
	p->finished_at = time_ns();
	p->finished = 1;
}

static void fires_after_deadline(struct ktest *t)
{
	struct probe p = { 0 };
	uint64_t deadline = time_ns() + 10 * NSEC_PER_MSEC;

	timer_init(&p.tm, probe_fn);
	p.tm.data = &p;
	timer_arm(&p.tm, deadline);
	task_sleep_ms(100);
	KTEST_EXPECT_EQ(t, p.finished, 1);
	KTEST_EXPECT_GE(t, p.fired_at, deadline);
	KTEST_EXPECT_FALSE(t, timer_cancel(&p.tm));
}

static void cancelled_never_fires(struct ktest *t)
{
	struct probe p = { 0 };

	timer_init(&p.tm, probe_fn);
	p.tm.data = &p;
	timer_arm(&p.tm, time_ns() + 50 * NSEC_PER_MSEC);
	KTEST_EXPECT_TRUE(t, timer_cancel(&p.tm));
	task_sleep_ms(100);
	KTEST_EXPECT_EQ(t, p.started, 0);
}

/*
 * The callback must run on another hart while this one cancels: with
 * interrupts off here, this hart cannot run it, and cannot be preempted
 * off the cancel either. The callback spins 20 ms; the cancel starts
 * while it runs (checked) and must not return before it finished.
 */
static void cancel_waits_for_running_callback(struct ktest *t)
{
	struct probe p = { .spin_ns = 20 * NSEC_PER_MSEC };
	uint64_t give_up = time_ns() + 5 * NSEC_PER_SEC, entered, left;
	unsigned long flags;
	unsigned int me;
	int finished;

	KTEST_ASSERT_GE(t, ncpus, 2); /* the boot gives it more harts */
	timer_init(&p.tm, probe_fn);
	p.tm.data = &p;
	flags = arch_irq_save();
	me = cpu_id();
	timer_arm(&p.tm, time_ns());
	while (!p.started && time_ns() < give_up)
		arch_cpu_relax();
	entered = time_ns();
	timer_cancel(&p.tm);
	finished = p.finished;
	left = time_ns();
	arch_irq_restore(flags);
	KTEST_ASSERT_EQ(t, p.started, 1);
	KTEST_EXPECT_NE(t, p.hart, me);
	KTEST_EXPECT_LT(
	    t, entered, p.finished_at); /* overlapped the callback */
	KTEST_EXPECT_EQ(t, finished, 1);
	KTEST_EXPECT_GE(t, left, p.finished_at);
}

static struct ktest_case timer_cases[] = {
	KTEST_CASE(fires_after_deadline),
	KTEST_CASE(cancelled_never_fires),
	KTEST_CASE(cancel_waits_for_running_callback),
	{},
};
KTEST_SUITE(timers, timer_cases);

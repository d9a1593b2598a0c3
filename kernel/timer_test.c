/*
 * kernel/timer_test.c: suite timers - a timer fires after its deadline, a
 * cancelled one never fires, and cancel waits for a callback that is
 * already running (callers free timers that live on their stack).
 */
#include <kernel/ktest.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <kernel/sched.h>

struct probe {
	struct ktimer tm;
	volatile int started, finished;
	uint64_t fired_at;
	uint64_t spin_ns;
};

static void probe_fn(struct ktimer *tm)
{
	struct probe *p = tm->data;

	p->started = 1;
	p->fired_at = time_ns();
	time_delay_ns(p->spin_ns);
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

static void cancel_waits_for_running_callback(struct ktest *t)
{
	struct probe p = { .spin_ns = 20 * NSEC_PER_MSEC };
	uint64_t give_up = time_ns() + 5 * NSEC_PER_SEC;

	timer_init(&p.tm, probe_fn);
	p.tm.data = &p;
	timer_arm(&p.tm, time_ns());
	while (!p.started && time_ns() < give_up)
		task_yield();
	KTEST_ASSERT_EQ(t, p.started, 1);
	timer_cancel(&p.tm);
	KTEST_EXPECT_EQ(t, p.finished, 1);
}

static struct ktest_case timer_cases[] = {
	KTEST_CASE(fires_after_deadline),
	KTEST_CASE(cancelled_never_fires),
	KTEST_CASE(cancel_waits_for_running_callback),
	{},
};
KTEST_SUITE(timers, timer_cases);

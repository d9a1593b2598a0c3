/*
 * kernel/timer_test.c: suite timers - a timer fires after its deadline, a
 * cancelled one never fires, cancel waits for a callback that is already
 * running (callers free timers that live on their stack), and timers
 * fire in the order of their deadlines; the tick's TLB sizing counts
 * only busy ticks.
 *
 * No case sleeps for a time and then looks: each waits for what must
 * happen (the timer's callback; a later timer, which runs after the
 * cancelled one would have; the cancel coming round to wait,
 * RACE_TIMER_CANCEL_WAIT), so a host that runs a hart late cannot make
 * a case fail, or a bug pass.
 */
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>

struct probe {
	struct ktimer tm;
	volatile int started, finished;
	volatile unsigned int hart; /* where the callback ran */
	uint64_t fired_at, finished_at;
	int seq;	   /* fire_in_deadline_order: the order it fired in */
	bool hold;	   /* run until the cancel waits or has returned */
	bool cancel_waits; /* atomic: timer_cancel came round to wait */
	bool cancel_returned; /* atomic */
};

static void probe_fn(struct ktimer *tm)
{
	struct probe *p = tm->data;
	uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;

	p->hart = cpu_id();
	p->fired_at = time_ns();
	p->started = 1;
	while (p->hold && !ktest_flag_up(&p->cancel_waits) &&
	       !ktest_flag_up(&p->cancel_returned) && time_ns() < give_up)
		arch_cpu_relax();
	p->finished_at = time_ns();
	p->finished = 1;
}

static void probe_init(struct probe *p)
{
	*p = (struct probe){ 0 };
	timer_init(&p->tm, probe_fn);
	p->tm.data = p;
}

static bool probe_finished(void *arg)
{
	return ((struct probe *)arg)->finished;
}

static void fires_after_deadline(struct ktest *t)
{
	struct probe p;
	uint64_t deadline = time_ns() + 10 * NSEC_PER_MSEC;

	probe_init(&p);
	timer_arm(&p.tm, deadline);
	KTEST_EXPECT_EQ(t, race_wait_until(probe_finished, &p), 0);
	KTEST_EXPECT_EQ(t, p.finished, 1);
	KTEST_EXPECT_GE(t, p.fired_at, deadline);
	KTEST_EXPECT_FALSE(t, timer_cancel(&p.tm));
}

/* A timer due 10 ms after the cancelled one: timers run in the order of
 * their deadlines, so once it has run, the cancelled one would have
 * been taken (and a second cancel waits for its callback). */
static void cancelled_never_fires(struct ktest *t)
{
	struct probe p, later;
	uint64_t due = time_ns() + 50 * NSEC_PER_MSEC;

	probe_init(&p);
	probe_init(&later);
	timer_arm(&p.tm, due);
	KTEST_EXPECT_TRUE(t, timer_cancel(&p.tm));
	timer_arm(&later.tm, due + 10 * NSEC_PER_MSEC);
	KTEST_EXPECT_EQ(t, race_wait_until(probe_finished, &later), 0);
	KTEST_EXPECT_FALSE(t, timer_cancel(&p.tm));
	KTEST_EXPECT_EQ(t, p.started, 0);
}

/*
 * The callback must run on another hart while this one cancels: with
 * interrupts off here, this hart cannot run it, and cannot be preempted
 * off the cancel either. The callback runs until the cancel has come
 * round to wait for it (RACE_TIMER_CANCEL_WAIT) or has returned (the
 * bug), so the cancel starts while it runs, and must not return before
 * it finished. (Before, the callback spun 20 ms: a host that did not run
 * this hart that long between the callback's start and the cancel
 * failed the case.)
 */
static struct probe *cancelling;

static void cancel_waits(void *obj)
{
	struct probe *p = READ_ONCE(cancelling);

	if (p && obj == &p->tm)
		ktest_flag_raise(&p->cancel_waits);
}

static void cancel_waits_for_running_callback(struct ktest *t)
{
	uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
	uint64_t entered, left;
	struct probe p;
	unsigned long flags;
	unsigned int me;
	int finished;

	KTEST_ASSERT_GE(t, ncpus, 2); /* the boot gives it more harts */
	probe_init(&p);
	p.hold = true;
	WRITE_ONCE(cancelling, &p);
	race_hook_set(RACE_TIMER_CANCEL_WAIT, cancel_waits);
	flags = arch_irq_save();
	me = cpu_id();
	timer_arm(&p.tm, time_ns());
	while (!p.started && time_ns() < give_up)
		arch_cpu_relax();
	entered = time_ns();
	timer_cancel(&p.tm);
	finished = p.finished;
	ktest_flag_raise(&p.cancel_returned);
	left = time_ns();
	arch_irq_restore(flags);
	/* p is on this stack: the callback done, whatever happened */
	KTEST_EXPECT_EQ(t, race_wait_until(probe_finished, &p), 0);
	race_hook_set(RACE_TIMER_CANCEL_WAIT, NULL);
	WRITE_ONCE(cancelling, NULL);
	KTEST_ASSERT_EQ(t, p.started, 1);
	KTEST_EXPECT_NE(t, p.hart, me);
	KTEST_EXPECT_TRUE(t, ktest_flag_up(&p.cancel_waits));
	KTEST_EXPECT_LT(
	    t, entered, p.finished_at); /* overlapped the callback */
	KTEST_EXPECT_EQ(t, finished, 1);
	KTEST_EXPECT_GE(t, left, p.finished_at);
}

/* Three timers armed out of order fire in the order of their deadlines
 * (the tick runs the earliest first): each callback takes the next
 * number of a shared count. */
static int fire_seq;

static void seq_fn(struct ktimer *tm)
{
	struct probe *p = tm->data;

	p->fired_at = time_ns();
	p->seq = __atomic_add_fetch(&fire_seq, 1, __ATOMIC_SEQ_CST);
	p->finished = 1;
}

static bool all_finished(void *arg)
{
	struct probe *p = arg;

	return p[0].finished && p[1].finished && p[2].finished;
}

/* A hart held with interrupts off: its ticks wait, so they cannot run
 * expired timers beside the case's hart. */
struct hold {
	bool held, go; /* atomic */
};

static int hold_hart(void *arg)
{
	struct hold *h = arg;
	uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
	unsigned long flags = arch_irq_save();

	ktest_flag_raise(&h->held);
	while (!ktest_flag_up(&h->go) && time_ns() < give_up)
		arch_cpu_relax();
	arch_irq_restore(flags);
	return 0;
}

static bool all_held(void *arg)
{
	struct hold *h = arg;

	for (unsigned int c = 0; c < ncpus; c++)
		if (!ktest_flag_up(&h[c].held))
			return false;
	return true;
}

/*
 * The other harts are held first: with several harts' ticks taking
 * expired timers at once, callbacks taken in one order can run in
 * another (a hart that took the first may be slower to run it), and a
 * list kept unsorted could pass by that luck. On one hart the callbacks
 * run in the order the list gives them.
 */
static void fire_in_deadline_order(struct ktest *t)
{
	static const unsigned int ms[3] = { 30,
					    10,
					    20 }; /* armed in this order */
	struct hold h[MAX_CPUS] = {};
	struct task *holder[MAX_CPUS] = {};
	struct probe p[3];
	unsigned int me;
	uint64_t now;

	preempt_disable();
	me = cpu_id();
	preempt_enable();
	ktest_flag_raise(&h[me].held);
	for (unsigned int c = 0; c < ncpus; c++) {
		if (c == me)
			continue;
		holder[c] =
		    task_create_on("timer_hold", hold_hart, &h[c], (int)c);
		KTEST_ASSERT_FALSE(t, IS_ERR(holder[c]));
	}
	KTEST_EXPECT_EQ(t, race_wait_until(all_held, h), 0);
	now = time_ns();
	__atomic_store_n(&fire_seq, 0, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 3; i++) {
		probe_init(&p[i]);
		p[i].tm.fn = seq_fn;
		timer_arm(&p[i].tm, now + ms[i] * NSEC_PER_MSEC);
	}
	KTEST_EXPECT_EQ(t, race_wait_until(all_finished, p), 0);
	for (unsigned int c = 0; c < ncpus; c++) {
		ktest_flag_raise(&h[c].go);
		if (holder[c])
			KTEST_EXPECT_EQ(t, task_join(holder[c]), 0);
	}
	for (int i = 0; i < 3; i++) {
		KTEST_EXPECT_GE(t, p[i].fired_at, now + ms[i] * NSEC_PER_MSEC);
		timer_cancel(&p[i].tm); /* they live on this stack */
	}
	/* the 10 ms one first, then 20, then 30 */
	KTEST_EXPECT_EQ(t, p[1].seq, 1);
	KTEST_EXPECT_EQ(t, p[2].seq, 2);
	KTEST_EXPECT_EQ(t, p[0].seq, 3);
}

/*
 * The tick's TLB sizing (timer.h) on a struct cpu of the case's own: only
 * ticks that find a task running count, every TLB_SIZING_TICKS-th of them
 * flushes (this hart's TLB: harmless), and none does when it is off.
 * mm_pgtable's sizing_flush_drops_stale_entry shows a real tick's flush.
 */
static void only_busy_ticks_flush_the_tlb(struct ktest *t)
{
	static struct task idle, busy;
	struct cpu c = { .idle = &idle, .current = &idle };
	unsigned long every = tlb_sizing_set(TLB_SIZING_TICKS);
	unsigned int flushed = 0;

	for (int i = 0; i < 10 * TLB_SIZING_TICKS; i++)
		flushed += tlb_sizing_tick(&c);
	KTEST_EXPECT_EQ(t, flushed, 0);
	KTEST_EXPECT_EQ(t, c.busy_ticks, 0);
	c.current = &busy;
	for (int i = 0; i < 10 * TLB_SIZING_TICKS; i++)
		flushed += tlb_sizing_tick(&c);
	KTEST_EXPECT_EQ(t, flushed, 10);
	KTEST_EXPECT_EQ(t, c.tlb_sizing_flushes, 10);
	tlb_sizing_set(0);
	for (int i = 0; i < 10 * TLB_SIZING_TICKS; i++)
		flushed += tlb_sizing_tick(&c);
	KTEST_EXPECT_EQ(t, flushed, 10);
	tlb_sizing_set(every);
}

static struct ktest_case timer_cases[] = {
	KTEST_CASE(fires_after_deadline),
	KTEST_CASE(cancelled_never_fires),
	KTEST_CASE(cancel_waits_for_running_callback),
	KTEST_CASE(fire_in_deadline_order),
	KTEST_CASE(only_busy_ticks_flush_the_tlb),
	{},
};
KTEST_SUITE(timers, timer_cases);

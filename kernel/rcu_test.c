/*
 * kernel/rcu_test.c: suite locks_rcu - a grace period waits for every
 * read-side section that was open when it began (kernel/rcu.h).
 *
 * Each case holds a section open on another hart (the reader, pinned,
 * spins inside it until told to leave, at most HOLD_NS) and checks that
 * what must wait for it did: synchronize_rcu returns only after the
 * reader has left, and a call_rcu callback has not run while the reader
 * stays, and has run after rcu_barrier. Were grace periods not waited
 * for, synchronize_rcu would return at once and the callback would run
 * during the stay: both cases would fail.
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <kernel/time.h>

#define HOLD_NS (1000 * NSEC_PER_MSEC)
#define STAY_NS (30 * NSEC_PER_MSEC)

struct reader {
	bool inside; /* the section is open */
	bool leave;  /* told to leave (or STAY_NS passed, for @timed) */
	bool left;   /* about to unlock: set inside the section */
	bool timed;
};

static int reader_fn(void *arg)
{
	struct reader *r = arg;
	uint64_t start = time_ns();

	rcu_read_lock();
	ktest_flag_raise(&r->inside);
	while (!ktest_flag_up(&r->leave) && time_ns() - start < HOLD_NS &&
	       !(r->timed && time_ns() - start >= STAY_NS))
		arch_cpu_relax();
	ktest_flag_raise(&r->left);
	rcu_read_unlock();
	return 0;
}

static struct task *start_reader(struct reader *r)
{
	struct task *task = task_create_on("rcu_reader", reader_fn, r, 1);

	if (IS_ERR(task))
		return task;
	while (!ktest_flag_up(&r->inside))
		task_yield();
	return task;
}

static void rcu_synchronize_waits_for_reader(struct ktest *t)
{
	struct reader r = { .timed = true };
	unsigned long gps = rcu_grace_periods();
	struct task *task;

	KTEST_ASSERT_GE(t, ncpus, 2u);
	task = start_reader(&r);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	synchronize_rcu();
	KTEST_EXPECT_TRUE(t, ktest_flag_up(&r.left));
	KTEST_EXPECT_EQ(t, task_join(task), 0);
	KTEST_EXPECT_GT(t, rcu_grace_periods(), gps);
}

static void count_callback(struct rcu_head *head)
{
	(void)head;
}

struct counted {
	struct rcu_head head;
	bool ran;
};

static void set_ran(struct rcu_head *head)
{
	ktest_flag_raise(&container_of(head, struct counted, head)->ran);
}

static void rcu_callback_waits_for_reader(struct ktest *t)
{
	struct reader r = { 0 };
	struct counted c = { .ran = false };
	struct task *task;

	KTEST_ASSERT_GE(t, ncpus, 2u);
	task = start_reader(&r);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	call_rcu(&c.head, set_ran);
	task_sleep_ms(20); /* the rcu task has the callback by now */
	KTEST_EXPECT_FALSE(t, ktest_flag_up(&c.ran));
	KTEST_EXPECT_FALSE(t, ktest_flag_up(&r.left));
	ktest_flag_raise(&r.leave);
	rcu_barrier();
	KTEST_EXPECT_TRUE(t, ktest_flag_up(&c.ran));
	KTEST_EXPECT_EQ(t, task_join(task), 0);
}

/* Many callbacks from several queuers: rcu_barrier sees every one run. */
static void rcu_barrier_runs_everything_queued(struct ktest *t)
{
	static struct rcu_head heads[256];
	unsigned long before = rcu_callbacks_run();

	for (unsigned int i = 0; i < ARRAY_SIZE(heads); i++)
		call_rcu(&heads[i], count_callback);
	rcu_barrier();
	KTEST_EXPECT_GE(t, rcu_callbacks_run() - before, ARRAY_SIZE(heads));
}

static void rcu_sections_nest(struct ktest *t)
{
	rcu_read_lock();
	rcu_read_lock();
	KTEST_EXPECT_TRUE(t, rcu_read_lock_held());
	rcu_read_unlock();
	KTEST_EXPECT_TRUE(t, rcu_read_lock_held());
	rcu_read_unlock();
	KTEST_EXPECT_FALSE(t, rcu_read_lock_held());
}

static struct ktest_case rcu_cases[] = {
	KTEST_CASE(rcu_synchronize_waits_for_reader),
	KTEST_CASE(rcu_callback_waits_for_reader),
	KTEST_CASE(rcu_barrier_runs_everything_queued),
	KTEST_CASE(rcu_sections_nest),
	{},
};
KTEST_SUITE(locks_rcu, rcu_cases);

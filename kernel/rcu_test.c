/*
 * kernel/rcu_test.c: suite locks_rcu - a grace period waits for every
 * read-side section that was open when it began (kernel/rcu.h).
 *
 * Each case holds a section open on another hart (the reader, pinned,
 * spins inside it until told to leave) and checks that what must wait
 * for it did: synchronize_rcu returns only after the reader has left, and
 * a call_rcu callback has not run while the reader stays, and has run
 * after rcu_barrier. The reader is told to leave once the grace period
 * is waiting for it (RACE_RCU_GP_WAIT, in the task whose grace period
 * it is), not after a time. Were grace periods not waited for,
 * synchronize_rcu would return with the reader still inside and the
 * callback would run during the stay: both cases would fail, whatever
 * the host's schedule. (Before, the reader left by itself after 30 ms and
 * the callback had 20 ms to run: a test task or an rcu task the host did
 * not run that long let the bug pass.)
 */
#include <string.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <kernel/time.h>

struct reader {
	bool inside;	      /* the section is open */
	bool leave;	      /* told to leave */
	bool left;	      /* about to unlock: set inside the section */
	struct task *gp_task; /* whose grace period tells it to leave */
	const char *gp_name;  /* or by its name */
	bool leave_at_gp;     /* leave as soon as that grace period waits */
	bool gp_waits;	      /* that grace period waits for it */
};

static struct reader *gp_reader;

/* At RACE_RCU_GP_WAIT: the grace period of the task the case names has
 * read every hart's count, the reader's in a section among them. */
static void gp_waits(void *obj)
{
	struct reader *r = READ_ONCE(gp_reader);
	struct task *me = current_task();

	(void)obj;
	if (!r || !(me == READ_ONCE(r->gp_task) ||
		    (r->gp_name && !strcmp(me->name, r->gp_name))))
		return;
	ktest_flag_raise(&r->gp_waits);
	if (r->leave_at_gp)
		ktest_flag_raise(&r->leave);
}

/* The bound is for a broken run only: the case tells it when to leave. */
static int reader_fn(void *arg)
{
	struct reader *r = arg;
	uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;

	rcu_read_lock();
	ktest_flag_raise(&r->inside);
	while (!ktest_flag_up(&r->leave) && time_ns() < give_up)
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

/* The reader leaves when this task's grace period waits for it: the
 * grace period must then see it leave before it ends. */
static void rcu_synchronize_waits_for_reader(struct ktest *t)
{
	struct reader r = { .gp_task = current_task(), .leave_at_gp = true };
	unsigned long gps = rcu_grace_periods();
	struct task *task;
	bool left;

	KTEST_ASSERT_GE(t, ncpus, 2u);
	task = start_reader(&r);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	WRITE_ONCE(gp_reader, &r);
	race_hook_set(RACE_RCU_GP_WAIT, gp_waits);
	synchronize_rcu();
	left = ktest_flag_up(&r.left);
	race_hook_set(RACE_RCU_GP_WAIT, NULL);
	WRITE_ONCE(gp_reader, NULL);
	ktest_flag_raise(&r.leave); /* had it returned without waiting */
	KTEST_EXPECT_TRUE(t, ktest_flag_up(&r.gp_waits));
	KTEST_EXPECT_TRUE(t, left);
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

struct callback_wait {
	struct reader *r;
	struct counted *c;
};

/* The rcu task's grace period waits for the reader, or (the bug) the
 * callback ran. */
static bool gp_waits_or_ran(void *arg)
{
	struct callback_wait *w = arg;

	return ktest_flag_up(&w->r->gp_waits) || ktest_flag_up(&w->c->ran);
}

/* The rcu task takes the callback and waits for the reader's section;
 * then the callback has not run, and runs once the reader has left. */
static void rcu_callback_waits_for_reader(struct ktest *t)
{
	struct reader r = { .gp_name = "rcu" };
	struct counted c = { .ran = false };
	struct callback_wait w = { &r, &c };
	struct task *task;
	bool ran, left;

	KTEST_ASSERT_GE(t, ncpus, 2u);
	rcu_barrier(); /* nothing queued before: the next batch is ours */
	task = start_reader(&r);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	WRITE_ONCE(gp_reader, &r);
	race_hook_set(RACE_RCU_GP_WAIT, gp_waits);
	call_rcu(&c.head, set_ran);
	KTEST_EXPECT_EQ(t, race_wait_until(gp_waits_or_ran, &w), 0);
	ran = ktest_flag_up(&c.ran);
	left = ktest_flag_up(&r.left);
	race_hook_set(RACE_RCU_GP_WAIT, NULL);
	WRITE_ONCE(gp_reader, NULL);
	KTEST_EXPECT_FALSE(t, ran);
	KTEST_EXPECT_FALSE(t, left);
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

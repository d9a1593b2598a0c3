/*
 * kernel/sched_test.c: suite sched_basic - tasks run to completion on every
 * hart, a busy task is preempted, sleeping and wake-ups work: a sleeping
 * task leaves its hart, a timed sleep ends at its wake-up or its deadline,
 * and busy tasks on one hart take turns (docs/labs.md, lab 5).
 */
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/err.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/arch.h>
#include <kernel/race.h>
#include <kernel/spinlock.h>

#define MANY 64

static int add_one(void *arg)
{
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
	task_yield();
	return 7;
}

static void many_tasks_finish(struct ktest *t)
{
	struct task *tasks[MANY];
	int count = 0;

	for (int i = 0; i < MANY; i++) {
		tasks[i] = task_create("adder", add_one, &count);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[i]));
	}
	for (int i = 0; i < MANY; i++)
		KTEST_EXPECT_EQ(t, task_join(tasks[i]), 7);
	KTEST_EXPECT_EQ(t, count, MANY);
}

static int report_cpu(void *arg)
{
	(void)arg;
	return (int)cpu_id();
}

static void every_hart_runs_tasks(struct ktest *t)
{
	KTEST_EXPECT_GE(t, ncpus, 2);
	for (unsigned int c = 0; c < ncpus; c++) {
		struct task *task =
		    task_create_on("pinned", report_cpu, NULL, (int)c);
		KTEST_ASSERT_FALSE(t, IS_ERR(task));
		KTEST_EXPECT_EQ(t, task_join(task), c);
	}
}

struct spin_state {
	volatile bool stop;
	bool running; /* busy has its hart */
	uint64_t deadline;
};

/* Never yields: only preemption lets another task onto its hart. */
static int busy(void *arg)
{
	struct spin_state *s = arg;

	ktest_flag_raise(&s->running);
	while (!s->stop && time_ns() < s->deadline)
		;
	return s->stop ? 0 : -1;
}

static bool flag_up(void *flag)
{
	return ktest_flag_up(flag);
}

static int stopper(void *arg)
{
	((struct spin_state *)arg)->stop = true;
	return 0;
}

static void preemption_switches_busy_task(struct ktest *t)
{
	struct spin_state s = { .deadline = time_ns() + 20 * NSEC_PER_SEC };
	int cpu = (int)(ncpus - 1);
	struct task *b = task_create_on("busy", busy, &s, cpu);
	struct task *st;

	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	/* busy has the hart before stopper exists (a sleep of 20 ms here let
	 * a late busy find stop already set, and proved nothing) */
	KTEST_ASSERT_EQ(t, race_wait_until(flag_up, &s.running), 0);
	st = task_create_on("stopper", stopper, &s, cpu);
	KTEST_ASSERT_FALSE(t, IS_ERR(st));
	KTEST_EXPECT_EQ(t, task_join(st), 0);
	/* busy only sees stop if stopper ran on its hart while it was busy */
	KTEST_EXPECT_EQ(t, task_join(b), 0);
}

static void sleep_lasts_at_least(struct ktest *t)
{
	uint64_t start = time_ns();

	task_sleep_ms(30);
	KTEST_EXPECT_GE(t, time_ns() - start, 30 * NSEC_PER_MSEC);
}

struct pingpong {
	struct wait_queue_head wq;
	int turn; /* 0: ping's turn, 1: pong's */
	int rounds;
};

static int pong(void *arg)
{
	struct pingpong *p = arg;

	for (int i = 0; i < p->rounds; i++) {
		wait_event(&p->wq, READ_ONCE(p->turn) == 1);
		WRITE_ONCE(p->turn, 0);
		wake_up_all(&p->wq);
	}
	return 0;
}

static void wait_wake_ping_pong(struct ktest *t)
{
	struct pingpong p = { .rounds = 500 };
	struct task *task;

	wait_queue_init(&p.wq);
	task = task_create("pong", pong, &p);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	for (int i = 0; i < p.rounds; i++) {
		wait_event(&p.wq, READ_ONCE(p.turn) == 0);
		WRITE_ONCE(p.turn, 1);
		wake_up_all(&p.wq);
	}
	KTEST_EXPECT_EQ(t, task_join(task), 0);
}

static void completion_times_out(struct ktest *t)
{
	struct completion c;

	init_completion(&c);
	KTEST_EXPECT_FALSE(t,
			   wait_for_completion_timeout(&c, 20 * NSEC_PER_MSEC));
	complete(&c);
	KTEST_EXPECT_TRUE(t,
			  wait_for_completion_timeout(&c, 20 * NSEC_PER_MSEC));
}

static uint64_t ticks_before[MAX_CPUS];

static bool every_hart_ticked(void *arg)
{
	(void)arg;
	for (unsigned int c = 0; c < ncpus; c++)
		if (READ_ONCE(cpus[c].ticks) <= ticks_before[c])
			return false;
	return true;
}

/* Each hart takes a tick: wait for one on each (not a 50 ms sleep, after
 * which a hart the host had not run yet failed the case). */
static void ticks_on_every_hart(struct ktest *t)
{
	for (unsigned int c = 0; c < ncpus; c++)
		ticks_before[c] = READ_ONCE(cpus[c].ticks);
	KTEST_EXPECT_EQ(t, race_wait_until(every_hart_ticked, NULL), 0);
	for (unsigned int c = 0; c < ncpus; c++)
		KTEST_EXPECT_GT(t, READ_ONCE(cpus[c].ticks), ticks_before[c]);
}

static unsigned long ipis_sent(void)
{
	unsigned long n = 0;

	for (unsigned int c = 0; c < ncpus; c++)
		n += READ_ONCE(cpus[c].ipis_sent);
	return n;
}

/* A sleep ends in this hart's timer interrupt, taken while the hart idles:
 * the woken task runs right there, with no IPI to another hart (before,
 * each of these wake-ups sent one). Other tasks may wake meanwhile (the
 * flusher): a few IPIs are allowed, not one per sleep. */
static void interrupt_wake_stays_on_its_hart(struct ktest *t)
{
	unsigned long before = ipis_sent();

	KTEST_ASSERT_GT(t, ncpus, 1);
	for (int i = 0; i < 40; i++)
		task_sleep_ms(1);
	KTEST_EXPECT_LT(t, ipis_sent() - before, 10);
}

struct kick_sleeper {
	struct wait_queue_head wq;
	int go; /* atomic */
};

static int kick_sleeper_fn(void *arg)
{
	struct kick_sleeper *s = arg;

	wait_event(&s->wq, __atomic_load_n(&s->go, __ATOMIC_ACQUIRE));
	return 0;
}

#define WAKER_HART     0
#define SLEEPER_HART   1
#define SELF_IPI_SPINS 100000000ul /* a lost interrupt, not a deadline */

static bool asleep_off_its_hart(void *arg)
{
	struct task *t = arg;

	return READ_ONCE(t->state) == TASK_SLEEPING && !READ_ONCE(t->on_cpu);
}

/* One wake-up, on WAKER_HART, of a task asleep on SLEEPER_HART, made under
 * a spinlock, with an interrupt (an IPI to itself) taken under it too.
 * Return: 1 if it owed that hart an IPI (a kick was chosen) and sent it
 * only after the lock was dropped, 0 if no IPI was chosen (another task
 * ran on that hart), -1 if the IPI went under the lock (the wake-up's or
 * the interrupt's exit sent it) or was still owed after it, or the
 * sleeper never slept, or the interrupt never came. */
static int wake_under_lock_once(void)
{
	static DEFINE_SPINLOCK(lock);
	struct kick_sleeper s = { .go = 0 };
	unsigned int other = SLEEPER_HART;
	struct task *sl;
	unsigned long ipis, owed, left, flags, taken;
	int ret = 0;

	wait_queue_init(&s.wq);
	sl = task_create_on("kick_sleeper", kick_sleeper_fn, &s, (int)other);
	if (IS_ERR(sl))
		return -1;
	/* Off its hart, not only marked sleeping (still on it, the wake-up
	 * needs no IPI) */
	if (race_wait_until(asleep_off_its_hart, sl)) {
		__atomic_store_n(&s.go, 1, __ATOMIC_RELEASE);
		wake_up_all(&s.wq);
		task_join(sl);
		return -1;
	}
	spin_lock(&lock);
	ipis = READ_ONCE(this_cpu()->ipis_sent);
	__atomic_store_n(&s.go, 1, __ATOMIC_RELEASE);
	wake_up_all(&s.wq);
	/* An interrupt taken under the lock: its exit must leave the owed
	 * IPI to the lock's release too. */
	taken = READ_ONCE(this_cpu()->ipis_taken);
	arch_send_ipi(this_cpu());
	for (unsigned long i = 0;
	     READ_ONCE(this_cpu()->ipis_taken) == taken && i < SELF_IPI_SPINS;
	     i++)
		arch_cpu_relax();
	if (READ_ONCE(this_cpu()->ipis_taken) == taken)
		ret = -1; /* never came */
	flags = arch_irq_save();
	owed = this_cpu()->kicks;
	arch_irq_restore(flags);
	if (!ret && READ_ONCE(this_cpu()->ipis_sent) != ipis)
		ret = owed & (1UL << other) ? 1 : -1;
	spin_unlock(&lock);
	flags = arch_irq_save();
	left = this_cpu()->kicks;
	arch_irq_restore(flags);
	if (left)
		ret = -1;
	task_join(sl);
	return ret;
}

/* On WAKER_HART: try until a wake-up needed an IPI. Return: 1, or
 * what the last try found. */
static int wake_under_lock_tries(void *arg)
{
	int r = 0;

	(void)arg;
	for (int i = 0; i < 50 && !r; i++)
		r = wake_under_lock_once();
	return r;
}

/* A waker holds its queue's lock (a mutex's or an rw-semaphore's
 * wait_lock, a wait queue's lock): the IPI that wakes an idle hart, an SBI
 * call through M-mode, waits until the lock is dropped, and then goes
 * (send_kick in kernel/sched.c). Before, it went under the lock, and
 * every hart that wanted the lock spun meanwhile: in `bench mixed` the
 * harts spun ~0.8 s of each 2 s round on rw-semaphores' wait_locks. The
 * waker and the sleeper are pinned to two harts, and the sleeper is off
 * its hart before the wake-up; a try still proves nothing when another
 * task (a daemon woken by its timer) happens to run on the sleeper's
 * hart then, and is tried again. */
static void wake_under_lock_sends_ipi_after_unlock(struct ktest *t)
{
	struct task *w;

	KTEST_ASSERT_GT(t, ncpus, 1);
	w = task_create_on("waker", wake_under_lock_tries, NULL, WAKER_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(w));
	KTEST_EXPECT_EQ(t, task_join(w), 1);
}

static int nothing(void *arg)
{
	(void)arg;
	return 0;
}

/* A name that fits is kept whole; a longer one is cut with a '~' at the
 * end (rule of task_create in sched.h). */
static void long_names_show_the_cut(struct ktest *t)
{
	static const char
	    fits[] = "task-name-of-exactly-39-characters-fits",
	    longer[] = "a-task-name-of-fifty-characters-is-cut-at-forty!!!";
	struct task *a = task_create(fits, nothing, NULL),
		    *b = task_create(longer, nothing, NULL);

	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_EXPECT_EQ(t, strlen(fits), TASK_NAME_LEN - 1);
	KTEST_EXPECT_STREQ(t, a->name, fits);
	KTEST_EXPECT_EQ(t, strlen(b->name), TASK_NAME_LEN - 1);
	KTEST_EXPECT_EQ(t, strncmp(b->name, longer, TASK_NAME_LEN - 2), 0);
	KTEST_EXPECT_EQ(t, b->name[TASK_NAME_LEN - 2], '~');
	task_join(a);
	task_join(b);
}

/* ---- sleeping: schedule_until and task_sleep_ns (docs/labs.md, lab 5) */

#define NAP_HART ((int)(ncpus - 1))

/* Asleep for real: marked sleeping, off its hart and off the run queue
 * (a task preempted just after it marked itself sleeping is still
 * queued). */
static bool asleep(struct task *t)
{
	return READ_ONCE(t->state) == TASK_SLEEPING && !READ_ONCE(t->on_cpu) &&
	       !READ_ONCE(t->on_rq);
}

struct sleeper {
	struct task *task;
	uint64_t ns;	/* how long it sleeps */
	uint64_t slept; /* how long task_sleep_ns took */
	bool done, seen_asleep;
};

static int sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	uint64_t start = time_ns();

	task_sleep_ns(s->ns);
	s->slept = time_ns() - start;
	WRITE_ONCE(s->done, true);
	return 0;
}

static bool asleep_or_done(void *arg)
{
	struct sleeper *s = arg;

	if (asleep(s->task)) {
		s->seen_asleep = true;
		return true;
	}
	return READ_ONCE(s->done);
}

/* A task in task_sleep_ns is off its hart, not spinning on it. */
static void sleep_leaves_the_hart(struct ktest *t)
{
	struct sleeper s = { .ns = 500 * NSEC_PER_MSEC };

	s.task = task_create_on("sleeper", sleeper_fn, &s, NAP_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(s.task));
	KTEST_EXPECT_EQ(t, race_wait_until(asleep_or_done, &s), 0);
	KTEST_EXPECT_TRUE(t, s.seen_asleep);
	task_join(s.task);
	KTEST_EXPECT_GE(t, s.slept, s.ns);
}

/* A wake-up that comes before the deadline (a wait queue's, say: the
 * task may be on one) does not end a task_sleep_ns: it sleeps again
 * until its time is up. */
static void sleep_outlasts_early_wakeup(struct ktest *t)
{
	struct sleeper s = { .ns = 300 * NSEC_PER_MSEC };

	s.task = task_create_on("sleeper", sleeper_fn, &s, NAP_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(s.task));
	KTEST_EXPECT_EQ(t, race_wait_until(asleep_or_done, &s), 0);
	KTEST_EXPECT_TRUE(t, s.seen_asleep);
	wake_up_task(s.task);
	task_join(s.task);
	KTEST_EXPECT_GE(t, s.slept, s.ns);
}

struct napper {
	struct task *task;
	int go;		   /* atomic: the waker's condition */
	unsigned int naps; /* returns from schedule_until */
	bool in_time, seen_asleep;
};

/* The shape of every timed wait (wait_event_timeout): mark sleeping,
 * check the condition, sleep until woken or the deadline. */
static int napper_fn(void *arg)
{
	struct napper *n = arg;
	uint64_t deadline = time_ns() + 10 * NSEC_PER_SEC;

	for (;;) {
		set_current_state(TASK_SLEEPING);
		if (__atomic_load_n(&n->go, __ATOMIC_ACQUIRE))
			break;
		n->in_time = schedule_until(deadline);
		WRITE_ONCE(n->naps, n->naps + 1);
		if (!n->in_time)
			break;
	}
	set_current_state(TASK_RUNNABLE);
	return 0;
}

/* Asleep, or back from schedule_until so often it cannot have slept. */
static bool asleep_or_spinning(void *arg)
{
	struct napper *n = arg;

	if (asleep(n->task)) {
		n->seen_asleep = true;
		return true;
	}
	return READ_ONCE(n->naps) >= 100;
}

/* schedule_until sleeps until wake_up_task, and says the deadline had
 * not passed. */
static void schedule_until_ends_at_wakeup(struct ktest *t)
{
	struct napper n = { .go = 0 };

	n.task = task_create_on("napper", napper_fn, &n, NAP_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(n.task));
	KTEST_EXPECT_EQ(t, race_wait_until(asleep_or_spinning, &n), 0);
	KTEST_EXPECT_TRUE(t, n.seen_asleep);
	__atomic_store_n(&n.go, 1, __ATOMIC_RELEASE);
	wake_up_task(n.task);
	task_join(n.task);
	KTEST_EXPECT_TRUE(t, n.in_time);
	KTEST_EXPECT_LE(t, n.naps, 2);
}

/* With nobody to wake it, schedule_until returns false at the deadline,
 * not before. */
static void schedule_until_ends_at_deadline(struct ktest *t)
{
	uint64_t deadline = time_ns() + 20 * NSEC_PER_MSEC;
	bool in_time;

	set_current_state(TASK_SLEEPING);
	in_time = schedule_until(deadline);
	set_current_state(TASK_RUNNABLE);
	KTEST_EXPECT_FALSE(t, in_time);
	KTEST_EXPECT_GE(t, time_ns(), deadline);
}

/* ---- the time slice: busy tasks on one hart take turns (lab 5) */

struct sharer {
	struct sharer *other;
	unsigned long laps; /* read by the other */
	unsigned int turns; /* times it saw the other's laps move */
	const bool *stop;
};

/* Never yields. The other sharer runs on the same hart, so its laps move
 * only while this one is off the hart: each move seen is a turn. */
static int sharer_fn(void *arg)
{
	struct sharer *s = arg;
	unsigned long seen = READ_ONCE(s->other->laps);

	while (!READ_ONCE(*s->stop)) {
		unsigned long now = READ_ONCE(s->other->laps);

		if (now != seen) {
			WRITE_ONCE(s->turns, s->turns + 1);
			seen = now;
		}
		WRITE_ONCE(s->laps, s->laps + 1);
	}
	return 0;
}

#define SHARE_TURNS 5
#define SHARE_TICKS 250 /* 1 s of the hart's ticks: 50 slices */

struct share {
	struct sharer s[2];
	uint64_t ticks_at_start;
};

/* Both had their turns, or the hart ticked so often that they would have
 * (a bound in the hart's own ticks, not in time a busy host stretches). */
static bool turns_taken_or_hart_ticked(void *arg)
{
	struct share *sh = arg;

	return (READ_ONCE(sh->s[0].turns) >= SHARE_TURNS &&
		READ_ONCE(sh->s[1].turns) >= SHARE_TURNS) ||
	       READ_ONCE(cpus[NAP_HART].ticks) - sh->ticks_at_start >=
		   SHARE_TICKS;
}

/* Two tasks that never yield, pinned to one hart, take turns: the tick
 * ends each one's slice (TIME_SLICE_TICKS) while the other waits. */
static void busy_tasks_share_a_hart(struct ktest *t)
{
	static bool stop;
	struct share sh = { .ticks_at_start = READ_ONCE(cpus[NAP_HART].ticks) };
	struct task *a, *b;

	WRITE_ONCE(stop, false);
	for (int i = 0; i < 2; i++)
		sh.s[i] = (struct sharer){ .other = &sh.s[!i], .stop = &stop };
	a = task_create_on("sharer", sharer_fn, &sh.s[0], NAP_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	b = task_create_on("sharer", sharer_fn, &sh.s[1], NAP_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_EXPECT_EQ(t, race_wait_until(turns_taken_or_hart_ticked, &sh), 0);
	WRITE_ONCE(stop, true);
	task_join(a);
	task_join(b);
	ktest_log(t,
		  "turns %u and %u in %lu ticks",
		  sh.s[0].turns,
		  sh.s[1].turns,
		  (unsigned long)(READ_ONCE(cpus[NAP_HART].ticks) -
				  sh.ticks_at_start));
	KTEST_EXPECT_GE(t, sh.s[0].turns, SHARE_TURNS);
	KTEST_EXPECT_GE(t, sh.s[1].turns, SHARE_TURNS);
}

static struct ktest_case sched_cases[] = {
	KTEST_CASE(many_tasks_finish),
	KTEST_CASE(every_hart_runs_tasks),
	KTEST_CASE(preemption_switches_busy_task),
	KTEST_CASE(sleep_lasts_at_least),
	KTEST_CASE(wait_wake_ping_pong),
	KTEST_CASE(completion_times_out),
	KTEST_CASE(ticks_on_every_hart),
	KTEST_CASE(interrupt_wake_stays_on_its_hart),
	KTEST_CASE(wake_under_lock_sends_ipi_after_unlock),
	KTEST_CASE(long_names_show_the_cut),
	KTEST_CASE(sleep_leaves_the_hart),
	KTEST_CASE(sleep_outlasts_early_wakeup),
	KTEST_CASE(schedule_until_ends_at_wakeup),
	KTEST_CASE(schedule_until_ends_at_deadline),
	KTEST_CASE(busy_tasks_share_a_hart),
	{},
};
KTEST_SUITE(sched_basic, sched_cases);

/*
 * kernel/locks_fastpath_test.c: suite locks_fastpath - the lock words of
 * mutexes and rw-semaphores (kernel/mutex.h, kernel/rwsem.h).
 *
 * Uncontended, a take and a drop touch no wait_lock (counted: the task's
 * lock acquisitions). Contended, no wake-up is lost when the holder lets
 * go at either moment of a waiter's slow path, forced with race hooks:
 * at RACE_LOCK_ANNOUNCE (the waiter read the word as held, its waiters
 * bit not set: the holder's drop takes the fast path and wakes nobody,
 * so the waiter must see the lock free) and at RACE_LOCK_QUEUED (queued,
 * the bit set, about to sleep: the drop must see the bit and hand the
 * lock over). And the fast paths exclude: plain counters stay exact and
 * no two holders meet, with holders on three harts that spin for each
 * other, so that a release finds the others polling the word at once.
 */
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/lockdep.h>
#include <kernel/mutex.h>
#include <kernel/race.h>
#include <kernel/rwsem.h>
#include <kernel/sched.h>
#include <kernel/time.h>

#define HOLDER_HART 1
#define WAITER_HART 2
/* The hook waits for the holder's release this long: the holder's hart
 * may go unrun for seconds on a loaded host; a lost wake-up is seen
 * after the release, by the wait for the waiter (RACE_TIMEOUT_MS). */
#define HOOK_GIVE_UP_NS (20 * NSEC_PER_SEC)

/* ---- uncontended: the lock itself, and no wait_lock ---- */

static void uncontended_takes_no_wait_lock(struct ktest *t)
{
	struct mutex m;
	struct rw_semaphore s;
	unsigned long before;

	mutex_init(&m, "test.fast_mutex", NULL);
	init_rwsem(&s, "test.fast_rwsem", NULL);
	before = lockdep_acquired();
	mutex_lock(&m);
	mutex_unlock(&m);
	KTEST_EXPECT_TRUE(t, mutex_trylock(&m));
	mutex_unlock(&m);
	KTEST_EXPECT_EQ(t, lockdep_acquired() - before, 2);

	before = lockdep_acquired();
	down_read(&s);
	down_read(&s); /* a reader beside a reader: still the fast path */
	up_read(&s);
	up_read(&s);
	down_write(&s);
	up_write(&s);
	KTEST_EXPECT_TRUE(t, down_read_trylock(&s));
	up_read(&s);
	KTEST_EXPECT_TRUE(t, down_write_trylock(&s));
	up_write(&s);
	KTEST_EXPECT_EQ(t, lockdep_acquired() - before, 5);
	KTEST_EXPECT_EQ(t, s.stats.contended, 0);
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(&s));
}

/* ---- contended hand-off at a forced moment ---- */

enum lock_kind { MUTEX, RWSEM_READ, RWSEM_WRITE };

struct handoff {
	struct mutex m;
	struct rw_semaphore s;
	enum lock_kind holder_kind, waiter_kind;
	enum race_id point;
	struct task *waiter;
	bool holding;	   /* the holder has the lock */
	bool at_point;	   /* the waiter's hook is running */
	bool released;	   /* the holder let go */
	bool seen_release; /* the hook saw it before it went on */
	bool taken;	   /* the waiter has the lock */
	bool waiter_was_owner;
};

static struct handoff *ho;

static void take(struct handoff *h, enum lock_kind k)
{
	if (k == MUTEX)
		mutex_lock(&h->m);
	else if (k == RWSEM_READ)
		down_read(&h->s);
	else
		down_write(&h->s);
}

static void drop(struct handoff *h, enum lock_kind k)
{
	if (k == MUTEX)
		mutex_unlock(&h->m);
	else if (k == RWSEM_READ)
		up_read(&h->s);
	else
		up_write(&h->s);
}

/* The waiter's hook: stop (spinning: the point may hold wait_lock) until
 * the holder has let go. Once per case. */
static void handoff_hook(void *obj)
{
	struct handoff *h = ho;
	uint64_t until;

	(void)obj;
	if (!h || current_task() != h->waiter || ktest_flag_up(&h->at_point))
		return;
	ktest_flag_raise(&h->at_point);
	until = time_ns() + HOOK_GIVE_UP_NS;
	while (!ktest_flag_up(&h->released) && time_ns() < until)
		arch_cpu_relax();
	WRITE_ONCE(h->seen_release, ktest_flag_up(&h->released));
}

static bool flag_is_up(void *flag)
{
	return ktest_flag_up(flag);
}

static int handoff_holder(void *arg)
{
	struct handoff *h = arg;
	int ret;

	take(h, h->holder_kind);
	ktest_flag_raise(&h->holding);
	ret = race_wait_until(flag_is_up, &h->at_point) ? -1 : 0;
	drop(h, h->holder_kind);
	ktest_flag_raise(&h->released);
	return ret; /* -1: the waiter never got there */
}

static int handoff_waiter(void *arg)
{
	struct handoff *h = arg;

	WRITE_ONCE(h->waiter, current_task()); /* the hook stops this task */
	take(h, h->waiter_kind);
	h->waiter_was_owner =
	    h->waiter_kind == MUTEX ? mutex_owner(&h->m) == current_task()
	    : h->waiter_kind == RWSEM_WRITE ? rwsem_is_write_owner(&h->s)
					    : rwsem_is_locked(&h->s);
	ktest_flag_raise(&h->taken);
	drop(h, h->waiter_kind);
	return 0;
}

static void run_handoff(struct ktest *t,
			enum lock_kind holder,
			enum lock_kind waiter,
			enum race_id point)
{
	static struct handoff h;
	struct task *ht, *wt;

	KTEST_ASSERT_GE(t, ncpus, 3);
	h = (struct handoff){ .holder_kind = holder,
			      .waiter_kind = waiter,
			      .point = point };
	mutex_init(&h.m, "test.handoff_mutex", NULL);
	init_rwsem(&h.s, "test.handoff_rwsem", NULL);
	h.m.spin_ns = h.s.spin_ns = 0; /* straight to the slow path */
	ho = &h;
	race_hook_set(point, handoff_hook);
	ht = task_create_on("ho_holder", handoff_holder, &h, HOLDER_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(ht));
	KTEST_ASSERT_EQ(t, race_wait_until(flag_is_up, &h.holding), 0);
	wt = task_create_on("ho_waiter", handoff_waiter, &h, WAITER_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(wt));
	KTEST_EXPECT_EQ(t, task_join(ht), 0);
	/* a lost wake-up leaves the waiter asleep for ever: bounded here */
	KTEST_EXPECT_EQ(t, race_wait_until(flag_is_up, &h.taken), 0);
	race_hook_set(point, NULL);
	KTEST_ASSERT_TRUE(t, ktest_flag_up(&h.taken));
	task_join(wt);
	ho = NULL;
	KTEST_EXPECT_TRUE(t, h.seen_release);
	KTEST_EXPECT_TRUE(t, h.waiter_was_owner);
	KTEST_EXPECT_FALSE(t, mutex_is_locked(&h.m));
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(&h.s));
	KTEST_EXPECT_EQ(t, h.m.owner, 0);
	KTEST_EXPECT_EQ(t, h.s.count, 0);
}

/* The holder's drop, between the waiter's look and its waiters bit, is a
 * fast one: the waiter must find the lock free. */
static void mutex_release_before_announce(struct ktest *t)
{
	run_handoff(t, MUTEX, MUTEX, RACE_LOCK_ANNOUNCE);
}

/* The drop while the waiter is queued and not yet asleep: the bit sends
 * it to the slow path, which hands over and wakes. */
static void mutex_release_before_sleep(struct ktest *t)
{
	run_handoff(t, MUTEX, MUTEX, RACE_LOCK_QUEUED);
}

static void rwsem_write_release_before_announce(struct ktest *t)
{
	run_handoff(t, RWSEM_WRITE, RWSEM_READ, RACE_LOCK_ANNOUNCE);
}

static void rwsem_write_release_before_sleep(struct ktest *t)
{
	run_handoff(t, RWSEM_WRITE, RWSEM_WRITE, RACE_LOCK_QUEUED);
}

static void rwsem_read_release_before_announce(struct ktest *t)
{
	run_handoff(t, RWSEM_READ, RWSEM_WRITE, RACE_LOCK_ANNOUNCE);
}

/* The last reader leaves with a writer queued: its release must wake. */
static void rwsem_read_release_before_sleep(struct ktest *t)
{
	run_handoff(t, RWSEM_READ, RWSEM_WRITE, RACE_LOCK_QUEUED);
}

/* ---- exclusion through the fast paths ---- */

#define EXCL_WORKERS	3
#define EXCL_ITERATIONS 20000
#define EXCL_HOLD_RELAX 50
#define EXCL_SPIN_NS	(1000 * 1000)

struct excl {
	struct mutex m;
	struct rw_semaphore s;
	int inside;   /* atomic: holders now (a writer counts 1000) */
	int overlaps; /* atomic: a holder met one it excludes */
	long value;   /* plain: exact only under exclusion */
	bool rwsem;
};

static int excl_worker(void *arg)
{
	struct excl *e = arg;

	for (int i = 0; i < EXCL_ITERATIONS; i++) {
		bool reader = e->rwsem && (i + (int)cpu_id()) % 3 == 0;
		int me = reader ? 1 : 1000;
		int was;

		if (!e->rwsem)
			mutex_lock(&e->m);
		else if (reader)
			down_read(&e->s);
		else
			down_write(&e->s);
		was = __atomic_fetch_add(&e->inside, me, __ATOMIC_RELAXED);
		if (reader ? was >= 1000 : was != 0)
			__atomic_fetch_add(&e->overlaps, 1, __ATOMIC_RELAXED);
		if (!reader)
			e->value = e->value + 1;
		/* a hold the others spin through (EXCL_SPIN_NS), polling
		 * the word: its release finds them all ready to take it */
		for (int k = 0; k < EXCL_HOLD_RELAX; k++)
			arch_cpu_relax();
		__atomic_fetch_sub(&e->inside, me, __ATOMIC_RELAXED);
		if (!e->rwsem)
			mutex_unlock(&e->m);
		else if (reader)
			up_read(&e->s);
		else
			up_write(&e->s);
	}
	return 0;
}

static void run_excl(struct ktest *t, bool rwsem)
{
	static struct excl e;
	struct task *w[EXCL_WORKERS];
	long writes = 0;

	KTEST_ASSERT_GE(t, ncpus, EXCL_WORKERS + 1);
	e = (struct excl){ .rwsem = rwsem };
	mutex_init(&e.m, "test.excl_mutex", NULL);
	init_rwsem(&e.s, "test.excl_rwsem", NULL);
	e.m.spin_ns = e.s.spin_ns = EXCL_SPIN_NS;
	for (int i = 0; i < EXCL_WORKERS; i++) {
		w[i] = task_create_on("excl", excl_worker, &e, i + 1);
		KTEST_ASSERT_FALSE(t, IS_ERR(w[i]));
	}
	for (int i = 0; i < EXCL_WORKERS; i++)
		task_join(w[i]);
	for (int c = 1; c <= EXCL_WORKERS; c++)
		for (int i = 0; i < EXCL_ITERATIONS; i++)
			writes += !rwsem || (i + c) % 3 != 0;
	KTEST_EXPECT_EQ(t, e.overlaps, 0);
	KTEST_EXPECT_EQ(t, e.value, writes);
	KTEST_EXPECT_EQ(t, e.m.owner, 0);
	KTEST_EXPECT_EQ(t, e.s.count, 0);
}

static void mutex_fast_paths_exclude(struct ktest *t)
{
	run_excl(t, false);
}

static void rwsem_fast_paths_exclude(struct ktest *t)
{
	run_excl(t, true);
}

static struct ktest_case fastpath_cases[] = {
	KTEST_CASE(uncontended_takes_no_wait_lock),
	KTEST_CASE(mutex_release_before_announce),
	KTEST_CASE(mutex_release_before_sleep),
	KTEST_CASE(rwsem_write_release_before_announce),
	KTEST_CASE(rwsem_write_release_before_sleep),
	KTEST_CASE(rwsem_read_release_before_announce),
	KTEST_CASE(rwsem_read_release_before_sleep),
	KTEST_CASE(mutex_fast_paths_exclude),
	KTEST_CASE(rwsem_fast_paths_exclude),
	{},
};
KTEST_SUITE(locks_fastpath, fastpath_cases);

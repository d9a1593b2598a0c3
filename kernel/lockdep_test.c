/*
 * kernel/lockdep_test.c: suite locks_lockdep - acquisitions against the
 * documented order are reported (once per pair), acquisitions in order and
 * ordered nesting of one class are not; releasing a lock not held is; the
 * highest rank held, which spares an acquisition above it the walk of the
 * held locks, follows the releases.
 */
#include <kernel/ktest.h>
#include <kernel/lockdep.h>
#include <kernel/sched.h>
#include <kernel/mutex.h>
#include <kernel/rwsem.h>

static DEFINE_LOCK_CLASS(test_outer_class, LOCK_RANK_I_RWSEM);
static DEFINE_LOCK_CLASS(test_inner_class, LOCK_RANK_INVALIDATE);

static void in_order_is_quiet(struct ktest *t)
{
	struct rw_semaphore outer, inner;
	unsigned long before = lockdep_reports();

	init_rwsem(&outer, "outer", &test_outer_class);
	init_rwsem(&inner, "inner", &test_inner_class);
	down_write(&outer);
	down_read(&inner);
	up_read(&inner);
	up_write(&outer);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before);
}

static void inversion_is_reported_once(struct ktest *t)
{
	struct rw_semaphore outer, inner;
	unsigned long before = lockdep_reports();

	init_rwsem(&outer, "outer", &test_outer_class);
	init_rwsem(&inner, "inner", &test_inner_class);
	for (int i = 0; i < 2; i++) {
		down_read(&inner);
		down_write(&outer); /* against the order: reported */
		up_write(&outer);
		up_read(&inner);
	}
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
}

static void same_class_needs_nesting(struct ktest *t)
{
	struct rw_semaphore a, b;
	unsigned long before;

	init_rwsem(&a, "a", &test_inner_class);
	init_rwsem(&b, "b", &test_inner_class);
	before = lockdep_reports();
	down_write(&a);
	down_write_nested(&b, 1);
	up_write(&b);
	up_write(&a);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before);
	down_write(&a);
	down_write(&b); /* same rank, no nesting annotation: reported */
	up_write(&b);
	up_write(&a);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
}

static void held_assertions_see_mode(struct ktest *t)
{
	struct rw_semaphore s;
	struct mutex m;

	init_rwsem(&s, "s", NULL);
	mutex_init(&m, "m", NULL);
	KTEST_EXPECT_FALSE(t, lockdep_is_held(&s.dep, LOCK_MODE_ANY));
	down_read(&s);
	KTEST_EXPECT_TRUE(t, lockdep_is_held(&s.dep, LOCK_MODE_SHARED));
	KTEST_EXPECT_FALSE(t, lockdep_is_held(&s.dep, LOCK_MODE_EXCLUSIVE));
	up_read(&s);
	mutex_lock(&m);
	KTEST_EXPECT_TRUE(t, lockdep_is_held(&m.dep, LOCK_MODE_EXCLUSIVE));
	mutex_unlock(&m);
	KTEST_EXPECT_FALSE(t, lockdep_is_held(&m.dep, LOCK_MODE_ANY));
}

/* Rule: releasing a lock the task does not hold is a bug lockdep reports
 * (as Linux's "bad unlock balance"), each time. */
static void release_unheld_is_reported(struct ktest *t)
{
	struct mutex m;
	unsigned long before;

	mutex_init(&m, "m", &test_inner_class);
	before = lockdep_reports();
	lockdep_release(&m.dep); /* never taken */
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
	mutex_lock(&m);
	mutex_unlock(&m);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
	lockdep_release(&m.dep); /* released twice */
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 2);
}

/* An acquisition ranked above every lock held skips the walk of the held
 * stack (each entry keeps the highest rank up to it). The highest rank
 * must stay that of the locks still held: released from the middle of
 * the stack, a lower lock takes nothing away; released from the top, the
 * next is the highest again; an unranked lock on top keeps the bar of the
 * ranked one under it. */
static DEFINE_LOCK_CLASS(top_low_class, LOCK_RANK_I_RWSEM);
static DEFINE_LOCK_CLASS(top_mid_class, LOCK_RANK_INVALIDATE);
static DEFINE_LOCK_CLASS(top_page_class, LOCK_RANK_PAGE);
static DEFINE_LOCK_CLASS(top_high_class, LOCK_RANK_I_MMAP);

static void top_rank_follows_releases(struct ktest *t)
{
	/* Bare maps: a mutex's own wait_lock would move the stack too. */
	const struct lockdep_map low = { &top_low_class, "low" },
				 mid = { &top_mid_class, "mid" },
				 page = { &top_page_class, "page" },
				 high = { &top_high_class, "high" },
				 unranked = { NULL, "unranked" };
	unsigned long before = lockdep_reports();

	lockdep_acquire(&low, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	lockdep_acquire(&high, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	lockdep_release(&high);
	lockdep_acquire(&mid, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_); /* in order */
	lockdep_release(&mid);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before);
	lockdep_acquire(&high, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	lockdep_release(&low); /* out of the middle: high still held */
	lockdep_acquire(&mid, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_); /* reported */
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
	lockdep_release(&mid);
	lockdep_acquire(&unranked, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	lockdep_acquire(
	    &page, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_); /* reported */
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 2);
	lockdep_release(&page);
	lockdep_release(&unranked);
	lockdep_release(&high);
}

static struct ktest_case lockdep_cases[] = {
	KTEST_CASE(in_order_is_quiet),
	KTEST_CASE(inversion_is_reported_once),
	KTEST_CASE(same_class_needs_nesting),
	KTEST_CASE(held_assertions_see_mode),
	KTEST_CASE(release_unheld_is_reported),
	KTEST_CASE(top_rank_follows_releases),
	{},
};
KTEST_SUITE(locks_lockdep, lockdep_cases);

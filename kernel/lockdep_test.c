/*
 * kernel/lockdep_test.c: suite locks_lockdep - acquisitions against the
 * documented order are reported (once per pair), acquisitions in order and
 * ordered nesting of one class are not; releasing a lock not held is.
 */
#include <kernel/ktest.h>
#include <kernel/lockdep.h>
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

static struct ktest_case lockdep_cases[] = {
	KTEST_CASE(in_order_is_quiet),
	KTEST_CASE(inversion_is_reported_once),
	KTEST_CASE(same_class_needs_nesting),
	KTEST_CASE(held_assertions_see_mode),
	KTEST_CASE(release_unheld_is_reported),
	{},
};
KTEST_SUITE(locks_lockdep, lockdep_cases);

/*
 * mm/invalidate_test.c: suite pcache_invalidate - the invalidate_lock API
 * (mm/invalidate.c): lock_two's order on several harts at once, the same
 * mapping and NULL, the acquisition counters, the trylock, the unlock's
 * check for pages back in an invalidated range, and a file's own mode.
 */
#include <limits.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <mm/mm_test.h>
#include <mm/pcache_test.h>

#define LOCK_TWO_ROUNDS 400

struct two {
	struct address_space *a, *b;
	int start;	  /* atomic: tasks at the start barrier */
	int in_ab, in_ba; /* atomic: tasks inside lock_two per direction */
	unsigned long overlaps; /* atomic: a task met the other direction */
	unsigned long bad;	/* atomic: inside without both locks owned */
};

struct two_arg {
	struct two *two;
	bool reverse;
};

static int lock_two_worker(void *arg)
{
	struct two_arg *ta = arg;
	struct two *tw = ta->two;
	int *mine = ta->reverse ? &tw->in_ba : &tw->in_ab;
	int *theirs = ta->reverse ? &tw->in_ab : &tw->in_ba;

	__atomic_add_fetch(&tw->start, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&tw->start, __ATOMIC_SEQ_CST) < (int)ncpus)
		task_yield();
	for (int i = 0; i < LOCK_TWO_ROUNDS; i++) {
		__atomic_add_fetch(mine, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(theirs, __ATOMIC_SEQ_CST))
			__atomic_add_fetch(&tw->overlaps, 1, __ATOMIC_RELAXED);
		if (ta->reverse)
			filemap_invalidate_lock_two(tw->b, tw->a);
		else
			filemap_invalidate_lock_two(tw->a, tw->b);
		if (!rwsem_is_write_owner(&tw->a->invalidate_lock) ||
		    !rwsem_is_write_owner(&tw->b->invalidate_lock))
			__atomic_add_fetch(&tw->bad, 1, __ATOMIC_RELAXED);
		task_yield(); /* hold it a while: the others queue */
		if (ta->reverse)
			filemap_invalidate_unlock_two(tw->b, tw->a);
		else
			filemap_invalidate_unlock_two(tw->a, tw->b);
		__atomic_sub_fetch(mine, 1, __ATOMIC_SEQ_CST);
	}
	return 0;
}

/* Half the harts lock (A, B), the other half (B, A), at once, many times
 * (how often the directions met is logged; the forced meeting is the next
 * case's). Without the address order this deadlocks; the boot's timeout
 * would catch it. */
static void invalidate_lock_two_both_orders(struct ktest *t)
{
	struct tdisk *da = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct tdisk *db = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct two tw = { .a = da->inode.i_mapping, .b = db->inode.i_mapping };
	struct two_arg args[MAX_CPUS];
	unsigned long reports = lockdep_reports();

	KTEST_ASSERT_GE(t, ncpus, 2); /* the boots running it have 4 */
	for (unsigned int c = 0; c < ncpus; c++)
		args[c] = (struct two_arg){ &tw, c % 2 == 1 };
	KTEST_EXPECT_EQ(
	    t,
	    mm_test_on_every_hart(
		t, "lock_two", lock_two_worker, args, sizeof(args[0])),
	    0);
	KTEST_EXPECT_EQ(t, tw.bad, 0);
	ktest_log(t,
		  "%u harts, %lu overlaps of A-B with B-A, %lu contended",
		  ncpus,
		  tw.overlaps,
		  tw.a->invalidate_lock.stats.contended +
		      tw.b->invalidate_lock.stats.contended);
	KTEST_EXPECT_EQ(t,
			tw.a->invalidate_lock.stats.exclusive,
			(unsigned long)ncpus * LOCK_TWO_ROUNDS);
	KTEST_EXPECT_EQ(t, lockdep_reports(), reports);
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(&tw.a->invalidate_lock));
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(&tw.b->invalidate_lock));
	tdisk_destroy(t, da);
	tdisk_destroy(t, db);
}

struct two_task {
	struct address_space *first, *second;
};

static int lock_two_once(void *arg)
{
	struct two_task *tt = arg;

	filemap_invalidate_lock_two(tt->first, tt->second);
	filemap_invalidate_unlock_two(tt->first, tt->second);
	return 0;
}

static bool someone_waits(void *arg)
{
	return rwsem_nr_waiters(arg) > 0;
}

/* The interleaving that deadlocks without the order, forced: X locks
 * (A, B) and stops between the two; Y locks (B, A). Y must wait for the
 * lock X holds - the lower address, first for both - and not hold the
 * other one, which X then takes. */
static void invalidate_lock_two_forced_overlap(struct ktest *t)
{
	struct tdisk *da = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct tdisk *db = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct address_space *a = da->inode.i_mapping, *b = db->inode.i_mapping;
	struct address_space *low = a < b ? a : b, *high = a < b ? b : a;
	struct two_task tx = { a, b }, ty = { b, a };
	struct task *x, *y;

	race_arm(RACE_LOCK_TWO_FIRST);
	x = task_create("lock_ab", lock_two_once, &tx);
	KTEST_ASSERT_FALSE(t, IS_ERR(x));
	KTEST_ASSERT_EQ(t, race_wait(RACE_LOCK_TWO_FIRST, NULL, NULL), 1);
	KTEST_EXPECT_TRUE(t, rwsem_is_locked(&low->invalidate_lock));
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(&high->invalidate_lock));
	y = task_create("lock_ba", lock_two_once, &ty);
	KTEST_ASSERT_FALSE(t, IS_ERR(y));
	KTEST_EXPECT_EQ(
	    t, race_wait_until(someone_waits, &low->invalidate_lock), 0);
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(&high->invalidate_lock));
	race_release(RACE_LOCK_TWO_FIRST);
	KTEST_EXPECT_EQ(t, task_join(x), 0);
	KTEST_EXPECT_EQ(t, task_join(y), 0);
	KTEST_EXPECT_EQ(t, low->invalidate_lock.stats.contended, 1);
	KTEST_EXPECT_EQ(t, high->invalidate_lock.stats.exclusive, 2);
	tdisk_destroy(t, da);
	tdisk_destroy(t, db);
}

static void invalidate_lock_two_same_and_null(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	struct rw_semaphore *s = &m->invalidate_lock;

	filemap_invalidate_lock_two(m, m); /* once: a second would deadlock */
	KTEST_EXPECT_TRUE(t, rwsem_is_write_owner(s));
	KTEST_EXPECT_EQ(t, s->stats.exclusive, 1);
	filemap_invalidate_unlock_two(m, m);
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(s));
	filemap_invalidate_lock_two(NULL, m);
	KTEST_EXPECT_TRUE(t, rwsem_is_write_owner(s));
	filemap_invalidate_unlock_two(NULL, m);
	filemap_invalidate_lock_two(m, NULL);
	KTEST_EXPECT_TRUE(t, rwsem_is_write_owner(s));
	filemap_invalidate_unlock_two(m, NULL);
	filemap_invalidate_lock_two(NULL, NULL);
	filemap_invalidate_unlock_two(NULL, NULL);
	KTEST_EXPECT_FALSE(t, rwsem_is_locked(s));
	KTEST_EXPECT_EQ(t, s->stats.exclusive, 3);
	tdisk_destroy(t, d);
}

static int try_shared(void *arg)
{
	struct address_space *m = arg;

	if (!filemap_invalidate_trylock_shared(m))
		return 0;
	filemap_invalidate_unlock_shared(m);
	return 1;
}

static int run_and_join(int (*fn)(void *), void *arg)
{
	struct task *task = task_create("try", fn, arg);

	return IS_ERR(task) ? -1 : task_join(task);
}

/* Every acquisition counts, by mode; a failed trylock counts as
 * contended; a held shared lock lets another shared holder in. */
static void invalidate_lock_counts(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	struct lock_stats *st = &m->invalidate_lock.stats;

	filemap_invalidate_lock(m);
	KTEST_EXPECT_EQ(t, run_and_join(try_shared, m), 0);
	filemap_invalidate_unlock(m);
	KTEST_EXPECT_EQ(t, st->contended, 1);
	filemap_invalidate_lock_shared(m);
	KTEST_EXPECT_EQ(t, run_and_join(try_shared, m), 1);
	filemap_invalidate_unlock_shared(m);
	KTEST_EXPECT_EQ(t, st->exclusive, 1);
	KTEST_EXPECT_EQ(t, st->shared, 2);
	KTEST_EXPECT_EQ(t, st->contended, 1);
	tdisk_destroy(t, d);
}

/* The holder invalidates pages 2..5, then a page appears at 3 before the
 * unlock (as a fill without the lock would do): the unlock reports it.
 * Pages at the partial edges (1 and 6) stay legitimately. */
static void invalidate_unlock_finds_leftover(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 8 * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	char *buf = kmalloc(8 * PAGE_SIZE, GFP_KERNEL);
	unsigned long before = filemap_invalidate_leftovers();
	struct page *page;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_EQ(t, tdisk_read(d, buf, 8 * PAGE_SIZE, 0), 8 * PAGE_SIZE);
	filemap_invalidate_lock(m);
	truncate_inode_pages_range(m, 2 * PAGE_SIZE - 1, 6 * PAGE_SIZE);
	filemap_invalidate_unlock(m);
	KTEST_EXPECT_EQ(t, filemap_invalidate_leftovers(), before);
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 1) && tdisk_cached(d, 6));

	filemap_invalidate_lock(m);
	truncate_inode_pages_range(m, 2 * PAGE_SIZE, 6 * PAGE_SIZE - 1);
	page = filemap_grab_page(m, 3);
	KTEST_ASSERT_FALSE(t, IS_ERR(page));
	unlock_page(page);
	put_page(page);
	filemap_invalidate_unlock(m);
	KTEST_EXPECT_EQ(t, filemap_invalidate_leftovers(), before + 1);
	kfree(buf);
	tdisk_destroy(t, d);
}

/* A cold read takes the lock shared (once per readahead batch); reading
 * the same, now fully cached, file again takes it zero times. Legacy mode
 * takes it on neither. */
static void invalidate_cached_read_takes_no_lock(struct ktest *t)
{
	loff_t size = 64 * PAGE_SIZE;
	struct tdisk *d = tdisk_create(t, size, TDISK_RAM | TDISK_READAHEAD);
	struct lock_stats *st = &d->inode.i_data.invalidate_lock.stats;
	char *buf = kmalloc(size, GFP_KERNEL);
	unsigned long cold;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_EQ(t, tdisk_read(d, buf, size, 0), size);
	cold = st->shared;
	if (filemap_legacy_mode())
		KTEST_EXPECT_EQ(t, cold, 0);
	else
		KTEST_EXPECT_GT(t, cold, 0);
	for (loff_t pos = 0; pos < size; pos += 1000)
		KTEST_ASSERT_EQ(
		    t, tdisk_read(d, buf, 1000, pos), MIN(1000, size - pos));
	KTEST_ASSERT_EQ(t, tdisk_read(d, buf, size, 0), size);
	KTEST_EXPECT_EQ(t, st->shared, cold);
	KTEST_EXPECT_EQ(t, st->exclusive, 0);
	KTEST_EXPECT_EQ(t, st->contended, 0);
	ktest_log(t, "cold read: %lu shared acquisitions; cached: 0", cold);
	kfree(buf);
	tdisk_destroy(t, d);
}

/* A copy that may fault, with invalidate_lock held: lockdep reports it
 * (as taking mmap_lock inside invalidate_lock). */
static void invalidate_lock_across_fault_reported(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	unsigned long before = lockdep_reports();

	might_fault(); /* nothing held: fine */
	KTEST_EXPECT_EQ(t, lockdep_reports(), before);
	filemap_invalidate_lock_shared(d->inode.i_mapping);
	might_fault();
	filemap_invalidate_unlock_shared(d->inode.i_mapping);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
	tdisk_destroy(t, d);
}

/* The page lock is a lockdep class inside invalidate_lock: taking the
 * latter while holding the former is reported; the right order is not. */
static void invalidate_lock_inside_page_lock_reported(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 4 * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	unsigned long before = lockdep_reports();
	char buf[16];
	struct page *page;

	KTEST_ASSERT_EQ(t, tdisk_read(d, buf, sizeof(buf), 0), sizeof(buf));
	page = filemap_lock_page(m, 0);
	KTEST_ASSERT_NOT_NULL(t, page);
	KTEST_EXPECT_TRUE(t, page_test(page, PG_lockdep)); /* tracked */
	unlock_page(page);
	filemap_invalidate_lock_shared(m); /* the right order */
	lock_page(page);
	unlock_page(page);
	filemap_invalidate_unlock_shared(m);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before);
	lock_page(page); /* the wrong one */
	filemap_invalidate_lock_shared(m);
	filemap_invalidate_unlock_shared(m);
	unlock_page(page);
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
	put_page(page);
	tdisk_destroy(t, d);
}

/* A cold read of a fresh 16-page file with mode @mode: invalidate_lock's
 * shared acquisitions, i_rwsem's shared acquisitions (ktest_log). */
static void cold_read_in_mode(struct ktest *t,
			      enum fill_lock mode,
			      unsigned long *inval,
			      unsigned long *rwsem)
{
	loff_t size = 16 * PAGE_SIZE;
	struct tdisk *d = tdisk_create(t, size, TDISK_RAM | TDISK_READAHEAD);
	struct address_space *m = d->inode.i_mapping;
	char *buf = kmalloc(size, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_EXPECT_EQ(t, mapping_fill_lock(m), filemap_fill_lock());
	filemap_set_fill_lock(m, mode);
	KTEST_EXPECT_EQ(t, mapping_fill_lock(m), mode);
	*inval = m->invalidate_lock.stats.shared;
	*rwsem = d->inode.i_rwsem.stats.shared;
	KTEST_EXPECT_EQ(t, tdisk_read(d, buf, size, 0), size);
	*inval = m->invalidate_lock.stats.shared - *inval;
	*rwsem = d->inode.i_rwsem.stats.shared - *rwsem;
	ktest_log(t,
		  "mode %d: invalidate_lock shared %lu, i_rwsem shared %lu",
		  mode,
		  *inval,
		  *rwsem);
	kfree(buf);
	tdisk_destroy(t, d);
}

/* A file starts with the boot's mode; filemap_set_fill_lock gives one
 * file its own (the benchmark `mixed` compares the three so in one boot),
 * whatever the boot's: the fixed mode's read takes invalidate_lock
 * shared, legacy's nothing, i_rwsem's i_rwsem shared once per read(). */
static void invalidate_mode_per_file(struct ktest *t)
{
	unsigned long inval, rwsem;

	cold_read_in_mode(t, FILL_INVALIDATE_LOCK, &inval, &rwsem);
	KTEST_EXPECT_GT(t, inval, 0);
	KTEST_EXPECT_EQ(t, rwsem, 0);
	cold_read_in_mode(t, FILL_NONE, &inval, &rwsem);
	KTEST_EXPECT_EQ(t, inval, 0);
	KTEST_EXPECT_EQ(t, rwsem, 0);
	cold_read_in_mode(t, FILL_I_RWSEM, &inval, &rwsem);
	KTEST_EXPECT_EQ(t, inval, 0);
	KTEST_EXPECT_EQ(t, rwsem, 1);
}

static struct ktest_case invalidate_cases[] = {
	KTEST_CASE(invalidate_lock_inside_page_lock_reported),
	KTEST_CASE(invalidate_cached_read_takes_no_lock),
	KTEST_CASE(invalidate_lock_across_fault_reported),
	KTEST_CASE(invalidate_lock_two_both_orders),
	KTEST_CASE(invalidate_lock_two_forced_overlap),
	KTEST_CASE(invalidate_lock_two_same_and_null),
	KTEST_CASE(invalidate_lock_counts),
	KTEST_CASE(invalidate_unlock_finds_leftover),
	KTEST_CASE(invalidate_mode_per_file),
	{},
};
KTEST_SUITE(pcache_invalidate, invalidate_cases);

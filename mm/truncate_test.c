/*
 * mm/truncate_test.c: suite pcache_zero_range - filemap_zero_range zeroes
 * exactly the bytes asked for, in cached pages and in pages it must read
 * first, marks them dirty, and writeback carries the zeroes to the disk
 * while every other byte keeps the disk's contents.
 *
 * Suite pcache_truncate_flusher - a punch does not wait for the flusher's
 * pass over the file it punches.
 *
 * Suite pcache_truncate_batch - whole pages leave the cache in batches:
 * the pages freed by one batch wait one grace period together, and a page
 * the door must wait for is waited for only after the batch before it has
 * left (no page lock of a batch is held across the wait).
 */
#include <limits.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include <mm/pcache_test.h>

#define ZR_PAGES 4

static bool all_zero(const char *p, size_t n)
{
	return n == 0 || (!p[0] && !memcmp(p, p + 1, n - 1));
}

static int zero_range(struct tdisk *d, loff_t start, loff_t end)
{
	struct address_space *m = d->inode.i_mapping;
	int err;

	down_write(&d->inode.i_rwsem);
	filemap_invalidate_lock(m);
	err = filemap_zero_range(m, start, end);
	filemap_invalidate_unlock(m);
	up_write(&d->inode.i_rwsem);
	return err;
}

/* Page 1 cached, page 2 not: both are zeroed across their boundary; only
 * page 2 is read; the disk gets the zeroes at writeback, nothing else. */
static void zero_range_cached_and_cold(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, ZR_PAGES * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	loff_t start = PAGE_SIZE + 100, end = 2 * PAGE_SIZE + 50;
	char *want = kmalloc(ZR_PAGES * PAGE_SIZE, GFP_KERNEL);
	char buf[16];

	KTEST_ASSERT_NOT_NULL(t, want);
	memcpy(want, d->data, ZR_PAGES * PAGE_SIZE);
	memset(want + start, 0, end - start);
	KTEST_ASSERT_EQ(t, tdisk_read(d, buf, 1, PAGE_SIZE), 1);
	KTEST_ASSERT_TRUE(t, tdisk_cached(d, 1));
	KTEST_ASSERT_FALSE(t, tdisk_cached(d, 2));

	KTEST_EXPECT_EQ(t, zero_range(d, start, end), 0);
	KTEST_EXPECT_EQ(t, d->reads[1], 1);
	KTEST_EXPECT_EQ(t, d->reads[2], 1);
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 0));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 3));
	KTEST_EXPECT_EQ(t, m->nrdirty, 2);
	/* Not yet on disk: only the cache holds the zeroes. */
	KTEST_EXPECT_FALSE(t, all_zero(d->data + start, end - start));

	KTEST_EXPECT_EQ(t, filemap_write_and_wait_range(m, 0, LLONG_MAX), 0);
	KTEST_EXPECT_EQ(t, m->nrdirty, 0);
	KTEST_EXPECT_EQ(t, d->writes[1], 1);
	KTEST_EXPECT_EQ(t, d->writes[2], 1);
	KTEST_EXPECT_MEMEQ(t, d->data, want, ZR_PAGES * PAGE_SIZE);
	kfree(want);
	tdisk_destroy(t, d);
}

/* An empty or reversed range touches nothing. */
static void zero_range_empty(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, ZR_PAGES * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;

	KTEST_EXPECT_EQ(t, zero_range(d, 100, 100), 0);
	KTEST_EXPECT_EQ(t, zero_range(d, 5000, 100), 0);
	KTEST_EXPECT_EQ(t, m->nrpages, 0);
	KTEST_EXPECT_EQ(t, d->read_calls, 0);
	tdisk_destroy(t, d);
}

static struct ktest_case zero_range_cases[] = {
	KTEST_CASE(zero_range_cached_and_cold),
	KTEST_CASE(zero_range_empty),
	{},
};
KTEST_SUITE(pcache_zero_range, zero_range_cases);

/* The flusher stops on the test's mapping (wb_busy) until released. */
struct wb_hold {
	struct address_space *m;
	bool reached, release, punched;
};

static struct wb_hold *wb_hold;

static void hold_wb_busy(void *obj)
{
	struct wb_hold *h = READ_ONCE(wb_hold);

	if (!h || obj != h->m)
		return;
	ktest_flag_raise(&h->reached);
	while (!ktest_flag_up(&h->release))
		task_sleep_ms(1); /* wb_mutex only: may sleep */
}

static bool flag_up(void *flag)
{
	return ktest_flag_up(flag);
}

static int punch_last_two(void *arg)
{
	struct tdisk *d = arg;
	struct address_space *m = d->inode.i_mapping;

	down_write(&d->inode.i_rwsem);
	filemap_invalidate_lock(m);
	truncate_inode_pages_range(m, 6 * PAGE_SIZE, 8 * PAGE_SIZE - 1);
	filemap_invalidate_unlock(m);
	up_write(&d->inode.i_rwsem);
	ktest_flag_raise(&wb_hold->punched);
	return 0;
}

/* The flusher has taken the file (wb_busy) and not written a page yet: a
 * punch of two of its pages, holding i_rwsem and invalidate_lock, ends
 * without waiting for the flusher's pass over the whole file; readers of
 * the file would wait with it (app/bench_mixed.c: 114 ms stalls). */
static void punch_while_flusher_busy(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 8 * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	struct wb_hold h = { .m = m };
	char *buf = kmalloc(8 * PAGE_SIZE, GFP_KERNEL);
	struct task *p;

	KTEST_ASSERT_NOT_NULL(t, buf);
	memset(buf, 0x5a, 8 * PAGE_SIZE);
	wb_hold = &h;
	race_hook_set(RACE_WB_BUSY, hold_wb_busy);
	KTEST_EXPECT_EQ(
	    t, tdisk_write(d, buf, 8 * PAGE_SIZE, 0), 8 * PAGE_SIZE);
	writeback_wakeup();
	KTEST_EXPECT_EQ(t, race_wait_until(flag_up, &h.reached), 0);
	p = task_create("punch", punch_last_two, d);
	KTEST_EXPECT_FALSE(t, IS_ERR(p));
	if (!IS_ERR(p))
		KTEST_EXPECT_EQ(t, race_wait_until(flag_up, &h.punched), 0);
	KTEST_EXPECT_EQ(t, m->nrpages, 6);
	ktest_flag_raise(&h.release);
	if (!IS_ERR(p))
		KTEST_EXPECT_EQ(t, task_join(p), 0);
	race_hook_set(RACE_WB_BUSY, NULL);
	KTEST_EXPECT_EQ(t, filemap_write_and_wait_range(m, 0, LLONG_MAX), 0);
	KTEST_EXPECT_EQ(t, m->nrdirty, 0);
	wb_hold = NULL;
	kfree(buf);
	tdisk_destroy(t, d);
}

static struct ktest_case flusher_cases[] = {
	KTEST_CASE(punch_while_flusher_busy),
	{},
};
KTEST_SUITE(pcache_truncate_flusher, flusher_cases);

#define TB_PAGES 64

/* A 64-page file, every page cached. */
static struct tdisk *cached_file(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, TB_PAGES * PAGE_SIZE, TDISK_RAM);
	char *buf = kmalloc(TB_PAGES * PAGE_SIZE, GFP_KERNEL);

	if (!buf) {
		tdisk_destroy(t, d);
		return NULL;
	}
	memset(buf, 0x3c, TB_PAGES * PAGE_SIZE);
	if (tdisk_write(d, buf, TB_PAGES * PAGE_SIZE, 0) !=
	    TB_PAGES * PAGE_SIZE) {
		kfree(buf);
		tdisk_destroy(t, d);
		return NULL;
	}
	kfree(buf);
	return d;
}

static void punch_all(struct tdisk *d)
{
	struct address_space *m = d->inode.i_mapping;

	down_write(&d->inode.i_rwsem);
	filemap_invalidate_lock(m);
	truncate_inode_pages_range(m, 0, TB_PAGES * PAGE_SIZE - 1);
	filemap_invalidate_unlock(m);
	up_write(&d->inode.i_rwsem);
}

/* 64 cached pages punched: at most one grace-period callback per batch
 * of 16 (and a few for index nodes and other tasks), not one a page. */
static void freed_pages_share_a_grace_period(struct ktest *t)
{
	struct tdisk *d = cached_file(t);
	struct address_space *m;
	unsigned long before, after;

	KTEST_ASSERT_NOT_NULL(t, d);
	m = d->inode.i_mapping;
	KTEST_EXPECT_EQ(t, m->nrpages, TB_PAGES);
	rcu_barrier();
	before = rcu_callbacks_run();
	punch_all(d);
	rcu_barrier();
	after = rcu_callbacks_run();
	KTEST_EXPECT_EQ(t, m->nrpages, 0);
	KTEST_EXPECT_LE(t, after - before, TB_PAGES / TRUNCATE_BATCH + 8);
	tdisk_destroy(t, d);
}

struct page_holder {
	struct tdisk *d;
	bool done;
};

static int punch_task(void *arg)
{
	struct page_holder *h = arg;

	punch_all(h->d);
	ktest_flag_raise(&h->done);
	return 0;
}

static bool page_waited_for(void *page)
{
	return page_test(page, PG_waiters);
}

/* Page 5 is locked by the test: the punch drops pages 0-4 (its first
 * batch) before it sleeps on page 5, and holds none of their locks. */
static void batch_leaves_before_a_wait(struct ktest *t)
{
	struct tdisk *d = cached_file(t);
	struct page_holder h = { .d = d };
	struct address_space *m;
	struct page *held;
	struct task *p;

	KTEST_ASSERT_NOT_NULL(t, d);
	m = d->inode.i_mapping;
	held = filemap_get_page(m, 5);
	KTEST_ASSERT_NOT_NULL(t, held);
	lock_page(held);
	p = task_create("punch", punch_task, &h);
	KTEST_EXPECT_FALSE(t, IS_ERR(p));
	if (!IS_ERR(p)) {
		KTEST_EXPECT_EQ(t, race_wait_until(page_waited_for, held), 0);
		KTEST_EXPECT_FALSE(t, ktest_flag_up(&h.done));
		KTEST_EXPECT_EQ(t, m->nrpages, TB_PAGES - 5);
		for (unsigned long i = 0; i < 5; i++)
			KTEST_EXPECT_FALSE(t, tdisk_cached(d, i));
		KTEST_EXPECT_TRUE(t, tdisk_cached(d, 6));
	}
	unlock_page(held);
	if (!IS_ERR(p))
		KTEST_EXPECT_EQ(t, task_join(p), 0);
	KTEST_EXPECT_TRUE(t, ktest_flag_up(&h.done));
	KTEST_EXPECT_EQ(t, m->nrpages, 0);
	KTEST_EXPECT_NULL(t, held->mapping);
	put_page(held);
	tdisk_destroy(t, d);
}

static struct ktest_case batch_cases[] = {
	KTEST_CASE(freed_pages_share_a_grace_period),
	KTEST_CASE(batch_leaves_before_a_wait),
	{},
};
KTEST_SUITE(pcache_truncate_batch, batch_cases);

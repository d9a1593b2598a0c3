/*
 * mm/truncate_test.c: suite pcache_zero_range - filemap_zero_range zeroes
 * exactly the bytes asked for, in cached pages and in pages it must read
 * first, marks them dirty, and writeback carries the zeroes to the disk
 * while every other byte keeps the disk's contents.
 *
 * Suite pcache_truncate_flusher - a punch does not wait for the flusher's
 * pass over the file it punches.
 */
#include <limits.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/race.h>
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

/*
 * mm/vmscan_test.c: suites pcache_reclaim and pcache_writeback - reclaim
 * under memory pressure (a file larger than RAM written and read back),
 * dirty pages written before they are dropped, busy pages kept, and the
 * flusher and sync writing dirty mappings without being asked per file.
 */
#include <limits.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <mm/pcache_test.h>

#define MIB (1UL << 20)

/* Write the whole file as version-1 patterns, then read it back. */
static void reclaim_file_larger_than_ram(struct ktest *t)
{
	unsigned long pages = MAX(128 * MIB / PAGE_SIZE, pages_total() + 8192);
	struct tdisk *d = tdisk_create(t, 0, 0);
	unsigned long reclaimed = vmscan_reclaimed(), bad = 0;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL), *expect;

	KTEST_ASSERT_NOT_NULL(t, buf);
	tdisk_destroy(t, d); /* sized below, once pages_total is known */
	d = tdisk_create(t, pages * PAGE_SIZE, 0);
	expect = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, expect);
	ktest_log(t,
		  "%lu MiB file, %lu MiB RAM",
		  pages * PAGE_SIZE / MIB,
		  pages_total() * PAGE_SIZE / MIB);
	for (unsigned long i = 0; i < pages; i++) {
		tdisk_pattern(buf, i, 1);
		KTEST_ASSERT_EQ(t,
				tdisk_write(d, buf, PAGE_SIZE, i * PAGE_SIZE),
				PAGE_SIZE);
	}
	KTEST_EXPECT_LT(t, d->inode.i_data.nrpages, pages);
	KTEST_EXPECT_EQ(
	    t,
	    filemap_write_and_wait_range(d->inode.i_mapping, 0, LLONG_MAX),
	    0);
	for (unsigned long i = 0; i < pages; i++) {
		KTEST_ASSERT_EQ(
		    t, tdisk_read(d, buf, PAGE_SIZE, i * PAGE_SIZE), PAGE_SIZE);
		tdisk_pattern(expect, i, 1);
		bad += memcmp(buf, expect, PAGE_SIZE) != 0;
	}
	KTEST_EXPECT_EQ(t, bad, 0);
	KTEST_EXPECT_EQ(t, d->corrupt, 0);
	KTEST_EXPECT_GE(
	    t, vmscan_reclaimed() - reclaimed, pages - pages_total());
	for (unsigned long i = 0; i < pages; i++)
		bad += d->writes[i] == 0;
	KTEST_EXPECT_EQ(t, bad, 0); /* every page reached the disk */
	ktest_log(t,
		  "reclaimed %lu pages, %lu reads, %lu writes",
		  vmscan_reclaimed() - reclaimed,
		  d->read_calls,
		  d->write_calls);
	kfree(buf);
	kfree(expect);
	tdisk_destroy(t, d);
}

static void reclaim_writes_dirty_pages_first(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 8 * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, buf);
	for (unsigned long i = 0; i < 8; i++) {
		tdisk_pattern(buf, i, 2);
		KTEST_ASSERT_EQ(t,
				tdisk_write(d, buf, PAGE_SIZE, i * PAGE_SIZE),
				PAGE_SIZE);
	}
	KTEST_EXPECT_EQ(t, m->nrdirty, 8);
	KTEST_EXPECT_GE(t, reclaim_pages(ULONG_MAX / 4), 8);
	KTEST_EXPECT_EQ(t, m->nrpages, 0);
	for (unsigned long i = 0; i < 8; i++) {
		KTEST_EXPECT_EQ(t, d->writes[i], 1);
		tdisk_pattern(buf, i, 2);
		KTEST_EXPECT_MEMEQ(t, d->data + i * PAGE_SIZE, buf, PAGE_SIZE);
	}
	kfree(buf);
	tdisk_destroy(t, d);
}

static void reclaim_keeps_busy_pages(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 8 * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = d->inode.i_mapping;
	char *buf = kmalloc(8 * PAGE_SIZE, GFP_KERNEL);
	struct page *held, *locked, *writing;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_EQ(t, tdisk_read(d, buf, 8 * PAGE_SIZE, 0), 8 * PAGE_SIZE);
	held = filemap_get_page(m, 2);
	locked = filemap_lock_page(m, 5);
	KTEST_ASSERT_TRUE(t, held && locked);
	/* Page 7 is being written (as filemap_writeout_page marks it). */
	writing = filemap_get_page(m, 7);
	KTEST_ASSERT_NOT_NULL(t, writing);
	account_page_writeback(1);
	page_set(writing, PG_writeback);
	put_page(writing);
	/* Every page was just read (referenced): a second chance first. */
	KTEST_EXPECT_EQ(t, reclaim_pages(ULONG_MAX / 4), 5);
	KTEST_EXPECT_EQ(t, m->nrpages, 3);
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 2));
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 5));
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 7));
	end_page_writeback(writing); /* the cache's reference keeps it */
	unlock_page(locked);
	put_page(locked);
	put_page(held);
	kfree(buf);
	tdisk_destroy(t, d);
}

/*
 * Reclaim meets a page whose count a dropper froze at zero: reclaim has
 * tested the page's flags (not locked) and is about to take its reference
 * (RACE_RECLAIM_CANDIDATE, under lru_lock); the dropper
 * (invalidate_mapping_range on another hart) locks the page, freezes its
 * count, takes it out of the index and waits for lru_lock to unlist it.
 * The hook holds reclaim there until the count reads zero, so that order
 * is forced. Reclaim must leave the page alone: a reference taken on the
 * zero count (get_page: a WARNING) is overwritten when the dropper puts
 * the count back, and the page is freed twice.
 */
struct frozen_case {
	struct address_space *m;
	struct page *page; /* reclaim's hook acts once on it */
	bool reached;	   /* reclaim stopped at the page */
	bool frozen;	   /* and saw its count at zero */
	unsigned long dropped;
};

static struct frozen_case *frozen_case;

static void hold_until_frozen(void *obj)
{
	struct frozen_case *fc = READ_ONCE(frozen_case);
	struct page *page = obj;
	/* for a broken run only: the dropper freezes the count */
	uint64_t end = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;

	if (!fc || page != fc->page || READ_ONCE(fc->reached))
		return;
	WRITE_ONCE(fc->reached, true);
	while (__atomic_load_n(&page->refcount, __ATOMIC_ACQUIRE) &&
	       time_ns() < end)
		arch_cpu_relax();
	WRITE_ONCE(fc->frozen,
		   !__atomic_load_n(&page->refcount, __ATOMIC_ACQUIRE));
}

static int reclaim_all(void *arg)
{
	(void)arg;
	reclaim_pages(ULONG_MAX / 4);
	return 0;
}

static bool frozen_case_reached(void *arg)
{
	return READ_ONCE(((struct frozen_case *)arg)->reached);
}

static int drop_when_reached(void *arg)
{
	struct frozen_case *fc = arg;

	if (race_wait_until(frozen_case_reached, fc))
		return -ETIMEDOUT;
	fc->dropped = invalidate_mapping_range(fc->m, 0, 0);
	return 0;
}

static void reclaim_skips_frozen_page(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, PAGE_SIZE, TDISK_RAM);
	struct frozen_case fc = { .m = d->inode.i_mapping };
	unsigned long warnings = warn_count();
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	struct task *reclaimer, *dropper;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_GE(t, ncpus, 3); /* the two sides and the test apart */
	memset(buf, 'r', PAGE_SIZE);
	KTEST_ASSERT_EQ(t, tdisk_write(d, buf, PAGE_SIZE, 0), PAGE_SIZE);
	KTEST_ASSERT_EQ(t,
			filemap_write_and_wait_range(fc.m, 0, LLONG_MAX),
			0); /* clean: both sides may drop it */
	fc.page = filemap_get_page(fc.m, 0);
	KTEST_ASSERT_NOT_NULL(t, fc.page);
	page_clear(fc.page, PG_referenced); /* no second chance */
	put_page(fc.page);		    /* the cache's reference alone */
	WRITE_ONCE(frozen_case, &fc);
	race_hook_set(RACE_RECLAIM_CANDIDATE, hold_until_frozen);
	dropper = task_create_on("dropper", drop_when_reached, &fc, 2);
	reclaimer = task_create_on("reclaimer", reclaim_all, NULL, 1);
	KTEST_ASSERT_FALSE(t, IS_ERR(dropper) || IS_ERR(reclaimer));
	KTEST_EXPECT_EQ(t, task_join(dropper), 0);
	task_join(reclaimer);
	race_hook_set(RACE_RECLAIM_CANDIDATE, NULL);
	WRITE_ONCE(frozen_case, NULL);
	KTEST_EXPECT_TRUE(t, fc.reached);
	KTEST_EXPECT_TRUE(t, fc.frozen); /* the order the case is about */
	KTEST_EXPECT_EQ(t, fc.dropped, 1);
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 0));
	KTEST_EXPECT_EQ(t, warn_count(), warnings);
	kfree(buf);
	tdisk_destroy(t, d);
}

static struct ktest_case reclaim_cases[] = {
	KTEST_CASE(reclaim_skips_frozen_page),
	KTEST_CASE(reclaim_writes_dirty_pages_first),
	KTEST_CASE(reclaim_keeps_busy_pages),
	KTEST_CASE(reclaim_file_larger_than_ram),
	{},
};
KTEST_SUITE(pcache_reclaim, reclaim_cases);

static bool all_clean(void *arg)
{
	return !READ_ONCE(((struct tdisk *)arg)->inode.i_data.nrdirty);
}

/* The flusher writes the pages by itself (it wakes every
 * WRITEBACK_INTERVAL_MS); the wait is for that, bounded by
 * RACE_TIMEOUT_MS (it was 5 s: a busy host may not run it that soon).
 * A batch is cleaned before its pages are written one by one, so the
 * dirty count reaches 0 while the writes are still under way: then the
 * wait is for the pages' writeback to end. */
static void writeback_flusher_writes_dirty_pages(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 8 * PAGE_SIZE, TDISK_RAM);

	for (unsigned long i = 0; i < 3; i++)
		KTEST_ASSERT_EQ(
		    t, tdisk_write(d, "z", 1, i * 2 * PAGE_SIZE), 1);
	KTEST_EXPECT_EQ(t, d->inode.i_data.nrdirty, 3);
	KTEST_EXPECT_EQ(t, race_wait_until(all_clean, d), 0);
	KTEST_EXPECT_EQ(
	    t, filemap_fdatawait_range(&d->inode.i_data, 0, LLONG_MAX), 0);
	KTEST_EXPECT_EQ(t, d->inode.i_data.nrdirty, 0);
	KTEST_EXPECT_EQ(t, d->write_calls, 3);
	KTEST_EXPECT_EQ(t, d->data[2 * PAGE_SIZE], 'z');
	tdisk_destroy(t, d);
}

static void writeback_sync_writes_every_mapping(struct ktest *t)
{
	struct tdisk *a = tdisk_create(t, 4 * PAGE_SIZE, TDISK_RAM);
	struct tdisk *b = tdisk_create(t, 4 * PAGE_SIZE, TDISK_RAM);

	KTEST_ASSERT_EQ(t, tdisk_write(a, "a", 1, 0), 1);
	KTEST_ASSERT_EQ(t, tdisk_write(b, "b", 1, 3 * PAGE_SIZE), 1);
	KTEST_EXPECT_EQ(t, writeback_all(true), 0);
	KTEST_EXPECT_EQ(
	    t, a->inode.i_data.nrdirty + b->inode.i_data.nrdirty, 0);
	KTEST_EXPECT_EQ(t, a->data[0], 'a');
	KTEST_EXPECT_EQ(t, b->data[3 * PAGE_SIZE], 'b');
	KTEST_EXPECT_TRUE(
	    t, list_empty(&a->inode.i_data.wb_node) || a->inode.i_data.nrdirty);
	tdisk_destroy(t, a);
	tdisk_destroy(t, b);
}

/* While an fsync or sync writes a file (sync_writers), a pass that is not
 * one of theirs - the flusher's - leaves the file alone: the two would
 * take the same page locks in turn and the fsync would wait at each. */
static void writeback_flusher_leaves_file_to_fsync(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 4 * PAGE_SIZE, TDISK_RAM);
	struct address_space *m = &d->inode.i_data;
	struct writeback_control bg = { 0, LLONG_MAX, false, -1, 0 };
	struct writeback_control sync = { 0, LLONG_MAX, true, -1, 0 };

	writeback_hold_flusher(true);
	for (unsigned long i = 0; i < 4; i++)
		KTEST_ASSERT_EQ(t, tdisk_write(d, "s", 1, i * PAGE_SIZE), 1);
	__atomic_store_n(&m->sync_writers, 1, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, writeback_mapping(m, &bg), 0);
	KTEST_EXPECT_EQ(t, m->nrdirty, 4);
	KTEST_EXPECT_EQ(t, writeback_mapping(m, &sync), 4);
	__atomic_store_n(&m->sync_writers, 0, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, filemap_write_and_wait_range(m, 0, LLONG_MAX), 0);
	KTEST_EXPECT_EQ(t, m->nrdirty, 0);
	KTEST_EXPECT_EQ(t, m->sync_writers, 0); /* the fsync's own count */
	KTEST_EXPECT_EQ(t, d->write_calls, 4);
	writeback_hold_flusher(false);
	tdisk_destroy(t, d);
}

static struct ktest_case writeback_cases[] = {
	KTEST_CASE(writeback_flusher_writes_dirty_pages),
	KTEST_CASE(writeback_flusher_leaves_file_to_fsync),
	KTEST_CASE(writeback_sync_writes_every_mapping),
	{},
};
KTEST_SUITE(pcache_writeback, writeback_cases);

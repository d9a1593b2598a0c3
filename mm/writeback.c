/*
 * mm/writeback.c: writing dirty pages back - fdatawrite/fdatawait, the
 * flusher task and sync.
 *
 * A mapping joins the flusher's list (wb_dirty) when its first page gets
 * dirty (set_page_dirty). The flusher wakes every WRITEBACK_INTERVAL_MS, or
 * at once on writeback_wakeup() (the page allocator calls it when memory
 * runs low), and writes every listed mapping; a mapping that is clean
 * afterwards leaves the list. This keeps per-mapping dirty tracking inside
 * mm/, independent of the VFS's inode lists.
 *
 * Errors: write_page records a failed write in the mapping's wb_err and
 * its filesystem's (mapping_set_error: errseq, kernel/errseq.h); the page
 * stays clean, as in Linux: retrying a bad sector forever would pin the
 * memory. Each open file sees the error once, at fsync (vfs_fsync_range)
 * or syncfs; sync, drop_caches, the flusher and the range calls here
 * consume nothing - they return only what failed during their own call.
 * A failed read (PG_error) is no writeback error. -ENOMEM is not an
 * error of the file: write_page left the page dirty, so it is written by a
 * later round, or (fsync, sync) by the next of a few passes over the range.
 *
 * Dirty throttling: the pages dirty or under writeback are counted over all
 * mappings; a writer that takes them past DIRTY_LIMIT (a quarter of memory)
 * waits in balance_dirty_pages for the flusher (filemap_write looks once
 * per 32 pages it dirties and at the end of each call). Without it, a file
 * larger than memory fills memory with dirty pages that reclaim cannot drop,
 * and a writer holding its inode's locks may not write them itself.
 *
 * Locks: wb_lock (spinlock) protects wb_dirty, every mapping's wb_node and
 * wb_busy, the mapping the flusher is writing. writeback_forget waits for
 * it, so an inode is never freed under the flusher; a truncate or punch of
 * a live file does not (writeback_unlist_clean): the caller's reference
 * keeps the mapping, and it holds i_rwsem and invalidate_lock, which a
 * wait would hold through the flusher's whole pass over the file. wb_mutex
 * lets one flush round run at a time (the flusher's or sync's); the
 * flusher reads flusher_held (writeback_hold_flusher, for tests) under it.
 */
#include <limits.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <mm/filemap.h>
#include <mm/mmap.h>

#define WB_BATCH	32
#define WB_PLUG_BATCHES 8  /* batches merged on one plug: 1 MiB */
#define SYNC_PASSES	32 /* passes over a range whose pages met -ENOMEM */

static unsigned long nr_dirty, nr_writeback; /* atomic */

static DEFINE_SPINLOCK(wb_lock);
/* protected by wb_lock: */
static struct list_head wb_dirty = LIST_HEAD_INIT(wb_dirty);
static struct address_space *wb_busy;
static DEFINE_WAIT_QUEUE_HEAD(wb_idle); /* wb_busy changed */

static DEFINE_MUTEX(wb_mutex);
static DEFINE_WAIT_QUEUE_HEAD(flusher_wq);
static bool flusher_kicked;
static bool flusher_held; /* writeback_hold_flusher */

void mapping_set_error(struct address_space *m, int err)
{
	if (!err)
		return;
	errseq_set(&m->wb_err, err);
	if (m->sb_wb_err)
		errseq_set(m->sb_wb_err, err);
}

/* Locked @page from dirty to under writeback, for write_page(s), which
 * unlock it. Return: false (and unlocked) if it had nothing to write. */
static bool writeout_prepare(struct page *page)
{
	struct address_space *m = page->mapping;

	DEBUG_ASSERT(page_test(page, PG_locked));
	if (m && page_test(page, PG_dirty))
		page_mkclean(page); /* the next store dirties it again */
	if (!m || !page_clear_dirty(page)) {
		unlock_page(page);
		return false;
	}
	page_set(page, PG_writeback);
	account_page_writeback(1);
	page_lock_handoff(page); /* write_page(s) unlocks it */
	return true;
}

int filemap_writeout_page(struct page *page, struct writeback_control *wbc)
{
	struct address_space *m = page->mapping;
	int err;

	if (!writeout_prepare(page))
		return 0;
	err = m->a_ops->write_page(m, page, wbc); /* records its errors */
	if (err == -ENOMEM)
		wbc->nr_deferred++; /* still dirty: not an I/O error */
	return err;
}

/* Write @n prepared pages of @m, in one call if the filesystem can. */
static void writeout_pages(struct address_space *m,
			   struct page **pages,
			   unsigned int n,
			   struct writeback_control *wbc)
{
	if (!n)
		return;
	if (m->a_ops->write_pages) {
		m->a_ops->write_pages(m, pages, n, wbc);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		if (m->a_ops->write_page(m, pages[i], wbc) == -ENOMEM)
			wbc->nr_deferred++;
}

void account_page_dirty(long delta)
{
	__atomic_fetch_add(&nr_dirty, delta, __ATOMIC_RELAXED);
}

void account_page_writeback(long delta)
{
	__atomic_fetch_add(&nr_writeback, delta, __ATOMIC_RELAXED);
}

unsigned long nr_dirty_pages(void)
{
	return __atomic_load_n(&nr_dirty, __ATOMIC_RELAXED);
}

unsigned long nr_writeback_pages(void)
{
	return __atomic_load_n(&nr_writeback, __ATOMIC_RELAXED);
}

static bool over_dirty_limit(void)
{
	return nr_dirty_pages() + nr_writeback_pages() > pages_total() / 4;
}

void balance_dirty_pages(void)
{
	for (unsigned int ms = 1; over_dirty_limit(); ms = MIN(2 * ms, 16U)) {
		writeback_wakeup();
		task_sleep_ms(ms);
	}
}

/* Prepare @page of @m for writeback if it is (still) dirty. Return: true
 * if it is ready (locked, under writeback) for writeout_pages. */
static bool writeback_one(struct address_space *m,
			  struct page *page,
			  struct writeback_control *wbc)
{
	if (!page_test(page, PG_dirty))
		return false;
	lock_page(page);
	if (page->mapping != m || !page_test(page, PG_dirty) ||
	    (page_test(page, PG_writeback) && !wbc->sync)) {
		unlock_page(page);
		return false;
	}
	wait_on_page_writeback(page);
	return writeout_prepare(page);
}

/* An fsync or sync is writing @m: the flusher, which would take page
 * locks in the same places and make it wait at each, leaves @m to it (it
 * re-lists @m if it stays dirty). */
static bool sync_writing(struct address_space *m)
{
	return __atomic_load_n(&m->sync_writers, __ATOMIC_RELAXED) != 0;
}

long writeback_mapping(struct address_space *m, struct writeback_control *wbc)
{
	unsigned long index = wbc->range_start >> PAGE_SHIFT;
	unsigned long end = wbc->range_end >> PAGE_SHIFT;
	struct page *pages[WB_BATCH], *ready[WB_BATCH];
	unsigned int n, nr_ready = 0, batches = 0;
	struct blk_plug plug;
	long submitted = 0;

	/* A batch goes to the filesystem at once (write_pages: a bio per
	 * run of blocks); the bios of WB_PLUG_BATCHES batches merge on the
	 * plug: contiguous dirty pages reach the disk as requests as large
	 * as the device takes, for one doorbell. */
	blk_start_plug(&plug, NULL);
	while (index <= end && wbc->nr_to_write && READ_ONCE(m->nrdirty) &&
	       (wbc->sync || !sync_writing(m)) &&
	       (n = filemap_get_pages(m, index, WB_BATCH, pages))) {
		for (unsigned int i = 0; i < n; i++) {
			index = pages[i]->index + 1;
			if (pages[i]->index <= end && wbc->nr_to_write &&
			    writeback_one(m, pages[i], wbc)) {
				ready[nr_ready++] = pages[i];
				submitted++;
				wbc->nr_to_write -= wbc->nr_to_write > 0;
			}
		}
		writeout_pages(m, ready, nr_ready, wbc);
		nr_ready = 0;
		for (unsigned int i = 0; i < n; i++)
			put_page(pages[i]);
		if (++batches % WB_PLUG_BATCHES == 0) { /* start those */
			blk_finish_plug(&plug);
			blk_start_plug(&plug, NULL);
		}
	}
	blk_finish_plug(&plug);
	return submitted;
}

/* Wait for writeback of [@start, @end]: only the pages under it are
 * referenced and waited for (filemap_next_writeback), so the wait after a
 * write of the range is not a second walk of its every page. */
static void wait_range(struct address_space *m, loff_t start, loff_t end)
{
	unsigned long index = start >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
	struct page *page;

	while ((page = filemap_next_writeback(m, &index, last))) {
		wait_on_page_writeback(page);
		put_page(page);
		if (index++ == last)
			break;
	}
}

/* Write [@start, @end] of @m, passing again over pages that met -ENOMEM
 * after reclaim had a moment. Return: false if some are still dirty. */
static bool write_range_sync(struct address_space *m, loff_t start, loff_t end)
{
	bool clean = false;

	__atomic_fetch_add(&m->sync_writers, 1, __ATOMIC_RELAXED);
	for (unsigned int pass = 0; pass < SYNC_PASSES && !clean; pass++) {
		struct writeback_control wbc = { start, end, true, -1, 0 };

		writeback_mapping(m, &wbc);
		clean = !wbc.nr_deferred;
		if (!clean)
			task_sleep_ms(MIN(1U << pass, 16U));
	}
	__atomic_fetch_sub(&m->sync_writers, 1, __ATOMIC_RELAXED);
	return clean;
}

int filemap_fdatawrite_range(struct address_space *m, loff_t start, loff_t end)
{
	errseq_t since = errseq_now(&m->wb_err);

	if (!write_range_sync(m, start, end))
		return -ENOMEM;
	return errseq_check(&m->wb_err, since);
}

int filemap_fdatawait_range(struct address_space *m, loff_t start, loff_t end)
{
	errseq_t since = errseq_now(&m->wb_err);

	wait_range(m, start, end);
	return errseq_check(&m->wb_err, since);
}

int filemap_write_and_wait_range(struct address_space *m,
				 loff_t start,
				 loff_t end)
{
	errseq_t since = errseq_now(&m->wb_err);
	bool written = write_range_sync(m, start, end);

	wait_range(m, start, end);
	return written ? errseq_check(&m->wb_err, since) : -ENOMEM;
}

void writeback_mark_dirty(struct address_space *m)
{
	spin_lock(&wb_lock);
	if (list_empty(&m->wb_node))
		list_add_tail(&m->wb_node, &wb_dirty);
	spin_unlock(&wb_lock);
}

void writeback_unlist_clean(struct address_space *m)
{
	spin_lock(&wb_lock);
	if (wb_busy != m && !READ_ONCE(m->nrdirty))
		list_del(&m->wb_node);
	spin_unlock(&wb_lock);
}

void writeback_forget(struct address_space *m)
{
	spin_lock(&wb_lock);
	while (wb_busy == m) {
		spin_unlock(&wb_lock);
		wait_event(&wb_idle, READ_ONCE(wb_busy) != m);
		spin_lock(&wb_lock);
	}
	if (!READ_ONCE(m->nrdirty))
		list_del(&m->wb_node);
	spin_unlock(&wb_lock);
}

/* Write every listed mapping once (and wait for it, with @wait). Caller
 * holds wb_mutex. */
static void flush_round(bool wait)
{
	struct list_head done = LIST_HEAD_INIT(done);

	spin_lock(&wb_lock);
	while (!list_empty(&wb_dirty)) {
		struct address_space *m =
		    list_first_entry(&wb_dirty, struct address_space, wb_node);
		struct writeback_control wbc = { 0, LLONG_MAX, wait, -1, 0 };

		list_del(&m->wb_node);
		if (!READ_ONCE(m->nrdirty))
			continue;
		wb_busy = m;
		spin_unlock(&wb_lock);
		race_point(RACE_WB_BUSY, m);
		if (wait && !write_range_sync(m, 0, LLONG_MAX))
			mapping_set_error(m, -ENOMEM);
		else if (!wait)
			writeback_mapping(m, &wbc);
		if (wait)
			wait_range(m, 0, LLONG_MAX);
		spin_lock(&wb_lock);
		wb_busy = NULL;
		wake_up_all(&wb_idle);
		if (READ_ONCE(m->nrdirty) && list_empty(&m->wb_node))
			list_add_tail(&m->wb_node, &done);
	}
	while (!list_empty(&done)) {
		struct list_head *e = done.next;

		list_del(e);
		list_add_tail(e, &wb_dirty);
	}
	spin_unlock(&wb_lock);
}

int writeback_all(bool wait)
{
	mutex_lock(&wb_mutex);
	flush_round(wait);
	mutex_unlock(&wb_mutex);
	return 0;
}

void writeback_wakeup(void)
{
	if (READ_ONCE(flusher_kicked))
		return;
	WRITE_ONCE(flusher_kicked, true);
	wake_up(&flusher_wq);
}

void writeback_hold_flusher(bool hold)
{
	WRITE_ONCE(flusher_held, hold);
	mutex_lock(&wb_mutex); /* a round already started ends first */
	mutex_unlock(&wb_mutex);
	if (!hold)
		writeback_wakeup();
}

static int flusher_main(void *arg)
{
	(void)arg;
	for (;;) {
		wait_event_timeout(&flusher_wq,
				   READ_ONCE(flusher_kicked),
				   WRITEBACK_INTERVAL_MS * 1000000ULL);
		WRITE_ONCE(flusher_kicked, false);
		mutex_lock(&wb_mutex); /* held is checked under it: see hold */
		if (!READ_ONCE(flusher_held))
			flush_round(false);
		mutex_unlock(&wb_mutex);
	}
	return 0;
}

static int flusher_init(void)
{
	struct task *t = task_create("flusher", flusher_main, NULL);

	return IS_ERR(t) ? PTR_ERR(t) : 0;
}
INIT_HOOK(flusher, flusher_init, INIT_LEVEL_LATE);

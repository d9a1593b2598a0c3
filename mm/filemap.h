/*
 * mm/filemap.h: the page cache.
 *
 * Each inode's file data is cached in its struct address_space: an ordered
 * index (mm/radix_tree.h) from page index to struct page, protected by
 * mapping->i_pages_lock (a spinlock). A page-cache page has a reference for
 * being in the index, plus one per user (get_page/put_page).
 *
 * Two doors, kept single on purpose; the invalidate_lock rules are asserted
 * there (mm/invalidate.c), the lock itself is taken by their callers:
 *   - every page enters the cache through filemap_add_page(): caller holds
 *     invalidate_lock (either mode) or i_rwsem exclusive;
 *   - every range leaves it through truncate_inode_pages_range(): caller
 *     holds invalidate_lock exclusive.
 *
 * Page state bits (page->flags, atomic): PG_locked (I/O or truncation in
 * progress; lock_page sleeps), PG_uptodate (contents valid), PG_dirty,
 * PG_writeback, PG_error (the last read failed; writeback errors live in
 * wb_err), PG_referenced, PG_lru, PG_readahead (reaching it
 * starts the next asynchronous readahead), PG_waiters (a task may sleep
 * for PG_locked or PG_writeback to clear: the clearer must wake it).
 *
 * Lookup of a cached page takes no lock at all (filemap_get_page): an RCU
 * read-side section (kernel/rcu.h) walks the index, the page is pinned by
 * page_ref_tryget, which refuses a count that reached zero, and the index
 * is read again to see that the page is still there. For that, index
 * nodes and every page that was ever in an index are freed only after a
 * grace period (put_page and put_pages hand them to call_rcu).
 *
 * Lock order (the table is at the top of mm/filemap.c; docs/locking.md):
 * inode->i_rwsem > mapping->invalidate_lock > page lock > fs block-map
 * locks > i_pages_lock, lru_lock.
 */
#pragma once

#include <sys/types.h>
#include <sys/uio.h> /* RWF_NOWAIT */
#include <kernel/compiler.h>
#include <kernel/errseq.h>
#include <kernel/list.h>
#include <kernel/mutex.h>
#include <kernel/rwsem.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>
#include <mm/page_alloc.h>
#include <mm/radix_tree.h>

/* File offsets in bytes. newlib's <sys/types.h> has only __loff_t. */
typedef __loff_t loff_t;

/* page->flags bit numbers for page-cache pages; 0-7 belong to page_alloc. */
enum pageflag {
	PG_locked = 8,
	PG_uptodate,
	PG_dirty,
	PG_writeback,
	PG_error,
	PG_referenced,
	PG_lru,
	PG_readahead,
	PG_waiters, /* someone may sleep on this page's wait queue */
	PG_lockdep, /* locked by lock_page: on its locker's lockdep stack */
	PG_rcu,	    /* was in an index: freed after a grace period */
};

static inline bool page_test(const struct page *p, enum pageflag f)
{
	return __atomic_load_n(&p->flags, __ATOMIC_ACQUIRE) & (1UL << f);
}

static inline void page_set(struct page *p, enum pageflag f)
{
	__atomic_fetch_or(&p->flags, 1UL << f, __ATOMIC_RELEASE);
}

static inline void page_clear(struct page *p, enum pageflag f)
{
	__atomic_fetch_and(&p->flags, ~(1UL << f), __ATOMIC_RELEASE);
}

/* Return: the bit's old value. */
static inline bool page_test_and_set(struct page *p, enum pageflag f)
{
	return __atomic_fetch_or(&p->flags, 1UL << f, __ATOMIC_ACQ_REL) &
	       (1UL << f);
}

static inline bool page_test_and_clear(struct page *p, enum pageflag f)
{
	return __atomic_fetch_and(&p->flags, ~(1UL << f), __ATOMIC_ACQ_REL) &
	       (1UL << f);
}

struct address_space;
struct inode;
struct file;

struct writeback_control {
	loff_t range_start, range_end; /* bytes, inclusive */
	bool sync;		       /* wait for each page's writeback */
	long nr_to_write;	       /* pages still allowed; <0: no limit */
	long nr_deferred; /* pages write_page left dirty (-ENOMEM) */
};

/* A batch of pages being read ahead: locked, in the cache, !uptodate. */
struct readahead_control {
	struct address_space *mapping;
	unsigned long index; /* first page */
	unsigned int nr_pages;
	struct page **pages; /* nr_pages of them */
};

/* Per open file: the readahead window (mm/readahead.c). */
struct file_ra_state {
	unsigned long start; /* first page of the current window */
	unsigned int size;   /* pages in it */
	unsigned int
	    async_size;	       /* start the next window this far from the end */
	unsigned int ra_pages; /* maximum window */
	unsigned long
	    prev_index; /* last page read: detects sequential access */
};

/*
 * What a filesystem provides for its files' data. Called with the page
 * locked unless stated; the callee unlocks (possibly from I/O completion).
 */
struct address_space_operations {
	/* Fill @page from disk (holes: zeroes), set uptodate, unlock. */
	int (*read_page)(struct address_space *m, struct page *page);
	/* Like read_page for each page of @rac, in as few requests as possible.
	 */
	void (*readahead)(struct readahead_control *rac);
	/* Write back @page (dirty bit already cleared, PG_writeback set);
	 * end_page_writeback() when done. Page unlocked by the callee, which
	 * records an I/O error with mapping_set_error first (before the
	 * unlock or the end of writeback, while @m surely lives); the page
	 * stays clean and uptodate with the data that did not reach disk. */
	int (*write_page)(struct address_space *m,
			  struct page *page,
			  struct writeback_control *wbc);
	/* Optional: write_page for @n pages at once (ascending index, each
	 * prepared as for write_page), so contiguous ones share bios; a page
	 * left dirty for lack of memory counts in wbc->nr_deferred. */
	void (*write_pages)(struct address_space *m,
			    struct page **pages,
			    unsigned int n,
			    struct writeback_control *wbc);
	/* Prepare to copy @len bytes at @pos (within one page): return the
	 * locked page in *pagep, its blocks allocated, uptodate or partially
	 * read as needed. On entry *pagep is NULL or the page the caller put
	 * in at that index, with a reference that write_begin takes over:
	 * filemap_grab_page_from uses it, and a write_begin that fails
	 * before calling it drops it (filemap_put_hint). Caller holds
	 * i_rwsem exclusive. */
	int (*write_begin)(struct address_space *m,
			   loff_t pos,
			   unsigned int len,
			   struct page **pagep);
	/* @copied bytes are in; mark dirty, extend i_size, unlock and put.
	 * Return: bytes accepted. */
	int (*write_end)(struct address_space *m,
			 loff_t pos,
			 unsigned int len,
			 unsigned int copied,
			 struct page *page);
	/* Part [@offset, @offset+@len) of @page is leaving the file: drop any
	 * private state for it. Optional. */
	void (*invalidate_page)(struct page *page,
				unsigned int offset,
				unsigned int len);
	/* A shared mapping's first store to @page (locked, uptodate, in the
	 * mapping, inside i_size): give its blocks inside i_size disk space
	 * (holes) and mark it dirty. Caller holds invalidate_lock shared;
	 * the page stays locked. Return: 0 or -errno (-ENOSPC). Optional:
	 * without it, only set_page_dirty. */
	int (*page_mkwrite)(struct address_space *m, struct page *page);
};

/* Who serialises a mapping's fill paths against invalidation (boot
 * arguments invalidate_lock=off, fill_lock=none|i_rwsem|invalidate_lock;
 * mm/invalidate.c). */
enum fill_lock {
	FILL_INVALIDATE_LOCK, /* the fill paths take invalidate_lock shared */
	FILL_NONE,	      /* nothing (legacy) */
	FILL_I_RWSEM, /* read() takes i_rwsem shared; the rest nothing */
};

struct address_space {
	struct inode *host;
	const struct address_space_operations *a_ops;
	struct rw_semaphore invalidate_lock; /* mm/invalidate.c */
	/* protected by invalidate_lock held exclusive: the bytes its holder
	 * invalidated (inval_end < inval_start: none), checked at unlock */
	loff_t inval_start, inval_end;
	struct spinlock i_pages_lock;
	/* protected by i_pages_lock: */
	struct radix_tree i_pages;
	unsigned long nrpages;
	unsigned long nrdirty; /* atomic (set_page_dirty needs no lock) */
	errseq_t wb_err;     /* writeback errors, for fsync (kernel/errseq.h) */
	errseq_t *sb_wb_err; /* the filesystem's, for syncfs; may be NULL */
	/* atomic: fsync/sync passes writing it now; the flusher leaves the
	 * mapping to them (mm/writeback.c) */
	unsigned int sync_writers;
	/* protected by writeback's wb_lock (mm/writeback.c): */
	struct list_head wb_node; /* on the flusher's list while dirty */
	/* set once, before any read: the host is a cached inode that ihold
	 * pins, so readahead may hand a stream's window to its worker
	 * (mm/readahead.c); false for a bare inode (tests) */
	bool ra_worker;
	/* the boot's mode, set by mapping_init; changed only while no task
	 * fills the mapping (filemap_set_fill_lock) */
	enum fill_lock fill_lock;
	struct mutex i_mmap_lock; /* mm/mmap.c */
	/* protected by i_mmap_lock: */
	struct list_head i_mmap; /* the vm_areas mapping this file */
};

void mapping_init(struct address_space *m,
		  struct inode *host,
		  const struct address_space_operations *a_ops);

/*
 * invalidate_lock (mm/invalidate.c). Exclusive: dropping cached pages and
 * changing the block map, one critical section (truncate, fallocate). The
 * unlock checks that no page came back into the range the holder
 * invalidated. Shared: the fill paths, through filemap_fill_begin/_end,
 * which take nothing in legacy mode (the mapping's fill_lock: the boot
 * argument invalidate_lock=off).
 * Context: task, may sleep; after i_rwsem, before any page lock.
 */
void filemap_invalidate_lock(struct address_space *m);
void filemap_invalidate_unlock(struct address_space *m);
void filemap_invalidate_lock_shared(struct address_space *m);
void filemap_invalidate_unlock_shared(struct address_space *m);
bool filemap_invalidate_trylock_shared(struct address_space *m);
/* Both exclusive, the lower address first; the same mapping once; NULL
 * allowed. */
void filemap_invalidate_lock_two(struct address_space *m1,
				 struct address_space *m2);
void filemap_invalidate_unlock_two(struct address_space *m1,
				   struct address_space *m2);
/* Return: true if the lock was taken (false: legacy mode). */
bool filemap_fill_begin(struct address_space *m);
/* Return: false if the lock is taken exclusive (RWF_NOWAIT: -EAGAIN). */
bool filemap_fill_trybegin(struct address_space *m);
void filemap_fill_end(struct address_space *m);
/* The boot's mode (enum fill_lock, above struct address_space), which
 * every mapping starts with. */
enum fill_lock filemap_fill_lock(void);
/* The boot's fill paths take no invalidate_lock (FILL_NONE, FILL_I_RWSEM). */
bool filemap_legacy_mode(void);
/* @m's own mode; only the benchmark `mixed` sets one, on its own file,
 * which no other task uses meanwhile (mm/invalidate.c). */
enum fill_lock mapping_fill_lock(const struct address_space *m);
void filemap_set_fill_lock(struct address_space *m, enum fill_lock mode);
/* The door checks: truncation of [@start, @end] (caller holds it
 * exclusive; the range is recorded for the unlock's check) and insertion
 * (it in any mode, or i_rwsem exclusive). */
void filemap_assert_invalidating(struct address_space *m,
				 loff_t start,
				 loff_t end);
void filemap_assert_may_insert(struct address_space *m);
/* Every mapping's invalidate_lock: its class (the totals `lockstat` shows). */
extern struct lock_class invalidate_lock_class;
/* Pages the unlock check found back in an invalidated range, since boot. */
unsigned long filemap_invalidate_leftovers(void);

/* References. put_page frees the page when the last reference goes (a
 * page that was in an index, after a grace period). put_pages puts one
 * reference on each of @n pages; the ones it frees that wait a grace
 * period wait it together (one call_rcu for the lot). */
void get_page(struct page *page);
void put_page(struct page *page);
void put_pages(struct page **pages, unsigned int n);
/* A reference unless the count is zero (the page is being freed): for
 * lock-free finders, inside an RCU read-side section. */
bool page_ref_tryget(struct page *page);

/*
 * Page lock: sleeps. Context: task, may sleep. lock_page is a lock class
 * of lockdep (rank LOCK_RANK_PAGE: inside invalidate_lock, outside the fs
 * block-map locks); trylock_page, which cannot deadlock, is not tracked.
 * Whoever hands a page locked by lock_page to I/O that unlocks it
 * elsewhere calls page_lock_handoff() first.
 */
void lock_page(struct page *page);
/* lock_page for a page taken while holding @subclass others, lower in
 * index order (truncation holding a partial page: mm/truncate.c). */
void lock_page_nested(struct page *page, unsigned int subclass);
void page_lock_handoff(struct page *page);
bool trylock_page(struct page *page);
void unlock_page(struct page *page);
void wait_on_page_locked(struct page *page);
void wait_on_page_writeback(struct page *page);
void end_page_writeback(struct page *page);
/* Mark dirty and account it to the mapping (and its inode). Return: true
 * if the page was clean. */
bool set_page_dirty(struct page *page);
/* I/O finished reading @page: uptodate or error, then unlock. */
void page_read_done(struct page *page, int err);

/* Look-ups. Return: a referenced page or NULL. No lock at all. */
struct page *filemap_get_page(struct address_space *m, unsigned long index);
/* Up to @max (at most FILEMAP_BATCH) referenced pages at @index, @index + 1,
 * ..., all uptodate and none marked PG_readahead: the batch ends before the
 * first page that is absent, not uptodate or marked, and at the end of a
 * 64-page leaf of the index. No lock at all. Return: how many. */
#define FILEMAP_BATCH 16
unsigned int filemap_get_read_batch(struct address_space *m,
				    unsigned long index,
				    unsigned int max,
				    struct page **pages);
/* The same, locked; NULL if absent. May sleep. */
struct page *filemap_lock_page(struct address_space *m, unsigned long index);
/* Find or create (locked, referenced). ERR_PTR(-ENOMEM) on failure. */
struct page *filemap_grab_page(struct address_space *m, unsigned long index);
/* The same, trying @hint first (NULL: none): a page the caller put in at
 * @index (filemap_write's run put in ahead), whose reference the caller
 * hands over: the page returned carries it, or it is dropped. */
struct page *filemap_grab_page_from(struct address_space *m,
				    unsigned long index,
				    struct page *hint);
/* Drop a page put in ahead (NULL: none): a write_begin failing before
 * filemap_grab_page_from, or filemap_write for those it did not hand on. */
static inline void filemap_put_hint(struct page *hint)
{
	if (hint)
		put_page(hint);
}
/* Up to @max referenced pages at index >= @start, ascending. */
unsigned int filemap_get_pages(struct address_space *m,
			       unsigned long start,
			       unsigned int max,
			       struct page **pages);

/* The first page under writeback at an index in [*@index, @last],
 * referenced, its index in *@index; NULL if none. No lock where a leaf of
 * the index holds *@index: a page not under writeback costs a look at its
 * slot and its flags, no reference (fdatawait's walk). */
struct page *filemap_next_writeback(struct address_space *m,
				    unsigned long *index,
				    unsigned long last);

/* The one insertion door. @page is locked and referenced by the caller; the
 * cache takes its own reference. Return: 0, -EEXIST or -ENOMEM. */
int filemap_add_page(struct address_space *m,
		     struct page *page,
		     unsigned long index);
/* The same door for a run: @pages[i] at @index + i, in order, under one
 * hold of i_pages_lock, stopping at the first that cannot go in (*@err:
 * -EEXIST or -ENOMEM; 0 if all went in). The pages not inserted are
 * given back as they came. Return: how many went in. */
unsigned int filemap_add_pages(struct address_space *m,
			       struct page **pages,
			       unsigned int n,
			       unsigned long index,
			       int *err);
/* Is a page at @index? No lock and no reference: the answer may be stale
 * by the time it is used (a hint; insertion decides). */
bool filemap_cached(struct address_space *m, unsigned long index);
/* How many pages from @index on, up to @max, are absent: the run a batch
 * of readahead or of a write may fill. One RCU section, a hint as above. */
unsigned int filemap_absent_run(struct address_space *m,
				unsigned long index,
				unsigned int max);
/* The one removal door: drop every page of [@start, @end] (bytes,
 * inclusive), partial pages zeroed in the part that leaves. Waits for
 * writeback of those pages; discards dirty data in the range. */
void truncate_inode_pages_range(struct address_space *m,
				loff_t start,
				loff_t end);
/* The same, for a caller about to free blocks under the partial pages:
 * they stay locked (and referenced) in @held[0..1] (NULL: none) until it
 * has changed the block map and calls truncate_release_edges, so
 * writeback, which maps blocks under the page lock, cannot map one it
 * then frees. Caller holds invalidate_lock exclusive. */
void truncate_inode_pages_hold_edges(struct address_space *m,
				     loff_t start,
				     loff_t end,
				     struct page *held[2]);
void truncate_release_edges(struct page *held[2]);
void truncate_inode_pages(struct address_space *m, loff_t start);
/* Wait until no page of [@start, @end] (bytes, inclusive) that was locked
 * when looked at is locked still: the fills that inserted them have mapped
 * their blocks and read them. For a change of the block map that keeps
 * the cache (preallocation into holes); caller holds invalidate_lock
 * exclusive, so no fill inserts or re-reads a page meanwhile. */
void filemap_wait_fills(struct address_space *m, loff_t start, loff_t end);
/* The last truncate of a mapping that is going away (an evicted inode):
 * every page, then off the flusher's list, waiting for it to let go. */
void truncate_inode_pages_final(struct address_space *m);
/* Zero bytes [@start, @end) in the cache, reading pages in as needed, and
 * mark them dirty so the zeroes reach the disk: the partial blocks of
 * truncate, size extension, punch and zero range (mm/truncate.c). Caller
 * holds i_rwsem and invalidate_lock exclusive. Return: 0 or -errno. */
int filemap_zero_range(struct address_space *m, loff_t start, loff_t end);
/* Shrink to @size: the new i_size, then the zeroes of [@size, @end) in
 * its page, so that no reader returns them (mm/truncate.c). */
int filemap_truncate_tail(struct address_space *m, loff_t size, loff_t end);
/* Drop @m's clean pages that nobody uses or locks (dirty ones and pages
 * under writeback stay). Context: may sleep. Return: pages dropped. */
unsigned long invalidate_mapping_pages(struct address_space *m);
/* The same for pages [@first, @last] only. */
unsigned long invalidate_mapping_range(struct address_space *m,
				       unsigned long first,
				       unsigned long last);
/* A fresh page for the cache: referenced once, not locked, no owner.
 * Context: may sleep (reclaim). Return: NULL when memory is exhausted. */
struct page *page_cache_alloc(void);
/* Up to @n of them at once (at least one unless memory is exhausted).
 * Return: how many. */
unsigned int page_cache_alloc_bulk(struct page **pages, unsigned int n);

/* The uptodate page at @index of @f, referenced: from the cache, or read
 * (readahead of @req_pages on a miss) under invalidate_lock shared, taken
 * inside. read() and the fault path (mm/fault.c). With @nowait, -EAGAIN
 * rather than wait or start I/O. Return: the page, or ERR_PTR(-ENXIO: a
 * truncate put it past EOF, -EAGAIN, -ENOMEM, -EIO). */
struct page *filemap_read_page(struct file *f,
			       unsigned long index,
			       unsigned long req_pages,
			       bool nowait);
/* Buffered I/O for file_operations. filemap_read takes no inode lock. */
ssize_t filemap_read(struct file *f, void *buf, size_t len, loff_t *pos);
ssize_t filemap_read_flags(
    struct file *f, void *buf, size_t len, loff_t *pos, int flags);
/* Caller holds i_rwsem exclusive. */
ssize_t filemap_write(struct file *f, const void *buf, size_t len, loff_t *pos);

/* Writeback of a byte range, and waiting for it. Return: 0, -ENOMEM if
 * pages stayed dirty, or an I/O error recorded during this call. Nothing
 * is consumed: every open file still gets each error once at its fsync
 * (file_check_and_advance_wb_err). */
int filemap_fdatawrite_range(struct address_space *m, loff_t start, loff_t end);
int filemap_fdatawait_range(struct address_space *m, loff_t start, loff_t end);
int filemap_write_and_wait_range(struct address_space *m,
				 loff_t start,
				 loff_t end);

/* Writeback (mm/writeback.c). A mapping joins the flusher's list when its
 * first page becomes dirty; the flusher task writes each such mapping every
 * WRITEBACK_INTERVAL_MS, and at once after writeback_wakeup(). */
#define WRITEBACK_INTERVAL_MS 500
/* Write the dirty pages of @wbc's range. Errors are recorded in wb_err.
 * Return: pages submitted. Context: may sleep; takes page locks. */
long writeback_mapping(struct address_space *m, struct writeback_control *wbc);
/* Write (and with @wait, wait for) every dirty mapping: sync's core. */
int writeback_all(bool wait);
void writeback_wakeup(void);
/* Tests: with @hold, the flusher writes nothing (a round in progress is
 * waited for), so that only fsync, sync and reclaim write pages back. */
void writeback_hold_flusher(bool hold);
/* @m leaves the flusher's list (its inode is going away): waits while
 * the flusher is writing it. */
void writeback_forget(struct address_space *m);
/* @m leaves the flusher's list if it is clean and the flusher is not on
 * it (which re-lists it only if dirty): no wait, for a live file. */
void writeback_unlist_clean(struct address_space *m);
/* Record writeback error @err (negative errno; 0 does nothing) in @m's
 * wb_err and its filesystem's: each open file of @m sees it once at fsync,
 * each open file of the filesystem once at syncfs. Any context. */
void mapping_set_error(struct address_space *m, int err);
/* A writer dirtied pages: if dirty and writeback pages together exceed a
 * quarter of memory, kick the flusher and wait until they do not, so that
 * reclaim always finds clean pages. Context: task, may sleep; caller holds
 * no page lock. */
void balance_dirty_pages(void);
/* Pages dirty and under writeback, in all mappings. */
unsigned long nr_dirty_pages(void);
unsigned long nr_writeback_pages(void);

/* Readahead (mm/readahead.c): on a miss at @index, and on reaching a
 * PG_readahead page. */
void page_cache_sync_readahead(struct address_space *m,
			       struct file_ra_state *ra,
			       unsigned long index,
			       unsigned long req_pages);
void page_cache_async_readahead(struct address_space *m,
				struct file_ra_state *ra,
				struct page *page,
				unsigned long index,
				unsigned long req_pages);
void page_cache_force_readahead(struct address_space *m,
				unsigned long index,
				unsigned long nr);
void file_ra_state_init(struct file_ra_state *ra);
/* Drop @m's windows queued for the readahead worker (@m NULL: every
 * mapping's) and wait for the one it is reading: no readahead queued
 * before the call fills the cache after it returns. Context: task, may
 * sleep; no page lock, invalidate_lock or i_rwsem held (the worker may
 * need them). */
void readahead_cancel(struct address_space *m);
/* Wait until no window of @m is queued for the worker or being read by
 * it. Context: task, may sleep; nothing held, as for readahead_cancel. */
void readahead_wait(struct address_space *m);
/* The readahead worker's counts (tests, benchmarks). */
struct ra_worker_stats {
	unsigned long handed; /* windows queued for it since boot */
	unsigned long read;   /* of those, read (the others were cancelled) */
	unsigned int queued;  /* waiting now */
};
void readahead_worker_stats(struct ra_worker_stats *st);
/* The worker task, or NULL if windows stay with the reader (tests). */
struct task *readahead_worker_task(void);
/* Tests: hand windows of @pages or more to the worker (default
 * RA_WORKER_MIN). Return: the previous value. */
unsigned int readahead_set_worker_min(unsigned int pages);
/* The window a file starts with (pages). */
unsigned int file_ra_default_pages(void);

/* LRU and reclaim (mm/vmscan.c). */
void lru_add(struct page *page);
/* The same for @n pages, under one hold of lru_lock. */
void lru_add_many(struct page **pages, unsigned int n);
/* Free up to @nr pages of clean cache (writing dirty ones back first),
 * then, if that was not enough and the task holds no lock, shrink the
 * registered caches. Called by the page allocator when memory is low.
 * Return: pages and cache objects freed. */
unsigned long reclaim_pages(unsigned long nr);
/* A cache of other objects that reclaim shrinks (Linux's shrinkers):
 * @scan frees up to @nr objects and returns how many. It runs in a task
 * that holds no lock but reclaim's own, so it may sleep and take
 * filesystem locks. */
struct shrinker {
	unsigned long (*scan)(unsigned long nr);
	struct list_head node;
};
void register_shrinker(struct shrinker *s);
/* Pages on the LRU, i.e. in some mapping. */
unsigned long lru_pages(void);
/* Pages freed, and dirty pages reclaim wrote back (write_page accepted
 * them), since boot. */
unsigned long vmscan_reclaimed(void);
unsigned long vmscan_written(void);
/* True inside reclaim: an allocation there must not wait for reclaim. */
bool current_is_reclaiming(void);

/* For mm/ only: the helpers the doors and reclaim share. */
#define RECLAIM_BATCH 32 /* pages reclaim tries to free per call */
/* Clear PG_dirty and uncount it. Caller holds the page lock. Return: true
 * if it was dirty. */
bool page_clear_dirty(struct page *page);
/* Global dirty/writeback page counts (set/clear of PG_dirty, PG_writeback). */
void account_page_dirty(long delta);
void account_page_writeback(long delta);
/* @m got its first dirty page: put it on the flusher's list. */
void writeback_mark_dirty(struct address_space *m);
/* Delete @page (locked) from its mapping's index and the LRU and drop the
 * cache's reference, if at most @max_refs references are held (0: any).
 * Return: true if deleted. Context: no spinlock held. */
bool filemap_delete_page(struct page *page, int max_refs);
/* Pages the removal door (mm/truncate.c) looks up, and drops, at a time. */
#define TRUNCATE_BATCH 16
/* Delete the @n pages of @m (each locked, in @m, referenced by the caller
 * as well) from the index and the LRU under one hold of each lock, and
 * drop the cache's reference on each. Context: no spinlock held. */
void filemap_delete_pages(struct address_space *m,
			  struct page **pages,
			  unsigned int n);
/* Write back @page: caller holds its lock, which write_page releases.
 * Return: 0 or the error write_page reported (also in wb_err). */
int filemap_writeout_page(struct page *page, struct writeback_control *wbc);
void lru_del(struct page *page);
/* lru_del for @n pages under one hold of lru_lock. */
void lru_del_many(struct page **pages, unsigned int n);

/*
 * mm/readahead.c: reading ahead of sequential readers.
 *
 * Each open file has a window (struct file_ra_state): [start, start+size)
 * pages, the last async_size of which are still ahead of the reader; the
 * first of those carries PG_readahead.
 *
 *  - A miss (page_cache_sync_readahead) reads a window from the missing
 *    page: the request rounded up to a power of two; from page 0, when
 *    the read does not continue one, Linux's initial window (four times
 *    that for a request of at most 1/32 of ra_pages, twice up to 1/4:
 *    a 1 MiB read of a cold file opens 2 MiB); or, when the miss
 *    continues the previous read (sequential), twice the previous window;
 *    never more than ra_pages. The pages past the request are its
 *    asynchronous part (async_size, the first marked): the reader reads
 *    the request, the worker (below) the rest, as an asynchronous window.
 *  - Reaching the PG_readahead page (page_cache_async_readahead) reads the
 *    next window, twice as large, while the reader still has pages cached.
 *  - A miss that is not sequential resets the window to the request.
 *  - With readahead off (ra_pages 0: POSIX_FADV_RANDOM) a miss of more
 *    than one page reads just the request, at most RA_DEFAULT_PAGES, no
 *    mark (mm/filemap_read.c reads a one-page request alone).
 *
 * A batch is a run of up to RA_BATCH pages found absent (a lock-free
 * look-up, a hint): allocated together (page_cache_alloc_bulk), inserted
 * together (filemap_add_pages, the insertion door) and read by
 * a_ops->readahead if the filesystem has one, else one a_ops->read_page
 * each. Pages past i_size are not read. No lock is held on entry; each
 * batch takes invalidate_lock shared around its insertion (i_size read
 * again under it) and reads its pages after dropping it: they stay locked
 * until their reads end, and an invalidation locks every page it drops
 * before it frees a block (docs/locking.md). The window is per file and
 * racy by design (a lost update only misjudges the next window).
 *
 * The worker. Pages ahead of a reader, RA_WORKER_MIN or more (an
 * asynchronous window, or a miss's window past the request), are handed
 * to the "readahead" task on another hart at once, before the reader
 * fills its own, and read there while the reader fills and copies the
 * pages it asked for: under TCG a cold read is bound by the reader's own
 * CPU (allocation, insertion, block mapping, bio building and
 * the doorbell's exit cost about as much as the copy), not by the device.
 * The worker runs the same do_readahead the reader would, so it takes
 * invalidate_lock shared per batch and reads i_size again under it: the
 * discipline does not depend on which task fills. The queued window pins
 * its inode (ihold) until it is read. The window stays with the reader
 * when the worker would not help or could not be used: one hart;
 * fill_lock=i_rwsem (the read's i_rwsem must cover its readahead);
 * boot argument ra_worker=off; a host that cannot be pinned
 * (!mapping->ra_worker: a bare test inode); RA_WORKER_QUEUE windows
 * already waiting (the worker is behind, so the reader does its own); no
 * memory for the work. A window whose pages are all cached queues nothing
 * and takes no lock (a cached hit stays lock-free). readahead_cancel
 * drops queued windows (fadvise DONTNEED, drop_caches, unmount);
 * readahead_wait waits for a file's (a benchmark that sets up a cache).
 * ra_lock, a leaf spinlock, guards the queue, ra_queued and ra_busy.
 */
#include <errno.h>
#include <limits.h>
#include <drivers/block.h>
#include <string.h>
#include <kernel/bootargs.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>

#define RA_DEFAULT_PAGES 1024 /* 4 MiB */
#define RA_PLUG_BATCHES	 8    /* batches merged on one plug: 1 MiB */
#define RA_BATCH	 32   /* pages handed to the filesystem at once */
#define RA_WORKER_MIN	 64   /* smallest window for the worker: 256 KiB */
#define RA_WORKER_QUEUE	 4    /* windows waiting at most */

unsigned int file_ra_default_pages(void)
{
	return RA_DEFAULT_PAGES;
}

void file_ra_state_init(struct file_ra_state *ra)
{
	ra->start = 0;
	ra->size = 0;
	ra->async_size = 0;
	ra->ra_pages = RA_DEFAULT_PAGES;
	ra->prev_index = ULONG_MAX;
}

/* Start reading @n locked, cached pages; drop our references. */
static void
read_pages(struct address_space *m, struct page **pages, unsigned int n)
{
	if (!n)
		return;
	if (m->a_ops->readahead) {
		struct readahead_control rac = { m, pages[0]->index, n, pages };

		m->a_ops->readahead(&rac);
	} else {
		for (unsigned int i = 0; i < n; i++)
			m->a_ops->read_page(m, pages[i]);
	}
	for (unsigned int i = 0; i < n; i++)
		put_page(pages[i]);
}

/* Last page index below i_size, or ULONG_MAX if the file is empty. */
static unsigned long last_index(struct address_space *m)
{
	loff_t isize = m->host ? READ_ONCE(m->host->i_size) : 0;

	return isize > 0 ? (unsigned long)((isize - 1) >> PAGE_SHIFT)
			 : ULONG_MAX;
}

static bool past_last(unsigned long index, unsigned long last)
{
	return last == ULONG_MAX || index > last;
}

/*
 * Fill one batch: up to @want fresh pages from @index on, inserted under
 * one invalidate_lock shared section, in which *@last (the last page below
 * EOF) is read again: truncate changes i_size under the lock exclusive;
 * then handed, locked, to the filesystem. Legacy mode takes no lock and
 * keeps the *@last it was given, as before Linux 5.15. Return: pages
 * inserted (0: the first was cached meanwhile), or -1 to stop: no memory,
 * or EOF.
 */
static int read_batch(struct address_space *m,
		      unsigned long index,
		      unsigned int want,
		      unsigned long mark,
		      unsigned long *last)
{
	struct page *pages[RA_BATCH];
	unsigned int got = page_cache_alloc_bulk(pages, want), n = 0, done = 0;
	int err = 0;

	if (!got)
		return -1;
	if (filemap_fill_begin(m))
		*last = last_index(m);
	if (!past_last(index, *last)) {
		n = MIN(got, *last - index + 1);
		for (unsigned int i = 0; i < n; i++)
			trylock_page(pages[i]); /* ours alone: cannot fail */
		done = filemap_add_pages(m, pages, n, index, &err);
		if (mark >= index && mark - index < done)
			page_set(pages[mark - index], PG_readahead);
	}
	filemap_fill_end(m);
	read_pages(m, pages, done); /* drops our references */
	for (unsigned int i = done; i < got; i++) {
		if (i < n)
			unlock_page(pages[i]);
		put_page(pages[i]);
	}
	if (!n || (!done && err != -EEXIST))
		return -1;
	return (int)done; /* short: the caller steps over the page that
			     stopped it */
}

/*
 * Bring pages [@start, @start+@nr) in, skipping cached ones; mark @mark.
 * Each batch is a run of absent pages, allocated together, inserted
 * together under invalidate_lock shared and read together after it; a
 * range already cached takes no lock at all.
 */
static void do_readahead(struct address_space *m,
			 unsigned long start,
			 unsigned long nr,
			 unsigned long mark)
{
	unsigned long last = last_index(m), index = start, end;
	struct blk_plug plug;
	unsigned int batches = 0;

	if (past_last(start, last))
		return;
	end = start + MIN(nr, last - start + 1);
	race_point(RACE_FILL_START, m);
	blk_start_plug(&plug, NULL);
	while (index < end && !past_last(index, last)) {
		unsigned int want = filemap_absent_run(
		    m, index, MIN(end - index, (unsigned long)RA_BATCH));
		int done;

		if (!want) { /* cached: a batch stays contiguous */
			index++;
			continue;
		}
		done = read_batch(m, index, want, mark, &last);
		if (done < 0)
			break;
		/* Short of @want: the next page was inserted meanwhile, or
		 * memory ran short; step over it (a miss reads it later). */
		index += done + (done < (int)want);
		if (++batches % RA_PLUG_BATCHES == 0) { /* start those */
			blk_finish_plug(&plug);
			blk_start_plug(&plug, NULL);
		}
	}
	blk_finish_plug(&plug);
}

/* A window queued for the worker; it holds a reference on the host. */
struct ra_work {
	struct list_head node;
	struct address_space *m;
	unsigned long start, nr, mark;
};

static DEFINE_SPINLOCK(ra_lock);
/* protected by ra_lock: */
static struct list_head ra_queue = LIST_HEAD_INIT(ra_queue);
static unsigned int ra_queued;		 /* read unlocked as a hint */
static struct address_space *ra_busy;	 /* whose window is being read */
static unsigned long ra_handed, ra_read; /* struct ra_worker_stats */

static DEFINE_WAIT_QUEUE_HEAD(ra_wq);	   /* the worker waits for work */
static DEFINE_WAIT_QUEUE_HEAD(ra_idle_wq); /* woken after each window */
static struct task *ra_worker;		   /* set once at boot */
static unsigned int ra_worker_min = RA_WORKER_MIN; /* tests lower it */

/* The first page of [@index, @end) that is not cached, or @end. Lock-free
 * (a hint): a window already cached costs no lock. */
static unsigned long
first_absent(struct address_space *m, unsigned long index, unsigned long end)
{
	while (index < end && !filemap_absent_run(m, index, 1))
		index++;
	return index;
}

/* Queue [@start, @start+@nr) for the worker. Return: false if the reader
 * must read it itself (see the head of this file). */
static bool ra_hand_off(struct address_space *m,
			unsigned long start,
			unsigned long nr,
			unsigned long mark)
{
	struct ra_work *w;

	if (nr < READ_ONCE(ra_worker_min) || !m->ra_worker ||
	    !READ_ONCE(ra_worker) || mapping_fill_lock(m) == FILL_I_RWSEM ||
	    READ_ONCE(ra_queued) >= RA_WORKER_QUEUE)
		return false;
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return false;
	ihold(m->host); /* the reader's open file holds one: not the last */
	*w = (struct ra_work){ .m = m, .start = start, .nr = nr, .mark = mark };
	spin_lock(&ra_lock);
	list_add_tail(&w->node, &ra_queue);
	WRITE_ONCE(ra_queued, ra_queued + 1);
	ra_handed++;
	spin_unlock(&ra_lock);
	wake_up(&ra_wq);
	return true;
}

static void ra_work_free(struct ra_work *w)
{
	iput(w->m->host); /* may evict an unlinked inode: task context */
	kfree(w);
}

static int readahead_worker(void *arg)
{
	(void)arg;
	for (;;) {
		struct ra_work *w = NULL;

		wait_event(&ra_wq, READ_ONCE(ra_queued) > 0);
		spin_lock(&ra_lock);
		if (!list_empty(&ra_queue)) {
			w = list_first_entry(&ra_queue, struct ra_work, node);
			list_del(&w->node);
			WRITE_ONCE(ra_queued, ra_queued - 1);
			WRITE_ONCE(ra_busy, w->m); /* ra_busy_with reads it */
		}
		spin_unlock(&ra_lock);
		if (!w)
			continue;
		race_point(RACE_RA_WORKER, w->m);
		do_readahead(w->m, w->start, w->nr, w->mark);
		/* Before ra_busy clears: unmount counts the references. */
		ra_work_free(w);
		spin_lock(&ra_lock);
		WRITE_ONCE(ra_busy, NULL);
		ra_read++;
		spin_unlock(&ra_lock);
		wake_up_all(&ra_idle_wq);
	}
	return 0;
}

static bool ra_busy_with(struct address_space *m)
{
	struct address_space *busy = READ_ONCE(ra_busy);

	return busy && (!m || busy == m);
}

void readahead_cancel(struct address_space *m)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct ra_work *w, *n;

	spin_lock(&ra_lock);
	list_for_each_entry_safe (w, n, &ra_queue, node) {
		if (m && w->m != m)
			continue;
		list_del(&w->node);
		list_add_tail(&w->node, &gone);
		WRITE_ONCE(ra_queued, ra_queued - 1);
	}
	spin_unlock(&ra_lock);
	list_for_each_entry_safe (w, n, &gone, node)
		ra_work_free(w);
	wait_event(&ra_idle_wq, !ra_busy_with(m));
}

/* Is a window of @m queued or being read? */
static bool ra_pending(struct address_space *m)
{
	struct ra_work *w;
	bool pending;

	spin_lock(&ra_lock);
	pending = ra_busy == m;
	list_for_each_entry (w, &ra_queue, node)
		pending |= w->m == m;
	spin_unlock(&ra_lock);
	return pending;
}

void readahead_wait(struct address_space *m)
{
	wait_event(&ra_idle_wq, !ra_pending(m));
}

void readahead_worker_stats(struct ra_worker_stats *st)
{
	spin_lock(&ra_lock);
	*st = (struct ra_worker_stats){ ra_handed, ra_read, ra_queued };
	spin_unlock(&ra_lock);
}

struct task *readahead_worker_task(void)
{
	return READ_ONCE(ra_worker);
}

unsigned int readahead_set_worker_min(unsigned int pages)
{
	return __atomic_exchange_n(&ra_worker_min, pages, __ATOMIC_RELAXED);
}

static int readahead_worker_init(void)
{
	struct task *t;
	char v[8];

	if (ncpus < 2 ||
	    (bootarg_get("ra_worker", v, sizeof(v)) && !strcmp(v, "off"))) {
		pr_info("readahead: windows read by the reader\n");
		return 0;
	}
	t = task_create("readahead", readahead_worker, NULL);
	if (IS_ERR(t))
		return PTR_ERR(t);
	WRITE_ONCE(ra_worker, t);
	return 0;
}
INIT_HOOK(readahead_worker, readahead_worker_init, INIT_LEVEL_LATE);

/*
 * Read the window @ra describes: the reader's pages [start, mark) here,
 * and the pages ahead of it [mark, end) (async_size of them, mark the
 * first) handed to the worker if it takes them, read here if not. The
 * tail is handed first, so the worker fills it while the reader fills
 * (then copies) its own pages. An asynchronous window (async_size ==
 * size) is all tail; with no tail, mark == end marks nothing.
 */
static void ra_submit(struct address_space *m, struct file_ra_state *ra)
{
	unsigned long start = ra->start, end = ra->start + ra->size;
	unsigned long mark = end - ra->async_size, ahead;

	if (ra->async_size && !past_last(mark, last_index(m))) {
		ahead = first_absent(m, mark, end);
		if (ahead == end || ra_hand_off(m, ahead, end - ahead, mark))
			end = mark;
	}
	if (start < end) /* a window all cached takes no lock */
		do_readahead(m, start, end - start, mark);
}

static unsigned int roundup_pow2(unsigned long n)
{
	unsigned int p = 1;

	while (p < n && p < (1U << 30))
		p <<= 1;
	return p;
}

/*
 * The window of a read from the start of a file (not continuing one):
 * the request rounded up to a power of two, then four times that if it
 * is at most 1/32 of @cap, twice if at most 1/4, else @cap - Linux's
 * initial window. The pages past the request are read ahead.
 */
static unsigned int first_window(unsigned long req_pages, unsigned int cap)
{
	unsigned int size = roundup_pow2(req_pages);

	if (size <= cap / 32)
		return 4 * size;
	if (size <= cap / 4)
		return 2 * size;
	return cap;
}

void page_cache_sync_readahead(struct address_space *m,
			       struct file_ra_state *ra,
			       unsigned long index,
			       unsigned long req_pages)
{
	unsigned int init = MIN(roundup_pow2(req_pages), ra->ra_pages);
	bool sequential =
	    ra->prev_index != ULONG_MAX &&
	    (index == ra->prev_index + 1 || index == ra->prev_index);

	if (!ra->ra_pages) { /* readahead off: just the request, capped */
		do_readahead(m,
			     index,
			     MIN(req_pages, (unsigned long)RA_DEFAULT_PAGES),
			     ULONG_MAX);
		return;
	}
	if (!index && !sequential)
		init = first_window(req_pages, ra->ra_pages);
	ra->start = index;
	ra->size = sequential && ra->size
		       ? MIN(MAX(2 * ra->size, init), ra->ra_pages)
		       : init;
	ra->async_size = ra->size > req_pages ? ra->size - req_pages : 0;
	ra_submit(m, ra);
}

void page_cache_async_readahead(struct address_space *m,
				struct file_ra_state *ra,
				struct page *page,
				unsigned long index,
				unsigned long req_pages)
{
	if (!page_test_and_clear(page, PG_readahead) || !ra->ra_pages)
		return;
	if (index >= ra->start && index < ra->start + ra->size) {
		ra->start += ra->size; /* the expected mark: pipeline on */
		ra->size = MIN(2 * ra->size, ra->ra_pages);
	} else { /* someone else's mark: start a window after it */
		ra->start = index + 1;
		ra->size = MIN(roundup_pow2(req_pages), ra->ra_pages);
	}
	ra->async_size = ra->size;
	ra_submit(m, ra);
}

/**
 * page_cache_force_readahead - read [@index, @index+@nr) in, whatever the
 * window (posix_fadvise WILLNEED, readahead(2)); stops at EOF.
 * Context: task, may sleep; takes invalidate_lock shared per batch.
 */
void page_cache_force_readahead(struct address_space *m,
				unsigned long index,
				unsigned long nr)
{
	do_readahead(m, index, nr, ULONG_MAX);
}

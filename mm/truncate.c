/*
 * mm/truncate.c: the page cache's removal door.
 *
 * Every range of a file's cache leaves through truncate_inode_pages_range()
 * (truncate, hole punch, eviction); every single page leaves the index
 * through filemap_delete_page(), which truncation and reclaim share.
 * Callers of truncate_inode_pages_range hold mapping->invalidate_lock
 * exclusive (asserted; mm/invalidate.c); keep this door single.
 * invalidate_mapping_pages() drops only what reclaim could drop (clean,
 * unlocked, unused pages), through the same filemap_delete_page().
 *
 * A page is deleted only while locked and not under writeback, so a page
 * being read in (locked by its reader) or written out is waited for, never
 * yanked away; the entries of file mappings that map it go first, every
 * hart's TLB flushed (unmap_mapping_page, mm/rmap.c), before the caller
 * frees its blocks. Partial pages at either end stay cached with the leaving
 * part zeroed.
 *
 * filemap_zero_range() is the other half of a range operation: it zeroes
 * bytes that stay in the file (the tail of the block holding a new EOF,
 * the part of an old EOF block that a size extension brings back, the
 * partial blocks at the edges of a punched or zeroed range). Zeroing only
 * the cached copy is not enough there: the block on disk still holds the
 * old bytes, and the next read would bring them back. So it reads the
 * pages it needs, zeroes them and marks them dirty; writeback puts the
 * zeroes on disk (Linux: block_truncate_page, pagecache_isize_extended).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/trace.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/mmap.h>

/*
 * The walk the range operations share: @visit each page cached at an index
 * in [@first, @last], in index order, @TRUNCATE_BATCH found at a time
 * without a lock (filemap_get_pages), each referenced during its call.
 * Return: the sum of @visit's results (the pages it dropped).
 */
static unsigned long walk_cached(struct address_space *m,
				 unsigned long first,
				 unsigned long last,
				 unsigned int (*visit)(struct address_space *m,
						       struct page *page,
						       void *arg),
				 void *arg)
{
	unsigned long index = first, sum = 0;
	struct page *pages[TRUNCATE_BATCH];
	unsigned int n;

	while (index <= last &&
	       (n = filemap_get_pages(m, index, TRUNCATE_BATCH, pages))) {
		for (unsigned int i = 0; i < n; i++) {
			if (pages[i]->index <= last)
				sum += visit(m, pages[i], arg);
			index = pages[i]->index + 1;
			put_page(pages[i]);
		}
	}
	return sum;
}

/*
 * Lock-free finders take references with no lock (filemap_get_page), so a
 * count read here could grow right after. Freezing swaps a count of at
 * most @max_refs for zero in one step, which page_ref_tryget refuses, so
 * no finder gets in while the page leaves the index; the caller puts the
 * count back afterwards. A dirty page stays. Caller holds i_pages_lock.
 * Return: the count frozen, or 0 if the page stays.
 */
static int page_ref_freeze(struct page *page, int max_refs)
{
	int refs = __atomic_load_n(&page->refcount, __ATOMIC_RELAXED);

	if (refs > max_refs || page_test(page, PG_dirty) ||
	    !__atomic_compare_exchange_n(&page->refcount,
					 &refs,
					 0,
					 false,
					 __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;
	if (page_test(page, PG_dirty)) { /* dirtied before the freeze */
		__atomic_store_n(&page->refcount, refs, __ATOMIC_RELEASE);
		return 0;
	}
	return refs;
}

/* Take @page out of @m's index and uncount it. Caller holds i_pages_lock
 * and the page lock. */
static void page_leave_index(struct address_space *m, struct page *page)
{
	radix_tree_delete(&m->i_pages, page->index);
	m->nrpages--;
	trace_event(TRACE_PAGE_DEL, m->host ? m->host->i_ino : 0, page->index);
	if (page_test_and_clear(page, PG_dirty)) {
		__atomic_fetch_sub(&m->nrdirty, 1, __ATOMIC_ACQ_REL);
		account_page_dirty(-1);
	}
}

bool filemap_delete_page(struct page *page, int max_refs)
{
	struct address_space *m = page->mapping;
	int frozen = 0;

	DEBUG_ASSERT(page_test(page, PG_locked));
	if (!m)
		return false;
	spin_lock(&m->i_pages_lock);
	if (max_refs && !(frozen = page_ref_freeze(page, max_refs))) {
		spin_unlock(&m->i_pages_lock);
		return false;
	}
	page_leave_index(m, page);
	lru_del(page);
	page->mapping = NULL;
	if (frozen) /* out of the index: finders no longer reach it */
		__atomic_store_n(&page->refcount, frozen, __ATOMIC_RELEASE);
	spin_unlock(&m->i_pages_lock);
	put_page(page); /* the cache's reference; the caller holds another */
	return true;
}

void filemap_delete_pages(struct address_space *m,
			  struct page **pages,
			  unsigned int n)
{
	spin_lock(&m->i_pages_lock);
	for (unsigned int i = 0; i < n; i++) {
		DEBUG_ASSERT(page_test(pages[i], PG_locked) &&
			     pages[i]->mapping == m);
		page_leave_index(m, pages[i]);
	}
	lru_del_many(pages, n);
	for (unsigned int i = 0; i < n; i++)
		pages[i]->mapping = NULL;
	spin_unlock(&m->i_pages_lock);
	put_pages(pages, n); /* the cache's references; not the last */
}

struct byte_range {
	loff_t start, end;  /* inclusive */
	struct page **held; /* partial pages kept locked, or NULL */
	unsigned int nheld;
};

/* Remove bytes [r->start, r->end] of the file from @page (referenced).
 * Return: 1 if the page left the index. */
static unsigned int
truncate_page(struct address_space *m, struct page *page, void *arg)
{
	struct byte_range *r = arg;
	loff_t pstart = (loff_t)page->index << PAGE_SHIFT;
	unsigned int from = MAX(r->start, pstart) - pstart;
	unsigned int to =
	    MIN(r->end, pstart + (loff_t)PAGE_SIZE - 1) - pstart + 1;
	bool dropped = false;

	/* Pages are taken in index order; a partial page at the head may
	 * be held locked meanwhile. */
	lock_page_nested(page, r->nheld);
	if (page->mapping != m)
		goto out_unlock; /* reclaimed or truncated meanwhile */
	wait_on_page_writeback(page);
	if (m->a_ops->invalidate_page)
		m->a_ops->invalidate_page(page, from, to - from);
	if (from == 0 && to == PAGE_SIZE) {
		unmap_mapping_page(page); /* no mapping keeps it */
		dropped = filemap_delete_page(page, 0);
	} else {
		/* The blocks under the part that leaves may be freed: the next
		 * store must fault into page_mkwrite, which maps them again. */
		page_mkclean(page);
		memset((char *)page_address(page) + from, 0, to - from);
		if (r->held) { /* locked until the blocks are freed */
			get_page(page);
			r->held[r->nheld++] = page;
			return 0;
		}
	}
out_unlock:
	unlock_page(page);
	return dropped;
}

/*
 * Whole pages of the range leave in batches (Linux: find_lock_entries,
 * then delete_from_page_cache_batch): a page that locks without waiting
 * and is not under writeback is unmapped and kept locked in the batch;
 * the batch then leaves the index under one hold of i_pages_lock and
 * lru_lock, is unlocked, and its pages are put together, the freed ones
 * waiting one grace period together (put_pages). A page that would make
 * the door wait (locked by a reader or the flusher, under writeback), and
 * a partial page, goes through truncate_page after the batch has left:
 * the door never sleeps on a page lock while it holds the batch's.
 */
struct drop_batch {
	struct page *pages[TRUNCATE_BATCH];
	unsigned int n;
};

/* Take @page (referenced) into @b if it is wholly in the range, locks at
 * once and is not under writeback. Return: true if taken, with the
 * reference. */
static bool batch_take(struct address_space *m,
		       const struct byte_range *r,
		       struct page *page,
		       struct drop_batch *b)
{
	loff_t pstart = (loff_t)page->index << PAGE_SHIFT;

	if (pstart < r->start || pstart + (loff_t)PAGE_SIZE - 1 > r->end ||
	    !trylock_page(page))
		return false;
	if (page->mapping != m || page_test(page, PG_writeback)) {
		unlock_page(page); /* truncate_page looks again, waiting */
		return false;
	}
	if (m->a_ops->invalidate_page)
		m->a_ops->invalidate_page(page, 0, PAGE_SIZE);
	unmap_mapping_page(page); /* no mapping keeps it */
	b->pages[b->n++] = page;
	return true;
}

/* Drop the batch's pages from the cache. Return: how many. */
static unsigned int batch_drop(struct address_space *m, struct drop_batch *b)
{
	unsigned int n = b->n;

	if (!n)
		return 0;
	filemap_delete_pages(m, b->pages, n);
	for (unsigned int i = 0; i < n; i++)
		unlock_page(b->pages[i]);
	put_pages(b->pages, n); /* batch_take's references */
	b->n = 0;
	return n;
}

/* Drop the cached pages of the range, zero the partial ones. Return: the
 * number of pages dropped. */
static unsigned long truncate_walk(struct address_space *m,
				   struct byte_range *r)
{
	unsigned long index = r->start >> PAGE_SHIFT,
		      last = r->end >> PAGE_SHIFT;
	unsigned long dropped = 0;
	struct page *pages[TRUNCATE_BATCH];
	struct drop_batch b = { .n = 0 };
	unsigned int n;

	while (index <= last &&
	       (n = filemap_get_pages(m, index, TRUNCATE_BATCH, pages))) {
		for (unsigned int i = 0; i < n; i++) {
			struct page *page = pages[i];

			index = page->index + 1;
			if (page->index > last) {
				put_page(page);
				continue;
			}
			if (batch_take(m, r, page, &b))
				continue;
			dropped += batch_drop(m, &b); /* before any wait */
			dropped += truncate_page(m, page, r);
			put_page(page);
		}
		dropped += batch_drop(m, &b);
	}
	return dropped;
}

static void truncate_range(struct address_space *m, struct byte_range *r)
{
	if (r->start < 0 || r->end < r->start)
		return;
	filemap_assert_invalidating(m, r->start, r->end);
	if (truncate_walk(m, r))
		unmap_dropped_pages(m, r->start, r->end);
	writeback_unlist_clean(m); /* off the flusher's list if now clean */
}

void truncate_inode_pages_range(struct address_space *m,
				loff_t lstart,
				loff_t lend)
{
	struct byte_range r = { lstart, lend, NULL, 0 };

	truncate_range(m, &r);
}

/*
 * A partial page keeps the part of it outside the range, and may be dirty
 * there. With blocks smaller than a page, the blocks under the part that
 * leaves are what a punch frees next, and writeback maps a page's blocks
 * from the block map as it finds it, under the page lock, then writes
 * them later: had it locked the page between its zeroing here and the
 * free, its write would land in blocks another file may own by then.
 * Held from the zeroing (its writeback waited for) until the block map
 * has changed, the page is written either before that or after, when its
 * blocks in the range are holes. (Linux's partial invalidation unmaps the
 * page's buffer heads instead; whole's pages keep no buffers.) A fill or
 * a fault of the page waits for it too.
 */
void truncate_inode_pages_hold_edges(struct address_space *m,
				     loff_t lstart,
				     loff_t lend,
				     struct page *held[2])
{
	struct byte_range r = { lstart, lend, held, 0 };

	held[0] = held[1] = NULL;
	truncate_range(m, &r);
	DEBUG_ASSERT(r.nheld <= 2);
}

void truncate_release_edges(struct page *held[2])
{
	for (int i = 1; i >= 0; i--) { /* in reverse */
		if (held[i]) {
			unlock_page(held[i]);
			put_page(held[i]);
			held[i] = NULL;
		}
	}
}

/* Drop @page if nothing uses it: what reclaim could drop. */
static unsigned int
drop_unused_page(struct address_space *m, struct page *page, void *arg)
{
	unsigned int dropped = 0;

	(void)arg;
	if (trylock_page(page)) {
		if (page->mapping == m && !page_test(page, PG_writeback))
			dropped = filemap_delete_page(page, 2);
		unlock_page(page);
	}
	return dropped;
}

unsigned long invalidate_mapping_range(struct address_space *m,
				       unsigned long first,
				       unsigned long last)
{
	return walk_cached(m, first, last, drop_unused_page, NULL);
}

unsigned long invalidate_mapping_pages(struct address_space *m)
{
	return invalidate_mapping_range(m, 0, ULONG_MAX);
}

void truncate_inode_pages(struct address_space *m, loff_t start)
{
	truncate_inode_pages_range(m, start, LLONG_MAX);
}

void truncate_inode_pages_final(struct address_space *m)
{
	truncate_inode_pages_range(m, 0, LLONG_MAX);
	writeback_forget(m);
}

static unsigned int
wait_fill(struct address_space *m, struct page *page, void *arg)
{
	(void)m, (void)arg;
	wait_on_page_locked(page);
	return 0;
}

void filemap_wait_fills(struct address_space *m, loff_t start, loff_t end)
{
	if (start < 0 || end < start)
		return;
	lockdep_assert_held_write(&m->invalidate_lock);
	walk_cached(m, start >> PAGE_SHIFT, end >> PAGE_SHIFT, wait_fill, NULL);
}

/* Page @index of @m, locked, referenced and uptodate (read if it must be).
 * Return: the page or ERR_PTR(-ENOMEM or -EIO). */
static struct page *grab_uptodate_page(struct address_space *m,
				       unsigned long index)
{
	for (;;) {
		struct page *page = filemap_grab_page(m, index);

		if (IS_ERR(page) || page_test(page, PG_uptodate))
			return page;
		page_clear(page, PG_error);
		page_lock_handoff(page);
		m->a_ops->read_page(m, page); /* unlocks when done */
		lock_page(page);
		if (page->mapping == m && page_test(page, PG_uptodate))
			return page;
		unlock_page(page);
		if (page->mapping == m) {
			put_page(page);
			return ERR_PTR(-EIO);
		}
		put_page(page); /* reclaimed meanwhile: look again */
	}
}

/**
 * filemap_zero_range - zero bytes [@start, @end) of @m's file, in the page
 * cache and (through writeback) on disk
 * @m:     the mapping
 * @start: first byte to zero
 * @end:   first byte past the range; nothing happens if @end <= @start
 *
 * Each page the range touches is found or read in (a_ops->read_page, with
 * the i_size of the moment: blocks past EOF read as zeroes), zeroed in the
 * range and marked dirty. Meant for partial blocks: a caller that drops
 * whole pages uses truncate_inode_pages_range instead. Blocks that are
 * holes stay holes (writeback skips them); the caller allocates nothing.
 *
 * Context: task, may sleep. Caller holds the host's i_rwsem and
 * @m->invalidate_lock exclusive (it reads pages in and changes bytes that
 * readers may see), and no page lock.
 * Return: 0, -ENOMEM or -EIO; on error the pages before the failing one
 * are zeroed and dirty.
 */
int filemap_zero_range(struct address_space *m, loff_t start, loff_t end)
{
	lockdep_assert_held_write(&m->invalidate_lock);
	if (m->host)
		lockdep_assert_held_write(&m->host->i_rwsem);
	while (start < end) {
		unsigned long index = start >> PAGE_SHIFT;
		loff_t pstart = (loff_t)index << PAGE_SHIFT;
		unsigned int from = start - pstart;
		unsigned int to = MIN(end - pstart, (loff_t)PAGE_SIZE);
		struct page *page = grab_uptodate_page(m, index);

		if (IS_ERR(page))
			return PTR_ERR(page);
		wait_on_page_writeback(page);
		memset((char *)page_address(page) + from, 0, to - from);
		set_page_dirty(page);
		unlock_page(page);
		put_page(page);
		start = pstart + to;
	}
	return 0;
}

/**
 * filemap_truncate_tail - shrink the file to @size: store the new i_size
 * and zero [@size, @end) of the page that holds it
 * @m:    the mapping (its host is the inode)
 * @size: the new size
 * @end:  the end of the block that holds @size (at most the page's end)
 *
 * The page is found or read in first - the step that can fail, and the
 * size must not change then. The size is stored before the bytes are
 * zeroed; a reader copies first and reads i_size after (mm/filemap_read.c,
 * the barriers pair), so a reader that saw a zero also sees the new size
 * and returns no byte past it: a read beside a truncate returns the old
 * bytes or stops at the new EOF, never zeroes inside the old one.
 *
 * Context: as filemap_zero_range.
 * Return: 0, -ENOMEM or -EIO (then neither the size nor a byte changed).
 */
int filemap_truncate_tail(struct address_space *m, loff_t size, loff_t end)
{
	unsigned long index = size >> PAGE_SHIFT;
	loff_t pstart = (loff_t)index << PAGE_SHIFT;
	struct page *page = NULL;

	lockdep_assert_held_write(&m->invalidate_lock);
	DEBUG_ASSERT(end >= size && end - pstart <= (loff_t)PAGE_SIZE);
	if (end > size) {
		page = grab_uptodate_page(m, index);
		if (IS_ERR(page))
			return PTR_ERR(page);
		wait_on_page_writeback(page);
	}
	inode_set_size(m->host, size);
	if (!page)
		return 0;
	smp_wmb(); /* the size before the zeroes: pairs with read_range */
	memset((char *)page_address(page) + (size - pstart), 0, end - size);
	set_page_dirty(page);
	unlock_page(page);
	put_page(page);
	return 0;
}

/*
 * mm/filemap.c: the page cache - page state, look-ups, the insertion door,
 * buffered write (buffered read: mm/filemap_read.c).
 *
 * Lock order (outermost first; docs/locking.md, kernel/lockdep.h ranks;
 * lockdep-lite reports any acquisition against it):
 *
 *   inode->i_rwsem                 X: write, truncate, fallocate; reads
 *                                  take none. Two inodes: by address.
 *     mm->mmap_lock                (a fault; might_fault() stands for it)
 *       mapping->invalidate_lock   S: fill paths - read miss, read of a
 *                                     !uptodate page, every readahead batch
 *                                     (sync, async, fadvise WILLNEED,
 *                                     readahead(2)); RWF_NOWAIT: trylock.
 *                                     None on a cached, uptodate page.
 *                                  X: truncate_inode_pages_range's callers
 *                                     (truncate, fallocate, eviction), for
 *                                     the cache drop AND the block-map
 *                                     change; lock_two orders two mappings.
 *         page lock (PG_locked)    I/O, truncation, write_begin..write_end
 *                                  (lock_page is a lockdep class); two of
 *                                  one file by index (lock_page_nested)
 *           fs block-map locks     inside a_ops (ext2: i_map_lock, then
 *                                  s_alloc_lock)
 *             mapping->i_pages_lock  the index, nrpages (nrdirty is atomic)
 *               lru_lock             the LRU (mm/vmscan.c)
 *             wb_lock                the flusher's list (mm/writeback.c)
 *
 * The doors check the rule (mm/invalidate.c): filemap_add_page wants
 * invalidate_lock in either mode or i_rwsem exclusive (a buffered write,
 * which truncate and fallocate exclude by i_rwsem); truncation wants it
 * exclusive, owner checked. Reclaim and invalidate_mapping_pages drop only
 * clean, unused pages, whose data is on disk: they take no invalidate_lock
 * (reclaim runs inside allocations made with it held).
 *
 * No invalidate_lock, no page lock and no spinlock is held across a copy
 * to the caller's buffer in filemap_read (copy_to_task checks): the buffer
 * may be a file mapping whose fault needs the very lock or page.
 * filemap_write copies into the locked page with faults off
 * (arch_copy_nofault), as Linux does: a copy that meets a fault stops
 * short, the page is let go, and the source is faulted in again with no
 * page lock held.
 *
 * References: alloc gives one; the index holds one from filemap_add_page to
 * filemap_delete_page; a look-up takes one with page_ref_tryget, with no
 * lock (filemap_get_page, filemap_get_read_batch) or under i_pages_lock
 * (the gang look-up). A page that was ever in an index is freed a grace
 * period after its last reference went (PG_rcu), so a lock-free finder
 * never touches a page that went back to the allocator.
 */
#include <string.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/trace.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/mmap.h>
#include <mm/pgtable.h>
#include <mm/vm.h>

#define PAGE_WAIT_TABLE_BITS 6

static DEFINE_LOCK_CLASS(i_pages_lock_class, LOCK_RANK_SPIN);
static DEFINE_LOCK_CLASS(i_mmap_lock_class, LOCK_RANK_I_MMAP);
static DEFINE_LOCK_CLASS(page_lock_class, LOCK_RANK_PAGE);
/* Every page lock is this one lockdep map: ranks are per class anyway. */
static struct lockdep_map page_lock_map = { &page_lock_class, "page lock" };

/* Tasks sleeping for PG_locked or PG_writeback, hashed by page address. */
static struct wait_queue_head page_wait_table[1 << PAGE_WAIT_TABLE_BITS];

void mapping_init(struct address_space *m,
		  struct inode *host,
		  const struct address_space_operations *a_ops)
{
	m->host = host;
	m->a_ops = a_ops;
	init_rwsem(
	    &m->invalidate_lock, "invalidate_lock", &invalidate_lock_class);
	spin_lock_init(&m->i_pages_lock, "i_pages_lock");
	lockdep_set_class(&m->i_pages_lock.dep, &i_pages_lock_class);
	radix_tree_init(&m->i_pages);
	m->nrpages = 0;
	m->nrdirty = 0;
	m->sync_writers = 0;
	m->wb_err = 0;
	m->sb_wb_err = NULL;
	m->ra_worker = false;
	m->fill_lock = filemap_fill_lock();
	list_init(&m->wb_node);
	mutex_init(&m->i_mmap_lock, "i_mmap_lock", &i_mmap_lock_class);
	list_init(&m->i_mmap);
}

void get_page(struct page *page)
{
	int old = __atomic_fetch_add(&page->refcount, 1, __ATOMIC_RELAXED);

	WARN_ON_ONCE(old <= 0);
}

bool page_ref_tryget(struct page *page)
{
	int old = __atomic_load_n(&page->refcount, __ATOMIC_RELAXED);

	do {
		if (old <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&page->refcount,
					      &old,
					      old + 1,
					      true,
					      __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void page_free(struct page *page)
{
	/* Drop the page-cache bits; the allocator's own bits stay. */
	__atomic_fetch_and(
	    &page->flags, (1UL << PG_locked) - 1, __ATOMIC_RELAXED);
	free_pages(page, 0);
}

/* A grace period has passed for the pages chained from @head's page
 * through page->private (put_pages): free them all. */
static void page_free_rcu(struct rcu_head *head)
{
	struct page *page = container_of(head, struct page, rcu), *next;

	for (; page; page = next) {
		next = page->private;
		page->private = NULL;
		page_free(page);
	}
}

void put_page(struct page *page)
{
	put_pages(&page, 1);
}

void put_pages(struct page **pages, unsigned int n)
{
	void *chain = NULL, **tail = &chain; /* through page->private */

	for (unsigned int i = 0; i < n; i++) {
		struct page *page = pages[i];
		int old =
		    __atomic_fetch_sub(&page->refcount, 1, __ATOMIC_ACQ_REL);

		if (WARN_ON_ONCE(old <= 0) || old > 1)
			continue;
		WARN_ON_ONCE(page->mapping || page_test(page, PG_lru) ||
			     page_test(page, PG_locked) ||
			     page_test(page, PG_writeback));
		/* A lock-free finder may still hold it and try a reference:
		 * it waits a grace period, chained in order to the others
		 * freed here (a page-cache page's private is free once it is
		 * out of the index), so they go back to the allocator in the
		 * order they were put. */
		if (page_test(page, PG_rcu)) {
			page->private = NULL;
			*tail = page;
			tail = &page->private;
		} else {
			page_free(page);
		}
	}
	if (chain)
		call_rcu(&((struct page *)chain)->rcu, page_free_rcu);
}

static void page_cache_init(struct page *page)
{
	page->mapping = NULL;
	page->index = 0;
	page->private = NULL;
	list_init(&page->lru);
}

struct page *page_cache_alloc(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);

	if (page)
		page_cache_init(page);
	return page;
}

unsigned int page_cache_alloc_bulk(struct page **pages, unsigned int n)
{
	unsigned int got = alloc_pages_bulk(GFP_KERNEL, n, pages);

	if (!got && n) /* short of memory: the single door reclaims */
		got = (pages[0] = page_cache_alloc()) != NULL;
	for (unsigned int i = 0; i < got; i++)
		page_cache_init(pages[i]);
	return got;
}

static struct wait_queue_head *page_waitqueue(const struct page *page)
{
	uint64_t h = (uintptr_t)page * 0x9e3779b97f4a7c15ULL;

	return &page_wait_table[h >> (64 - PAGE_WAIT_TABLE_BITS)];
}

static int page_wait_table_init(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(page_wait_table); i++)
		wait_queue_init(&page_wait_table[i]);
	return 0;
}
INIT_HOOK(page_wait_table, page_wait_table_init, INIT_LEVEL_MM);

/*
 * Sleep until @bit is clear (and, with @take, set it for us). PG_waiters is
 * set after queueing and in the same atomic step that reads @bit, so the
 * clearer's atomic step either comes later and sees PG_waiters, or came
 * earlier and we see @bit clear.
 */
static void page_wait_bit(struct page *page, enum pageflag bit, bool take)
{
	struct wait_queue_head *wq = page_waitqueue(page);
	struct wait_queue_entry w = { .task = NULL };
	unsigned long old;

	for (;;) {
		prepare_to_wait(wq, &w);
		old = __atomic_fetch_or(
		    &page->flags, 1UL << PG_waiters, __ATOMIC_ACQ_REL);
		if (!(old & (1UL << bit)) &&
		    (!take || !page_test_and_set(page, bit)))
			break;
		schedule();
	}
	finish_wait(wq, &w);
}

/* Clear @bit, and the flags in @also in the same atomic step; wake the
 * hashed queue only if someone may be waiting. Every waiter of the queue
 * wakes and re-arms PG_waiters if it must sleep on. Return: the flags
 * before. */
static unsigned long
page_wake_bit(struct page *page, enum pageflag bit, unsigned long also)
{
	unsigned long mask = (1UL << bit) | (1UL << PG_waiters) | also;
	unsigned long old =
	    __atomic_fetch_and(&page->flags, ~mask, __ATOMIC_ACQ_REL);

	WARN_ON_ONCE(!(old & (1UL << bit)));
	if (old & (1UL << PG_waiters))
		wake_up_all(page_waitqueue(page));
	return old;
}

/* The page lock's trace event (kernel/trace.h): the file and index. The
 * page is locked, or its locker waits for it and keeps its file (an open
 * file, a mapping or an inode reference), so the inode read stays valid. */
static void trace_page_lock(struct page *page, enum trace_type type)
{
	struct address_space *m;

	if (likely(!READ_ONCE(trace_on)))
		return;
	m = READ_ONCE(page->mapping);
	__trace_event(type,
		      m && m->host ? m->host->i_ino : 0,
		      TRACE_LOCK_PAGE | LOCK_MODE_EXCLUSIVE |
			  (uint64_t)page->index << TRACE_LOCK_INDEX_SHIFT);
}

bool trylock_page(struct page *page)
{
	if (page_test_and_set(page, PG_locked))
		return false;
	trace_page_lock(page, TRACE_LOCK_TAKE);
	return true;
}

void lock_page(struct page *page)
{
	lock_page_nested(page, 0);
}

void lock_page_nested(struct page *page, unsigned int subclass)
{
	const unsigned long locked = 1UL << PG_locked;
	unsigned long old = __atomic_load_n(&page->flags, __ATOMIC_RELAXED);

	lockdep_acquire(
	    &page_lock_map, LOCK_MODE_EXCLUSIVE, subclass, _THIS_IP_);
	/* Uncontended: the lock and PG_lockdep in one atomic step. */
	while (!(old & locked))
		if (__atomic_compare_exchange_n(&page->flags,
						&old,
						old | locked |
						    (1UL << PG_lockdep),
						true,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			trace_page_lock(page, TRACE_LOCK_TAKE);
			return;
		}
	trace_page_lock(page, TRACE_LOCK_WAIT);
	page_wait_bit(page, PG_locked, true);
	page_set(page, PG_lockdep);
	trace_page_lock(page, TRACE_LOCK_TAKE);
}

void page_lock_handoff(struct page *page)
{
	if (page_test_and_clear(page, PG_lockdep))
		lockdep_release(&page_lock_map);
}

/* PG_lockdep goes in the same atomic step as the lock (page_lock_handoff
 * takes a step of its own). */
void unlock_page(struct page *page)
{
	const unsigned long lockdep = 1UL << PG_lockdep;

	trace_page_lock(page, TRACE_LOCK_DROP);
	if (page_wake_bit(page, PG_locked, lockdep) & lockdep)
		lockdep_release(&page_lock_map);
}

void wait_on_page_locked(struct page *page)
{
	if (page_test(page, PG_locked))
		page_wait_bit(page, PG_locked, false);
}

void wait_on_page_writeback(struct page *page)
{
	if (page_test(page, PG_writeback))
		page_wait_bit(page, PG_writeback, false);
}

void end_page_writeback(struct page *page)
{
	account_page_writeback(-1);
	page_wake_bit(page, PG_writeback, 0);
}

void page_read_done(struct page *page, int err)
{
	if (err)
		page_set(page, PG_error);
	else
		page_set(page, PG_uptodate);
	unlock_page(page);
}

/* Caller holds the page lock, so the page cannot leave its mapping. */
bool set_page_dirty(struct page *page)
{
	struct address_space *m = page->mapping;
	bool first;

	WARN_ON_ONCE(!page_test(page, PG_locked));
	if (page_test_and_set(page, PG_dirty))
		return false;
	account_page_dirty(1);
	if (!m)
		return true;
	first = __atomic_fetch_add(&m->nrdirty, 1, __ATOMIC_ACQ_REL) == 0;
	if (first)
		writeback_mark_dirty(m);
	/* A bare inode of no superblock (tests) has no metadata to write. */
	if (m->host && m->host->i_sb)
		mark_inode_dirty(m->host);
	return true;
}

bool page_clear_dirty(struct page *page)
{
	struct address_space *m = page->mapping;

	if (!page_test_and_clear(page, PG_dirty))
		return false;
	account_page_dirty(-1);
	if (m)
		__atomic_fetch_sub(&m->nrdirty, 1, __ATOMIC_ACQ_REL);
	return true;
}

/*
 * No lock: the page found may be leaving the index (its count already
 * zero: tryget refuses it) or have left it and been put back elsewhere
 * (the index read again no longer shows it). Either way, look again.
 */
struct page *filemap_get_page(struct address_space *m, unsigned long index)
{
	struct page *page;

	rcu_read_lock();
	for (;;) {
		page = radix_tree_lookup(&m->i_pages, index);
		if (!page)
			break;
		if (!page_ref_tryget(page))
			continue;
		if (radix_tree_lookup(&m->i_pages, index) == page)
			break;
		put_page(page);
	}
	rcu_read_unlock();
	return page;
}

/*
 * One walk of the index to the leaf, a reference on each page of the run,
 * then each slot read again: a page still in its slot is the page at its
 * index (filemap_get_page's recheck; the leaf stays at its indices while
 * it is in the tree and leaves it only empty, radix_tree_leaf_slots).
 * Flags are read only with the reference held and the page rechecked.
 */
unsigned int filemap_get_read_batch(struct address_space *m,
				    unsigned long index,
				    unsigned int max,
				    struct page **pages)
{
	void *const *slots;
	unsigned int n = 0, i;

	rcu_read_lock();
	slots = radix_tree_leaf_slots(&m->i_pages, index, &n);
	n = slots ? MIN(MIN(n, max), (unsigned int)FILEMAP_BATCH) : 0;
	for (i = 0; i < n; i++) {
		pages[i] = rcu_dereference(slots[i]);
		if (!pages[i] || !page_ref_tryget(pages[i]))
			break;
	}
	n = i;
	race_point(RACE_READ_BATCH, m);
	for (i = 0; i < n; i++)
		if (rcu_dereference(slots[i]) != pages[i] ||
		    !page_test(pages[i], PG_uptodate) ||
		    page_test(pages[i], PG_readahead))
			break;
	for (unsigned int k = i; k < n; k++)
		put_page(pages[k]);
	rcu_read_unlock();
	return i;
}

struct page *filemap_lock_page(struct address_space *m, unsigned long index)
{
	struct page *page;

	while ((page = filemap_get_page(m, index))) {
		lock_page(page);
		if (page->mapping == m && page->index == index)
			return page;
		unlock_page(page); /* truncated or reclaimed meanwhile */
		put_page(page);
	}
	return NULL;
}

struct page *filemap_grab_page(struct address_space *m, unsigned long index)
{
	for (;;) {
		struct page *page = filemap_lock_page(m, index);
		int err;

		if (page)
			return page;
		page = page_cache_alloc();
		if (!page)
			return ERR_PTR(-ENOMEM);
		trylock_page(page); /* ours alone: cannot fail */
		err = filemap_add_page(m, page, index);
		if (!err)
			return page;
		unlock_page(page);
		put_page(page);
		if (err != -EEXIST)
			return ERR_PTR(err);
	}
}

unsigned int filemap_get_pages(struct address_space *m,
			       unsigned long start,
			       unsigned int max,
			       struct page **pages)
{
	unsigned int n;

	spin_lock(&m->i_pages_lock);
	n = radix_tree_gang_lookup(
	    &m->i_pages, (void **)pages, NULL, start, max);
	for (unsigned int i = 0; i < n; i++)
		get_page(pages[i]);
	spin_unlock(&m->i_pages_lock);
	return n;
}

/*
 * The leaves are read as filemap_get_read_batch reads them: a page is
 * taken only once a reference is held and its slot still shows it. A page
 * seen without PG_writeback (an acquire load: its write's end and error,
 * set before the flag cleared, are seen) needs no wait; a page no longer
 * in its slot is no longer the page at that index. Where no leaf holds the
 * index, one locked look-up finds the next page and takes it as it is.
 */
struct page *filemap_next_writeback(struct address_space *m,
				    unsigned long *index,
				    unsigned long last)
{
	unsigned long at = *index;
	struct page *page;

	while (at <= last) {
		void *const *slots;
		unsigned int n, i = 0;

		rcu_read_lock();
		slots = radix_tree_leaf_slots(&m->i_pages, at, &n);
		while (slots && i < n && at + i <= last) {
			page = rcu_dereference(slots[i]);
			if (!page || !page_test(page, PG_writeback)) {
				i++;
				continue;
			}
			if (!page_ref_tryget(page))
				continue; /* leaving: read the slot again */
			if (rcu_dereference(slots[i]) == page) {
				rcu_read_unlock();
				*index = at + i;
				return page;
			}
			put_page(page);
		}
		rcu_read_unlock();
		if (slots) {
			at += i;
			continue;
		}
		if (!filemap_get_pages(m, at, 1, &page))
			break;
		at = page->index;
		if (at <= last && page_test(page, PG_writeback)) {
			*index = at;
			return page;
		}
		put_page(page);
		at++;
	}
	return NULL;
}

/* Insert @pages[i] at @index + i until one cannot go in. Return: how
 * many went in; *@err says why the rest did not. */
static unsigned int insert_pages(struct address_space *m,
				 struct page **pages,
				 unsigned int n,
				 unsigned long index,
				 int *err)
{
	unsigned int i;

	*err = 0;
	spin_lock(&m->i_pages_lock);
	for (i = 0; i < n; i++) {
		*err = radix_tree_insert(&m->i_pages, index + i, pages[i]);
		if (*err)
			break;
		trace_event(
		    TRACE_PAGE_ADD, m->host ? m->host->i_ino : 0, index + i);
	}
	m->nrpages += i;
	lru_add_many(pages, i);
	spin_unlock(&m->i_pages_lock);
	return i;
}

bool filemap_cached(struct address_space *m, unsigned long index)
{
	return filemap_absent_run(m, index, 1) == 0;
}

unsigned int filemap_absent_run(struct address_space *m,
				unsigned long index,
				unsigned int max)
{
	unsigned int n = 0;

	rcu_read_lock();
	while (n < max && !radix_tree_lookup(&m->i_pages, index + n))
		n++;
	rcu_read_unlock();
	return n;
}

/*
 * The one insertion door: every page enters a mapping here, alone
 * (filemap_add_page) or in a run (filemap_add_pages, readahead's batches).
 * The index nodes come from GFP_ATOMIC (we hold i_pages_lock); when that
 * fails before anything went in, reclaim outside the lock and try once
 * more.
 */
unsigned int filemap_add_pages(struct address_space *m,
			       struct page **pages,
			       unsigned int n,
			       unsigned long index,
			       int *err)
{
	unsigned int done;

	filemap_assert_may_insert(m);
	for (unsigned int i = 0; i < n; i++) {
		DEBUG_ASSERT(page_test(pages[i], PG_locked));
		get_page(pages[i]); /* the cache's reference */
		pages[i]->mapping = m;
		pages[i]->index = index + i;
		page_set(pages[i], PG_rcu);
	}
	done = insert_pages(m, pages, n, index, err);
	if (!done && *err == -ENOMEM && reclaim_pages(RECLAIM_BATCH))
		done = insert_pages(m, pages, n, index, err);
	for (unsigned int i = done; i < n; i++) {
		pages[i]->mapping = NULL;
		put_page(pages[i]);
	}
	return done;
}

int filemap_add_page(struct address_space *m,
		     struct page *page,
		     unsigned long index)
{
	int err;

	filemap_add_pages(m, &page, 1, index, &err);
	return err;
}

/*
 * Bring the source of a write into the page tables, as the task's own
 * loads would, but with no page lock held and a bad address reported, not
 * fatal: the copy under the page lock (arch_copy_nofault) then stops at a
 * fault rather than take it. Only the file-mapping area can be faulted
 * in; elsewhere what is not mapped (a guard page, a wild pointer) never
 * will be.
 * Return: how many of @len bytes could not be brought in (0: none).
 */
static size_t fault_in_readable(const void *buf, size_t len)
{
	uintptr_t start = (uintptr_t)buf, end = start + len;

	for (uintptr_t va = start; va < end;
	     va = ALIGN_DOWN(va, PAGE_SIZE) + PAGE_SIZE) {
		uintptr_t page = ALIGN_DOWN(va, PAGE_SIZE);

		if (pt_lookup(page, NULL))
			continue;
		if (!vm_in_mmap_area(va) || vm_mmap_fault(va, false))
			return end - va;
	}
	return 0;
}

/*
 * A write about to create pages from @index on (@len bytes from the start
 * of that page): put the run of absent ones in the cache together - one
 * hold of the allocator's lock, of i_pages_lock and of lru_lock for up to
 * WRITE_RUN pages instead of one each - unlocked and not uptodate, and
 * keep a reference on each in @pages, so write_begin is handed each, with
 * that reference, as it comes (filemap_grab_page_from: no look-up), locks
 * it and fills it. No page lock is held ahead of the copy (the source may
 * be a mapping of this file); a reader that gets to one first reads it
 * from the disk, as it would read a page the write has not reached.
 * Caller holds i_rwsem exclusive and puts the references it does not hand
 * on. Return: how many went in.
 */
#define WRITE_RUN 32

static unsigned int write_prefill(struct address_space *m,
				  unsigned long index,
				  size_t len,
				  struct page **pages)
{
	unsigned int n = filemap_absent_run(
	    m, index, MIN(DIV_ROUND_UP(len, PAGE_SIZE), WRITE_RUN));
	unsigned int got, done;
	int err;

	if (n < 2)
		return 0;
	got = page_cache_alloc_bulk(pages, n);
	for (unsigned int i = 0; i < got; i++)
		trylock_page(pages[i]); /* ours alone: cannot fail */
	done = filemap_add_pages(m, pages, got, index, &err);
	for (unsigned int i = 0; i < got; i++) {
		unlock_page(pages[i]);
		if (i >= done) /* the inserted keep ours for write_begin */
			put_page(pages[i]);
	}
	return done;
}

struct page *filemap_grab_page_from(struct address_space *m,
				    unsigned long index,
				    struct page *hint)
{
	if (hint) {
		lock_page(hint);
		/* The reference keeps reclaim off it (a page in use stays),
		 * the caller's i_rwsem keeps truncation away. */
		if (!WARN_ON_ONCE(hint->mapping != m || hint->index != index))
			return hint;
		unlock_page(hint);
		put_page(hint);
	}
	return filemap_grab_page(m, index);
}

ssize_t filemap_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct address_space *m = f->f_mapping;
	/* Put in ahead, referenced; NULL once handed to write_begin. */
	struct page *ahead[WRITE_RUN];
	unsigned long first = 0, prefilled = 0; /* ahead: [first, prefilled) */
	ssize_t written = 0;
	unsigned int unbalanced = 0; /* pages dirtied since the last check */
	int err = 0;

	lockdep_assert_held_write(&f->f_inode->i_rwsem);
	while (len) {
		size_t offset = *pos & ~PAGE_MASK;
		unsigned int bytes = MIN(PAGE_SIZE - offset, len);
		const char *src = (const char *)buf + written;
		unsigned long index = *pos >> PAGE_SHIFT;
		struct page *page = NULL;
		size_t copied;
		int n;

		if (index >= prefilled) {
			for (unsigned long i = first; i < prefilled; i++)
				filemap_put_hint(ahead[i - first]);
			first = index;
			prefilled = index + write_prefill(
						m, index, offset + len, ahead);
		}
		if (index >= first && index < prefilled) {
			page = ahead[index - first]; /* its reference, too */
			ahead[index - first] = NULL;
		}
		if (fault_in_readable(src, bytes) == bytes) {
			err = -EFAULT;
			break;
		}
		err = m->a_ops->write_begin(m, *pos, bytes, &page);
		if (err)
			break;
		race_point(RACE_WRITE_COPY, page);
		/* The source may have left the page tables since it was
		 * brought in (munmap, reclaim, a truncate of its file): a
		 * fault here would run under this page lock. */
		copied = bytes -
			 arch_copy_nofault(
			     (char *)page_address(page) + offset, src, bytes);
		n = m->a_ops->write_end(m, *pos, bytes, copied, page);
		if (n < 0) {
			err = n;
			break;
		}
		if (!n) /* bring it in again, outside the lock */
			continue;
		written += n;
		*pos += n;
		len -= n;
		/* Throttled once per run of pages, and at the end below: the
		 * limit is far above a run. */
		if (++unbalanced == WRITE_RUN) {
			balance_dirty_pages();
			unbalanced = 0;
		}
	}
	if (unbalanced)
		balance_dirty_pages();
	for (unsigned long i = first; i < prefilled; i++)
		filemap_put_hint(ahead[i - first]); /* before the drop below */
	/* A write that stopped short drops the pages it put in ahead and
	 * never filled (clean, not uptodate, unused; a dirty or busy page in
	 * the range stays). */
	if (len && (unsigned long)(*pos >> PAGE_SHIFT) < prefilled)
		invalidate_mapping_range(
		    m, (unsigned long)(*pos >> PAGE_SHIFT), prefilled - 1);
	return written ? written : err;
}

/*
 * mm/invalidate.c: mapping->invalidate_lock - its API, its two modes and
 * the checks Linux does not make.
 *
 * The rule (docs/design.md, docs/locking.md):
 *   - exclusive (filemap_invalidate_lock) around dropping cached pages AND
 *     changing the block map: truncate, hole punch, zero/collapse/insert
 *     range, eviction. truncate_inode_pages_range() asserts it (owner and
 *     mode) and records the range it dropped; the unlock checks that no
 *     page came back into that range meanwhile.
 *   - shared (filemap_fill_begin) around inserting pages (read miss,
 *     every readahead batch): a new page stays locked until its read ends
 *     and every invalidation locks each page it drops before it frees a
 *     block (preallocation, which keeps the pages over the holes it
 *     fills, waits for the locked ones first: filemap_wait_fills), so the
 *     page lock orders the block-map look-up and the read after the
 *     insertion; and from finding a page !uptodate through its
 *     block-map look-up and the I/O submission (an invalidation may have
 *     passed that page: a punch leaves its partial edge pages cached).
 *     Never across a copy to or from task memory (might_fault() checks).
 *     i_size read under it is stable against truncate (which changes it
 *     under the lock exclusive), so the fill paths check it again once
 *     they hold it: no page is inserted past the EOF a truncate just set.
 *   - not at all on a cached, uptodate page.
 *   - a task that holds it exclusive fills under that (copy_file_range's
 *     source, fs/copy_range.c) instead of taking it shared again.
 * filemap_add_page() asserts the lock is held in either mode, or i_rwsem
 * exclusive (a buffered write, which truncate excludes by i_rwsem).
 *
 * Legacy mode (boot argument invalidate_lock=off, or fill_lock=none): the
 * fill paths take no invalidate_lock, as before Linux 5.15; invalidation
 * still does. It exists to show the race the lock closes (tests/race_*.c).
 * fill_lock=i_rwsem is legacy mode where read() takes i_rwsem shared
 * around the whole read (mm/filemap_read.c), as XFS serialised reads
 * against truncate and hole punching before 5.15: the benchmark `mixed`
 * compares the three (faults and readahead stay unprotected in it, as they
 * were). The boot argument sets the mode every mapping starts with
 * (mapping->fill_lock). Only the benchmark `mixed` changes a mapping's
 * mode, on its own file between rounds, so as to measure the three modes
 * round by round in one boot: no other task uses that file meanwhile, so
 * a fill_begin and its fill_end always agree (filemap_set_fill_lock).
 */
#include <limits.h>
#include <string.h>
#include <kernel/bootargs.h>
#include <kernel/trace.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <fs/vfs.h>
#include <mm/filemap.h>

static uint64_t invalidate_lock_ino(const void *lock)
{
	const struct address_space *m =
	    container_of(lock, struct address_space, invalidate_lock);

	return m->host ? m->host->i_ino : 0;
}
DEFINE_TRACED_LOCK_CLASS(invalidate_lock_class,
			 LOCK_RANK_INVALIDATE,
			 TRACE_LOCK_INVALIDATE,
			 invalidate_lock_ino);
static enum fill_lock fill_lock; /* the boot's; read-only after boot */
static unsigned long leftover_reports;

enum fill_lock filemap_fill_lock(void)
{
	return READ_ONCE(fill_lock);
}

bool filemap_legacy_mode(void)
{
	return filemap_fill_lock() != FILL_INVALIDATE_LOCK;
}

enum fill_lock mapping_fill_lock(const struct address_space *m)
{
	return READ_ONCE(m->fill_lock);
}

/* @m's fill paths take no invalidate_lock. */
static bool mapping_legacy(const struct address_space *m)
{
	return mapping_fill_lock(m) != FILL_INVALIDATE_LOCK;
}

/**
 * filemap_set_fill_lock - give @m the mode @mode. For the benchmark
 * `mixed`, which runs its rounds in the three modes in turn on one file.
 * The caller keeps every other task off @m meanwhile: no read, fault,
 * readahead or mapping, since a fill that began in one mode would end in
 * the other. What can be made sure of is: a window queued for the
 * readahead worker is dropped and the one being read waited for, and
 * i_rwsem and invalidate_lock are held exclusive around the store (a
 * fill of the fixed mode or a read() of fill_lock=i_rwsem still running
 * is waited for).
 * Context: task, may sleep; takes i_rwsem, then invalidate_lock.
 */
void filemap_set_fill_lock(struct address_space *m, enum fill_lock mode)
{
	struct inode *host = m->host;

	readahead_cancel(m);
	if (host)
		down_write(&host->i_rwsem);
	filemap_invalidate_lock(m);
	WRITE_ONCE(m->fill_lock, mode);
	filemap_invalidate_unlock(m);
	if (host)
		up_write(&host->i_rwsem);
}

static int invalidate_mode_init(void)
{
	static const char *const says[] = {
		[FILL_INVALIDATE_LOCK] =
		    "fill paths take it shared (Linux 5.15 on)",
		[FILL_NONE] = "legacy mode: fill paths take none (before Linux "
			      "5.15)",
		[FILL_I_RWSEM] = "fill_lock=i_rwsem: read() takes i_rwsem "
				 "shared instead, faults and readahead "
				 "nothing (XFS before Linux 5.15)",
	};
	char v[16];

	if (bootarg_get("invalidate_lock", v, sizeof(v)) && !strcmp(v, "off"))
		fill_lock = FILL_NONE;
	if (bootarg_get("fill_lock", v, sizeof(v))) {
		if (!strcmp(v, "i_rwsem"))
			fill_lock = FILL_I_RWSEM;
		else if (!strcmp(v, "none"))
			fill_lock = FILL_NONE;
		else if (strcmp(v, "invalidate_lock"))
			pr_warn("invalidate_lock: fill_lock=%s unknown; "
				"ignored\n",
				v);
	}
	pr_info("invalidate_lock: %s\n", says[fill_lock]);
	return 0;
}
INIT_HOOK(invalidate_mode, invalidate_mode_init, INIT_LEVEL_MM);

/**
 * filemap_invalidate_lock - take @m's invalidate_lock exclusive
 * For dropping cached pages and changing the block map in one critical
 * section. Context: task, may sleep; after i_rwsem, before page locks.
 */
void filemap_invalidate_lock(struct address_space *m)
{
	down_write(&m->invalidate_lock);
	m->inval_start = LLONG_MAX;
	m->inval_end = -1;
}

/* A page fully inside what this holder invalidated came back: someone
 * filled the cache without the lock (legacy mode's race). Reported and
 * counted; tests of the fixed kernel require the count to stay put. */
static void check_no_leftover(struct address_space *m)
{
	loff_t start = m->inval_start, end = m->inval_end;
	unsigned long first, last;
	struct page *page;

	if (end < start)
		return;
	first = DIV_ROUND_UP((unsigned long long)start, PAGE_SIZE);
	last = (((unsigned long long)end + 1) >> PAGE_SHIFT);
	if (last-- <= first || !filemap_get_pages(m, first, 1, &page))
		return;
	if (page->index <= last) {
		__atomic_fetch_add(&leftover_reports, 1, __ATOMIC_RELAXED);
		pr_warn("invalidate_lock: page %lu of inode %lu back in the "
			"range [%lld, %lld] its holder invalidated\n",
			page->index,
			m->host ? m->host->i_ino : 0,
			(long long)start,
			(long long)end);
	}
	put_page(page);
}

void filemap_invalidate_unlock(struct address_space *m)
{
	if (!WARN_ON_ONCE(!rwsem_is_write_owner(&m->invalidate_lock)))
		check_no_leftover(m);
	up_write(&m->invalidate_lock);
}

unsigned long filemap_invalidate_leftovers(void)
{
	return __atomic_load_n(&leftover_reports, __ATOMIC_RELAXED);
}

void filemap_invalidate_lock_shared(struct address_space *m)
{
	down_read(&m->invalidate_lock);
}

bool filemap_invalidate_trylock_shared(struct address_space *m)
{
	return down_read_trylock(&m->invalidate_lock);
}

void filemap_invalidate_unlock_shared(struct address_space *m)
{
	up_read(&m->invalidate_lock);
}

/**
 * filemap_invalidate_lock_two - take two mappings' invalidate_lock
 * exclusive, the lower address first, so that A-with-B and B-with-A never
 * deadlock. The same mapping twice is locked once; either may be NULL.
 * Context: task, may sleep; the callers' i_rwsems are already held.
 */
void filemap_invalidate_lock_two(struct address_space *m1,
				 struct address_space *m2)
{
	if (m1 > m2) {
		struct address_space *tmp = m1;

		m1 = m2;
		m2 = tmp;
	}
	if (m1)
		filemap_invalidate_lock(m1);
	race_point(RACE_LOCK_TWO_FIRST, m1);
	if (m2 && m2 != m1) {
		down_write_nested(&m2->invalidate_lock, 1);
		m2->inval_start = LLONG_MAX;
		m2->inval_end = -1;
	}
}

void filemap_invalidate_unlock_two(struct address_space *m1,
				   struct address_space *m2)
{
	if (m1)
		filemap_invalidate_unlock(m1);
	if (m2 && m2 != m1)
		filemap_invalidate_unlock(m2);
}

/* Does the running task hold @m's lock exclusive? Then it may fill
 * under that (copy_file_range reads its source so): exclusive covers what
 * shared would, and taking shared on top would deadlock. Stable between a
 * fill_begin and its fill_end: only the holder itself can drop it. */
static bool fill_under_exclusive(struct address_space *m)
{
	return rwsem_is_write_owner(&m->invalidate_lock);
}

/* The fill paths' side: shared, or nothing in legacy mode. */
bool filemap_fill_begin(struct address_space *m)
{
	if (mapping_legacy(m))
		return false;
	if (!fill_under_exclusive(m))
		filemap_invalidate_lock_shared(m);
	return true;
}

bool filemap_fill_trybegin(struct address_space *m)
{
	return mapping_legacy(m) || fill_under_exclusive(m) ||
	       filemap_invalidate_trylock_shared(m);
}

void filemap_fill_end(struct address_space *m)
{
	if (!mapping_legacy(m) && !fill_under_exclusive(m))
		filemap_invalidate_unlock_shared(m);
}

void filemap_assert_invalidating(struct address_space *m,
				 loff_t start,
				 loff_t end)
{
	WARN_ON_ONCE(
	    !rwsem_is_write_owner(&m->invalidate_lock) ||
	    !lockdep_is_held(&m->invalidate_lock.dep, LOCK_MODE_EXCLUSIVE));
	m->inval_start = MIN(m->inval_start, start);
	m->inval_end = MAX(m->inval_end, end);
}

/* The warning names what the inserting path lacks: invalidate_lock, the
 * rule of every fill path (a write, which inserts under i_rwsem
 * exclusive, is excluded from every invalidating operation by that). */
void filemap_assert_may_insert(struct address_space *m)
{
	struct inode *host = m->host;
	bool inserted_without_invalidate_lock;

	if (mapping_legacy(m) ||
	    lockdep_is_held(&m->invalidate_lock.dep, LOCK_MODE_ANY))
		return;
	inserted_without_invalidate_lock =
	    !host || !lockdep_is_held(&host->i_rwsem.dep, LOCK_MODE_EXCLUSIVE);
	WARN_ON_ONCE(inserted_without_invalidate_lock);
}

/*
 * mm/vmscan.c: the LRU of page-cache pages and reclaim.
 *
 * Every page in a mapping's index is on one global LRU: added at the hot
 * end by filemap_add_page, removed by filemap_delete_page. reclaim_pages()
 * walks from the cold end. A page with PG_referenced (set by each read)
 * gets a second chance: the bit is cleared and the page rotated. A locked
 * or writeback page is skipped. A clean page whose only references are the
 * cache's and ours is deleted and freed; a dirty one is written back first
 * and freed at once if its write finished synchronously, or on a later
 * pass otherwise - but only by a task that holds no lock besides
 * reclaim_mutex: writing a page takes the filesystem's block-map locks, and
 * a task allocating inside the filesystem (a writer in write_begin holds
 * i_rwsem and maybe i_map_lock) could hold the very one. Such a task only
 * drops clean pages, as Linux's GFP_NOFS reclaim does; dirty throttling
 * (balance_dirty_pages) keeps clean pages there to drop.
 *
 * When the page cache does not give enough, reclaim asks the registered
 * shrinkers (the inode cache) to free objects, again only from a task that
 * holds no lock besides reclaim_mutex, as Linux's shrinkers run only for
 * allocations that may enter the filesystem.
 *
 * The page allocator calls reclaim_pages when a GFP_KERNEL allocation
 * fails. Reclaim sleeps (page I/O), so it refuses to run where the caller
 * cannot sleep - under any spinlock (i_pages_lock included) or in an
 * interrupt - and it never recurses: an allocation made by a write_page
 * that reclaim called does not reclaim again.
 *
 * Locks: lru_lock (a spinlock, inside i_pages_lock) protects the list and
 * PG_lru; reclaim_mutex protects the shrinker list and lets one task
 * reclaim at a time (others retry their
 * allocation rather than queue behind a writer that may need their locks).
 * Reclaim takes page locks only with trylock.
 */
#include <limits.h>
#include <kernel/lockdep.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <mm/filemap.h>

static DEFINE_LOCK_CLASS(lru_lock_class, LOCK_RANK_SPIN + 1);
static struct spinlock lru_lock = {
	.dep = { .class = &lru_lock_class, .name = "lru_lock" },
};
/* protected by lru_lock: */
static struct list_head lru_list = LIST_HEAD_INIT(lru_list);
static unsigned long nr_lru;

static DEFINE_MUTEX(reclaim_mutex);
static unsigned long nr_reclaimed, nr_written; /* atomic */
static struct list_head shrinkers = LIST_HEAD_INIT(shrinkers);

void register_shrinker(struct shrinker *s)
{
	mutex_lock(&reclaim_mutex);
	list_add_tail(&s->node, &shrinkers);
	mutex_unlock(&reclaim_mutex);
}

void lru_add(struct page *page)
{
	lru_add_many(&page, 1);
}

void lru_add_many(struct page **pages, unsigned int n)
{
	if (!n)
		return;
	spin_lock(&lru_lock);
	for (unsigned int i = 0; i < n; i++) {
		WARN_ON_ONCE(page_test_and_set(pages[i], PG_lru));
		list_add(&pages[i]->lru, &lru_list);
	}
	nr_lru += n;
	spin_unlock(&lru_lock);
}

void lru_del(struct page *page)
{
	lru_del_many(&page, 1);
}

void lru_del_many(struct page **pages, unsigned int n)
{
	spin_lock(&lru_lock);
	for (unsigned int i = 0; i < n; i++) {
		if (page_test_and_clear(pages[i], PG_lru)) {
			list_del(&pages[i]->lru);
			nr_lru--;
		}
	}
	spin_unlock(&lru_lock);
}

/* Rotate the coldest page to the hot end; return it referenced if it is
 * worth a try, else NULL (second chance, busy, or leaving the cache).
 * Caller holds lru_lock. */
static struct page *lru_next_candidate(void)
{
	struct page *page = list_entry(lru_list.prev, struct page, lru);

	list_del(&page->lru);
	list_add(&page->lru, &lru_list);
	if (page_test_and_clear(page, PG_referenced) ||
	    page_test(page, PG_locked) || page_test(page, PG_writeback))
		return NULL;
	race_point(RACE_RECLAIM_CANDIDATE, page);
	/* A page still listed may have its count frozen at zero: a dropper
	 * (filemap_delete_page) took it out of the index under i_pages_lock
	 * and waits for lru_lock to unlist it, then puts its count back. A
	 * plain get would be overwritten by that store, and the put that
	 * follows would free a page twice. */
	if (!page_ref_tryget(page))
		return NULL;
	return page;
}

/* Write @page (locked, dirty) back; relock it if that finished at once.
 * Return: true if @page is locked again, clean and still in @m. */
static bool write_for_reclaim(struct address_space *m, struct page *page)
{
	struct writeback_control wbc = { 0, LLONG_MAX, false, 1, 0 };

	/* unlocks; errors go to wb_err, -ENOMEM leaves it dirty */
	if (!filemap_writeout_page(page, &wbc))
		__atomic_fetch_add(&nr_written, 1, __ATOMIC_RELAXED);
	if (!trylock_page(page))
		return false;
	if (page->mapping == m && !page_test(page, PG_dirty) &&
	    !page_test(page, PG_writeback))
		return true;
	unlock_page(page);
	return false;
}

/* True if the reclaiming task holds nothing but reclaim_mutex. */
static bool may_write_pages(void)
{
	struct lockdep_task *lt = lockdep_current();

	return lt && lt->depth == 1;
}

/* Try to free @page (referenced by us). Return: true if freed. */
static bool shrink_page(struct page *page)
{
	struct address_space *m;
	bool freed = false;

	race_point(RACE_RECLAIM_CHOSEN, page);
	if (!trylock_page(page))
		goto out_put;
	/* Locked with a mapping: truncation (and so eviction) waits for us. */
	m = page->mapping;
	if (!m || page_test(page, PG_writeback))
		goto out_unlock;
	if (page_test(page, PG_dirty)) {
		if (!m->a_ops->write_page || !may_write_pages())
			goto out_unlock;
		if (!write_for_reclaim(m, page))
			goto out_put;
	}
	freed = filemap_delete_page(page, 2); /* the cache's ref and ours */
out_unlock:
	unlock_page(page);
out_put:
	put_page(page);
	return freed;
}

/* Caller holds reclaim_mutex and nothing else (may_write_pages). */
static unsigned long run_shrinkers(unsigned long nr)
{
	unsigned long freed = 0;
	struct shrinker *s;

	list_for_each_entry (s, &shrinkers, node) {
		if (freed >= nr)
			break;
		freed += s->scan(nr - freed);
	}
	return freed;
}

bool current_is_reclaiming(void)
{
	return mutex_owner(&reclaim_mutex) == current_task();
}

unsigned long reclaim_pages(unsigned long nr)
{
	unsigned long freed = 0, scan;

	if (!preemptible() || !mutex_trylock(&reclaim_mutex))
		return 0;
	spin_lock(&lru_lock);
	scan = 2 * nr_lru + 1; /* referenced pages come round twice */
	while (freed < nr && scan-- && !list_empty(&lru_list)) {
		struct page *page = lru_next_candidate();

		if (!page)
			continue;
		spin_unlock(&lru_lock);
		freed += shrink_page(page);
		spin_lock(&lru_lock);
	}
	spin_unlock(&lru_lock);
	__atomic_fetch_add(&nr_reclaimed, freed, __ATOMIC_RELAXED);
	if (freed < nr && may_write_pages())
		freed += run_shrinkers(nr - freed);
	mutex_unlock(&reclaim_mutex);
	/* Pages leave after a grace period (put_page): bring them back now,
	 * for the allocation that is waiting. */
	if (freed)
		rcu_barrier();
	return freed;
}

unsigned long lru_pages(void)
{
	return READ_ONCE(nr_lru);
}

unsigned long vmscan_reclaimed(void)
{
	return __atomic_load_n(&nr_reclaimed, __ATOMIC_RELAXED);
}

unsigned long vmscan_written(void)
{
	return __atomic_load_n(&nr_written, __ATOMIC_RELAXED);
}

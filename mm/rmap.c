/*
 * mm/rmap.c: from a file's pages to the entries that map them.
 *
 * mapping->i_mmap lists the areas mapping a file (mm/mmap.c); from an
 * area's file offset the address of a page follows, so no per-page
 * reverse map is needed. Two walkers:
 *   - unmap_mapping_range(): truncate and the range operations remove the
 *     entries of the pages they are about to drop, and every hart's TLB
 *     forgets them, before the blocks are freed. Caller holds
 *     invalidate_lock exclusive, so no fault can map a page of the range
 *     again through the fill paths meanwhile; a fault on a cached page
 *     (which takes no invalidate_lock) rechecks page->mapping under the
 *     page lock, which truncation takes before it deletes the page, and
 *     truncate_pagecache() unmaps once more after the deletion.
 *   - unmap_mapping_page(): the same for one page, from the removal door
 *     (truncate_inode_pages_range), under the page lock: so every caller
 *     of the door - truncate, punch, collapse - unmaps what it drops.
 *   - unmap_dropped_pages(): the door's last step when the file is mapped:
 *     a grace period, then the entries that lock-free faults (which take
 *     no page lock) set for pages the door dropped meanwhile.
 *   - page_mkclean(): writeback takes the write right from a page's shared
 *     entries before writing it, so a later store faults into
 *     page_mkwrite and dirties the page again. Caller holds the page lock,
 *     which page_mkwrite's fault takes too.
 * Lock order: page lock > i_mmap_lock > the page-table lock (mm/vm.c).
 */
#include <limits.h>
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/rcu.h>
#include <fs/vfs.h>
#include <mm/mmap.h>
#include <mm/vm.h>

#define ZAP_BATCH 32 /* entries cleared per TLB shootdown */

/* Which entries a zap clears. */
enum zap_which {
	ZAP_ALL,
	ZAP_FILE,    /* those mapping a page of @m (private copies stay) */
	ZAP_DROPPED, /* those mapping a page that has left @m's index */
};

static bool
zap_wants(uintptr_t pa, enum zap_which which, struct address_space *m)
{
	struct page *page = virt_to_page((void *)pa);

	switch (which) {
	case ZAP_FILE: return page->mapping == m;
	case ZAP_DROPPED: /* PG_rcu: was in an index, so not a private copy */
		return page->mapping != m && page_test(page, PG_rcu);
	default: return true;
	}
}

/* Clear up to ZAP_BATCH entries from @start; flush them from every hart,
 * then let the pages go. Return: where it stopped. */
static uintptr_t zap_batch(uintptr_t start,
			   uintptr_t end,
			   enum zap_which which,
			   struct address_space *m)
{
	uintptr_t pages[ZAP_BATCH], va;
	unsigned int n = 0;

	for (va = start; va < end && n < ZAP_BATCH; va += PAGE_SIZE) {
		uintptr_t pa = vm_mmap_lookup(va, NULL);

		if (!pa || !zap_wants(pa, which, m))
			continue;
		pa = vm_mmap_clear(va, pa);
		if (pa)
			pages[n++] = pa;
	}
	if (n)
		vm_flush_tlb_all_harts(start, va - start);
	while (n)
		put_page(virt_to_page((void *)pages[--n]));
	return va;
}

static void zap_range(uintptr_t start,
		      uintptr_t end,
		      enum zap_which which,
		      struct address_space *m)
{
	while (start < end)
		start = zap_batch(start, end, which, m);
}

void area_zap(uintptr_t start, uintptr_t end, struct address_space *only)
{
	zap_range(start, end, only ? ZAP_FILE : ZAP_ALL, only);
}

/* The addresses [*@start, *@end) of @a that map file pages [@first,
 * @last]. Return: false if there are none. */
static bool area_pages(const struct vm_area *a,
		       unsigned long first,
		       unsigned long last,
		       uintptr_t *start,
		       uintptr_t *end)
{
	unsigned long a_last = a->pgoff + ((a->end - a->start) >> PAGE_SHIFT);

	if (last < a->pgoff || first >= a_last)
		return false;
	first = MAX(first, a->pgoff);
	last = MIN(last, a_last - 1);
	*start = a->start + ((first - a->pgoff) << PAGE_SHIFT);
	*end = a->start + ((last - a->pgoff + 1) << PAGE_SHIFT);
	return true;
}

void unmap_mapping_range(struct address_space *m,
			 loff_t start,
			 loff_t len,
			 bool even_cows)
{
	unsigned long first = start >> PAGE_SHIFT;
	unsigned long last =
	    len > 0 ? (unsigned long)((start + len - 1) >> PAGE_SHIFT)
		    : ULONG_MAX;
	struct vm_area *a;

	WARN_ON_ONCE(!rwsem_is_write_owner(&m->invalidate_lock));
	mutex_lock(&m->i_mmap_lock);
	list_for_each_entry (a, &m->i_mmap, shared) {
		uintptr_t s, e;
		bool cows = even_cows || (a->flags & MAP_SHARED);

		if (area_pages(a, first, last, &s, &e))
			area_zap(s, e, cows ? NULL : m);
	}
	mutex_unlock(&m->i_mmap_lock);
}

void unmap_mapping_page(struct page *page)
{
	struct address_space *m = page->mapping;
	struct vm_area *a;

	DEBUG_ASSERT(page_test(page, PG_locked));
	/* An area added meanwhile cannot map @page without its lock. */
	if (!m || list_empty(&m->i_mmap))
		return;
	mutex_lock(&m->i_mmap_lock);
	list_for_each_entry (a, &m->i_mmap, shared) {
		uintptr_t s, e;

		if (area_pages(a, page->index, page->index, &s, &e))
			area_zap(s, e, m);
	}
	mutex_unlock(&m->i_mmap_lock);
}

/*
 * A lock-free fault (mm/fault.c) takes neither the page lock nor
 * i_mmap_lock: it may have found a page just before the door dropped it
 * and map it just after unmap_mapping_page looked. Once a grace period
 * has passed, every such fault has finished; a fault that starts later
 * finds the index without the page. So wait one, then clear what those
 * faults left. The fence orders the drops before the look at i_mmap: an
 * area added since was added after them, and its faults miss the pages.
 */
void unmap_dropped_pages(struct address_space *m, loff_t start, loff_t end)
{
	unsigned long first = start >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
	struct vm_area *a;

	smp_mb();
	if (list_empty(&m->i_mmap))
		return;
	synchronize_rcu();
	mutex_lock(&m->i_mmap_lock);
	list_for_each_entry (a, &m->i_mmap, shared) {
		uintptr_t s, e;

		if (area_pages(a, first, last, &s, &e))
			zap_range(s, e, ZAP_DROPPED, m);
	}
	mutex_unlock(&m->i_mmap_lock);
}

void page_mkclean(struct page *page)
{
	struct address_space *m = page->mapping;
	uintptr_t pa = (uintptr_t)page_address(page);
	struct vm_area *a;

	DEBUG_ASSERT(page_test(page, PG_locked));
	/* An area added meanwhile has no writable entry yet: that takes
	 * page_mkwrite's fault, which needs the page lock we hold. */
	if (!m || list_empty(&m->i_mmap))
		return;
	mutex_lock(&m->i_mmap_lock);
	list_for_each_entry (a, &m->i_mmap, shared) {
		uintptr_t s, e;

		if ((a->flags & MAP_SHARED) &&
		    area_pages(a, page->index, page->index, &s, &e) &&
		    vm_mmap_wrprotect(s, pa))
			vm_flush_tlb_all_harts(s, PAGE_SIZE);
	}
	mutex_unlock(&m->i_mmap_lock);
}

void truncate_pagecache(struct inode *inode, loff_t newsize)
{
	struct address_space *m = inode->i_mapping;
	loff_t holebegin = ALIGN_UP(newsize, (loff_t)PAGE_SIZE);

	unmap_mapping_range(m, holebegin, 0, true);
	truncate_inode_pages(m, newsize);
	unmap_mapping_range(m, holebegin, 0, true);
}

/*
 * With blocks smaller than a page, page_mkwrite and write_begin give disk
 * blocks only to the blocks of a page that lie inside i_size, so the page
 * that holds EOF may be mapped writable while its blocks past EOF have
 * none. A store there is past EOF, and lost as in Linux; but once the
 * file grows over those blocks it is file data, and writeback would find
 * no block to put it in. So growth write-protects that page: the next
 * store faults into page_mkwrite, which sees the new size.
 */
void pagecache_isize_extended(struct inode *inode, loff_t from, loff_t to)
{
	loff_t bs = inode->i_sb->s_blocksize;
	loff_t rounded = ALIGN_UP(from, bs);
	struct page *page;

	if (bs >= (loff_t)PAGE_SIZE || to <= rounded ||
	    IS_ALIGNED(rounded, (loff_t)PAGE_SIZE))
		return; /* no block of that page comes inside EOF */
	page = filemap_lock_page(inode->i_mapping, from >> PAGE_SHIFT);
	if (!page)
		return; /* not cached: not mapped either */
	page_mkclean(page);
	unlock_page(page);
	put_page(page);
}

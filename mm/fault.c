/*
 * mm/fault.c: page faults in file mappings, through the page cache.
 *
 * The trap handler (kernel/arch/riscv64/trap.c) sends a fault in the mmap
 * area here, interrupts on, in the faulting task. A load from a page that
 * is cached and uptodate takes no lock at all (fault_read_lockless);
 * everything else, and that one when it meets anything unusual (an entry
 * already there, a table to allocate, a writer changing the areas), goes
 * the locked way. With mmap_lock shared:
 *   - a page cached and uptodate is mapped with no other sleeping lock
 *     than its page lock: no invalidate_lock;
 *   - an absent or !uptodate page is read through read()'s own path
 *     (filemap_read_page: readahead, then the one page), which holds
 *     invalidate_lock shared (none in legacy mode) around the insertion
 *     (through the read's submission for a page found !uptodate) and
 *     meets the same race points;
 *   - shared mappings map a clean page read-only; the first store faults
 *     again into page_mkwrite: invalidate_lock shared, page locked, the
 *     filesystem gives its blocks disk space (holes) and the page is
 *     dirtied, then mapped writable. Writeback takes the write right away
 *     again before it writes (page_mkclean, mm/rmap.c);
 *   - private mappings map the file's page read-only; the first store
 *     copies it into a page of their own (copy-on-write);
 *   - a page wholly past EOF is a bus error (-EIO): the task ends.
 * Every entry is set with the file page locked and its mapping and EOF
 * rechecked under that lock: truncation locks each page before it deletes
 * it, and unmaps again afterwards (truncate_pagecache), so no entry
 * survives a truncation of its page. Each entry holds a page reference.
 */
#include <errno.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/rcu.h>
#include <fs/vfs.h>
#include <mm/mmap.h>
#include <mm/vm.h>

static bool past_eof(struct address_space *m, unsigned long index)
{
	return (loff_t)index << PAGE_SHIFT >= READ_ONCE(m->host->i_size);
}

/* The file page @a maps at @va. */
static unsigned long area_index(const struct vm_area *a, uintptr_t va)
{
	return a->pgoff + ((va - a->start) >> PAGE_SHIFT);
}

/* The uptodate page @index of @f, referenced. Cached and uptodate: no
 * sleeping lock. Otherwise read()'s path, which takes invalidate_lock
 * shared and reads i_size again under it (-ENXIO: past EOF now). */
static struct page *fault_get_page(struct file *f, unsigned long index)
{
	struct page *page = filemap_get_page(f->f_mapping, index);

	if (page && page_test(page, PG_uptodate)) {
		race_point(RACE_FAULT_PAGE_FOUND, f->f_mapping);
		return page;
	}
	if (page)
		put_page(page);
	page = filemap_read_page(f, index, 1, false);
	return page == ERR_PTR(-ENXIO) ? ERR_PTR(-EIO) : page;
}

/* Lock @page and check it is still page @index of @m, uptodate and inside
 * EOF. Return: 0 (locked), -EAGAIN (look again) or -EIO (past EOF). */
static int
lock_fault_page(struct address_space *m, struct page *page, unsigned long index)
{
	int err = 0;

	lock_page(page);
	if (page->mapping != m || !page_test(page, PG_uptodate))
		err = -EAGAIN;
	else if (past_eof(m, index))
		err = -EIO;
	if (err)
		unlock_page(page);
	return err;
}

/* Point @va at @page, our reference passing to the entry, if @va still
 * maps @old_pa (whose reference then goes). Caller holds the file page's
 * lock. Return: 0 (also if another fault got there first: the access is
 * retried) or -ENOMEM. */
static int
set_entry(uintptr_t va, uintptr_t old_pa, struct page *page, bool writable)
{
	int err =
	    vm_mmap_set(va, old_pa, (uintptr_t)page_address(page), writable);

	if (err) {
		put_page(page);
		return err == -EAGAIN ? 0 : err;
	}
	if (old_pa)
		put_page(virt_to_page((void *)old_pa));
	return 0;
}

/* A load: the file's page, read-only (shared or private). */
static int fault_read(struct file *f, uintptr_t va, unsigned long index)
{
	struct page *page = fault_get_page(f, index);
	int err;

	if (IS_ERR(page))
		return PTR_ERR(page);
	err = lock_fault_page(f->f_mapping, page, index);
	if (err) {
		put_page(page);
		return err;
	}
	err = set_entry(va, 0, page, false);
	unlock_page(page);
	return err;
}

/* A store to a shared mapping: page_mkwrite, then the page writable. */
static int fault_shared_write(struct file *f,
			      uintptr_t va,
			      uintptr_t old_pa,
			      unsigned long index)
{
	struct address_space *m = f->f_mapping;
	struct page *page = fault_get_page(f, index);
	int err;

	if (IS_ERR(page))
		return PTR_ERR(page);
	race_point(RACE_FILL_START, m);
	filemap_fill_begin(m);
	err = lock_fault_page(m, page, index);
	if (err) {
		filemap_fill_end(m);
		put_page(page);
		return err;
	}
	wait_on_page_writeback(page);
	if (m->a_ops->page_mkwrite)
		err = m->a_ops->page_mkwrite(m, page);
	else
		set_page_dirty(page);
	if (!err)
		race_point(RACE_FILL_MAPPED, m->host);
	if (!err)
		err = set_entry(va, old_pa, page, true);
	else
		put_page(page);
	unlock_page(page);
	filemap_fill_end(m);
	return err;
}

/* A store to a private mapping: a copy of the file's page of its own. */
static int fault_private_write(struct file *f,
			       uintptr_t va,
			       uintptr_t old_pa,
			       unsigned long index)
{
	struct page *page = fault_get_page(f, index), *copy;
	int err;

	if (IS_ERR(page))
		return PTR_ERR(page);
	copy = page_cache_alloc();
	err = copy ? lock_fault_page(f->f_mapping, page, index) : -ENOMEM;
	if (err) {
		if (copy)
			put_page(copy);
		put_page(page);
		return err;
	}
	memcpy(page_address(copy), page_address(page), PAGE_SIZE);
	err = set_entry(va, old_pa, copy, true);
	unlock_page(page);
	put_page(page);
	return err;
}

static int fault_area(struct vm_area *a, uintptr_t va, bool write)
{
	unsigned long index = area_index(a, va);
	struct file *f = a->file;
	bool writable = false;
	uintptr_t pa = vm_mmap_lookup(va, &writable);

	if (pa && (writable || !write)) {
		arch_tlb_flush_page(va); /* mapped by another fault meanwhile */
		return 0;
	}
	if (past_eof(f->f_mapping, index))
		return -EIO;
	if (!write)
		return fault_read(f, va, index);
	if (a->flags & MAP_SHARED)
		return fault_shared_write(f, va, pa, index);
	return fault_private_write(f, va, pa, index);
}

/*
 * A load from a page cached and uptodate, with no lock at all: inside an
 * RCU read-side section, while no writer changes the areas (mm->seq
 * even), find the area, the page (filemap_get_page: lock-free), and fill
 * the empty entry with one compare-and-swap (vm_mmap_install). What this
 * skips, the page lock and the recheck under it, the other side makes
 * good: the removal door, after it dropped pages of a mapped file, waits
 * a grace period and clears what such faults mapped meanwhile
 * (unmap_dropped_pages); munmap waits for them before it changes an area.
 * Return: true if @va is mapped; false sends the fault the locked way.
 */
static bool fault_read_lockless(struct mm *mm, uintptr_t va)
{
	struct vm_area *a;
	struct address_space *m;
	struct page *page;
	unsigned long index;
	bool mapped = false;

	rcu_read_lock();
	if (__atomic_load_n(&mm->seq, __ATOMIC_ACQUIRE) & 1)
		goto out;
	a = vm_find_area_rcu(mm, va);
	if (!a || !(a->prot & PROT_READ))
		goto out;
	index = area_index(a, va);
	m = a->file->f_mapping;
	if (past_eof(m, index))
		goto out;
	page = filemap_get_page(m, index);
	if (!page)
		goto out;
	race_point(RACE_FAULT_LOCKLESS, page);
	if (page_test(page, PG_uptodate) &&
	    vm_mmap_install(va, (uintptr_t)page_address(page)))
		mapped = true; /* the entry holds our reference */
	else
		put_page(page);
out:
	rcu_read_unlock();
	return mapped;
}

int vm_mmap_fault(uintptr_t addr, bool write)
{
	struct mm *mm = &kernel_mm;
	struct vm_area *a;
	int err;

	might_fault(); /* the locked way takes mmap_lock: lockdep checks */
	if (!write && fault_read_lockless(mm, ALIGN_DOWN(addr, PAGE_SIZE)))
		return 0;
	down_read(&mm->mmap_lock);
	a = vm_find_area(mm, addr);
	if (!a || !(a->prot & (write ? PROT_WRITE : PROT_READ)))
		err = -EFAULT;
	else
		do
			err = fault_area(a, ALIGN_DOWN(addr, PAGE_SIZE), write);
		while (err == -EAGAIN);
	up_read(&mm->mmap_lock);
	return err;
}

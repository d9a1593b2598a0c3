/*
 * mm/mmap.h: file mappings in the one address space.
 *
 * mmap() puts a file's pages at addresses of the mmap area (mm/vm.h); they
 * arrive by page faults through the page cache (mm/fault.c). The one
 * struct mm lists the mappings (struct vm_area, sorted by address) under
 * mm->mmap_lock; each file's mapping (struct address_space) lists those
 * that map it under its i_mmap_lock, which is how truncate finds the
 * entries to remove (unmap_mapping_range) and writeback the entries to
 * write-protect (page_mkclean).
 *
 * Every present entry holds a reference on the page it maps, so reclaim
 * never takes a mapped page away; unmapping flushes every hart's TLB
 * before it drops that reference.
 *
 * A mapping belongs to the task that made it, as its descriptors do: any
 * task may use or unmap it, and what is left when its maker ends goes
 * when that task is joined (vm_release_task), so a task killed by a bus
 * error leaves no mapping, and no open file, behind.
 *
 * Lock order (kernel/lockdep.h, docs/locking.md):
 *   i_rwsem > mm->mmap_lock > invalidate_lock > page lock > i_mmap_lock
 *     > the page-table lock (mm/vm.c)
 * A fault takes mmap_lock shared: a copy that can fault must not hold
 * invalidate_lock or a page lock (lockdep reports it). A load from a
 * cached page first tries with no lock at all (mm/fault.c): it walks the
 * areas inside an RCU read-side section, and a writer shuts such faults
 * out before it changes an area (mm->seq odd, then a grace period).
 */
#pragma once

#include <kernel/list.h>
#include <kernel/rwsem.h>
#include <sys/mman.h>
#include <mm/filemap.h>

struct file;
struct task;

struct vm_area {
	uintptr_t start, end;	 /* [start, end), page aligned */
	unsigned long pgoff;	 /* file page at start */
	unsigned int prot;	 /* PROT_READ | PROT_WRITE */
	unsigned int flags;	 /* MAP_SHARED or MAP_PRIVATE */
	struct file *file;	 /* referenced */
	struct task *owner;	 /* its maker (vm_release_task) */
	struct list_head node;	 /* mm->areas, under mmap_lock */
	struct list_head shared; /* mapping->i_mmap, under i_mmap_lock */
};

struct mm {
	struct rw_semaphore mmap_lock;
	/* protected by mmap_lock: */
	struct list_head areas; /* by address */
	/* written under mmap_lock exclusive, read with no lock: odd while a
	 * writer changes the areas (lock-free faults, mm/fault.c) */
	unsigned long seq;
};

extern struct mm kernel_mm;

/**
 * vm_mmap - map @len bytes of @f from @off at a new address
 * @prot: PROT_READ and/or PROT_WRITE (PROT_EXEC is accepted, but no
 * file page is ever executable: a fetch ends the task); @flags:
 * MAP_SHARED or MAP_PRIVATE.
 * Context: task, may sleep; takes mmap_lock exclusive.
 * Return: the address, or ERR_PTR: -EINVAL (len 0, @off not page
 * aligned, bad flags), -EACCES (file not readable, or shared and writable
 * on a file opened read-only), -ENODEV (not a regular file), -ENOMEM.
 */
void *vm_mmap(struct file *f, size_t len, int prot, int flags, loff_t off);
/* Unmap [@addr, @addr + @len): parts of mappings are split off; a range
 * with nothing mapped is fine. Return: 0 or -EINVAL (unaligned, len 0,
 * outside the area). */
int vm_munmap(void *addr, size_t len);
/* Unmap what task @t mapped and did not unmap: its joiner calls it
 * (task_put), as it closes the task's descriptors. Context: task, may
 * sleep; takes mmap_lock exclusive, only if @t left a mapping. */
void vm_release_task(struct task *t);
/* Write back the shared mappings' dirty pages of the range (MS_SYNC: and
 * wait). Return: 0, -EINVAL, -ENOMEM (not all mapped) or the I/O error. */
int vm_msync(void *addr, size_t len, int flags);
/* MADV_WILLNEED: read the range ahead; MADV_DONTNEED: drop its entries;
 * NORMAL, RANDOM, SEQUENTIAL: nothing. Return: 0, -EINVAL (unaligned,
 * other advice), -ENOMEM (part of the range not mapped). */
int vm_madvise(void *addr, size_t len, int advice);
/* The area holding @addr. Caller holds mmap_lock. */
struct vm_area *vm_find_area(struct mm *mm, uintptr_t addr);

/* A fault at @addr in the mmap area (mm/fault.c). Caller: the trap
 * handler, in a task that may sleep. Return: 0 (retry the access),
 * -EFAULT (no mapping, or not allowed: a segmentation fault) or -EIO
 * (past EOF or an I/O error: a bus error). */
int vm_mmap_fault(uintptr_t addr, bool write);

/**
 * unmap_mapping_range - remove the entries mapping bytes [@start,
 * @start + @len) of @m (whole pages: a page partly inside goes too), from
 * every area of every hart, before the caller frees what they mapped
 * @even_cows: also private copies (truncate), not only the file's pages
 * Context: caller holds @m's invalidate_lock exclusive (asserted); takes
 * i_mmap_lock; may sleep.
 */
void unmap_mapping_range(struct address_space *m,
			 loff_t start,
			 loff_t len,
			 bool even_cows);
/* Remove every entry mapping @page (locked, in the page cache; private
 * copies stay), every hart's TLB flushed: the removal door calls it for
 * each page it deletes. */
void unmap_mapping_page(struct page *page);
/* Take the write right from every shared entry mapping @page (locked),
 * so the next store faults into page_mkwrite: writeback calls it before
 * it writes the page. */
void page_mkclean(struct page *page);
/* Drop the cache past @newsize, entries first and again after (a fault
 * may have mapped a page in between): truncate's page-cache side.
 * Caller holds invalidate_lock exclusive. */
void truncate_pagecache(struct inode *inode, loff_t newsize);
/* The file grew from @from to @to (i_size already stored): if blocks of
 * the page that held @from are now inside EOF but were past it, take the
 * write right from that page's shared entries, so that a store there
 * faults into page_mkwrite, which gives them disk blocks (Linux:
 * pagecache_isize_extended). Caller holds i_rwsem and no page lock. */
void pagecache_isize_extended(struct inode *inode, loff_t from, loff_t to);

/* For mm/ only: clear the entries of [@start, @end) (only those mapping
 * @only's pages if @only is set: private copies stay), flush every hart's
 * TLB, then drop the pages' references (mm/rmap.c). */
void area_zap(uintptr_t start, uintptr_t end, struct address_space *only);
/* The area holding @addr, with no lock: caller is inside an RCU read-side
 * section and saw mm->seq even after entering it (mm/fault.c). */
struct vm_area *vm_find_area_rcu(struct mm *mm, uintptr_t addr);
/* After the removal door dropped pages of [@start, @end] (bytes) from @m:
 * wait out lock-free faults that may have found them, then clear any
 * entry still mapping one (mm/rmap.c). Caller holds invalidate_lock
 * exclusive. */
void unmap_dropped_pages(struct address_space *m, loff_t start, loff_t end);

/*
 * tests/fuzz/host_write.c: the page cache's write side and the inode
 * services of a read-write mount, for the fuzz target's write phase
 * (ext2_fuzz_write.c).
 *
 * A read-only mount must never reach any of this: each service aborts
 * there, as host.c's did, so the read phase still proves that nothing is
 * written. On a read-write mount (a copy of the input in memory) the
 * cache holds only the pages a call dirtied or read in to change: at most
 * HOST_CACHE_MAX of them, found by (mapping, index) in a small table;
 * host_flush() - after each operation of the write phase, and in
 * filemap_write_and_wait_range - writes them back through the
 * filesystem's write_page and empties the table, and writes every dirty
 * inode through write_inode. So a read through filemap_read between two
 * operations reads the disk, which holds everything, and every byte
 * written went through ext2's block map. A page a call still holds
 * locked (the edges truncate_inode_pages_hold_edges hands out) is never
 * written back under it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fs/vfs.h>
#include <kernel/err.h>
#include <mm/mmap.h>
#include "host.h"

#define HOST_CACHE_MAX 64

static struct {
	struct address_space *m;
	struct page *page; /* the table holds one reference */
} cache[HOST_CACHE_MAX];
static unsigned int nr_cache;

__noreturn static void die_rdonly(const char *what, unsigned long ino)
{
	fprintf(stderr,
		"whole host: %s (inode %lu) on a read-only mount\n",
		what,
		ino);
	abort();
}

static void need_rw(struct address_space *m, const char *what)
{
	if (!m->host || m->host->i_sb->s_rdonly)
		die_rdonly(what, m->host ? m->host->i_ino : 0);
}

static int cache_slot(struct address_space *m, unsigned long index)
{
	for (unsigned int i = 0; i < nr_cache; i++)
		if (cache[i].m == m && cache[i].page->index == index)
			return i;
	return -1;
}

/* Drop slot @i: the table's reference goes; the last one frees. */
static void cache_drop(unsigned int i)
{
	struct page *page = cache[i].page;

	cache[i] = cache[--nr_cache];
	if (--page->refcount == 0)
		host_page_free(page);
}

static void lock_host_page(struct page *page)
{
	if (page_test(page, PG_locked))
		die_rdonly("deadlock: a locked page locked again", 0);
	page_set(page, PG_locked);
}

/* The page at @index, locked, referenced; a new one is not uptodate. */
struct page *filemap_grab_page(struct address_space *m, unsigned long index)
{
	int i = cache_slot(m, index);
	struct page *page;

	need_rw(m, __func__);
	if (i >= 0) {
		page = cache[i].page;
		lock_host_page(page);
		page->refcount++;
		return page;
	}
	if (nr_cache == HOST_CACHE_MAX)
		return ERR_PTR(-ENOMEM);
	page = host_page_alloc(m, index); /* locked, the table's reference */
	cache[nr_cache].m = m;
	cache[nr_cache++].page = page;
	page->refcount++;
	return page;
}

struct page *filemap_grab_page_from(struct address_space *m,
				    unsigned long index,
				    struct page *hint)
{
	if (hint)
		die_rdonly("a page put in ahead (no caller here does)", 0);
	return filemap_grab_page(m, index);
}

static struct page *grab_uptodate(struct address_space *m, unsigned long index)
{
	struct page *page = filemap_grab_page(m, index);

	if (IS_ERR(page) || page_test(page, PG_uptodate))
		return page;
	page_clear(page, PG_error);
	m->a_ops->read_page(m, page);
	if (page_test(page, PG_locked))
		die_rdonly("read_page left the page locked", m->host->i_ino);
	page_set(page, PG_locked);
	if (!page_test(page, PG_uptodate)) {
		unlock_page(page);
		put_page(page);
		return ERR_PTR(-EIO);
	}
	return page;
}

/* As mm/truncate.c: every page of [@start, @end) read in, zeroed there,
 * dirtied. */
int filemap_zero_range(struct address_space *m, loff_t start, loff_t end)
{
	need_rw(m, __func__);
	while (start < end) {
		unsigned long index = start >> PAGE_SHIFT;
		loff_t pstart = (loff_t)index << PAGE_SHIFT;
		unsigned int from = start - pstart;
		unsigned int to = MIN(end - pstart, (loff_t)PAGE_SIZE);
		struct page *page = grab_uptodate(m, index);

		if (IS_ERR(page))
			return PTR_ERR(page);
		memset((char *)page_address(page) + from, 0, to - from);
		set_page_dirty(page);
		unlock_page(page);
		put_page(page);
		start = pstart + to;
	}
	return 0;
}

int filemap_truncate_tail(struct address_space *m, loff_t size, loff_t end)
{
	unsigned long index = size >> PAGE_SHIFT;
	loff_t pstart = (loff_t)index << PAGE_SHIFT;
	struct page *page = NULL;

	need_rw(m, __func__);
	if (end > size) {
		page = grab_uptodate(m, index);
		if (IS_ERR(page))
			return PTR_ERR(page);
	}
	inode_set_size(m->host, size);
	if (!page)
		return 0;
	memset((char *)page_address(page) + (size - pstart), 0, end - size);
	set_page_dirty(page);
	unlock_page(page);
	put_page(page);
	return 0;
}

/* Copy page by page through write_begin/write_end, as mm/filemap.c. */
ssize_t filemap_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct address_space *m = f->f_mapping;
	size_t done = 0;

	need_rw(m, __func__);
	while (done < len) {
		unsigned int off = *pos & (PAGE_SIZE - 1);
		unsigned int n = MIN(len - done, (size_t)PAGE_SIZE - off);
		struct page *page = NULL;
		int err = m->a_ops->write_begin(m, *pos, n, &page);
		int copied;

		if (err)
			return done ? (ssize_t)done : err;
		memcpy((char *)page_address(page) + off,
		       (const char *)buf + done,
		       n);
		copied = m->a_ops->write_end(m, *pos, n, n, page);
		if (copied <= 0)
			return done ? (ssize_t)done : -EIO;
		done += copied;
		*pos += copied;
	}
	return done;
}

bool set_page_dirty(struct page *page)
{
	need_rw(page->mapping, __func__);
	if (page_test(page, PG_dirty))
		return false;
	page_set(page, PG_dirty);
	return true;
}

void end_page_writeback(struct page *page)
{
	if (!page_test_and_clear(page, PG_writeback))
		die_rdonly("writeback ended twice", page->index);
}

void mapping_set_error(struct address_space *m, int err)
{
	(void)err; /* 0 does nothing; an error: the step's return says it */
	need_rw(m, __func__);
}

/* Write back @m's dirty pages (every mapping's when NULL) and empty the
 * table of them, but for pages someone holds locked. */
static void flush_pages(struct address_space *m)
{
	for (unsigned int i = 0; i < nr_cache;) {
		struct page *page = cache[i].page;
		struct address_space *pm = cache[i].m;
		struct writeback_control wbc = { .range_end = INT64_MAX,
						 .sync = true,
						 .nr_to_write = 1 };

		if ((m && pm != m) || page_test(page, PG_locked)) {
			i++;
			continue;
		}
		if (page_test_and_clear(page, PG_dirty)) {
			page_set(page, PG_writeback);
			page_set(page, PG_locked);
			pm->a_ops->write_page(pm, page, &wbc);
			if (page_test(page, PG_locked) ||
			    page_test(page, PG_writeback))
				die_rdonly("write_page left the page locked or "
					   "under writeback",
					   pm->host->i_ino);
		}
		cache_drop(i);
	}
}

void host_flush(struct super_block *sb)
{
	flush_pages(NULL);
	while (!list_empty(&sb->s_dirty)) {
		struct inode *inode =
		    list_first_entry(&sb->s_dirty, struct inode, i_dirty_list);

		list_del(&inode->i_dirty_list);
		list_init(&inode->i_dirty_list);
		inode->i_state &= ~I_DIRTY;
		sb->s_op->write_inode(inode, true);
	}
}

int filemap_write_and_wait_range(struct address_space *m,
				 loff_t start,
				 loff_t end)
{
	(void)start, (void)end;
	need_rw(m, __func__);
	flush_pages(m);
	return 0;
}

/* Pages wholly inside [@start, @end] leave; partial ones are zeroed there
 * and, with @held, handed back locked. */
static void truncate_range(struct address_space *m,
			   loff_t start,
			   loff_t end,
			   struct page *held[2])
{
	for (unsigned int i = 0; i < nr_cache;) {
		struct page *page = cache[i].page;
		loff_t ps = (loff_t)page->index << PAGE_SHIFT;
		loff_t pe = ps + PAGE_SIZE - 1;
		loff_t from = MAX(start, ps), to = MIN(end, pe);

		if (cache[i].m != m || from > to) {
			i++;
			continue;
		}
		if (page_test(page, PG_locked))
			die_rdonly("truncating a locked page", m->host->i_ino);
		if (from == ps && to == pe) {
			cache_drop(i);
			continue;
		}
		memset(
		    (char *)page_address(page) + (from - ps), 0, to - from + 1);
		if (held) {
			lock_host_page(page);
			page->refcount++;
			held[ps < start ? 0 : 1] = page;
		}
		i++;
	}
}

void truncate_inode_pages_range(struct address_space *m,
				loff_t start,
				loff_t end)
{
	need_rw(m, __func__);
	truncate_range(m, start, end, NULL);
}

void truncate_inode_pages_hold_edges(struct address_space *m,
				     loff_t start,
				     loff_t end,
				     struct page *held[2])
{
	need_rw(m, __func__);
	held[0] = held[1] = NULL;
	truncate_range(m, start, end, held);
}

void truncate_release_edges(struct page *held[2])
{
	for (int i = 0; i < 2; i++)
		if (held[i]) {
			unlock_page(held[i]);
			put_page(held[i]);
		}
}

void truncate_pagecache(struct inode *inode, loff_t newsize)
{
	need_rw(inode->i_mapping, __func__);
	truncate_range(inode->i_mapping, newsize, INT64_MAX, NULL);
}

void filemap_wait_fills(struct address_space *m, loff_t start, loff_t end)
{
	(void)start, (void)end;
	need_rw(m, __func__); /* no fill ever runs beside a call here */
}

void pagecache_isize_extended(struct inode *inode, loff_t from, loff_t to)
{
	(void)from, (void)to;
	need_rw(inode->i_mapping, __func__); /* nothing is mapped here */
}

void filemap_invalidate_lock(struct address_space *m)
{
	need_rw(m, __func__);
	down_write(&m->invalidate_lock);
}

void filemap_invalidate_unlock(struct address_space *m)
{
	up_write(&m->invalidate_lock);
}

/* ---- inodes ---- */

void mark_inode_dirty(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	if (sb->s_rdonly)
		die_rdonly("inode dirtied", inode->i_ino);
	if (inode->i_state & (I_DIRTY | I_FREEING))
		return;
	inode->i_state |= I_DIRTY;
	list_add_tail(&inode->i_dirty_list, &sb->s_dirty);
}

void inode_set_size(struct inode *inode, loff_t size)
{
	if (inode->i_sb->s_rdonly)
		die_rdonly("inode resized", inode->i_ino);
	inode->i_size = size;
}

struct inode *new_inode(struct super_block *sb, unsigned long ino)
{
	struct inode *inode;

	if (sb->s_rdonly)
		die_rdonly("inode created", ino);
	list_for_each_entry (inode, &sb->s_inodes, i_sb_list)
		if (inode->i_ino == ino) /* the kernel WARNs (fs/inode.c) */
			die_rdonly("new_inode of an inode in use", ino);
	inode = host_inode_alloc(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode->i_state = 0;
	list_add_tail(&inode->i_sb_list, &sb->s_inodes);
	return inode;
}

/* The last reference to an unlinked inode: as fs/inode.c, its pages go,
 * then the filesystem frees it. */
void host_evict(struct inode *inode)
{
	if (inode->i_state & I_DIRTY)
		list_del(&inode->i_dirty_list);
	inode->i_state |= I_FREEING;
	down_write(&inode->i_mapping->invalidate_lock);
	truncate_range(inode->i_mapping, 0, INT64_MAX, NULL);
	up_write(&inode->i_mapping->invalidate_lock);
	if (inode->i_sb->s_op->evict_inode)
		inode->i_sb->s_op->evict_inode(inode);
	list_del(&inode->i_sb_list);
	inode->i_sb->s_op->destroy_inode(inode);
}

void down_write_nested(struct rw_semaphore *s, unsigned int subclass)
{
	(void)subclass;
	down_write(s);
}

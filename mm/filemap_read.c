/*
 * mm/filemap_read.c: buffered read through the page cache.
 *
 * A cached, uptodate page is copied with nothing held but a reference,
 * taken with no lock at all (filemap_get_read_batch: an RCU look-up of up
 * to FILEMAP_BATCH consecutive pages at once). A miss
 * reads ahead (mm/readahead.c), or with readahead off reads the one page;
 * a page that is not uptodate is read again. A path that inserts a page
 * holds mapping->invalidate_lock shared around the insertion and reads
 * i_size again once it holds it; the new page stays locked until its read
 * ends, every invalidation locks each page it drops before it frees a
 * block, and preallocation waits for the locked pages of its range before
 * it maps a block under one, so the read that follows needs nothing more
 * (docs/locking.md). A
 * path that reads a page it found not uptodate holds the lock from the
 * lock_page through the block-map look-up and the submission of the read:
 * an invalidation may have passed that page already (the partial page at
 * a punch's edge stays cached). The copy to the caller's buffer comes
 * after every lock is dropped (might_fault() checks). RWF_NOWAIT:
 * trylocks only, no I/O, -EAGAIN.
 * Lock order: mm/filemap.c's table; docs/locking.md.
 */
#include <string.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <fs/vfs.h>
#include <mm/filemap.h>

/* Is page @index wholly past EOF? */
static bool past_eof(struct address_space *m, unsigned long index)
{
	return (loff_t)index << PAGE_SHIFT >= READ_ONCE(m->host->i_size);
}

/* Read page @index alone (readahead off, or it did not bring the page
 * in). Takes invalidate_lock shared around the insertion. Not inlined: a
 * backtrace from the insertion names it (docs/labs.md, lab 2).
 * Return: the page (referenced, maybe still being read), NULL to look
 * again, ERR_PTR(-ENXIO) if a truncate put it past EOF, or ERR_PTR. */
static __noinline struct page *read_one_page(struct address_space *m,
					     unsigned long index)
{
	struct page *page = page_cache_alloc();
	int err = -ENXIO;

	if (!page)
		return ERR_PTR(-ENOMEM);
	race_point(RACE_FILL_START, m);
	if (!filemap_fill_begin(m) || !past_eof(m, index)) {
		trylock_page(page); /* ours alone: cannot fail */
		err = filemap_add_page(m, page, index);
	}
	filemap_fill_end(m); /* the page lock orders the read from here */
	if (!err)
		m->a_ops->read_page(m, page); /* unlocks; errors: !uptodate */
	if (err) {
		if (err != -ENXIO)
			unlock_page(page);
		put_page(page);
		return err == -EEXIST ? NULL : ERR_PTR(err);
	}
	return page;
}

/* Lock @page to read it again, invalidate_lock first (shared). With
 * @nowait, neither waits. Return: 0 (both held) or -EAGAIN. */
static int
lock_page_for_read(struct address_space *m, struct page *page, bool nowait)
{
	if (!nowait) {
		race_point(RACE_FILL_START, m);
		filemap_fill_begin(m);
		lock_page(page);
		return 0;
	}
	if (!filemap_fill_trybegin(m))
		return -EAGAIN;
	if (trylock_page(page))
		return 0;
	filemap_fill_end(m);
	return -EAGAIN;
}

/* Wait for @page's read; read it again if it failed (or, with @nowait,
 * give up rather than wait or start I/O). Return: 0, -EAGAIN if the page
 * left the mapping (look again) or @nowait had to give up, or -EIO. */
static int
wait_page_uptodate(struct address_space *m, struct page *page, bool nowait)
{
	int err;

	if (page_test(page, PG_uptodate))
		return 0;
	if (!nowait) { /* a read in flight needs no lock of ours */
		wait_on_page_locked(page);
		if (page_test(page, PG_uptodate))
			return 0;
	}
	err = lock_page_for_read(m, page, nowait);
	if (err)
		return err;
	if (page->mapping != m)
		err = -EAGAIN;
	else if (!page_test(page, PG_uptodate) && nowait)
		err = -EAGAIN; /* it would take I/O */
	if (err || page_test(page, PG_uptodate)) {
		unlock_page(page);
		filemap_fill_end(m);
		return err;
	}
	page_clear(page, PG_error);
	page_lock_handoff(page); /* the read unlocks it */
	m->a_ops->read_page(m, page);
	filemap_fill_end(m);
	wait_on_page_locked(page);
	return page_test(page, PG_uptodate) ? 0 : -EIO;
}

/*
 * Bring page @index in: readahead; with readahead off (POSIX_FADV_RANDOM)
 * the @req_pages pages the call asked for and no more, in readahead's
 * batches, at most the default window at a time (Linux forces the same
 * read for a random file, capped alike), so a 1 MiB read is a few
 * requests, not 256; a one-page request reads its page alone.
 */
static struct page *
filemap_fill_miss(struct file *f, unsigned long index, unsigned long req_pages)
{
	struct address_space *m = f->f_mapping;
	struct page *page = NULL;

	if (f->f_ra.ra_pages || req_pages > 1) {
		page_cache_sync_readahead(m, &f->f_ra, index, req_pages);
		page = filemap_get_page(m, index);
	}
	return page ? page : read_one_page(m, index);
}

/*
 * The uptodate page at @index, referenced: from the cache, or read. A
 * cached, uptodate page costs no sleeping lock; everything that inserts
 * or reads takes invalidate_lock shared inside. With @nowait, -EAGAIN
 * where a page would have to be read or a lock waited for.
 */
struct page *filemap_read_page(struct file *f,
			       unsigned long index,
			       unsigned long req_pages,
			       bool nowait)
{
	struct address_space *m = f->f_mapping;
	struct page *page;
	int err;

	do {
		page = filemap_get_page(m, index);
		if (!page && nowait)
			return ERR_PTR(-EAGAIN);
		if (!page)
			page = filemap_fill_miss(f, index, req_pages);
		if (IS_ERR_OR_NULL(page))
			continue;
		if (page_test(page, PG_readahead) && !nowait)
			page_cache_async_readahead(
			    m, &f->f_ra, page, index, req_pages);
		err = wait_page_uptodate(m, page, nowait);
		if (err) {
			put_page(page);
			page = err == -EAGAIN && !nowait ? NULL : ERR_PTR(err);
		}
	} while (!page);
	return page;
}

/* Copy to a task's buffer, which may fault (a file mapping): no
 * invalidate_lock and no page lock may be held (lockdep checks). */
static void copy_to_task(void *dst, const void *src, size_t n)
{
	might_fault();
	memcpy(dst, src, n);
}

/*
 * Copy what the read wants of @page, the page at *@pos, and advance *@pos.
 *
 * @isize bounds the copy: the size read before the page was looked up,
 * never after. A size read later may come from a change newer than the
 * page's bytes: an insert range, or a truncate then any growth, puts file
 * data where the old EOF page holds zeroes past its old end, zeroes the
 * file never had there; a reader that found the old page, then read the
 * new size, would return them (fsx: a 0x00 that no version had). A
 * truncate during the copy stores the size before it zeroes the tail
 * (filemap_truncate_tail), so the size read again after the copy covers
 * what the copy saw of the zeroes. Growth alone is safe with the first
 * size; a shrink then growth during the copy is not (the zeroes, then a
 * size past them): i_shrinks moved from @shrinks, and the page must be
 * read again.
 * Return: bytes copied (0: EOF, or a truncate's), or -EAGAIN: read the
 * page again (nothing counted, *@pos unchanged).
 */
static ssize_t copy_page_out(struct file *f,
			     struct page *page,
			     void *dst,
			     size_t len,
			     loff_t *pos,
			     loff_t isize,
			     unsigned long shrinks)
{
	struct inode *inode = f->f_inode;
	size_t offset = *pos & ~PAGE_MASK;
	size_t n = MIN(MIN(PAGE_SIZE - offset, len),
		       (size_t)MAX(isize - *pos, (loff_t)0));

	/* Test first: an atomic per hit on a page every hart reads
	 * would pass its cache line from hart to hart. */
	if (!page_test(page, PG_referenced))
		page_set(page, PG_referenced);
	race_point(RACE_READ_COPY, page);
	copy_to_task(dst, (char *)page_address(page) + offset, n);
	smp_rmb(); /* the copy, then the size, then the count */
	isize = READ_ONCE(inode->i_size);
	smp_rmb();
	if (READ_ONCE(inode->i_shrinks) != shrinks)
		return -EAGAIN;
	n = MIN(n, (size_t)MAX(isize - *pos, (loff_t)0));
	f->f_ra.prev_index = page->index;
	*pos += n;
	return n;
}

/* filemap_read_flags without the i_rwsem of fill_lock=i_rwsem. A run of
 * cached, uptodate pages comes in batches (filemap_get_read_batch: one
 * walk of the index for up to FILEMAP_BATCH pages), all bounded by the
 * size read before the walk (copy_page_out); anything else, one page at
 * a time through filemap_read_page. */
static ssize_t
read_range(struct file *f, void *buf, size_t len, loff_t *pos, int flags)
{
	struct inode *inode = f->f_inode;
	struct page *pages[FILEMAP_BATCH];
	ssize_t copied = 0;
	int err = 0;

	while (len) {
		unsigned long shrinks = READ_ONCE(inode->i_shrinks);
		unsigned long index = *pos >> PAGE_SHIFT, last;
		bool eof = false;
		unsigned int n, i;
		loff_t isize;

		smp_rmb(); /* the count, then the size: inode_set_size */
		/* Acquire: the bytes a write put in before it raised the
		 * size are seen with the size. */
		isize = __atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE);
		if (*pos >= isize)
			break;
		last = (MIN(*pos + (loff_t)len, isize) - 1) >> PAGE_SHIFT;
		n = filemap_get_read_batch(
		    f->f_mapping, index, last - index + 1, pages);
		if (!n) {
			pages[0] = filemap_read_page(
			    f, index, last - index + 1, flags & RWF_NOWAIT);
			if (IS_ERR(pages[0])) {
				err = PTR_ERR(pages[0]) == -ENXIO
					  ? 0
					  : PTR_ERR(pages[0]);
				break;
			}
			n = 1;
		}
		for (i = 0; i < n; i++) {
			ssize_t done = copy_page_out(f,
						     pages[i],
						     (char *)buf + copied,
						     len,
						     pos,
						     isize,
						     shrinks);

			put_page(pages[i]);
			if (done < 0)
				break; /* a shrink came: look again */
			copied += done;
			len -= done;
			eof = !done;
			if (eof || !len || (*pos & ~PAGE_MASK))
				break;
		}
		while (++i < n)
			put_page(pages[i]);
		if (eof)
			break;
	}
	return copied ? copied : err;
}

/**
 * filemap_read_flags - buffered read of @len bytes at *@pos into @buf
 * @flags: RWF_NOWAIT: return what is cached and uptodate, then -EAGAIN
 * (or the bytes so far) rather than wait for a lock or start I/O.
 * Fast path: the page is cached and uptodate - a lock-free look-up takes
 * the reference, then a copy with nothing held but the reference.
 * Context: task, may sleep; takes no i_rwsem (but i_rwsem shared around
 * the whole read with fill_lock=i_rwsem, mm/invalidate.c).
 * Return: bytes read, or a negative errno.
 */
ssize_t filemap_read_flags(
    struct file *f, void *buf, size_t len, loff_t *pos, int flags)
{
	struct rw_semaphore *i_rwsem = &f->f_inode->i_rwsem;
	ssize_t ret;

	if (mapping_fill_lock(f->f_mapping) != FILL_I_RWSEM)
		return read_range(f, buf, len, pos, flags);
	if (!(flags & RWF_NOWAIT))
		down_read(i_rwsem);
	else if (!down_read_trylock(i_rwsem))
		return -EAGAIN;
	ret = read_range(f, buf, len, pos, flags);
	up_read(i_rwsem);
	return ret;
}

ssize_t filemap_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	return filemap_read_flags(f, buf, len, pos, 0);
}

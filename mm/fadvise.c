/*
 * mm/fadvise.c: posix_fadvise and readahead(2) on an open file.
 *
 *   WILLNEED, readahead(2)  read the range into the cache now: readahead
 *                           batches, each under invalidate_lock shared
 *   DONTNEED                start writeback of the range, drop the
 *                           file's windows queued for the readahead
 *                           worker, then drop the range's clean, unused
 *                           pages (reclaim's kind of drop: the disk holds
 *                           what they hold, so no invalidate_lock - as in
 *                           Linux)
 *   NORMAL, SEQUENTIAL,     the file's readahead window: default, twice
 *   RANDOM                  the default, off (a miss reads what the call
 *                           asked for and no more, as Linux's random
 *                           files: mm/filemap_read.c)
 *   NOREUSE                 nothing
 * Errors are Linux's: EBADF (readahead: not open for reading), ESPIPE (no
 * inode), EINVAL (bad advice, negative length; readahead: not a regular
 * file).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <fs/vfs.h>
#include <mm/filemap.h>

/* Pages [first, last] covering bytes [@off, @off+@len), @len 0: to EOF. */
static void byte_range_pages(loff_t off,
			     loff_t len,
			     unsigned long *first,
			     unsigned long *last)
{
	loff_t end;

	*first = off >> PAGE_SHIFT;
	if (!len || __builtin_add_overflow(off, len - 1, &end))
		end = LLONG_MAX;
	*last = end >> PAGE_SHIFT;
}

static void willneed(struct file *f, loff_t off, loff_t len)
{
	unsigned long first, last;

	byte_range_pages(off, len, &first, &last);
	page_cache_force_readahead(f->f_mapping, first, last - first + 1);
}

static void dontneed(struct file *f, loff_t off, loff_t len)
{
	struct address_space *m = f->f_mapping;
	unsigned long first, last;
	loff_t end;

	if (!len || __builtin_add_overflow(off, len - 1, &end))
		end = LLONG_MAX;
	filemap_fdatawrite_range(m, off, end);
	readahead_cancel(m); /* nothing queued before comes back after */
	/* Only pages wholly inside the range leave. */
	first = DIV_ROUND_UP((unsigned long long)off, PAGE_SIZE);
	last = end >> PAGE_SHIFT;
	if ((end & ~PAGE_MASK) != ~PAGE_MASK && end != LLONG_MAX) {
		if (!last)
			return;
		last--;
	}
	if (first <= last)
		invalidate_mapping_range(m, first, last);
}

/**
 * vfs_fadvise - posix_fadvise on @f
 * Context: task, may sleep.
 * Return: 0 or a negative errno.
 */
int vfs_fadvise(struct file *f, loff_t off, loff_t len, int advice)
{
	struct inode *inode = f->f_inode;
	unsigned int def = file_ra_default_pages();

	if (!inode || S_ISFIFO(inode->i_mode))
		return -ESPIPE;
	if (len < 0 || off < 0)
		return -EINVAL;
	switch (advice) {
	case POSIX_FADV_NORMAL: f->f_ra.ra_pages = def; break;
	case POSIX_FADV_RANDOM: f->f_ra.ra_pages = 0; break;
	case POSIX_FADV_SEQUENTIAL: f->f_ra.ra_pages = 2 * def; break;
	case POSIX_FADV_NOREUSE: break;
	case POSIX_FADV_WILLNEED:
		if (S_ISREG(inode->i_mode))
			willneed(f, off, len);
		break;
	case POSIX_FADV_DONTNEED:
		if (S_ISREG(inode->i_mode))
			dontneed(f, off, len);
		break;
	default: return -EINVAL;
	}
	return 0;
}

/**
 * vfs_readahead - readahead(2): bring [@off, @off+@count) into the cache
 * Context: task, may sleep.
 * Return: 0 or a negative errno.
 */
int vfs_readahead(struct file *f, loff_t off, size_t count)
{
	if ((f->f_flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (!f->f_inode || !S_ISREG(f->f_inode->i_mode))
		return -EINVAL;
	if (off < 0)
		return -EINVAL;
	if (count)
		willneed(f, off, (loff_t)MIN(count, (size_t)LLONG_MAX));
	return 0;
}

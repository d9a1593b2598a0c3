/*
 * fs/copy_range.c: copy_file_range(2) and swapext, the two operations on
 * two files at once - the users of filemap_invalidate_lock_two.
 *
 * Locks, for both (docs/locking.md): i_rwsem of both inodes exclusive
 * (lower address first, the second as subclass 1; one inode once), then
 * filemap_invalidate_lock_two: both invalidate_locks exclusive, lower
 * address first. Two tasks doing A<->B and B<->A at once take them in the
 * same order and cannot deadlock.
 *   copy_file_range copies through the page cache under them: a snapshot
 *   of the source range (no truncate, punch, fault or read fill of either
 *   file runs meanwhile), the same locks Linux's remap_file_range (the
 *   clone behind copy_file_range on XFS) takes. Its own fills of the
 *   source run under the exclusive lock (mm/invalidate.c lets the holder
 *   fill), and the copy goes page by page through a kernel buffer: no
 *   fault under invalidate_lock.
 *   swapext writes back, unmaps and drops both caches, then the filesystem
 *   exchanges the block maps and sizes (i_op->swap_contents).
 */
#include <errno.h>
#include <string.h>
#include <kernel/race.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include <fs/internal.h>

/* i_rwsem of @a and @b exclusive, the lower address first. */
static void lock_two_inodes(struct inode *a, struct inode *b)
{
	if (a > b) {
		struct inode *t = a;
		a = b;
		b = t;
	}
	down_write(&a->i_rwsem);
	race_point(RACE_INODES_TWO_FIRST, a);
	if (b != a)
		down_write_nested(&b->i_rwsem, 1);
}

static void unlock_two_inodes(struct inode *a, struct inode *b)
{
	up_write(&a->i_rwsem);
	if (b != a)
		up_write(&b->i_rwsem);
}

static void lock_both(struct inode *a, struct inode *b)
{
	lock_two_inodes(a, b);
	filemap_invalidate_lock_two(a->i_mapping, b->i_mapping);
}

static void unlock_both(struct inode *a, struct inode *b)
{
	filemap_invalidate_unlock_two(a->i_mapping, b->i_mapping);
	unlock_two_inodes(a, b);
}

/* Linux's checks, in its order (generic_copy_file_checks and before). */
static int copy_checks(struct file *in,
		       loff_t pos_in,
		       struct file *out,
		       loff_t pos_out,
		       size_t len,
		       unsigned int flags)
{
	struct inode *src = in->f_inode, *dst = out->f_inode;
	loff_t end;

	if (flags)
		return -EINVAL;
	if (!file_readable(in) || !file_writable(out) ||
	    (out->f_flags & O_APPEND))
		return -EBADF;
	if (!src || !dst)
		return -EINVAL;
	if (S_ISDIR(src->i_mode) || S_ISDIR(dst->i_mode))
		return -EISDIR;
	if (!S_ISREG(src->i_mode) || !S_ISREG(dst->i_mode))
		return -EINVAL;
	if (src->i_sb != dst->i_sb)
		return -EXDEV;
	if (pos_in < 0 || pos_out < 0)
		return -EINVAL;
	if (__builtin_add_overflow(pos_in, (loff_t)len, &end) ||
	    __builtin_add_overflow(pos_out, (loff_t)len, &end))
		return -EOVERFLOW;
	if (dst->i_sb->s_rdonly)
		return -EROFS;
	if (!out->f_op || !out->f_op->write || !in->f_op || !in->f_op->read)
		return -EINVAL;
	return 0;
}

/* Copy under both files' locks; @len already cut at the source's EOF. */
static ssize_t copy_locked(struct file *in,
			   loff_t *pos_in,
			   struct file *out,
			   loff_t *pos_out,
			   size_t len,
			   char *buf)
{
	ssize_t copied = 0;

	while (len) {
		unsigned long index = *pos_in >> PAGE_SHIFT;
		size_t offset = *pos_in & ~PAGE_MASK;
		size_t n = MIN(PAGE_SIZE - offset, len);
		struct page *page = filemap_read_page(
		    in, index, DIV_ROUND_UP(offset + len, PAGE_SIZE), false);
		loff_t at = *pos_out;
		ssize_t w;

		if (IS_ERR(page))
			return copied ? copied : PTR_ERR(page);
		memcpy(buf, (char *)page_address(page) + offset, n);
		put_page(page);
		w = out->f_op->write(out, buf, n, &at);
		if (w <= 0)
			return copied ? copied : (w ? w : -EIO);
		copied += w;
		*pos_in += w;
		*pos_out = at;
		len -= w;
		if ((size_t)w < n)
			break;
	}
	return copied;
}

/**
 * vfs_copy_file_range - copy_file_range(2): copy @len bytes from @in at
 * *@pos_in to @out at *@pos_out, advancing both.
 * Context: task, may sleep; takes both i_rwsems and both invalidate_locks.
 * Return: bytes copied (fewer at the source's EOF; 0 past it) or a
 * negative errno: EINVAL (flags, overlap within one file, not regular),
 * EBADF, EISDIR, EXDEV, EOVERFLOW, EROFS, EFBIG, ENOSPC, EIO.
 */
ssize_t vfs_copy_file_range(struct file *in,
			    loff_t *pos_in,
			    struct file *out,
			    loff_t *pos_out,
			    size_t len,
			    unsigned int flags)
{
	struct inode *src = in->f_inode, *dst = out->f_inode;
	ssize_t ret = copy_checks(in, *pos_in, out, *pos_out, len, flags);
	loff_t size;
	char *buf;

	if (ret)
		return ret;
	if (!len)
		return 0;
	len = MIN(len, (size_t)MAX_RW_COUNT);
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	lock_both(src, dst);
	size = READ_ONCE(src->i_size);
	len = *pos_in >= size ? 0 : MIN(len, (size_t)(size - *pos_in));
	if (src == dst && *pos_in < *pos_out + (loff_t)len &&
	    *pos_out < *pos_in + (loff_t)len)
		ret = -EINVAL; /* overlapping ranges of one file */
	else if (len)
		ret = copy_locked(in, pos_in, out, pos_out, len, buf);
	if (ret > 0)
		file_update_time(dst);
	unlock_both(src, dst);
	kfree(buf);
	return ret;
}

/* Write back, unmap and drop all of @inode's cache: its blocks move. */
static int flush_all(struct inode *inode)
{
	struct address_space *m = inode->i_mapping;
	int err = filemap_write_and_wait_range(m, 0, LLONG_MAX);

	if (err)
		return err;
	unmap_mapping_range(m, 0, LLONG_MAX, false);
	truncate_inode_pages(m, 0);
	return 0;
}

/**
 * vfs_swapext - exchange the whole contents of @target and @donor (xfs_io
 * swapext: the block maps, so also the sizes and block counts). Both must
 * be regular files of one filesystem, open for writing (xfs_io opens the
 * donor write-only).
 * Context: task, may sleep; takes both i_rwsems and both invalidate_locks.
 * Return: 0 or a negative errno: EBADF (not open for writing, or
 * O_APPEND), EINVAL (the same file, not a regular file, two
 * filesystems), EROFS, EOPNOTSUPP, EIO (writeback failed: nothing
 * exchanged).
 */
int vfs_swapext(struct file *target, struct file *donor)
{
	struct inode *a = target->f_inode, *b = donor->f_inode;
	int err;

	if (!file_writable(target) || !file_writable(donor) ||
	    ((target->f_flags | donor->f_flags) & O_APPEND))
		return -EBADF;
	if (!a || !b || a == b || !S_ISREG(a->i_mode) || !S_ISREG(b->i_mode) ||
	    a->i_sb != b->i_sb)
		return -EINVAL;
	if (a->i_sb->s_rdonly)
		return -EROFS;
	if (!a->i_op || !a->i_op->swap_contents)
		return -EOPNOTSUPP;
	lock_both(a, b);
	err = flush_all(a) ?: flush_all(b);
	if (!err) {
		race_point(RACE_INVAL_DROPPED, a);
		err = a->i_op->swap_contents(a, b);
	}
	if (!err) {
		struct timespec now = current_time();

		a->i_ctime = b->i_ctime = now;
		mark_inode_dirty(a);
		mark_inode_dirty(b);
	}
	unlock_both(a, b);
	return err;
}

/*
 * fs/ext2/falloc.c: fallocate on ext2 files - preallocate, punch a hole,
 * zero, collapse or insert a range, with Linux ext4's rules for sizes,
 * alignment and errors (the VFS checked the flags: fs/file.c).
 *
 * Every mode runs as one critical section, in this order:
 *   i_rwsem exclusive
 *     mapping->invalidate_lock exclusive (filemap_invalidate_lock)
 *       write back what must survive (collapse, insert: everything from
 *         the page holding the offset to EOF, before it is dropped)
 *       drop the cached pages of the range (truncate_inode_pages_range,
 *         the page cache's one removal door; partial pages keep what is
 *         outside the range and are zeroed inside it)
 *       change the block map, free or allocate blocks (blockmap_range.c,
 *         blockmap_shift.c)
 *       zero the partial blocks at the edges (filemap_zero_range: read,
 *         zeroed and dirtied, so the zeroes reach the disk)
 * so no read, fault or readahead can bring a freed block's old contents
 * back into the cache: they take invalidate_lock shared to fill a page.
 * Preallocation allocates before it drops anything, so that -ENOSPC
 * leaves the file as it was (blocks it allocated are freed again); it
 * first waits for the fills that inserted pages in its range before it
 * took the lock (filemap_wait_fills), since it keeps the pages over holes
 * and each new block holds its old bytes until its zeroes are written.
 *
 * ext2 has no unwritten extents: preallocated blocks (modes 0 and
 * KEEP_SIZE, and the holes ZERO_RANGE fills) are written with zeroes
 * when they are allocated, so they read as zeroes from the disk. Nor can
 * its block map hold blocks past EOF (e2fsck: "i_size is N, should be
 * M"), so with KEEP_SIZE only the part of the range below EOF is
 * allocated; the rest would only have reserved space, and reads the same
 * (nothing) without it.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <mm/mmap.h>
#include "ext2.h"

#define EXT2_FALLOC_MODES                                  \
	(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |      \
	 FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE | \
	 FALLOC_FL_INSERT_RANGE)

static loff_t max_bytes(struct inode *inode)
{
	return ext2_inode_max_blocks(inode) << inode->i_sb->s_blocksize_bits;
}

static void falloc_lock(struct inode *inode)
{
	down_write(&inode->i_rwsem);
	filemap_invalidate_lock(inode->i_mapping);
}

static void falloc_unlock(struct inode *inode, bool changed)
{
	if (changed) {
		inode->i_mtime = inode->i_ctime = current_time();
		mark_inode_dirty(inode);
	}
	race_point(RACE_INVAL_UNLOCK, inode);
	filemap_invalidate_unlock(inode->i_mapping);
	up_write(&inode->i_rwsem);
}

/* What every step below needs. */
static void assert_falloc_locked(struct inode *inode)
{
	lockdep_assert_held_write(&inode->i_rwsem);
	lockdep_assert_held_write(&inode->i_mapping->invalidate_lock);
}

/*
 * Zero the partial blocks of [@start, @end) below @limit (the old EOF:
 * past it the blocks are new and zeroed, or the old EOF block's tail,
 * which ext2_zero_past_eof zeroes) through the page cache's one zeroing
 * helper, which dirties them so the zeroes reach the blocks that stay:
 * the part of the first block before the first whole one, and of the last
 * after the last whole one. The whole blocks are the block map's business.
 */
static int
zero_partial_blocks(struct inode *inode, loff_t start, loff_t end, loff_t limit)
{
	struct address_space *m = inode->i_mapping;
	loff_t bs = inode->i_sb->s_blocksize;
	loff_t head_end = MIN(ALIGN_UP(start, bs), end);
	loff_t tail_start = MAX(ALIGN_DOWN(end, bs), head_end);
	int err;

	err = filemap_zero_range(m, start, MIN(head_end, limit));
	if (!err)
		err = filemap_zero_range(m, tail_start, MIN(end, limit));
	return err;
}

/* ext4's punch: nothing at or past EOF; a range past EOF ends with the
 * page after the one that holds EOF. */
static int punch_hole(struct inode *inode, loff_t off, loff_t len)
{
	loff_t size = READ_ONCE(inode->i_size), end = off + len;
	uint64_t bits = inode->i_sb->s_blocksize_bits, first, stop;
	struct page *edges[2];
	int err = 0;

	assert_falloc_locked(inode);
	if (off >= size)
		return 0;
	if (end > size)
		end = size + PAGE_SIZE - (size & (PAGE_SIZE - 1));
	/* Writeback must not map the blocks freed below under the partial
	 * pages (mm/truncate.c): they stay locked until the map changed. */
	truncate_inode_pages_hold_edges(inode->i_mapping, off, end - 1, edges);
	race_point(RACE_INVAL_DROPPED, inode);
	first = ((uint64_t)off + (1ULL << bits) - 1) >> bits;
	stop = (uint64_t)end >> bits;
	if (first < stop)
		err = ext2_free_range(inode, first, stop);
	truncate_release_edges(edges);
	race_point(RACE_INVAL_FREED, inode);
	return zero_partial_blocks(inode, off, end, size) ?: err;
}

/* Grow from @old to @size; the old EOF block's bytes past @old must read
 * as zeroes (ext2_zero_past_eof) unless the caller zeroes them itself. */
static int
extend_size(struct inode *inode, loff_t old, loff_t size, bool zero_tail)
{
	int err = zero_tail ? ext2_zero_past_eof(inode, old) : 0;

	if (err)
		return err;
	inode_set_size(inode, size);
	pagecache_isize_extended(inode, old, size);
	ext2_note_large_file(EXT2_SBI(inode->i_sb), inode);
	return 0;
}

/* Modes 0, KEEP_SIZE, ZERO_RANGE and ZERO_RANGE|KEEP_SIZE: every block
 * the range touches below the (new) EOF is mapped, new ones zeroed;
 * ZERO_RANGE also zeroes the old contents. */
static int alloc_or_zero(struct inode *inode, int mode, loff_t off, loff_t len)
{
	struct address_space *m = inode->i_mapping;
	loff_t size = READ_ONCE(inode->i_size), end = off + len;
	bool zero = mode & FALLOC_FL_ZERO_RANGE;
	bool grow = !(mode & FALLOC_FL_KEEP_SIZE) && end > size;
	uint64_t bits = inode->i_sb->s_blocksize_bits;
	uint64_t bs = 1ULL << bits;
	int err;

	/* Unwritten extents may lie past EOF (e2fsck counts only written
	 * blocks against i_size); ext2's blocks may not. */
	if (!grow && !ext2_has_extents(inode))
		end = MIN(end, size);
	if (off >= end)
		return 0;
	/* A fill holds no lock of ours once its pages are in (only their
	 * page locks) and may not have looked the map up yet: let it, before
	 * a hole under its page gets a block that holds old bytes until the
	 * zeroes below land (docs/locking.md). */
	filemap_wait_fills(m, off, end - 1);
	/* Allocate first: -ENOSPC must find the file as it was. New blocks
	 * are zeroed, so the cache over the holes stays true. */
	err = ext2_alloc_range(inode,
			       (uint64_t)off >> bits,
			       ((uint64_t)end + bs - 1) >> bits,
			       0,
			       0);
	if (err)
		return err;
	/* What the new size brings in past the old EOF, and with ZERO_RANGE
	 * the range, must read as zeroes: drop it, zeroing partial pages. */
	if (grow || zero) {
		truncate_inode_pages_range(
		    m, zero ? MIN(off, size) : size, end - 1);
		race_point(RACE_INVAL_DROPPED, inode);
	}
	/* The whole blocks inside: zeroed on disk (all mapped by now, so
	 * this allocates nothing). */
	if (zero)
		err = ext2_alloc_range(inode,
				       ((uint64_t)off + bs - 1) >> bits,
				       (uint64_t)end >> bits,
				       0,
				       UINT64_MAX);
	if (grow || zero)
		race_point(RACE_INVAL_FREED, inode);
	/* Unless the zeroed range starts at or before the old EOF and so
	 * covers the old EOF block's tail itself. */
	if (!err && grow)
		err = extend_size(inode, size, end, !zero || off > size);
	if (!err && zero)
		err = zero_partial_blocks(inode, off, end, size);
	return err;
}

/* Write back and drop the cache from the page holding @off on: the
 * blocks under it are about to move. Private copies of those pages go too
 * (truncate_pagecache, even_cows: as Linux's collapse and insert), since
 * the file's bytes move under them. */
static int flush_from(struct inode *inode, loff_t off)
{
	loff_t start = ALIGN_DOWN(off, (loff_t)PAGE_SIZE);
	int err;

	assert_falloc_locked(inode);
	err = filemap_write_and_wait_range(inode->i_mapping, start, LLONG_MAX);
	if (!err) {
		truncate_pagecache(inode, start);
		race_point(RACE_INVAL_DROPPED, inode);
	}
	return err;
}

static int collapse_range(struct inode *inode, loff_t off, loff_t len)
{
	loff_t size = READ_ONCE(inode->i_size);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	int err;

	/* Reaching EOF would just be a truncate: not a collapse. */
	if (off + len >= size)
		return -EINVAL;
	err = flush_from(inode, off);
	if (!err)
		err = ext2_collapse_blocks(inode, off >> bits, len >> bits);
	if (!err)
		inode_set_size(inode, size - len);
	race_point(RACE_INVAL_FREED, inode);
	return err;
}

static int insert_range(struct inode *inode, loff_t off, loff_t len)
{
	loff_t size = READ_ONCE(inode->i_size);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	int err;

	if (len > max_bytes(inode) - size)
		return -EFBIG;
	if (off >= size)
		return -EINVAL;
	err = flush_from(inode, off);
	if (!err)
		err = ext2_insert_blocks(inode, off >> bits, len >> bits);
	if (!err) {
		inode_set_size(inode, size + len);
		ext2_note_large_file(EXT2_SBI(inode->i_sb), inode);
	}
	race_point(RACE_INVAL_FREED, inode);
	return err;
}

/**
 * ext2_fallocate - fallocate(2) on an ext2 file
 * The VFS has checked the flag combinations, @off >= 0, @len > 0, that
 * @f is open for writing and a regular file, and that @off + @len does
 * not overflow.
 * Context: task, may sleep; takes i_rwsem and invalidate_lock exclusive.
 * Return: 0, -EOPNOTSUPP (a mode ext2 lacks), -EINVAL (collapse or insert
 * not block-aligned, collapse reaching EOF, insert at or past EOF),
 * -EFBIG, -ENOSPC (nothing changed), -EROFS or -EIO.
 */
long ext2_fallocate(struct file *f, int mode, loff_t off, loff_t len)
{
	struct inode *inode = f->f_inode;
	int shift = mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE);
	int err;

	/* Linux's VFS checks the size against s_maxbytes first. */
	if (off + len > max_bytes(inode))
		return -EFBIG;
	if (mode & ~EXT2_FALLOC_MODES)
		return -EOPNOTSUPP;
	if (inode->i_sb->s_rdonly)
		return -EROFS;
	if (shift && !IS_ALIGNED(off | len, (loff_t)inode->i_sb->s_blocksize))
		return -EINVAL;
	falloc_lock(inode);
	if (mode & FALLOC_FL_PUNCH_HOLE)
		err = punch_hole(inode, off, len);
	else if (mode & FALLOC_FL_COLLAPSE_RANGE)
		err = collapse_range(inode, off, len);
	else if (mode & FALLOC_FL_INSERT_RANGE)
		err = insert_range(inode, off, len);
	else
		err = alloc_or_zero(inode, mode, off, len);
	falloc_unlock(inode, !err);
	return err;
}

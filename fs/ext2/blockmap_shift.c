/*
 * fs/ext2/blockmap_shift.c: collapse and insert on the block map - move
 * every block pointer past an offset down or up by n blocks.
 *
 * Pointers move, never data, in phases so that running out of space
 * changes nothing: first every destination's path of indirect blocks is
 * made to exist (the only step that allocates; on failure the new, empty
 * indirect blocks are freed again), then the pointers move (collapse in
 * ascending order, insert in descending order, so that a destination slot
 * is always empty), then the indirect blocks left empty are freed.
 *
 * Caller holds i_rwsem and invalidate_lock exclusive, with the page cache
 * from the offset on written back and dropped; these take i_map_lock.
 */
#include <errno.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <mm/kmalloc.h>
#include "blockmap.h"

/* Make the indirect blocks exist that the blocks of @r need once moved
 * by @delta. Caller holds i_map_lock. */
static int make_paths(struct inode *inode, const struct runs *r, int64_t delta)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);

	for (size_t i = 0; i < r->nr; i++) {
		for (uint64_t b = 0; b < r->v[i].len; b++) {
			struct slot_ref ref;
			uint64_t skip;
			int err = ext2_find_slot(inode,
						 r->v[i].start + b + delta,
						 true,
						 &ref,
						 &skip);

			if (err)
				return err;
			ext2_brelse(sbi, ref.holder);
		}
	}
	return 0;
}

/* Move the pointer of @src (mapped) to @dst (a hole whose indirect blocks
 * exist). Caller holds i_map_lock. */
static int move_block(struct inode *inode, uint64_t src, uint64_t dst)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct slot_ref s, d;
	uint64_t skip;
	int err;

	err = ext2_find_slot(inode, src, false, &s, &skip);
	if (err)
		return err == -ENOENT ? -EIO : err;
	err = ext2_find_slot(inode, dst, false, &d, &skip);
	if (err) {
		ext2_brelse(sbi, s.holder);
		return err == -ENOENT ? -EIO : err;
	}
	if (WARN_ON_ONCE(*d.slot || !*s.slot)) {
		err = -EIO;
	} else {
		*d.slot = *s.slot;
		*s.slot = 0;
		ext2_slot_dirty(inode, &d);
		ext2_slot_dirty(inode, &s);
	}
	ext2_brelse(sbi, d.holder);
	ext2_brelse(sbi, s.holder);
	return err;
}

/* Move the blocks of @r by @delta: downwards in ascending order, upwards
 * in descending order, so each destination has been vacated. Caller
 * holds i_map_lock. Return: 0 or the first error (the map stays valid). */
static int move_runs(struct inode *inode, const struct runs *r, int64_t delta)
{
	int err = 0;

	for (size_t k = 0; k < r->nr; k++) {
		const struct run *run = &r->v[delta < 0 ? k : r->nr - 1 - k];

		for (uint64_t j = 0; j < run->len; j++) {
			uint64_t b =
			    run->start + (delta < 0 ? j : run->len - 1 - j);

			err = move_block(inode, b, b + delta) ?: err;
		}
	}
	return err;
}

/*
 * Shift the blocks at or past @from by @delta. Caller holds i_map_lock
 * and has checked that they stay below ext2_max_blocks; for a collapse
 * it frees [@from + @delta, @from) here, after the paths exist.
 */
static int shift_locked(struct inode *inode, uint64_t from, int64_t delta)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	uint64_t max = ext2_max_blocks(sbi), lowest = MIN(from, from + delta);
	struct runs r = { 0 };
	int err = ext2_map_writable(inode);

	if (!err)
		err = ext2_collect_runs(inode, from, max, &r);
	if (!err && delta > 0 && r.nr &&
	    r.v[r.nr - 1].start + r.v[r.nr - 1].len + delta > max)
		err = -EFBIG;
	if (!err)
		err = make_paths(inode, &r, delta);
	if (err) {
		/* Nothing moved: drop the indirect blocks made for it. */
		ext2_free_range_locked(inode, lowest, max, FREE_INDIRECT);
		goto out;
	}
	if (delta < 0)
		err = ext2_free_range_locked(
		    inode, from + delta, from, FREE_DATA);
	err = move_runs(inode, &r, delta) ?: err;
	err = ext2_free_range_locked(inode, lowest, max, FREE_INDIRECT) ?: err;
out:
	kfree(r.v);
	return err;
}

/**
 * ext2_collapse_blocks - free blocks [@first, @first + @n) and move every
 * block after them @n down
 * Context: see ext2.h; takes i_map_lock.
 * Return: 0; -ENOSPC or -ENOMEM with the map unchanged; -EIO/-EUCLEAN
 * with the map valid but only partly shifted.
 */
int ext2_collapse_blocks(struct inode *inode, uint64_t first, uint64_t n)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	if (ext2_has_extents(inode))
		return ext2_ext_collapse(inode, first, n);
	mutex_lock(&ei->i_map_lock);
	err = shift_locked(inode, first + n, -(int64_t)n);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/**
 * ext2_insert_blocks - move every block at or past @first @n up, leaving
 * [@first, @first + @n) a hole
 * Context: see ext2.h; takes i_map_lock.
 * Return: 0; -ENOSPC, -EFBIG or -ENOMEM with the map unchanged; -EIO or
 * -EUCLEAN with the map valid but only partly shifted.
 */
int ext2_insert_blocks(struct inode *inode, uint64_t first, uint64_t n)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	if (ext2_has_extents(inode))
		return ext2_ext_insert(inode, first, n);
	mutex_lock(&ei->i_map_lock);
	err = shift_locked(inode, first, (int64_t)n);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

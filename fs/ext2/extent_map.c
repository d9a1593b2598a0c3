/*
 * fs/ext2/extent_map.c: mapping blocks for writes through an extent tree -
 * ext2_get_block_new and ext2_alloc_run for an extent-mapped inode.
 *
 * A hole gets new blocks (a run of them, contiguous on disk, for a write
 * past EOF) as a written extent, inserted by extent_insert.c, where it
 * joins the extent before it when it continues it; the goal is the block
 * after that extent's. A block of an unwritten extent is made written
 * (extent_falloc.c's conversion) and counts as new for the write: it
 * holds no file data yet. Blocks already written are only looked up.
 *
 * Locks: both calls take i_map_lock, then s_alloc_lock to allocate.
 */
#include <errno.h>
#include <kernel/err.h>
#include "extent.h"

/* Begin a change of @inode's map at @lblk: count the allocator's walk,
 * take i_map_lock (held on return, whatever the result: the caller drops
 * it) and find @lblk's path into @p.
 * Return: 0, or ext_find's error. */
static int map_begin(struct inode *inode, uint64_t lblk, struct ext_path *p)
{
	__atomic_fetch_add(
	    &EXT2_SBI(inode->i_sb)->s_alloc_walks, 1, __ATOMIC_RELAXED);
	mutex_lock(&EXT2_I(inode)->i_map_lock);
	return ext_find(inode, lblk, p);
}

/**
 * ext2_ext_get_block_new - map logical block @lblk of an extent-mapped
 * inode for a write: allocate it in a hole; in an unwritten extent, make
 * it written (the rest stays unwritten)
 * *new is true in both cases: the block holds no file data yet.
 * Context: task, may sleep; takes i_map_lock and s_alloc_lock.
 * Return: 0, -ENOSPC, -EFBIG, -EIO, -EBADMSG or -EUCLEAN.
 */
int ext2_ext_get_block_new(struct inode *inode,
			   uint64_t lblk,
			   uint32_t *pblk,
			   bool *new)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext3_extent *ex;
	struct ext_path p;
	uint32_t blk;
	int err;

	*new = false;
	if (lblk >= EXT_MAX_BLOCKS)
		return -EFBIG;
	err = map_begin(inode, lblk, &p);
	if (err)
		goto out;
	ex = ext_covering(&p, lblk);
	if (ex) {
		bool unwritten = ext_unwritten(ex);

		blk = (uint32_t)(ext_pblk(ex) + lblk - ex->ee_block);
		ext_put(inode, &p);
		if (unwritten)
			err = ext_convert(inode, lblk, lblk + 1, false);
		if (!err) {
			*pblk = blk;
			*new = unwritten;
		}
		goto out;
	}
	blk = ext_goal(inode, &p, lblk);
	ext_put(inode, &p);
	err = ext2_new_block(inode, blk, &blk);
	if (err)
		goto out;
	err = ext_insert(inode, lblk, 1, blk, false);
	if (err) {
		ext2_free_blocks(inode, blk, 1);
		goto out;
	}
	ext_account(inode, 1);
	ei->i_goal = blk + 1;
	*pblk = blk;
	*new = true;
out:
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/**
 * ext2_ext_alloc_run - map the hole at @lblk, up to @max blocks and not
 * past the next extent, with blocks that follow one another on disk
 * Context: task, may sleep; takes i_map_lock and s_alloc_lock.
 * Return: 0 with *count blocks from *pblk (0 if @lblk is mapped), or a
 * negative errno as ext2_ext_get_block_new.
 */
int ext2_ext_alloc_run(struct inode *inode,
		       uint64_t lblk,
		       uint32_t max,
		       uint32_t *pblk,
		       uint32_t *count)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext_path p;
	uint32_t goal, first, n;
	uint64_t want;
	int err;

	*count = 0;
	if (lblk >= EXT_MAX_BLOCKS)
		return -EFBIG;
	err = map_begin(inode, lblk, &p);
	if (err)
		goto out;
	if (ext_covering(&p, lblk)) {
		ext_put(inode, &p);
		goto out;
	}
	want = MIN(MIN(p.next - lblk, (uint64_t)MAX(max, 1u)),
		   (uint64_t)EXT_INIT_MAX_LEN);
	goal = ext_goal(inode, &p, lblk);
	ext_put(inode, &p);
	err = ext2_new_blocks(inode, goal, (uint32_t)want, &first, &n);
	if (err)
		goto out;
	err = ext_insert(inode, lblk, n, first, false);
	if (err) {
		ext2_free_blocks(inode, first, n);
		goto out;
	}
	ext_account(inode, n);
	ei->i_goal = first + n;
	*pblk = first;
	*count = n;
out:
	mutex_unlock(&ei->i_map_lock);
	return err;
}

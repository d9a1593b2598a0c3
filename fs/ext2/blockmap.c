/*
 * fs/ext2/blockmap.c: the block map of an inode - logical to physical.
 *
 * i_data[0..11] map the first 12 blocks directly; i_data[12], [13] and [14]
 * point at single, double and triple indirect blocks of s_addr_per_block
 * 32-bit pointers each. A zero pointer is a hole, read as zeroes.
 *
 * Every pointer read from disk is checked against the data area
 * (ext2_data_blocks_valid): a pointer into the superblocks, descriptors,
 * bitmaps or inode tables, or past the end, is reported with the inode and
 * block and gives -EUCLEAN; it is never read through, written or freed.
 *
 * i_map_lock protects i_data[], the indirect blocks' contents, i_blocks
 * and i_goal. Allocation nests s_alloc_lock inside it.
 *
 * This is the indirect implementation of the block map (ext2_indirect_map);
 * ext2_map_run() and ext2_get_block() here are the interface, and go to
 * the inode's own map (extent.c has the other).
 *
 * This file maps one block at a time (or, for reads, a run of blocks
 * that follow each other on disk: ext2_map_run); blockmap_range.c frees and
 * allocates ranges of blocks (truncate, punch, preallocation) and
 * blockmap_shift.c moves them (collapse, insert), with the helpers
 * exported here through blockmap.h.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "blockmap.h"

uint64_t ext2_max_blocks(struct ext2_sb_info *sbi)
{
	uint64_t apb = sbi->s_addr_per_block;

	return EXT2_NDIR + apb + apb * apb + apb * apb * apb;
}

int ext2_block_path(struct ext2_sb_info *sbi, uint64_t lblk, uint32_t offs[4])
{
	uint64_t apb = sbi->s_addr_per_block, mask = apb - 1;
	unsigned int bits = sbi->s_addr_bits;

	if (lblk < EXT2_NDIR) {
		offs[0] = lblk;
		return 0;
	}
	lblk -= EXT2_NDIR;
	if (lblk < apb) {
		offs[0] = EXT2_IND_BLOCK;
		offs[1] = lblk;
		return 1;
	}
	lblk -= apb;
	if (lblk < apb * apb) {
		offs[0] = EXT2_DIND_BLOCK;
		offs[1] = lblk >> bits;
		offs[2] = lblk & mask;
		return 2;
	}
	lblk -= apb * apb;
	if (lblk < apb * apb * apb) {
		offs[0] = EXT2_TIND_BLOCK;
		offs[1] = lblk >> (2 * bits);
		offs[2] = (lblk >> bits) & mask;
		offs[3] = lblk & mask;
		return 3;
	}
	return -EFBIG;
}

uint64_t ext2_hole_len(struct ext2_sb_info *sbi,
		       const uint32_t offs[4],
		       int depth,
		       int k)
{
	uint64_t len = 1;

	for (int i = depth; i > k; i--) {
		len += (uint64_t)(sbi->s_addr_per_block - 1 - offs[i]) *
		       ((uint64_t)1 << (sbi->s_addr_bits * (depth - i)));
	}
	return len;
}

bool ext2_check_ptr(struct inode *inode, uint32_t blk, uint64_t lblk)
{
	if (ext2_data_blocks_valid(EXT2_SBI(inode->i_sb), blk, 1))
		return true;
	pr_err("ext2: inode %lu: block %u (logical %llu) is outside the data "
	       "area\n",
	       inode->i_ino,
	       blk,
	       (unsigned long long)lblk);
	return false;
}

int ext2_alloc_slot(struct inode *inode,
		    uint32_t *slot,
		    struct ext2_buf *holder,
		    bool indirect,
		    uint32_t *out)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint32_t blk;
	int err;

	err = ext2_new_block(inode, ei->i_goal, &blk);
	if (err)
		return err;
	if (indirect) {
		struct ext2_buf *b = ext2_bget_new(sbi, blk);

		if (IS_ERR(b)) {
			ext2_free_blocks(inode, blk, 1);
			return PTR_ERR(b);
		}
		ext2_bmark_dirty(b);
		ext2_brelse(sbi, b);
	}
	*slot = blk;
	if (holder)
		ext2_bmark_dirty(holder);
	inode->i_blocks += inode->i_sb->s_blocksize >> 9;
	ei->i_goal = blk + 1;
	mark_inode_dirty(inode);
	*out = blk;
	return 0;
}

int ext2_alloc_run(struct inode *inode,
		   uint64_t lblk,
		   uint32_t max,
		   uint32_t *pblk,
		   uint32_t *count)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint32_t holes = 0, first = 0, n = 0;
	struct slot_ref ref;
	uint64_t skip;
	int err;

	if (ext2_has_extents(inode))
		return ext2_ext_alloc_run(inode, lblk, max, pblk, count);
	*count = 0;
	err = ext2_map_writable(inode);
	if (err)
		return err;
	__atomic_fetch_add(
	    &EXT2_SBI(inode->i_sb)->s_alloc_walks, 1, __ATOMIC_RELAXED);
	mutex_lock(&ei->i_map_lock);
	err = ext2_find_slot(inode, lblk, true, &ref, &skip);
	if (err)
		goto out;
	while (holes < MIN(ref.left, max) && !ref.slot[holes])
		holes++;
	if (holes)
		err = ext2_new_blocks(inode, ei->i_goal, holes, &first, &n);
	if (!err && n) {
		for (uint32_t i = 0; i < n; i++)
			ref.slot[i] = first + i;
		ext2_slot_dirty(inode, &ref);
		inode->i_blocks +=
		    (uint64_t)n * (inode->i_sb->s_blocksize >> 9);
		ei->i_goal = first + n;
		mark_inode_dirty(inode);
		*pblk = first;
		*count = n;
	}
	ext2_brelse(EXT2_SBI(inode->i_sb), ref.holder);
out:
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/* How many pointers from @slot[0] (block @blk, checked) on name blocks
 * that follow it on disk, of the @left in its pointer block, at most
 * @max, all in the data area (a bad one ends the run; its own look-up
 * reports it). */
static uint32_t run_len(struct inode *inode,
			const uint32_t *slot,
			uint32_t left,
			uint32_t max,
			uint32_t blk)
{
	uint32_t lim =
	    ext2_data_run(EXT2_SBI(inode->i_sb), blk, MIN(left, max));
	uint32_t n = 1;

	while (n < lim && slot[n] == blk + n)
		n++;
	return n;
}

/* ext2_get_block; with @create, *new says whether the data block was
 * allocated by this call; with @run, *run is how many blocks from @lblk
 * on (at most @max_run) lie one after the other on disk. */
static int get_block(struct inode *inode,
		     uint64_t lblk,
		     bool create,
		     uint32_t *pblk,
		     uint64_t *hole,
		     bool *new,
		     uint32_t max_run,
		     uint32_t *run)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext2_buf *holder = NULL;
	uint32_t offs[4], *slot, blk = 0;
	int depth = ext2_block_path(sbi, lblk, offs), err = 0;

	*pblk = 0;
	if (depth < 0)
		return create ? -EFBIG : (*hole = 1, 0);
	if (create)
		__atomic_fetch_add(&sbi->s_alloc_walks, 1, __ATOMIC_RELAXED);
	mutex_lock(&ei->i_map_lock);
	slot = &ei->i_data[offs[0]];
	for (int k = 0; k <= depth; k++) {
		blk = *slot;
		if (!blk) {
			if (!create) {
				if (hole)
					*hole =
					    ext2_hole_len(sbi, offs, depth, k);
				goto out;
			}
			err = ext2_alloc_slot(
			    inode, slot, holder, k < depth, &blk);
			if (err)
				goto out;
			if (k == depth && new)
				*new = true;
		} else if (!ext2_check_ptr(inode, blk, lblk)) {
			err = -EUCLEAN;
			goto out;
		}
		if (k == depth) {
			if (run)
				*run = run_len(inode,
					       slot,
					       (depth ? sbi->s_addr_per_block
						      : EXT2_NDIR) -
						   offs[depth],
					       max_run,
					       blk);
			break;
		}
		ext2_brelse(sbi, holder);
		holder = ext2_bread(sbi, blk);
		if (IS_ERR(holder)) {
			err = PTR_ERR(holder);
			holder = NULL;
			goto out;
		}
		slot = (uint32_t *)holder->b_data + offs[k + 1];
	}
	*pblk = blk;
out:
	ext2_brelse(sbi, holder);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

static int indirect_map_run(struct inode *inode,
			    uint64_t lblk,
			    uint32_t max,
			    uint32_t *pblk,
			    uint64_t *len)
{
	uint32_t run = 1;
	int err =
	    get_block(inode, lblk, false, pblk, len, NULL, MAX(max, 1u), &run);

	if (!err && *pblk)
		*len = run;
	return err;
}

const struct ext2_map_ops ext2_indirect_map = {
	.name = "indirect",
	.map_run = indirect_map_run,
	.max_blocks = ext2_max_blocks,
	.writable = true,
};

uint64_t ext2_inode_max_blocks(struct inode *inode)
{
	return EXT2_I(inode)->i_map->max_blocks(EXT2_SBI(inode->i_sb));
}

int ext2_map_writable(struct inode *inode)
{
	if (WARN_ON_ONCE(!EXT2_I(inode)->i_map->writable))
		return -EROFS;
	return 0;
}

/**
 * ext2_get_block - map (and with @create, allocate) logical block @lblk
 * Context: task, may sleep; takes i_map_lock (and s_alloc_lock).
 * Return: see ext2.h.
 */
int ext2_get_block(struct inode *inode,
		   uint64_t lblk,
		   bool create,
		   uint32_t *pblk,
		   uint64_t *hole)
{
	uint64_t len;
	int err;

	if (create && ext2_has_extents(inode)) {
		bool new;

		return ext2_ext_get_block_new(inode, lblk, pblk, &new);
	}
	if (create) {
		err = ext2_map_writable(inode);
		return err ? err
			   : get_block(
				 inode, lblk, true, pblk, hole, NULL, 0, NULL);
	}
	err = ext2_map_run(inode, lblk, 1, pblk, &len);
	if (!err && !*pblk && hole)
		*hole = len;
	return err;
}

/**
 * ext2_map_run - map logical block @lblk for reading, with the run of
 * blocks that follow it on disk: one walk of the map for a whole run,
 * through the inode's map (indirect blocks or extents).
 * Context: task, may sleep; takes i_map_lock.
 * Return: 0 with *pblk and *len blocks from @lblk on at *pblk.. (at most
 * @max), or a hole: *pblk 0 and *len blocks unmapped; or a negative
 * errno as ext2_get_block.
 */
int ext2_map_run(struct inode *inode,
		 uint64_t lblk,
		 uint32_t max,
		 uint32_t *pblk,
		 uint64_t *len)
{
	return EXT2_I(inode)->i_map->map_run(inode, lblk, max, pblk, len);
}

/**
 * ext2_get_block_new - map logical block @lblk, allocating it if it is a
 * hole; *new says whether it was.
 * Context: task, may sleep; takes i_map_lock and s_alloc_lock.
 * Return: 0, -ENOSPC, -EFBIG, -EIO or -EUCLEAN.
 */
int ext2_get_block_new(struct inode *inode,
		       uint64_t lblk,
		       uint32_t *pblk,
		       bool *new)
{
	int err;

	if (ext2_has_extents(inode))
		return ext2_ext_get_block_new(inode, lblk, pblk, new);
	err = ext2_map_writable(inode);
	*new = false;
	return err ? err
		   : get_block(inode, lblk, true, pblk, NULL, new, 0, NULL);
}

int ext2_run_map(struct inode *inode,
		 struct ext2_run_cursor *c,
		 uint64_t lblk,
		 uint32_t *pblk)
{
	if (lblk < c->lblk || lblk >= c->lblk + c->len) {
		uint64_t len;
		int err = ext2_map_run(
		    inode,
		    lblk,
		    (uint32_t)MIN(c->last - lblk + 1, (uint64_t)UINT32_MAX),
		    &c->pblk,
		    &len);

		c->walks++;
		if (err) {
			c->len = 0;
			return err;
		}
		c->lblk = lblk;
		c->len = len;
	}
	*pblk = c->pblk ? c->pblk + (uint32_t)(lblk - c->lblk) : 0;
	return 0;
}

/*
 * fs/ext2/blockmap_range.c: ranges of an inode's block map.
 *
 *   ext2_free_range       free logical blocks [first, end) and every
 *                         indirect block left empty (punch; truncate is
 *                         [size, max))
 *   ext2_alloc_range      map every block of a range, new blocks zeroed
 *                         on disk (preallocation, zero range)
 * and the walking helpers blockmap_shift.c's collapse and insert share
 * (blockmap.h).
 *
 * ext2 has no unwritten extents: a preallocated block is an ordinary
 * block, so it is written with zeroes before anything can read it. It is
 * mapped first and zeroed after (a run at a time), and nothing may look
 * the map up in between: the caller holds invalidate_lock exclusive, so no
 * fill inserts a page meanwhile, and has waited for the pages that fills
 * inserted before (filemap_wait_fills: they map their blocks under their
 * page locks alone). tests/race_prealloc_test.c forces both orders.
 *
 * Caller holds i_rwsem exclusive and invalidate_lock exclusive, the page
 * cache of the range already dropped (preallocation may keep the pages
 * over holes: they hold zeroes, as the new blocks will), or owns the
 * inode (eviction). Each function takes i_map_lock, which protects the
 * map and i_blocks.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include "blockmap.h"

#define ZERO_BUF_SIZE (64 * 1024) /* zeroes written per request */

void ext2_slot_dirty(struct inode *inode, struct slot_ref *ref)
{
	if (ref->holder)
		ext2_bmark_dirty(ref->holder);
	else
		mark_inode_dirty(inode);
}

/*
 * Walk to @lblk's slot. With @create, missing indirect blocks on the way
 * are allocated (never the data block); without, a missing one gives
 * -ENOENT and *skip, the blocks from @lblk on that its branch covers.
 * Caller holds i_map_lock.
 */
int ext2_find_slot(struct inode *inode,
		   uint64_t lblk,
		   bool create,
		   struct slot_ref *ref,
		   uint64_t *skip)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_buf *holder = NULL;
	uint32_t offs[4], *slot;
	int depth = ext2_block_path(sbi, lblk, offs), err;

	DEBUG_ASSERT(mutex_is_locked(&EXT2_I(inode)->i_map_lock));
	if (depth < 0)
		return depth;
	slot = &EXT2_I(inode)->i_data[offs[0]];
	for (int k = 0; k < depth; k++) {
		uint32_t blk = *slot;

		if (!blk && !create) {
			*skip = ext2_hole_len(sbi, offs, depth, k);
			err = -ENOENT;
			goto fail;
		}
		if (!blk) {
			err = ext2_alloc_slot(inode, slot, holder, true, &blk);
			if (err)
				goto fail;
		} else if (!ext2_check_ptr(inode, blk, lblk)) {
			err = -EUCLEAN;
			goto fail;
		}
		ext2_brelse(sbi, holder);
		holder = ext2_bread(sbi, blk);
		if (IS_ERR(holder))
			return PTR_ERR(holder);
		slot = (uint32_t *)holder->b_data + offs[k + 1];
	}
	ref->slot = slot;
	ref->holder = holder;
	ref->left =
	    depth ? sbi->s_addr_per_block - offs[depth] : EXT2_NDIR - offs[0];
	return 0;
fail:
	ext2_brelse(sbi, holder);
	return err;
}

int ext2_runs_add(struct runs *r, uint64_t lblk)
{
	if (r->nr && r->v[r->nr - 1].start + r->v[r->nr - 1].len == lblk) {
		r->v[r->nr - 1].len++;
		return 0;
	}
	if (r->nr == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct run *v = krealloc(r->v, cap * sizeof(*v), GFP_KERNEL);

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->nr++] = (struct run){ lblk, 1 };
	return 0;
}

/* The mapped blocks in [@lblk, @end) as runs. Caller holds i_map_lock. */
int ext2_collect_runs(struct inode *inode,
		      uint64_t lblk,
		      uint64_t end,
		      struct runs *r)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct slot_ref ref;
	int err = 0;

	while (lblk < end && !err) {
		uint64_t skip = 1;

		err = ext2_find_slot(inode, lblk, false, &ref, &skip);
		if (err == -ENOENT) {
			lblk += skip;
			err = 0;
			continue;
		}
		if (err)
			break;
		for (uint32_t i = 0; !err && i < ref.left && lblk < end;
		     i++, lblk++) {
			if (!ref.slot[i])
				continue;
			if (!ext2_check_ptr(inode, ref.slot[i], lblk))
				err = -EUCLEAN;
			else
				err = ext2_runs_add(r, lblk);
		}
		ext2_brelse(sbi, ref.holder);
	}
	return err;
}

static void
free_slot(struct inode *inode, uint32_t *slot, struct ext2_buf *holder)
{
	ext2_free_blocks(inode, *slot, 1);
	inode->i_blocks -= inode->i_sb->s_blocksize >> 9;
	*slot = 0;
	if (holder)
		ext2_bmark_dirty(holder);
	else
		mark_inode_dirty(inode);
}

/*
 * Free the data blocks that @slots[@from, @to) name (@slots[0] maps
 * logical block @base; @holder holds them, or NULL for i_data), a run of
 * blocks that follow each other on disk per ext2_free_blocks call. A
 * pointer outside the data area is left as it is: -EUCLEAN.
 */
static int free_data_slots(struct inode *inode,
			   uint32_t *slots,
			   struct ext2_buf *holder,
			   uint64_t base,
			   uint32_t from,
			   uint32_t to)
{
	uint64_t sectors = inode->i_sb->s_blocksize >> 9;
	uint32_t i = from, n;
	bool freed = false;
	int err = 0;

	for (; i < to; i += n ? n : 1) {
		uint32_t first = slots[i];

		n = 0;
		if (!first)
			continue;
		while (i + n < to && slots[i + n] == first + n &&
		       ext2_check_ptr(inode, first + n, base + i + n))
			n++;
		if (!n) {
			err = -EUCLEAN;
			continue;
		}
		ext2_free_blocks(inode, first, n);
		inode->i_blocks -= n * sectors;
		memset(&slots[i], 0, n * sizeof(*slots));
		freed = true;
	}
	if (freed && holder)
		ext2_bmark_dirty(holder);
	else if (freed)
		mark_inode_dirty(inode);
	return err;
}

static bool all_zero(const uint32_t *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (v[i])
			return false;
	}
	return true;
}

/*
 * In the subtree at *slot (@depth levels of indirection below it; 0: a
 * data block), which maps logical blocks from @base on, free what @what
 * says in [@from, @to) (relative to @base).
 */
static int free_branch(struct inode *inode,
		       uint32_t *slot,
		       struct ext2_buf *holder,
		       int depth,
		       uint64_t base,
		       uint64_t from,
		       uint64_t to,
		       int what)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	uint64_t span;
	struct ext2_buf *b;
	bool empty;
	int err = 0;

	if (!*slot)
		return 0;
	if (!ext2_check_ptr(inode, *slot, base + from))
		return -EUCLEAN;
	if (depth == 0) {
		if (what & FREE_DATA)
			free_slot(inode, slot, holder);
		return 0;
	}
	span = (uint64_t)1 << (sbi->s_addr_bits * (depth - 1));
	b = ext2_bread(sbi, *slot);
	if (IS_ERR(b))
		return PTR_ERR(b);
	if (depth == 1 && (what & FREE_DATA)) { /* its slots name data */
		err = free_data_slots(inode,
				      (uint32_t *)b->b_data,
				      b,
				      base,
				      from,
				      MIN(to, (uint64_t)sbi->s_addr_per_block));
	} else {
		for (uint64_t i = from / span;
		     i < sbi->s_addr_per_block && i * span < to;
		     i++) {
			uint64_t lo = MAX(from, i * span),
				 hi = MIN(to, (i + 1) * span);

			err = free_branch(inode,
					  (uint32_t *)b->b_data + i,
					  b,
					  depth - 1,
					  base + i * span,
					  lo - i * span,
					  hi - i * span,
					  what)
				  ?: err;
		}
	}
	empty = all_zero(b->b_data, sbi->s_addr_per_block);
	ext2_brelse(sbi, b);
	if (empty && (what & FREE_INDIRECT))
		free_slot(inode, slot, holder);
	return err;
}

/* i_data[@i] maps [*start, *start + *span) through @depth levels. */
static int
top_slot(struct ext2_sb_info *sbi, int i, uint64_t *start, uint64_t *span)
{
	uint64_t apb = sbi->s_addr_per_block;

	*start = MIN(i, EXT2_NDIR);
	*span = 1;
	for (int d = EXT2_NDIR; d < i; d++) {
		*span *= apb;
		*start += *span;
	}
	if (i >= EXT2_NDIR)
		*span *= apb;
	return i < EXT2_NDIR ? 0 : i - EXT2_NDIR + 1;
}

/* Caller holds i_map_lock. */
int ext2_free_range_locked(struct inode *inode,
			   uint64_t first,
			   uint64_t end,
			   int what)
{
	DEBUG_ASSERT(mutex_is_locked(&EXT2_I(inode)->i_map_lock));
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err = ext2_map_writable(inode);

	if (err)
		return err;
	for (int i = 0; i < EXT2_N_BLOCKS; i++) {
		uint64_t start, span;
		int depth = top_slot(sbi, i, &start, &span);

		if (end <= start || first >= start + span)
			continue;
		err = free_branch(inode,
				  &ei->i_data[i],
				  NULL,
				  depth,
				  start,
				  MAX(first, start) - start,
				  MIN(end, start + span) - start,
				  what)
			  ?: err;
	}
	return err;
}

/**
 * ext2_free_range - free logical blocks [@first, @end) and the indirect
 * blocks that are left without a pointer
 * Context: see ext2.h; takes i_map_lock.
 * Return: 0, or the first error (the rest is still freed).
 */
int ext2_free_range(struct inode *inode, uint64_t first, uint64_t end)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	if (ext2_has_extents(inode))
		return ext2_ext_free_range(inode, first, end);
	mutex_lock(&ei->i_map_lock);
	err = ext2_free_range_locked(
	    inode, first, end, FREE_DATA | FREE_INDIRECT);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/**
 * ext2_free_empty_indirect - free the indirect blocks of logical blocks
 * [@first, @end) that map nothing (left by an allocation that failed)
 * Context: see ext2.h; takes i_map_lock.
 */
void ext2_free_empty_indirect(struct inode *inode, uint64_t first, uint64_t end)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	if (ext2_has_extents(inode))
		return; /* an extent tree frees its empty nodes itself */
	mutex_lock(&ei->i_map_lock);
	ext2_free_range_locked(inode, first, end, FREE_INDIRECT);
	mutex_unlock(&ei->i_map_lock);
}

/**
 * ext2_truncate_blocks - free every block at or past byte @size
 * Context: see ext2.h; takes i_map_lock.
 * Return: 0, or the first error (the rest is still freed).
 */
int ext2_truncate_blocks(struct inode *inode, loff_t size)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint64_t first = DIV_ROUND_UP((uint64_t)size, inode->i_sb->s_blocksize);
	int err;

	if (ext2_has_extents(inode)) {
		err = ext2_ext_free_range(
		    inode, first, ext2_inode_max_blocks(inode));
		mark_inode_dirty(inode);
		return err;
	}
	mutex_lock(&ei->i_map_lock);
	err = ext2_free_range_locked(
	    inode, first, ext2_max_blocks(sbi), FREE_DATA | FREE_INDIRECT);
	if (size == 0)
		ei->i_goal = 0;
	mutex_unlock(&ei->i_map_lock);
	mark_inode_dirty(inode);
	return err;
}

/* Write zeroes over [@pblk, @pblk + @n). */
static int zero_blocks(struct ext2_sb_info *sbi,
		       uint32_t pblk,
		       uint32_t n,
		       const void *zeros)
{
	uint32_t per = ZERO_BUF_SIZE >> sbi->s_sb->s_blocksize_bits;
	int err = 0;

	for (uint32_t done = 0; done < n && !err; done += per)
		err = ext2_write_blocks(
		    sbi, pblk + done, zeros, MIN(per, n - done));
	return err;
}

/* Blocks waiting to be zeroed: one run, contiguous on disk. */
struct zero_run {
	uint32_t pblk, n;
	void *zeros;
};

static int zero_add(struct ext2_sb_info *sbi, struct zero_run *z, uint32_t pblk)
{
	int err = 0;

	if (z->n && pblk == z->pblk + z->n) {
		z->n++;
		return 0;
	}
	if (z->n)
		err = zero_blocks(sbi, z->pblk, z->n, z->zeros);
	z->pblk = pblk;
	z->n = 1;
	return err;
}

/**
 * ext2_alloc_range - map every block of [@first, @end)
 * Each block allocated here, and each in [@zero_first, @zero_end), is
 * written with zeroes (ext2 has no unwritten extents). On an error the
 * blocks allocated here are freed again.
 * Context: see ext2.h; takes i_map_lock per block.
 * Return: 0, -ENOSPC, -EFBIG, -ENOMEM or -EIO.
 */
int ext2_alloc_range(struct inode *inode,
		     uint64_t first,
		     uint64_t end,
		     uint64_t zero_first,
		     uint64_t zero_end)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct zero_run z = { 0 };
	struct runs new = { 0 };
	int err = 0;

	if (ext2_has_extents(inode))
		return ext2_ext_alloc_range(
		    inode, first, end, zero_first, zero_end);
	z.zeros = kzalloc(ZERO_BUF_SIZE, GFP_KERNEL);
	if (!z.zeros)
		return -ENOMEM;
	for (uint64_t lblk = first; lblk < end && !err; lblk++) {
		bool is_new, zero = lblk >= zero_first && lblk < zero_end;
		uint32_t pblk;

		err = ext2_get_block_new(inode, lblk, &pblk, &is_new);
		if (!err && is_new && ext2_runs_add(&new, lblk)) {
			ext2_free_range(inode, lblk, lblk + 1);
			err = -ENOMEM;
		}
		if (!err && (is_new || zero))
			err = zero_add(sbi, &z, pblk);
	}
	if (!err && z.n) {
		race_point(RACE_ALLOC_LINKED, inode);
		err = zero_blocks(sbi, z.pblk, z.n, z.zeros);
	}
	for (size_t i = 0; err && i < new.nr; i++)
		ext2_free_range(
		    inode, new.v[i].start, new.v[i].start + new.v[i].len);
	/* An indirect block allocated for a data block that then failed
	 * is empty: free it too. */
	if (err)
		ext2_free_empty_indirect(inode, first, end);
	kfree(new.v);
	kfree(z.zeros);
	return err;
}

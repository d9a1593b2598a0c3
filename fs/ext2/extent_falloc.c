/*
 * fs/ext2/extent_falloc.c: what fallocate does to an extent tree -
 * preallocation as unwritten extents, conversion between written and
 * unwritten, and the shifts of collapse and insert.
 *
 * - Preallocation maps each hole of the range with unwritten extents
 *   (their blocks allocated, their contents never read: they read as
 *   zeroes), past EOF too; nothing is written to the disk. On an error
 *   the extents it added are removed and their blocks freed.
 * - Conversion takes the part of an extent that changes state out of the
 *   tree (without freeing it) and puts it back in the other state, where
 *   it joins a neighbour that continues it: a write into an unwritten
 *   extent makes its block written, ZERO_RANGE makes whole blocks
 *   unwritten.
 * - Collapse frees the range, then moves every extent after it down;
 *   insert cuts the extent that crosses the offset in two, then moves
 *   every extent from the offset up. A move changes each extent's first
 *   block and each index key at or past the offset, the keys set again
 *   from the nodes below them.
 *
 * Locks: the public calls take i_map_lock; ext_convert's caller holds it.
 * Their callers (falloc.c) hold i_rwsem and invalidate_lock exclusive.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include "extent.h"

/* ext_insert for any length: pieces of the longest extent. */
static int insert_long(struct inode *inode,
		       uint64_t lblk,
		       uint64_t len,
		       uint64_t pblk,
		       bool unwritten)
{
	int err = 0;

	while (len && !err) {
		uint32_t n =
		    (uint32_t)MIN(len, (uint64_t)ext_max_len(unwritten));

		err = ext_insert(inode, lblk, n, pblk, unwritten);
		lblk += n;
		pblk += n;
		len -= n;
	}
	return err;
}

int ext_convert(struct inode *inode,
		uint64_t first,
		uint64_t end,
		bool unwritten)
{
	uint64_t cur = first;
	int err = 0;

	DEBUG_ASSERT(mutex_is_locked(&EXT2_I(inode)->i_map_lock));
	while (cur < end && !err) {
		struct ext3_extent *ex;
		struct ext_path p;
		uint64_t stop, pblk;

		err = ext_find(inode, cur, &p);
		if (err)
			break;
		ex = ext_covering(&p, cur);
		if (!ex) { /* a hole: on to the next extent */
			cur = p.next;
			ext_put(inode, &p);
			continue;
		}
		stop = MIN((uint64_t)ex->ee_block + ext_len(ex), end);
		pblk = ext_pblk(ex) + (cur - ex->ee_block);
		if (ext_unwritten(ex) == unwritten) {
			ext_put(inode, &p);
			cur = stop;
			continue;
		}
		ext_put(inode, &p);
		err = ext_remove(inode, cur, stop, false);
		if (!err) {
			err = insert_long(
			    inode, cur, stop - cur, pblk, unwritten);
			if (err &&
			    insert_long(
				inode, cur, stop - cur, pblk, !unwritten))
				pr_err("ext4: inode %lu: blocks %llu+%llu lost "
				       "from the map\n",
				       inode->i_ino,
				       (unsigned long long)pblk,
				       (unsigned long long)(stop - cur));
		}
		cur = stop;
	}
	return err;
}

/* The runs a preallocation added, to take back on an error. */
struct added {
	uint64_t (*v)[2];
	size_t nr, cap;
};

static int added_push(struct added *a, uint64_t lblk, uint64_t len)
{
	if (a->nr == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		void *v = krealloc(a->v, cap * sizeof(*a->v), GFP_KERNEL);

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->nr][0] = lblk;
	a->v[a->nr][1] = len;
	a->nr++;
	return 0;
}

/* Map the holes of [@first, @end) with unwritten extents. */
static int
prealloc(struct inode *inode, uint64_t first, uint64_t end, struct added *added)
{
	uint64_t cur = first;
	int err = 0;

	while (cur < end && !err) {
		struct ext3_extent *ex;
		struct ext_path p;
		uint32_t goal, blk, n;
		uint64_t want;

		err = ext_find(inode, cur, &p);
		if (err)
			break;
		ex = ext_covering(&p, cur);
		if (ex) {
			cur = MIN((uint64_t)ex->ee_block + ext_len(ex), end);
			ext_put(inode, &p);
			continue;
		}
		want = MIN(MIN(p.next, end) - cur, (uint64_t)EXT_UNWRITTEN_MAX);
		goal = ext_goal(inode, &p, cur);
		ext_put(inode, &p);
		err = ext2_new_blocks(inode, goal, (uint32_t)want, &blk, &n);
		if (err)
			break;
		err = ext_insert(inode, cur, n, blk, true);
		if (!err)
			err = added_push(added, cur, n);
		else
			ext2_free_blocks(inode, blk, n);
		if (err)
			break;
		ext_account(inode, n);
		EXT2_I(inode)->i_goal = blk + n;
		cur += n;
	}
	return err;
}

/**
 * ext2_ext_alloc_range - ext2_alloc_range for an extent-mapped inode:
 * map the holes of [@first, @end) with unwritten extents and make the
 * mapped blocks of [@zero_first, @zero_end) unwritten (they read as
 * zeroes: no zeroes are written)
 * Context: see ext2_alloc_range; takes i_map_lock.
 * Return: 0, -ENOSPC, -EFBIG, -ENOMEM, -EIO or -EUCLEAN; on an error the
 * extents added here are gone again.
 */
int ext2_ext_alloc_range(struct inode *inode,
			 uint64_t first,
			 uint64_t end,
			 uint64_t zero_first,
			 uint64_t zero_end)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct added added = { 0 };
	int err;

	if (end > EXT_MAX_BLOCKS)
		return -EFBIG;
	mutex_lock(&ei->i_map_lock);
	err = prealloc(inode, first, end, &added);
	if (!err && MAX(first, zero_first) < MIN(end, zero_end))
		err = ext_convert(
		    inode, MAX(first, zero_first), MIN(end, zero_end), true);
	for (size_t i = 0; err && i < added.nr; i++)
		ext_remove(
		    inode, added.v[i][0], added.v[i][0] + added.v[i][1], true);
	mutex_unlock(&ei->i_map_lock);
	/* ext2's zeroing point: here nothing is left to write, the extents
	 * read as zeroes already (tests/race_prealloc_test.c). */
	if (!err)
		race_point(RACE_ALLOC_LINKED, inode);
	kfree(added.v);
	return err;
}

/* Move the entries of the node @eh (in @b, or the root) at or past @from
 * by @delta, and those of the nodes below it. */
static int shift_node(struct inode *inode,
		      struct ext3_extent_header *eh,
		      struct ext2_buf *b,
		      uint64_t from,
		      int64_t delta)
{
	bool changed = false;
	int err = 0;

	for (int i = 0; i < eh->eh_entries && !err; i++) {
		struct ext3_extent_idx *ix = &idx_first(eh)[i];
		struct ext2_buf *child;

		if (!eh->eh_depth) {
			struct ext3_extent *ex = &ext_first(eh)[i];

			if (ex->ee_block >= from) {
				ex->ee_block = (uint32_t)(ex->ee_block + delta);
				changed = true;
			}
			continue;
		}
		if (i + 1 < eh->eh_entries && ix[1].ei_block <= from)
			continue; /* all of it before @from */
		child = ext_read_node(
		    inode, idx_pblk(ix), eh->eh_depth - 1, ix->ei_block);
		if (IS_ERR(child))
			return PTR_ERR(child);
		err = shift_node(inode, child->b_data, child, from, delta);
		if (ix->ei_block != node_key(child->b_data, 0)) {
			ix->ei_block = node_key(child->b_data, 0);
			changed = true;
		}
		ext2_brelse(EXT2_SBI(inode->i_sb), child);
	}
	if (changed) {
		struct ext_path one = { .lv = { { eh, b, 0 } } };

		ext_dirty(inode, &one, 0);
	}
	return err;
}

static int shift(struct inode *inode, uint64_t from, int64_t delta)
{
	return shift_node(
	    inode, (void *)EXT2_I(inode)->i_data, NULL, from, delta);
}

/**
 * ext2_ext_collapse - free [@first, @first + @n) and move every extent
 * after it @n blocks down
 * Context: see ext2_collapse_blocks; takes i_map_lock.
 * Return: 0 or a negative errno.
 */
int ext2_ext_collapse(struct inode *inode, uint64_t first, uint64_t n)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	mutex_lock(&ei->i_map_lock);
	err = ext_remove(inode, first, first + n, true);
	if (!err)
		err = shift(inode, first + n, -(int64_t)n);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/* The block after the last mapped one (0 if none). */
static int map_end(struct inode *inode, uint64_t *end)
{
	struct ext_path p;
	int err = ext_find(inode, EXT_MAX_BLOCKS - 1, &p);
	struct ext_level *leaf;

	if (err)
		return err;
	leaf = &p.lv[p.depth];
	*end = 0;
	if (leaf->pos >= 0) {
		struct ext3_extent *ex = &ext_first(leaf->eh)[leaf->pos];

		*end = (uint64_t)ex->ee_block + ext_len(ex);
	}
	ext_put(inode, &p);
	return 0;
}

/**
 * ext2_ext_insert - move every extent at or past @first @n blocks up,
 * leaving a hole
 * Context: see ext2_insert_blocks; takes i_map_lock.
 * Return: 0; -EFBIG or -ENOSPC with the map unchanged; another errno.
 */
int ext2_ext_insert(struct inode *inode, uint64_t first, uint64_t n)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint64_t end, s = 0, e = 0, pblk = 0;
	struct ext3_extent *ex;
	struct ext_path p;
	bool uw = false;
	int err;

	mutex_lock(&ei->i_map_lock);
	err = map_end(inode, &end);
	if (!err && end + n > EXT_MAX_BLOCKS)
		err = -EFBIG;
	if (!err)
		err = ext_find(inode, first, &p);
	if (err)
		goto out;
	/* an extent across @first: cut it there, its tail moves alone */
	ex = ext_covering(&p, first);
	if (ex && ex->ee_block < first) {
		s = ex->ee_block;
		e = s + ext_len(ex);
		pblk = ext_pblk(ex);
		uw = ext_unwritten(ex);
		ext_set(ex, s, (uint32_t)(first - s), pblk, uw);
		ext_dirty(inode, &p, p.depth);
	}
	ext_put(inode, &p);
	err = shift(inode, first, (int64_t)n);
	if (!err && e)
		err = ext_insert(inode,
				 first + n,
				 (uint32_t)(e - first),
				 pblk + (first - s),
				 uw);
	if (err && e && !shift(inode, first + n, -(int64_t)n) &&
	    !ext_find(inode, s, &p)) {
		/* no room for the tail: the extent whole again */
		ex = ext_covering(&p, s);
		if (ex && ex->ee_block == s)
			ext_set(ex, s, (uint32_t)(e - s), pblk, uw);
		ext_dirty(inode, &p, p.depth);
		ext_put(inode, &p);
	}
out:
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/*
 * fs/ext2/extent_remove.c: taking ranges out of the extent tree -
 * truncate, punch, the blocks a failed write took back - and making the
 * tree smaller again.
 *
 * A range is unmapped from its end down, one extent at a time: an extent
 * inside the range loses its entry; one that crosses an end of the range
 * is trimmed (its start, length and physical start moved); one that holds
 * the whole range keeps its head and gets a new entry for its tail, the
 * one case that may need a new node (-ENOSPC then leaves the extent
 * whole). A node left without entries is freed with its index entry, up
 * the tree; an index root left empty becomes an empty leaf. Afterwards,
 * while the root holds one index entry whose node's entries fit in the
 * inode, that node moves into the root and the tree is one level lower
 * (Linux shrinks the tree the same way only to the root; e2fsck's "could
 * be shorter" is the case).
 *
 * Locks: the caller holds i_map_lock (the public calls take it).
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "extent.h"

/* The node at level @l is empty: free it and its index entry, and the
 * nodes above that this empties. */
static void drop_empty(struct inode *inode, struct ext_path *p, int l)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);

	for (; l > 0 && !p->lv[l].eh->eh_entries; l--) {
		struct ext3_extent_header *up = p->lv[l - 1].eh;
		struct ext3_extent_idx *ix = idx_first(up);
		int at = p->lv[l - 1].pos;
		uint32_t blk = p->lv[l].b->b_blocknr;

		memmove(&ix[at],
			&ix[at + 1],
			(size_t)(up->eh_entries - at - 1) * sizeof(*ix));
		up->eh_entries--;
		ext_dirty(inode, p, l - 1);
		ext2_brelse(sbi, p->lv[l].b);
		p->lv[l].b = NULL;
		ext2_free_blocks(inode, blk, 1);
		ext_account(inode, -1);
		if (at == 0)
			ext_fix_keys(inode, p, l - 1);
	}
	if (l == 0 && !p->lv[0].eh->eh_entries && p->lv[0].eh->eh_depth) {
		p->lv[0].eh->eh_depth = 0;
		mark_inode_dirty(inode);
	}
}

void ext_shrink(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext3_extent_header *root = (void *)EXT2_I(inode)->i_data;

	while (root->eh_depth && root->eh_entries == 1) {
		struct ext3_extent_idx *ix = idx_first(root);
		struct ext2_buf *b = ext_read_node(
		    inode, idx_pblk(ix), root->eh_depth - 1, ix->ei_block);
		struct ext3_extent_header *eh;
		uint32_t blk;

		if (IS_ERR(b))
			return;
		eh = b->b_data;
		if (eh->eh_entries > root->eh_max) {
			ext2_brelse(sbi, b);
			return;
		}
		blk = b->b_blocknr;
		memcpy(
		    root + 1, eh + 1, (size_t)eh->eh_entries * EXT_ENTRY_SIZE);
		root->eh_entries = eh->eh_entries;
		root->eh_depth = eh->eh_depth;
		ext2_brelse(sbi, b);
		ext2_free_blocks(inode, blk, 1);
		ext_account(inode, -1);
	}
}

/* Unmap [@a, @b) of the extent at @p's leaf position, @free it. Return:
 * 0 or a negative errno (only for a split). @p is put. */
static int
cut(struct inode *inode, struct ext_path *p, uint64_t a, uint64_t b, bool free)
{
	int d = p->depth, i = p->lv[d].pos;
	struct ext3_extent_header *eh = p->lv[d].eh;
	struct ext3_extent *ex = &ext_first(eh)[i];
	uint64_t s = ex->ee_block, e = s + ext_len(ex), pb = ext_pblk(ex);
	bool uw = ext_unwritten(ex);
	int err = 0;

	if (a > s) { /* the head stays */
		ext_set(ex, s, (uint32_t)(a - s), pb, uw);
		ext_dirty(inode, p, d);
	} else if (b < e) { /* the tail stays */
		ext_set(ex, b, (uint32_t)(e - b), pb + (b - s), uw);
		ext_dirty(inode, p, d);
		if (i == 0)
			ext_fix_keys(inode, p, d);
	} else {
		memmove(
		    ex, ex + 1, (size_t)(eh->eh_entries - i - 1) * sizeof(*ex));
		eh->eh_entries--;
		ext_dirty(inode, p, d);
		if (!eh->eh_entries)
			drop_empty(inode, p, d);
		else if (i == 0)
			ext_fix_keys(inode, p, d);
	}
	ext_put(inode, p);
	if (a > s && b < e) { /* and the tail too: an entry of its own */
		err = ext_insert(inode, b, (uint32_t)(e - b), pb + (b - s), uw);
		if (err) {
			struct ext_path q;

			/* give the head back its tail: the extent as it was */
			if (!ext_find(inode, s, &q)) {
				struct ext3_extent *h = ext_covering(&q, s);

				if (h && h->ee_block == s) {
					ext_set(
					    h, s, (uint32_t)(e - s), pb, uw);
					ext_dirty(inode, &q, q.depth);
				}
				ext_put(inode, &q);
			}
			return err;
		}
	}
	if (free) {
		ext2_free_blocks(
		    inode, (uint32_t)(pb + (a - s)), (uint32_t)(b - a));
		ext_account(inode, -(int64_t)(b - a));
	}
	return 0;
}

int ext_remove(struct inode *inode, uint64_t first, uint64_t end, bool free)
{
	uint64_t cur = MIN(end, (uint64_t)EXT_MAX_BLOCKS);
	int err = 0;

	DEBUG_ASSERT(mutex_is_locked(&EXT2_I(inode)->i_map_lock));
	while (cur > first) {
		struct ext_path p;
		struct ext3_extent *ex;
		int d;

		err = ext_find(inode, cur - 1, &p);
		if (err)
			break;
		d = p.depth;
		if (p.lv[d].pos < 0) {
			/* nothing in this leaf before @cur: the leaves before
			 * it, if its key is not the tree's first */
			uint64_t key =
			    d ? idx_first(p.lv[d - 1].eh)[p.lv[d - 1].pos]
				    .ei_block
			      : 0;

			ext_put(inode, &p);
			if (!d || key >= cur || key == 0)
				break;
			cur = key;
			continue;
		}
		ex = &ext_first(p.lv[d].eh)[p.lv[d].pos];
		if ((uint64_t)ex->ee_block + ext_len(ex) <= first) {
			ext_put(inode, &p);
			break;
		}
		{
			uint64_t a = MAX((uint64_t)ex->ee_block, first);
			uint64_t b =
			    MIN((uint64_t)ex->ee_block + ext_len(ex), cur);

			err = cut(inode, &p, a, b, free);
			if (err)
				break;
			cur = a;
		}
	}
	ext_shrink(inode);
	return err;
}

/**
 * ext2_ext_free_range - free logical blocks [@first, @end) of an
 * extent-mapped inode
 * Context: see ext2_free_range; takes i_map_lock.
 * Return: 0 or a negative errno.
 */
int ext2_ext_free_range(struct inode *inode, uint64_t first, uint64_t end)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	mutex_lock(&ei->i_map_lock);
	err = ext_remove(inode, first, end, true);
	if (!first)
		ei->i_goal = 0;
	mutex_unlock(&ei->i_map_lock);
	return err;
}

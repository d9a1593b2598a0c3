/*
 * fs/ext2/extent_insert.c: adding extents to the tree (extent_map.c maps
 * new blocks for writes through it).
 *
 * An extent goes into the leaf that holds the block before it. It joins
 * the extent before or after it when it continues that one on disk and
 * has the same state (written or unwritten) and the sum fits one extent
 * (32768 blocks written, 32767 unwritten); else it takes a new entry.
 * A full leaf is split first: the lowest full node whose parent has room
 * moves its upper half (only its last entry, when the new one goes past
 * its end, as an append does) into a new block, whose index entry goes
 * into the parent; when every node up to the root is full, the root's
 * entries move into a new block and the root becomes an index of that one
 * block, one level deeper. Each split or growth is done on its own and
 * the path looked up again, until the leaf has room. A new node's block
 * is allocated before anything changes, so -ENOSPC leaves a valid tree.
 *
 * Every block of the tree and of the data counts in i_blocks. With
 * metadata_csum a node block's tail holds crc32c(inode seed, header and
 * eh_max entries), set whenever the node is dirtied.
 *
 * Locks: the caller holds i_map_lock; allocation takes s_alloc_lock.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "extent.h"

void ext_put(struct inode *inode, struct ext_path *p)
{
	for (int l = 1; l <= p->depth; l++) {
		ext2_brelse(EXT2_SBI(inode->i_sb), p->lv[l].b);
		p->lv[l].b = NULL;
	}
}

int ext_find(struct inode *inode, uint64_t lblk, struct ext_path *p)
{
	struct ext3_extent_header *root = (void *)EXT2_I(inode)->i_data;
	struct ext3_extent_header *eh;
	int i;

	memset(p, 0, sizeof(*p));
	p->depth = root->eh_depth;
	p->next = EXT_MAX_BLOCKS;
	p->lv[0].eh = root;
	if (p->depth && !root->eh_entries) {
		/* an index root left empty: an empty leaf is the same */
		root->eh_depth = 0;
		p->depth = 0;
		mark_inode_dirty(inode);
	}
	for (int l = 0; l < p->depth; l++) {
		struct ext3_extent_idx *ix;
		struct ext2_buf *b;

		eh = p->lv[l].eh;
		i = ext_last_at_or_before(
		    eh + 1, eh->eh_entries, EXT_ENTRY_SIZE, lblk);
		if (i < 0)
			i = 0; /* before the first key: its node gets it */
		if (i + 1 < eh->eh_entries)
			p->next = MIN(p->next, (uint64_t)node_key(eh, i + 1));
		p->lv[l].pos = i;
		ix = &idx_first(eh)[i];
		b = ext_read_node(
		    inode, idx_pblk(ix), p->depth - l - 1, ix->ei_block);
		if (IS_ERR(b)) {
			p->depth = l;
			ext_put(inode, p);
			return PTR_ERR(b);
		}
		p->lv[l + 1].b = b;
		p->lv[l + 1].eh = b->b_data;
	}
	eh = p->lv[p->depth].eh;
	i = ext_last_at_or_before(eh + 1, eh->eh_entries, EXT_ENTRY_SIZE, lblk);
	if (i + 1 < eh->eh_entries)
		p->next = MIN(p->next, (uint64_t)node_key(eh, i + 1));
	p->lv[p->depth].pos = i;
	return 0;
}

/* metadata_csum: the node block's tail after its eh_max entries. */
static void set_tail(struct inode *inode, void *block)
{
	struct ext3_extent_header *eh = block;
	size_t tail = sizeof(*eh) + (size_t)eh->eh_max * EXT_ENTRY_SIZE;
	uint32_t crc;

	if (!EXT2_SBI(inode->i_sb)->s_csum ||
	    tail + sizeof(crc) > inode->i_sb->s_blocksize)
		return;
	crc = ext2_crc32c(EXT2_I(inode)->i_csum_seed, block, tail);
	memcpy((char *)block + tail, &crc, sizeof(crc));
}

static void dirty_block(struct inode *inode, struct ext2_buf *b)
{
	set_tail(inode, b->b_data);
	ext2_bmark_dirty(b);
}

void ext_dirty(struct inode *inode, struct ext_path *p, int l)
{
	if (p->lv[l].b)
		dirty_block(inode, p->lv[l].b);
	else
		mark_inode_dirty(inode);
}

void ext_fix_keys(struct inode *inode, struct ext_path *p, int l)
{
	for (; l > 0; l--) {
		struct ext3_extent_idx *ix =
		    &idx_first(p->lv[l - 1].eh)[p->lv[l - 1].pos];

		if (!p->lv[l].eh->eh_entries ||
		    ix->ei_block == node_key(p->lv[l].eh, 0))
			return;
		ix->ei_block = node_key(p->lv[l].eh, 0);
		ext_dirty(inode, p, l - 1);
		if (p->lv[l - 1].pos)
			return;
	}
}

struct ext3_extent *ext_covering(struct ext_path *p, uint64_t lblk)
{
	struct ext_level *leaf = &p->lv[p->depth];
	struct ext3_extent *ex;

	if (leaf->pos < 0)
		return NULL;
	ex = &ext_first(leaf->eh)[leaf->pos];
	return lblk < (uint64_t)ex->ee_block + ext_len(ex) ? ex : NULL;
}

void ext_account(struct inode *inode, int64_t n)
{
	inode->i_blocks += n * (int64_t)(inode->i_sb->s_blocksize >> 9);
	mark_inode_dirty(inode);
}

uint32_t ext_goal(struct inode *inode, struct ext_path *p, uint64_t lblk)
{
	struct ext_level *leaf = &p->lv[p->depth];
	uint64_t goal;

	if (leaf->pos < 0)
		return EXT2_I(inode)->i_goal;
	goal = ext_pblk(&ext_first(leaf->eh)[leaf->pos]) + lblk -
	       ext_first(leaf->eh)[leaf->pos].ee_block;
	return goal < EXT2_SBI(inode->i_sb)->s_blocks_count
		   ? (uint32_t)goal
		   : EXT2_I(inode)->i_goal;
}

/* A new, empty node block at tree depth @depth. */
static struct ext2_buf *new_node(struct inode *inode, int depth)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext3_extent_header *eh;
	struct ext2_buf *b;
	uint32_t blk;
	int err = ext2_new_block(inode, EXT2_I(inode)->i_goal, &blk);

	if (err)
		return ERR_PTR(err);
	b = ext2_bget_new(sbi, blk);
	if (IS_ERR(b)) {
		ext2_free_blocks(inode, blk, 1);
		return b;
	}
	memset(b->b_data, 0, inode->i_sb->s_blocksize);
	eh = b->b_data;
	eh->eh_magic = EXT3_EXT_MAGIC;
	eh->eh_max = (inode->i_sb->s_blocksize - sizeof(*eh)) / EXT_ENTRY_SIZE;
	eh->eh_depth = depth;
	__atomic_store_n(&b->b_csum_ok, true, __ATOMIC_RELEASE);
	ext_account(inode, 1);
	return b;
}

static void set_idx(struct ext3_extent_idx *ix, uint32_t key, uint32_t blk)
{
	ix->ei_block = key;
	ix->ei_leaf = blk;
	ix->ei_leaf_hi = 0;
	ix->ei_unused = 0;
}

/* Every node on the path is full: move the root's entries into a new
 * block, the root becoming its index, one level deeper. */
static int grow_root(struct inode *inode, struct ext_path *p)
{
	struct ext3_extent_header *root = p->lv[0].eh, *eh;
	struct ext2_buf *b;

	if (root->eh_depth >= EXT_MAX_DEPTH)
		return -EFBIG;
	b = new_node(inode, root->eh_depth);
	if (IS_ERR(b))
		return PTR_ERR(b);
	eh = b->b_data;
	memcpy(eh + 1, root + 1, (size_t)root->eh_entries * EXT_ENTRY_SIZE);
	eh->eh_entries = root->eh_entries;
	dirty_block(inode, b);
	set_idx(idx_first(root), node_key(eh, 0), b->b_blocknr);
	root->eh_entries = 1;
	root->eh_depth++;
	mark_inode_dirty(inode);
	ext2_brelse(EXT2_SBI(inode->i_sb), b);
	return 0;
}

/* Split the full node at level @l (> 0) whose parent has room. */
static int split(struct inode *inode, struct ext_path *p, int l)
{
	struct ext3_extent_header *eh = p->lv[l].eh, *up = p->lv[l - 1].eh;
	int n = eh->eh_entries, m = p->lv[l].pos == n - 1 ? 1 : n / 2;
	int at = p->lv[l - 1].pos + 1;
	struct ext3_extent_idx *ix = idx_first(up);
	struct ext3_extent_header *nh;
	struct ext2_buf *b = new_node(inode, eh->eh_depth);

	if (IS_ERR(b))
		return PTR_ERR(b);
	nh = b->b_data;
	memcpy(nh + 1,
	       (char *)(eh + 1) + (size_t)(n - m) * EXT_ENTRY_SIZE,
	       (size_t)m * EXT_ENTRY_SIZE);
	nh->eh_entries = m;
	dirty_block(inode, b);
	eh->eh_entries = n - m;
	ext_dirty(inode, p, l);
	memmove(
	    &ix[at + 1], &ix[at], (size_t)(up->eh_entries - at) * sizeof(*ix));
	set_idx(&ix[at], node_key(nh, 0), b->b_blocknr);
	up->eh_entries++;
	ext_dirty(inode, p, l - 1);
	ext2_brelse(EXT2_SBI(inode->i_sb), b);
	return 0;
}

/* The leaf is full: split the lowest full node below one with room, or
 * grow the tree. */
static int make_room(struct inode *inode, struct ext_path *p)
{
	for (int l = p->depth - 1; l >= 0; l--) {
		if (p->lv[l].eh->eh_entries < p->lv[l].eh->eh_max)
			return split(inode, p, l + 1);
	}
	return grow_root(inode, p);
}

/* Does [@lblk, +...) at @pblk continue @ex on disk, in the same state? */
static bool continues(const struct ext3_extent *ex,
		      uint64_t lblk,
		      uint64_t pblk,
		      bool unwritten)
{
	return ext_unwritten(ex) == unwritten &&
	       (uint64_t)ex->ee_block + ext_len(ex) == lblk &&
	       ext_pblk(ex) + ext_len(ex) == pblk;
}

/* Put the extent into @p's leaf. Return: 0, or 1 if the leaf is full. */
static int put_in_leaf(struct inode *inode,
		       struct ext_path *p,
		       uint64_t lblk,
		       uint32_t len,
		       uint64_t pblk,
		       bool unwritten)
{
	struct ext3_extent_header *eh = p->lv[p->depth].eh;
	struct ext3_extent *ex = ext_first(eh);
	int i = p->lv[p->depth].pos, n = eh->eh_entries;
	uint32_t max = ext_max_len(unwritten);

	if (i >= 0 && continues(&ex[i], lblk, pblk, unwritten) &&
	    ext_len(&ex[i]) + len <= max) {
		ext_set(&ex[i],
			ex[i].ee_block,
			ext_len(&ex[i]) + len,
			ext_pblk(&ex[i]),
			unwritten);
		/* the hole between two extents filled: one extent */
		if (i + 1 < n &&
		    continues(&ex[i],
			      ex[i + 1].ee_block,
			      ext_pblk(&ex[i + 1]),
			      ext_unwritten(&ex[i + 1])) &&
		    ext_len(&ex[i]) + ext_len(&ex[i + 1]) <= max) {
			ext_set(&ex[i],
				ex[i].ee_block,
				ext_len(&ex[i]) + ext_len(&ex[i + 1]),
				ext_pblk(&ex[i]),
				unwritten);
			memmove(&ex[i + 1],
				&ex[i + 2],
				(size_t)(n - i - 2) * sizeof(*ex));
			eh->eh_entries--;
		}
		ext_dirty(inode, p, p->depth);
		return 0;
	}
	if (i + 1 < n && lblk + len == ex[i + 1].ee_block &&
	    pblk + len == ext_pblk(&ex[i + 1]) &&
	    ext_unwritten(&ex[i + 1]) == unwritten &&
	    len + ext_len(&ex[i + 1]) <= max) {
		ext_set(&ex[i + 1],
			lblk,
			len + ext_len(&ex[i + 1]),
			pblk,
			unwritten);
	} else {
		if (n >= eh->eh_max)
			return 1;
		memmove(
		    &ex[i + 2], &ex[i + 1], (size_t)(n - i - 1) * sizeof(*ex));
		ext_set(&ex[i + 1], lblk, len, pblk, unwritten);
		eh->eh_entries++;
	}
	ext_dirty(inode, p, p->depth);
	if (i + 1 == 0)
		ext_fix_keys(inode, p, p->depth);
	return 0;
}

int ext_insert(struct inode *inode,
	       uint64_t lblk,
	       uint32_t len,
	       uint64_t pblk,
	       bool unwritten)
{
	DEBUG_ASSERT(mutex_is_locked(&EXT2_I(inode)->i_map_lock));
	if (!len || len > ext_max_len(unwritten))
		return -EINVAL;
	if (lblk + len > EXT_MAX_BLOCKS)
		return -EFBIG;
	/* each round splits one node or grows the root */
	for (int round = 0; round < 2 * EXT_MAX_DEPTH + 4; round++) {
		struct ext_path p;
		int err = ext_find(inode, lblk, &p);

		if (err)
			return err;
		err = put_in_leaf(inode, &p, lblk, len, pblk, unwritten);
		if (err == 1)
			err = make_room(inode, &p) ?: 1;
		ext_put(inode, &p);
		if (err <= 0)
			return err;
	}
	pr_err("ext4: inode %lu: no room made for logical block %llu\n",
	       inode->i_ino,
	       (unsigned long long)lblk);
	return -EUCLEAN;
}

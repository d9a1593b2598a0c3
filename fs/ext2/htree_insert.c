/*
 * fs/ext2/htree_insert.c: adding a name to a hashed directory so that its
 * htree stays valid; making a directory hashed; un-indexing one.
 *
 * An insert walks the index as a look-up does (htree.c) and adds the name
 * to the leaf its hash leads to. When that leaf is full, one step grows
 * the tree (htree_split.c): the leaf splits; or, when the index block
 * that would take the new leaf's entry is full, that block splits (a
 * node) or the tree gains its second level (the root). Then the insert
 * starts again from the root: each step leaves the leaf it finds with
 * room, so a few rounds always end. With both levels full (ext4 without
 * largedir allows no third) the insert fails with ENOSPC, as Linux's.
 *
 * A linear directory whose one block is full becomes hashed, as ext4
 * makes it (make_indexed_dir): its entries move to a new block 1, which
 * the new root's single entry names; the insert then splits block 1.
 *
 * A directory whose index cannot be used (on the ext2 type, which keeps
 * no htree; or an index reported as untrusted) loses it, which e2fsck
 * and Linux accept: EXT2_INDEX_FL is cleared and, with metadata_csum,
 * the index blocks are rewritten as the empty leaves they read as (the
 * root keeps "." and "..", each with a checksum tail), since a leaf
 * without a tail fails its checksum. The name then goes in linearly.
 *
 * Caller holds the directory's i_rwsem exclusive.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"
#include "htree.h"

#define DX_INSERT_ROUNDS 4 /* leaf split, node split or growth, leaf split */

bool ext2_dx_can_index(struct inode *dir)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);

	return sbi->s_ext4 &&
	       (sbi->s_es.s_feature_compat & EXT2_FEATURE_COMPAT_DIR_INDEX) &&
	       sbi->s_es.s_def_hash_version <= EXT2_DX_TEA;
}

static void release_frames(struct inode *dir, struct dx_frame *frames)
{
	for (int k = 0; k < DX_MAX_LEVELS; k++)
		ext2_brelse(EXT2_SBI(dir->i_sb), frames[k].b);
}

/* What the insert adds. */
struct dx_name {
	const char *name;
	size_t len;
	unsigned long ino;
	mode_t mode;
};

/* The leaf is full: grow the tree one step. Return: 0 or errno. */
static int dx_grow_step(struct inode *dir,
			struct dx_frame *frames,
			int levels,
			struct ext2_buf *leaf,
			uint64_t lblk)
{
	struct dx_frame *f = &frames[levels];

	if (f->count < f->limit)
		return ext2_dx_split_leaf(
		    dir,
		    f,
		    ext2_dx_version(dir, ext2_dx_info(frames[0].b)),
		    leaf,
		    lblk);
	if (levels == 0)
		return ext2_dx_grow(dir, &frames[0]);
	if (frames[0].count < frames[0].limit)
		return ext2_dx_split_node(dir, &frames[0], &frames[1]);
	pr_err("ext4: directory inode %lu: htree index full (two levels, "
	       "no largedir)\n",
	       dir->i_ino);
	return -ENOSPC;
}

/* One round: add the name, or grow the tree by one step.
 * Return: 0 added, 1 grown (go again), EXT2_DX_FALLBACK, or errno. */
static int dx_add_round(struct inode *dir, const struct dx_name *n)
{
	struct dx_frame frames[DX_MAX_LEVELS] = { 0 };
	struct ext2_buf *leaf = NULL;
	uint32_t hash = 0;
	uint64_t lblk = 0;
	int levels, ret;

	ret = levels = ext2_dx_root(dir, &frames[0], n->name, n->len, &hash);
	for (int k = 0; ret >= 0 && ret != EXT2_DX_FALLBACK && k < levels; k++)
		ret = ext2_dx_descend(dir, &frames[k], &frames[k + 1], hash);
	if (ret >= 0 && ret != EXT2_DX_FALLBACK)
		ret = ext2_dx_child(dir, &frames[levels], &lblk);
	if (ret < 0 || ret == EXT2_DX_FALLBACK)
		goto out;
	leaf = ext2_dx_read(dir, lblk);
	if (IS_ERR(leaf)) {
		ret = PTR_ERR(leaf);
		leaf = NULL;
		goto out;
	}
	ret =
	    ext2_add_in_leaf(dir, lblk, leaf, n->name, n->len, n->ino, n->mode);
	if (ret == 1) {
		ret = 0;
	} else if (ret == 0) {
		ret = dx_grow_step(dir, frames, levels, leaf, lblk);
		if (!ret)
			ret = 1;
	}
out:
	ext2_brelse(EXT2_SBI(dir->i_sb), leaf);
	release_frames(dir, frames);
	return ret;
}

/* Rewrite index block @b (@lblk, of kind @kind) as the leaf it reads as
 * without the index: the root keeps "." and "..", a node is empty. */
static void
unindex_block(struct inode *dir, uint64_t lblk, struct ext2_buf *b, int kind)
{
	unsigned int space = ext2_dir_leaf_space(dir);
	struct ext2_dir_entry_2 *de = b->b_data;
	unsigned int off = 0;

	if (kind == EXT2_DIR_DX_ROOT) {
		off = de->rec_len; /* "." */
		de = ext2_entry_at(b, off);
	}
	de->rec_len = space - off;
	memset((char *)b->b_data + off + ext2_rec_len(de->name_len),
	       0,
	       space - off - ext2_rec_len(de->name_len));
	ext2_dir_tail_init(dir, b->b_data);
	ext2_dir_block_dirty(dir, lblk, b);
}

/* Clear @dir's index (see the top of the file). Return: 0 or errno. */
static int dx_clear(struct inode *dir)
{
	uint64_t nblocks =
	    READ_ONCE(dir->i_size) >> dir->i_sb->s_blocksize_bits;
	struct ext2_inode_info *ei = EXT2_I(dir);

	for (uint64_t lblk = 0; EXT2_SBI(dir->i_sb)->s_csum && lblk < nblocks;
	     lblk++) {
		struct ext2_buf *b = ext2_dx_read(dir, lblk);
		int kind;

		if (IS_ERR(b))
			return PTR_ERR(b);
		kind = ext2_dir_block_kind(dir, lblk, b->b_data);
		if (kind != EXT2_DIR_LEAF)
			unindex_block(dir, lblk, b, kind);
		ext2_brelse(EXT2_SBI(dir->i_sb), b);
	}
	ei->i_flags &= ~EXT2_INDEX_FL;
	mark_inode_dirty(dir);
	return 0;
}

int ext2_dx_add_entry(struct inode *dir,
		      const char *name,
		      size_t len,
		      unsigned long ino,
		      mode_t mode)
{
	const struct dx_name n = { name, len, ino, mode };
	int ret = EXT2_DX_FALLBACK;

	if (!(EXT2_I(dir)->i_flags & EXT2_INDEX_FL))
		return EXT2_DX_FALLBACK;
	for (int round = 0; ext2_dx_can_index(dir) && round < DX_INSERT_ROUNDS;
	     round++) {
		ret = dx_add_round(dir, &n);
		if (ret != 1)
			break;
	}
	if (ret == 1)
		ret = -ENOSPC; /* a name the split leaves cannot take */
	if (ret != EXT2_DX_FALLBACK)
		return ret;
	ret = dx_clear(dir);
	return ret ? ret : EXT2_DX_FALLBACK;
}

int ext2_dx_make_indexed(struct inode *dir)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	unsigned int bs = dir->i_sb->s_blocksize;
	struct ext2_dir_entry_2 *dot, *dotdot;
	struct ext2_buf *root, *leaf;
	struct dx_root_info *info;
	struct dx_entry *e;
	uint64_t lblk;

	root = ext2_dx_read(dir, 0);
	if (IS_ERR(root))
		return PTR_ERR(root);
	dot = root->b_data;
	dotdot = ext2_entry_at(root, dot->rec_len);
	if (dot->rec_len != EXT2_DIR_REC_LEN(1) || dot->name_len != 1 ||
	    dotdot->name_len != 2 || dotdot->rec_len < EXT2_DIR_REC_LEN(2)) {
		ext2_brelse(sbi, root);
		return EXT2_DX_FALLBACK; /* not "." then "..": stay linear */
	}
	leaf = ext2_dx_new_block(dir, &lblk);
	if (IS_ERR(leaf)) {
		ext2_brelse(sbi, root);
		return PTR_ERR(leaf);
	}
	/* block 1 is block 0 with "." and ".." turned into one free record */
	memcpy(leaf->b_data, root->b_data, bs);
	dot = leaf->b_data;
	dot->rec_len += dotdot->rec_len;
	dot->inode = 0;
	dot->name_len = 0;
	dot->file_type = 0;
	ext2_dir_block_dirty(dir, lblk, leaf);
	ext2_brelse(sbi, leaf);

	dotdot->rec_len = bs - EXT2_DIR_REC_LEN(1);
	memset((char *)root->b_data + DX_ROOT_INFO, 0, bs - DX_ROOT_INFO);
	info = ext2_dx_info(root);
	info->hash_version = sbi->s_es.s_def_hash_version;
	info->info_length = sizeof(*info);
	e = (struct dx_entry *)((char *)root->b_data + DX_ROOT_ENTRIES);
	e[0].hash = ext2_dx_limit(dir, DX_ROOT_ENTRIES) | 1u << 16;
	e[0].block = (uint32_t)lblk;
	EXT2_I(dir)->i_flags |= EXT2_INDEX_FL;
	ext2_dir_block_dirty(dir, 0, root);
	ext2_brelse(sbi, root);
	mark_inode_dirty(dir);
	return 0;
}

/*
 * fs/ext2/symlink.c: symbolic links, and the operations of inodes that are
 * neither files nor directories.
 *
 * ext2 keeps a link's target in one of two places, told apart as Linux and
 * e2fsck tell them: a "fast" link has no data block (i_blocks counts only
 * an extended-attribute block, if any) and holds the target in i_block[]
 * itself (up to 59 bytes: the 60 bytes of i_block with room for a NUL); a
 * "slow" link holds it in its one data block. i_size is the target's
 * length, without a NUL. A target must fit one block with its NUL, else
 * -ENAMETOOLONG. The block goes through the metadata cache (buffer.c), as
 * directory blocks do; freeing it (eviction) forgets its buffer.
 *
 * Locks: the target is written once, while the new inode is private to
 * ext2_symlink's caller; reads take i_map_lock only for i_data.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"

bool ext2_inode_is_fast_symlink(struct inode *inode)
{
	uint64_t ea_blocks =
	    EXT2_I(inode)->i_file_acl ? inode->i_sb->s_blocksize >> 9 : 0;

	return S_ISLNK(inode->i_mode) && inode->i_blocks == ea_blocks;
}

/**
 * ext2_write_link - store @target (@len bytes, 1 or more) in the new link
 * @inode: in i_block[] if it fits with a NUL, else in a new block.
 * Context: task, may sleep; @inode is not yet reachable.
 * Return: 0, -ENAMETOOLONG (longer than a block holds), -ENOSPC, -EIO.
 */
int ext2_write_link(struct inode *inode, const char *target, size_t len)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext2_buf *b;
	uint32_t pblk;
	int err;

	if (len + 1 > inode->i_sb->s_blocksize)
		return -ENAMETOOLONG;
	if (len + 1 <= sizeof(ei->i_data)) {
		mutex_lock(&ei->i_map_lock);
		memset(ei->i_data, 0, sizeof(ei->i_data));
		memcpy(ei->i_data, target, len);
		mutex_unlock(&ei->i_map_lock);
	} else {
		err = ext2_get_block(inode, 0, true, &pblk, NULL);
		if (err)
			return err;
		b = ext2_bget_new(sbi, pblk);
		if (IS_ERR(b))
			return PTR_ERR(b);
		memset(b->b_data, 0, inode->i_sb->s_blocksize);
		memcpy(b->b_data, target, len);
		ext2_bmark_dirty(b);
		ext2_brelse(sbi, b);
	}
	inode_set_size(inode, len);
	mark_inode_dirty(inode);
	return 0;
}

/* A slow link's block into @buf (@len bytes). */
static int read_slow_link(struct inode *inode, char *buf, size_t len)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_buf *b;
	uint32_t pblk;
	int err;

	err = ext2_get_block(inode, 0, false, &pblk, NULL);
	if (err)
		return err;
	if (!pblk) {
		pr_err("ext2: symlink inode %lu has no block\n", inode->i_ino);
		return -EUCLEAN;
	}
	b = ext2_bread(sbi, pblk);
	if (IS_ERR(b))
		return PTR_ERR(b);
	memcpy(buf, b->b_data, len);
	ext2_brelse(sbi, b);
	return 0;
}

static int ext2_get_link(struct inode *inode, char *buf, size_t size)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	loff_t len = READ_ONCE(inode->i_size);
	bool fast = ext2_inode_is_fast_symlink(inode);
	size_t room = fast ? sizeof(ei->i_data) : inode->i_sb->s_blocksize;
	int err = 0;

	if (len <= 0 || (size_t)len >= room) {
		pr_err("ext2: symlink inode %lu has size %lld (a %s link holds "
		       "1 to %zu bytes)\n",
		       inode->i_ino,
		       (long long)len,
		       fast ? "fast" : "slow",
		       room - 1);
		return -EUCLEAN;
	}
	if ((size_t)len >= size)
		return -ENAMETOOLONG;
	if (fast) {
		mutex_lock(&ei->i_map_lock);
		memcpy(buf, ei->i_data, len);
		mutex_unlock(&ei->i_map_lock);
	} else {
		err = read_slow_link(inode, buf, len);
	}
	if (err)
		return err;
	buf[len] = '\0';
	return len;
}

const struct inode_operations ext2_symlink_iops = {
	.get_link = ext2_get_link,
	.setattr = ext2_setattr,
	.get_flags = ext2_get_flags,
};

/* Device nodes, FIFOs, sockets: only their attributes change. */
const struct inode_operations ext2_special_iops = {
	.setattr = ext2_setattr,
	.get_flags = ext2_get_flags,
};

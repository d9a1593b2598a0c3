/*
 * fs/ext2/inode.c: inodes - reading, writing, creating, evicting, setattr.
 *
 * The VFS caches inodes (fs/inode.c); ext2 embeds struct inode in struct
 * ext2_inode_info, which adds the block map (i_data, under i_map_lock) and
 * the on-disk fields the VFS does not know. An inode's on-disk slot lives
 * in an inode-table block of the metadata cache; write_inode rewrites the
 * slot there and marks the block dirty (or writes it, for @sync).
 *
 * Inode numbers are checked on every read: 0, past s_inodes_count, or a
 * reserved inode other than the root gives -EUCLEAN with a message.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include "ext2.h"

static DEFINE_LOCK_CLASS(ext2_map_class, LOCK_RANK_FS_BLOCKMAP);

bool ext2_inode_valid_nr(struct ext2_sb_info *sbi, unsigned long ino)
{
	return ino == EXT2_ROOT_INO ||
	       (ino >= sbi->s_first_ino && ino <= sbi->s_inodes_count);
}

/* The inode-table block holding @ino, and the slot's offset in it. */
static struct ext2_buf *
inode_slot(struct ext2_sb_info *sbi, unsigned long ino, struct ext2_inode **raw)
{
	uint32_t g = (ino - 1) / sbi->s_inodes_per_group;
	uint64_t byte =
	    (uint64_t)((ino - 1) % sbi->s_inodes_per_group) * sbi->s_inode_size;
	uint32_t bs = sbi->s_sb->s_blocksize;
	struct ext2_buf *b;

	b = ext2_bread(sbi,
		       ext2_gd_block(sbi, g, EXT2_GD_INODE_TABLE) + byte / bs);
	if (!IS_ERR(b))
		*raw = (struct ext2_inode *)((char *)b->b_data + byte % bs);
	return b;
}

/**
 * ext2_inode_slot_free - may the allocator hand out @ino, whose bit it
 * found clear?
 * A slot whose links count and mode are both set holds a live inode
 * (read_inode accepts no other, and a deletion clears the count), maybe
 * cached and in use: its bit is wrong, and handing the number out would
 * give two files one inode. Only for a slot the table has initialized
 * (ext2_itable_initialized): past bg_itable_unused it may hold anything.
 * Context: caller holds s_alloc_lock.
 * Return: 0, -EUCLEAN (reported: the bitmap is corrupt) or a read error.
 */
int ext2_inode_slot_free(struct ext2_sb_info *sbi, unsigned long ino)
{
	struct ext2_inode *raw;
	struct ext2_buf *b = inode_slot(sbi, ino, &raw);
	int err = 0;

	if (IS_ERR(b))
		return PTR_ERR(b);
	if (raw->i_links_count && raw->i_mode) {
		pr_err("ext2: inode %lu is free in its bitmap but in use in "
		       "its table (links %u, mode %#o): bitmap corrupt, not "
		       "allocated\n",
		       ino,
		       raw->i_links_count,
		       raw->i_mode);
		err = -EUCLEAN;
	}
	ext2_brelse(sbi, b);
	return err;
}

static struct inode *ext2_alloc_inode(struct super_block *sb)
{
	struct ext2_inode_info *ei = kzalloc(sizeof(*ei), GFP_KERNEL);

	(void)sb;
	if (!ei)
		return NULL;
	mutex_init(&ei->i_map_lock, "ext2_map", &ext2_map_class);
	ei->i_map = &ext2_indirect_map;
	return &ei->vfs_inode;
}

static void ext2_destroy_inode(struct inode *inode)
{
	kfree(EXT2_I(inode));
}

void ext2_set_ops(struct inode *inode)
{
	if (S_ISDIR(inode->i_mode)) {
		inode->i_op = &ext2_dir_iops;
		inode->i_fop = &ext2_dir_fops;
	} else if (S_ISREG(inode->i_mode)) {
		inode->i_op = &ext2_file_iops;
		inode->i_fop = &ext2_file_fops;
	} else if (S_ISLNK(inode->i_mode)) {
		inode->i_op = &ext2_symlink_iops;
	} else {
		inode->i_op = &ext2_special_iops;
	}
	if (!inode->i_mapping) {
		mapping_init(&inode->i_data, inode, &ext2_aops);
		inode->i_mapping = &inode->i_data;
	} else {
		inode->i_mapping->a_ops = &ext2_aops;
	}
}

static struct timespec ts(uint32_t sec)
{
	return (struct timespec){ .tv_sec = sec };
}

static int ext2_read_inode(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext2_inode *raw;
	struct ext2_buf *b;
	uint64_t size;
	int err;

	if (!ext2_inode_valid_nr(sbi, inode->i_ino)) {
		pr_err("ext2: inode %lu is out of range or reserved (inodes "
		       "1..%u)\n",
		       inode->i_ino,
		       sbi->s_inodes_count);
		return -EUCLEAN;
	}
	b = inode_slot(sbi, inode->i_ino, &raw);
	if (IS_ERR(b))
		return PTR_ERR(b);
	if (!raw->i_links_count || !raw->i_mode) {
		pr_err("ext2: inode %lu is not in use (links %u, mode %#o)\n",
		       inode->i_ino,
		       raw->i_links_count,
		       raw->i_mode);
		ext2_brelse(sbi, b);
		return -EUCLEAN;
	}
	err = ext2_read_inode_ext4(inode, raw, b->b_blocknr);
	if (err) {
		ext2_brelse(sbi, b);
		return err;
	}
	size = raw->i_size;
	if (S_ISREG(raw->i_mode))
		size |= (uint64_t)raw->i_size_high << 32;
	if (size > ei->i_map->max_blocks(sbi)
		       << inode->i_sb->s_blocksize_bits) {
		pr_err("ext2: inode %lu: size %llu is past the largest file\n",
		       inode->i_ino,
		       (unsigned long long)size);
		ext2_brelse(sbi, b);
		return -EUCLEAN;
	}
	inode->i_mode = raw->i_mode;
	inode->i_uid = raw->i_uid | (uint32_t)raw->osd2.linux2.l_i_uid_high
					<< 16;
	inode->i_gid = raw->i_gid | (uint32_t)raw->osd2.linux2.l_i_gid_high
					<< 16;
	inode->i_nlink = raw->i_links_count;
	inode->i_size = size;
	inode->i_atime = ts(raw->i_atime);
	inode->i_mtime = ts(raw->i_mtime);
	inode->i_ctime = ts(raw->i_ctime);
	inode->i_blocks = raw->i_blocks;
	memcpy(ei->i_data, raw->i_block, sizeof(ei->i_data));
	ext2_read_inode_ext4_fields(inode, raw);
	ei->i_flags = raw->i_flags;
	ei->i_dtime = raw->i_dtime;
	ei->i_file_acl = raw->i_file_acl;
	ei->i_generation = raw->i_generation;
	ei->i_block_group = (inode->i_ino - 1) / sbi->s_inodes_per_group;
	ei->i_goal = 0;
	ext2_brelse(sbi, b);
	ext2_set_ops(inode);
	if (ei->i_map == &ext2_extent_map && ext2_inode_has_block_map(inode))
		return ext2_extent_check_root(inode);
	return 0;
}

/* large_file: set the feature the first time a file passes 2 GiB. */
void ext2_note_large_file(struct ext2_sb_info *sbi, struct inode *inode)
{
	const uint32_t lf = EXT2_FEATURE_RO_COMPAT_LARGE_FILE;

	if (!S_ISREG(inode->i_mode) || inode->i_size <= 0x7fffffff ||
	    (READ_ONCE(sbi->s_es.s_feature_ro_compat) & lf))
		return;
	mutex_lock(&sbi->s_alloc_lock);
	sbi->s_es.s_feature_ro_compat |= lf;
	if (sbi->s_es.s_rev_level == EXT2_GOOD_OLD_REV) {
		sbi->s_es.s_rev_level = EXT2_DYNAMIC_REV;
		sbi->s_es.s_first_ino = EXT2_GOOD_OLD_FIRST_INO;
		sbi->s_es.s_inode_size = EXT2_GOOD_OLD_INODE_SIZE;
	}
	ext2_sb_mark_dirty(sbi);
	mutex_unlock(&sbi->s_alloc_lock);
}

static void fill_raw(struct inode *inode, struct ext2_inode *raw)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	uint64_t size = READ_ONCE(inode->i_size);

	memset(raw, 0, sizeof(*raw));
	raw->i_mode = inode->i_mode;
	raw->i_uid = inode->i_uid & 0xffff;
	raw->i_gid = inode->i_gid & 0xffff;
	raw->osd2.linux2.l_i_uid_high = inode->i_uid >> 16;
	raw->osd2.linux2.l_i_gid_high = inode->i_gid >> 16;
	raw->i_size = (uint32_t)size;
	if (S_ISREG(inode->i_mode))
		raw->i_size_high = size >> 32;
	raw->i_atime = inode->i_atime.tv_sec;
	raw->i_ctime = inode->i_ctime.tv_sec;
	raw->i_mtime = inode->i_mtime.tv_sec;
	raw->i_dtime = ei->i_dtime;
	raw->i_links_count = inode->i_nlink;
	raw->i_flags = ei->i_flags;
	raw->i_generation = ei->i_generation;
	raw->i_file_acl = ei->i_file_acl;
	mutex_lock(&ei->i_map_lock);
	ext2_fill_raw_blocks(inode, raw);
	memcpy(raw->i_block, ei->i_data, sizeof(raw->i_block));
	mutex_unlock(&ei->i_map_lock);
}

static int ext2_write_inode(struct inode *inode, bool sync)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode *raw;
	struct ext2_buf *b;
	int err = 0;

	if (inode->i_sb->s_rdonly)
		return 0;
	ext2_note_large_file(sbi, inode);
	b = inode_slot(sbi, inode->i_ino, &raw);
	if (IS_ERR(b))
		return PTR_ERR(b);
	fill_raw(inode, raw);
	ext2_write_inode_ext4(inode, raw);
	ext2_bmark_dirty(b);
	if (sync)
		err = ext2_bwrite(sbi, b);
	ext2_brelse(sbi, b);
	return err;
}

/*
 * Only regular files, directories and slow symlinks have a block map in
 * i_data. A fast symlink keeps its target there, and device inodes their
 * device numbers: read as block numbers, those name other files' blocks.
 * A symlink is fast when it owns no block but its extended-attribute
 * block (Linux: ext2_inode_is_fast_symlink).
 */
bool ext2_inode_has_block_map(struct inode *inode)
{
	if (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode))
		return true;
	return S_ISLNK(inode->i_mode) && !ext2_inode_is_fast_symlink(inode);
}

static void ext2_evict_inode(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	if (inode->i_sb->s_rdonly || inode->i_nlink)
		return;
	if (ext2_inode_has_block_map(inode))
		ext2_truncate_blocks(inode, 0);
	inode->i_size = 0;
	/* e2fsck reads a dtime below s_inodes_count as an orphan-list link
	 * (and 0 as "not deleted"): never write one, whatever the clock. */
	ei->i_dtime = MAX(ext2_now(EXT2_SBI(inode->i_sb)),
			  EXT2_SBI(inode->i_sb)->s_inodes_count);
	ext2_write_inode(inode, false);
	ext2_free_inode_nr(inode->i_sb, inode->i_ino, S_ISDIR(inode->i_mode));
}

/* A new inode's slot, as ext2_init_inode_slot makes it. */
static int init_slot(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode *raw;
	struct ext2_buf *b = inode_slot(sbi, inode->i_ino, &raw);

	if (IS_ERR(b))
		return PTR_ERR(b);
	ext2_init_inode_slot(inode, raw);
	ext2_bmark_dirty(b);
	ext2_brelse(sbi, b);
	return 0;
}

/**
 * ext2_new_inode - allocate and set up a new inode of @mode near @dir
 * The inode has one link, no blocks and the current time; it is dirty.
 * Context: task, may sleep.
 * Return: a referenced inode or ERR_PTR.
 */
struct inode *ext2_new_inode(struct inode *dir, mode_t mode)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	struct ext2_inode_info *ei;
	struct inode *inode;
	unsigned long ino;
	int err;

	if (dir->i_sb->s_rdonly)
		return ERR_PTR(-EROFS);
	err = ext2_new_inode_nr(dir, mode, &ino);
	if (err)
		return ERR_PTR(err);
	inode = new_inode(dir->i_sb, ino);
	if (IS_ERR_OR_NULL(inode)) {
		ext2_free_inode_nr(dir->i_sb, ino, S_ISDIR(mode));
		return inode ? inode : ERR_PTR(-ENOMEM);
	}
	ei = EXT2_I(inode);
	memset(ei->i_data, 0, sizeof(ei->i_data));
	ei->i_flags = 0;
	ei->i_dtime = 0;
	ei->i_file_acl = 0;
	ei->i_generation++;
	ei->i_block_group = (ino - 1) / sbi->s_inodes_per_group;
	ei->i_goal = 0;
	inode->i_mode = mode;
	inode->i_uid = 0;
	inode->i_gid = dir->i_gid;
	inode->i_nlink = 1;
	inode->i_size = 0;
	inode->i_blocks = 0;
	inode->i_atime = inode->i_mtime = inode->i_ctime = current_time();
	ext2_new_inode_ext4(inode);
	err = init_slot(inode);
	if (err) {
		inode->i_nlink = 0; /* eviction frees the number */
		iput(inode);
		return ERR_PTR(err);
	}
	ext2_set_ops(inode);
	mark_inode_dirty(inode);
	return inode;
}

/**
 * ext2_zero_past_eof - the file grows from @old to a size past it: zero
 * what lay past @old in its page
 *
 * The bytes between @old and the end of its block become file data; they
 * must read as zeroes, whatever the block on disk or a page read while the
 * size was @old holds there (Linux: pagecache_isize_extended). When @old is
 * inside a block, the page is read in, zeroed from @old to its end and
 * dirtied. A block-aligned @old leaves nothing stale: blocks past EOF are
 * read as zeroes, and truncation zeroes the cache past the new EOF.
 * Context: caller holds i_rwsem and invalidate_lock exclusive.
 * Return: 0 or -errno (the size must not change then).
 */
int ext2_zero_past_eof(struct inode *inode, loff_t old)
{
	if (IS_ALIGNED(old, inode->i_sb->s_blocksize))
		return 0;
	return filemap_zero_range(
	    inode->i_mapping, old, ALIGN_UP(old, (loff_t)PAGE_SIZE));
}

/*
 * Shrink to @size: zero the tail of the block that holds the new EOF and
 * write it before the blocks past it are freed (Linux: block_truncate_page),
 * since that block stays in the file and a later extension would expose
 * its old bytes; then drop the cache past @size and free the blocks.
 */
static int shrink(struct inode *inode, loff_t size)
{
	struct address_space *m = inode->i_mapping;
	loff_t tail = ALIGN_UP(size, (loff_t)inode->i_sb->s_blocksize);
	int err;

	err = filemap_truncate_tail(m, size, tail); /* i_size, then zeroes */
	if (err)
		return err;
	truncate_pagecache(inode, size); /* entries of mappings too */
	/* A write error stays in wb_err for fsync: truncate does not report
	 * it (nor does Linux's). */
	if (tail != size) {
		err = filemap_write_and_wait_range(m, size, tail - 1);
		if (err)
			mapping_set_error(m, err);
	}
	race_point(RACE_INVAL_DROPPED, inode);
	err = ext2_truncate_blocks(inode, size);
	race_point(RACE_INVAL_FREED, inode);
	return err;
}

static int setsize(struct inode *inode, loff_t size)
{
	struct address_space *m = inode->i_mapping;
	loff_t old = READ_ONCE(inode->i_size);
	int err = 0;

	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (size < 0 || (uint64_t)size > ext2_inode_max_blocks(inode)
					     << inode->i_sb->s_blocksize_bits)
		return -EFBIG;
	filemap_invalidate_lock(m);
	/* ext4: a truncate to the size frees the blocks preallocated past
	 * it (ext4_setattr truncates whenever the size does not grow) */
	if (size < old || (size == old && ext2_has_extents(inode))) {
		err = shrink(inode, size);
	} else if (size > old) {
		err = ext2_zero_past_eof(inode, old);
		if (!err) {
			inode_set_size(inode, size);
			pagecache_isize_extended(inode, old, size);
		}
	}
	race_point(RACE_INVAL_UNLOCK, inode);
	filemap_invalidate_unlock(m);
	if (!err || READ_ONCE(inode->i_size) != old)
		inode->i_mtime = inode->i_ctime = current_time();
	return err;
}

/* ext4's user-visible flags (EXT4_FL_USER_VISIBLE): those of lsattr,
 * with extents, huge_file and indexed directories among them; ext2
 * images only ever have some of them. */
#define EXT2_FL_VISIBLE 0x705BDFFFu

unsigned int ext2_get_flags(struct inode *inode)
{
	return READ_ONCE(EXT2_I(inode)->i_flags) & EXT2_FL_VISIBLE;
}

/**
 * ext2_setattr - change size, mode or times (whole seconds kept)
 * Caller holds i_rwsem exclusive. A size change takes invalidate_lock
 * exclusive across dropping the page cache and freeing the blocks.
 */
int ext2_setattr(struct inode *inode, const struct iattr *attr)
{
	int err = 0;

	if (inode->i_sb->s_rdonly)
		return -EROFS;
	if (attr->valid & ATTR_SIZE)
		err = setsize(inode, attr->size);
	if (attr->valid & ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) | (attr->mode & 07777);
	/* The disk keeps whole seconds: so does the inode, as on Linux. */
	if (attr->valid & ATTR_ATIME)
		inode->i_atime = ts(attr->atime.tv_sec);
	if (attr->valid & ATTR_MTIME)
		inode->i_mtime = ts(attr->mtime.tv_sec);
	if (attr->valid & ATTR_CTIME)
		inode->i_ctime = ts(attr->ctime.tv_sec);
	mark_inode_dirty(inode);
	return err;
}

const struct super_operations ext2_sops = {
	.alloc_inode = ext2_alloc_inode,
	.destroy_inode = ext2_destroy_inode,
	.read_inode = ext2_read_inode,
	.write_inode = ext2_write_inode,
	.evict_inode = ext2_evict_inode,
	.sync_fs = ext2_sync_fs,
	.statfs = ext2_statfs,
	.put_super = ext2_put_super,
};

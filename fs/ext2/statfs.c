/*
 * fs/ext2/statfs.c: statfs - the sizes and free counts df shows.
 *
 * As Linux's ext2 (its default "bsddf" accounting), f_blocks leaves out the
 * filesystem's fixed overhead: the blocks before the first group, each
 * group's bitmaps and inode table, and the superblock and descriptor copies
 * of the groups that hold one. Reserved descriptor blocks (resize_inode)
 * are not overhead there: they count as used. Mounted as ext4, as Linux's
 * ext4: the superblock's s_overhead_clusters if mke2fs recorded it, else
 * the same sum with the reserved descriptor blocks in it. f_bavail leaves
 * out the blocks reserved for root (and, as ext4, 2% of the blocks, at
 * most 4096, which Linux's ext4 keeps back for delayed allocation).
 *
 * Context: takes s_alloc_lock for a consistent copy of the free counts.
 */
#include <string.h>
#include "ext2.h"

static uint64_t overhead_blocks(struct ext2_sb_info *sbi)
{
	uint64_t overhead = sbi->s_first_data_block;
	uint32_t reserved = sbi->s_ext4 ? sbi->s_es.s_reserved_gdt_blocks : 0;

	if (sbi->s_ext4 && sbi->s_es.s_overhead_clusters)
		return sbi->s_es.s_overhead_clusters;
	for (uint32_t g = 0; g < sbi->s_groups_count; g++)
		if (ext2_group_has_super(sbi, g))
			overhead += 1 + sbi->s_desc_blocks + reserved;
	return overhead +
	       (uint64_t)sbi->s_groups_count * (2 + sbi->s_itb_per_group);
}

int ext2_statfs(struct super_block *sb, struct statfs *buf)
{
	struct ext2_sb_info *sbi = EXT2_SBI(sb);
	uint64_t free, reserved, fsid[2];

	memset(buf, 0, sizeof(*buf));
	mutex_lock(&sbi->s_alloc_lock);
	free = sbi->s_es.s_free_blocks_count;
	reserved = sbi->s_es.s_r_blocks_count;
	buf->f_ffree = sbi->s_es.s_free_inodes_count;
	memcpy(fsid, sbi->s_es.s_uuid, sizeof(fsid));
	mutex_unlock(&sbi->s_alloc_lock);
	buf->f_type = EXT2_SUPER_MAGIC;
	buf->f_bsize = sb->s_blocksize;
	buf->f_frsize = sb->s_blocksize;
	buf->f_blocks = sbi->s_blocks_count - overhead_blocks(sbi);
	buf->f_bfree = free;
	if (sbi->s_ext4) /* ext4 keeps 2% (at most 4096) for delayed allocation
			  */
		reserved += MIN(sbi->s_blocks_count / 50, 4096u);
	buf->f_bavail = free > reserved ? free - reserved : 0;
	buf->f_files = sbi->s_inodes_count;
	buf->f_namelen = EXT2_NAME_LEN;
	fsid[0] ^= fsid[1];
	buf->f_fsid.val[0] = (uint32_t)fsid[0];
	buf->f_fsid.val[1] = (uint32_t)(fsid[0] >> 32);
	return 0;
}

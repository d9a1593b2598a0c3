/*
 * fs/ext2/inode_ext4.c: the parts of an on-disk inode that ext4 adds, as
 * read_inode (inode.c) decodes them.
 *
 * - metadata_csum: a crc32c of the whole inode slot (s_inode_size bytes),
 *   seeded with the filesystem's seed, the inode number and generation;
 *   its low 16 bits in l_i_checksum_lo, the high ones in i_checksum_hi
 *   when i_extra_isize reaches it. A mismatch is -EBADMSG (Linux's
 *   EFSBADCRC), reported with the inode and its inode-table block.
 * - EXT4_EXTENTS_FL: i_block holds an extent-tree root (extent.c), not
 *   block pointers; only on a filesystem with the extents feature.
 * - huge_file: i_blocks has 16 more bits (l_i_blocks_hi), and counts
 *   filesystem blocks instead of 512-byte sectors with EXT4_HUGE_FILE_FL.
 * - extra_isize (the feature): the times' nanoseconds and two more epoch
 *   bits (i_*time_extra), when the inode's i_extra_isize covers them.
 *
 * Writing (ext4 mount): write_inode fills the ext2 fields (inode.c), then
 * ext2_write_inode_ext4 the ext4 ones and, last, the checksum; a new
 * inode's slot is zeroed first (ext2_init_inode_slot), since a group mke2fs
 * left uninitialised may hold anything in its table.
 *
 * Context: read_inode, with the inode not yet visible to others; the
 * write side under the inode's own slot (each inode writes only its own).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <kernel/printk.h>
#include "ext2.h"

int ext2_read_inode_ext4(struct inode *inode,
			 const struct ext2_inode *raw,
			 uint32_t tblk)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);

	ei->i_map = &ext2_indirect_map;
	if (sbi->s_csum) {
		ei->i_csum_seed =
		    ext2_inode_csum_seed(sbi, inode->i_ino, raw->i_generation);
		if (!ext2_inode_csum_ok(
			sbi, ei->i_csum_seed, (const void *)raw)) {
			pr_err(
			    "ext4: inode %lu: checksum does not match (inode "
			    "table block %u)\n",
			    inode->i_ino,
			    tblk);
			return -EBADMSG;
		}
	}
	if (raw->i_flags & EXT4_EXTENTS_FL) {
		if (!sbi->s_extents) {
			pr_err("ext2: inode %lu: uses extents, which this "
			       "filesystem does not have (inode table block "
			       "%u)\n",
			       inode->i_ino,
			       tblk);
			return -EUCLEAN;
		}
		ei->i_map = &ext2_extent_map;
	}
	return 0;
}

/* Whether the large inode's i_extra_isize covers @field_end. */
static bool extra_has(struct ext2_sb_info *sbi,
		      const struct ext2_inode_large *raw,
		      size_t field_end)
{
	return (sbi->s_es.s_feature_ro_compat &
		EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE) &&
	       sbi->s_inode_size > EXT2_GOOD_OLD_INODE_SIZE &&
	       EXT2_GOOD_OLD_INODE_SIZE + (size_t)raw->i_extra_isize >=
		   field_end &&
	       field_end <= sbi->s_inode_size;
}

/* A time with its extra word: two epoch bits above the signed 32-bit
 * seconds, nanoseconds in the upper 30 bits. */
static struct timespec time_extra(uint32_t sec, uint32_t extra)
{
	return (struct timespec){
		.tv_sec = (int64_t)(int32_t)sec + ((int64_t)(extra & 3) << 32),
		.tv_nsec = extra >> 2,
	};
}

void ext2_read_inode_ext4_fields(struct inode *inode,
				 const struct ext2_inode *raw)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	const struct ext2_inode_large *big = (const void *)raw;
	const size_t end = offsetof(struct ext2_inode_large, i_atime_extra) +
			   sizeof(big->i_atime_extra);

	if (sbi->s_huge_file) {
		inode->i_blocks |= (uint64_t)raw->osd2.linux2.l_i_blocks_hi
				   << 32;
		if (raw->i_flags & EXT4_HUGE_FILE_FL)
			inode->i_blocks <<= inode->i_sb->s_blocksize_bits - 9;
	}
	if (!extra_has(sbi, big, end))
		return;
	inode->i_ctime = time_extra(raw->i_ctime, big->i_ctime_extra);
	inode->i_mtime = time_extra(raw->i_mtime, big->i_mtime_extra);
	inode->i_atime = time_extra(raw->i_atime, big->i_atime_extra);
}

void ext2_new_inode_ext4(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext3_extent_header *eh = (void *)ei->i_data;

	if (!sbi->s_extents ||
	    !(S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode)))
		return;
	ei->i_flags |= EXT4_EXTENTS_FL;
	ei->i_map = &ext2_extent_map;
	memset(ei->i_data, 0, sizeof(ei->i_data));
	eh->eh_magic = EXT3_EXT_MAGIC;
	eh->eh_entries = 0;
	eh->eh_max =
	    (sizeof(ei->i_data) - sizeof(*eh)) / sizeof(struct ext3_extent);
	eh->eh_depth = 0;
}

void ext2_fill_raw_blocks(struct inode *inode, struct ext2_inode *raw)
{
	uint64_t blocks = inode->i_blocks;

	raw->i_flags &= ~EXT4_HUGE_FILE_FL;
	if (EXT2_SBI(inode->i_sb)->s_huge_file && blocks >> 48) {
		raw->i_flags |= EXT4_HUGE_FILE_FL;
		blocks >>= inode->i_sb->s_blocksize_bits - 9;
	}
	raw->i_blocks = (uint32_t)blocks;
	if (EXT2_SBI(inode->i_sb)->s_huge_file)
		raw->osd2.linux2.l_i_blocks_hi = (uint16_t)(blocks >> 32);
}

/* A time's extra word: the epoch bits above 32-bit seconds, nanoseconds. */
static uint32_t extra_of(struct timespec t)
{
	return (uint32_t)(((t.tv_sec - (int64_t)(int32_t)t.tv_sec) >> 32) & 3) |
	       (uint32_t)t.tv_nsec << 2;
}

void ext2_write_inode_ext4(struct inode *inode, struct ext2_inode *raw)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_large *big = (void *)raw;
	const size_t end = offsetof(struct ext2_inode_large, i_atime_extra) +
			   sizeof(big->i_atime_extra);

	/* i_blocks and its high bits: ext2_fill_raw_blocks, under
	 * i_map_lock */
	if (extra_has(sbi, big, end)) {
		big->i_ctime_extra = extra_of(inode->i_ctime);
		big->i_mtime_extra = extra_of(inode->i_mtime);
		big->i_atime_extra = extra_of(inode->i_atime);
	}
	/* last: the checksum covers every field above */
	ext2_inode_csum_set(sbi, EXT2_I(inode)->i_csum_seed, big);
}

void ext2_init_inode_slot(struct inode *inode, struct ext2_inode *raw)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_large *big = (void *)raw;
	const size_t crtime_end =
	    offsetof(struct ext2_inode_large, i_crtime) + sizeof(big->i_crtime);
	struct ext2_inode_info *ei = EXT2_I(inode);

	ei->i_csum_seed =
	    ext2_inode_csum_seed(sbi, inode->i_ino, ei->i_generation);
	if (!sbi->s_ext4)
		return;
	memset(raw, 0, sbi->s_inode_size);
	if (sbi->s_inode_size <= EXT2_GOOD_OLD_INODE_SIZE)
		return;
	big->i_extra_isize =
	    sizeof(struct ext2_inode_large) - EXT2_GOOD_OLD_INODE_SIZE;
	if (extra_has(sbi, big, crtime_end)) {
		big->i_crtime = (uint32_t)inode->i_ctime.tv_sec;
		big->i_crtime_extra = extra_of(inode->i_ctime);
	}
}

/*
 * fs/ext2/csum_set.c: metadata_csum on write - the stored checksum of each
 * structure, set at the one point where that structure is written back or
 * marked dirty (docs/ext4.md, "Checksums on write"):
 *
 *   superblock, descriptors   write_super_and_descs (super.c), under
 *                             s_alloc_lock, just before they are written
 *   bitmaps (in descriptors)  ext2_bitmap_csums_update (group.c), from
 *                             write_super_and_descs, for each bitmap
 *                             ext2_bitmap_dirty marked stale
 *   inodes                    ext2_write_inode (inode.c), after fill_raw and
 *                             the ext4 fields
 *   directory blocks          dir_block_dirty (dir.c) and the htree writers
 *                             (htree_*.c), after the block's last change
 *
 * The computations are csum.c's, shared with the verifiers. Each setter
 * does nothing without metadata_csum.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "ext2.h"

void ext2_sb_csum_set(struct ext2_sb_info *sbi)
{
	struct ext2_super_block *es = &sbi->s_es;

	if (!sbi->s_csum)
		return;
	es->s_checksum =
	    ext2_crc32c(~0u, es, offsetof(struct ext2_super_block, s_checksum));
}

void ext2_gd_csum_set(struct ext2_sb_info *sbi, uint32_t group)
{
	struct ext4_group_desc *gd = (void *)ext2_gd(sbi, group);

	if (sbi->s_csum)
		gd->bg_checksum = ext2_gd_csum(sbi, group, gd);
}

uint32_t ext2_bitmap_csum(struct ext2_sb_info *sbi,
			  enum ext2_gd_block which,
			  const void *map)
{
	uint32_t bits = which == EXT2_GD_BLOCK_BITMAP ? sbi->s_blocks_per_group
						      : sbi->s_inodes_per_group;

	return ext2_crc32c(sbi->s_csum_seed, map, bits / 8);
}

bool ext2_bitmap_csum_ok(struct ext2_sb_info *sbi,
			 uint32_t g,
			 enum ext2_gd_block which,
			 const void *map)
{
	const struct ext4_group_desc *gd = (const void *)ext2_gd(sbi, g);
	bool block = which == EXT2_GD_BLOCK_BITMAP;
	uint32_t crc, want;

	if (!sbi->s_csum)
		return true;
	crc = ext2_bitmap_csum(sbi, which, map);
	want =
	    block ? gd->bg_block_bitmap_csum_lo : gd->bg_inode_bitmap_csum_lo;
	if (sbi->s_desc_size < EXT2_MIN_DESC_SIZE_64BIT)
		return (uint16_t)crc == want;
	want |= (uint32_t)(block ? gd->bg_block_bitmap_csum_hi
				 : gd->bg_inode_bitmap_csum_hi)
		<< 16;
	return crc == want;
}

void ext2_bitmap_csum_set(struct ext2_sb_info *sbi,
			  uint32_t g,
			  enum ext2_gd_block which,
			  const void *map)
{
	struct ext4_group_desc *gd = (void *)ext2_gd(sbi, g);
	bool hi = sbi->s_desc_size >= EXT2_MIN_DESC_SIZE_64BIT;
	uint32_t crc;

	lockdep_assert_held(&sbi->s_alloc_lock);
	if (!sbi->s_csum)
		return;
	crc = ext2_bitmap_csum(sbi, which, map);
	if (which == EXT2_GD_BLOCK_BITMAP) {
		gd->bg_block_bitmap_csum_lo = (uint16_t)crc;
		if (hi)
			gd->bg_block_bitmap_csum_hi = crc >> 16;
	} else {
		gd->bg_inode_bitmap_csum_lo = (uint16_t)crc;
		if (hi)
			gd->bg_inode_bitmap_csum_hi = crc >> 16;
	}
}

void ext2_inode_csum_set(struct ext2_sb_info *sbi,
			 uint32_t seed,
			 struct ext2_inode_large *raw)
{
	bool with_hi;
	uint32_t crc;

	if (!sbi->s_csum)
		return;
	crc = ext2_inode_csum(sbi, seed, raw, &with_hi);
	raw->i_checksum_lo = (uint16_t)crc;
	if (with_hi)
		raw->i_checksum_hi = crc >> 16;
}

unsigned int ext2_dir_leaf_space(struct inode *dir)
{
	return dir->i_sb->s_blocksize -
	       (EXT2_SBI(dir->i_sb)->s_csum ? EXT2_DIR_TAIL_LEN : 0);
}

void ext2_dir_tail_init(struct inode *dir, void *block)
{
	struct ext2_dir_entry_2 *t =
	    (void *)((char *)block + dir->i_sb->s_blocksize -
		     EXT2_DIR_TAIL_LEN);

	if (!EXT2_SBI(dir->i_sb)->s_csum)
		return;
	memset(t, 0, EXT2_DIR_TAIL_LEN);
	t->rec_len = EXT2_DIR_TAIL_LEN;
	t->file_type = EXT2_DIR_TAIL_FT;
}

int ext2_dir_block_csum_set(struct inode *dir, uint64_t lblk, void *block)
{
	int kind = ext2_dir_block_kind(dir, lblk, block);
	uint8_t *p = block;
	uint32_t crc;
	size_t tail;

	if (!EXT2_SBI(dir->i_sb)->s_csum)
		return 0;
	if (kind == EXT2_DIR_LEAF) {
		crc = ext2_dir_leaf_csum(dir, block);
		memcpy(p + dir->i_sb->s_blocksize - sizeof(crc),
		       &crc,
		       sizeof(crc));
		return 0;
	}
	if (ext2_dx_csum(dir, block, kind == EXT2_DIR_DX_ROOT, &crc, &tail))
		return -EUCLEAN;
	memcpy(p + tail + 4, &crc, sizeof(crc));
	return 0;
}

/*
 * fs/ext2/group.c: a group's bitmaps as the allocators change them, and
 * the groups ext4 leaves uninitialised.
 *
 * With metadata_csum (as with uninit_bg) mke2fs leaves groups it has not
 * used flagged in their descriptor: BLOCK_UNINIT (the block bitmap was
 * never written: the group's blocks are all free but its metadata) and
 * INODE_UNINIT (the inode bitmap was never written: every inode free; the
 * table may hold garbage past the first bg_itable_unused-free slots). The
 * first allocation in such a group builds the bitmap in memory - the
 * metadata blocks inside the group (zone.c) and the padding bits past the
 * group's end set, as mke2fs and e2fsck have them - and clears the flag.
 * bg_itable_unused shrinks as inodes are handed out, so that e2fsck reads
 * only the slots in use.
 *
 * ext2_bitmap_dirty is the one point where a changed bitmap is marked
 * dirty. With metadata_csum it marks the bitmap's checksum stale
 * (s_csum_stale), and ext2_bitmap_csums_update sets the checksums of the
 * stale ones in the descriptors just before the descriptors are written
 * (write_super_and_descs): one CRC of the bitmap per write, not one per
 * allocation (a 4 KiB write allocates a block; crc32c over a 4 KiB
 * bitmap each time cost more than the write, docs/benchmarks.md). An
 * initialised bitmap read from disk is checked against that checksum
 * first: a mismatch fails the allocation or free with EBADMSG. A stale
 * one read again (written back, then dropped from the buffer cache) is
 * this mount's own write, which the descriptor does not cover yet: it is
 * taken as it is.
 *
 * Context: every function here is called with s_alloc_lock held, which
 * protects the bitmaps, the descriptors and the superblock's counts.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"

static uint16_t uninit_flag(enum ext2_gd_block which)
{
	return which == EXT2_GD_BLOCK_BITMAP ? EXT2_BG_BLOCK_UNINIT
					     : EXT2_BG_INODE_UNINIT;
}

static void set_bit8(uint8_t *map, uint32_t bit)
{
	map[bit >> 3] |= 1u << (bit & 7);
}

/* A never-written block bitmap: the group's metadata blocks in use. */
static void
init_block_bitmap(struct ext2_sb_info *sbi, uint32_t g, uint8_t *map)
{
	uint32_t first = sbi->s_first_data_block + g * sbi->s_blocks_per_group;
	uint32_t nbits =
	    MIN(sbi->s_blocks_per_group, sbi->s_blocks_count - first);

	for (uint32_t bit = 0; bit < nbits; bit++)
		if (!ext2_data_blocks_valid(sbi, first + bit, 1))
			set_bit8(map, bit);
	for (uint32_t bit = nbits; bit < sbi->s_sb->s_blocksize * 8; bit++)
		set_bit8(map, bit);
}

static void init_inode_bitmap(struct ext2_sb_info *sbi, uint8_t *map)
{
	for (uint32_t bit = sbi->s_inodes_per_group;
	     bit < sbi->s_sb->s_blocksize * 8;
	     bit++)
		set_bit8(map, bit);
}

/* An initialised bitmap, its checksum checked once per read from disk
 * (as directory blocks are): a mismatch is -EBADMSG, reported, and the
 * allocation that wanted it changes nothing. */
static struct ext2_buf *bitmap_read(struct ext2_sb_info *sbi,
				    uint32_t g,
				    enum ext2_gd_block which,
				    uint32_t blk)
{
	struct ext2_buf *b = ext2_bread(sbi, blk);

	if (IS_ERR(b) || !sbi->s_csum ||
	    __atomic_load_n(&b->b_csum_ok, __ATOMIC_ACQUIRE))
		return b;
	if (!(sbi->s_csum_stale[g] & EXT2_CSUM_STALE(which)) &&
	    !ext2_bitmap_csum_ok(sbi, g, which, b->b_data)) {
		pr_err("ext4: group %u: %s bitmap block %u: checksum does not "
		       "match\n",
		       g,
		       which == EXT2_GD_BLOCK_BITMAP ? "block" : "inode",
		       blk);
		ext2_brelse(sbi, b);
		return ERR_PTR(-EBADMSG);
	}
	__atomic_store_n(&b->b_csum_ok, true, __ATOMIC_RELEASE);
	return b;
}

/**
 * ext2_bitmap_get - group @g's bitmap @which, ready to change
 * An uninitialised one (BLOCK_UNINIT/INODE_UNINIT) is built, written to
 * the cache dirty and its flag cleared.
 * Context: caller holds s_alloc_lock.
 * Return: a referenced buffer or ERR_PTR(-EIO/-ENOMEM).
 */
struct ext2_buf *
ext2_bitmap_get(struct ext2_sb_info *sbi, uint32_t g, enum ext2_gd_block which)
{
	struct ext4_group_desc *gd = (void *)ext2_gd(sbi, g);
	uint32_t blk = ext2_gd_block(sbi, g, which);
	struct ext2_buf *b;

	lockdep_assert_held(&sbi->s_alloc_lock);
	if (!sbi->s_csum || !(gd->bg_flags & uninit_flag(which)))
		return bitmap_read(sbi, g, which, blk);
	b = ext2_bget_new(sbi, blk);
	if (IS_ERR(b))
		return b;
	if (which == EXT2_GD_BLOCK_BITMAP)
		init_block_bitmap(sbi, g, b->b_data);
	else
		init_inode_bitmap(sbi, b->b_data);
	gd->bg_flags &= ~uninit_flag(which);
	ext2_bitmap_dirty(sbi, g, which, b);
	return b;
}

void ext2_bitmap_dirty(struct ext2_sb_info *sbi,
		       uint32_t g,
		       enum ext2_gd_block which,
		       struct ext2_buf *b)
{
	if (sbi->s_csum)
		sbi->s_csum_stale[g] |= EXT2_CSUM_STALE(which);
	ext2_bmark_dirty(b);
	ext2_sb_mark_dirty(sbi);
}

/**
 * ext2_bitmap_csums_update - the checksums of the bitmaps changed since
 * their last one, into the descriptors (not yet written)
 * A bitmap no longer cached is read again: it is what was written.
 * Context: caller holds s_alloc_lock.
 * Return: 0, or -EIO/-ENOMEM; the bitmaps not done stay stale.
 */
int ext2_bitmap_csums_update(struct ext2_sb_info *sbi)
{
	lockdep_assert_held(&sbi->s_alloc_lock);
	if (!sbi->s_csum)
		return 0;
	for (uint32_t g = 0; g < sbi->s_groups_count; g++)
		for (int w = EXT2_GD_BLOCK_BITMAP; w <= EXT2_GD_INODE_BITMAP;
		     w++) {
			struct ext2_buf *b;

			if (!(sbi->s_csum_stale[g] & EXT2_CSUM_STALE(w)))
				continue;
			b = ext2_bread(sbi, ext2_gd_block(sbi, g, w));
			if (IS_ERR(b))
				return PTR_ERR(b);
			ext2_bitmap_csum_set(sbi, g, w, b->b_data);
			ext2_brelse(sbi, b);
			sbi->s_csum_stale[g] &= ~EXT2_CSUM_STALE(w);
		}
	return 0;
}

static uint32_t itable_unused(struct ext2_sb_info *sbi, uint32_t g)
{
	struct ext4_group_desc *gd = (void *)ext2_gd(sbi, g);
	uint32_t unused = gd->bg_itable_unused;

	if (sbi->s_desc_size >= EXT2_MIN_DESC_SIZE_64BIT)
		unused |= (uint32_t)gd->bg_itable_unused_hi << 16;
	return unused;
}

bool ext2_itable_initialized(struct ext2_sb_info *sbi, uint32_t g, uint32_t bit)
{
	return !sbi->s_csum ||
	       (uint64_t)bit + itable_unused(sbi, g) < sbi->s_inodes_per_group;
}

void ext2_itable_used(struct ext2_sb_info *sbi, uint32_t g, uint32_t bit)
{
	struct ext4_group_desc *gd = (void *)ext2_gd(sbi, g);
	uint32_t unused;

	lockdep_assert_held(&sbi->s_alloc_lock);
	if (ext2_itable_initialized(sbi, g, bit))
		return;
	unused = sbi->s_inodes_per_group - bit - 1;
	gd->bg_itable_unused = (uint16_t)unused;
	if (sbi->s_desc_size >= EXT2_MIN_DESC_SIZE_64BIT)
		gd->bg_itable_unused_hi = unused >> 16;
}

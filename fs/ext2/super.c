/*
 * fs/ext2/super.c: mounting ext2 - the superblock and group descriptors.
 *
 * fill_super() reads the primary superblock (byte 1024), checks it
 * against itself and the device (a truncated image, a wrong magic or
 * geometry fails the mount with a console message), applies the feature
 * rules of the type mounted (features.c: unknown incompat: refuse; unknown
 * ro_compat: mount read-only) and the superblock's checksum, reads and
 * checks every group descriptor (32 bytes, or s_desc_size with 64bit; its
 * checksum), records the metadata blocks (zone.c) and gets the root inode.
 *
 * The superblock and the descriptors stay in memory (sbi->s_es, s_gd),
 * changed under s_alloc_lock by balloc.c/ialloc.c, and are written back by
 * ext2_sync_fs() after the dirty metadata buffers. Backup copies are left
 * alone, as Linux does.
 *
 * Registered as "ext2" and "ext4" (the same driver, with ext4's features:
 * docs/ext4.md) at INIT_LEVEL_FS; the VFS mounts the root later
 * (its hook runs at INIT_LEVEL_LATE, or after ext2's within
 * INIT_LEVEL_FS by link order).
 */
#include <errno.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include "ext2.h"

static DEFINE_LOCK_CLASS(ext2_alloc_class, EXT2_RANK_ALLOC);

/* The primary superblock: 1024 bytes at byte 1024, whatever the block size. */
#define EXT2_SB_SECTOR	(1024 / SECTOR_SIZE)
#define EXT2_SB_SECTORS (1024 / SECTOR_SIZE)

static bool is_power_of(uint32_t n, uint32_t base)
{
	while (n > 1 && n % base == 0)
		n /= base;
	return n == 1;
}

bool ext2_group_has_super(struct ext2_sb_info *sbi, uint32_t group)
{
	if (group <= 1 || !sbi->s_sparse)
		return true;
	return is_power_of(group, 3) || is_power_of(group, 5) ||
	       is_power_of(group, 7);
}

static uint64_t
gd_block64(struct ext2_sb_info *sbi, uint32_t g, enum ext2_gd_block which)
{
	const struct ext4_group_desc *gd = (const void *)ext2_gd(sbi, g);
	const uint32_t lo[] = { gd->bg_block_bitmap,
				gd->bg_inode_bitmap,
				gd->bg_inode_table };
	uint64_t blk = lo[which];

	if (sbi->s_desc_size >= EXT2_MIN_DESC_SIZE_64BIT) {
		const uint32_t hi[] = { gd->bg_block_bitmap_hi,
					gd->bg_inode_bitmap_hi,
					gd->bg_inode_table_hi };

		blk |= (uint64_t)hi[which] << 32;
	}
	return blk;
}

uint32_t
ext2_gd_block(struct ext2_sb_info *sbi, uint32_t g, enum ext2_gd_block which)
{
	/* check_group refused anything past the 32-bit block count */
	return (uint32_t)gd_block64(sbi, g, which);
}

uint32_t ext2_now(struct ext2_sb_info *sbi)
{
	time_t now = current_time().tv_sec;

	return MAX(now, (time_t)sbi->s_time_floor);
}

void ext2_sb_mark_dirty(struct ext2_sb_info *sbi)
{
	lockdep_assert_held(&sbi->s_alloc_lock);
	sbi->s_dirty = true;
}

static int write_super_and_descs(struct ext2_sb_info *sbi)
{
	const struct blk_wseg seg[] = {
		{ EXT2_SB_SECTOR, &sbi->s_es, EXT2_SB_SECTORS },
		{ (uint64_t)(sbi->s_first_data_block + 1) *
		      sbi->s_sect_per_block,
		  sbi->s_gd,
		  sbi->s_desc_blocks * sbi->s_sect_per_block },
	};
	uint64_t bytes = (uint64_t)(seg[0].nsect + seg[1].nsect)
			 << SECTOR_SHIFT;
	int err;

	sbi->s_es.s_wtime = ext2_now(sbi);
	err = ext2_bitmap_csums_update(sbi);
	if (err)
		return err;
	for (uint32_t g = 0; g < sbi->s_groups_count; g++)
		ext2_gd_csum_set(sbi, g);
	ext2_sb_csum_set(sbi);
	/* Both in one round trip while they fit one bounce: up to 255 KiB
	 * of descriptors (8160 groups of 32-byte descriptors), else one
	 * after the other. */
	if (bytes <= BLK_WRITE_VEC_MAX_BYTES) {
		err = blk_write_sync_vec(sbi->s_bdev, seg, ARRAY_SIZE(seg));
		if (err) {
			pr_err("ext2: I/O error %d writing the superblock and "
			       "group descriptors\n",
			       err);
			return -EIO;
		}
		return 0;
	}
	err = blk_write_sync(
	    sbi->s_bdev, EXT2_SB_SECTOR, &sbi->s_es, EXT2_SB_SECTORS);
	if (err) {
		pr_err("ext2: I/O error %d writing the superblock\n", err);
		return -EIO;
	}
	return ext2_write_blocks(
	    sbi, sbi->s_first_data_block + 1, sbi->s_gd, sbi->s_desc_blocks);
}

/**
 * ext2_sync_fs - write dirty metadata, then superblock and descriptors
 * Context: task, may sleep; takes s_alloc_lock.
 * Return: 0 or the first error.
 */
int ext2_sync_fs(struct super_block *sb, bool wait)
{
	struct ext2_sb_info *sbi = EXT2_SBI(sb);
	int err, err2 = 0;

	if (sb->s_rdonly)
		return 0;
	err = ext2_bsync_all(sbi);
	mutex_lock(&sbi->s_alloc_lock);
	if (sbi->s_dirty) {
		sbi->s_dirty = false;
		err2 = write_super_and_descs(sbi);
		if (err2)
			sbi->s_dirty = true;
	}
	mutex_unlock(&sbi->s_alloc_lock);
	if (!err)
		err = err2;
	if (!err && wait && sbi->s_bdev->flush && blk_flush(sbi->s_bdev))
		err = -EIO;
	return err;
}

void ext2_put_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SBI(sb);

	ext2_sync_fs(sb, true);
	ext2_bcache_destroy(sbi);
	ext2_zone_free(sbi);
	kfree(sbi->s_gd);
	kfree(sbi);
	sb->s_fs_info = NULL;
}

/* Geometry checks on the superblock alone and against the device. */
static int check_geometry(struct ext2_sb_info *sbi, struct ext2_super_block *es)
{
	const char *dev = sbi->s_bdev->name;
	uint32_t bs, bpg, ipg;

	if (es->s_magic != EXT2_SUPER_MAGIC) {
		pr_err("ext2: %s: no ext2 superblock (magic %#x)\n",
		       dev,
		       es->s_magic);
		return -EINVAL;
	}
	if (es->s_log_block_size > EXT2_MAX_BLOCKSIZE_BITS - 10 ||
	    es->s_rev_level > EXT2_DYNAMIC_REV) {
		pr_err(
		    "ext2: %s: unsupported block size log %u or revision %u\n",
		    dev,
		    es->s_log_block_size,
		    es->s_rev_level);
		return -EINVAL;
	}
	bs = 1024u << es->s_log_block_size;
	bpg = es->s_blocks_per_group;
	ipg = es->s_inodes_per_group;
	sbi->s_inode_size = EXT2_INODE_SIZE(es);
	sbi->s_first_ino = EXT2_FIRST_INO(es);
	if (sbi->s_inode_size < EXT2_GOOD_OLD_INODE_SIZE ||
	    sbi->s_inode_size > bs ||
	    (sbi->s_inode_size & (sbi->s_inode_size - 1)) ||
	    sbi->s_first_ino <= EXT2_ROOT_INO) {
		pr_err("ext2: %s: bad inode size %u or first inode %u\n",
		       dev,
		       sbi->s_inode_size,
		       sbi->s_first_ino);
		return -EUCLEAN;
	}
	if (!bpg || bpg > 8 * bs || !ipg || ipg > 8 * bs ||
	    es->s_first_data_block != (bs == 1024 ? 1u : 0u) ||
	    es->s_blocks_count <= es->s_first_data_block + 1) {
		pr_err("ext2: %s: bad geometry: %u blocks, %u per group, %u "
		       "inodes per group, first data block %u\n",
		       dev,
		       es->s_blocks_count,
		       bpg,
		       ipg,
		       es->s_first_data_block);
		return -EUCLEAN;
	}
	sbi->s_groups_count =
	    DIV_ROUND_UP(es->s_blocks_count - es->s_first_data_block, bpg);
	if ((uint64_t)sbi->s_groups_count * ipg != es->s_inodes_count ||
	    es->s_first_ino > es->s_inodes_count) {
		pr_err("ext2: %s: %u inodes do not fit %u groups of %u\n",
		       dev,
		       es->s_inodes_count,
		       sbi->s_groups_count,
		       ipg);
		return -EUCLEAN;
	}
	if ((uint64_t)es->s_blocks_count * (bs / SECTOR_SIZE) >
	    sbi->s_bdev->nr_sectors) {
		pr_err("ext2: %s: filesystem of %u blocks is larger than the "
		       "device (%llu sectors): truncated image?\n",
		       dev,
		       es->s_blocks_count,
		       (unsigned long long)sbi->s_bdev->nr_sectors);
		return -EINVAL;
	}
	return 0;
}

/* A group's bitmaps and inode table lie in the group; with flex_bg,
 * anywhere in the filesystem (mke2fs packs a flex group's together). */
static int check_group(struct ext2_sb_info *sbi, uint32_t g)
{
	struct ext2_group_desc *gd = ext2_gd(sbi, g);
	uint64_t first =
	    sbi->s_first_data_block + (uint64_t)g * sbi->s_blocks_per_group;
	uint64_t last = MIN(first + sbi->s_blocks_per_group,
			    (uint64_t)sbi->s_blocks_count) -
			1;
	uint64_t bb = gd_block64(sbi, g, EXT2_GD_BLOCK_BITMAP);
	uint64_t ib = gd_block64(sbi, g, EXT2_GD_INODE_BITMAP);
	uint64_t it = gd_block64(sbi, g, EXT2_GD_INODE_TABLE);
	uint64_t lo = first, hi = last;

	if (sbi->s_flex_bg) {
		lo = sbi->s_first_data_block;
		hi = sbi->s_blocks_count - 1;
	}
	if (bb < lo || bb > hi || ib < lo || ib > hi || it < lo ||
	    it + sbi->s_itb_per_group - 1 > hi ||
	    gd->bg_free_blocks_count > last - first + 1 ||
	    gd->bg_free_inodes_count > sbi->s_inodes_per_group) {
		pr_err("ext2: %s: group %u descriptor is corrupt (bitmaps %llu "
		       "%llu, inode table %llu)\n",
		       sbi->s_bdev->name,
		       g,
		       (unsigned long long)bb,
		       (unsigned long long)ib,
		       (unsigned long long)it);
		return -EUCLEAN;
	}
	return 0;
}

static int read_descs(struct ext2_sb_info *sbi)
{
	uint32_t bs = sbi->s_sb->s_blocksize;
	int err;

	sbi->s_desc_blocks =
	    DIV_ROUND_UP(sbi->s_groups_count, bs / sbi->s_desc_size);
	if (sbi->s_first_data_block + 1 + sbi->s_desc_blocks >
	    sbi->s_blocks_count) {
		pr_err("ext2: %s: group descriptors run past the end\n",
		       sbi->s_bdev->name);
		return -EUCLEAN;
	}
	/* the stale flags (a byte per group) live past the descriptors */
	sbi->s_gd = kmalloc(
	    (size_t)sbi->s_desc_blocks * bs + sbi->s_groups_count, GFP_KERNEL);
	if (!sbi->s_gd)
		return -ENOMEM;
	sbi->s_csum_stale =
	    (uint8_t *)sbi->s_gd + (size_t)sbi->s_desc_blocks * bs;
	memset(sbi->s_csum_stale, 0, sbi->s_groups_count);
	err = ext2_read_blocks(
	    sbi, sbi->s_first_data_block + 1, sbi->s_gd, sbi->s_desc_blocks);
	if (!err)
		err = ext2_check_gd_csums(sbi);
	for (uint32_t g = 0; !err && g < sbi->s_groups_count; g++)
		err = check_group(sbi, g);
	return err;
}

static void init_sbi(struct ext2_sb_info *sbi, struct super_block *sb)
{
	struct ext2_super_block *es = &sbi->s_es;

	sb->s_blocksize_bits = 10 + es->s_log_block_size;
	sb->s_blocksize = 1UL << sb->s_blocksize_bits;
	sbi->s_blocks_count = es->s_blocks_count;
	sbi->s_inodes_count = es->s_inodes_count;
	sbi->s_first_data_block = es->s_first_data_block;
	sbi->s_blocks_per_group = es->s_blocks_per_group;
	sbi->s_inodes_per_group = es->s_inodes_per_group;
	sbi->s_itb_per_group = DIV_ROUND_UP(
	    sbi->s_inodes_per_group * sbi->s_inode_size, sb->s_blocksize);
	sbi->s_addr_per_block = sb->s_blocksize / sizeof(uint32_t);
	sbi->s_addr_bits = sb->s_blocksize_bits - 2;
	sbi->s_sect_per_block = sb->s_blocksize / SECTOR_SIZE;
	sbi->s_time_floor = MAX(MAX(es->s_mkfs_time, es->s_wtime), es->s_mtime);
	time_wall_advance_to(sbi->s_time_floor);
}

static int fill_super(struct super_block *sb,
		      struct block_device *bdev,
		      bool read_only,
		      bool ext4)
{
	struct ext2_sb_info *sbi;
	struct inode *root;
	int err, ro;

	BUILD_BUG_ON(sizeof(struct ext2_super_block) != 1024);
	BUILD_BUG_ON(sizeof(struct ext2_group_desc) != EXT2_MIN_DESC_SIZE);
	if (bdev->nr_sectors < EXT2_SB_SECTOR + EXT2_SB_SECTORS) {
		pr_err("ext2: %s: device too small for a superblock\n",
		       bdev->name);
		return -EINVAL;
	}
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sbi->s_sb = sb;
	sbi->s_bdev = bdev;
	ext2_bcache_init(&sbi->s_bcache);
	mutex_init(&sbi->s_alloc_lock, "ext2_alloc", &ext2_alloc_class);
	sb->s_fs_info = sbi;
	sb->s_bdev = bdev;

	err = blk_read_sync(bdev, EXT2_SB_SECTOR, &sbi->s_es, EXT2_SB_SECTORS);
	if (err) {
		pr_err("ext2: %s: I/O error %d reading the superblock\n",
		       bdev->name,
		       err);
		err = -EIO;
		goto err_free;
	}
	err = check_geometry(sbi, &sbi->s_es);
	if (err)
		goto err_free;
	ro = ext2_check_features(sbi, ext4);
	if (ro < 0) {
		err = ro;
		goto err_free;
	}
	sb->s_rdonly = read_only || ro || bdev->read_only;
	init_sbi(sbi, sb);
	err = read_descs(sbi);
	if (!err)
		err = ext2_zone_build(sbi);
	if (err)
		goto err_free;
	sb->s_op = &ext2_sops;

	root = iget(sb, EXT2_ROOT_INO);
	if (IS_ERR(root)) {
		err = PTR_ERR(root);
		goto err_free;
	}
	if (!S_ISDIR(root->i_mode)) {
		pr_err("ext2: %s: root inode is not a directory\n", bdev->name);
		iput(root);
		err = -EUCLEAN;
		goto err_free;
	}
	sb->s_root = root;
	if (!sb->s_rdonly) {
		mutex_lock(&sbi->s_alloc_lock);
		sbi->s_es.s_mnt_count++;
		sbi->s_es.s_mtime = ext2_now(sbi);
		ext2_sb_mark_dirty(sbi);
		mutex_unlock(&sbi->s_alloc_lock);
	}
	pr_info("%s: %s: mounted %s, %u blocks of %lu bytes, %u groups\n",
		ext4 ? "ext4" : "ext2",
		bdev->name,
		sb->s_rdonly ? "read-only" : "read-write",
		sbi->s_blocks_count,
		sb->s_blocksize,
		sbi->s_groups_count);
	return 0;

err_free:
	ext2_bcache_destroy(sbi);
	ext2_zone_free(sbi);
	kfree(sbi->s_gd);
	kfree(sbi);
	sb->s_fs_info = NULL;
	return err;
}

static int
ext2_fill_super(struct super_block *sb, struct block_device *bdev, bool ro)
{
	return fill_super(sb, bdev, ro, false);
}

static int
ext4_fill_super(struct super_block *sb, struct block_device *bdev, bool ro)
{
	return fill_super(sb, bdev, ro, true);
}

static struct fs_type ext2_fs_type = {
	.name = "ext2",
	.fill_super = ext2_fill_super,
};

/* The same driver, reading ext4's features too (fs/ext2/features.c). */
static struct fs_type ext4_fs_type = {
	.name = "ext4",
	.fill_super = ext4_fill_super,
};

static int ext2_init(void)
{
	int err = register_filesystem(&ext2_fs_type);

	return err ? err : register_filesystem(&ext4_fs_type);
}
INIT_HOOK(ext2, ext2_init, INIT_LEVEL_FS);

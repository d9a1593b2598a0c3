/*
 * fs/ext2/features.c: which on-disk features the "ext2" and "ext4" types
 * mount, and the checksums checked before anything else is read.
 *
 * One driver serves both types (docs/ext4.md). "ext2" mounts what it
 * always did: filetype (incompat), sparse_super and large_file (ro_compat);
 * any other incompat feature refuses the mount, any other ro_compat one
 * mounts read-only. "ext4" also reads what `mke2fs -t ext4` turns on:
 * extents, 64bit, flex_bg, csum_seed (incompat) and huge_file, dir_nlink,
 * extra_isize, metadata_csum (ro_compat). An ext4 image mounts read-write
 * when whole writes every feature it has (the table ext4_writable below:
 * the default `mke2fs -t ext4 -O ^has_journal` set); else read-only, and
 * so does one with a journal (has_journal): whole does not write through
 * a journal, and writing in place under it is not allowed. An image whose
 * journal needs recovery is refused: its metadata is not what the journal
 * says it is.
 *
 * Each decision is printed on the console with the features that caused it.
 */
#include <errno.h>
#include <drivers/block.h>
#include <kernel/printk.h>
#include "ext2.h"

/* Features both types read. */
#define BASE_INCOMPAT EXT2_FEATURE_INCOMPAT_FILETYPE
#define BASE_RO_COMPAT                         \
	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | \
	 EXT2_FEATURE_RO_COMPAT_LARGE_FILE)
/* Features only "ext4" reads (which it writes: ext4_writable below). */
#define EXT4_INCOMPAT                                                  \
	(EXT3_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT | \
	 EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_CSUM_SEED)
#define EXT4_RO_COMPAT                                                         \
	(EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK | \
	 EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |                                  \
	 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
/* The features whole writes as Linux's ext4 does, one line each: extent
 * trees (extent_insert.c, extent_remove.c, extent_falloc.c), checksums
 * (csum_set.c), uninitialised groups (group.c), hashed directories
 * (htree_insert.c, htree_split.c), flex_bg's metadata anywhere, the
 * inode's extra fields (inode_ext4.c). */
static const struct {
	uint32_t compat, incompat, ro_compat;
} ext4_writable[] = {
	{ EXT2_FEATURE_COMPAT_EXT_ATTR, 0, 0 },	    /* no xattr is written */
	{ EXT2_FEATURE_COMPAT_RESIZE_INODE, 0, 0 }, /* nor resized */
	{ EXT2_FEATURE_COMPAT_DIR_INDEX, 0, 0 },    /* htree_insert.c */
	{ 0, EXT2_FEATURE_INCOMPAT_FILETYPE, 0 },
	{ 0, EXT3_FEATURE_INCOMPAT_EXTENTS, 0 },
	{ 0, EXT4_FEATURE_INCOMPAT_64BIT, 0 },
	{ 0, EXT4_FEATURE_INCOMPAT_FLEX_BG, 0 },
	{ 0, EXT4_FEATURE_INCOMPAT_CSUM_SEED, 0 },
	{ 0, 0, EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER },
	{ 0, 0, EXT2_FEATURE_RO_COMPAT_LARGE_FILE },
	{ 0, 0, EXT4_FEATURE_RO_COMPAT_HUGE_FILE },
	{ 0, 0, EXT4_FEATURE_RO_COMPAT_DIR_NLINK },
	{ 0, 0, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE },
	{ 0, 0, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM }, /* csum_set.c */
};

/* An ext4 image's features that whole cannot write: the mount is
 * read-only when there is any. Return: true if there is. */
static bool ext4_unwritable(const struct ext2_super_block *es, uint32_t out[3])
{
	out[0] = es->s_feature_compat;
	out[1] = es->s_feature_incompat;
	out[2] = es->s_feature_ro_compat;
	for (size_t i = 0; i < ARRAY_SIZE(ext4_writable); i++) {
		out[0] &= ~ext4_writable[i].compat;
		out[1] &= ~ext4_writable[i].incompat;
		out[2] &= ~ext4_writable[i].ro_compat;
	}
	return out[0] || out[1] || out[2];
}

static const char *type_name(bool ext4)
{
	return ext4 ? "ext4" : "ext2";
}

/* 64bit: descriptors of s_desc_size bytes (64 or more, a power of two);
 * the block count must fit 32 bits, which every block number then does. */
static int check_64bit(struct ext2_sb_info *sbi, struct ext2_super_block *es)
{
	uint32_t size = es->s_desc_size;

	if (es->s_blocks_count_hi || es->s_r_blocks_count_hi ||
	    es->s_free_blocks_hi) {
		pr_err("ext4: %s: more than 2^32 blocks: not supported\n",
		       sbi->s_bdev->name);
		return -EINVAL;
	}
	if (size < EXT2_MIN_DESC_SIZE_64BIT || size > EXT2_MAX_DESC_SIZE ||
	    (size & (size - 1))) {
		pr_err("ext4: %s: bad group descriptor size %u\n",
		       sbi->s_bdev->name,
		       size);
		return -EUCLEAN;
	}
	sbi->s_desc_size = size;
	return 0;
}

static int check_ext4(struct ext2_sb_info *sbi, struct ext2_super_block *es)
{
	int err = 0;

	if (es->s_feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		err = check_64bit(sbi, es);
	if (err)
		return err;
	sbi->s_extents = es->s_feature_incompat & EXT3_FEATURE_INCOMPAT_EXTENTS;
	sbi->s_flex_bg = es->s_feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG;
	sbi->s_huge_file =
	    es->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_HUGE_FILE;
	sbi->s_csum =
	    es->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	if (sbi->s_csum && es->s_checksum_type != EXT2_CRC32C_CHKSUM) {
		pr_err("ext4: %s: unknown checksum type %u\n",
		       sbi->s_bdev->name,
		       es->s_checksum_type);
		return -EINVAL;
	}
	if (sbi->s_csum)
		sbi->s_csum_seed = ext2_fs_csum_seed(es);
	return 0;
}

int ext2_check_features(struct ext2_sb_info *sbi, bool ext4)
{
	struct ext2_super_block *es = &sbi->s_es;
	const char *dev = sbi->s_bdev->name, *type = type_name(ext4);
	uint32_t incompat_ok = BASE_INCOMPAT | (ext4 ? EXT4_INCOMPAT : 0);
	uint32_t ro_ok = BASE_RO_COMPAT | (ext4 ? EXT4_RO_COMPAT : 0);
	uint32_t incompat = es->s_feature_incompat;
	uint32_t ro_compat = es->s_feature_ro_compat, left[3];
	int err;

	sbi->s_desc_size = EXT2_MIN_DESC_SIZE;
	sbi->s_ext4 = ext4;
	if (es->s_rev_level == EXT2_GOOD_OLD_REV)
		return 0;
	if (ext4 && (incompat & EXT3_FEATURE_INCOMPAT_RECOVER)) {
		pr_err("ext4: %s: the journal needs recovery, which whole does "
		       "not do: refusing to mount (run e2fsck)\n",
		       dev);
		return -EINVAL;
	}
	if (incompat & ~incompat_ok) {
		pr_err("%s: %s: unsupported incompat features %#x: refusing "
		       "to mount\n",
		       type,
		       dev,
		       incompat & ~incompat_ok);
		return -EINVAL;
	}
	sbi->s_filetype = incompat & EXT2_FEATURE_INCOMPAT_FILETYPE;
	sbi->s_sparse = ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	if (ext4) {
		err = check_ext4(sbi, es);
		if (!err)
			err = ext2_check_sb_csum(sbi);
		if (err)
			return err;
	}
	if (ro_compat & ~ro_ok) {
		pr_warn("%s: %s: unsupported ro_compat features %#x: "
			"mounting read-only\n",
			type,
			dev,
			ro_compat & ~ro_ok);
		return 1;
	}
	if (ext4 && (es->s_feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL)) {
		pr_warn("ext4: %s: has a journal, which whole does not write "
			"through: mounting read-only\n",
			dev);
		return 1;
	}
	if (ext4 && ext4_unwritable(es, left)) {
		pr_warn("ext4: %s: writing of features compat %#x incompat %#x "
			"ro_compat %#x is not built yet: mounting read-only\n",
			dev,
			left[0],
			left[1],
			left[2]);
		return 1;
	}
	return 0;
}

int ext2_check_sb_csum(struct ext2_sb_info *sbi)
{
	if (!sbi->s_csum || ext2_sb_csum_ok(&sbi->s_es))
		return 0;
	pr_err("ext4: %s: superblock checksum does not match (stored %#x): "
	       "refusing to mount\n",
	       sbi->s_bdev->name,
	       sbi->s_es.s_checksum);
	return -EBADMSG;
}

int ext2_check_gd_csums(struct ext2_sb_info *sbi)
{
	for (uint32_t g = 0; g < sbi->s_groups_count; g++) {
		if (ext2_gd_csum_ok(sbi, g, ext2_gd(sbi, g)))
			continue;
		pr_err("ext4: %s: group %u descriptor checksum does not match "
		       "(block %u): refusing to mount\n",
		       sbi->s_bdev->name,
		       g,
		       sbi->s_first_data_block + 1 +
			   g / (uint32_t)(sbi->s_sb->s_blocksize /
					  sbi->s_desc_size));
		return -EBADMSG;
	}
	return 0;
}

/*
 * fs/ext2/ext4_falloc_test.c: suite ext4_falloc - unwritten extents and
 * fallocate's modes on extent trees, and a corrupt node met by a write,
 * on the root ext4 of the ext4w_* boots.
 *
 * The rules checked: unwritten blocks read as zeroes, from the cache and
 * from the disk; a write into one makes only its blocks written (the
 * rest stays unwritten, the written part joins a written neighbour that
 * continues it); ext4's fallocate semantics (preallocation past EOF with
 * KEEP_SIZE, ZERO_RANGE leaving the whole blocks allocated and unwritten,
 * PUNCH_HOLE freeing whole blocks only, COLLAPSE and INSERT moving the
 * bytes by the length, EINVAL when not block-aligned); i_blocks = data +
 * node blocks, the free count back where it was. tools/test_fs_falloc.py
 * compares the same modes with host xfs_io on ext4 images.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include "ext4_test.h"

static void unwritten_reads_zero_and_splits(struct ktest *t)
{
	const char *f = "/ext4f_unwritten"; /* kept: debugfs reads it */
	uint64_t bs = ext2_test_bsize(t);
	struct tree_info ti;
	struct file *file;

	EXPECT_FALLOC(t, f, O_RDWR | O_CREAT, 0, 0, 16 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 16 * bs);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.blocks, 16);
	KTEST_EXPECT_EQ(t, ti.unwritten, ti.extents);
	drop(t);
	ext2_test_check(t, f, -1, 0, 16 * bs);
	/* block 5, then 6: written between two unwritten parts */
	file = vfs_open(f, O_WRONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(file));
	KTEST_EXPECT_EQ(t, write_block(file, bs, 5, 9), 0);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.extents, 3);
	KTEST_EXPECT_EQ(t, ti.unwritten, 2);
	KTEST_EXPECT_EQ(t, write_block(file, bs, 6, 9), 0);
	fput(file);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.extents, 3); /* 6 joined 5 */
	KTEST_EXPECT_EQ(t, ti.unwritten, 2);
	KTEST_EXPECT_EQ(t, ti.blocks, 16);
	KTEST_EXPECT_EQ(t, disk_runs(t, f, 16), 1);
	for (int pass = 0; pass < 2; pass++) {
		ext2_test_check(t, f, -1, 0, 5 * bs);
		ext2_test_check(t, f, 9, 5 * bs, 2 * bs);
		ext2_test_check(t, f, -1, 7 * bs, 9 * bs);
		drop(t); /* then from the disk */
	}
}

static void keep_size_past_eof(struct ktest *t)
{
	const char *f = "/ext4f_keep";
	uint64_t bs = ext2_test_bsize(t);
	uint32_t free0 = ext2_test_free_blocks(t);
	struct tree_info ti;
	struct file *file;

	KTEST_ASSERT_EQ(t, write_range(f, 4, 0, 2 * bs), 0);
	/* ext4: blocks past EOF, the size unchanged */
	EXPECT_FALLOC(t, f, O_RDWR, FA_KEEP, 4 * bs, 8 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 2 * bs);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.blocks, 10);
	KTEST_EXPECT_EQ(t, ti.unwritten, 1);
	/* a write into them: the size grows over the hole at 2..3 */
	file = vfs_open(f, O_WRONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(file));
	KTEST_EXPECT_EQ(t, write_block(file, bs, 4, 4), 0);
	fput(file);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 5 * bs);
	drop(t);
	ext2_test_check(t, f, 4, 0, 2 * bs);
	ext2_test_check(t, f, -1, 2 * bs, 2 * bs);
	ext2_test_check(t, f, 4, 4 * bs, bs);
	KTEST_EXPECT_EQ(t, tree_of(t, f).blocks, 10);
	/* truncate frees what lies past the new EOF, preallocated or not */
	KTEST_EXPECT_EQ(t, truncate(f, 5 * bs), 0);
	KTEST_EXPECT_EQ(t, tree_of(t, f).blocks, 3);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), free0);
}

static void punch_and_zero(struct ktest *t)
{
	const char *f = "/ext4f_punch";
	uint64_t bs = ext2_test_bsize(t);
	uint32_t free0, nodes0;
	struct tree_info ti;

	KTEST_ASSERT_EQ(t, write_range(f, 6, 0, 32 * bs), 0);
	free0 = ext2_test_free_blocks(t);
	nodes0 = tree_of(t, f).nodes;
	/* whole blocks 8..15 freed; the extent split around them */
	EXPECT_FALLOC(t, f, O_RDWR, FA_PUNCH, 8 * bs, 8 * bs, 0);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.blocks, 24);
	KTEST_EXPECT_EQ(t, ti.extents, disk_runs(t, f, 32));
	KTEST_EXPECT_EQ(
	    t, ext2_test_free_blocks(t), free0 + 8 + nodes0 - ti.nodes);
	/* inside blocks 0 and 1: bytes zeroed, no block freed */
	EXPECT_FALLOC(t, f, O_RDWR, FA_PUNCH, bs / 2, bs, 0);
	KTEST_EXPECT_EQ(t, tree_of(t, f).blocks, 24);
	/* ZERO_RANGE over 20..27 and half of 19: the whole blocks stay
	 * allocated, unwritten */
	EXPECT_FALLOC(
	    t, f, O_RDWR, FA_ZERO, 19 * bs + bs / 2, 8 * bs + bs / 2, 0);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.blocks, 24);
	KTEST_EXPECT_EQ(t, ti.unwritten, 1);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 32 * bs);
	for (int pass = 0; pass < 2; pass++) {
		ext2_test_check(t, f, 6, 0, bs / 2);
		ext2_test_check(t, f, -1, bs / 2, bs);
		ext2_test_check(t, f, 6, bs + bs / 2, 7 * bs - bs / 2);
		ext2_test_check(t, f, -1, 8 * bs, 8 * bs);
		ext2_test_check(t, f, 6, 16 * bs, 3 * bs + bs / 2);
		ext2_test_check(t, f, -1, 19 * bs + bs / 2, 8 * bs + bs / 2);
		ext2_test_check(t, f, 6, 28 * bs, 4 * bs);
		drop(t);
	}
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void collapse_and_insert(struct ktest *t)
{
	const char *f = "/ext4f_shift";
	uint64_t bs = ext2_test_bsize(t);
	struct tree_info ti;

	KTEST_ASSERT_EQ(t, write_range(f, 11, 0, 32 * bs), 0);
	/* ext4's errno: not block-aligned, reaching EOF, at EOF */
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, bs / 2, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 8 * bs, 24 * bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 4 * bs, bs + 1, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 32 * bs, bs, -EINVAL);
	/* collapse 8..15: 16..31 move down by 8 */
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 8 * bs, 8 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 24 * bs);
	KTEST_EXPECT_EQ(t, tree_of(t, f).blocks, 24);
	/* insert 4 blocks at 4: cuts the first extent in two */
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 4 * bs, 4 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 28 * bs);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.blocks, 24);
	KTEST_EXPECT_EQ(t, ti.extents, disk_runs(t, f, 28));
	for (int pass = 0; pass < 2; pass++) {
		ext2_test_check(t, f, 11, 0, 4 * bs);
		ext2_test_check(t, f, -1, 4 * bs, 4 * bs);
		ext2_test_check_moved(
		    t, f, 11, 8 * bs, 4 * bs, -4 * (int64_t)bs);
		ext2_test_check_moved(
		    t, f, 11, 12 * bs, 16 * bs, 4 * (int64_t)bs);
		drop(t);
	}
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* A node of the tree corrupted on disk and in the cache: a write that
 * must go through it fails with EUCLEAN (the console names the inode and
 * the block), allocating nothing; mended, the write goes through. */
static void bad_header_on_write(struct ktest *t)
{
	const char *f = "/ext4f_bad";
	uint64_t bs = ext2_test_bsize(t);
	struct ext3_extent_header *root;
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	struct inode *inode;
	struct ext2_buf *b;
	struct file *file;
	uint32_t leaf, free0;

	write_sparse(t, f, 6, false); /* 6 extents: a depth-1 tree */
	inode = vfs_lookup(f);
	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(inode));
	root = (void *)EXT2_I(inode)->i_data;
	KTEST_ASSERT_EQ(t, root->eh_depth, 1);
	leaf = idx_first(root)[0].ei_leaf;
	iput(inode);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
	b = ext2_bread(sbi, leaf);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	((struct ext3_extent_header *)b->b_data)->eh_magic = 0x1234;
	ext2_bmark_dirty(b);
	KTEST_EXPECT_EQ(t, ext2_bwrite(sbi, b), 0);
	drop(t);
	free0 = ext2_test_free_blocks(t);
	file = vfs_open(f, O_WRONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(file));
	KTEST_EXPECT_EQ(t, write_block(file, bs, 1, 8), -EUCLEAN);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), free0);
	/* mended: the write maps block 1 */
	((struct ext3_extent_header *)b->b_data)->eh_magic = EXT3_EXT_MAGIC;
	ext2_bmark_dirty(b);
	KTEST_EXPECT_EQ(t, ext2_bwrite(sbi, b), 0);
	ext2_brelse(sbi, b);
	KTEST_EXPECT_EQ(t, write_block(file, bs, 1, 8), 0);
	fput(file);
	ext2_test_check(t, f, 8, bs, bs);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static struct ktest_case falloc_cases[] = {
	KTEST_CASE(unwritten_reads_zero_and_splits),
	KTEST_CASE(keep_size_past_eof),
	KTEST_CASE(punch_and_zero),
	KTEST_CASE(collapse_and_insert),
	KTEST_CASE(bad_header_on_write),
	{},
};
KTEST_SUITE(ext4_falloc, falloc_cases);

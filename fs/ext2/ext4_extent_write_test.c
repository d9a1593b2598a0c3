/*
 * fs/ext2/ext4_extent_write_test.c: suite ext4_extent_write - writing through
 * extent trees on the root ext4 (the ext4w_* boots: mke2fs -t ext4 without
 * journal, metadata_csum and dir_index; 1, 2 and 4 KiB blocks).
 *
 * Expected values come from stated rules: the bytes written (the pattern
 * of ext2_test.h) or zeroes (holes, unwritten extents); one extent per
 * run of blocks that follow one another on disk and in the file, in one
 * state (ext2_map_run's runs are the oracle for the disk side); i_blocks
 * = data blocks + tree blocks (the nodes are counted by walking the tree
 * with the read side's checks); the free count back where it was once a
 * file is gone; Linux's errno. After the boot, tools/boots.py runs e2fsck
 * -fn (which checks every node, i_blocks and the bitmaps) and reads the
 * files the suite keeps with debugfs (ext2tree.check_ext4_write).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "ext4_test.h"

static void
walk(struct inode *inode, struct ext3_extent_header *eh, struct tree_info *ti)
{
	for (int i = 0; i < eh->eh_entries && !ti->err; i++) {
		struct ext3_extent_idx *ix = &idx_first(eh)[i];
		struct ext2_buf *b;

		if (!eh->eh_depth) {
			struct ext3_extent *ex = &ext_first(eh)[i];

			ti->extents++;
			ti->unwritten += ext_unwritten(ex);
			ti->blocks += ext_len(ex);
			continue;
		}
		b = ext_read_node(
		    inode, idx_pblk(ix), eh->eh_depth - 1, ix->ei_block);
		if (IS_ERR(b)) {
			ti->err = PTR_ERR(b);
			return;
		}
		ti->nodes++;
		walk(inode, b->b_data, ti);
		ext2_brelse(EXT2_SBI(inode->i_sb), b);
	}
}

struct tree_info tree_of(struct ktest *t, const char *path)
{
	struct inode *inode = vfs_lookup(path);
	struct tree_info ti = { 0 };
	struct ext3_extent_header *root;

	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(inode));
	KTEST_EXPECT_TRUE(t, ext2_has_extents(inode));
	mutex_lock(&EXT2_I(inode)->i_map_lock);
	root = (void *)EXT2_I(inode)->i_data;
	ti.depth = root->eh_depth;
	walk(inode, root, &ti);
	mutex_unlock(&EXT2_I(inode)->i_map_lock);
	KTEST_EXPECT_EQ(t, ti.err, 0);
	/* i_blocks: every data block and every node block */
	KTEST_EXPECT_EQ(
	    t,
	    ext2_test_iblocks(path),
	    (long long)((ti.blocks + ti.nodes) * (ext2_test_bsize(t) / 512)));
	iput(inode);
	return ti;
}

/* Runs of blocks that follow one another on disk, as the read side maps
 * them (holes and unwritten blocks end a run and are not counted). */
unsigned int disk_runs(struct ktest *t, const char *path, uint64_t n)
{
	struct inode *inode = vfs_lookup(path);
	unsigned int runs = 0;

	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(inode));
	for (uint64_t lblk = 0; lblk < n;) {
		uint32_t pblk;
		uint64_t len;

		KTEST_ASSERT_EQ(
		    t, ext2_map_run(inode, lblk, UINT32_MAX, &pblk, &len), 0);
		runs += pblk != 0;
		lblk += len;
	}
	iput(inode);
	return runs;
}

int write_range(const char *path, int seed, uint64_t pos, uint64_t len)
{
	struct file *f = vfs_open(path, O_WRONLY | O_CREAT, 0644);
	uint8_t *buf = kmalloc(len, GFP_KERNEL);
	loff_t p = (loff_t)pos;
	ssize_t w = -ENOMEM;

	if (IS_ERR(f)) {
		kfree(buf);
		return PTR_ERR(f);
	}
	if (buf) {
		for (uint64_t i = 0; i < len; i++)
			buf[i] = ext2_test_pattern(seed, pos + i);
		w = vfs_write(f, buf, len, &p);
	}
	kfree(buf);
	fput(f);
	return w == (ssize_t)len ? 0 : w < 0 ? (int)w : -EIO;
}

int write_block(struct file *f, uint64_t bs, uint64_t lblk, int seed)
{
	uint8_t *buf = kmalloc(bs, GFP_KERNEL);
	loff_t pos = (loff_t)(lblk * bs);
	ssize_t w;

	if (!buf)
		return -ENOMEM;
	for (uint64_t i = 0; i < bs; i++)
		buf[i] = ext2_test_pattern(seed, lblk * bs + i);
	w = vfs_write(f, buf, bs, &pos);
	kfree(buf);
	return w == (ssize_t)bs ? 0 : w < 0 ? (int)w : -EIO;
}

/* ---- new files, merging ---- */

static void new_file_gets_extents(struct ktest *t)
{
	const char *f = "/ext4w_new";
	struct inode *inode;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 3, 0, 10), 0);
	inode = vfs_lookup(f);
	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(inode));
	/* as Linux: EXT4_EXTENTS_FL, a root of 4 entries at depth 0 */
	KTEST_EXPECT_TRUE(t, EXT2_I(inode)->i_flags & EXT4_EXTENTS_FL);
	KTEST_EXPECT_EQ(
	    t, ((struct ext3_extent_header *)EXT2_I(inode)->i_data)->eh_max, 4);
	iput(inode);
	KTEST_EXPECT_EQ(t, tree_of(t, f).extents, 1);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void sequential_writes_merge(struct ktest *t)
{
	const char *f = "/ext4w_seq"; /* kept: debugfs reads it */
	uint64_t bs = ext2_test_bsize(t), n = 300;
	struct tree_info ti;

	for (int i = 0; i < 3; i++)
		KTEST_ASSERT_EQ(
		    t, ext2_test_write(f, 5, i * n / 3 * bs, n / 3 * bs), 0);
	drop(t);
	ext2_test_check(t, f, 5, 0, n * bs);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.blocks, n);
	/* one extent per run on disk: contiguous blocks joined */
	KTEST_EXPECT_EQ(t, ti.extents, disk_runs(t, f, n));
	KTEST_EXPECT_EQ(t, ti.unwritten, 0);
}

/* ---- splits, growth, truncate ---- */

/* One block in every other: @n extents, none can merge. */
void write_sparse(struct ktest *t, const char *f, uint64_t n, bool down)
{
	uint64_t bs = ext2_test_bsize(t);
	struct file *file = vfs_open(f, O_WRONLY | O_CREAT, 0644);

	KTEST_ASSERT_FALSE(t, IS_ERR(file));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t j = down ? n - 1 - i : i;

		if (write_block(file, bs, 2 * j, 7)) {
			KTEST_EXPECT_EQ(t, write_block(file, bs, 2 * j, 7), 0);
			break;
		}
	}
	fput(file);
}

void check_sparse(struct ktest *t, const char *f, uint64_t n)
{
	uint64_t bs = ext2_test_bsize(t);

	for (uint64_t j = 0; j < n; j++) {
		if (!ext2_test_check(t, f, 7, 2 * j * bs, bs) ||
		    (j + 1 < n &&
		     !ext2_test_check(t, f, -1, (2 * j + 1) * bs, bs)))
			break;
	}
}

static void split_and_grow(struct ktest *t, bool down)
{
	const char *f = down ? "/ext4w_down" : "/ext4w_up";
	uint64_t bs = ext2_test_bsize(t), leaf = (bs - 12) / 12;
	/* more extents than 4 full leaves: the tree needs depth 2 */
	uint64_t n = 4 * leaf + 20;
	uint32_t free0 = ext2_test_free_blocks(t);
	struct tree_info ti;

	write_sparse(t, f, n, down);
	drop(t);
	check_sparse(t, f, n);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.extents, n);
	KTEST_EXPECT_EQ(t, ti.blocks, n);
	KTEST_EXPECT_EQ(t, ti.depth, 2);
	/* the blocks used: data and nodes, nothing else */
	KTEST_EXPECT_EQ(t, free0 - ext2_test_free_blocks(t), n + ti.nodes);
	/* cut in the middle of the extents, then to nothing */
	KTEST_EXPECT_EQ(t, truncate(f, (loff_t)(n * bs)), 0);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.extents, n / 2);
	drop(t);
	check_sparse(t, f, n / 2);
	KTEST_EXPECT_EQ(t, truncate(f, 0), 0);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.extents, 0);
	KTEST_EXPECT_EQ(t, ti.depth, 0);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), 0);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), free0);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void split_appending(struct ktest *t)
{
	split_and_grow(t, false);
}

static void split_inserting_first(struct ktest *t)
{
	split_and_grow(t, true);
}

/* Kept for debugfs: a depth-1 tree with holes (ext2tree.py). */
static void sparse_kept(struct ktest *t)
{
	const char *f = "/ext4w_sparse";
	uint64_t n = 40;

	write_sparse(t, f, n, false);
	drop(t);
	check_sparse(t, f, n);
	KTEST_EXPECT_EQ(t, tree_of(t, f).depth, 1);
}

/* swapext of two extent trees of depth 1 on a metadata_csum image: each
 * tree's node blocks are checksummed for their new inode (extent_reseed.c).
 * Read back from the disk, each file has the other's bytes and its tree
 * passes the read side's checks (a node still carrying the old inode's
 * checksum fails with EBADMSG); e2fsck checks the tails after the boot,
 * and debugfs the bytes of both files, which are kept. */
static void swapext_moves_checksummed_trees(struct ktest *t)
{
	const char *a = "/ext4w_swap_a", *b = "/ext4w_swap_b";
	struct file *fa, *fb;

	write_sparse(t, a, 40, false);
	write_sparse(t, b, 30, false);
	KTEST_ASSERT_EQ(t, tree_of(t, a).depth, 1);
	KTEST_ASSERT_EQ(t, tree_of(t, b).depth, 1);
	fa = vfs_open(a, O_RDWR, 0);
	fb = vfs_open(b, O_RDWR, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(fa) || IS_ERR(fb));
	KTEST_EXPECT_EQ(t, vfs_swapext(fa, fb), 0);
	fput(fa);
	fput(fb);
	drop(t);
	check_sparse(t, a, 30);
	check_sparse(t, b, 40);
	KTEST_EXPECT_EQ(
	    t, ext2_test_size(a), (long long)(59 * ext2_test_bsize(t)));
	KTEST_EXPECT_EQ(t, tree_of(t, a).extents, 30);
	KTEST_EXPECT_EQ(t, tree_of(t, b).extents, 40);
}

static struct ktest_case write_cases[] = {
	KTEST_CASE(new_file_gets_extents),
	KTEST_CASE(sequential_writes_merge),
	KTEST_CASE(split_appending),
	KTEST_CASE(split_inserting_first),
	KTEST_CASE(sparse_kept),
	KTEST_CASE(swapext_moves_checksummed_trees),
	{},
};
KTEST_SUITE(ext4_extent_write, write_cases);

/*
 * fs/ext2/ext2_tail_test.c: suite ext2_tail - bytes past EOF never come
 * back. A file cut to a size inside a block and then extended (truncate up
 * or a write past the end) reads zeroes from the old end on, as POSIX
 * requires of the gap, whether the block was cached or read cold from
 * disk (vfs_drop_caches between the steps), and the zeroes reach the disk.
 *
 * The files are in the image from the start (tools/ext2tree.py, made by
 * mke2fs -d), so their blocks hold the pattern past every later EOF: old
 * bytes there would show. Two of them (tail/stale_*) were shrunk on the
 * host with `debugfs sif` after mke2fs, which leaves the old bytes past
 * EOF on disk: extending them must still read zeroes. tools/ext2tree.py
 * (expected_after_tail) checks the bytes the suite leaves with debugfs
 * dumps after the boot; keep the two in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "ext2.h"
#include "ext2_test.h"

#define TAIL_SIZE  9000 /* tail/t*: seed 40 + n */
#define STALE_SIZE 100	/* tail/stale_*: 1024 bytes of seed 50 + n cut */

static int truncate_path(const char *path, loff_t size)
{
	struct inode *inode = vfs_lookup(path);
	int err;

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	err = vfs_truncate(inode, size);
	iput(inode);
	return err;
}

/* Drop the page cache: the next read comes from disk. */
static void drop(struct ktest *t)
{
	KTEST_EXPECT_TRUE(t, vfs_drop_caches() >= 0);
}

/* @path has @size bytes: @seed's pattern up to @keep, zeroes up to @zero,
 * then (if any) @seed's pattern again. Read from the cache, then from disk. */
static void check_cut(struct ktest *t,
		      const char *path,
		      int seed,
		      loff_t keep,
		      loff_t zero,
		      loff_t size)
{
	for (int pass = 0; pass < 2; pass++) {
		KTEST_EXPECT_EQ(t, ext2_test_size(path), size);
		ext2_test_check(t, path, seed, 0, keep);
		ext2_test_check(t, path, -1, keep, zero - keep);
		ext2_test_check(t, path, seed, zero, size - zero);
		drop(t);
	}
}

/* Cut cold, grow with truncate: the EOF block is read from disk. */
static void tail_truncate_up_cold(struct ktest *t)
{
	drop(t);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t0", 1500), 0);
	drop(t);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t0", TAIL_SIZE), 0);
	check_cut(t, "/tail/t0", 40, 1500, TAIL_SIZE, TAIL_SIZE);
}

/* Cut cold, grow with a write past EOF into a later page. */
static void tail_write_past_eof_cold(struct ktest *t)
{
	drop(t);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t1", 2500), 0);
	drop(t);
	KTEST_ASSERT_EQ(t, ext2_test_write("/tail/t1", 41, 7000, 100), 0);
	check_cut(t, "/tail/t1", 41, 2500, 7000, 7100);
}

/* The whole file cached when cut; the cache dropped before it grows. */
static void tail_cut_cached(struct ktest *t)
{
	ext2_test_check(t, "/tail/t2", 42, 0, TAIL_SIZE);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t2", 700), 0);
	drop(t);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t2", 5000), 0);
	check_cut(t, "/tail/t2", 42, 700, 5000, 5000);
}

/* A write past EOF inside the EOF page (a gap of 100 bytes), and a cut at
 * a block boundary (nothing to zero: the blocks past it are freed). */
static void tail_same_page(struct ktest *t)
{
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t3", 1500), 0);
	drop(t);
	KTEST_ASSERT_EQ(t, ext2_test_write("/tail/t3", 43, 1600, 10), 0);
	check_cut(t, "/tail/t3", 43, 1500, 1600, 1610);

	KTEST_ASSERT_EQ(t, truncate_path("/tail/t4", 4096), 0);
	drop(t);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/t4", 8000), 0);
	check_cut(t, "/tail/t4", 44, 4096, 8000, 8000);
}

/* Old bytes past EOF on disk (debugfs sif): extending must zero them. */
static void tail_stale_on_disk(struct ktest *t)
{
	drop(t);
	KTEST_ASSERT_EQ(t, ext2_test_size("/tail/stale_w"), STALE_SIZE);
	KTEST_ASSERT_EQ(t, ext2_test_write("/tail/stale_w", 50, 3000, 10), 0);
	check_cut(t, "/tail/stale_w", 50, STALE_SIZE, 3000, 3010);

	KTEST_ASSERT_EQ(t, ext2_test_size("/tail/stale_t"), STALE_SIZE);
	KTEST_ASSERT_EQ(t, truncate_path("/tail/stale_t", 2000), 0);
	check_cut(t, "/tail/stale_t", 51, STALE_SIZE, 2000, 2000);
}

/* The cut writes the new EOF block at once, before it frees the blocks
 * past it: read straight from the disk, with no sync in between, the
 * block holds the kept bytes and then zeroes. */
static void tail_cut_on_disk_at_once(struct ktest *t)
{
	struct inode *inode = vfs_lookup("/tail/t5");
	struct ext2_sb_info *sbi;
	uint32_t bs, pblk = 0;
	uint64_t lblk, hole;
	loff_t cut = 3000;
	uint8_t *buf;

	KTEST_ASSERT_FALSE(t, IS_ERR(inode));
	sbi = EXT2_SBI(inode->i_sb);
	bs = inode->i_sb->s_blocksize;
	lblk = cut / bs;
	buf = kmalloc(bs, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, buf);
	drop(t);
	KTEST_EXPECT_EQ(t, vfs_truncate(inode, cut), 0);
	KTEST_EXPECT_EQ(t, ext2_get_block(inode, lblk, false, &pblk, &hole), 0);
	KTEST_EXPECT_NE(t, pblk, 0);
	if (pblk && !ext2_read_blocks(sbi, pblk, buf, 1)) {
		for (uint32_t i = 0; i < bs; i++) {
			uint64_t off = lblk * bs + i;
			uint8_t want =
			    (loff_t)off < cut ? ext2_test_pattern(45, off) : 0;

			if (buf[i] != want) {
				KTEST_EXPECT_EQ(t, buf[i], want);
				break;
			}
		}
	}
	kfree(buf);
	iput(inode);
	check_cut(t, "/tail/t5", 45, cut, cut, cut);
}

static void tail_sync(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
}

static struct ktest_case ext2_tail_cases[] = {
	KTEST_CASE(tail_truncate_up_cold),
	KTEST_CASE(tail_write_past_eof_cold),
	KTEST_CASE(tail_cut_cached),
	KTEST_CASE(tail_same_page),
	KTEST_CASE(tail_stale_on_disk),
	KTEST_CASE(tail_cut_on_disk_at_once),
	KTEST_CASE(tail_sync),
	{},
};
KTEST_SUITE(ext2_tail, ext2_tail_cases);

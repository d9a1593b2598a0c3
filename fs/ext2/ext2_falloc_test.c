/*
 * fs/ext2/ext2_falloc_test.c: suite ext2_falloc - fallocate(2) on the root
 * ext2 (the vfs_* boots' images, 1, 2 and 4 KiB blocks) and on the root
 * ext4 of the ext4w_* boots (extent-mapped files; e2fsck afterwards).
 *
 * Expected values come from the rules, stated at each check: Linux's
 * errno for each bad call (vfs_fallocate of Linux 5.15, ext4_fallocate),
 * the bytes each mode leaves (the pattern of ext2_test.h, or zeroes), and
 * i_blocks = (data blocks + the indirect blocks they need, or on ext4 the
 * extent tree's nodes) * blocksize/512 (RULE_BLOCKS). Where ext4's rule is
 * not ext2's the case says so: ext4 maps preallocated blocks past EOF
 * (unwritten extents, KEEP_SIZE), ext2's map cannot hold them.
 * tools/test_fs_falloc.py checks the same against host xfs_io and debugfs;
 * ext2_falloc_nospc_test.c runs out of space.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/trace.h>
#include <fs/internal.h>
#include "ext2.h"
#include "ext2_test.h"

/* ---- errors: Linux's errno, nothing changed ---- */

static void falloc_errno(struct ktest *t)
{
	const char *f = "/falloc_errno";
	uint64_t bs = ext2_test_bsize(t), max;
	long long before;
	struct file *dir;
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 1, 0, 10 * bs), 0);
	before = ext2_test_iblocks(f);
	max = ext2_test_max_blocks(t, f);
	/* vfs_fallocate: argument and flag checks, in Linux's order. */
	EXPECT_FALLOC(t, f, O_RDWR, 0, -1, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, 0, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, -5, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, 0x80, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(
	    t, f, O_RDWR, FALLOC_FL_NO_HIDE_STALE, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, FA_PUNCH | FA_ZERO, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, FALLOC_FL_PUNCH_HOLE, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE | FA_KEEP, 0, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE | FA_PUNCH, 0, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT | FA_KEEP, 0, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT | FA_ZERO, 0, bs, -EINVAL);
	EXPECT_FALLOC(
	    t, f, O_RDWR, FALLOC_FL_UNSHARE_RANGE | FA_ZERO, 0, bs, -EINVAL);
	/* Flags before access: a read-only descriptor is EBADF. */
	EXPECT_FALLOC(t, f, O_RDONLY, FA_PUNCH, 0, bs, -EBADF);
	EXPECT_FALLOC(t, f, O_RDONLY, 0, 0, bs, -EBADF);
	KTEST_EXPECT_EQ(t, fallocate(1000, 0, 0, 1) ? errno : 0, EBADF);
	/* A directory cannot be open for writing: EBADF; were it, EISDIR. */
	EXPECT_FALLOC(t, "/", O_RDONLY, 0, 0, bs, -EBADF);
	dir = file_alloc(vfs_lookup("/"), O_RDWR);
	KTEST_ASSERT_NOT_NULL(t, dir);
	KTEST_EXPECT_EQ(t, vfs_fallocate(dir, 0, 0, bs), -EISDIR);
	fput(dir);
	/* The console is a character device to Linux: ENODEV. */
	KTEST_EXPECT_EQ(t, fallocate(1, 0, 0, 1) ? errno : 0, ENODEV);
	/* Past the largest file, or wrapping: EFBIG. */
	EXPECT_FALLOC(t, f, O_RDWR, 0, LLONG_MAX - 10, 100, -EFBIG);
	EXPECT_FALLOC(t, f, O_RDWR, 0, (off_t)(max * bs), 1, -EFBIG);
	EXPECT_FALLOC(
	    t, f, O_RDWR, FA_INSERT, 0, (off_t)(max * bs) - 4 * bs, -EFBIG);
	/* ext4_fallocate: what ext2 lacks, alignment, EOF rules. */
	EXPECT_FALLOC(
	    t, f, O_RDWR, FALLOC_FL_UNSHARE_RANGE, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 1, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, bs, bs - 1, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, bs / 2, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 2 * bs, 8 * bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 0, 12 * bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 10 * bs, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 20 * bs, bs, -EINVAL);
	/* Nothing changed. */
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 10 * bs);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), before);
	ext2_test_check(t, f, 1, 0, 10 * bs);
	/* posix_fallocate returns the error instead of setting errno. */
	fd = open(f, O_RDONLY);
	errno = 0;
	KTEST_EXPECT_EQ(t, posix_fallocate(fd, 0, bs), EBADF);
	KTEST_EXPECT_EQ(t, errno, 0);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* ---- each mode: bytes, size, i_blocks ---- */

static void falloc_prealloc(struct ktest *t)
{
	const char *f = "/falloc_pre";
	uint64_t bs = ext2_test_bsize(t);

	/* Mode 0 past EOF: the size grows to off + len, the range reads as
	 * zeroes, every block it touches is allocated: 2 bs + 10 .. 5 bs + 3
	 * touches blocks 2..5. */
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 2, 0, 100), 0);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 2 * bs + 10, 3 * bs - 7, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 5 * bs + 3);
	KTEST_EXPECT_EQ(
	    t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, 1 }, { 2, 6 }));
	ext2_test_check(t, f, 2, 0, 100);
	ext2_test_check(t, f, -1, 100, 5 * bs + 3 - 100);
	/* KEEP_SIZE: the size stays; ext2: blocks only below EOF (its map
	 * holds none past it): 6 is allocated, 7.. are not; ext4: the whole
	 * range, 6..12, unwritten past EOF. */
	KTEST_ASSERT_EQ(t, truncate(f, 7 * bs), 0);
	EXPECT_FALLOC(t, f, O_RDWR, FA_KEEP, 5 * bs, 8 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 7 * bs);
	KTEST_EXPECT_EQ(t,
			ext2_test_iblocks(f),
			ext2_test_extents(t, f)
			    ? RULE_BLOCKS(t, f, { 0, 1 }, { 2, 13 })
			    : RULE_BLOCKS(t, f, { 0, 1 }, { 2, 7 }));
	ext2_test_check(t, f, -1, 100, 7 * bs - 100);
	/* Over data: nothing changes. */
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, 100, 0);
	ext2_test_check(t, f, 2, 0, 100);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void falloc_punch(struct ktest *t)
{
	const char *f = "/falloc_punch";
	uint64_t bs = ext2_test_bsize(t),
		 n = 12 + bs / 4 + 40; /* 40 double-indirect */
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 3, 0, n * bs), 0);
	/* Bytes [bs/2, 20 bs + 7) read zero; the whole blocks 1..19 are
	 * freed, the partial ones at both ends stay. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_PUNCH, bs / 2, 20 * bs + 7 - bs / 2, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), n * bs);
	ext2_test_check(t, f, 3, 0, bs / 2);
	ext2_test_check(t, f, -1, bs / 2, 20 * bs + 7 - bs / 2);
	ext2_test_check(t, f, 3, 20 * bs + 7, (n - 20) * bs - 7);
	KTEST_EXPECT_EQ(
	    t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, 1 }, { 20, n }));
	/* lseek sees the hole: blocks 1..19, from the block map. */
	fd = open(f, O_RDONLY);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_HOLE), (off_t)bs);
	KTEST_EXPECT_EQ(t, lseek(fd, bs, SEEK_DATA), (off_t)(20 * bs));
	KTEST_EXPECT_EQ(t, lseek(fd, 20 * bs, SEEK_HOLE), (off_t)(n * bs));
	errno = 0;
	KTEST_EXPECT_EQ(t, lseek(fd, n * bs, SEEK_DATA), -1);
	KTEST_EXPECT_EQ(t, errno, ENXIO);
	close(fd);
	/* Everything from block 12 on: the single, double and child
	 * indirect blocks are left empty and freed too. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_PUNCH, 12 * bs, (n - 12) * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, 1 }));
	ext2_test_check(t, f, -1, bs / 2, (n - 1) * bs);
	/* At or past EOF: nothing. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_PUNCH, n * bs, bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), n * bs);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void falloc_zero(struct ktest *t)
{
	const char *f = "/falloc_zero";
	uint64_t bs = ext2_test_bsize(t);

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 4, 0, 4 * bs), 0);
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 4, 8 * bs, bs), 0);
	/* Over data and the hole 4..7: zero, the hole allocated (blocks
	 * 0..8), the size unchanged. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_ZERO, 100, 8 * bs, 0);
	ext2_test_check(t, f, 4, 0, 100);
	ext2_test_check(t, f, -1, 100, 8 * bs);
	ext2_test_check(t, f, 4, 8 * bs + 100, bs - 100);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, 9 }));
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 9 * bs);
	/* KEEP_SIZE past EOF: the size stays; ext2 allocates nothing past
	 * EOF, ext4 the blocks the range touches (9..11, unwritten). */
	EXPECT_FALLOC(t, f, O_RDWR, FA_ZERO | FA_KEEP, 9 * bs - 10, 3 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 9 * bs);
	ext2_test_check(t, f, -1, 9 * bs - 10, 10);
	ext2_test_check(t, f, 4, 8 * bs + 100, bs - 110);
	KTEST_EXPECT_EQ(t,
			ext2_test_iblocks(f),
			ext2_test_extents(t, f) ? RULE_BLOCKS(t, f, { 0, 12 })
						: RULE_BLOCKS(t, f, { 0, 9 }));
	/* Without KEEP_SIZE past EOF: the size becomes off + len, blocks
	 * 10..12 are allocated (12: the first single-indirect one); ext4
	 * kept 9 from the call before. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_ZERO, 10 * bs, 2 * bs + 1, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs + 1);
	ext2_test_check(t, f, -1, 9 * bs, 3 * bs + 1);
	KTEST_EXPECT_EQ(t,
			ext2_test_iblocks(f),
			ext2_test_extents(t, f)
			    ? RULE_BLOCKS(t, f, { 0, 13 })
			    : RULE_BLOCKS(t, f, { 0, 9 }, { 10, 13 }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void falloc_collapse_insert(struct ktest *t)
{
	const char *f = "/falloc_shift";
	uint64_t bs = ext2_test_bsize(t), apb = bs / 4;
	uint64_t dind = 12 + apb; /* first double-indirect block */
	uint64_t n = dind + 2 * apb + 5;

	/* Blocks 0 .. n-1: direct, single and three double-indirect
	 * children. */
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 5, 0, n * bs), 0);
	/* Collapse [3, 3 + apb): everything after moves down apb blocks,
	 * across the level boundaries; the last child empties and goes. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 3 * bs, apb * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), (n - apb) * bs);
	ext2_test_check_moved(t, f, 5, 0, 3 * bs, 0);
	ext2_test_check_moved(t, f, 5, 3 * bs, (n - apb - 3) * bs, apb * bs);
	KTEST_EXPECT_EQ(
	    t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, n - apb }));
	/* Insert it back as a hole: the old places, the range reads zero. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 3 * bs, apb * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), n * bs);
	ext2_test_check_moved(t, f, 5, 0, 3 * bs, 0);
	ext2_test_check(t, f, -1, 3 * bs, apb * bs);
	ext2_test_check_moved(t, f, 5, (3 + apb) * bs, (n - apb - 3) * bs, 0);
	KTEST_EXPECT_EQ(t,
			ext2_test_iblocks(f),
			RULE_BLOCKS(t, f, { 0, 3 }, { 3 + apb, n }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* TRACE_BLOCK_FREE events of inode *@arg (the first word of @arg), counted
 * in the second. */
static void count_frees(const struct trace_event *e, void *arg)
{
	unsigned long *c = arg;

	if (e->type == TRACE_BLOCK_FREE && e->b >> 32 == c[0])
		c[1]++;
}

/* A punch frees each run of blocks that follow each other on disk with
 * one bitmap update (one ext2_free_blocks, one TRACE_BLOCK_FREE), not a
 * block at a time: the exclusive hold of invalidate_lock is that short. */
static void falloc_punch_frees_runs(struct ktest *t)
{
	const char *f = "/falloc_runs";
	uint64_t bs = ext2_test_bsize(t), first = 20, end = 20 + 40;
	uint32_t free_before = 0;
	unsigned long runs = 0, c[2] = { 0, 0 };
	struct inode *inode;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 4, 0, (end + 8) * bs), 0);
	inode = vfs_lookup(f);
	KTEST_ASSERT_NOT_NULL(t, inode);
	/* The rule: the runs the map has in [first, end). */
	for (uint64_t lblk = first; lblk < end;) {
		uint32_t pblk;
		uint64_t len;

		KTEST_ASSERT_EQ(
		    t,
		    ext2_map_run(
			inode, lblk, (uint32_t)(end - lblk), &pblk, &len),
		    0);
		KTEST_ASSERT_TRUE(t, pblk != 0 && len > 0);
		lblk += len;
		runs++;
	}
	c[0] = inode->i_ino;
	free_before = ext2_test_free_blocks(t);
	KTEST_ASSERT_EQ(t, trace_start(4), 0);
	EXPECT_FALLOC(
	    t, f, O_RDWR, FA_PUNCH, first * bs, (end - first) * bs, 0);
	trace_stop();
	trace_for_each(count_frees, c);
	KTEST_EXPECT_EQ(t, c[1], runs);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), free_before + end - first);
	KTEST_EXPECT_EQ(t,
			ext2_test_iblocks(f),
			RULE_BLOCKS(t, f, { 0, first }, { end, end + 8 }));
	ext2_test_check(t, f, 4, 0, first * bs);
	ext2_test_check(t, f, -1, first * bs, (end - first) * bs);
	ext2_test_check(t, f, 4, end * bs, 8 * bs);
	iput(inode);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static struct ktest_case falloc_cases[] = {
	KTEST_CASE(falloc_punch_frees_runs),
	KTEST_CASE(falloc_errno),
	KTEST_CASE(falloc_prealloc),
	KTEST_CASE(falloc_punch),
	KTEST_CASE(falloc_zero),
	KTEST_CASE(falloc_collapse_insert),
	{},
};
KTEST_SUITE(ext2_falloc, falloc_cases);

/*
 * fs/ext2/ext2_falloc_test.c: suite ext2_falloc - fallocate(2) on the root
 * ext2 (the vfs_* boots' images, 1 and 4 KiB blocks; e2fsck afterwards).
 *
 * Expected values come from the rules, stated at each check: Linux's
 * errno for each bad call (vfs_fallocate of Linux 5.15, ext4_fallocate),
 * the bytes each mode leaves (the pattern of ext2_test.h, or zeroes), and
 * i_blocks = (data blocks + the indirect blocks they need) * blocksize/512.
 * tools/test_fs_falloc.py checks the same against host xfs_io and debugfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <fs/internal.h>
#include "ext2.h"
#include "ext2_test.h"

#define KEEP	 FALLOC_FL_KEEP_SIZE
#define PUNCH	 (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define ZERO	 FALLOC_FL_ZERO_RANGE
#define COLLAPSE FALLOC_FL_COLLAPSE_RANGE
#define INSERT	 FALLOC_FL_INSERT_RANGE

static struct ext2_sb_info *root_sbi(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();

	KTEST_ASSERT_NOT_NULL(t, sb);
	return EXT2_SBI(sb);
}

static uint64_t bsize(struct ktest *t)
{
	return root_sbi(t)->s_sb->s_blocksize;
}

/* i_blocks of @path, or -1. */
static long long iblocks(const char *path)
{
	struct inode *inode = vfs_lookup(path);
	long long n;

	if (IS_ERR(inode))
		return -1;
	n = inode->i_blocks;
	iput(inode);
	return n;
}

static uint32_t free_blocks(struct ktest *t)
{
	return READ_ONCE(root_sbi(t)->s_es.s_free_blocks_count);
}

/* Logical blocks [start, end), ascending. */
struct brun {
	uint64_t start, end;
};

/*
 * The rule for i_blocks (512-byte units): the data blocks of @r plus the
 * indirect blocks they need: the single-indirect one if any block lies in
 * 12 .. 12 + apb - 1, the double-indirect one and one child per apb
 * blocks in use past that (apb = blocksize / 4; no triple here).
 */
static long long
rule_blocks(struct ktest *t, const struct brun *r, unsigned int nr)
{
	uint64_t bs = bsize(t), apb = bs / 4, dind = 12 + apb;
	uint64_t data = 0, meta = 0, last_child = UINT64_MAX;
	bool single = false, dbl = false;

	for (unsigned int i = 0; i < nr; i++) {
		for (uint64_t b = r[i].start; b < r[i].end; b++, data++) {
			KTEST_ASSERT_LT(t, b, dind + apb * apb);
			single |= b >= 12 && b < dind;
			if (b >= dind && (b - dind) / apb != last_child) {
				dbl = true;
				last_child = (b - dind) / apb;
				meta++;
			}
		}
	}
	return (long long)((data + meta + single + dbl) * (bs / 512));
}

#define RULE_BLOCKS(t, ...)                                        \
	rule_blocks(t,                                             \
		    (const struct brun[]){ __VA_ARGS__ },          \
		    sizeof((const struct brun[]){ __VA_ARGS__ }) / \
			sizeof(struct brun))

/* fallocate on a fresh descriptor of @path opened with @flags. */
static int
fallocate_path(const char *path, int flags, int mode, off_t off, off_t len)
{
	int fd = open(path, flags), ret;

	if (fd < 0)
		return -errno;
	ret = fallocate(fd, mode, off, len) ? -errno : 0;
	close(fd);
	return ret;
}

#define EXPECT_FALLOC(t, path, flags, mode, off, len, want) \
	KTEST_EXPECT_EQ(t, fallocate_path(path, flags, mode, off, len), want)

/* ---- errors: Linux's errno, nothing changed ---- */

static void falloc_errno(struct ktest *t)
{
	const char *f = "/falloc_errno";
	uint64_t bs = bsize(t);
	long long before;
	struct file *dir;
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 1, 0, 10 * bs), 0);
	before = iblocks(f);
	/* vfs_fallocate: argument and flag checks, in Linux's order. */
	EXPECT_FALLOC(t, f, O_RDWR, 0, -1, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, 0, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, -5, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, 0x80, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(
	    t, f, O_RDWR, FALLOC_FL_NO_HIDE_STALE, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, PUNCH | ZERO, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, FALLOC_FL_PUNCH_HOLE, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE | KEEP, 0, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE | PUNCH, 0, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, INSERT | KEEP, 0, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, INSERT | ZERO, 0, bs, -EINVAL);
	EXPECT_FALLOC(
	    t, f, O_RDWR, FALLOC_FL_UNSHARE_RANGE | ZERO, 0, bs, -EINVAL);
	/* Flags before access: a read-only descriptor is EBADF. */
	EXPECT_FALLOC(t, f, O_RDONLY, PUNCH, 0, bs, -EBADF);
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
	EXPECT_FALLOC(t,
		      f,
		      O_RDWR,
		      0,
		      (off_t)(ext2_max_blocks(root_sbi(t)) * bs),
		      1,
		      -EFBIG);
	EXPECT_FALLOC(t,
		      f,
		      O_RDWR,
		      INSERT,
		      0,
		      (off_t)(ext2_max_blocks(root_sbi(t)) * bs) - 4 * bs,
		      -EFBIG);
	/* ext4_fallocate: what ext2 lacks, alignment, EOF rules. */
	EXPECT_FALLOC(
	    t, f, O_RDWR, FALLOC_FL_UNSHARE_RANGE, 0, bs, -EOPNOTSUPP);
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE, 1, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE, bs, bs - 1, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, INSERT, bs / 2, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE, 2 * bs, 8 * bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE, 0, 12 * bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, INSERT, 10 * bs, bs, -EINVAL);
	EXPECT_FALLOC(t, f, O_RDWR, INSERT, 20 * bs, bs, -EINVAL);
	/* Nothing changed. */
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 10 * bs);
	KTEST_EXPECT_EQ(t, iblocks(f), before);
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
	uint64_t bs = bsize(t);

	/* Mode 0 past EOF: the size grows to off + len, the range reads as
	 * zeroes, every block it touches is allocated: 2 bs + 10 .. 5 bs + 3
	 * touches blocks 2..5. */
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 2, 0, 100), 0);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 2 * bs + 10, 3 * bs - 7, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 5 * bs + 3);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 1 }, { 2, 6 }));
	ext2_test_check(t, f, 2, 0, 100);
	ext2_test_check(t, f, -1, 100, 5 * bs + 3 - 100);
	/* KEEP_SIZE: the size stays; blocks only below EOF (ext2's map
	 * holds none past it): 6 is allocated, 7.. are not. */
	KTEST_ASSERT_EQ(t, truncate(f, 7 * bs), 0);
	EXPECT_FALLOC(t, f, O_RDWR, KEEP, 5 * bs, 8 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 7 * bs);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 1 }, { 2, 7 }));
	ext2_test_check(t, f, -1, 100, 7 * bs - 100);
	/* Over data: nothing changes. */
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, 100, 0);
	ext2_test_check(t, f, 2, 0, 100);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void falloc_punch(struct ktest *t)
{
	const char *f = "/falloc_punch";
	uint64_t bs = bsize(t), n = 12 + bs / 4 + 40; /* 40 double-indirect */
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 3, 0, n * bs), 0);
	/* Bytes [bs/2, 20 bs + 7) read zero; the whole blocks 1..19 are
	 * freed, the partial ones at both ends stay. */
	EXPECT_FALLOC(t, f, O_RDWR, PUNCH, bs / 2, 20 * bs + 7 - bs / 2, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), n * bs);
	ext2_test_check(t, f, 3, 0, bs / 2);
	ext2_test_check(t, f, -1, bs / 2, 20 * bs + 7 - bs / 2);
	ext2_test_check(t, f, 3, 20 * bs + 7, (n - 20) * bs - 7);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 1 }, { 20, n }));
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
	EXPECT_FALLOC(t, f, O_RDWR, PUNCH, 12 * bs, (n - 12) * bs, 0);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 1 }));
	ext2_test_check(t, f, -1, bs / 2, (n - 1) * bs);
	/* At or past EOF: nothing. */
	EXPECT_FALLOC(t, f, O_RDWR, PUNCH, n * bs, bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), n * bs);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

static void falloc_zero(struct ktest *t)
{
	const char *f = "/falloc_zero";
	uint64_t bs = bsize(t);

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 4, 0, 4 * bs), 0);
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 4, 8 * bs, bs), 0);
	/* Over data and the hole 4..7: zero, the hole allocated (blocks
	 * 0..8), the size unchanged. */
	EXPECT_FALLOC(t, f, O_RDWR, ZERO, 100, 8 * bs, 0);
	ext2_test_check(t, f, 4, 0, 100);
	ext2_test_check(t, f, -1, 100, 8 * bs);
	ext2_test_check(t, f, 4, 8 * bs + 100, bs - 100);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 9 }));
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 9 * bs);
	/* KEEP_SIZE past EOF: nothing past EOF changes or is allocated. */
	EXPECT_FALLOC(t, f, O_RDWR, ZERO | KEEP, 9 * bs - 10, 3 * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 9 * bs);
	ext2_test_check(t, f, -1, 9 * bs - 10, 10);
	ext2_test_check(t, f, 4, 8 * bs + 100, bs - 110);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 9 }));
	/* Without KEEP_SIZE past EOF: the size becomes off + len, blocks
	 * 10..12 are allocated (12: the first single-indirect one). */
	EXPECT_FALLOC(t, f, O_RDWR, ZERO, 10 * bs, 2 * bs + 1, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs + 1);
	ext2_test_check(t, f, -1, 9 * bs, 3 * bs + 1);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 9 }, { 10, 13 }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* Byte o of the file is now what byte map(o) was when written with
 * @seed: check [@pos, @pos + @len) against the pattern at @pos + @shift. */
static void check_moved(struct ktest *t,
			const char *f,
			unsigned int seed,
			uint64_t pos,
			uint64_t len,
			int64_t shift)
{
	uint8_t buf[256];
	int fd = open(f, O_RDONLY);

	KTEST_ASSERT_GE(t, fd, 0);
	for (uint64_t done = 0; done < len;) {
		size_t n = MIN(sizeof(buf), len - done);
		ssize_t r = pread(fd, buf, n, pos + done);

		KTEST_EXPECT_EQ(t, r, (ssize_t)n);
		for (size_t i = 0; r == (ssize_t)n && i < n; i++) {
			uint8_t want =
			    ext2_test_pattern(seed, pos + done + i + shift);
			if (buf[i] != want) {
				KTEST_EXPECT_EQ(t, buf[i], want);
				ktest_log(t,
					  "at %llu",
					  (unsigned long long)(pos + done + i));
				done = len;
				break;
			}
		}
		done += n;
	}
	close(fd);
}

static void falloc_collapse_insert(struct ktest *t)
{
	const char *f = "/falloc_shift";
	uint64_t bs = bsize(t), apb = bs / 4;
	uint64_t dind = 12 + apb; /* first double-indirect block */
	uint64_t n = dind + 2 * apb + 5;

	/* Blocks 0 .. n-1: direct, single and three double-indirect
	 * children. */
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 5, 0, n * bs), 0);
	/* Collapse [3, 3 + apb): everything after moves down apb blocks,
	 * across the level boundaries; the last child empties and goes. */
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE, 3 * bs, apb * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), (n - apb) * bs);
	check_moved(t, f, 5, 0, 3 * bs, 0);
	check_moved(t, f, 5, 3 * bs, (n - apb - 3) * bs, apb * bs);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, n - apb }));
	/* Insert it back as a hole: the old places, the range reads zero. */
	EXPECT_FALLOC(t, f, O_RDWR, INSERT, 3 * bs, apb * bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), n * bs);
	check_moved(t, f, 5, 0, 3 * bs, 0);
	ext2_test_check(t, f, -1, 3 * bs, apb * bs);
	check_moved(t, f, 5, (3 + apb) * bs, (n - apb - 3) * bs, 0);
	KTEST_EXPECT_EQ(
	    t, iblocks(f), RULE_BLOCKS(t, { 0, 3 }, { 3 + apb, n }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* ---- running out of space changes nothing ---- */

static void falloc_enospc(struct ktest *t)
{
	const char *f = "/falloc_nospc";
	uint64_t bs = bsize(t), total = root_sbi(t)->s_blocks_count;
	uint32_t free_before;
	long long blocks;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 6, 0, 3 * bs), 0);
	blocks = iblocks(f);
	free_before = free_blocks(t);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, total * bs, -ENOSPC);
	EXPECT_FALLOC(t, f, O_RDWR, ZERO, bs, total * bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, free_blocks(t), free_before);
	KTEST_EXPECT_EQ(t, iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 3 * bs);
	ext2_test_check(t, f, 6, 0, 3 * bs);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* Fill the fs until exactly @target blocks are free: preallocate in
 * halving chunks (a failed fallocate changes nothing), then give back or
 * take the few blocks left over (indirect blocks the next chunk needed). */
static void fill_to(struct ktest *t, uint32_t target)
{
	uint64_t bs = bsize(t), size = 0;
	uint64_t chunk = (uint64_t)free_blocks(t) * bs;
	int fd = open("/fill", O_RDWR | O_CREAT, 0644);
	uint32_t left;

	KTEST_ASSERT_GE(t, fd, 0);
	for (; chunk >= bs; chunk = chunk / 2 / bs * bs) {
		while (!fallocate(fd, 0, size, chunk))
			size += chunk;
		KTEST_EXPECT_EQ(t, errno, ENOSPC);
	}
	close(fd);
	left = free_blocks(t);
	KTEST_ASSERT_LE(t, left, 3);
	if (left > target) /* direct blocks of a new file: no indirect */
		KTEST_ASSERT_EQ(
		    t,
		    ext2_test_write("/fill2", 1, 0, (left - target) * bs),
		    0);
	if (left < target)
		EXPECT_FALLOC(
		    t, "/fill", O_RDWR, PUNCH, 0, (target - left) * bs, 0);
	KTEST_ASSERT_EQ(t, free_blocks(t), target);
}

/* A write that runs out of space inside a hole, part way through a page
 * (blocks smaller than a page; one block fewer than the page needs is
 * free): write_begin allocated them before -ENOSPC, and must free exactly
 * those - the old rule freed only blocks past EOF and left them mapped
 * over the hole. With 4 KiB blocks nothing is free and nothing moves. */
static void falloc_write_enospc(struct ktest *t)
{
	const char *f = "/wfail";
	uint64_t bs = bsize(t);
	uint32_t target = PAGE_SIZE / bs - 1; /* one short of the page */
	static char page[PAGE_SIZE];
	long long blocks;
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 7, 0, PAGE_SIZE), 0);
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 7, 2 * PAGE_SIZE, PAGE_SIZE), 0);
	blocks = iblocks(f);
	fill_to(t, target);
	fd = open(f, O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	errno = 0;
	memset(page, 'x', PAGE_SIZE);
	KTEST_EXPECT_EQ(t, pwrite(fd, page, PAGE_SIZE, PAGE_SIZE), -1);
	KTEST_EXPECT_EQ(t, errno, ENOSPC);
	close(fd);
	KTEST_EXPECT_EQ(t, free_blocks(t), target);
	KTEST_EXPECT_EQ(t, iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 3 * PAGE_SIZE);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, -1, PAGE_SIZE, PAGE_SIZE);
	ext2_test_check(t, f, 7, 2 * PAGE_SIZE, PAGE_SIZE);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, unlink("/fill"), 0);
	unlink("/fill2");
}

/* Dirty data over a block the map lost (a bug: write_begin maps what it
 * dirties) is reported and fails the writeback with -EIO instead of
 * vanishing. The block is freed behind the cache's back, under the
 * locks a real change of the map holds, with the page locked so the
 * flusher cannot write it first. */
static void falloc_write_page_hole(struct ktest *t)
{
	const char *f = "/wphole";
	struct inode *inode;
	struct page *page;
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 8, 0, 100), 0);
	inode = vfs_lookup(f);
	KTEST_ASSERT_FALSE(t, IS_ERR(inode));
	down_write(&inode->i_rwsem);
	filemap_invalidate_lock(inode->i_mapping);
	page = filemap_lock_page(inode->i_mapping, 0);
	KTEST_EXPECT_NOT_NULL(t, page);
	if (page) {
		set_page_dirty(page);
		KTEST_EXPECT_EQ(t, ext2_free_range(inode, 0, 1), 0);
		unlock_page(page);
		put_page(page);
	}
	filemap_invalidate_unlock(inode->i_mapping);
	up_write(&inode->i_rwsem);
	iput(inode);
	fd = open(f, O_RDWR);
	errno = 0;
	KTEST_EXPECT_EQ(t, fsync(fd), -1);
	KTEST_EXPECT_EQ(t, errno, EIO);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* Out of space where the next block needs an indirect block: with one
 * block free, preallocating (or writing) block 12 takes the
 * single-indirect block and then fails, and must give that back too. An insert
 * whose moved blocks need an indirect block, on a full fs: -ENOSPC, and the
 * file is as it was (the paths are made before any pointer moves). */
static void falloc_shift_enospc(struct ktest *t)
{
	const char *f = "/shift_nospc";
	uint64_t bs = bsize(t);
	long long blocks;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 9, 0, 12 * bs), 0);
	blocks = iblocks(f);
	fill_to(t, 1);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 12 * bs, bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, free_blocks(t), 1);
	KTEST_EXPECT_EQ(t, iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs);
	/* The same for a write there. */
	KTEST_EXPECT_EQ(t, ext2_test_write(f, 9, 12 * bs, bs), -ENOSPC);
	KTEST_EXPECT_EQ(t, free_blocks(t), 1);
	KTEST_EXPECT_EQ(t, iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs);
	fill_to(t, 0);
	EXPECT_FALLOC(t, f, O_RDWR, INSERT, 4 * bs, bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, free_blocks(t), 0);
	KTEST_EXPECT_EQ(t, iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, 9, 0, 12 * bs);
	/* A collapse needs no new block: it works on the full fs. */
	EXPECT_FALLOC(t, f, O_RDWR, COLLAPSE, 4 * bs, bs, 0);
	check_moved(t, f, 9, 4 * bs, 7 * bs, bs);
	KTEST_EXPECT_EQ(t, iblocks(f), RULE_BLOCKS(t, { 0, 11 }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, unlink("/fill"), 0);
	unlink("/fill2");
}

static struct ktest_case falloc_cases[] = {
	KTEST_CASE(falloc_errno),	    KTEST_CASE(falloc_prealloc),
	KTEST_CASE(falloc_punch),	    KTEST_CASE(falloc_zero),
	KTEST_CASE(falloc_collapse_insert), KTEST_CASE(falloc_enospc),
	KTEST_CASE(falloc_write_enospc),    KTEST_CASE(falloc_write_page_hole),
	KTEST_CASE(falloc_shift_enospc),    {},
};
KTEST_SUITE(ext2_falloc, falloc_cases);

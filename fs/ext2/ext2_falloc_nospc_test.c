/*
 * fs/ext2/ext2_falloc_nospc_test.c: suite ext2_falloc_nospc - running out
 * of space in fallocate and in writes changes nothing: the free count,
 * i_blocks, size and bytes stay as they were (the vfs_* boots' images;
 * each case fills the filesystem to an exact number of free blocks and
 * empties it again). Also writeback of dirty data over a block the map
 * lost. The vfs_* boots run it on ext2, the ext4w_* boots on ext4, where
 * the metadata a new block may need is an extent tree's leaf instead of
 * an indirect block (shift_enospc_extents).
 */
#include <errno.h>
#include <drivers/block.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <fs/internal.h>
#include <mm/kmalloc.h>
#include "ext2.h"
#include "ext2_test.h"
#include "ext4_test.h"

#define MiB (1024ULL * 1024)

static void falloc_enospc(struct ktest *t)
{
	const char *f = "/falloc_nospc";
	uint64_t bs = ext2_test_bsize(t),
		 total = ext2_test_sbi(t)->s_blocks_count;
	uint32_t free_before;
	long long blocks;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 6, 0, 3 * bs), 0);
	blocks = ext2_test_iblocks(f);
	free_before = ext2_test_free_blocks(t);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 0, total * bs, -ENOSPC);
	EXPECT_FALLOC(t, f, O_RDWR, FA_ZERO, bs, total * bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), free_before);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 3 * bs);
	ext2_test_check(t, f, 6, 0, 3 * bs);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
}

/* Fill the fs until exactly @target blocks are free: preallocate in
 * halving chunks (a failed fallocate changes nothing), then give back or
 * take the few blocks left over (indirect blocks the next chunk needed). */
static void fill_to(struct ktest *t, uint32_t target)
{
	uint64_t bs = ext2_test_bsize(t), size = 0;
	uint64_t chunk = (uint64_t)ext2_test_free_blocks(t) * bs;
	int fd = open("/fill", O_RDWR | O_CREAT, 0644);
	uint32_t left;

	KTEST_ASSERT_GE(t, fd, 0);
	for (; chunk >= bs; chunk = chunk / 2 / bs * bs) {
		while (!fallocate(fd, 0, size, chunk))
			size += chunk;
		KTEST_EXPECT_EQ(t, errno, ENOSPC);
	}
	close(fd);
	left = ext2_test_free_blocks(t);
	KTEST_ASSERT_LE(t, left, 3);
	if (left > target) /* direct blocks of a new file: no indirect */
		KTEST_ASSERT_EQ(
		    t,
		    ext2_test_write("/fill2", 1, 0, (left - target) * bs),
		    0);
	if (left < target)
		EXPECT_FALLOC(
		    t, "/fill", O_RDWR, FA_PUNCH, 0, (target - left) * bs, 0);
	KTEST_ASSERT_EQ(t, ext2_test_free_blocks(t), target);
}

/* A write that runs out of space inside a hole, part way through a page
 * (blocks smaller than a page; one block fewer than the page needs is
 * free): write_begin allocated them before -ENOSPC, and must free exactly
 * those - the old rule freed only blocks past EOF and left them mapped
 * over the hole. With 4 KiB blocks nothing is free and nothing moves. */
static void falloc_write_enospc(struct ktest *t)
{
	const char *f = "/wfail";
	uint64_t bs = ext2_test_bsize(t);
	uint32_t target = PAGE_SIZE / bs - 1; /* one short of the page */
	static char page[PAGE_SIZE];
	long long blocks;
	int fd;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 7, 0, PAGE_SIZE), 0);
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 7, 2 * PAGE_SIZE, PAGE_SIZE), 0);
	blocks = ext2_test_iblocks(f);
	fill_to(t, target);
	fd = open(f, O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	errno = 0;
	memset(page, 'x', PAGE_SIZE);
	KTEST_EXPECT_EQ(t, pwrite(fd, page, PAGE_SIZE, PAGE_SIZE), -1);
	KTEST_EXPECT_EQ(t, errno, ENOSPC);
	close(fd);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), target);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 3 * PAGE_SIZE);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, -1, PAGE_SIZE, PAGE_SIZE);
	ext2_test_check(t, f, 7, 2 * PAGE_SIZE, PAGE_SIZE);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, unlink("/fill"), 0);
	unlink("/fill2");
}

/* 1 MiB of pattern bytes of @seed (offset 0 on), or NULL. */
static char *pattern_mib(unsigned int seed)
{
	char *buf = kmalloc(MiB, GFP_KERNEL);

	for (size_t i = 0; buf && i < MiB; i++)
		buf[i] = (char)ext2_test_pattern(seed, i);
	return buf;
}

/* A write past EOF maps its blocks a run at a time (file.c ahead_block):
 * 1 MiB in one pwrite walks the map a few times, not once per block (256
 * to 1024), and leaves exactly the blocks it wrote. Out of space part way,
 * it writes what fits and maps nothing past the new EOF. */
static void falloc_write_past_eof_runs(struct ktest *t)
{
	const char *f = "/wrun";
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	uint64_t bs = ext2_test_bsize(t), nblk = MiB / bs;
	uint32_t free_before = ext2_test_free_blocks(t);
	char *buf = pattern_mib(8);
	unsigned long walks;
	ssize_t n;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fd = open(f, O_RDWR | O_CREAT, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	walks = __atomic_load_n(&sbi->s_alloc_walks, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, MiB, 0), (ssize_t)MiB);
	walks = __atomic_load_n(&sbi->s_alloc_walks, __ATOMIC_RELAXED) - walks;
	ktest_log(t, "%lu allocating walks of the map for 1 MiB", walks);
	KTEST_EXPECT_LE(t, walks, 16ul);
	KTEST_EXPECT_EQ(
	    t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, nblk }));

	/* Room for a quarter of the next MiB, less its indirect blocks. */
	close(fd);
	fill_to(t, (uint32_t)(nblk / 4));
	fd = open(f, O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	n = pwrite(fd, buf, MiB, MiB);
	ktest_log(t, "out of space: %zd of %llu bytes written", n, MiB);
	KTEST_EXPECT_GT(t, n, 0);
	KTEST_EXPECT_LT(t, n, (ssize_t)MiB);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), (long long)MiB + (n > 0 ? n : 0));
	KTEST_EXPECT_EQ(
	    t,
	    ext2_test_iblocks(f),
	    RULE_BLOCKS(t, f, { 0, nblk + DIV_ROUND_UP((uint64_t)n, bs) }));
	close(fd);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, 8, 0, MiB);
	KTEST_EXPECT_EQ(t, unlink("/fill"), 0);
	unlink("/fill2");
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), free_before);
	kfree(buf);
}

/* Writeback hands the filesystem a batch of pages at once (write_pages):
 * fsync of 1 MiB of contiguous blocks goes out in bios of a run each (32
 * blocks at most, a batch of 32 pages at most), the metadata besides: 14
 * to 45 bios on 4k to 1k blocks, not a bio per page (256), and the bios
 * of 8 batches go to the device together (one plug). */
static void falloc_write_back_in_runs(struct ktest *t)
{
	const char *f = "/wbio";
	struct block_device *dev = ext2_test_sbi(t)->s_bdev;
	char *buf = pattern_mib(9);
	unsigned long bios, rings;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fd = open(f, O_RDWR | O_CREAT, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, fsync(fd), 0); /* the new inode and its entry */
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, MiB, 0), (ssize_t)MiB);
	bios = __atomic_load_n(&dev->stats.writes, __ATOMIC_RELAXED);
	rings = __atomic_load_n(&dev->stats.commits, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	bios = __atomic_load_n(&dev->stats.writes, __ATOMIC_RELAXED) - bios;
	rings = __atomic_load_n(&dev->stats.commits, __ATOMIC_RELAXED) - rings;
	ktest_log(
	    t, "fsync of 1 MiB: %lu write bios, %lu doorbells", bios, rings);
	KTEST_EXPECT_LE(t, bios, MiB / PAGE_SIZE / 4);
	/* The bios of 8 writeback batches (32 pages each) wait on one plug
	 * and reach the device together: one doorbell for the data, then
	 * one each for the metadata's round, the superblock's and the flush
	 * (4 on 4k to 1k blocks since the metadata's single round, b4947fc),
	 * 2 more allowed for a buffer busy elsewhere. A plug per batch rings
	 * 8 for the data alone: 11 in all. */
	KTEST_EXPECT_LE(t, rings, 6);
	close(fd);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, 9, 0, MiB);
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	kfree(buf);
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
static void shift_enospc_extents(struct ktest *t, const char *f);

static void falloc_shift_enospc(struct ktest *t)
{
	const char *f = "/shift_nospc";
	uint64_t bs = ext2_test_bsize(t);
	long long blocks;

	KTEST_ASSERT_EQ(t, ext2_test_write(f, 9, 0, 12 * bs), 0);
	if (ext2_test_extents(t, f)) {
		shift_enospc_extents(t, f);
		return;
	}
	blocks = ext2_test_iblocks(f);
	fill_to(t, 1);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 12 * bs, bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), 1);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs);
	/* The same for a write there. */
	KTEST_EXPECT_EQ(t, ext2_test_write(f, 9, 12 * bs, bs), -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), 1);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs);
	fill_to(t, 0);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, 4 * bs, bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), 0);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 12 * bs);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, 9, 0, 12 * bs);
	/* A collapse needs no new block: it works on the full fs. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 4 * bs, bs, 0);
	ext2_test_check_moved(t, f, 9, 4 * bs, 7 * bs, bs);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), RULE_BLOCKS(t, f, { 0, 11 }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, unlink("/fill"), 0);
	unlink("/fill2");
}

/* The same on ext4: the inode's root holds four extents; a fifth needs a
 * leaf block besides its data block. With one block free, preallocating
 * or writing a new extent takes the data block, then fails on the leaf
 * and must give the data block back; on a full fs, an insert that cuts
 * an extent in two fails the same way, before anything moves. A collapse
 * of a hole between extents needs no block. */
static void shift_enospc_extents(struct ktest *t, const char *f)
{
	uint64_t bs = ext2_test_bsize(t);
	struct tree_info ti;
	long long blocks;

	/* Extents [0, 2), 3, 5, 7 (12 blocks written first: start again). */
	KTEST_ASSERT_EQ(t, truncate(f, 0), 0);
	KTEST_ASSERT_EQ(t, ext2_test_write(f, 9, 0, 2 * bs), 0);
	for (uint64_t b = 3; b < 8; b += 2)
		KTEST_ASSERT_EQ(t, ext2_test_write(f, 9, b * bs, bs), 0);
	ti = tree_of(t, f);
	KTEST_ASSERT_EQ(t, ti.depth, 0);
	KTEST_ASSERT_EQ(t, ti.extents, 4);
	blocks = ext2_test_iblocks(f);
	fill_to(t, 1);
	EXPECT_FALLOC(t, f, O_RDWR, 0, 9 * bs, bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), 1);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 8 * bs);
	KTEST_EXPECT_EQ(t, ext2_test_write(f, 9, 9 * bs, bs), -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), 1);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 8 * bs);
	fill_to(t, 0);
	EXPECT_FALLOC(t, f, O_RDWR, FA_INSERT, bs, bs, -ENOSPC);
	KTEST_EXPECT_EQ(t, ext2_test_free_blocks(t), 0);
	KTEST_EXPECT_EQ(t, ext2_test_iblocks(f), blocks);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 8 * bs);
	ti = tree_of(t, f);
	KTEST_EXPECT_EQ(t, ti.extents, 4);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	ext2_test_check(t, f, 9, 0, 2 * bs);
	for (uint64_t b = 2; b < 8; b++)
		ext2_test_check(t, f, b & 1 ? 9 : -1, b * bs, bs);
	/* Collapse the hole at block 4: 5 moves to 4, 7 to 6. */
	EXPECT_FALLOC(t, f, O_RDWR, FA_COLLAPSE, 4 * bs, bs, 0);
	KTEST_EXPECT_EQ(t, ext2_test_size(f), 7 * bs);
	ext2_test_check(t, f, 9, 3 * bs, bs);
	ext2_test_check_moved(t, f, 9, 4 * bs, bs, bs);
	ext2_test_check(t, f, -1, 5 * bs, bs);
	ext2_test_check_moved(t, f, 9, 6 * bs, bs, bs);
	KTEST_EXPECT_EQ(t,
			ext2_test_iblocks(f),
			RULE_BLOCKS(t, f, { 0, 2 }, { 3, 5 }, { 6, 7 }));
	KTEST_EXPECT_EQ(t, unlink(f), 0);
	KTEST_EXPECT_EQ(t, unlink("/fill"), 0);
	unlink("/fill2");
}

static struct ktest_case nospc_cases[] = {
	KTEST_CASE(falloc_enospc),
	KTEST_CASE(falloc_write_enospc),
	KTEST_CASE(falloc_write_past_eof_runs),
	KTEST_CASE(falloc_write_back_in_runs),
	KTEST_CASE(falloc_write_page_hole),
	KTEST_CASE(falloc_shift_enospc),
	{},
};
KTEST_SUITE(ext2_falloc_nospc, nospc_cases);

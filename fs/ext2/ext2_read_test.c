/*
 * fs/ext2/ext2_read_test.c: suite ext2_read - everything the image was made
 * with (tools/ext2tree.py) reads back: sizes around block and page
 * boundaries, a 100 MiB sparse file, a deep path and a 1000-entry
 * directory, plus SEEK_DATA/SEEK_HOLE from the block map; and a cold read
 * of a file walks the block map once per run of blocks, not per block.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include <fs/vfs.h>
#include "ext2.h"
#include "ext2_test.h"

#define MiB (1024ULL * 1024)

static const struct {
	const char *path;
	unsigned int seed;
	uint64_t size;
} files[] = {
	{ "/f0", 0, 0 },       { "/f1", 1, 1 },	      { "/f4095", 2, 4095 },
	{ "/f4096", 3, 4096 }, { "/f4097", 4, 4097 }, { "/f1m", 5, 1 * MiB },
};

static const struct {
	uint64_t off, len;
} sparse_data[] = {
	{ 0, 4096 },
	{ MiB + 100, 5000 },
	{ 50 * MiB, 8192 },
	{ 100 * MiB - 10, 10 },
};

static void read_sizes(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		KTEST_EXPECT_EQ(
		    t, ext2_test_size(files[i].path), files[i].size);
		ext2_test_check(
		    t, files[i].path, files[i].seed, 0, files[i].size);
	}
}

static void read_sparse(struct ktest *t)
{
	uint64_t end = 0;

	KTEST_ASSERT_EQ(t, ext2_test_size("/sparse"), 100 * MiB);
	for (size_t i = 0; i < ARRAY_SIZE(sparse_data); i++) {
		uint64_t off = sparse_data[i].off, len = sparse_data[i].len;

		/* The hole before this run, sampled at its ends. */
		if (off > end) {
			ext2_test_check(
			    t, "/sparse", -1, end, MIN(off - end, 8192ULL));
			ext2_test_check(t,
					"/sparse",
					-1,
					off - MIN(off - end, 100ULL),
					MIN(off - end, 100ULL));
		}
		ext2_test_check(t, "/sparse", 6, off, len);
		end = off + len;
	}
}

static void read_seek(struct ktest *t)
{
	struct file *f = vfs_open("/sparse", O_RDONLY, 0);

	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 0, SEEK_HOLE), 4096);
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 4096, SEEK_DATA), MiB);
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 2 * MiB, SEEK_DATA), 50 * MiB);
	KTEST_EXPECT_EQ(
	    t, vfs_llseek(f, 100 * MiB - 5, SEEK_DATA), 100 * MiB - 5);
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 100 * MiB - 5, SEEK_HOLE), 100 * MiB);
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 100 * MiB, SEEK_DATA), -ENXIO);
	fput(f);
}

/* Inode number of @path, or 0 if it does not resolve. */
static unsigned long ino_of(const char *path)
{
	struct inode *inode = vfs_lookup(path);
	unsigned long ino;

	if (IS_ERR(inode))
		return 0;
	ino = inode->i_ino;
	iput(inode);
	return ino;
}

static void read_deep(struct ktest *t)
{
	static const char *const dirs[] = { "/deep/d1",
					    "/deep/d1/d2",
					    "/deep/d1/d2/d3" };
	unsigned long ino[ARRAY_SIZE(dirs)];

	char path[160] = "/deep";

	for (int i = 1; i <= 20; i++)
		snprintf(path + strlen(path),
			 sizeof(path) - strlen(path),
			 "/d%d",
			 i);
	strcat(path, "/leaf");
	KTEST_EXPECT_EQ(t, ext2_test_size(path), 100);
	ext2_test_check(t, path, 7, 0, 100);
	/* ".." and "." resolve through the directories' own entries to the
	 * same inode. The numbers are logged for the boot's post-check,
	 * which compares them with debugfs's (tools/ext2tree.py). */
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		ino[i] = ino_of(dirs[i]);
		KTEST_EXPECT_NE(t, ino[i], 0);
		ktest_log(t, "ino %s %lu", dirs[i], ino[i]);
	}
	KTEST_EXPECT_NE(t, ino[0], ino[1]);
	KTEST_EXPECT_NE(t, ino[1], ino[2]);
	KTEST_EXPECT_EQ(t, ino_of("/deep/d1/../d1/d2/./d3/.."), ino[1]);
	KTEST_EXPECT_EQ(t, ino_of("/deep/d1/d2/d3/../../d2/."), ino[1]);
	KTEST_EXPECT_EQ(t, ino_of("/deep/d1/d2/d3/../.."), ino[0]);
}

struct count_ctx {
	struct dir_context ctx;
	unsigned int n, named;
};

static bool count_actor(struct dir_context *ctx,
			const char *name,
			size_t len,
			loff_t pos,
			unsigned long ino,
			unsigned int type)
{
	struct count_ctx *c = container_of(ctx, struct count_ctx, ctx);

	(void)pos, (void)ino, (void)type;
	c->n++;
	if (len == 5 && name[0] == 'e')
		c->named++;
	return true;
}

static void read_bigdir(struct ktest *t)
{
	struct count_ctx c = { .ctx = { .actor = count_actor } };
	struct file *f = vfs_open("/many", O_RDONLY, 0);
	char path[32];

	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_readdir(f, &c.ctx), 0);
	fput(f);
	KTEST_EXPECT_EQ(t, c.n, 1002);
	KTEST_EXPECT_EQ(t, c.named, 1000);
	for (int i = 0; i < 1000; i += 97) {
		snprintf(path, sizeof(path), "/many/e%04d", i);
		KTEST_EXPECT_EQ(t, ext2_test_size(path), i % 7);
		ext2_test_check(t, path, i % 200, 0, i % 7);
	}
	KTEST_EXPECT_EQ(t, ext2_test_size("/many/e1000"), -ENOENT);
}

/* /f1m cold: its blocks lie in a few runs (mke2fs -d writes a file in
 * order; each indirect block splits one), and each readahead batch walks
 * the map afresh, so the walks number batches plus runs - a few dozen at
 * most - where one walk per block would be 256 to 1024 of them. */
static void read_walks_map_per_run(struct ktest *t)
{
	int fd = open("/f1m", O_RDONLY);
	struct file *f = fd >= 0 ? fd_get(fd) : NULL;
	struct ext2_sb_info *sbi;
	unsigned long before, walks;

	KTEST_ASSERT_NOT_NULL(t, f);
	sbi = EXT2_SBI(f->f_inode->i_sb);
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	before = __atomic_load_n(&sbi->s_map_walks, __ATOMIC_RELAXED);
	ext2_test_check(t, "/f1m", 5, 0, MiB);
	walks = __atomic_load_n(&sbi->s_map_walks, __ATOMIC_RELAXED) - before;
	ktest_log(t, "%lu walks of the map for 1 MiB", walks);
	KTEST_EXPECT_GE(t, walks, 1ul);
	KTEST_EXPECT_LE(t, walks, MiB / 4096 / 4);
	fput(f);
	close(fd);
}

/* One cold read() of 1 MiB: a window of 8 readahead batches (32 pages
 * each) whose bios wait on one plug and reach the device together - a
 * doorbell or two (the indirect block's read rings its own), where a
 * doorbell per batch would be 8. */
static void read_window_rings_once(struct ktest *t)
{
	int fd = open("/f1m", O_RDONLY);
	struct file *f = fd >= 0 ? fd_get(fd) : NULL;
	char *buf = kmalloc(MiB, GFP_KERNEL);
	struct block_device *dev;
	unsigned long rings;

	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_ASSERT_NOT_NULL(t, buf);
	dev = EXT2_SBI(f->f_inode->i_sb)->s_bdev;
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	rings = __atomic_load_n(&dev->stats.commits, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, pread(fd, buf, MiB, 0), (ssize_t)MiB);
	rings = __atomic_load_n(&dev->stats.commits, __ATOMIC_RELAXED) - rings;
	ktest_log(t, "%lu doorbells for a cold read of 1 MiB", rings);
	KTEST_EXPECT_GE(t, rings, 1ul);
	KTEST_EXPECT_LE(t, rings, 4ul);
	for (size_t i = 0; i < MiB; i += 4096)
		KTEST_EXPECT_EQ(t, buf[i], ext2_test_pattern(5, i));
	kfree(buf);
	fput(f);
	close(fd);
}

static unsigned long requests_of(struct block_device *dev)
{
	unsigned long n = 0;

	for (unsigned int q = 0; q < BLK_MAX_HW_QUEUES; q++)
		n += READ_ONCE(dev->hwq[q].dispatched);
	return n;
}

/* Runs of @inode's first @bytes on disk (blocks consecutive in both). */
static unsigned long
disk_runs(struct ktest *t, struct inode *inode, size_t bytes)
{
	uint64_t nblk = bytes >> inode->i_sb->s_blocksize_bits;
	struct ext2_run_cursor c = { .last = nblk - 1 };
	unsigned long runs = 0;
	uint32_t prev = 0;

	for (uint64_t b = 0; b < nblk; b++) {
		uint32_t pblk = 0;

		KTEST_EXPECT_EQ(t, ext2_run_map(inode, &c, b, &pblk), 0);
		if (!b || pblk != prev + 1)
			runs++;
		prev = pblk;
	}
	return runs;
}

/* The same cold 1 MiB read: its batches' pages are runs adjacent in
 * memory (alloc_pages_bulk) and each bio's blocks one segment
 * (bio_add_buf), so each run of the file's blocks on disk goes in one
 * request of up to 1 MiB, where a page per segment (64 segments a
 * request) needed four for 1 MiB, and a block per segment (1 KiB blocks)
 * sixteen. */
static void read_window_few_requests(struct ktest *t)
{
	int fd = open("/f1m", O_RDONLY);
	struct file *f = fd >= 0 ? fd_get(fd) : NULL;
	char *buf = kmalloc(MiB, GFP_KERNEL);
	struct block_device *dev;
	unsigned long reqs, bytes, map_reads, runs;

	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_ASSERT_NOT_NULL(t, buf);
	dev = EXT2_SBI(f->f_inode->i_sb)->s_bdev;
	runs = disk_runs(t, f->f_inode, MiB);
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	reqs = requests_of(dev);
	bytes = READ_ONCE(dev->stats.read_bytes);
	KTEST_EXPECT_EQ(t, pread(fd, buf, MiB, 0), (ssize_t)MiB);
	reqs = requests_of(dev) - reqs;
	bytes = READ_ONCE(dev->stats.read_bytes) - bytes;
	KTEST_ASSERT_GE(t, bytes, (unsigned long)MiB);
	/* map blocks read again, if the drop took them */
	map_reads = (bytes - MiB) >> f->f_inode->i_sb->s_blocksize_bits;
	ktest_log(t,
		  "%lu requests for a cold read of 1 MiB in %lu runs on disk "
		  "(%lu map blocks read)",
		  reqs,
		  runs,
		  map_reads);
	KTEST_EXPECT_GE(t, reqs, 1ul);
	KTEST_EXPECT_LE(t, reqs, runs + map_reads + 1); /* +1: a plug's end */
	for (size_t i = 0; i < MiB; i += 4096)
		KTEST_EXPECT_EQ(t, buf[i], ext2_test_pattern(5, i));
	kfree(buf);
	fput(f);
	close(fd);
}

static struct ktest_case ext2_read_cases[] = {
	KTEST_CASE(read_sizes),
	KTEST_CASE(read_sparse),
	KTEST_CASE(read_seek),
	KTEST_CASE(read_deep),
	KTEST_CASE(read_bigdir),
	KTEST_CASE(read_walks_map_per_run),
	KTEST_CASE(read_window_rings_once),
	KTEST_CASE(read_window_few_requests),
	{},
};
KTEST_SUITE(ext2_read, ext2_read_cases);

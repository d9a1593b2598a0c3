/*
 * fs/vfs_icache_test.c: suite vfs_icache - memory pressure shrinks the
 * inode cache.
 *
 * Rule (fs/inode.c): a clean inode that nobody references stays cached
 * only until memory is short; reclaim, which the page allocator calls when
 * it runs out, destroys such inodes (with their page cache). The case
 * fills the cache with NFILES unreferenced, clean (synced) inodes, calls
 * reclaim as the allocator does, and expects them gone from the cache;
 * the files still read back, from disk.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/ktest.h>
#include <mm/filemap.h>
#include <fs/internal.h>

#define NFILES 48
#define DIR    "/t_icache"

static void name_of(char *buf, size_t len, int i)
{
	snprintf(buf, len, DIR "/f%02d", i);
}

static void reclaim_prunes_unused_inodes(struct ktest *t)
{
	unsigned long before;
	char path[32], c;
	int fd;

	KTEST_ASSERT_EQ(t, mkdir(DIR, 0755), 0);
	for (int i = 0; i < NFILES; i++) {
		name_of(path, sizeof(path), i);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		KTEST_ASSERT_GE(t, fd, 0);
		KTEST_EXPECT_EQ(t, write(fd, "x", 1), 1);
		close(fd);
	}
	sync(); /* clean: reclaim drops only clean inodes */
	before = icache_unused();
	KTEST_EXPECT_GE(t, before, NFILES);
	reclaim_pages(ULONG_MAX / 4);
	KTEST_EXPECT_LE(t, icache_unused() + NFILES, before);
	for (int i = 0; i < NFILES; i++) {
		name_of(path, sizeof(path), i);
		fd = open(path, O_RDONLY);
		KTEST_EXPECT_GE(t, fd, 0);
		KTEST_EXPECT_EQ(t, read(fd, &c, 1), 1);
		KTEST_EXPECT_EQ(t, c, 'x');
		close(fd);
		KTEST_EXPECT_EQ(t, unlink(path), 0);
	}
	KTEST_EXPECT_EQ(t, rmdir(DIR), 0);
}

static struct ktest_case icache_cases[] = {
	KTEST_CASE(reclaim_prunes_unused_inodes),
	{},
};
KTEST_SUITE(vfs_icache, icache_cases);

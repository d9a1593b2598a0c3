/*
 * fs/ext2/ext2_readpage_test.c: suite ext2_readpage - reading pages whose
 * blocks are contiguous on disk across a hole page.
 *
 * Page 0 is written, then page 2, so the allocator gives page 2 the blocks
 * right after page 0's; page 1 is a hole. Read back from disk (caches
 * dropped) in one readahead batch: page 0 and 2 hold their pattern, page
 * 1 zeroes (the rule: a hole reads as zeroes). The two data runs are one
 * run on disk: a read bio must not span the hole page it has no block of
 * (it would be counted as finished by that bio too, and be charged that
 * bio's I/O error): file.c warns when a page's count goes below zero, and
 * the case checks that no warning was printed.
 */
#include <fcntl.h>
#include <unistd.h>
#include <kernel/panic.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "ext2_test.h"

#define PATH "/t_readpage_holes"
#define SEED 21

static uint8_t expected(uint64_t off)
{
	return off / 4096 == 1 ? 0 : ext2_test_pattern(SEED, off);
}

static void contiguous_blocks_across_hole(struct ktest *t)
{
	uint8_t *buf = kmalloc(3 * 4096, GFP_KERNEL);
	unsigned long warnings = warn_count();
	long bad = -1;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_EQ(t, ext2_test_write(PATH, SEED, 0, 4096), 0);
	KTEST_ASSERT_EQ(t, ext2_test_write(PATH, SEED, 8192, 4096), 0);
	KTEST_ASSERT_GE(t, vfs_drop_caches(), 0);
	/* One read of the three pages: one batch of readahead. */
	fd = open(PATH, O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, read(fd, buf, 3 * 4096), 3 * 4096);
	close(fd);
	for (long i = 0; i < 3 * 4096 && bad < 0; i++)
		if (buf[i] != expected(i))
			bad = i;
	KTEST_EXPECT_EQ(t, bad, -1);
	KTEST_EXPECT_EQ(t, warn_count(), warnings);
	kfree(buf);
	KTEST_EXPECT_EQ(t, vfs_unlink(PATH), 0);
}

static struct ktest_case readpage_cases[] = {
	KTEST_CASE(contiguous_blocks_across_hole),
	{},
};
KTEST_SUITE(ext2_readpage, readpage_cases);

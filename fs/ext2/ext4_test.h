/*
 * fs/ext2/ext4_test.h: helpers of the ext4_extent_write and ext4_falloc suites
 * (defined in ext4_extent_write_test.c).
 */
#pragma once

#include <fs/vfs.h>
#include "ext2_test.h"
#include "extent.h"

/* What a walk of an inode's tree finds (with the read side's checks). */
struct tree_info {
	int depth;
	unsigned int extents, unwritten, nodes;
	uint64_t blocks; /* data blocks mapped */
	int err;
};

/* Walk @path's tree; expects i_blocks = data blocks + node blocks. */
struct tree_info tree_of(struct ktest *t, const char *path);
/* Runs of blocks that follow one another on disk among the first @n
 * logical blocks, as the read side maps them (holes and unwritten blocks
 * end a run and are not counted). */
unsigned int disk_runs(struct ktest *t, const char *path, uint64_t n);
/* Write [@pos, @pos + @len) of @path (created if missing) with @seed's
 * pattern in one write(2): past EOF its blocks are mapped in runs of up
 * to 256 (file.c), each contiguous on disk if the disk has such a run
 * free. Return: 0 or -errno. */
int write_range(const char *path, int seed, uint64_t pos, uint64_t len);
/* Write block @lblk of @f with @seed's pattern. Return: 0 or -errno. */
int write_block(struct file *f, uint64_t bs, uint64_t lblk, int seed);
/* One block of seed 7 in every other: blocks 0, 2, .., 2(@n-1) (written
 * last to first if @down): @n extents, none can merge. */
void write_sparse(struct ktest *t, const char *f, uint64_t n, bool down);
void check_sparse(struct ktest *t, const char *f, uint64_t n);

static inline void drop(struct ktest *t)
{
	KTEST_EXPECT_TRUE(t, vfs_drop_caches() >= 0);
}

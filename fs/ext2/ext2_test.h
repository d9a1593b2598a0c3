/*
 * fs/ext2/ext2_test.h: helpers shared by ext2's suites.
 *
 * File contents are a pattern both sides compute: byte @off of a file
 * with seed @seed is ext2_test_pattern(seed, off). tools/ext2tree.py
 * writes the same pattern into the host tree the images are made from,
 * and checks what the write suite leaves behind (debugfs dump).
 */
#pragma once

#include <sys/types.h>
#include <linux/falloc.h>
#include <kernel/ktest.h>

static inline uint8_t ext2_test_pattern(unsigned int seed, uint64_t off)
{
	return (uint8_t)(off * 131 + (off >> 10) + seed * 17 + 1);
}

/* Write @len pattern bytes of @seed at @pos of @path (created if needed);
 * the file's byte at offset o gets pattern(seed, o). */
int ext2_test_write(const char *path,
		    unsigned int seed,
		    uint64_t pos,
		    uint64_t len);
/* Check @len bytes of @path at @pos: pattern(@seed) or zeros (seed < 0). */
bool ext2_test_check(
    struct ktest *t, const char *path, int seed, uint64_t pos, uint64_t len);
/* The size of @path, or a negative errno. */
long long ext2_test_size(const char *path);

/* fallocate helpers (ext2_test_util.c) for the ext2_falloc* suites. */
#define FA_KEEP	    FALLOC_FL_KEEP_SIZE
#define FA_PUNCH    (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define FA_ZERO	    FALLOC_FL_ZERO_RANGE
#define FA_COLLAPSE FALLOC_FL_COLLAPSE_RANGE
#define FA_INSERT   FALLOC_FL_INSERT_RANGE

struct ext2_sb_info;
/* The root filesystem's (asserted to be mounted). */
struct ext2_sb_info *ext2_test_sbi(struct ktest *t);
uint64_t ext2_test_bsize(struct ktest *t);
uint32_t ext2_test_free_blocks(struct ktest *t);
/* i_blocks of @path, or -1. */
long long ext2_test_iblocks(const char *path);

/* Logical blocks [start, end), ascending. */
struct brun {
	uint64_t start, end;
};

/* The rule for i_blocks (512-byte units) of @path mapping the blocks of
 * @r: see ext2_test_util.c. RULE_BLOCKS(t, f, { 0, 3 }, { 20, 30 }). */
long long ext2_test_rule_blocks(struct ktest *t,
				const char *path,
				const struct brun *r,
				unsigned int nr);
#define RULE_BLOCKS(t, path, ...)                                            \
	ext2_test_rule_blocks(t,                                             \
			      path,                                          \
			      (const struct brun[]){ __VA_ARGS__ },          \
			      sizeof((const struct brun[]){ __VA_ARGS__ }) / \
				  sizeof(struct brun))
/* @path is mapped by an extent tree (ext4's rules apply to it). */
bool ext2_test_extents(struct ktest *t, const char *path);
/* The most blocks @path may have (Linux's s_maxbytes for its kind:
 * ext2's indirect blocks, or 2^32 - 1 for extents). */
uint64_t ext2_test_max_blocks(struct ktest *t, const char *path);

/* fallocate on a fresh descriptor of @path opened with @flags.
 * Return: 0 or -errno. */
int ext2_test_fallocate(
    const char *path, int flags, int mode, off_t off, off_t len);
#define EXPECT_FALLOC(t, path, flags, mode, off, len, want) \
	KTEST_EXPECT_EQ(                                    \
	    t, ext2_test_fallocate(path, flags, mode, off, len), want)

/* Check [@pos, @pos + @len) of @f against the pattern of @seed at
 * @pos + @shift (what collapse or insert moved there). */
void ext2_test_check_moved(struct ktest *t,
			   const char *f,
			   unsigned int seed,
			   uint64_t pos,
			   uint64_t len,
			   int64_t shift);

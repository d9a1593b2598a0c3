/*
 * fs/ext2/ext2_test.h: helpers shared by ext2's suites.
 *
 * File contents are a pattern both sides compute: byte @off of a file
 * with seed @seed is ext2_test_pattern(seed, off). tools/ext2tree.py
 * writes the same pattern into the host tree the images are made from,
 * and checks what the write suite leaves behind (debugfs dump).
 */
#pragma once

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

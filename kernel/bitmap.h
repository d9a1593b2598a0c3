/*
 * kernel/bitmap.h: a bitmap of small numbers, 64 to a word: which
 * interrupt lines an MSI controller has handed out (riscv64's IMSIC,
 * aarch64's GICv2m frame and GICv3 ITS).
 *
 * No locking: the owner of the map says which lock protects it.
 * bitmap_test is a single word read, so a racy look outside that lock
 * (is this line one of ours?) reads a whole word.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <kernel/compiler.h>

#define BITMAP_WORDS(nbits) (((nbits) + 63) / 64)

static inline bool bitmap_test(const uint64_t *map, unsigned int i)
{
	return READ_ONCE(map[i / 64]) & (1ull << (i % 64));
}

static inline void bitmap_assign(uint64_t *map, unsigned int i, bool on)
{
	if (on)
		map[i / 64] |= 1ull << (i % 64);
	else
		map[i / 64] &= ~(1ull << (i % 64));
}

/* The first of @n clear bits in a row inside [@lo, @hi), or -ENOSPC
 * (also for @n 0). */
static inline int bitmap_find_clear_run(const uint64_t *map,
					unsigned int lo,
					unsigned int hi,
					unsigned int n)
{
	unsigned int run = 0;

	for (unsigned int i = lo; n && i < hi; i++) {
		run = bitmap_test(map, i) ? 0 : run + 1;
		if (run == n)
			return (int)(i + 1 - n);
	}
	return -ENOSPC;
}

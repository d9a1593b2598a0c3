/*
 * tests/mmap_test.h: what the vfs_mmap suites share (tests/mmap_test.c,
 * tests/mmap_unmap_test.c).
 */
#pragma once

#include <kernel/ktest.h>

#define BIG_SIZE 300000 /* /big.bin of tools/vfsimg.py */

/* Byte i of /big.bin (tools/vfsimg.py: big_byte). */
static inline uint8_t big_byte(long i)
{
	return (i * 7 + i / 4096) & 0xff;
}

/* @p holds /big.bin's BIG_SIZE bytes (one failure reported at most). */
bool check_big(struct ktest *t, const volatile uint8_t *p);

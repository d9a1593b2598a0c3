/*
 * drivers/bench_rand.h: where the random-read benchmarks read. One source
 * for both kernels: whole's rand_read_4k (drivers/block_bench.c) and the
 * Linux program tools/linuxbench.c include it, so both read the same
 * 4 KiB blocks in the same order from the same seed.
 *
 * The generator is xorshift64 (13, 7, 17); each step's value modulo the
 * number of 4 KiB blocks in the span (the disk's first BENCH_RAND_SPAN
 * bytes, or all of a smaller disk) picks the next block. Plain C with
 * <stdint.h> only: it builds in the kernel and in a Linux program.
 */
#pragma once

#include <stdint.h>

#define BENCH_RAND_SPAN	 (64u << 20)
#define BENCH_RAND_BLOCK 4096u

/* The byte offset of the next random 4 KiB block in the first
 * min(@disk_bytes, BENCH_RAND_SPAN) bytes; advances *@seed (not 0). */
static inline uint64_t bench_rand_offset(uint64_t *seed, uint64_t disk_bytes)
{
	uint64_t span =
	    disk_bytes < BENCH_RAND_SPAN ? disk_bytes : BENCH_RAND_SPAN;
	uint64_t x = *seed;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*seed = x;
	return x % (span / BENCH_RAND_BLOCK) * BENCH_RAND_BLOCK;
}

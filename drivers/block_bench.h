/*
 * drivers/block_bench.h: raw device I/O for benchmarks (drivers/block_bench.c;
 * its users are app/block_shell.c, app/bench_io.c and app/bench_file.c).
 */
#pragma once

#include <stdint.h>
#include <drivers/block.h>
#include <kernel/wait.h>

/* A run of blk_bench, on its caller's stack; each request's completion
 * counts it out and wakes the caller under wq.lock (the race point
 * RACE_BLK_BENCH_WAKE is there: drivers/block_sync_test.c holds it). */
struct bench {
	struct block_device *dev;
	struct wait_queue_head wq;
	int inflight; /* atomic */
	int errors;   /* atomic */
};

/* @nios I/Os of @size bytes on @dev, at most @depth in flight, sequential
 * from sector 0, or if @seed at random 4 KiB blocks in the first 64 MiB
 * (drivers/bench_rand.h: Linux's figure reads the same). @buf holds @depth *
 * @size bytes. Return: elapsed ns, 0 on failure. */
uint64_t blk_bench(struct block_device *dev,
		   enum blk_op op,
		   uint8_t *buf,
		   uint32_t size,
		   unsigned int nios,
		   int depth,
		   uint64_t seed);

/*
 * drivers/block_bench.h: raw device I/O for benchmarks (drivers/block_shell.c).
 */
#pragma once

#include <stdint.h>
#include <drivers/block.h>

/* @nios I/Os of @size bytes on @dev, at most @depth in flight, sequential
 * from sector 0, or at random 4 KiB-aligned places in the first 64 MiB if
 * @seed. @buf holds @depth * @size bytes. Return: elapsed ns, 0 on
 * failure. */
uint64_t blk_bench(struct block_device *dev,
		   enum blk_op op,
		   uint8_t *buf,
		   uint32_t size,
		   unsigned int nios,
		   int depth,
		   uint64_t seed);

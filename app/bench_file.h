/*
 * app/bench_file.h: what the file benchmarks (app/bench_file.c, app/bench_io.c)
 * share: the file they work on, the sizes and counts, and the helpers.
 * tools/linuxbench.c, the same workloads as a Linux program, includes it
 * for the sizes and counts (the prototypes are whole's alone).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FILE_PATH "/bench.dat"
#define FILE_SIZE (64u << 20)
#define BIG_IO	  (1u << 20)
#define SMALL_IO  4096u
#define RAW_IO	  (128u << 10)
#define RAW_DEPTH 32
#define RAND_IOS  2000u /* rand_read_4k's reads per figure */
#define CREATES	  500u	/* create_unlink's files */
#define SCALE_MS  250u	/* scaling_cached_read: a round's reading time */

/* A 2 MiB buffer (kmalloc), or NULL with a message. */
uint8_t *bench_big_buf(void);
/* What bench_write_file took, in ns. */
struct bench_write_times {
	uint64_t calls; /* inside the write() calls alone */
	uint64_t loop;	/* the whole loop: each MiB's bytes set, then written */
	uint64_t fsync; /* the fsync after it */
};
/* Write FILE_PATH in @io writes (then fsync if @sync); the times into *@t
 * if not NULL. Return: 0, or 1 with a message. */
int bench_write_file(size_t io, bool sync, struct bench_write_times *t);
/* Read all of FILE_PATH in @io reads into @buf, checking each MiB's mark;
 * @advice other than POSIX_FADV_NORMAL is given to posix_fadvise first
 * (POSIX_FADV_RANDOM: readahead off). Return: the time, 0 on failure. */
uint64_t bench_read_file(size_t io, uint8_t *buf, int advice);
/* Drop @path's pages, and only them: POSIX_FADV_DONTNEED on the synced
 * file, as fio's invalidate=1 and Linux's figure (tools/linuxbench.c) do.
 * The inode, the block map and the directories stay cached on both
 * kernels. Return: true if no page of the file is left in the cache
 * (else with a message). */
bool bench_drop_file_pages(const char *path);
/* "file_mib": .., "io_bytes": @io into @p. */
void bench_params_io(char *p, size_t n, size_t io);

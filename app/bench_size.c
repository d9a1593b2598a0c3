/*
 * app/bench_size.c: the JSON benchmark file_size_cost (app/bench.h) - a
 * file of 16 MiB, 64 MiB, 256 MiB and 1 GiB written in 1 MiB writes and
 * fsynced, then read cold (its pages dropped, readahead on): microseconds
 * per MiB for each size, so that a cost growing with the file (a block
 * map walked from its start, an index that deepens, writeback or reclaim
 * that falls behind) shows as a rising row. A size whose file would take
 * over 3/4 of the memory, or more than the disk has free, is skipped
 * (tools/bench --scaling gives these boots 2 GiB and a 2 GiB disk). The file is
 * its own, /bench_size.dat, removed after each size. Byte 0 of MiB k holds k +
 * 1, checked on the read. One round of the smallest size goes first and is
 * not counted (tools/linuxbench.c does the same): the first size measured
 * after the boot would otherwise carry the boot's one-time costs.
 *
 * Locking: none of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/statfs.h>
#include <app/bench.h>
#include <kernel/err.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <mm/page_alloc.h>
#include <fs/internal.h>
#include <app/bench_file.h>

#define SIZE_PATH "/bench_size.dat"

static const unsigned int size_mib[] = { 16, 64, 256, 1024 };

/* Write @mib MiB and fsync. Return: the ns it took, 0 on failure. */
static uint64_t size_write(unsigned int mib, uint8_t *buf)
{
	uint64_t t0 = time_ns();
	int fd = open(SIZE_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = fd < 0;

	for (unsigned int k = 0; k < mib && !err; k++) {
		memset(buf, (int)(k + 1), BIG_IO);
		err = write(fd, buf, BIG_IO) != (ssize_t)BIG_IO;
	}
	if (!err)
		err = fsync(fd) != 0;
	if (fd >= 0)
		close(fd);
	if (err) {
		printf(
		    "bench: writing %s: %s\n", SIZE_PATH, vfs_strerror(errno));
		return 0;
	}
	return MAX(time_ns() - t0, 1);
}

/* Read the @mib MiB back cold. Return: the ns it took, 0 on failure. */
static uint64_t size_read(unsigned int mib, uint8_t *buf)
{
	uint64_t t0;
	int fd;

	if (!bench_drop_file_pages(SIZE_PATH))
		return 0;
	t0 = time_ns();
	fd = open(SIZE_PATH, O_RDONLY);
	for (unsigned int k = 0; k < mib && fd >= 0; k++)
		if (read(fd, buf, BIG_IO) != (ssize_t)BIG_IO ||
		    buf[0] != (uint8_t)(k + 1)) {
			printf(
			    "bench: %s: short read or wrong data at MiB %u\n",
			    SIZE_PATH,
			    k);
			close(fd);
			return 0;
		}
	if (fd < 0)
		return 0;
	close(fd);
	return MAX(time_ns() - t0, 1);
}

/* Why a file of @mib MiB is not measured, or NULL if it is. */
static const char *size_skip(unsigned int mib)
{
	uint64_t mem_mib = pages_total() >> (20 - PAGE_SHIFT);
	struct statfs sf;

	if (4 * (uint64_t)mib > 3 * mem_mib)
		return "the file over 3/4 of the memory";
	if (statfs("/", &sf) ||
	    (uint64_t)sf.f_bavail * sf.f_bsize < ((uint64_t)mib << 20))
		return "no room on the disk";
	return NULL;
}

static int bench_size(int argc, char **argv)
{
	uint8_t *buf = bench_big_buf();
	int err = !buf;
	char p[96], mode[8];

	(void)argc, (void)argv;
	/* One round of the smallest size first, not counted: the boot's
	 * one-time costs (the paths' first run, the first file's metadata
	 * read from the disk) are no size's. */
	if (!err && !size_skip(size_mib[0]))
		err = !size_write(size_mib[0], buf) ||
		      !size_read(size_mib[0], buf);
	unlink(SIZE_PATH);
	for (unsigned int k = 0; k < ARRAY_SIZE(size_mib) && !err; k++) {
		struct bench_samples w = BENCH_SAMPLES_INIT;
		struct bench_samples r = BENCH_SAMPLES_INIT;
		unsigned int mib = size_mib[k];
		const char *skip = size_skip(mib);

		snprintf(mode, sizeof(mode), "%u", mib);
		if (skip) {
			bench_skip("file_size_cost", mode, skip);
			continue;
		}
		for (int rep = 0; rep < bench_reps() && !err; rep++) {
			uint64_t wns = size_write(mib, buf);
			uint64_t rns = wns ? size_read(mib, buf) : 0;

			err = !wns || !rns;
			bench_add(&w, wns / 1000 / mib);
			bench_add(&r, rns / 1000 / mib);
			unlink(SIZE_PATH);
		}
		snprintf(p,
			 sizeof(p),
			 "\"file_mib\": %u, \"io_bytes\": %u",
			 mib,
			 BIG_IO);
		if (!err) {
			bench_print("file_size_cost",
				    mode,
				    p,
				    "write_fsync_us_per_mib",
				    "us/MiB",
				    &w,
				    0);
			bench_print("file_size_cost",
				    mode,
				    p,
				    "cold_read_us_per_mib",
				    "us/MiB",
				    &r,
				    0);
		}
	}
	unlink(SIZE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(
    file_size_cost,
    bench_size,
    "file_size_cost  (write+fsync and cold read, 16 MiB to 1 GiB, per MiB)");

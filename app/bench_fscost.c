/*
 * app/bench_fscost.c: the JSON benchmark fs_cost (app/bench.h) - what the
 * filesystem under the page cache costs, at 1 MiB and at 4 KiB I/O, so
 * that ext2 and ext4 (tools/bench --fs ext2,ext4) can be set side by side:
 *
 *   write_fsync_1m/_4k  /bench.dat (64 MiB) created, written in 1 MiB or
 *                       4 KiB write()s and fsynced: MB/s over both (block
 *                       allocation, the block map or extent tree, writeback)
 *   cold_read_1m/_4k    its pages dropped (app/bench_file.h), then read in
 *                       1 MiB or 4 KiB read()s, readahead on: MB/s (the
 *                       map looked up per readahead window, the device)
 *   punch_1m/_4k        the whole file, written and all cached, punched in
 *                       holes of 1 MiB or 4 KiB from its start
 *                       (FALLOC_FL_PUNCH_HOLE | KEEP_SIZE), then fsync:
 *                       holes/s and MB/s of file punched (the cache dropped
 *                       over each hole, the blocks freed, the map shrunk)
 *
 * A round does the three at one size, the file unlinked after it; the
 * sizes take turns round by round (1m, 4k, then 4k, 1m), so a host that
 * slows down weighs on both alike. The data are checked on the read
 * (byte 0 of MiB k holds k + 1).
 *
 * Locking: none of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <app/bench.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include <app/bench_file.h>

/* MB/s (10^6 bytes), one decimal, as tenths. */
#define FSCOST_MB_S(bytes, ns) ((uint64_t)(bytes)*10000 / MAX((ns), 1))

enum { FSCOST_WRITE, FSCOST_READ, FSCOST_HOLES, FSCOST_PUNCH, FSCOST_N };

/* Punch all of FILE_PATH in holes of @io, then fsync. Return: the ns it
 * took, 0 on failure (with a message). */
static uint64_t punch_file(size_t io)
{
	int fd = open(FILE_PATH, O_RDWR), err = fd < 0;
	uint64_t t0 = time_ns();

	for (size_t off = 0; off < FILE_SIZE && !err; off += io)
		err = fallocate(fd,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)off,
				(off_t)io) != 0;
	if (!err)
		err = fsync(fd) != 0;
	t0 = MAX(time_ns() - t0, 1);
	if (fd >= 0)
		close(fd);
	if (err) {
		printf(
		    "bench: punching %s: %s\n", FILE_PATH, vfs_strerror(errno));
		return 0;
	}
	return t0;
}

/* One round at @io into @s[FSCOST_N]. Return: 0, or 1 with a message. */
static int fscost_round(size_t io, uint8_t *buf, struct bench_samples *s)
{
	struct bench_write_times t;
	uint64_t rns, pns;

	if (bench_write_file(io, true, &t))
		return 1;
	if (!bench_drop_file_pages(FILE_PATH))
		return 1;
	rns = bench_read_file(io, buf, POSIX_FADV_NORMAL);
	pns = rns ? punch_file(io) : 0; /* every page cached by the read */
	unlink(FILE_PATH);
	if (!pns)
		return 1;
	bench_add(&s[FSCOST_WRITE], FSCOST_MB_S(FILE_SIZE, t.loop + t.fsync));
	bench_add(&s[FSCOST_READ], FSCOST_MB_S(FILE_SIZE, rns));
	bench_add(&s[FSCOST_HOLES], bench_rate(FILE_SIZE / io, pns, 0));
	bench_add(&s[FSCOST_PUNCH], FSCOST_MB_S(FILE_SIZE, pns));
	return 0;
}

static void fscost_print(size_t io, const char *sz, struct bench_samples *s)
{
	static const char *const what[] = { "write_fsync", "cold_read" };
	char p[96], mode[24];

	bench_params_io(p, sizeof(p), io);
	for (int k = 0; k < 2; k++) {
		snprintf(mode, sizeof(mode), "%s_%s", what[k], sz);
		bench_print("fs_cost", mode, p, "mb_per_s", "MB/s", &s[k], 1);
	}
	snprintf(mode, sizeof(mode), "punch_%s", sz);
	bench_print(
	    "fs_cost", mode, p, "holes_per_s", "holes/s", &s[FSCOST_HOLES], 0);
	bench_print(
	    "fs_cost", mode, p, "mb_per_s", "MB/s", &s[FSCOST_PUNCH], 1);
}

static int bench_fscost(int argc, char **argv)
{
	static const size_t sizes[] = { BIG_IO, SMALL_IO };
	static const char *const names[] = { "1m", "4k" };
	struct bench_samples s[2][FSCOST_N];
	uint8_t *buf = bench_big_buf();
	int err = !buf;

	(void)argc, (void)argv;
	for (int k = 0; k < 2; k++)
		for (int m = 0; m < FSCOST_N; m++)
			s[k][m] = (struct bench_samples)BENCH_SAMPLES_INIT;
	for (int r = 0; r < bench_reps() && !err; r++)
		for (int i = 0; i < 2 && !err; i++) {
			int k = r % 2 ? 1 - i : i;

			err = fscost_round(sizes[k], buf, s[k]);
		}
	for (int k = 0; k < 2 && !err; k++)
		fscost_print(sizes[k], names[k], s[k]);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(fs_cost,
		 bench_fscost,
		 "fs_cost  (write+fsync, cold read, punch; 1 MiB and 4 KiB)");

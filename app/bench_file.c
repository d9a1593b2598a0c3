/*
 * app/bench_file.c: the JSON benchmarks of the page cache, the file calls
 * and the device (app/bench.h; `bench -l` lists them). Each works on
 * its own file, /bench.dat (64 MiB, byte i of MiB k = k + 1), made and
 * removed by the benchmark, so any can run alone and none leaves a trace.
 * Raw device figures read vda (reads only: safe under a filesystem) and
 * write only a disk given for it, vdb (tools/bench attaches a scratch one);
 * without vdb the raw write figure says "skipped".
 *
 * Locking: none of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <drivers/block_bench.h>
#include <app/bench.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/lockdep.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include <app/bench_file.h>

uint8_t *bench_big_buf(void)
{
	uint8_t *buf = kmalloc(2 * BIG_IO, GFP_KERNEL);

	if (!buf)
		printf("bench: no memory for a 2 MiB buffer\n");
	return buf;
}

/* Write /bench.dat in @io writes (then fsync if @sync). Return: 0 or 1;
 * the times in *@t if not NULL. */
int bench_write_file(size_t io, bool sync, struct bench_write_times *t)
{
	uint8_t *buf = bench_big_buf();
	int fd = open(FILE_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0644), err = 0;
	uint64_t t0 = time_ns(), calls = 0, t1;

	if (!buf || fd < 0) {
		printf("bench: %s: %s\n", FILE_PATH, vfs_strerror(errno));
		kfree(buf);
		return 1;
	}
	for (size_t off = 0; off < FILE_SIZE && !err; off += io) {
		uint64_t c;

		memset(buf, (int)(off >> 20) + 1, io);
		c = time_ns();
		err = write(fd, buf, io) != (ssize_t)io;
		calls += time_ns() - c;
	}
	t1 = time_ns();
	if (!err && sync)
		err = fsync(fd) != 0;
	if (t)
		*t = (struct bench_write_times){ calls,
						 t1 - t0,
						 time_ns() - t1 };
	close(fd);
	kfree(buf);
	if (err)
		printf(
		    "bench: writing %s: %s\n", FILE_PATH, vfs_strerror(errno));
	return err;
}

uint64_t bench_read_file(size_t io, uint8_t *buf, int advice)
{
	int fd = open(FILE_PATH, O_RDONLY);
	uint64_t t0, ns;

	if (fd < 0)
		return 0;
	if (advice != POSIX_FADV_NORMAL)
		posix_fadvise(fd, 0, 0, advice);
	t0 = time_ns();
	for (size_t off = 0; off < FILE_SIZE; off += io)
		if (read(fd, buf, io) != (ssize_t)io ||
		    buf[0] != (uint8_t)((off >> 20) + 1)) {
			printf("bench: %s: short read or wrong data at %zu\n",
			       FILE_PATH,
			       off);
			close(fd);
			return 0;
		}
	ns = MAX(time_ns() - t0, 1);
	close(fd);
	return ns;
}

void bench_params_io(char *p, size_t n, size_t io)
{
	snprintf(
	    p, n, "\"file_mib\": %u, \"io_bytes\": %zu", FILE_SIZE >> 20, io);
}

/* ---- memcpy and cached reads: ns per operation ---- */

static int bench_memcpy(int argc, char **argv)
{
	static const size_t sizes[] = { SMALL_IO, BIG_IO };
	static const char *names[] = { "memcpy_4k", "memcpy_1m" };
	uint8_t *buf = bench_big_buf();
	char p[96];

	(void)argc, (void)argv;
	if (!buf)
		return 1;
	for (int k = 0; k < 2; k++) {
		struct bench_samples s = BENCH_SAMPLES_INIT;
		unsigned int ops = FILE_SIZE / sizes[k];

		for (int r = 0; r < bench_reps(); r++) {
			uint64_t t0 = time_ns();

			for (unsigned int i = 0; i < ops; i++)
				memcpy(buf + BIG_IO, buf, sizes[k]);
			bench_add(&s, (time_ns() - t0) * 10 / ops);
		}
		snprintf(
		    p, sizeof(p), "\"bytes\": %zu, \"ops\": %u", sizes[k], ops);
		bench_print(names[k], NULL, p, "ns_per_op", "ns", &s, 1);
	}
	kfree(buf);
	return 0;
}
SHELL_BENCH_JSON(memcpy, bench_memcpy, "memcpy  (memcpy_4k, memcpy_1m)");

/* The two sizes round by round (4k, 1m, then 1m, 4k), so a host whose
 * speed drifts during the boot weighs on each alike: the ratio of the two
 * (per byte, tools/bench) is read from one stretch of the boot. */
static int bench_cached_read(int argc, char **argv)
{
	static const size_t sizes[] = { SMALL_IO, BIG_IO };
	static const char *names[] = { "cached_read_4k", "cached_read_1m" };
	struct bench_samples s[2] = { BENCH_SAMPLES_INIT, BENCH_SAMPLES_INIT };
	uint8_t *buf = bench_big_buf();
	int err = !buf || bench_write_file(BIG_IO, false, NULL);
	char p[96];

	(void)argc, (void)argv;
	for (int r = 0; r < bench_reps() && !err; r++) {
		for (int i = 0; i < 2 && !err; i++) {
			int k = r % 2 ? 1 - i : i;
			uint64_t ns =
			    bench_read_file(sizes[k], buf, POSIX_FADV_NORMAL);

			err = !ns;
			bench_add(&s[k], ns * 10 / (FILE_SIZE / sizes[k]));
		}
	}
	for (int k = 0; k < 2 && !err; k++) {
		bench_params_io(p, sizeof(p), sizes[k]);
		bench_print(names[k], NULL, p, "ns_per_op", "ns", &s[k], 1);
	}
	unlink(FILE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(cached_read,
		 bench_cached_read,
		 "cached_read  (cached_read_4k, cached_read_1m)");

/* Locks taken by 64 read()s of 1 MiB from the start of the cached file. */
static long reads_locks(int fd, uint8_t *buf)
{
	unsigned long before;

	if (lseek(fd, 0, SEEK_SET))
		return -1;
	before = lockdep_acquired();
	for (size_t off = 0; off < FILE_SIZE; off += BIG_IO)
		if (read(fd, buf, BIG_IO) != BIG_IO)
			return -1;
	return (long)(lockdep_acquired() - before);
}

/* Locks taken by the first load of each page of a new shared mapping of
 * the cached file: one fault per page, each a hit. */
static long faults_locks(int fd)
{
	volatile uint8_t *map =
	    mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	unsigned long before;
	unsigned int sum = 0;

	if (map == MAP_FAILED)
		return -1;
	before = lockdep_acquired();
	for (size_t off = 0; off < FILE_SIZE; off += 4096)
		sum += map[off];
	before = lockdep_acquired() - before;
	munmap((void *)map, FILE_SIZE);
	(void)sum;
	return (long)before;
}

/* Every lock the reading task takes on cached, uptodate pages: in read()
 * (the descriptor look-up included) and in faults (mmap and munmap apart).
 * The total, then the two parts as modes "read" and "fault". */
static int bench_hit_locks(int argc, char **argv)
{
	struct bench_samples s = BENCH_SAMPLES_INIT, sr = BENCH_SAMPLES_INIT,
			     sf = BENCH_SAMPLES_INIT;
	uint8_t *buf = bench_big_buf();
	int err = !buf || bench_write_file(BIG_IO, false, NULL);
	int fd = err ? -1 : open(FILE_PATH, O_RDONLY);
	char p[96];

	(void)argc, (void)argv;
	err = err || fd < 0 ||
	      !bench_read_file(
		  BIG_IO, buf, POSIX_FADV_NORMAL); /* all cached now */
	for (int r = 0; r < bench_reps() && !err; r++) {
		long reads = reads_locks(fd, buf), faults = faults_locks(fd);

		err = reads < 0 || faults < 0;
		bench_add(&s, (uint64_t)(reads + faults));
		bench_add(&sr, (uint64_t)reads);
		bench_add(&sf, (uint64_t)faults);
	}
	if (fd >= 0)
		close(fd);
	snprintf(p,
		 sizeof(p),
		 "\"reads\": %u, \"faults\": %u",
		 FILE_SIZE / BIG_IO,
		 FILE_SIZE / 4096);
	if (!err) {
		bench_print("cached_hit_lock_acquisitions",
			    NULL,
			    p,
			    "count",
			    "locks",
			    &s,
			    0);
		bench_print("cached_hit_lock_acquisitions",
			    "read",
			    p,
			    "count",
			    "locks",
			    &sr,
			    0);
		bench_print("cached_hit_lock_acquisitions",
			    "fault",
			    p,
			    "count",
			    "locks",
			    &sf,
			    0);
	}
	unlink(FILE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON_LAST(cached_hit_lock_acquisitions,
		      bench_hit_locks,
		      "cached_hit_lock_acquisitions  (locks taken reading and "
		      "faulting cached pages)");

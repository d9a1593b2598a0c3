/*
 * app/bench_fs.c: `bench fs [DIR]`, the filesystem benchmark.
 *
 * Through the POSIX calls, in DIR (default "/"), timed with time_ns():
 *   write     a 64 MiB file in 1 MiB write()s, then fsync (MiB/s over both)
 *   cold      drop the page cache (vfs_drop_caches), read it in 1 MiB reads
 *   cached    read it again, in 1 MiB and then in 4 KiB read()s
 *   create    1000 times: create an empty file, close it, unlink it
 * The file is removed afterwards. A benchmark, not a test: the figures
 * depend on the host; tools/test_bench_fs.py checks only that it runs.
 * Figures are MiB/s (2^20 bytes), as dd and fio print them.
 *
 * Locking: none of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

#define BENCH_FILE_SIZE (64u << 20)
#define BENCH_BIG_IO	(1u << 20)
#define BENCH_SMALL_IO	4096u
#define BENCH_FILES	1000u

/* MiB/s with one decimal, as tenths. */
static unsigned long long tenths_mib_s(uint64_t bytes, uint64_t ns)
{
	return bytes * 10 * NSEC_PER_SEC / MAX(ns, 1) >> 20;
}

static void report(const char *what, uint64_t ns)
{
	unsigned long long r = tenths_mib_s(BENCH_FILE_SIZE, ns);

	printf("  %-18s %7llu ms  %5llu.%llu MiB/s\n",
	       what,
	       (unsigned long long)(ns / NSEC_PER_MSEC),
	       r / 10,
	       r % 10);
}

static int fail(const char *what, const char *path)
{
	printf("bench fs: %s %s: %s\n", what, path, vfs_strerror(errno));
	return 1;
}

/* Write the file; report write and fsync times and the rate over both. */
static int bench_write(const char *path, uint8_t *buf)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t t0, t1, t2;

	if (fd < 0)
		return fail("create", path);
	t0 = time_ns();
	for (size_t off = 0; off < BENCH_FILE_SIZE; off += BENCH_BIG_IO) {
		memset(buf, (int)(off >> 20) + 1, BENCH_BIG_IO);
		if (write(fd, buf, BENCH_BIG_IO) != BENCH_BIG_IO) {
			close(fd);
			return fail("write", path);
		}
	}
	t1 = time_ns();
	if (fsync(fd)) {
		close(fd);
		return fail("fsync", path);
	}
	t2 = time_ns();
	close(fd);
	report("write+fsync", t2 - t0);
	printf("    (write %llu ms, fsync %llu ms)\n",
	       (unsigned long long)((t1 - t0) / NSEC_PER_MSEC),
	       (unsigned long long)((t2 - t1) / NSEC_PER_MSEC));
	return 0;
}

/* Read the whole file in @io-byte read()s and check its bytes' chunk
 * numbers. */
static int
bench_read(const char *what, const char *path, uint8_t *buf, size_t io)
{
	int fd = open(path, O_RDONLY);
	uint64_t t0;

	if (fd < 0)
		return fail("open", path);
	t0 = time_ns();
	for (size_t off = 0; off < BENCH_FILE_SIZE; off += io) {
		if (read(fd, buf, io) != (ssize_t)io) {
			close(fd);
			return fail("read", path);
		}
		if (buf[0] != (uint8_t)((off >> 20) + 1)) {
			close(fd);
			printf("bench fs: %s: wrong data at %zu\n", path, off);
			return 1;
		}
	}
	report(what, time_ns() - t0);
	close(fd);
	return 0;
}

static int bench_create_unlink(const char *dir)
{
	char path[PATH_MAX_LEN];
	uint64_t t0 = time_ns(), ns;

	for (unsigned int i = 0; i < BENCH_FILES; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/bench_fs.%u", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("create", path);
		close(fd);
		if (unlink(path))
			return fail("unlink", path);
	}
	ns = MAX(time_ns() - t0, 1);
	printf("  %-18s %7llu ms  %5llu ops/s  (%llu us/op)\n",
	       "create+unlink",
	       (unsigned long long)(ns / NSEC_PER_MSEC),
	       (unsigned long long)(BENCH_FILES * NSEC_PER_SEC / ns),
	       (unsigned long long)(ns / BENCH_FILES / 1000));
	return 0;
}

static int bench_fs(const char *dir, uint8_t *buf)
{
	char path[PATH_MAX_LEN];
	long dropped;
	int err;

	snprintf(path, sizeof(path), "%s/bench_fs.dat", dir);
	printf("bench fs %s: %u MiB file in %u KiB writes, reads of %u KiB "
	       "and %u KiB, %u creates+unlinks\n",
	       *dir ? dir : "/",
	       BENCH_FILE_SIZE >> 20,
	       BENCH_BIG_IO >> 10,
	       BENCH_BIG_IO >> 10,
	       BENCH_SMALL_IO >> 10,
	       BENCH_FILES);
	err = bench_write(path, buf);
	if (err)
		return err;
	dropped = vfs_drop_caches();
	if (dropped < 0) {
		printf("bench fs: drop_caches: %s\n",
		       vfs_strerror((int)-dropped));
		err = 1;
	}
	if (!err)
		err = bench_read("cold read 1M", path, buf, BENCH_BIG_IO) ||
		      bench_read("cached read 1M", path, buf, BENCH_BIG_IO) ||
		      bench_read("cached read 4K", path, buf, BENCH_SMALL_IO);
	if (unlink(path) && !err)
		err = fail("unlink", path);
	return err ? err : bench_create_unlink(dir);
}

/* argv[0] is "fs" (kernel/shell.h's SHELL_BENCH). */
static int bench_fs_cmd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "";
	uint8_t *buf;
	int err;

	if (argc > 2)
		return shell_bench_usage(argv[0]);
	buf = kmalloc(BENCH_BIG_IO, GFP_KERNEL);
	if (!buf)
		return 1;
	err = bench_fs(strcmp(dir, "/") ? dir : "", buf);
	kfree(buf);
	return err;
}
SHELL_BENCH(fs,
	    bench_fs_cmd,
	    "fs [DIR]  (a 64 MiB file and 1000 files in DIR)");

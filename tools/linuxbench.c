/*
 * tools/linuxbench.c: whole's benchmarks (fs/bench_file.c, fs/bench_io.c)
 * as a Linux program, for tools/bench.py --linux. Built static with
 * Debian's riscv64-linux-gnu-gcc and run by the Linux guest's /init
 * (tools/linuxguest.py):
 *
 *   linuxbench REPS DIR DATA_DISK SCRATCH_DISK
 *
 * The same workloads with the same sizes and counts: a 64 MiB file
 * DIR/bench.dat written in 1 MiB writes (byte i of MiB k = k + 1), read
 * in 4 KiB and 1 MiB reads cached and cold (the page cache dropped through
 * /proc/sys/vm/drop_caches; no_readahead: POSIX_FADV_RANDOM), raw device
 * reads and writes of 128 KiB with 32 in flight and random 4 KiB reads at
 * depth 1 and 32 (Linux AIO on O_DIRECT, as close as Linux gets to
 * whole's bios), 500 create+close+unlink, cached 4 KiB preads from 1, 2
 * and 4 threads pinned to CPUs. Each figure is timed with
 * CLOCK_MONOTONIC, repeated REPS times, and printed as tools/bench.py's
 * JSON with "kernel": "linux".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE   (64u << 20)
#define BIG_IO	    (1u << 20)
#define SMALL_IO    4096u
#define RAW_IO	    (128u << 10)
#define RAW_DEPTH   32
#define RAND_IOS    2000u
#define CREATES	    500u
#define SCALE_READS 8192u
#define MAX_REPS    32

static int reps;
static char path[256], dir[200];
static const char *data_disk, *scratch_disk;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

__attribute__((noreturn)) static void die(const char *what)
{
	printf("linuxbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One figure: the median, min and max of @n samples. */
static void print(const char *bench,
		  const char *mode,
		  const char *params,
		  const char *metric,
		  const char *unit,
		  double *s,
		  int n)
{
	char m[32] = "null";

	qsort(s, n, sizeof(*s), cmp_double);
	if (mode)
		snprintf(m, sizeof(m), "\"%s\"", mode);
	printf("{\"bench\": \"%s\", \"mode\": %s, \"kernel\": \"linux\", "
	       "\"params\": {%s}, \"metric\": \"%s\", \"unit\": \"%s\", "
	       "\"median\": %.1f, \"min\": %.1f, \"max\": %.1f, "
	       "\"samples\": %d}\n",
	       bench,
	       m,
	       params,
	       metric,
	       unit,
	       n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2,
	       s[0],
	       s[n - 1],
	       n);
	fflush(stdout);
}

static double mb_per_s(uint64_t bytes, uint64_t ns)
{
	return (double)bytes * 1000.0 / (double)(ns ? ns : 1);
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die("drop_caches");
	close(fd);
}

static uint8_t *buf;

/* Write the file in 1 MiB writes, then fsync: the two times. */
/* As whole's bench_write_file: *@calls_ns inside the write() calls alone,
 * *@loop_ns the whole loop (each MiB's bytes set, then written), then the
 * fsync after it. */
static void
write_file(uint64_t *calls_ns, uint64_t *loop_ns, uint64_t *fsync_ns)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t t0 = now_ns(), calls = 0, t1;

	if (fd < 0)
		die(path);
	for (uint32_t off = 0; off < FILE_SIZE; off += BIG_IO) {
		uint64_t c;

		memset(buf, (int)(off >> 20) + 1, BIG_IO);
		c = now_ns();
		if (write(fd, buf, BIG_IO) != BIG_IO)
			die("write");
		calls += now_ns() - c;
	}
	t1 = now_ns();
	if (fsync(fd))
		die("fsync");
	*calls_ns = calls;
	*loop_ns = t1 - t0;
	*fsync_ns = now_ns() - t1;
	close(fd);
}

/* Read all of the file in @io reads, checking each MiB's mark. */
static uint64_t read_file(uint32_t io, int advice)
{
	int fd = open(path, O_RDONLY);
	uint64_t t0;

	if (fd < 0)
		die(path);
	if (advice)
		posix_fadvise(fd, 0, 0, advice);
	t0 = now_ns();
	for (uint32_t off = 0; off < FILE_SIZE; off += io)
		if (read(fd, buf, io) != (ssize_t)io ||
		    buf[0] != (uint8_t)((off >> 20) + 1))
			die("short read or wrong data");
	t0 = now_ns() - t0;
	close(fd);
	return t0;
}

static void bench_memcpy_and_cached(void)
{
	static const uint32_t sizes[] = { SMALL_IO, BIG_IO };
	double s[MAX_REPS];
	uint64_t w, f;
	char p[96];

	for (int k = 0; k < 2; k++) {
		uint32_t ops = FILE_SIZE / sizes[k];

		for (int r = 0; r < reps; r++) {
			uint64_t t0 = now_ns();

			for (uint32_t i = 0; i < ops; i++) {
				memcpy(buf + BIG_IO, buf, sizes[k]);
				__asm__ __volatile__("" ::: "memory");
			}
			s[r] = (double)(now_ns() - t0) / ops;
		}
		snprintf(
		    p, sizeof(p), "\"bytes\": %u, \"ops\": %u", sizes[k], ops);
		print(k ? "memcpy_1m" : "memcpy_4k",
		      NULL,
		      p,
		      "ns_per_op",
		      "ns",
		      s,
		      reps);
	}
	write_file(&w, &w, &f);
	for (int k = 0; k < 2; k++) {
		uint32_t ops = FILE_SIZE / sizes[k];

		read_file(sizes[k], 0); /* the file is cached from here on */
		for (int r = 0; r < reps; r++)
			s[r] = (double)read_file(sizes[k], 0) / ops;
		snprintf(p,
			 sizeof(p),
			 "\"file_mib\": 64, \"io_bytes\": %u",
			 sizes[k]);
		print(k ? "cached_read_1m" : "cached_read_4k",
		      NULL,
		      p,
		      "ns_per_op",
		      "ns",
		      s,
		      reps);
	}
}

/* ---- Linux AIO on O_DIRECT: @nios requests of @io bytes, @depth in
 * flight, sequential (@seed 0) or at random 4 KiB-aligned offsets ---- */

static uint64_t aio_run(const char *disk,
			int write,
			uint32_t io,
			uint32_t nios,
			uint32_t depth,
			uint64_t seed)
{
	int fd = open(disk, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	aio_context_t ctx = 0;
	struct iocb cbs[RAW_DEPTH], *cbp[1];
	struct io_event ev[RAW_DEPTH];
	uint64_t size, next = 0, t0;
	uint32_t done = 0, sent = 0;
	uint8_t *mem;

	if (fd < 0)
		die(disk);
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	if (posix_memalign((void **)&mem, 4096, (size_t)depth * io))
		die("posix_memalign");
	memset(mem, 0x5a, (size_t)depth * io);
	if (syscall(SYS_io_setup, depth, &ctx))
		die("io_setup");
	t0 = now_ns();
	while (done < nios) {
		while (sent < nios && sent - done < depth) {
			struct iocb *cb = &cbs[sent % depth];
			uint64_t off;

			if (seed) {
				seed = seed * 6364136223846793005ull +
				       1442695040888963407ull;
				off = (seed >> 16) % (size / io) * io;
			} else {
				off = next;
				next = (next + io) % size;
			}
			memset(cb, 0, sizeof(*cb));
			cb->aio_fildes = fd;
			cb->aio_lio_opcode =
			    write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
			cb->aio_buf =
			    (uint64_t)(uintptr_t)(mem +
						  (size_t)(sent % depth) * io);
			cb->aio_nbytes = io;
			cb->aio_offset = (int64_t)off;
			cbp[0] = cb;
			if (syscall(SYS_io_submit, ctx, 1, cbp) != 1)
				die("io_submit");
			sent++;
		}
		long n = syscall(SYS_io_getevents, ctx, 1, depth, ev, NULL);

		if (n < 1)
			die("io_getevents");
		for (long i = 0; i < n; i++)
			if (ev[i].res != (int64_t)io) {
				errno = ev[i].res < 0 ? (int)-ev[i].res : EIO;
				die("aio request");
			}
		done += (uint32_t)n;
	}
	t0 = now_ns() - t0;
	syscall(SYS_io_destroy, ctx);
	free(mem);
	close(fd);
	return t0;
}

/* The raw figure of @bench: 64 MiB of @disk in RAW_IO requests,
 * RAW_DEPTH in flight. */
static void raw_figure(const char *bench, const char *disk, int write)
{
	double s[MAX_REPS];
	char p[96];

	for (int r = 0; r < reps; r++)
		s[r] = mb_per_s(
		    FILE_SIZE,
		    aio_run(
			disk, write, RAW_IO, FILE_SIZE / RAW_IO, RAW_DEPTH, 0));
	snprintf(p,
		 sizeof(p),
		 "\"disk\": \"%s\", \"io_bytes\": %u, \"depth\": %u",
		 disk,
		 RAW_IO,
		 RAW_DEPTH);
	print(bench, "raw", p, "mb_per_s", "MB/s", s, reps);
}

static void bench_device_and_writes(void)
{
	double s[MAX_REPS], a[MAX_REPS], b[MAX_REPS];
	char p[96];

	for (int k = 0; k < 2; k++) {
		for (int r = 0; r < reps; r++) {
			drop_caches();
			s[r] = mb_per_s(
			    FILE_SIZE,
			    read_file(BIG_IO, k ? POSIX_FADV_RANDOM : 0));
		}
		print("cold_seq_read",
		      k ? "no_readahead" : "readahead",
		      "\"file_mib\": 64, \"io_bytes\": 1048576",
		      "mb_per_s",
		      "MB/s",
		      s,
		      reps);
	}
	raw_figure("cold_seq_read", data_disk, 0);
	unlink(path);
	for (int r = 0; r < reps; r++) {
		uint64_t c, w, f;

		write_file(&c, &w, &f);
		a[r] = mb_per_s(FILE_SIZE, c);
		b[r] = mb_per_s(FILE_SIZE, f);
		s[r] = mb_per_s(FILE_SIZE, w + f);
		unlink(path);
	}
	print("buffered_write",
	      "cache",
	      "\"file_mib\": 64, \"io_bytes\": 1048576",
	      "mb_per_s",
	      "MB/s",
	      a,
	      reps);
	print("buffered_write",
	      "write_fsync",
	      "\"file_mib\": 64, \"io_bytes\": 1048576",
	      "mb_per_s",
	      "MB/s",
	      s,
	      reps);
	print("buffered_write",
	      "fsync",
	      "\"file_mib\": 64, \"io_bytes\": 1048576",
	      "mb_per_s",
	      "MB/s",
	      b,
	      reps);
	raw_figure("buffered_write", scratch_disk, 1);
	for (int k = 0; k < 2; k++) {
		uint32_t depth = k ? 32 : 1;

		for (int r = 0; r < reps; r++)
			s[r] = RAND_IOS * 1e9 /
			       (double)aio_run(data_disk,
					       0,
					       4096,
					       RAND_IOS,
					       depth,
					       0x9e3779b97f4a7c15ull + r);
		snprintf(p,
			 sizeof(p),
			 "\"disk\": \"%s\", \"ios\": %u",
			 data_disk,
			 RAND_IOS);
		print("rand_read_4k",
		      k ? "qd32" : "qd1",
		      p,
		      "iops",
		      "IOPS",
		      s,
		      reps);
	}
}

static void bench_create_unlink(void)
{
	double s[MAX_REPS];
	char name[256];

	for (int r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();

		for (uint32_t i = 0; i < CREATES; i++) {
			int fd;

			snprintf(name, sizeof(name), "%s/bench_cu.%u", dir, i);
			fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || close(fd) || unlink(name))
				die(name);
		}
		s[r] = (double)(now_ns() - t0) / 1000.0 / CREATES;
	}
	print("create_unlink",
	      NULL,
	      "\"files\": 500",
	      "us_per_op",
	      "us",
	      s,
	      reps);
}

static void *scale_reader(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg,
		     seed = id * 2654435761u + 1;
	int fd = open(path, O_RDONLY);
	uint8_t *b = malloc(SMALL_IO);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(id, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (fd < 0 || !b)
		die("scale reader");
	for (unsigned int i = 0; i < SCALE_READS; i++) {
		seed = seed * 1103515245u + 12345u;
		if (pread(fd,
			  b,
			  SMALL_IO,
			  (off_t)(seed % (FILE_SIZE / SMALL_IO)) * SMALL_IO) !=
		    SMALL_IO)
			die("pread");
	}
	close(fd);
	free(b);
	return NULL;
}

static void bench_scaling(void)
{
	static const unsigned int harts[] = { 1, 2, 4 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double s[MAX_REPS];
	uint64_t w, f;
	char mode[4];

	write_file(&w, &w, &f);
	read_file(BIG_IO, 0);
	for (int k = 0; k < 3 && harts[k] <= cpus; k++) {
		for (int r = 0; r < reps; r++) {
			pthread_t t[4];
			uint64_t t0 = now_ns();

			for (unsigned int i = 0; i < harts[k]; i++)
				pthread_create(&t[i],
					       NULL,
					       scale_reader,
					       (void *)(uintptr_t)i);
			for (unsigned int i = 0; i < harts[k]; i++)
				pthread_join(t[i], NULL);
			s[r] = (double)harts[k] * SCALE_READS * 1e9 /
			       (double)(now_ns() - t0);
		}
		snprintf(mode, sizeof(mode), "%u", harts[k]);
		print("scaling_cached_read",
		      mode,
		      "\"reads_per_hart\": 8192",
		      "reads_per_s",
		      "reads/s",
		      s,
		      reps);
	}
	unlink(path);
}

int main(int argc, char **argv)
{
	FILE *up = fopen("/proc/uptime", "r");
	double uptime = 0;

	if (argc != 5)
		return fprintf(stderr,
			       "usage: linuxbench REPS DIR DATA SCRATCH\n"),
		       2;
	reps = atoi(argv[1]);
	if (reps < 1 || reps > MAX_REPS)
		return fprintf(stderr, "linuxbench: REPS: 1..%d\n", MAX_REPS),
		       2;
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	snprintf(path, sizeof(path), "%s/bench.dat", dir);
	data_disk = argv[3];
	scratch_disk = argv[4];
	if (up && fscanf(up, "%lf", &uptime) == 1) {
		double s[1] = { uptime * 1000 };

		print("boot",
		      NULL,
		      "\"to\": \"linuxbench\"",
		      "guest_ms",
		      "ms",
		      s,
		      1);
	}
	if (posix_memalign((void **)&buf, 4096, 2 * BIG_IO))
		die("posix_memalign");
	bench_memcpy_and_cached();
	bench_device_and_writes();
	bench_create_unlink();
	bench_scaling();
	return 0;
}

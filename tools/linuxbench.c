/*
 * tools/linuxbench.c: whole's benchmarks (app/bench_file.c, app/bench_io.c)
 * as a Linux program, for tools/bench.py --linux. Built static with
 * Debian's riscv64-linux-gnu-gcc (aarch64-linux-gnu-gcc for --arch aarch64)
 * and run by the Linux guest's /init
 * (tools/linuxguest.py) once the disk is mounted:
 *
 *   linuxbench KERNEL REPS DIR DATA_DISK SCRATCH_DISK [uring|aio]
 *
 * KERNEL names the configuration in the figures ("linux-ext2",
 * "linux-ext4"). The sizes and counts are whole's own (app/bench_file.h) and
 * the random reads' blocks come from the same generator and seeds
 * (drivers/bench_rand.h). A 64 MiB file DIR/bench.dat is written in
 * 1 MiB writes (byte i of MiB k = k + 1) and read cached in 4 KiB and
 * 1 MiB reads, and in preadv calls of 256 x 4 KiB (the same 4 KiB copies
 * with one system call per 256: the boundary whole does not have, alone);
 * cold reads drop the file's pages only (fsync, then POSIX_FADV_DONTNEED,
 * checked with mincore), as whole's figure does. Raw device reads and
 * writes of 128 KiB with 32 in flight and random 4 KiB reads at depth 1
 * and 32 go through io_uring on O_DIRECT, with the buffers and the disk
 * registered (READ_FIXED/WRITE_FIXED) and each call submitting what the
 * completions it reaped left room for (or Linux AIO with "aio"). Then
 * 500 create+close+unlink and cached 4 KiB preads from 1, 2, 4 and 8
 * threads pinned to CPUs (a count above the CPUs online skipped). With
 * LINUXBENCH_ONLY in the environment (names, space- or comma-separated)
 * only those run; file_size_cost (16 MiB to 1 GiB written, fsynced and
 * read cold, as app/bench_size.c) runs only when named: tools/bench
 * --scaling gives it boots of its own. fs_cost (write+fsync, cold read and
 * punch at 1 MiB and 4 KiB, as app/bench_fscost.c) runs with the rest.
 * Each figure is timed with CLOCK_MONOTONIC, repeated REPS times, and
 * printed as tools/bench.py's JSON with "kernel": KERNEL. The first line is "@@
 * ready" with the boot figure: rdtime when the program started, the time since
 * the machine started on the clock whole's boot figure reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "drivers/bench_rand.h"
#include "app/bench_file.h"

#define MAX_REPS      32
#define IOV_MAX_BATCH (BIG_IO / SMALL_IO) /* preadv: 256 x 4 KiB a call */

static int reps, use_aio;
static char path[256], dir[200];
static const char *kernel, *data_disk, *scratch_disk;

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
	printf("{\"bench\": \"%s\", \"mode\": %s, \"kernel\": \"%s\", "
	       "\"params\": {%s}, \"metric\": \"%s\", \"unit\": \"%s\", "
	       "\"median\": %.1f, \"min\": %.1f, \"max\": %.1f, "
	       "\"samples\": %d}\n",
	       bench,
	       m,
	       kernel,
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

static void params_io(char *p, size_t n, uint32_t io)
{
	snprintf(
	    p, n, "\"file_mib\": %u, \"io_bytes\": %u", FILE_SIZE >> 20, io);
}

static uint8_t *buf;

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

/* Read all of the file in @io reads, checking each MiB's mark; @io 0:
 * preadv calls of IOV_MAX_BATCH x 4 KiB, all into one 4 KiB buffer as
 * the 4 KiB reads. */
static uint64_t read_file(uint32_t io, int advice)
{
	static struct iovec iov[IOV_MAX_BATCH];
	int fd = open(path, O_RDONLY);
	uint32_t step = io ? io : BIG_IO;
	uint64_t t0;

	if (fd < 0)
		die(path);
	if (advice)
		posix_fadvise(fd, 0, 0, advice);
	for (unsigned int i = 0; i < IOV_MAX_BATCH; i++)
		iov[i] = (struct iovec){ buf, SMALL_IO };
	t0 = now_ns();
	for (uint32_t off = 0; off < FILE_SIZE; off += step)
		if ((io ? read(fd, buf, io)
			: preadv(fd, iov, IOV_MAX_BATCH, off)) !=
			(ssize_t)step ||
		    buf[0] != (uint8_t)((off >> 20) + 1))
			die("short read or wrong data");
	t0 = now_ns() - t0;
	close(fd);
	return t0;
}

/* Drop the file's pages and only them, as whole's figure does: the file
 * is synced, POSIX_FADV_DONTNEED drops its clean pages (fio's
 * invalidate=1); the inode, the block map and the directories stay
 * cached. mincore checks that no page is left. */
static void drop_file_pages(void)
{
	static unsigned char vec[FILE_SIZE / 4096];
	int fd = open(path, O_RDONLY);
	void *map;

	if (fd < 0 || fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("drop the file's pages");
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || mincore(map, FILE_SIZE, vec))
		die("mincore");
	for (size_t i = 0; i < sizeof(vec); i++)
		if (vec[i] & 1) {
			errno = EBUSY;
			die("a page of the file stayed cached");
		}
	munmap(map, FILE_SIZE);
	close(fd);
}

/* The three sizes round by round (4k, 1m, preadv, then backwards), as
 * whole's cached_read. */
static void bench_cached(void)
{
	static const uint32_t sizes[] = { SMALL_IO, BIG_IO, 0 };
	double s[3][MAX_REPS];
	uint64_t w, f;
	char p[96];

	write_file(&w, &w, &f);
	read_file(BIG_IO, 0); /* the file is cached from here on */
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 3; i++) {
			int k = r % 2 ? 2 - i : i;
			uint32_t ops =
			    FILE_SIZE / (sizes[k] ? sizes[k] : SMALL_IO);

			s[k][r] = (double)read_file(sizes[k], 0) / ops;
		}
	params_io(p, sizeof(p), SMALL_IO);
	print("cached_read_4k", NULL, p, "ns_per_op", "ns", s[0], reps);
	snprintf(p,
		 sizeof(p),
		 "\"file_mib\": %u, \"io_bytes\": %u, \"per_call\": %u",
		 FILE_SIZE >> 20,
		 SMALL_IO,
		 IOV_MAX_BATCH);
	print("cached_read_4k", "preadv", p, "ns_per_op", "ns", s[2], reps);
	params_io(p, sizeof(p), BIG_IO);
	print("cached_read_1m", NULL, p, "ns_per_op", "ns", s[1], reps);
	unlink(path);
}

/* ---- raw device I/O on O_DIRECT: @nios requests of @io bytes, @depth in
 * flight, sequential (@seed 0) or at drivers/bench_rand.h's blocks ---- */

static uint64_t
next_offset(uint64_t *seed, uint64_t *next, uint32_t io, uint64_t size)
{
	uint64_t off;

	if (*seed)
		return bench_rand_offset(seed, size);
	off = *next;
	*next = (*next + io) % size;
	return off;
}

static uint64_t aio_run(int fd,
			int write,
			uint8_t *mem,
			uint64_t size,
			uint32_t io,
			uint32_t nios,
			uint32_t depth,
			uint64_t seed)
{
	aio_context_t ctx = 0;
	struct iocb cbs[RAW_DEPTH], *cbp[1];
	struct io_event ev[RAW_DEPTH];
	uint64_t next = 0, t0;
	uint32_t done = 0, sent = 0;

	if (syscall(SYS_io_setup, depth, &ctx))
		die("io_setup");
	t0 = now_ns();
	while (done < nios) {
		while (sent < nios && sent - done < depth) {
			struct iocb *cb = &cbs[sent % depth];

			memset(cb, 0, sizeof(*cb));
			cb->aio_fildes = fd;
			cb->aio_lio_opcode =
			    write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
			cb->aio_buf =
			    (uint64_t)(uintptr_t)(mem +
						  (size_t)(sent % depth) * io);
			cb->aio_nbytes = io;
			cb->aio_offset =
			    (int64_t)next_offset(&seed, &next, io, size);
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
	return t0;
}

/* io_uring through its system calls (no liburing): the rings, mapped. */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqes_len;
};

static int ring_setup(struct ring *r, unsigned int entries)
{
	/* Single issuer, completions run when this task waits: the
	 * cheapest set-up for one thread (Linux 6.1 on); plain otherwise. */
	static const unsigned int tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0
	};
	struct io_uring_params p;

	for (int i = 0; i < 2; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
		if (r->fd >= 0)
			break;
	}
	if (r->fd < 0)
		return -1;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		r->sq_len = r->cq_len =
		    r->sq_len > r->cq_len ? r->sq_len : r->cq_len;
	r->sq_map = mmap(NULL,
			 r->sq_len,
			 PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE,
			 r->fd,
			 IORING_OFF_SQ_RING);
	if (r->sq_map == MAP_FAILED)
		return -1;
	r->cq_map = r->sq_map;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		r->cq_map = mmap(NULL,
				 r->cq_len,
				 PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE,
				 r->fd,
				 IORING_OFF_CQ_RING);
		if (r->cq_map == MAP_FAILED)
			return -1;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL,
		       r->sqes_len,
		       PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE,
		       r->fd,
		       IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)((char *)r->sq_map + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)r->sq_map + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)r->sq_map + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)r->cq_map + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)r->cq_map + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)r->cq_map + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_map + p.cq_off.cqes);
	return 0;
}

static void ring_free(struct ring *r)
{
	munmap(r->sqes, r->sqes_len);
	if (r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_len);
	munmap(r->sq_map, r->sq_len);
	close(r->fd);
}

static uint64_t uring_run(int fd,
			  int write,
			  uint8_t *mem,
			  uint64_t size,
			  uint32_t io,
			  uint32_t nios,
			  uint32_t depth,
			  uint64_t seed)
{
	struct iovec region = { mem, (size_t)depth * io };
	uint32_t done = 0, sent = 0;
	uint64_t next = 0, t0;
	struct ring r;

	if (ring_setup(&r, depth))
		die("io_uring_setup");
	if (syscall(__NR_io_uring_register,
		    r.fd,
		    IORING_REGISTER_BUFFERS,
		    &region,
		    1) ||
	    syscall(
		__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &fd, 1))
		die("io_uring_register");
	t0 = now_ns();
	while (done < nios) {
		unsigned int tail = *r.sq_tail, head, ctail, mask = *r.sq_mask;
		uint32_t n = 0;

		while (sent < nios && sent - done < depth) {
			struct io_uring_sqe *sqe = &r.sqes[tail & mask];
			uint32_t slot = sent % depth;

			memset(sqe, 0, sizeof(*sqe));
			sqe->opcode = write ? IORING_OP_WRITE_FIXED
					    : IORING_OP_READ_FIXED;
			sqe->flags = IOSQE_FIXED_FILE;
			sqe->fd = 0;
			sqe->addr =
			    (uint64_t)(uintptr_t)(mem + (size_t)slot * io);
			sqe->len = io;
			sqe->off = next_offset(&seed, &next, io, size);
			sqe->buf_index = 0;
			sqe->user_data = slot;
			r.sq_array[tail & mask] = tail & mask;
			tail++, sent++, n++;
		}
		__atomic_store_n(r.sq_tail, tail, __ATOMIC_RELEASE);
		if (syscall(__NR_io_uring_enter,
			    r.fd,
			    n,
			    1,
			    IORING_ENTER_GETEVENTS,
			    NULL,
			    0) < 0)
			die("io_uring_enter");
		head = *r.cq_head;
		ctail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
		for (; head != ctail; head++, done++) {
			struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];

			if (cqe->res != (int32_t)io) {
				errno = cqe->res < 0 ? -cqe->res : EIO;
				die("io_uring request");
			}
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
	}
	t0 = now_ns() - t0;
	ring_free(&r);
	return t0;
}

static uint64_t raw_run(const char *disk,
			int write,
			uint32_t io,
			uint32_t nios,
			uint32_t depth,
			uint64_t seed)
{
	int fd = open(disk, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	uint64_t size, ns;
	uint8_t *mem;

	if (fd < 0)
		die(disk);
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	if (posix_memalign((void **)&mem, 4096, (size_t)depth * io))
		die("posix_memalign");
	memset(mem, 0x5a, (size_t)depth * io);
	ns = (use_aio ? aio_run
		      : uring_run)(fd, write, mem, size, io, nios, depth, seed);
	free(mem);
	close(fd);
	return ns;
}

static const char *engine(void)
{
	return use_aio ? "aio" : "io_uring";
}

/* One raw round: 64 MiB of @disk in RAW_IO requests, RAW_DEPTH in
 * flight, in MB/s. */
static double raw_round(const char *disk, int write)
{
	return mb_per_s(
	    FILE_SIZE,
	    raw_run(disk, write, RAW_IO, FILE_SIZE / RAW_IO, RAW_DEPTH, 0));
}

static void raw_params(char *p, size_t n, const char *disk)
{
	snprintf(p,
		 n,
		 "\"disk\": \"%s\", \"io_bytes\": %u, \"depth\": %u, "
		 "\"engine\": \"%s\"",
		 disk,
		 RAW_IO,
		 RAW_DEPTH,
		 engine());
}

/* readahead, no_readahead and raw round by round, then backwards, as
 * whole's cold_seq_read: cold / raw comes from one stretch. */
static void bench_cold(void)
{
	static const char *const modes[] = { "readahead",
					     "no_readahead",
					     "raw" };
	double s[3][MAX_REPS];
	uint64_t w, f;
	char p[160];

	write_file(&w, &w, &f);
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 3; i++) {
			int k = r % 2 ? 2 - i : i;

			if (k == 2) {
				s[k][r] = raw_round(data_disk, 0);
				continue;
			}
			drop_file_pages();
			s[k][r] = mb_per_s(
			    FILE_SIZE,
			    read_file(BIG_IO, k ? POSIX_FADV_RANDOM : 0));
		}
	params_io(p, sizeof(p), BIG_IO);
	for (int k = 0; k < 2; k++)
		print("cold_seq_read",
		      modes[k],
		      p,
		      "mb_per_s",
		      "MB/s",
		      s[k],
		      reps);
	raw_params(p, sizeof(p), data_disk);
	print("cold_seq_read", "raw", p, "mb_per_s", "MB/s", s[2], reps);
	unlink(path);
}

static void bench_writes(void)
{
	double a[MAX_REPS], b[MAX_REPS], c[MAX_REPS], d[MAX_REPS];
	char p[160];

	for (int r = 0; r < reps; r++) {
		uint64_t calls, loop, f;

		write_file(&calls, &loop, &f);
		a[r] = mb_per_s(FILE_SIZE, calls);
		b[r] = mb_per_s(FILE_SIZE, f);
		c[r] = mb_per_s(FILE_SIZE, loop + f);
		/* read back from the cache in the same round, as whole */
		d[r] = mb_per_s(FILE_SIZE, read_file(BIG_IO, 0));
		unlink(path);
	}
	params_io(p, sizeof(p), BIG_IO);
	print("buffered_write", "cache", p, "mb_per_s", "MB/s", a, reps);
	print("buffered_write", "write_fsync", p, "mb_per_s", "MB/s", c, reps);
	print("buffered_write", "fsync", p, "mb_per_s", "MB/s", b, reps);
	print("buffered_write", "reread", p, "mb_per_s", "MB/s", d, reps);
	for (int r = 0; r < reps; r++)
		a[r] = raw_round(scratch_disk, 1);
	raw_params(p, sizeof(p), scratch_disk);
	print("buffered_write", "raw", p, "mb_per_s", "MB/s", a, reps);
}

static void bench_rand(void)
{
	double s[MAX_REPS];
	char p[160];

	for (int k = 0; k < 2; k++) {
		uint32_t depth = k ? 32 : 1;

		for (int r = 0; r < reps; r++)
			s[r] = RAND_IOS * 1e9 /
			       (double)raw_run(data_disk,
					       0,
					       BENCH_RAND_BLOCK,
					       RAND_IOS,
					       depth,
					       0x9e3779b97f4a7c15ull + r);
		snprintf(p,
			 sizeof(p),
			 "\"disk\": \"%s\", \"ios\": %u, \"engine\": \"%s\"",
			 data_disk,
			 RAND_IOS,
			 engine());
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
	char name[256], p[32];

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
	snprintf(p, sizeof(p), "\"files\": %u", CREATES);
	print("create_unlink", NULL, p, "us_per_op", "us", s, reps);
}

/* A round of scaling_cached_read: SCALE_MS of reading, as whole's
 * (app/bench_io.c says why not a count of reads). */
static int scale_stop;		  /* atomic */
static unsigned long scale_reads; /* atomic */

static void *scale_reader(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg,
		     seed = id * 2654435761u + 1;
	int fd = open(path, O_RDONLY);
	uint8_t *b = malloc(SMALL_IO);
	unsigned long n = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(id, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (fd < 0 || !b)
		die("scale reader");
	while (!__atomic_load_n(&scale_stop, __ATOMIC_RELAXED)) {
		seed = seed * 1103515245u + 12345u;
		if (pread(fd,
			  b,
			  SMALL_IO,
			  (off_t)(seed % (FILE_SIZE / SMALL_IO)) * SMALL_IO) !=
		    SMALL_IO)
			die("pread");
		n++;
	}
	__atomic_fetch_add(&scale_reads, n, __ATOMIC_RELAXED);
	close(fd);
	free(b);
	return NULL;
}

static void bench_scaling(void)
{
	static const unsigned int harts[] = { 1, 2, 4, 8 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double s[MAX_REPS];
	uint64_t w, f;
	char mode[4], p[64];

	write_file(&w, &w, &f);
	read_file(BIG_IO, 0);
	for (int k = 0; k < 4; k++) {
		snprintf(mode, sizeof(mode), "%u", harts[k]);
		if ((long)harts[k] > cpus) {
			printf("{\"bench\": \"scaling_cached_read\", "
			       "\"mode\": \"%s\", \"kernel\": \"%s\", "
			       "\"skipped\": \"fewer harts online\"}\n",
			       mode,
			       kernel);
			continue;
		}
		for (int r = 0; r < reps; r++) {
			struct timespec round = { SCALE_MS / 1000,
						  SCALE_MS % 1000 * 1000000L };
			uint64_t t0 = now_ns();
			pthread_t t[8];

			__atomic_store_n(&scale_stop, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&scale_reads, 0, __ATOMIC_RELAXED);
			for (unsigned int i = 0; i < harts[k]; i++)
				pthread_create(&t[i],
					       NULL,
					       scale_reader,
					       (void *)(uintptr_t)i);
			nanosleep(&round, NULL);
			__atomic_store_n(&scale_stop, 1, __ATOMIC_RELAXED);
			for (unsigned int i = 0; i < harts[k]; i++)
				pthread_join(t[i], NULL);
			s[r] =
			    (double)scale_reads * 1e9 / (double)(now_ns() - t0);
		}
		snprintf(p,
			 sizeof(p),
			 "\"file_mib\": %u, \"read_ms\": %u",
			 FILE_SIZE >> 20,
			 SCALE_MS);
		print("scaling_cached_read",
		      mode,
		      p,
		      "reads_per_s",
		      "reads/s",
		      s,
		      reps);
	}
	unlink(path);
}

/*
 * As whole's file_size_cost (app/bench_size.c): DIR/bench_size.dat of 16
 * MiB to 1 GiB written in 1 MiB writes (byte 0 of MiB k = k + 1) and
 * fsynced, then its pages dropped (fsync, POSIX_FADV_DONTNEED) and read
 * back cold with readahead: microseconds per MiB for each. A size over
 * 3/4 of the memory or the disk's free space is skipped, as whole's; one
 * round of the smallest size goes first and is not counted, as whole's.
 */
static uint64_t size_write(const char *name, unsigned int mib)
{
	uint64_t t0 = now_ns(); /* the open too, as whole's */
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die(name);
	for (unsigned int k = 0; k < mib; k++) {
		memset(buf, (int)(k + 1), BIG_IO);
		if (write(fd, buf, BIG_IO) != BIG_IO)
			die("write");
	}
	if (fsync(fd))
		die("fsync");
	close(fd);
	return now_ns() - t0;
}

static uint64_t size_read(const char *name, unsigned int mib)
{
	int fd = open(name, O_RDONLY);
	uint64_t t0;

	if (fd < 0 || fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("drop the file's pages");
	close(fd);
	t0 = now_ns();
	fd = open(name, O_RDONLY);
	if (fd < 0)
		die(name);
	for (unsigned int k = 0; k < mib; k++)
		if (read(fd, buf, BIG_IO) != BIG_IO ||
		    buf[0] != (uint8_t)(k + 1))
			die("short read or wrong data");
	close(fd);
	return now_ns() - t0;
}

/* Why a file of @mib MiB is not measured, or NULL if it is (as whole's). */
static const char *size_skip(unsigned int mib)
{
	uint64_t mem_mib = (uint64_t)sysconf(_SC_PHYS_PAGES) *
			       (uint64_t)sysconf(_SC_PAGESIZE) >>
			   20;
	struct statvfs sv;

	if (4 * (uint64_t)mib > 3 * mem_mib)
		return "the file over 3/4 of the memory";
	if (statvfs(dir, &sv) ||
	    (uint64_t)sv.f_bavail * sv.f_frsize < ((uint64_t)mib << 20))
		return "no room on the disk";
	return NULL;
}

static void bench_size(void)
{
	static const unsigned int size_mib[] = { 16, 64, 256, 1024 };
	double w[MAX_REPS], r[MAX_REPS];
	char name[256], p[64], mode[8];

	snprintf(name, sizeof(name), "%s/bench_size.dat", dir);
	/* One round of the smallest size first, not counted, as whole's. */
	if (!size_skip(size_mib[0])) {
		size_write(name, size_mib[0]);
		size_read(name, size_mib[0]);
		unlink(name);
	}
	for (unsigned int k = 0; k < 4; k++) {
		unsigned int mib = size_mib[k];
		const char *skip = size_skip(mib);

		snprintf(mode, sizeof(mode), "%u", mib);
		if (skip) {
			printf("{\"bench\": \"file_size_cost\", "
			       "\"mode\": \"%s\", \"kernel\": \"%s\", "
			       "\"skipped\": \"%s\"}\n",
			       mode,
			       kernel,
			       skip);
			continue;
		}
		for (int rep = 0; rep < reps; rep++) {
			w[rep] = (double)(size_write(name, mib) / 1000 / mib);
			r[rep] = (double)(size_read(name, mib) / 1000 / mib);
			unlink(name);
		}
		snprintf(p,
			 sizeof(p),
			 "\"file_mib\": %u, \"io_bytes\": %u",
			 mib,
			 BIG_IO);
		print("file_size_cost",
		      mode,
		      p,
		      "write_fsync_us_per_mib",
		      "us/MiB",
		      w,
		      reps);
		print("file_size_cost",
		      mode,
		      p,
		      "cold_read_us_per_mib",
		      "us/MiB",
		      r,
		      reps);
	}
}

/* ---- fs_cost: as whole's (app/bench_fscost.c) ---- */

/*
 * A round at @io: DIR/bench.dat (64 MiB) written in @io writes and
 * fsynced (timed from after the open, as whole's), its pages dropped and
 * read cold in @io reads with readahead, then, all cached, punched from
 * its start in holes of @io (FALLOC_FL_PUNCH_HOLE | KEEP_SIZE) and
 * fsynced. The times into @ns: write+fsync, cold read, punch.
 */
static void fscost_round(uint32_t io, uint64_t ns[3])
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t t0 = now_ns();

	if (fd < 0)
		die(path);
	for (uint32_t off = 0; off < FILE_SIZE; off += io) {
		memset(buf, (int)(off >> 20) + 1, io);
		if (write(fd, buf, io) != (ssize_t)io)
			die("write");
	}
	if (fsync(fd))
		die("fsync");
	close(fd);
	ns[0] = now_ns() - t0;
	drop_file_pages();
	ns[1] = read_file(io, 0);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	t0 = now_ns();
	for (uint32_t off = 0; off < FILE_SIZE; off += io)
		if (fallocate(fd,
			      FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      off,
			      io))
			die("fallocate punch");
	if (fsync(fd))
		die("fsync");
	ns[2] = now_ns() - t0;
	close(fd);
	unlink(path);
}

/* The sizes round by round (1m, 4k, then 4k, 1m), as whole's. */
static void bench_fscost(void)
{
	static const uint32_t sizes[] = { BIG_IO, SMALL_IO };
	static const char *const names[] = { "1m", "4k" };
	double s[2][4][MAX_REPS];
	char p[96], mode[24];

	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 2; i++) {
			int k = r % 2 ? 1 - i : i;
			uint64_t ns[3];

			fscost_round(sizes[k], ns);
			s[k][0][r] = mb_per_s(FILE_SIZE, ns[0]);
			s[k][1][r] = mb_per_s(FILE_SIZE, ns[1]);
			s[k][2][r] = (double)(FILE_SIZE / sizes[k]) * 1e9 /
				     (double)(ns[2] ? ns[2] : 1);
			s[k][3][r] = mb_per_s(FILE_SIZE, ns[2]);
		}
	for (int k = 0; k < 2; k++) {
		params_io(p, sizeof(p), sizes[k]);
		snprintf(mode, sizeof(mode), "write_fsync_%s", names[k]);
		print("fs_cost", mode, p, "mb_per_s", "MB/s", s[k][0], reps);
		snprintf(mode, sizeof(mode), "cold_read_%s", names[k]);
		print("fs_cost", mode, p, "mb_per_s", "MB/s", s[k][1], reps);
		snprintf(mode, sizeof(mode), "punch_%s", names[k]);
		print("fs_cost",
		      mode,
		      p,
		      "holes_per_s",
		      "holes/s",
		      s[k][2],
		      reps);
		print("fs_cost", mode, p, "mb_per_s", "MB/s", s[k][3], reps);
	}
}

/* The boot clock's frequency: aarch64's CNTFRQ_EL0 (QEMU: 62.5 MHz);
 * riscv64's rdtime, from the device tree (QEMU virt: 10 MHz). */
static uint64_t timebase_hz(void)
{
#ifdef __aarch64__
	uint64_t frq;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
	if (frq)
		return frq;
#endif
	FILE *f = fopen("/sys/firmware/devicetree/base/cpus/timebase-frequency",
			"rb");
	unsigned char be[4];
	uint64_t hz = 10000000;

	if (f && fread(be, 1, 4, f) == 4)
		hz = (uint64_t)be[0] << 24 | be[1] << 16 | be[2] << 8 | be[3];
	if (f)
		fclose(f);
	return hz;
}

#ifdef __aarch64__
#define BOOT_CLOCK "cntvct_el0"
#else
#define BOOT_CLOCK "rdtime"
#endif

/* The boot: rdtime (aarch64: CNTVCT_EL0) now, the time since the machine
 * started, the clock whole's boot figure reads at its shell's start. */
static void boot_figure(void)
{
	uint64_t t;
	double s[1];

#if defined(__riscv)
	__asm__ __volatile__("rdtime %0" : "=r"(t));
#elif defined(__aarch64__) /* the counter whole's aarch64 boot figure reads */
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(t));
#else /* a host build (tools/test_linuxguest.py): no such clock */
	t = 0;
#endif
	printf("@@ ready\n");
	s[0] = (double)t * 1000.0 / (double)timebase_hz();
	print("boot",
	      NULL,
	      "\"clock\": \"" BOOT_CLOCK " since the machine started\", "
	      "\"to\": \"linuxbench, the disk mounted\"",
	      "guest_ms",
	      "ms",
	      s,
	      1);
}

static const struct {
	const char *name;
	void (*run)(void);
} benches[] = {
	{ "cached_read", bench_cached },
	{ "cold_seq_read", bench_cold },
	{ "buffered_write", bench_writes },
	{ "rand_read_4k", bench_rand },
	{ "create_unlink", bench_create_unlink },
	{ "scaling_cached_read", bench_scaling },
	{ "file_size_cost", bench_size },
	{ "fs_cost", bench_fscost },
};

/* Is @name among LINUXBENCH_ONLY's space- or comma-separated names? Every
 * benchmark but file_size_cost when it is unset or empty, as whole's
 * `bench` without a name runs all (tools/bench gives file_size_cost
 * boots of its own). */
static bool wanted(const char *name)
{
	const char *only = getenv("LINUXBENCH_ONLY");
	size_t n = strlen(name);

	if (!only || !*only)
		return strcmp(name, "file_size_cost") != 0;
	for (const char *w = only; (w = strstr(w, name)); w += n)
		if ((w == only || w[-1] == ' ' || w[-1] == ',') &&
		    (!w[n] || w[n] == ' ' || w[n] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	if (argc < 6 || argc > 7 ||
	    (argc == 7 && strcmp(argv[6], "aio") && strcmp(argv[6], "uring")))
		return fprintf(stderr,
			       "usage: linuxbench KERNEL REPS DIR DATA SCRATCH "
			       "[uring|aio]\n"),
		       2;
	kernel = argv[1];
	boot_figure();
	reps = atoi(argv[2]);
	if (reps < 1 || reps > MAX_REPS)
		return fprintf(stderr, "linuxbench: REPS: 1..%d\n", MAX_REPS),
		       2;
	snprintf(dir, sizeof(dir), "%s", argv[3]);
	snprintf(path, sizeof(path), "%s/bench.dat", dir);
	data_disk = argv[4];
	scratch_disk = argv[5];
	use_aio = argc == 7 && !strcmp(argv[6], "aio");
	if (posix_memalign((void **)&buf, 4096, 2 * BIG_IO))
		die("posix_memalign");
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (wanted(benches[i].name))
			benches[i].run();
	return 0;
}

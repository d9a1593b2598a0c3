/*
 * app/bench_io.c: the JSON benchmarks that reach the device (app/bench.h):
 * cold sequential reads with and without readahead beside the raw device,
 * buffered writes and fsync beside raw writes, random 4 KiB device reads,
 * create+unlink, cached reads on several harts, and the boot time.
 * The file and helpers are app/bench_file.h's.
 *
 * Locking: none of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <drivers/block_bench.h>
#include <app/bench.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include <app/bench_file.h>

/* ---- cold and raw sequential reads, buffered writes: MB/s ---- */

/* MB/s (10^6 bytes), one decimal, as tenths. */
#define MB_PER_S(bytes, ns) ((uint64_t)(bytes)*10000 / MAX((ns), 1))

/* Raw device: @nios requests of RAW_IO with RAW_DEPTH in flight. */
static uint64_t
raw_ns(struct block_device *dev, enum blk_op op, unsigned int nios)
{
	uint8_t *buf = kmalloc(RAW_DEPTH * RAW_IO, GFP_KERNEL);
	uint64_t ns =
	    buf ? blk_bench(dev, op, buf, RAW_IO, nios, RAW_DEPTH, 0) : 0;

	kfree(buf);
	return ns;
}

/* Drop the file's pages, and only them (app/bench_file.h). */
bool bench_drop_file_pages(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct file *f = fd < 0 ? NULL : fd_get(fd);
	bool gone = false;

	if (f) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		gone = !READ_ONCE(f->f_mapping->nrpages);
		fput(f);
	}
	if (fd >= 0)
		close(fd);
	if (!gone)
		printf("bench: %s: pages stayed cached\n", path);
	return gone;
}

/* One cold read of the file, in tenths of MB/s (0: it failed). */
static uint64_t cold_round(bool readahead, uint8_t *buf)
{
	uint64_t ns = !bench_drop_file_pages(FILE_PATH)
			  ? 0
			  : bench_read_file(BIG_IO,
					    buf,
					    readahead ? POSIX_FADV_NORMAL
						      : POSIX_FADV_RANDOM);

	return ns ? MAX(MB_PER_S(FILE_SIZE, ns), 1) : 0;
}

/*
 * The three figures round by round (readahead, no_readahead, raw, then
 * backwards), so that a host whose speed drifts during the boot weighs
 * on each alike: the ratio cold / raw is read from one run.
 */
static int bench_cold(int argc, char **argv)
{
	static const char *const modes[] = { "readahead",
					     "no_readahead",
					     "raw" };
	struct block_device *vda = blkdev_get("vda");
	struct bench_samples s[3] = { BENCH_SAMPLES_INIT,
				      BENCH_SAMPLES_INIT,
				      BENCH_SAMPLES_INIT };
	unsigned int nmodes = vda ? 3 : 2;
	uint8_t *buf = bench_big_buf();
	int err = !buf || bench_write_file(BIG_IO, true, NULL);
	char p[96];

	(void)argc, (void)argv;
	for (int r = 0; r < bench_reps() && !err; r++) {
		for (unsigned int i = 0; i < nmodes && !err; i++) {
			unsigned int k = r % 2 ? nmodes - 1 - i : i;
			uint64_t v;

			if (k < 2) {
				v = cold_round(k == 0, buf);
			} else {
				uint64_t ns = raw_ns(
				    vda, BLK_OP_READ, FILE_SIZE / RAW_IO);

				v = ns ? MB_PER_S(FILE_SIZE, ns) : 0;
			}
			err = !v;
			bench_add(&s[k], v);
		}
	}
	bench_params_io(p, sizeof(p), BIG_IO);
	for (unsigned int k = 0; k < 2 && !err; k++)
		bench_print(
		    "cold_seq_read", modes[k], p, "mb_per_s", "MB/s", &s[k], 1);
	snprintf(p,
		 sizeof(p),
		 "\"disk\": \"vda\", \"io_bytes\": %u, \"depth\": %u",
		 RAW_IO,
		 RAW_DEPTH);
	if (!err && vda)
		bench_print(
		    "cold_seq_read", "raw", p, "mb_per_s", "MB/s", &s[2], 1);
	unlink(FILE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(cold_seq_read,
		 bench_cold,
		 "cold_seq_read  (readahead, no_readahead, raw vda)");

static int bench_buffered_write(int argc, char **argv)
{
	struct bench_samples cache = BENCH_SAMPLES_INIT, both = cache,
			     sync = cache, raw = cache, reread = cache;
	struct block_device *vdb = blkdev_get("vdb");
	uint8_t *buf = bench_big_buf();
	int err = !buf;
	char p[96];

	(void)argc, (void)argv;
	for (int r = 0; r < bench_reps() && !err; r++) {
		struct bench_write_times t;
		uint64_t ns;

		err = bench_write_file(BIG_IO, true, &t);
		/* The file read back from the cache in the same round: the
		 * rate the write's is set against, from the same stretch
		 * of the host (cached_read_1m runs at another time). */
		ns = err ? 0 : bench_read_file(BIG_IO, buf, POSIX_FADV_NORMAL);
		err = err || !ns;
		bench_add(&cache, MB_PER_S(FILE_SIZE, t.calls));
		bench_add(&sync, MB_PER_S(FILE_SIZE, t.fsync));
		bench_add(&both, MB_PER_S(FILE_SIZE, t.loop + t.fsync));
		bench_add(&reread, MB_PER_S(FILE_SIZE, ns));
		unlink(FILE_PATH);
	}
	kfree(buf);
	bench_params_io(p, sizeof(p), BIG_IO);
	if (err)
		return 1;
	bench_print(
	    "buffered_write", "cache", p, "mb_per_s", "MB/s", &cache, 1);
	bench_print(
	    "buffered_write", "write_fsync", p, "mb_per_s", "MB/s", &both, 1);
	bench_print("buffered_write", "fsync", p, "mb_per_s", "MB/s", &sync, 1);
	bench_print(
	    "buffered_write", "reread", p, "mb_per_s", "MB/s", &reread, 1);
	if (!vdb || vdb->read_only) {
		bench_skip(
		    "buffered_write", "raw", "no writable scratch disk vdb");
		return 0;
	}
	for (int r = 0; r < bench_reps() && !err; r++) {
		uint64_t ns = raw_ns(vdb, BLK_OP_WRITE, FILE_SIZE / RAW_IO);

		err = !ns;
		bench_add(&raw, MB_PER_S(FILE_SIZE, ns));
	}
	snprintf(p,
		 sizeof(p),
		 "\"disk\": \"vdb\", \"io_bytes\": %u, \"depth\": %u",
		 RAW_IO,
		 RAW_DEPTH);
	if (!err)
		bench_print(
		    "buffered_write", "raw", p, "mb_per_s", "MB/s", &raw, 1);
	return err;
}
SHELL_BENCH_JSON(
    buffered_write,
    bench_buffered_write,
    "buffered_write  (cache, write_fsync, fsync, reread, raw vdb)");

/* ---- random 4 KiB device reads: IOPS ---- */

#define MQ_HARTS 4u /* submitters of the multi-queue modes, 8 deep each */

struct rand_submitter {
	struct block_device *dev;
	uint8_t *buf;
	uint64_t seed;
	unsigned int *arrived;
	unsigned int harts;
	uint64_t ns;
};

static int rand_submit(void *arg)
{
	struct rand_submitter *s = arg;

	while (__atomic_load_n(s->arrived, __ATOMIC_ACQUIRE) < s->harts)
		task_yield(); /* all start together */
	s->ns = blk_bench(s->dev,
			  BLK_OP_READ,
			  s->buf,
			  4096,
			  RAND_IOS / s->harts,
			  32 / s->harts,
			  s->seed);
	return 0;
}

/* RAND_IOS reads from @harts tasks, one pinned to each hart, 32 in flight
 * in all, spread over @queues hardware queues. Return: elapsed ns of the
 * slowest (0 on failure). */
static uint64_t rand_read_harts(struct block_device *dev,
				uint8_t *buf,
				unsigned int harts,
				unsigned int queues,
				uint64_t seed)
{
	struct rand_submitter subs[MQ_HARTS];
	struct task *tasks[MQ_HARTS];
	unsigned int arrived = 0;
	uint64_t slowest = 0;
	bool failed = false;

	blk_set_queues(dev, queues);
	for (unsigned int i = 0; i < harts; i++) {
		subs[i] = (struct rand_submitter){ dev,	     buf + i * 8 * 4096,
						   seed + i, &arrived,
						   harts,    0 };
		tasks[i] =
		    task_create_on("bench-rand", rand_submit, &subs[i], (int)i);
		failed |= IS_ERR(tasks[i]);
		if (!IS_ERR(tasks[i]))
			__atomic_add_fetch(&arrived, 1, __ATOMIC_RELEASE);
	}
	if (failed) /* let the others go: they wait for every one */
		__atomic_store_n(&arrived, harts, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < harts; i++) {
		if (IS_ERR(tasks[i]))
			continue;
		task_join(tasks[i]);
		failed |= !subs[i].ns;
		slowest = MAX(slowest, subs[i].ns);
	}
	blk_set_queues(dev, dev->nr_hw_queues);
	return failed ? 0 : slowest;
}

/* The multi-queue modes, on the scratch disk vdb (tools/bench gives it a
 * queue per hart; it is only read here): 4 harts submitting, with its
 * queues narrowed to 1 and with all of them. */
static int rand_read_mq(uint8_t *buf)
{
	struct block_device *dev = blkdev_get("vdb");
	unsigned int queues[2] = { 1, dev ? dev->nr_hw_queues : 1 };
	char p[96], mode[16];
	int err = 0;

	if (ncpus < MQ_HARTS || !dev) {
		bench_skip("rand_read_4k",
			   "qd32_1q",
			   dev ? "fewer than 4 harts" : "no scratch disk vdb");
		return 0;
	}
	for (int k = 0; k < 2 && !err; k++) {
		struct bench_samples s = BENCH_SAMPLES_INIT;

		if (k && queues[k] == 1) {
			bench_skip("rand_read_4k",
				   "qd32_mq",
				   "vdb has one queue (QEMU's num-queues)");
			break;
		}
		for (int r = 0; r < bench_reps() && !err; r++) {
			uint64_t ns = rand_read_harts(
			    dev, buf, MQ_HARTS, queues[k], 0x51ed27ULL + r);

			err = !ns;
			bench_add(&s, bench_rate(RAND_IOS, ns, 0));
		}
		snprintf(mode, sizeof(mode), "qd32_%uq", queues[k]);
		snprintf(p,
			 sizeof(p),
			 "\"disk\": \"vdb\", \"ios\": %u, \"harts\": %u",
			 RAND_IOS,
			 MQ_HARTS);
		if (!err)
			bench_print(
			    "rand_read_4k", mode, p, "iops", "IOPS", &s, 0);
	}
	return err;
}

static int bench_rand_read(int argc, char **argv)
{
	struct block_device *vda = blkdev_get("vda");
	static const int depths[] = { 1, 32 };
	uint8_t *buf = kmalloc(32 * 4096, GFP_KERNEL);
	int err = !buf || !vda;
	char p[96], mode[8];

	(void)argc, (void)argv;
	for (int k = 0; k < 2 && !err; k++) {
		struct bench_samples s = BENCH_SAMPLES_INIT;

		for (int r = 0; r < bench_reps() && !err; r++) {
			uint64_t ns = blk_bench(vda,
						BLK_OP_READ,
						buf,
						4096,
						RAND_IOS,
						depths[k],
						0x9e3779b97f4a7c15ULL + r);

			err = !ns;
			bench_add(&s, bench_rate(RAND_IOS, ns, 0));
		}
		snprintf(mode, sizeof(mode), "qd%d", depths[k]);
		snprintf(
		    p, sizeof(p), "\"disk\": \"vda\", \"ios\": %u", RAND_IOS);
		if (!err)
			bench_print(
			    "rand_read_4k", mode, p, "iops", "IOPS", &s, 0);
	}
	err = err || rand_read_mq(buf);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(rand_read_4k,
		 bench_rand_read,
		 "rand_read_4k  (raw vda, queue depth 1 and 32; vdb: 32 "
		 "from 4 harts over 1 queue and over all)");

/* ---- create+unlink: microseconds per pair ---- */

static int bench_create_unlink(int argc, char **argv)
{
	struct bench_samples s = BENCH_SAMPLES_INIT;
	char path[32], p[48];

	(void)argc, (void)argv;
	for (int r = 0; r < bench_reps(); r++) {
		uint64_t t0 = time_ns();

		for (unsigned int i = 0; i < CREATES; i++) {
			int fd;

			snprintf(path, sizeof(path), "/bench_cu.%u", i);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || close(fd) || unlink(path)) {
				printf("bench: %s: %s\n",
				       path,
				       vfs_strerror(errno));
				return 1;
			}
		}
		bench_add(&s, (time_ns() - t0) * 10 / 1000 / CREATES);
	}
	snprintf(p, sizeof(p), "\"files\": %u", CREATES);
	bench_print("create_unlink", NULL, p, "us_per_op", "us", &s, 1);
	return 0;
}
SHELL_BENCH_JSON(create_unlink,
		 bench_create_unlink,
		 "create_unlink  (create, close and unlink an empty file)");

/* ---- cached 4 KiB reads of one file from 1, 2, 4 and 8 harts ---- */

/*
 * A round is SCALE_MS of reading, not a count of reads: the readers read
 * until told to stop, and the rate is all their reads over the round.
 * With a fixed count (8192 reads a hart, 20-40 ms here) the round ended
 * with its slowest reader, and four vCPUs on two host cores are given
 * their time in slices of a few ms: the figure was the host's slicing
 * (4 / 1 harts 1.70 over five rounds; 1.90 with 65536 reads a hart).
 */
struct scale_round {
	int stop;	     /* atomic */
	unsigned long reads; /* atomic: each reader adds its count */
};

struct scale_reader_arg {
	struct scale_round *round;
	unsigned int id;
};

static int scale_reader(void *arg)
{
	struct scale_reader_arg *a = arg;
	int fd = open(FILE_PATH, O_RDONLY);
	uint8_t *buf = kmalloc(SMALL_IO, GFP_KERNEL);
	unsigned int seed = a->id * 2654435761u + 1;
	unsigned long n = 0;
	int err = fd < 0 || !buf;

	while (!err && !__atomic_load_n(&a->round->stop, __ATOMIC_RELAXED)) {
		seed = seed * 1103515245u + 12345u;
		err = pread(fd,
			    buf,
			    SMALL_IO,
			    (off_t)(seed % (FILE_SIZE / SMALL_IO)) *
				SMALL_IO) != SMALL_IO;
		n += !err;
	}
	__atomic_fetch_add(&a->round->reads, n, __ATOMIC_RELAXED);
	if (fd >= 0)
		close(fd);
	kfree(buf);
	return err;
}

/* @harts readers, one pinned on each, for SCALE_MS. Return: reads/s, 0 on
 * failure. */
static uint64_t scale_run(unsigned int harts)
{
	struct scale_round round = { 0 };
	struct scale_reader_arg args[MAX_CPUS];
	struct task *t[MAX_CPUS];
	uint64_t t0 = time_ns();
	unsigned int n = 0;
	int err = 0;

	for (; n < harts && !err; n++) {
		args[n] = (struct scale_reader_arg){ &round, n };
		t[n] =
		    task_create_on("bench_rd", scale_reader, &args[n], (int)n);
		err = IS_ERR(t[n]);
	}
	n -= err; /* the one that failed is not there to join */
	if (!err)
		task_sleep_ms(SCALE_MS);
	__atomic_store_n(&round.stop, 1, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < n; i++)
		err |= task_join(t[i]);
	/* A reader's failure is its exit status; no reads at all rate 0. */
	return err ? 0 : bench_rate(round.reads, time_ns() - t0, 0);
}

static int bench_scaling(int argc, char **argv)
{
	static const unsigned int harts[] = { 1, 2, 4, 8 };
	uint8_t *buf = bench_big_buf();
	int err = !buf || bench_write_file(BIG_IO, false, NULL) ||
		  !bench_read_file(BIG_IO, buf, POSIX_FADV_NORMAL);
	char p[96], mode[4];

	(void)argc, (void)argv;
	for (unsigned int k = 0; k < ARRAY_SIZE(harts) && !err; k++) {
		struct bench_samples s = BENCH_SAMPLES_INIT;

		snprintf(mode, sizeof(mode), "%u", harts[k]);
		if (harts[k] > ncpus) {
			bench_skip(
			    "scaling_cached_read", mode, "fewer harts online");
			continue;
		}
		for (int r = 0; r < bench_reps() && !err; r++) {
			uint64_t rate = scale_run(harts[k]);

			err = !rate;
			bench_add(&s, rate);
		}
		snprintf(p,
			 sizeof(p),
			 "\"file_mib\": %u, \"read_ms\": %u",
			 FILE_SIZE >> 20,
			 SCALE_MS);
		if (!err)
			bench_print("scaling_cached_read",
				    mode,
				    p,
				    "reads_per_s",
				    "reads/s",
				    &s,
				    0);
	}
	unlink(FILE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(
    scaling_cached_read,
    bench_scaling,
    "scaling_cached_read  (random 4 KiB cached reads on 1, 2, 4, 8 harts)");

/* ---- boot: guest time from the machine's start to the shell ---- */

static int bench_boot(int argc, char **argv)
{
	struct bench_samples s = BENCH_SAMPLES_INIT;

	(void)argc, (void)argv;
	bench_add(&s, shell_started_ns / 1000);
	bench_print("boot",
		    NULL,
		    "\"clock\": \"rdtime since the machine started\", "
		    "\"to\": \"shell\"",
		    "guest_ms",
		    "ms",
		    &s,
		    3);
	return 0;
}
SHELL_BENCH_JSON(boot, bench_boot, "boot  (guest time to the shell)");

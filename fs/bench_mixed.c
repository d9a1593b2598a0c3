/*
 * fs/bench_mixed.c: the benchmark `mixed` (kernel/bench.h) - what the
 * fill paths' lock costs while a file is read, written and punched at once.
 *
 * One 64 MiB file, three ranges: two readers do random 4 KiB reads in the
 * first half (its first 16 MiB cached before each round, the rest cold),
 * a writer does 64 KiB buffered writes in the third quarter, a puncher
 * punches 64 KiB holes (KEEP_SIZE) in the last quarter; one task per hart,
 * MIXED_MS per round. The mode is the kernel's (mm/invalidate.c), chosen
 * at boot: `invalidate_lock` (the fixed kernel), `i_rwsem` (fill_lock=
 * i_rwsem: read() takes i_rwsem shared, as XFS did before Linux 5.15) or
 * `legacy` (invalidate_lock=off: unsafe, an upper bound). tools/bench
 * boots each and prints the ratios.
 *
 * Locking: none of its own; the tasks share only the stop flag and their
 * counters (atomics).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/bench.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include "bench.h"

#define MIXED_MS     1000
#define MIXED_CACHED (16u << 20) /* of the read range, cached each round */
#define MIXED_IO     (64u << 10) /* a write or a punch */

enum role { READER, WRITER, PUNCHER };

struct mixed {
	int stop;	      /* atomic */
	unsigned long ops[3]; /* atomic, by role */
	int failed;	      /* atomic */
};

struct worker {
	struct mixed *mx;
	enum role role;
	unsigned int seed;
};

static unsigned int next_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* One operation of @w's role at a random place of its range. */
static int mixed_op(struct worker *w, int fd, uint8_t *buf)
{
	const off_t quarter = FILE_SIZE / 4;
	unsigned int r = next_rand(&w->seed);

	switch (w->role) {
	case READER:
		return pread(fd,
			     buf,
			     SMALL_IO,
			     (off_t)(r % (2 * quarter / SMALL_IO)) *
				 SMALL_IO) != SMALL_IO;
	case WRITER:
		return pwrite(fd,
			      buf,
			      MIXED_IO,
			      2 * quarter + (off_t)(r % (quarter / MIXED_IO)) *
						MIXED_IO) != MIXED_IO;
	case PUNCHER:
		return fallocate(fd,
				 FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 3 * quarter +
				     (off_t)(r % (quarter / MIXED_IO)) *
					 MIXED_IO,
				 MIXED_IO) != 0;
	}
	return 1;
}

static int mixed_worker(void *arg)
{
	struct worker *w = arg;
	int fd = open(FILE_PATH, O_RDWR);
	uint8_t *buf = kmalloc(MIXED_IO, GFP_KERNEL);
	int err = fd < 0 || !buf;

	if (buf)
		memset(buf, 0x6d, MIXED_IO);
	while (!err && !__atomic_load_n(&w->mx->stop, __ATOMIC_ACQUIRE)) {
		err = mixed_op(w, fd, buf);
		if (!err)
			__atomic_fetch_add(
			    &w->mx->ops[w->role], 1, __ATOMIC_RELAXED);
	}
	if (err)
		__atomic_store_n(&w->mx->failed, 1, __ATOMIC_RELEASE);
	if (fd >= 0)
		close(fd);
	kfree(buf);
	return err;
}

/* Drop the cache, read the cached part in again (and the readahead
 * window after it). Return: 0 or 1. */
static int mixed_prepare(uint8_t *buf)
{
	int fd = open(FILE_PATH, O_RDONLY);
	int err = fd < 0 || vfs_drop_caches() < 0;

	for (off_t off = 0; !err && off < MIXED_CACHED; off += BIG_IO)
		err = pread(fd, buf, BIG_IO, off) != BIG_IO;
	if (!err) { /* the last window ahead is in before the round, as
		     * when the reader itself read it */
		struct file *f = fd_get(fd);

		readahead_wait(f->f_mapping);
		fput(f);
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/* One round: every role's operations per second into @rate. */
static int mixed_round(uint64_t rate[3], uint8_t *buf)
{
	static const enum role roles[] = { READER, READER, WRITER, PUNCHER };
	struct worker w[ARRAY_SIZE(roles)];
	struct task *t[ARRAY_SIZE(roles)];
	struct mixed mx = { 0 };
	uint64_t t0;
	int err = mixed_prepare(buf);

	t0 = time_ns();
	for (unsigned int i = 0; i < ARRAY_SIZE(roles) && !err; i++) {
		w[i] = (struct worker){ &mx, roles[i], 2654435761u * (i + 1) };
		t[i] = task_create_on(
		    "bench_mixed", mixed_worker, &w[i], (int)(i % ncpus));
		if (IS_ERR(t[i]))
			return 1;
	}
	task_sleep_ms(MIXED_MS);
	__atomic_store_n(&mx.stop, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < ARRAY_SIZE(roles); i++)
		err |= task_join(t[i]);
	for (unsigned int k = 0; k < 3; k++)
		rate[k] = bench_rate(mx.ops[k], time_ns() - t0, 0);
	return err || mx.failed;
}

static int bench_mixed(int argc, char **argv)
{
	static const char *const metric[] = { "reads_per_s",
					      "writes_per_s",
					      "punches_per_s" };
	static const char *const unit[] = { "reads/s",
					    "writes/s",
					    "punches/s" };
	static const char *const modes[] = {
		[FILL_INVALIDATE_LOCK] = "invalidate_lock",
		[FILL_NONE] = "legacy",
		[FILL_I_RWSEM] = "i_rwsem",
	};
	struct bench_samples s[3] = { BENCH_SAMPLES_INIT,
				      BENCH_SAMPLES_INIT,
				      BENCH_SAMPLES_INIT };
	uint8_t *buf = bench_big_buf();
	int err = !buf || bench_write_file(BIG_IO, true, NULL);
	char p[160];

	(void)argc, (void)argv;
	for (int r = 0; r < bench_reps() && !err; r++) {
		uint64_t rate[3];

		err = mixed_round(rate, buf);
		for (unsigned int k = 0; k < 3 && !err; k++)
			bench_add(&s[k], rate[k]);
	}
	snprintf(p,
		 sizeof(p),
		 "\"file_mib\": %u, \"harts\": %u, \"ms\": %u, \"readers\": 2, "
		 "\"read_bytes\": %u, \"write_bytes\": %u, \"punch_bytes\": %u",
		 FILE_SIZE >> 20,
		 ncpus,
		 MIXED_MS,
		 SMALL_IO,
		 MIXED_IO,
		 MIXED_IO);
	for (unsigned int k = 0; k < 3 && !err; k++)
		bench_print("mixed",
			    modes[filemap_fill_lock()],
			    p,
			    metric[k],
			    unit[k],
			    &s[k],
			    0);
	if (err)
		printf("bench mixed: an operation failed\n");
	unlink(FILE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(mixed,
		 bench_mixed,
		 "mixed  (reads, writes and punches at once; the mode is "
		 "the boot's)");

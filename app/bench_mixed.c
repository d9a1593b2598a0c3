/*
 * app/bench_mixed.c: the benchmark `mixed` (app/bench.h) - what the
 * fill paths' lock costs while a file is read, written and punched at once.
 *
 * One 64 MiB file, three ranges: two readers do random 4 KiB reads in the
 * first half (its first 16 MiB cached before each round, exactly, the
 * rest cold),
 * a writer does 64 KiB buffered writes in the third quarter, a puncher
 * punches 64 KiB holes (KEEP_SIZE) in the last quarter; one task per hart.
 * A round is a fixed amount of reading: each reader reads MIXED_READS
 * pages, the same pages in the same order every round, so every round
 * misses the same pages; the writer and the puncher go on until both
 * readers are done. 2 x 20000 random pages of the 8192 read in nearly all
 * of the cold part (99%), so a round reads the file from partly to
 * nearly wholly cached. (A round of fixed time measured mostly how soon
 * the readers had cached the cold part: after that every read hit, so a
 * round that started fast went faster still, and rounds of one mode
 * scattered 20-fold.) The rates are over the round's time.
 *
 * The three modes (mm/invalidate.c) take turns round by round on the same
 * file, kernel, i_rwsem, legacy, then backwards, so a host that slows
 * down in the middle of a run slows each mode alike: `invalidate_lock`
 * (the fixed kernel), `i_rwsem` (as fill_lock=i_rwsem: read() takes
 * i_rwsem shared, as XFS did before Linux 5.15) and `legacy` (as
 * invalidate_lock=off: unsafe, an upper bound). The file's mode is set
 * between rounds, with no other task on it (filemap_set_fill_lock).
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
#include <app/bench.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include <app/bench_file.h>

#define MIXED_READS  20000 /* per reader and round */
#define MIXED_MAX_MS 60000 /* a round ends here, the readers done or not */
#define MIXED_CACHED (16u << 20) /* of the read range, cached each round */
#define MIXED_IO     (64u << 10) /* a write or a punch */

enum role { READER, WRITER, PUNCHER };

struct mixed {
	int stop;	      /* atomic */
	int readers_left;     /* atomic */
	uint64_t t_end;	      /* when the round ended: see mixed_stop */
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

/* End the round now, unless it has ended: who sets stop sets t_end. */
static void mixed_stop(struct mixed *mx)
{
	if (!__atomic_exchange_n(&mx->stop, 1, __ATOMIC_ACQ_REL))
		mx->t_end = time_ns(); /* read after the tasks are joined */
}

static int mixed_worker(void *arg)
{
	struct worker *w = arg;
	int fd = open(FILE_PATH, O_RDWR);
	uint8_t *buf = kmalloc(MIXED_IO, GFP_KERNEL);
	int err = fd < 0 || !buf;
	unsigned int reads = 0;

	if (buf)
		memset(buf, 0x6d, MIXED_IO);
	while (!err && !__atomic_load_n(&w->mx->stop, __ATOMIC_ACQUIRE)) {
		if (w->role == READER && reads++ == MIXED_READS) {
			if (!__atomic_sub_fetch(
				&w->mx->readers_left, 1, __ATOMIC_ACQ_REL))
				mixed_stop(w->mx); /* the last reader done */
			break;
		}
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

/* Give the file @mode (no task uses it now), drop the cache, read the
 * cached part in again, exactly: with readahead off (POSIX_FADV_RANDOM)
 * no window past it is read, whose size would depend on the timing.
 * Return: 0 or 1. */
static int mixed_prepare(uint8_t *buf, enum fill_lock mode)
{
	int fd = open(FILE_PATH, O_RDONLY);
	struct file *f = fd < 0 ? NULL : fd_get(fd);
	int err = !f || vfs_drop_caches() < 0;

	if (f)
		filemap_set_fill_lock(f->f_mapping, mode);
	if (!err)
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) != 0;
	for (off_t off = 0; !err && off < MIXED_CACHED; off += BIG_IO)
		err = pread(fd, buf, BIG_IO, off) != BIG_IO;
	if (f)
		fput(f);
	if (fd >= 0)
		close(fd);
	return err;
}

/* One round in @mode: every role's operations per second into @rate. */
static int mixed_round(uint64_t rate[3], uint8_t *buf, enum fill_lock mode)
{
	static const enum role roles[] = { READER, READER, WRITER, PUNCHER };
	struct worker w[ARRAY_SIZE(roles)];
	struct task *t[ARRAY_SIZE(roles)];
	struct mixed mx = { .readers_left = 2 };
	uint64_t t0;
	int err = mixed_prepare(buf, mode);
	unsigned int n = 0;

	t0 = time_ns();
	for (; n < ARRAY_SIZE(roles) && !err; n++) {
		w[n] = (struct worker){ &mx, roles[n], 2654435761u * (n + 1) };
		t[n] = task_create_on(
		    "bench_mixed", mixed_worker, &w[n], (int)(n % ncpus));
		err = IS_ERR(t[n]);
	}
	n -= err; /* the one that failed is not there to join */
	while (!err && !__atomic_load_n(&mx.stop, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&mx.failed, __ATOMIC_ACQUIRE) &&
	       time_ns() - t0 < MIXED_MAX_MS * 1000000ull)
		task_sleep_ms(5);
	mixed_stop(&mx); /* ended already, or out of time, or a task failed */
	for (unsigned int i = 0; i < n; i++)
		err |= task_join(t[i]);
	for (unsigned int k = 0; k < 3; k++)
		rate[k] = bench_rate(mx.ops[k], mx.t_end - t0, 0);
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
	static const enum fill_lock order[] = { FILL_INVALIDATE_LOCK,
						FILL_I_RWSEM,
						FILL_NONE };
	struct bench_samples s[3][3];
	uint8_t *buf = bench_big_buf();
	int err = !buf || bench_write_file(BIG_IO, true, NULL), f;
	char p[192];

	for (unsigned int i = 0; i < 3; i++)
		for (unsigned int k = 0; k < 3; k++)
			s[i][k] = (struct bench_samples)BENCH_SAMPLES_INIT;

	(void)argc, (void)argv;
	for (int r = 0; r < bench_reps() && !err; r++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(order) && !err; i++) {
			/* forwards, then backwards: a trend in the host's
			 * speed weighs on every mode alike */
			enum fill_lock mode =
			    order[r % 2 ? ARRAY_SIZE(order) - 1 - i : i];
			uint64_t rate[3];

			err = mixed_round(rate, buf, mode);
			for (unsigned int k = 0; k < 3 && !err; k++)
				bench_add(&s[mode][k], rate[k]);
		}
	}
	snprintf(p,
		 sizeof(p),
		 "\"file_mib\": %u, \"harts\": %u, \"readers\": 2, "
		 "\"reads_per_reader\": %u, \"read_bytes\": %u, "
		 "\"write_bytes\": %u, \"punch_bytes\": %u",
		 FILE_SIZE >> 20,
		 ncpus,
		 MIXED_READS,
		 SMALL_IO,
		 MIXED_IO,
		 MIXED_IO);
	for (unsigned int i = 0; i < ARRAY_SIZE(order) && !err; i++)
		for (unsigned int k = 0; k < 3; k++)
			bench_print("mixed",
				    modes[order[i]],
				    p,
				    metric[k],
				    unit[k],
				    &s[order[i]][k],
				    0);
	f = open(FILE_PATH, O_RDONLY);
	if (f >= 0) { /* the boot's mode again, though the file goes */
		struct file *file = fd_get(f);

		filemap_set_fill_lock(file->f_mapping, filemap_fill_lock());
		fput(file);
		close(f);
	}
	if (err)
		printf("bench mixed: an operation failed\n");
	unlink(FILE_PATH);
	kfree(buf);
	return err;
}
SHELL_BENCH_JSON(mixed,
		 bench_mixed,
		 "mixed  (reads, writes and punches at once, in the three "
		 "modes by turns)");

/*
 * fs/ra_worker_test.c: suite vfs_ra_worker - the readahead worker
 * (mm/readahead.c) on the root ext2 (vfs boots: two harts, so it runs):
 *   - the first 1 MiB read of a cold file fills only the pages it asked
 *     for itself, and hands the rest of its window to the worker at once;
 *   - a stream of 1 MiB reads hands its asynchronous windows to the
 *     worker and reads back what was written; readahead_wait sleeps
 *     while the worker, held at RACE_RA_WORKER, has the window, and
 *     returns once it is in;
 *   - fadvise DONTNEED drops a file's queued window, which never fills
 *     the cache, without waiting for the worker busy with another file;
 *     readahead_cancel of the file the worker is reading sleeps until
 *     that window is in (the worker held likewise).
 * With ra_worker=off (boot vfs_1k) each case checks instead that the reader
 * reads the window itself. The files are RW_PAGES pages long; page i is
 * all 'a' + i % 26. A stream of 1 MiB reads from offset 0 opens the
 * initial window [0, 512) (mm/readahead.c: twice a 1 MiB request): the
 * reader reads the request [0, 256) and hands [256, 512), the mark at 256,
 * to the worker; the second read reaches the mark and hands [512, 1536)
 * (cut at EOF).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/internal.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>

#define RW_PAGES  1024 /* 4 MiB */
#define RW_IO	  (1 << 20)
#define RW_HANDED 256 /* the first page handed off: past the request */
#define RW_FIRST  512 /* the first window's end */
#define RW_A	  "/ra_worker_a"
#define RW_B	  "/ra_worker_b"

static char page_byte(unsigned long index)
{
	return (char)('a' + index % 26);
}

/* @path written, written back and dropped from the cache; open O_RDONLY. */
static int make_file(struct ktest *t, const char *path, char *buf)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);

	KTEST_ASSERT_GE(t, fd, 0);
	for (unsigned long i = 0; i < RW_PAGES; i++) {
		memset(buf + (i * PAGE_SIZE) % RW_IO, page_byte(i), PAGE_SIZE);
		if ((i + 1) * PAGE_SIZE % RW_IO == 0)
			KTEST_ASSERT_EQ(t, write(fd, buf, RW_IO), RW_IO);
	}
	KTEST_ASSERT_EQ(t, fsync(fd), 0);
	KTEST_ASSERT_EQ(t, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	fd = open(path, O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	return fd;
}

/* Read @mib MiB on from @fd's position; count bytes not as written. */
static unsigned long read_mib(struct ktest *t, int fd, char *buf, int mib)
{
	unsigned long bad = 0;

	for (int r = 0; r < mib; r++) {
		off_t at = lseek(fd, 0, SEEK_CUR);

		KTEST_EXPECT_EQ(t, read(fd, buf, RW_IO), RW_IO);
		for (size_t j = 0; j < RW_IO; j++)
			bad += buf[j] != page_byte((at + j) / PAGE_SIZE);
	}
	return bad;
}

static struct address_space *mapping_of(int fd)
{
	struct file *f = fd_get(fd);
	struct address_space *m = f->f_mapping;

	fput(f); /* the descriptor keeps it */
	return m;
}

static bool cached(int fd, unsigned long index)
{
	return filemap_cached(mapping_of(fd), index);
}

/* A task calling readahead_wait, readahead_cancel or fadvise. */
struct call {
	void (*fn)(void *arg);
	void *arg;
	bool done;
};

static int call_task(void *arg)
{
	struct call *c = arg;

	c->fn(c->arg);
	WRITE_ONCE(c->done, true);
	return 0;
}

static void call_wait(void *m)
{
	readahead_wait(m);
}

static void call_cancel(void *m)
{
	readahead_cancel(m);
}

/* posix_fadvise(DONTNEED) on open file @f (descriptors are per task). */
static void call_dontneed(void *f)
{
	vfs_fadvise(f, 0, 0, POSIX_FADV_DONTNEED);
}

static bool done_or_asleep(void *arg)
{
	struct task *task = arg;

	return READ_ONCE(task->state) == TASK_SLEEPING ||
	       READ_ONCE(task->state) == TASK_DEAD;
}

static bool done(void *arg)
{
	return READ_ONCE(((struct call *)arg)->done);
}

/* Run @fn(@arg) in a task, and wait until it has ended or sleeps.
 * Return: the task, to join. */
static struct task *
start_call(struct ktest *t, struct call *c, void (*fn)(void *), void *arg)
{
	struct task *task;

	*c = (struct call){ .fn = fn, .arg = arg };
	task = task_create("ra-call", call_task, c);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	KTEST_ASSERT_EQ(t, race_wait_until(done_or_asleep, task), 0);
	return task;
}

static bool marked(int fd, unsigned long index)
{
	struct page *page = filemap_get_page(mapping_of(fd), index);
	bool ret = page && page_test(page, PG_readahead);

	if (page)
		put_page(page);
	return ret;
}

/* The first MiB of @fd read with the worker armed to stop at
 * RACE_RA_WORKER. Return: race_wait's result, 1 once the worker holds
 * the window the read handed it. */
static int read_first_mib_held(struct ktest *t, int fd, char *buf)
{
	race_arm(RACE_RA_WORKER);
	KTEST_EXPECT_EQ(t, read_mib(t, fd, buf, 1), 0ul);
	return race_wait(RACE_RA_WORKER, NULL, NULL);
}

/* ra_worker=off (boot vfs_1k): the reader reads every window itself, at
 * once - the first read the whole initial window, past its request -, and
 * readahead_cancel and readahead_wait have nothing to do. */
static void ra_worker_off(struct ktest *t, int fd, char *buf)
{
	struct ra_worker_stats before, after;

	readahead_worker_stats(&before);
	KTEST_EXPECT_EQ(t, read_mib(t, fd, buf, 1), 0ul);
	KTEST_EXPECT_TRUE(t, cached(fd, RW_HANDED));
	KTEST_EXPECT_TRUE(t, cached(fd, RW_FIRST - 1));
	KTEST_EXPECT_FALSE(t, cached(fd, RW_FIRST));
	KTEST_EXPECT_TRUE(t, marked(fd, RW_HANDED));
	readahead_cancel(mapping_of(fd));
	readahead_wait(mapping_of(fd));
	KTEST_EXPECT_TRUE(t, cached(fd, RW_FIRST - 1));
	KTEST_EXPECT_EQ(t, read_mib(t, fd, buf, RW_PAGES / 256 - 1), 0ul);
	KTEST_EXPECT_TRUE(t, cached(fd, RW_PAGES - 1));
	readahead_worker_stats(&after);
	KTEST_EXPECT_EQ(t, after.handed, before.handed);
}

/* The first 1 MiB read of a cold file: with the worker held before it
 * reads, the reader returns with its request [0, RW_HANDED) cached and
 * nothing past it, one window handed; released, the worker reads the
 * rest of the initial window, mark included, and no more. */
static void ra_worker_first_window(struct ktest *t)
{
	char *buf = kmalloc(RW_IO, GFP_KERNEL);
	struct ra_worker_stats before, held, after;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fd = make_file(t, RW_A, buf);
	if (!readahead_worker_task()) {
		ra_worker_off(t, fd, buf);
		goto out;
	}
	readahead_worker_stats(&before);
	KTEST_ASSERT_EQ(t, read_first_mib_held(t, fd, buf), 1);
	readahead_worker_stats(&held);
	KTEST_EXPECT_TRUE(t, cached(fd, RW_HANDED - 1));
	KTEST_EXPECT_FALSE(t, cached(fd, RW_HANDED)); /* the worker's */
	KTEST_EXPECT_FALSE(t, cached(fd, RW_FIRST - 1));
	KTEST_EXPECT_EQ(t, held.handed - before.handed, 1ul);
	KTEST_EXPECT_EQ(t, held.queued, 0u); /* taken, held */
	race_release(RACE_RA_WORKER);
	readahead_wait(mapping_of(fd));
	readahead_worker_stats(&after);
	KTEST_EXPECT_EQ(t, after.read - before.read, 1ul);
	KTEST_EXPECT_TRUE(t, cached(fd, RW_FIRST - 1));
	KTEST_EXPECT_FALSE(t, cached(fd, RW_FIRST));
	KTEST_EXPECT_TRUE(t, marked(fd, RW_HANDED));
	KTEST_EXPECT_EQ(t, read_mib(t, fd, buf, RW_PAGES / 256 - 1), 0ul);
out:
	close(fd);
	kfree(buf);
	KTEST_EXPECT_EQ(t, unlink(RW_A), 0);
}

static void ra_worker_takes_stream(struct ktest *t)
{
	char *buf = kmalloc(RW_IO, GFP_KERNEL);
	struct ra_worker_stats before, after;
	struct task *task;
	struct call w;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fd = make_file(t, RW_A, buf);
	if (!readahead_worker_task()) {
		ra_worker_off(t, fd, buf);
		goto out;
	}
	readahead_worker_stats(&before);
	KTEST_ASSERT_EQ(t, read_first_mib_held(t, fd, buf), 1);
	/* readahead_wait sleeps while the worker holds the window. */
	task = start_call(t, &w, call_wait, mapping_of(fd));
	KTEST_EXPECT_FALSE(t, READ_ONCE(w.done));
	race_release(RACE_RA_WORKER);
	KTEST_EXPECT_EQ(t, task_join(task), 0);
	KTEST_EXPECT_TRUE(t, cached(fd, RW_FIRST - 1)); /* the worker's */
	/* The second read reaches the mark: the next window, to EOF. */
	KTEST_EXPECT_EQ(t, read_mib(t, fd, buf, RW_PAGES / 256 - 1), 0ul);
	KTEST_EXPECT_TRUE(t, cached(fd, RW_PAGES - 1));
	readahead_worker_stats(&after);
	KTEST_EXPECT_GE(t, after.handed - before.handed, 2ul);
	KTEST_EXPECT_EQ(t, after.queued, 0u);
out:
	close(fd);
	kfree(buf);
	KTEST_EXPECT_EQ(t, unlink(RW_A), 0);
}

static void ra_worker_cancel(struct ktest *t)
{
	char *buf = kmalloc(RW_IO, GFP_KERNEL);
	struct ra_worker_stats st;
	struct call ca, cb;
	struct file *fb;
	struct task *task;
	int a, b;

	KTEST_ASSERT_NOT_NULL(t, buf);
	a = make_file(t, RW_A, buf);
	b = make_file(t, RW_B, buf);
	if (!readahead_worker_task()) {
		ra_worker_off(t, a, buf);
		ra_worker_off(t, b, buf);
		goto out;
	}
	KTEST_ASSERT_EQ(t, read_first_mib_held(t, a, buf), 1);
	KTEST_EXPECT_FALSE(t, cached(a, RW_HANDED)); /* taken, held */
	KTEST_EXPECT_EQ(t, read_mib(t, b, buf, 1), 0ul);
	readahead_worker_stats(&st);
	KTEST_EXPECT_EQ(t, st.queued, 1u);
	KTEST_EXPECT_FALSE(t, cached(b, RW_HANDED));

	/* B's window is only queued: DONTNEED drops it, and has nothing to
	 * wait for. */
	fb = fd_get(b);
	task = start_call(t, &cb, call_dontneed, fb);
	KTEST_EXPECT_EQ(t, race_wait_until(done, &cb), 0);
	KTEST_EXPECT_EQ(t, task_join(task), 0);
	fput(fb);
	readahead_worker_stats(&st);
	KTEST_EXPECT_EQ(t, st.queued, 0u);

	/* A's is being read: its canceller sleeps until the worker is done. */
	task = start_call(t, &ca, call_cancel, mapping_of(a));
	KTEST_EXPECT_FALSE(t, READ_ONCE(ca.done));
	race_release(RACE_RA_WORKER);
	KTEST_EXPECT_EQ(t, task_join(task), 0);
	KTEST_EXPECT_TRUE(t, ca.done);
	KTEST_EXPECT_TRUE(t, cached(a, RW_HANDED));
	KTEST_EXPECT_FALSE(t, cached(b, RW_HANDED)); /* and never will be */
	KTEST_EXPECT_EQ(t, read_mib(t, a, buf, 1), 0ul);
	KTEST_EXPECT_EQ(t, read_mib(t, b, buf, 1), 0ul);
out:
	close(a);
	close(b);
	kfree(buf);
	KTEST_EXPECT_EQ(t, unlink(RW_A), 0);
	KTEST_EXPECT_EQ(t, unlink(RW_B), 0);
}

static struct ktest_case ra_worker_cases[] = {
	KTEST_CASE(ra_worker_first_window),
	KTEST_CASE(ra_worker_takes_stream),
	KTEST_CASE(ra_worker_cancel),
	{ 0 },
};

KTEST_SUITE(vfs_ra_worker, ra_worker_cases);

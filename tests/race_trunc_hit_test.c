/*
 * tests/race_trunc_hit_test.c: suite race_trunc_hit - what a reader sees
 * while a truncate holds invalidate_lock exclusive. The truncate (task A,
 * to one page) is held at RACE_INVAL_DROPPED: i_size is one page already,
 * pages 1-3 are out of the cache, their blocks not yet freed. Meanwhile:
 *   - a read of page 0, cached and uptodate, completes at once and takes
 *     no invalidate_lock at all (the hit path's promise: counters equal);
 *   - a read of page 2 returns 0 bytes at once, and takes no lock either:
 *     ext2_setattr's shrink stores the new i_size (filemap_truncate_tail)
 *     before it drops the cache and frees blocks, and a read bounds itself
 *     by the i_size it reads before it looks for a page
 *     (filemap_read_flags), so it never reaches the cache, let alone the
 *     block about to be freed. Unlike the punch of race_hit, which keeps
 *     the size, no lock is needed for this read to be right, in either
 *     mode.
 * The solution of docs/labs.md, lab 3 (race_hit_test.c is its example);
 * the lab's grade checks that it catches two bugs (docs/labs/lab3-mutant-*).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>

#define T_PATH	 "/race_trunc_hit"
#define T_PAGES	 4
#define T_VICTIM 2

struct reader {
	char *buf;
	ssize_t n; /* what pread returned */
	bool done;
};

/* T_PAGES pages, page i all 'a' + i, written back, all of them cached. */
static int make_cached_file(char *buf)
{
	int fd = open(T_PATH, O_CREAT | O_TRUNC | O_RDWR, 0644), err = 0;

	if (fd < 0)
		return -errno;
	for (int i = 0; i < T_PAGES && !err; i++) {
		memset(buf, 'a' + i, PAGE_SIZE);
		if (write(fd, buf, PAGE_SIZE) != PAGE_SIZE)
			err = -EIO;
	}
	if (!err && fsync(fd))
		err = -errno;
	for (int i = 0; i < T_PAGES && !err; i++)
		if (pread(fd, buf, PAGE_SIZE, i * PAGE_SIZE) != PAGE_SIZE)
			err = -EIO;
	close(fd);
	return err;
}

static int truncate_to_one_page(void *arg)
{
	(void)arg;
	return truncate(T_PATH, PAGE_SIZE) ? errno : 0;
}

/* Task B: read page T_VICTIM. A task of its own, so that a read that
 * waits (a bug here) fails the case after RACE_TIMEOUT_MS instead of
 * hanging the test with the truncate held. */
static int read_victim(void *arg)
{
	struct reader *r = arg;
	int fd = open(T_PATH, O_RDONLY);

	r->n = fd < 0 ? -1 : pread(fd, r->buf, PAGE_SIZE, T_VICTIM * PAGE_SIZE);
	if (fd >= 0)
		close(fd);
	WRITE_ONCE(r->done, true);
	return 0;
}

static bool read_done(void *arg)
{
	return READ_ONCE(((struct reader *)arg)->done);
}

static int count_bytes(const char *buf, char c)
{
	int n = 0;

	for (size_t i = 0; i < PAGE_SIZE; i++)
		n += buf[i] == c;
	return n;
}

static void race_trunc_hit_while_truncate_holds_lock(struct ktest *t)
{
	struct reader r = { .buf = kmalloc(PAGE_SIZE, GFP_KERNEL) };
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	struct lock_stats before;
	struct address_space *m;
	struct task *a, *b;
	struct file *f;
	int fd;

	KTEST_ASSERT_TRUE(t, r.buf && buf);
	KTEST_ASSERT_EQ(t, make_cached_file(buf), 0);
	f = vfs_open(T_PATH, O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	m = f->f_mapping;

	race_arm(RACE_INVAL_DROPPED);
	a = task_create("truncate", truncate_to_one_page, NULL);
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_ASSERT_EQ(t, race_wait(RACE_INVAL_DROPPED, NULL, NULL), 1);
	KTEST_EXPECT_EQ(t, READ_ONCE(m->host->i_size), PAGE_SIZE);

	/* Page 0: a hit, no invalidate_lock. */
	before = m->invalidate_lock.stats;
	fd = open(T_PATH, O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, PAGE_SIZE, 0), PAGE_SIZE);
	close(fd);
	KTEST_EXPECT_EQ(t, count_bytes(buf, 'a'), PAGE_SIZE);

	/* Page 2: past the new EOF, 0 bytes, no waiting. */
	b = task_create("reader", read_victim, &r);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_EXPECT_EQ(t, race_wait_until(read_done, &r), 0);
	KTEST_EXPECT_EQ(t, r.n, 0);
	KTEST_EXPECT_EQ(t, m->invalidate_lock.stats.shared, before.shared);
	KTEST_EXPECT_EQ(
	    t, m->invalidate_lock.stats.contended, before.contended);

	race_release(RACE_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, task_join(a), 0);
	KTEST_EXPECT_EQ(t, task_join(b), 0);
	KTEST_EXPECT_EQ(t, READ_ONCE(m->host->i_size), PAGE_SIZE);
	fput(f);
	kfree(buf);
	kfree(r.buf);
	KTEST_EXPECT_EQ(t, unlink(T_PATH), 0);
}

static struct ktest_case race_trunc_hit_cases[] = {
	KTEST_CASE(race_trunc_hit_while_truncate_holds_lock),
	{},
};
KTEST_SUITE(race_trunc_hit, race_trunc_hit_cases);

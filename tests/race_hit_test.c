/*
 * tests/race_hit_test.c: suite race_hit - what a reader sees while a punch
 * holds invalidate_lock exclusive. The punch (task A) is held at
 * RACE_INVAL_DROPPED: page 2's cache is dropped, its block not yet freed.
 * Meanwhile:
 *   - a read of page 0, cached and uptodate, completes at once and takes
 *     no invalidate_lock at all (the hit path's promise: counters equal);
 *   - a read of page 2 (task B) misses: the fixed kernel makes it wait for
 *     the lock, and once A is done it reads zeroes; in legacy mode it does
 *     not wait and reads the old bytes 'c' from the block A is about to
 *     free - the bug, observed.
 * It is also the worked example of docs/labs.md, lab 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "race.h"

#define H_PATH	 "/race_hit"
#define H_PAGES	 4
#define H_VICTIM 2

struct hit_case {
	char *buf; /* B's page */
	bool done; /* B has read */
};

/* H_PAGES pages, page i all 'a' + i, written back, all of them cached. */
static int make_cached_file(char *buf)
{
	int fd = open(H_PATH, O_CREAT | O_TRUNC | O_RDWR, 0644), err = 0;

	if (fd < 0)
		return -errno;
	for (int i = 0; i < H_PAGES && !err; i++) {
		memset(buf, 'a' + i, PAGE_SIZE);
		if (write(fd, buf, PAGE_SIZE) != PAGE_SIZE)
			err = -EIO;
	}
	if (!err && fsync(fd))
		err = -errno;
	for (int i = 0; i < H_PAGES && !err; i++)
		if (pread(fd, buf, PAGE_SIZE, i * PAGE_SIZE) != PAGE_SIZE)
			err = -EIO;
	close(fd);
	return err;
}

static int punch(void *arg)
{
	int fd = open(H_PATH, O_RDWR), err = 0;

	(void)arg;
	if (fd < 0)
		return errno;
	if (fallocate(fd,
		      FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      H_VICTIM * PAGE_SIZE,
		      PAGE_SIZE))
		err = errno;
	close(fd);
	return err;
}

static int read_victim(void *arg)
{
	struct hit_case *hc = arg;
	int fd = open(H_PATH, O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); /* just the page */
		n = pread(fd, hc->buf, PAGE_SIZE, H_VICTIM * PAGE_SIZE);
		close(fd);
	}
	WRITE_ONCE(hc->done, true);
	return n == PAGE_SIZE ? 0 : 1;
}

static bool read_done(void *arg)
{
	return READ_ONCE(((struct hit_case *)arg)->done);
}

static int count_bytes(const char *buf, char c)
{
	int n = 0;

	for (size_t i = 0; i < PAGE_SIZE; i++)
		n += buf[i] == c;
	return n;
}

/* Page 0 is a hit: it must read 'a' and touch invalidate_lock not at all. */
static void check_hit(struct ktest *t, struct address_space *m, char *buf)
{
	struct lock_stats before = m->invalidate_lock.stats;
	int fd = open(H_PATH, O_RDONLY);

	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, PAGE_SIZE, 0), PAGE_SIZE);
	close(fd);
	KTEST_EXPECT_EQ(t, count_bytes(buf, 'a'), PAGE_SIZE);
	KTEST_EXPECT_EQ(t, m->invalidate_lock.stats.shared, before.shared);
	KTEST_EXPECT_EQ(
	    t, m->invalidate_lock.stats.contended, before.contended);
}

static void race_hit_while_punch_holds_lock(struct ktest *t)
{
	struct hit_case hc = { .buf = kmalloc(PAGE_SIZE, GFP_KERNEL) };
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	bool legacy = filemap_legacy_mode();
	struct task *a, *b;
	struct file *f;

	KTEST_ASSERT_TRUE(t, hc.buf && buf);
	KTEST_ASSERT_EQ(t, make_cached_file(buf), 0);
	f = vfs_open(H_PATH, O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));

	race_arm(RACE_INVAL_DROPPED);
	a = task_create("punch", punch, NULL);
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_ASSERT_EQ(t, race_wait(RACE_INVAL_DROPPED, NULL, NULL), 1);

	check_hit(t, f->f_mapping, buf);
	b = task_create("reader", read_victim, &hc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	if (legacy) {
		KTEST_EXPECT_EQ(t, race_wait_until(read_done, &hc), 0);
	} else {
		KTEST_EXPECT_EQ(
		    t, race_wait_until(race_waits_for_lock, f->f_mapping), 0);
		KTEST_EXPECT_FALSE(t, read_done(&hc));
	}
	race_release(RACE_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, task_join(a), 0);
	KTEST_EXPECT_EQ(t, task_join(b), 0);

	if (legacy) {
		KTEST_EXPECT_EQ(
		    t, count_bytes(hc.buf, 'a' + H_VICTIM), PAGE_SIZE);
		ktest_log(t,
			  "bug observed as expected in legacy mode: the "
			  "punched page read its old bytes");
	} else {
		KTEST_EXPECT_EQ(t, count_bytes(hc.buf, 0), PAGE_SIZE);
	}
	fput(f);
	kfree(buf);
	kfree(hc.buf);
	KTEST_EXPECT_EQ(t, unlink(H_PATH), 0);
}

static struct ktest_case race_hit_cases[] = {
	KTEST_CASE(race_hit_while_punch_holds_lock),
	{},
};
KTEST_SUITE(race_hit, race_hit_cases);

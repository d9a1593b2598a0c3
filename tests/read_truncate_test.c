/*
 * tests/read_truncate_test.c: suite vfs_read_truncate - a read beside a
 * truncate returns the old bytes or stops at the new EOF, never the
 * zeroes truncate writes past it (found by fsx: a reader returned zeroes
 * inside the old EOF). In the vfs_* boots.
 *
 * The schedule is forced: B reads F (cached) and stops at RACE_READ_COPY
 * with the old i_size read and page 0 referenced; A truncates F inside
 * page 0, which zeroes the page's tail; B copies. Truncate stores i_size
 * before it zeroes (filemap_truncate_tail) and the read reads i_size again
 * after its copy, so B returns exactly the bytes below the new EOF.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <mm/page_alloc.h>

#define F_PATH	"/read_truncate.bin"
#define F_SIZE	(2 * PAGE_SIZE)
#define NEW_EOF 100

struct reading {
	uint8_t buf[F_SIZE];
	ssize_t n;
};

static int reader(void *arg)
{
	struct reading *r = arg;
	int fd = open(F_PATH, O_RDONLY);

	r->n = fd < 0 ? -1 : pread(fd, r->buf, F_SIZE, 0);
	if (fd >= 0)
		close(fd);
	return 0;
}

static void read_stops_at_new_eof(struct ktest *t)
{
	static struct reading r;
	static uint8_t data[F_SIZE];
	int fd = open(F_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct task *b;
	ssize_t i;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(data, 0xab, sizeof(data));
	KTEST_ASSERT_EQ(t, pwrite(fd, data, F_SIZE, 0), (ssize_t)F_SIZE);
	KTEST_ASSERT_EQ(t, pread(fd, data, F_SIZE, 0), (ssize_t)F_SIZE);
	race_arm(RACE_READ_COPY);
	b = task_create_on("read-b", reader, &r, (int)((cpu_id() + 1) % ncpus));
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_EXPECT_EQ(t, race_wait(RACE_READ_COPY, NULL, NULL), 1);
	KTEST_EXPECT_EQ(t, ftruncate(fd, NEW_EOF), 0);
	race_release(RACE_READ_COPY);
	KTEST_EXPECT_EQ(t, task_join(b), 0);
	KTEST_EXPECT_EQ(t, r.n, (ssize_t)NEW_EOF);
	for (i = 0; i < r.n && r.buf[i] == 0xab; i++)
		;
	KTEST_EXPECT_EQ(t, i, r.n); /* no zero among the bytes returned */
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(F_PATH), 0);
}

static struct ktest_case read_truncate_cases[] = {
	KTEST_CASE(read_stops_at_new_eof),
	{},
};
KTEST_SUITE(vfs_read_truncate, read_truncate_cases);

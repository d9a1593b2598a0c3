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
 *
 * The size that bounds B's copy is the one B read before it found the
 * page (mm/filemap_read.c read_range). Two more schedules, B stopped the
 * same way on the old EOF page, whose tail past the EOF is zeroes:
 * - A inserts a page at 0: the file grows past the zeroes, and the data
 *   moves under them. B returns the old bytes up to the old EOF, then
 *   the new ones; a size read after the look-up would give zeroes there,
 *   which no version of the file had (fsx found it: 0x00 for 0xef).
 * - A truncates into the page (zeroes), then inserts: a shrink and growth
 *   while B holds the page; B reads the page again (i_shrinks moved).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/vfs.h>
#include <mm/page_alloc.h>

#define F_PATH	"/read_truncate.bin"
#define F_SIZE	(2 * PAGE_SIZE)
#define NEW_EOF 100

struct reading {
	uint8_t buf[F_SIZE];
	size_t len;
	off_t off;
	ssize_t n;
};

static int reader(void *arg)
{
	struct reading *r = arg;
	int fd = open(F_PATH, O_RDONLY);

	r->n = fd < 0 ? -1 : pread(fd, r->buf, r->len, r->off);
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
	r.len = F_SIZE;
	r.off = 0;
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

/* Is @c the byte at @off of F in some version of read_beside_insert's?
 * Before: page 0 of 0xaa, then @eof_bytes of 0xbb; after the truncate,
 * the same below PAGE_SIZE + 100; after the insert: a page of hole, the
 * 0xaa page, then the 0xbb bytes that were left. */
static bool in_some_version(off_t off, uint8_t c, size_t eof_bytes, bool shrink)
{
	size_t left = shrink ? 100 : eof_bytes;

	if (off < (off_t)PAGE_SIZE && c == 0xaa)
		return true; /* before */
	if (off >= (off_t)PAGE_SIZE && off < (off_t)(PAGE_SIZE + eof_bytes) &&
	    c == 0xbb)
		return true; /* before, and after the truncate below 100 */
	if (off < (off_t)PAGE_SIZE) /* after the insert: */
		return c == 0;
	if (off < (off_t)(2 * PAGE_SIZE))
		return c == 0xaa;
	return off < (off_t)(2 * PAGE_SIZE + left) && c == 0xbb;
}

/*
 * F as in_some_version, cached. B reads [@off, +@len) and stops before
 * its first page's copy (a batch holds the next pages meanwhile); A
 * truncates F to PAGE_SIZE + 100 (with @shrink), then inserts a page of
 * hole at 0; B goes on. Every byte B returns is one that offset held in
 * some version, and B stops at no EOF that every version passed.
 */
static void read_beside_insert(
    struct ktest *t, off_t off, size_t len, size_t eof_bytes, bool shrink)
{
	static struct reading r;
	static uint8_t data[F_SIZE];
	int fd = open(F_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);
	size_t size = PAGE_SIZE + eof_bytes;
	ssize_t least = MIN((ssize_t)len, (ssize_t)(PAGE_SIZE + 100 - off));
	struct task *b;
	ssize_t i;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(data, 0xaa, PAGE_SIZE);
	memset(data + PAGE_SIZE, 0xbb, PAGE_SIZE);
	KTEST_ASSERT_EQ(t, pwrite(fd, data, size, 0), (ssize_t)size);
	KTEST_ASSERT_EQ(t, pread(fd, data, size, 0), (ssize_t)size);
	memset(r.buf, 0x5a, sizeof(r.buf));
	r.len = len;
	r.off = off;
	race_arm(RACE_READ_COPY);
	b = task_create_on("read-b", reader, &r, (int)((cpu_id() + 1) % ncpus));
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_EXPECT_EQ(t, race_wait(RACE_READ_COPY, NULL, NULL), 1);
	if (shrink)
		KTEST_EXPECT_EQ(t, ftruncate(fd, PAGE_SIZE + 100), 0);
	KTEST_EXPECT_EQ(
	    t, fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, PAGE_SIZE), 0);
	race_release(RACE_READ_COPY);
	KTEST_EXPECT_EQ(t, task_join(b), 0);
	KTEST_EXPECT_TRUE(t, r.n >= least && r.n <= (ssize_t)len);
	for (i = 0; i < r.n; i++)
		if (!in_some_version(off + i, r.buf[i], eof_bytes, shrink))
			break;
	KTEST_EXPECT_EQ(t, i, r.n); /* i: the first byte no version had */
	if (i < r.n)
		ktest_log(t, "byte %zd of %zd is 0x%02x", i, r.n, r.buf[i]);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(F_PATH), 0);
}

/* The old EOF page (100 bytes of 0xbb) found; a page inserted before it. */
static void read_keeps_size_it_found(struct ktest *t)
{
	read_beside_insert(t, PAGE_SIZE, PAGE_SIZE, 100, false);
}

/* A full page found; a truncate into it, then the insert: read again. */
static void read_again_after_shrink(struct ktest *t)
{
	read_beside_insert(t, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, true);
}

/* Both pages found at once (a batch), the insert before the first copy:
 * the old EOF page, copied second, is bounded as the first. */
static void read_batch_keeps_size(struct ktest *t)
{
	read_beside_insert(t, 0, 2 * PAGE_SIZE, 100, false);
}

static struct ktest_case read_truncate_cases[] = {
	KTEST_CASE(read_stops_at_new_eof),
	KTEST_CASE(read_keeps_size_it_found),
	KTEST_CASE(read_again_after_shrink),
	KTEST_CASE(read_batch_keeps_size),
	{},
};
KTEST_SUITE(vfs_read_truncate, read_truncate_cases);

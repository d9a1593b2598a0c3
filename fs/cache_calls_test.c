/*
 * fs/cache_calls_test.c: suite vfs_cache - posix_fadvise, readahead(2) and
 * preadv2(RWF_NOWAIT) on the root ext2 (vfs boots), by the rules of their
 * Linux man pages:
 *   - preadv2 RWF_NOWAIT: data that is cached comes back; otherwise EAGAIN
 *     (no I/O, no waiting); an unknown flag is EOPNOTSUPP; offset -1 reads
 *     at the file position and advances it; a negative count is EINVAL;
 *   - posix_fadvise returns the error number (EBADF, EINVAL for a bad
 *     advice or a negative length, ESPIPE has no case here); WILLNEED
 *     caches the range, DONTNEED drops clean pages, RANDOM reads no more
 *     than asked for;
 *   - readahead: EBADF on a file not open for reading, EINVAL on a
 *     directory.
 * "Cached" is seen through the file's invalidate_lock counters: a plain
 * read of a cached range takes the lock zero times, a miss takes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <fs/internal.h>
#include <mm/kmalloc.h>

#define CC_PATH	 "/cache_calls"
#define CC_PAGES 16

/* A fresh file of CC_PAGES pages of 'c', written back, cached nowhere. */
static int make_file(struct ktest *t)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int fd = open(CC_PATH, O_CREAT | O_TRUNC | O_RDWR, 0644);

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_GE(t, fd, 0);
	memset(buf, 'c', PAGE_SIZE);
	for (int i = 0; i < CC_PAGES; i++)
		KTEST_ASSERT_EQ(t, write(fd, buf, PAGE_SIZE), PAGE_SIZE);
	KTEST_ASSERT_EQ(t, fsync(fd), 0);
	KTEST_ASSERT_EQ(t, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	kfree(buf);
	return fd;
}

static ssize_t nowait_read(int fd, void *buf, size_t len, off_t off)
{
	struct iovec iov = { buf, len };

	return preadv2(fd, &iov, 1, off, RWF_NOWAIT);
}

/* Shared acquisitions of @fd's invalidate_lock so far. */
static unsigned long fills(int fd)
{
	struct file *f = fd_get(fd);
	unsigned long n = f->f_mapping->invalidate_lock.stats.shared;

	fput(f);
	return n;
}

static void cache_nowait_rules(struct ktest *t)
{
	int fd = make_file(t);
	char buf[64];
	struct iovec iov = { buf, sizeof(buf) };

	errno = 0;
	KTEST_EXPECT_EQ(t, nowait_read(fd, buf, sizeof(buf), 0), -1);
	KTEST_EXPECT_EQ(t, errno, EAGAIN);
	KTEST_EXPECT_EQ(t, pread(fd, buf, sizeof(buf), 0), sizeof(buf));
	memset(buf, 0, sizeof(buf));
	KTEST_EXPECT_EQ(t, nowait_read(fd, buf, sizeof(buf), 100), sizeof(buf));
	KTEST_EXPECT_EQ(t, buf[0], 'c');
	errno = 0;
	KTEST_EXPECT_EQ(t, preadv2(fd, &iov, 1, 0, 0x100), -1);
	KTEST_EXPECT_EQ(t, errno, EOPNOTSUPP);
	errno = 0;
	KTEST_EXPECT_EQ(t, preadv2(fd, &iov, -1, 0, 0), -1);
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	KTEST_EXPECT_EQ(t, lseek(fd, 10, SEEK_SET), 10);
	KTEST_EXPECT_EQ(t, preadv2(fd, &iov, 1, -1, RWF_NOWAIT), sizeof(buf));
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 10 + (off_t)sizeof(buf));
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(CC_PATH), 0);
}

static void cache_fadvise_rules(struct ktest *t)
{
	int fd = make_file(t);
	char *buf = kmalloc(4 * PAGE_SIZE, GFP_KERNEL);
	unsigned long before;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_EXPECT_EQ(t, posix_fadvise(-1, 0, 0, POSIX_FADV_NORMAL), EBADF);
	KTEST_EXPECT_EQ(t, posix_fadvise(fd, 0, 0, 99), EINVAL);
	KTEST_EXPECT_EQ(t, posix_fadvise(fd, 0, -1, POSIX_FADV_NORMAL), EINVAL);
	/* WILLNEED: afterwards, reading the range fills nothing. */
	KTEST_EXPECT_EQ(
	    t, posix_fadvise(fd, 0, 4 * PAGE_SIZE, POSIX_FADV_WILLNEED), 0);
	before = fills(fd);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 4 * PAGE_SIZE, 0), 4 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, fills(fd), before);
	/* DONTNEED: gone again (clean pages), the next read fills. */
	KTEST_EXPECT_EQ(t, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	errno = 0;
	KTEST_EXPECT_EQ(t, nowait_read(fd, buf, 16, 0), -1);
	KTEST_EXPECT_EQ(t, errno, EAGAIN);
	/* RANDOM: a one-page read brings that page only. */
	KTEST_EXPECT_EQ(t, posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, PAGE_SIZE, 0), PAGE_SIZE);
	errno = 0;
	KTEST_EXPECT_EQ(t, nowait_read(fd, buf, 16, PAGE_SIZE), -1);
	KTEST_EXPECT_EQ(t, errno, EAGAIN);
	/* A four-page read brings its four pages as one batch (one fill,
	 * as Linux reads a random file's request at once), and no more. */
	before = fills(fd);
	KTEST_EXPECT_EQ(
	    t, pread(fd, buf, 4 * PAGE_SIZE, 4 * PAGE_SIZE), 4 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, fills(fd) - before, 1ul);
	KTEST_EXPECT_EQ(t, buf[3 * PAGE_SIZE], 'c');
	KTEST_EXPECT_EQ(t, nowait_read(fd, buf, 16, 7 * PAGE_SIZE), 16);
	errno = 0;
	KTEST_EXPECT_EQ(t, nowait_read(fd, buf, 16, 8 * PAGE_SIZE), -1);
	KTEST_EXPECT_EQ(t, errno, EAGAIN);
	KTEST_EXPECT_EQ(t, posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL), 0);
	close(fd);
	kfree(buf);
	KTEST_EXPECT_EQ(t, unlink(CC_PATH), 0);
}

static void cache_readahead_rules(struct ktest *t)
{
	int fd = make_file(t), wr, dir;
	char *buf = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
	unsigned long before;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_EXPECT_EQ(t, readahead(fd, 2 * PAGE_SIZE, 2 * PAGE_SIZE), 0);
	before = fills(fd);
	KTEST_EXPECT_EQ(
	    t, pread(fd, buf, 2 * PAGE_SIZE, 2 * PAGE_SIZE), 2 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, fills(fd), before);
	KTEST_EXPECT_EQ(t, buf[PAGE_SIZE], 'c');
	wr = open(CC_PATH, O_WRONLY);
	KTEST_ASSERT_GE(t, wr, 0);
	errno = 0;
	KTEST_EXPECT_EQ(t, readahead(wr, 0, PAGE_SIZE), -1);
	KTEST_EXPECT_EQ(t, errno, EBADF);
	close(wr);
	dir = open("/", O_RDONLY | O_DIRECTORY);
	KTEST_ASSERT_GE(t, dir, 0);
	errno = 0;
	KTEST_EXPECT_EQ(t, readahead(dir, 0, PAGE_SIZE), -1);
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	close(dir);
	close(fd);
	kfree(buf);
	KTEST_EXPECT_EQ(t, unlink(CC_PATH), 0);
}

static struct ktest_case cache_cases[] = {
	KTEST_CASE(cache_nowait_rules),
	KTEST_CASE(cache_fadvise_rules),
	KTEST_CASE(cache_readahead_rules),
	{},
};
KTEST_SUITE(vfs_cache, cache_cases);

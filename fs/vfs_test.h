/*
 * fs/vfs_test.h: what the VFS suites share (fs/vfs_test.c,
 * fs/symlink_test.c, fs/posix_test.c, fs/cwd_test.c): the root image's
 * known files and small file helpers. The image is tools/vfsimg.py's.
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/ktest.h>
#include <fs/internal.h>

static inline void need_root(struct ktest *t)
{
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
}

/* Read all of @path (at most @len bytes). Return: bytes or -errno. */
static inline long read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static inline int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (long)len ? 0 : -EIO;
}

/* Expect @call to fail with errno @err. */
#define EXPECT_ERRNO(t, call, err)                     \
	do {                                           \
		errno = 0;                             \
		KTEST_EXPECT_EQ(t, (long)(call), -1L); \
		KTEST_EXPECT_EQ(t, errno, err);        \
	} while (0)

/*
 * fs/posix_test.c: descriptor calls (suite vfs_fd: dup, dup2, fcntl) and
 * attribute calls (suite vfs_attr: chmod, fchmod, utimensat, futimens,
 * statfs, fstatfs) on the vfs boots' image (tools/vfsimg.py).
 *
 * attr_persist leaves /attr.bin with the mode and times of vfsimg.py's
 * ATTR_* constants; the post-check reads them back with debugfs stat.
 */
#include <string.h>
#include <sys/statfs.h>
#include <fs/vfs_test.h>

/* ---- vfs_fd ---- */

static void fd_dup(struct ktest *t)
{
	char buf[8];
	int fd, fd2;

	need_root(t);
	fd = open("/hello.txt", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	fd2 = dup(fd);
	KTEST_ASSERT_GT(t, fd2, fd);
	/* one file, one offset */
	KTEST_EXPECT_EQ(t, read(fd, buf, 5), 5);
	KTEST_EXPECT_EQ(t, read(fd2, buf, 2), 2);
	KTEST_EXPECT_MEMEQ(t, buf, ", ", 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 7);
	close(fd);
	/* the duplicate outlives the original */
	KTEST_EXPECT_EQ(t, read(fd2, buf, 5), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "world", 5);
	close(fd2);
	EXPECT_ERRNO(t, dup(fd2), EBADF);
	EXPECT_ERRNO(t, dup(-1), EBADF);
}

static void fd_dup2_onto(struct ktest *t)
{
	char buf[4];
	int a, b;

	need_root(t);
	a = open("/dir/a.txt", O_RDONLY);
	b = open("/dir/sub/b.txt", O_RDONLY);
	KTEST_ASSERT_GE(t, a, 0);
	KTEST_ASSERT_GE(t, b, 0);
	/* dup2 onto an open descriptor closes what it had */
	KTEST_EXPECT_EQ(t, dup2(a, b), b);
	KTEST_EXPECT_EQ(t, read(b, buf, 4), 2);
	KTEST_EXPECT_MEMEQ(t, buf, "a\n", 2);
	KTEST_EXPECT_EQ(t, dup2(a, a), a);
	KTEST_EXPECT_EQ(t, dup2(a, 40), 40);
	KTEST_EXPECT_EQ(t, lseek(40, 0, SEEK_CUR), 2);
	KTEST_EXPECT_EQ(t, close(40), 0);
	/* bad input: -EBADF, and the target stays as it was */
	EXPECT_ERRNO(t, dup2(a, -1), EBADF);
	EXPECT_ERRNO(t, dup2(a, FD_MAX), EBADF);
	EXPECT_ERRNO(t, dup2(a, 100000), EBADF);
	EXPECT_ERRNO(t, dup2(45, b), EBADF);
	EXPECT_ERRNO(t, dup2(45, 45), EBADF);
	EXPECT_ERRNO(t, dup2(-3, b), EBADF);
	KTEST_EXPECT_EQ(t, lseek(b, 0, SEEK_CUR), 2);
	close(a);
	close(b);
}

static void fd_fcntl(struct ktest *t)
{
	char buf[8];
	struct stat st;
	int fd, fd2;

	need_root(t);
	fd = open("/t_fcntl", O_RDWR | O_CREAT | O_TRUNC | O_EXCL, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	/* F_GETFL: access mode and status flags, not the open-only ones */
	KTEST_EXPECT_EQ(t, fcntl(fd, F_GETFL), O_RDWR);
	fd2 = fcntl(fd, F_DUPFD, 30);
	KTEST_EXPECT_EQ(t, fd2, 30);
	KTEST_EXPECT_EQ(t, fcntl(fd, F_DUPFD, 30), 31);
	close(31);
	EXPECT_ERRNO(t, fcntl(fd, F_DUPFD, -1), EINVAL);
	EXPECT_ERRNO(t, fcntl(fd, F_DUPFD, FD_MAX), EINVAL);
	EXPECT_ERRNO(t, fcntl(fd, F_DUPFD, (1L << 32) + 3), EINVAL);
	KTEST_EXPECT_EQ(t, write(fd, "abc", 3), 3);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_SET), 0);
	/* O_APPEND set through one descriptor holds for the shared file */
	KTEST_EXPECT_EQ(t, fcntl(fd2, F_SETFL, O_APPEND | O_WRONLY), 0);
	KTEST_EXPECT_EQ(t, fcntl(fd, F_GETFL), O_RDWR | O_APPEND);
	KTEST_EXPECT_EQ(t, write(fd, "de", 2), 2);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 8, 0), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "abcde", 5);
	KTEST_EXPECT_EQ(t, fcntl(fd, F_SETFL, 0), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_SET), 0);
	KTEST_EXPECT_EQ(t, write(fd, "X", 1), 1);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, 5);
	EXPECT_ERRNO(t, fcntl(fd, 9999), EINVAL);
	close(fd2);
	close(fd);
	EXPECT_ERRNO(t, fcntl(fd, F_GETFL), EBADF);
	KTEST_EXPECT_EQ(t, unlink("/t_fcntl"), 0);
}

static struct ktest_case fd_cases[] = {
	KTEST_CASE(fd_dup),
	KTEST_CASE(fd_dup2_onto),
	KTEST_CASE(fd_fcntl),
	{},
};
KTEST_SUITE(vfs_fd, fd_cases);

/* ---- vfs_attr ---- */

static void attr_chmod(struct ktest *t)
{
	struct stat st;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_mode", "m", 1), 0);
	KTEST_EXPECT_EQ(t, chmod("/t_mode", 04751), 0);
	KTEST_EXPECT_EQ(t, stat("/t_mode", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFREG | 04751);
	/* only the permission bits change, whatever the argument holds */
	KTEST_EXPECT_EQ(t, chmod("/t_mode", S_IFDIR | 0600), 0);
	KTEST_EXPECT_EQ(t, stat("/t_mode", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFREG | 0600);
	fd = open("/t_mode", O_RDONLY);
	KTEST_EXPECT_EQ(t, fchmod(fd, 0444), 0);
	close(fd);
	KTEST_EXPECT_EQ(t, stat("/t_mode", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFREG | 0444);
	EXPECT_ERRNO(t, fchmod(fd, 0444), EBADF);
	EXPECT_ERRNO(t, chmod("/nonexistent", 0644), ENOENT);
	/* chmod follows a link: the target changes, the link stays 0777 */
	KTEST_ASSERT_EQ(t, symlink("t_mode", "/t_mode.lnk"), 0);
	KTEST_EXPECT_EQ(t, chmod("/t_mode.lnk", 0640), 0);
	KTEST_EXPECT_EQ(t, stat("/t_mode", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFREG | 0640);
	KTEST_EXPECT_EQ(t, lstat("/t_mode.lnk", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFLNK | 0777);
	KTEST_EXPECT_EQ(t, unlink("/t_mode.lnk"), 0);
	KTEST_EXPECT_EQ(t, unlink("/t_mode"), 0);
}

static void attr_utimens(struct ktest *t)
{
	struct timespec set[2] = { { 1000, 999999999 }, { 2000, 5 } };
	struct timespec omit[2] = { { 7, UTIME_OMIT }, { 3000, 0 } };
	struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	struct timespec bad[2] = { { 0, 1000000000 }, { 0, 0 } };
	struct stat st, lst;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_time", "t", 1), 0);
	KTEST_EXPECT_EQ(t, utimensat(AT_FDCWD, "/t_time", set, 0), 0);
	KTEST_EXPECT_EQ(t, stat("/t_time", &st), 0);
	/* ext2's 128-byte inodes keep whole seconds (Linux truncates too) */
	KTEST_EXPECT_EQ(t, st.st_atim.tv_sec, 1000);
	KTEST_EXPECT_EQ(t, st.st_atim.tv_nsec, 0);
	KTEST_EXPECT_EQ(t, st.st_mtim.tv_sec, 2000);
	/* UTIME_OMIT leaves that time alone */
	KTEST_EXPECT_EQ(t, utimensat(AT_FDCWD, "/t_time", omit, 0), 0);
	KTEST_EXPECT_EQ(t, stat("/t_time", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_atim.tv_sec, 1000);
	KTEST_EXPECT_EQ(t, st.st_mtim.tv_sec, 3000);
	/* UTIME_NOW: the time ctime gets too */
	fd = open("/t_time", O_RDONLY);
	KTEST_EXPECT_EQ(t, futimens(fd, now), 0);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_atim.tv_sec, st.st_ctim.tv_sec);
	KTEST_EXPECT_EQ(t, st.st_mtim.tv_sec, 3000);
	EXPECT_ERRNO(t, futimens(fd, bad), EINVAL);
	close(fd);
	EXPECT_ERRNO(t, futimens(fd, set), EBADF);
	EXPECT_ERRNO(t, utimensat(AT_FDCWD, "/t_time", set, 0x4000), EINVAL);
	/* AT_SYMLINK_NOFOLLOW: the link's own times */
	KTEST_ASSERT_EQ(t, symlink("t_time", "/t_time.lnk"), 0);
	KTEST_EXPECT_EQ(
	    t, utimensat(AT_FDCWD, "/t_time.lnk", set, AT_SYMLINK_NOFOLLOW), 0);
	KTEST_EXPECT_EQ(t, lstat("/t_time.lnk", &lst), 0);
	KTEST_EXPECT_EQ(t, lst.st_mtim.tv_sec, 2000);
	KTEST_EXPECT_EQ(t, stat("/t_time", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mtim.tv_sec, 3000);
	KTEST_EXPECT_EQ(t, unlink("/t_time.lnk"), 0);
	KTEST_EXPECT_EQ(t, unlink("/t_time"), 0);
}

static void attr_statfs(struct ktest *t)
{
	struct statfs a, b;
	struct stat st;
	static char block[65536];
	long used;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, statfs("/", &a), 0);
	KTEST_ASSERT_EQ(t, stat("/", &st), 0);
	KTEST_EXPECT_EQ(t, a.f_type, 0xEF53); /* EXT2_SUPER_MAGIC */
	KTEST_EXPECT_EQ(t, a.f_bsize, st.st_blksize);
	KTEST_EXPECT_EQ(t, a.f_frsize, st.st_blksize);
	KTEST_EXPECT_EQ(t, a.f_namelen, 255);
	KTEST_EXPECT_LE(t, a.f_bfree, a.f_blocks);
	KTEST_EXPECT_LE(t, a.f_bavail, a.f_bfree);
	KTEST_EXPECT_LE(t, a.f_ffree, a.f_files);
	/* a 64 KiB file takes at least 64 KiB of blocks, and one inode */
	fd = open("/t_statfs", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, block, sizeof(block)), sizeof(block));
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	KTEST_EXPECT_EQ(t, fstatfs(fd, &b), 0);
	close(fd);
	used = (a.f_bfree - b.f_bfree) * a.f_bsize;
	KTEST_EXPECT_GE(t, used, (long)sizeof(block));
	KTEST_EXPECT_EQ(t, b.f_ffree, a.f_ffree - 1);
	KTEST_EXPECT_EQ(t, b.f_blocks, a.f_blocks);
	KTEST_EXPECT_EQ(t, unlink("/t_statfs"), 0);
	KTEST_EXPECT_EQ(t, statfs("/dir/sub/b.txt", &b), 0);
	KTEST_EXPECT_EQ(t, b.f_bfree, a.f_bfree);
	EXPECT_ERRNO(t, statfs("/nonexistent", &b), ENOENT);
	EXPECT_ERRNO(t, fstatfs(-1, &b), EBADF);
}

static void attr_persist(struct ktest *t)
{
	struct timespec times[2] = { { 1000000000, 0 }, { 1234567890, 0 } };

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/attr.bin", "attr", 4), 0);
	KTEST_EXPECT_EQ(t, chmod("/attr.bin", 0640), 0);
	KTEST_EXPECT_EQ(t, utimensat(AT_FDCWD, "/attr.bin", times, 0), 0);
}

static struct ktest_case attr_cases[] = {
	KTEST_CASE(attr_chmod),
	KTEST_CASE(attr_utimens),
	KTEST_CASE(attr_statfs),
	KTEST_CASE(attr_persist),
	{},
};
KTEST_SUITE(vfs_attr, attr_cases);

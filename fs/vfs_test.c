/*
 * fs/vfs_test.c: the VFS and its POSIX calls on the root ext2.
 *
 * The boots vfs_4k and vfs_1k (tools/boots.py) mount an image made by
 * tools/vfsimg.py from a known folder:
 *   /hello.txt "hello, world\n"   /empty   /dir/a.txt "a\n"
 *   /dir/sub/b.txt "bee\n"        /big.bin 300000 bytes of big_byte(i)
 *   /cksums.txt  the host's `cksum` lines for those files
 * Each case cleans up what it makes, except vfs_persist, whose file the
 * post-check reads back with debugfs (after e2fsck finds the image clean).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <fs/internal.h>
#include <fs/vfs_test.h>

#define BIG_SIZE 300000

static uint8_t big_byte(long i)
{
	return (i * 7 + i / 4096) & 0xff;
}

static uint8_t persist_byte(long i)
{
	return (i * 13 + 5) & 0xff;
}

/* ---- vfs_namei ---- */

static void namei_walk(struct ktest *t)
{
	char buf[32];
	struct stat st, root;

	need_root(t);
	KTEST_EXPECT_EQ(t, read_file("/hello.txt", buf, sizeof(buf)), 13);
	KTEST_EXPECT_EQ(t, read_file("hello.txt", buf, sizeof(buf)), 13);
	KTEST_EXPECT_EQ(t, read_file("//dir///a.txt", buf, sizeof(buf)), 2);
	KTEST_EXPECT_EQ(
	    t, read_file("/dir/./sub/../a.txt", buf, sizeof(buf)), 2);
	KTEST_EXPECT_EQ(t, read_file("/../../hello.txt", buf, sizeof(buf)), 13);
	KTEST_EXPECT_EQ(t, read_file("/dir/sub/../../hello.txt", buf, 32), 13);
	KTEST_ASSERT_EQ(t, stat("/", &root), 0);
	KTEST_EXPECT_EQ(t, stat("/dir/..", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_ino, root.st_ino);
	KTEST_EXPECT_EQ(t, stat("/dir/sub/", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISDIR(st.st_mode));
}

static void namei_errors(struct ktest *t)
{
	char name[300], buf[8];
	struct stat st;

	need_root(t);
	EXPECT_ERRNO(t, stat("", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/nonexistent", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/nonexistent/x", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/hello.txt/x", &st), ENOTDIR);
	EXPECT_ERRNO(t, stat("/hello.txt/", &st), ENOTDIR);
	EXPECT_ERRNO(t, stat("/hello.txt/..", &st), ENOTDIR);
	EXPECT_ERRNO(t, read_file("/dir/a.txt/", buf, 8) < 0 ? -1 : 0, ENOTDIR);
	memset(name, 'x', 256);
	name[0] = '/';
	name[257] = '\0';
	name[256] = 'x';
	EXPECT_ERRNO(t, stat(name, &st), ENAMETOOLONG);
	EXPECT_ERRNO(t, open(name, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	name[256] = '\0'; /* 255 characters: fine, and absent */
	EXPECT_ERRNO(t, stat(name, &st), ENOENT);
	KTEST_EXPECT_EQ(t, ENAMETOOLONG, 36); /* Linux's numbers */
	KTEST_EXPECT_EQ(t, ENOTEMPTY, 39);
}

static void namei_icache(struct ktest *t)
{
	struct inode *a, *b;

	need_root(t);
	a = vfs_lookup("/dir/sub/b.txt");
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	b = vfs_lookup("/dir/../dir/sub/./b.txt");
	KTEST_EXPECT_TRUE(t, a == b);
	KTEST_EXPECT_EQ(t, a->i_size, 4);
	if (!IS_ERR(b))
		iput(b);
	iput(a);
	/* Unreferenced now: it can be pruned and read again. */
	prune_icache(vfs_root_sb(), ~0UL);
	a = vfs_lookup("/dir/sub/b.txt");
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_EXPECT_EQ(t, a->i_size, 4);
	iput(a);
}

static struct ktest_case namei_cases[] = {
	KTEST_CASE(namei_walk),
	KTEST_CASE(namei_errors),
	KTEST_CASE(namei_icache),
	{},
};
KTEST_SUITE(vfs_namei, namei_cases);

/* ---- vfs_file ---- */

static void file_read_seek(struct ktest *t)
{
	char buf[16] = { 0 };
	int fd;

	need_root(t);
	fd = open("/hello.txt", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 3);
	KTEST_EXPECT_EQ(t, read(fd, buf, 5), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "hello", 5);
	KTEST_EXPECT_EQ(t, read(fd, buf, 16), 8);
	KTEST_EXPECT_MEMEQ(t, buf, ", world\n", 8);
	KTEST_EXPECT_EQ(t, read(fd, buf, 16), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 13);
	KTEST_EXPECT_EQ(t, lseek(fd, -6, SEEK_END), 7);
	KTEST_EXPECT_EQ(t, read(fd, buf, 5), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "world", 5);
	KTEST_EXPECT_EQ(t, lseek(fd, 2, SEEK_SET), 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 100, SEEK_SET), 100);
	KTEST_EXPECT_EQ(t, read(fd, buf, 16), 0);
	EXPECT_ERRNO(t, lseek(fd, -1, SEEK_SET), EINVAL);
	EXPECT_ERRNO(t, lseek(fd, 0, 42), EINVAL);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_DATA), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_HOLE), 13);
	EXPECT_ERRNO(t, lseek(fd, 13, SEEK_DATA), ENXIO);
	EXPECT_ERRNO(t, lseek(fd, 13, SEEK_HOLE), ENXIO);
	EXPECT_ERRNO(t, write(fd, "x", 1), EBADF);
	KTEST_EXPECT_EQ(t, close(fd), 0);
	EXPECT_ERRNO(t, close(fd), EBADF);
	EXPECT_ERRNO(t, read(fd, buf, 1), EBADF);
	EXPECT_ERRNO(t, read(FD_MAX + 5, buf, 1), EBADF);
}

static void file_big_pread(struct ktest *t)
{
	static const long offs[] = {
		0, 4095, 4096, 65535, 123457, BIG_SIZE - 9
	};
	uint8_t buf[100];
	int fd;
	struct stat st;

	need_root(t);
	fd = open("/big.bin", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, BIG_SIZE);
	for (size_t k = 0; k < ARRAY_SIZE(offs); k++) {
		long want = MIN(100, BIG_SIZE - offs[k]);
		long bad = -1;

		KTEST_EXPECT_EQ(t, pread(fd, buf, 100, offs[k]), want);
		for (long i = 0; i < want; i++)
			if (buf[i] != big_byte(offs[k] + i) && bad < 0)
				bad = offs[k] + i;
		KTEST_EXPECT_EQ(t, bad, -1);
	}
	KTEST_EXPECT_EQ(t, pread(fd, buf, 100, BIG_SIZE), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 0); /* pread keeps f_pos */
	EXPECT_ERRNO(t, pread(fd, buf, 1, -1), EINVAL);
	close(fd);
}

static void file_create_flags(struct ktest *t)
{
	char buf[32] = { 0 };
	int fd;

	need_root(t);
	unlink("/t_create");
	fd = open("/t_create", O_RDWR | O_CREAT | O_EXCL, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, "0123456789", 10), 10);
	KTEST_EXPECT_EQ(t, pwrite(fd, "ab", 2, 4), 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 10);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 32, 0), 10);
	KTEST_EXPECT_MEMEQ(t, buf, "0123ab6789", 10);
	close(fd);
	EXPECT_ERRNO(
	    t, open("/t_create", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
	fd = open("/t_create", O_WRONLY | O_APPEND);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, "XY", 2), 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 12);
	EXPECT_ERRNO(t, read(fd, buf, 1), EBADF);
	close(fd);
	KTEST_EXPECT_EQ(t, read_file("/t_create", buf, 32), 12);
	KTEST_EXPECT_MEMEQ(t, buf, "0123ab6789XY", 12);
	fd = open("/t_create", O_RDWR | O_TRUNC);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_END), 0);
	close(fd);
	EXPECT_ERRNO(t, open("/dir", O_WRONLY), EISDIR);
	EXPECT_ERRNO(t, open("/dir", O_RDWR | O_CREAT, 0644), EISDIR);
	EXPECT_ERRNO(t, open("/t_create", O_RDONLY | O_DIRECTORY), ENOTDIR);
	EXPECT_ERRNO(t, open("/nonexistent", O_RDONLY), ENOENT);
	EXPECT_ERRNO(t, open("/nodir/x", O_RDWR | O_CREAT, 0644), ENOENT);
	EXPECT_ERRNO(t, open("/t_create/x", O_RDWR | O_CREAT, 0644), ENOTDIR);
	fd = open("/dir", O_RDONLY);
	KTEST_EXPECT_GE(t, fd, 0);
	EXPECT_ERRNO(t, read(fd, buf, 1), EISDIR);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/t_create"), 0);
}

static void file_lowest_fd(struct ktest *t)
{
	int a, b, c;

	need_root(t);
	a = open("/hello.txt", O_RDONLY);
	b = open("/hello.txt", O_RDONLY);
	KTEST_EXPECT_EQ(t, a, 3);
	KTEST_EXPECT_EQ(t, b, 4);
	close(a);
	c = open("/hello.txt", O_RDONLY);
	KTEST_EXPECT_EQ(t, c, 3);
	close(b);
	close(c);
	KTEST_EXPECT_EQ(t, isatty(1), 1);
	KTEST_EXPECT_EQ(t, write(1, "", 0), 0);
}

static void file_truncate(struct ktest *t)
{
	uint8_t buf[64];
	struct stat st;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_trunc", "abcdefgh", 8), 0);
	KTEST_EXPECT_EQ(t, truncate("/t_trunc", 3), 0);
	KTEST_EXPECT_EQ(t, read_file("/t_trunc", buf, 64), 3);
	KTEST_EXPECT_EQ(t, truncate("/t_trunc", 10000), 0);
	KTEST_EXPECT_EQ(t, stat("/t_trunc", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, 10000);
	fd = open("/t_trunc", O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 64, 0), 64);
	KTEST_EXPECT_MEMEQ(t, buf, "abc\0\0\0\0", 7);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 64, 9990), 10);
	KTEST_EXPECT_EQ(t, buf[0] | buf[9], 0);
	KTEST_EXPECT_EQ(t, ftruncate(fd, 1), 0);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, 1);
	EXPECT_ERRNO(t, ftruncate(fd, -1), EINVAL);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	KTEST_EXPECT_EQ(t, fdatasync(fd), 0);
	close(fd);
	fd = open("/t_trunc", O_RDONLY);
	EXPECT_ERRNO(t, ftruncate(fd, 0), EINVAL);
	close(fd);
	EXPECT_ERRNO(t, truncate("/dir", 0), EISDIR);
	EXPECT_ERRNO(t, truncate("/nonexistent", 0), ENOENT);
	KTEST_EXPECT_EQ(t, unlink("/t_trunc"), 0);
}

struct append_arg {
	char c;
	int errors;
};

static int appender(void *p)
{
	struct append_arg *a = p;
	int fd = open("/t_append", O_WRONLY | O_APPEND);
	char buf[100];

	memset(buf, a->c, sizeof(buf));
	for (int i = 0; i < 50; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			a->errors++;
	close(fd);
	return 0;
}

/* O_APPEND under i_rwsem: concurrent appends never overwrite each other. */
static void file_append_race(struct ktest *t)
{
	struct append_arg args[3] = { { 'a', 0 }, { 'b', 0 }, { 'c', 0 } };
	struct task *tasks[3];
	static char buf[15000];
	int count[3] = { 0 };

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_append", "", 0), 0);
	for (int i = 0; i < 3; i++)
		tasks[i] = task_create("appender", appender, &args[i]);
	for (int i = 0; i < 3; i++) {
		task_join(tasks[i]);
		KTEST_EXPECT_EQ(t, args[i].errors, 0);
	}
	KTEST_EXPECT_EQ(t, read_file("/t_append", buf, sizeof(buf)), 15000);
	for (int i = 0; i < 15000; i++)
		if (buf[i] >= 'a' && buf[i] <= 'c')
			count[buf[i] - 'a']++;
	for (int i = 0; i < 3; i++)
		KTEST_EXPECT_EQ(t, count[i], 5000);
	/* each write landed whole */
	for (int i = 0; i < 15000; i += 100)
		KTEST_EXPECT_EQ(t, buf[i], buf[i + 99]);
	KTEST_EXPECT_EQ(t, unlink("/t_append"), 0);
}

static void file_unlinked_open(struct ktest *t)
{
	char buf[8] = { 0 };
	struct stat st;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_orphan", "orphan", 6), 0);
	fd = open("/t_orphan", O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, unlink("/t_orphan"), 0);
	EXPECT_ERRNO(t, stat("/t_orphan", &st), ENOENT);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 8, 0), 6);
	KTEST_EXPECT_MEMEQ(t, buf, "orphan", 6);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 0);
	KTEST_EXPECT_EQ(t, close(fd), 0); /* evicted: blocks freed */
}

static struct ktest_case file_cases[] = {
	KTEST_CASE(file_read_seek),	KTEST_CASE(file_big_pread),
	KTEST_CASE(file_create_flags),	KTEST_CASE(file_lowest_fd),
	KTEST_CASE(file_truncate),	KTEST_CASE(file_append_race),
	KTEST_CASE(file_unlinked_open), {},
};
KTEST_SUITE(vfs_file, file_cases);

/* ---- vfs_dir ---- */

static bool dir_has(const char *path, const char *name, unsigned char type)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, name))
			found = e->d_type == type || e->d_type == DT_UNKNOWN;
	closedir(d);
	return found;
}

static void dir_readdir(struct ktest *t)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	need_root(t);
	KTEST_EXPECT_TRUE(t, dir_has("/", "hello.txt", DT_REG));
	KTEST_EXPECT_TRUE(t, dir_has("/", "dir", DT_DIR));
	KTEST_EXPECT_TRUE(t, dir_has("/dir", ".", DT_DIR));
	KTEST_EXPECT_TRUE(t, dir_has("/dir", "..", DT_DIR));
	KTEST_EXPECT_TRUE(t, dir_has("/dir/", "sub", DT_DIR));
	d = opendir("/dir/sub");
	KTEST_ASSERT_NOT_NULL(t, d);
	while ((e = readdir(d)))
		n++;
	closedir(d);
	KTEST_EXPECT_EQ(t, n, 3);
	errno = 0;
	KTEST_EXPECT_NULL(t, opendir("/hello.txt"));
	KTEST_EXPECT_EQ(t, errno, ENOTDIR);
	KTEST_EXPECT_NULL(t, opendir("/nonexistent"));
	KTEST_EXPECT_EQ(t, errno, ENOENT);
}

static void dir_mkdir_rmdir(struct ktest *t)
{
	struct stat st, parent;

	need_root(t);
	KTEST_ASSERT_EQ(t, mkdir("/t_d", 0755), 0);
	KTEST_EXPECT_EQ(t, stat("/t_d", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISDIR(st.st_mode));
	KTEST_EXPECT_EQ(t, st.st_nlink, 2);
	EXPECT_ERRNO(t, mkdir("/t_d", 0755), EEXIST);
	EXPECT_ERRNO(t, mkdir("/hello.txt", 0755), EEXIST);
	EXPECT_ERRNO(t, mkdir("/", 0755), EEXIST);
	EXPECT_ERRNO(t, mkdir("/t_d/x/y", 0755), ENOENT);
	KTEST_EXPECT_EQ(t, mkdir("/t_d/sub/", 0755), 0);
	KTEST_EXPECT_EQ(t, stat("/t_d", &parent), 0);
	KTEST_EXPECT_EQ(t, parent.st_nlink, 3);
	KTEST_EXPECT_EQ(t, write_file("/t_d/f", "f", 1), 0);
	EXPECT_ERRNO(t, rmdir("/t_d"), ENOTEMPTY);
	EXPECT_ERRNO(t, rmdir("/t_d/f"), ENOTDIR);
	EXPECT_ERRNO(t, unlink("/t_d/sub"), EISDIR);
	EXPECT_ERRNO(t, rmdir("/t_d/sub/."), EINVAL);
	EXPECT_ERRNO(t, rmdir("/t_d/sub/.."), ENOTEMPTY);
	EXPECT_ERRNO(t, rmdir("/"), EBUSY);
	EXPECT_ERRNO(t, unlink("/t_d/f/"), ENOTDIR);
	KTEST_EXPECT_EQ(t, unlink("/t_d/f"), 0);
	EXPECT_ERRNO(t, unlink("/t_d/f"), ENOENT);
	KTEST_EXPECT_EQ(t, rmdir("/t_d/sub"), 0);
	KTEST_EXPECT_EQ(t, stat("/t_d", &parent), 0);
	KTEST_EXPECT_EQ(t, parent.st_nlink, 2);
	KTEST_EXPECT_EQ(t, rmdir("/t_d"), 0);
	EXPECT_ERRNO(t, stat("/t_d", &st), ENOENT);
}

static void dir_link(struct ktest *t)
{
	struct stat st;
	char buf[8];

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_l1", "link", 4), 0);
	KTEST_EXPECT_EQ(t, link("/t_l1", "/dir/t_l2"), 0);
	KTEST_EXPECT_EQ(t, stat("/t_l1", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 2);
	EXPECT_ERRNO(t, link("/t_l1", "/dir/t_l2"), EEXIST);
	EXPECT_ERRNO(t, link("/dir", "/t_l3"), EPERM);
	EXPECT_ERRNO(t, link("/nonexistent", "/t_l3"), ENOENT);
	KTEST_EXPECT_EQ(t, unlink("/t_l1"), 0);
	KTEST_EXPECT_EQ(t, read_file("/dir/t_l2", buf, 8), 4);
	KTEST_EXPECT_EQ(t, stat("/dir/t_l2", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 1);
	KTEST_EXPECT_EQ(t, unlink("/dir/t_l2"), 0);
}

static void dir_rename(struct ktest *t)
{
	struct stat st;
	char buf[8] = { 0 };

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_r1", "one", 3), 0);
	KTEST_ASSERT_EQ(t, write_file("/t_r2", "two", 3), 0);
	KTEST_ASSERT_EQ(t, mkdir("/t_rd", 0755), 0);
	KTEST_ASSERT_EQ(t, mkdir("/t_rd/in", 0755), 0);
	/* file over file, same directory */
	KTEST_EXPECT_EQ(t, rename("/t_r1", "/t_r2"), 0);
	EXPECT_ERRNO(t, stat("/t_r1", &st), ENOENT);
	KTEST_EXPECT_EQ(t, read_file("/t_r2", buf, 8), 3);
	KTEST_EXPECT_MEMEQ(t, buf, "one", 3);
	/* across directories and back */
	KTEST_EXPECT_EQ(t, rename("/t_r2", "/t_rd/in/f"), 0);
	KTEST_EXPECT_EQ(t, rename("/t_rd/in/f", "/t_r2"), 0);
	/* same inode: nothing happens */
	KTEST_EXPECT_EQ(t, rename("/t_r2", "/t_r2"), 0);
	EXPECT_ERRNO(t, rename("/t_r2", "/t_rd"), EISDIR);
	EXPECT_ERRNO(t, rename("/t_rd", "/t_r2"), ENOTDIR);
	EXPECT_ERRNO(t, rename("/t_rd", "/t_rd/in/x"), EINVAL);
	EXPECT_ERRNO(t, rename("/t_rd", "/t_rd/x"), EINVAL);
	EXPECT_ERRNO(t, rename("/nonexistent", "/t_x"), ENOENT);
	EXPECT_ERRNO(t, rename("/t_rd/in", "/t_rd/.."), EBUSY);
	/* directory over an empty directory, with ".." fixed up */
	KTEST_ASSERT_EQ(t, mkdir("/t_re", 0755), 0);
	EXPECT_ERRNO(t, rename("/t_re", "/t_rd"), ENOTEMPTY);
	KTEST_EXPECT_EQ(t, rename("/t_rd/in", "/t_re"), 0);
	KTEST_EXPECT_EQ(t, stat("/t_re/..", &st), 0);
	KTEST_EXPECT_EQ(t, stat("/t_rd", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 2);
	KTEST_EXPECT_EQ(t, rename("/t_re", "/t_rd/moved"), 0);
	KTEST_EXPECT_EQ(t, stat("/t_rd", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 3);
	KTEST_EXPECT_TRUE(t, dir_has("/t_rd/moved/..", "moved", DT_DIR));
	KTEST_EXPECT_EQ(t, rmdir("/t_rd/moved"), 0);
	KTEST_EXPECT_EQ(t, rmdir("/t_rd"), 0);
	KTEST_EXPECT_EQ(t, unlink("/t_r2"), 0);
}

static struct ktest_case dir_cases[] = {
	KTEST_CASE(dir_readdir),
	KTEST_CASE(dir_mkdir_rmdir),
	KTEST_CASE(dir_link),
	KTEST_CASE(dir_rename),
	{},
};
KTEST_SUITE(vfs_dir, dir_cases);

/* ---- vfs_cksum: the cksum command's lines against the host's ---- */

static void cksum_host(struct ktest *t)
{
	static char want[1024];
	char line[256], *p, *nl;
	long n;
	int lines = 0;

	need_root(t);
	n = read_file("/cksums.txt", want, sizeof(want) - 1);
	KTEST_ASSERT_GT(t, n, 0);
	want[n] = '\0';
	for (p = want; (nl = strchr(p, '\n')); p = nl + 1, lines++) {
		char *name;

		*nl = '\0'; /* first: the name is the last word of this line */
		name = strrchr(p, ' ') + 1;
		KTEST_ASSERT_EQ(t, cksum_line(name, line, sizeof(line)), 0);
		line[strlen(line) - 1] = '\0';
		KTEST_EXPECT_STREQ(t, line, p);
	}
	KTEST_EXPECT_EQ(t, lines, 5);
}

static struct ktest_case cksum_cases[] = {
	KTEST_CASE(cksum_host),
	{},
};
KTEST_SUITE(vfs_cksum, cksum_cases);

/* ---- vfs_persist: written, fsynced, read back by the post-check ---- */

#define PERSIST_SIZE 20000

static void persist_write(struct ktest *t)
{
	static uint8_t buf[PERSIST_SIZE];
	int fd;

	need_root(t);
	for (long i = 0; i < PERSIST_SIZE; i++)
		buf[i] = persist_byte(i);
	fd = open("/persist.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	/* in pieces that straddle blocks and pages, out of order */
	KTEST_EXPECT_EQ(t, pwrite(fd, buf + 5000, 15000, 5000), 15000);
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, 5000, 0), 5000);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	KTEST_EXPECT_EQ(t, close(fd), 0);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
}

static struct ktest_case persist_cases[] = {
	KTEST_CASE(persist_write),
	{},
};
KTEST_SUITE(vfs_persist, persist_cases);

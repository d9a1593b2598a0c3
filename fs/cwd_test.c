/*
 * fs/cwd_test.c: the working directory (suite vfs_cwd) on the vfs boots'
 * image (tools/vfsimg.py): /hello.txt (13 bytes), /dir/a.txt "a\n",
 * /dir/sub/b.txt "bee\n", /dir.lnk -> dir/sub.
 *
 * Each case runs in a task of its own, which starts in "/" (the ktest
 * runner never leaves it) and whose directory is dropped when it ends.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <fs/vfs_test.h>

static void expect_cwd(struct ktest *t, const char *want)
{
	char buf[64];

	KTEST_ASSERT_NOT_NULL(t, getcwd(buf, sizeof(buf)));
	KTEST_EXPECT_STREQ(t, buf, want);
}

static void cwd_chdir(struct ktest *t)
{
	char buf[16];
	struct stat st;
	int fd;

	need_root(t);
	expect_cwd(t, "/");
	KTEST_ASSERT_EQ(t, chdir("/dir"), 0);
	expect_cwd(t, "/dir");
	KTEST_EXPECT_EQ(t, read_file("a.txt", buf, 16), 2);
	KTEST_EXPECT_EQ(t, read_file("./sub/b.txt", buf, 16), 4);
	KTEST_EXPECT_EQ(t, read_file("../hello.txt", buf, 16), 13);
	KTEST_EXPECT_EQ(t, read_file("/hello.txt", buf, 16), 13);
	KTEST_ASSERT_EQ(t, chdir("sub"), 0);
	expect_cwd(t, "/dir/sub");
	KTEST_ASSERT_EQ(t, chdir("../.."), 0);
	expect_cwd(t, "/");
	KTEST_ASSERT_EQ(t, chdir(".."), 0); /* ".." of the root is the root */
	expect_cwd(t, "/");
	/* getcwd names the directory, not the link that led there */
	KTEST_ASSERT_EQ(t, chdir("dir.lnk"), 0);
	expect_cwd(t, "/dir/sub");
	KTEST_EXPECT_EQ(t, stat(".", &st), 0);
	KTEST_EXPECT_EQ(t, read_file("b.txt", buf, 16), 4);
	/* fchdir */
	fd = open("/dir", O_RDONLY | O_DIRECTORY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, fchdir(fd), 0);
	close(fd);
	expect_cwd(t, "/dir");
	fd = open("/hello.txt", O_RDONLY);
	EXPECT_ERRNO(t, fchdir(fd), ENOTDIR);
	close(fd);
	EXPECT_ERRNO(t, fchdir(fd), EBADF);
	expect_cwd(t, "/dir");
}

static void cwd_errors(struct ktest *t)
{
	char buf[8], *p;

	need_root(t);
	EXPECT_ERRNO(t, chdir("/hello.txt"), ENOTDIR);
	EXPECT_ERRNO(t, chdir("/nonexistent"), ENOENT);
	EXPECT_ERRNO(t, chdir(""), ENOENT);
	EXPECT_ERRNO(t, chdir("/loop1"), ELOOP);
	expect_cwd(t, "/");
	KTEST_ASSERT_EQ(t, chdir("/dir/sub"), 0);
	errno = 0;
	KTEST_EXPECT_NULL(t, getcwd(buf, 8)); /* "/dir/sub" needs 9 */
	KTEST_EXPECT_EQ(t, errno, ERANGE);
	KTEST_EXPECT_NULL(t, getcwd(buf, 0));
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	p = getcwd(NULL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_STREQ(t, p, "/dir/sub");
	free(p);
	/* a removed working directory has no path */
	KTEST_ASSERT_EQ(t, mkdir("/t_gone", 0755), 0);
	KTEST_ASSERT_EQ(t, chdir("/t_gone"), 0);
	KTEST_ASSERT_EQ(t, rmdir("/t_gone"), 0);
	errno = 0;
	KTEST_EXPECT_NULL(t, getcwd(buf, sizeof(buf)));
	KTEST_EXPECT_EQ(t, errno, ENOENT);
	KTEST_EXPECT_EQ(t, chdir("/"), 0);
	expect_cwd(t, "/");
}

/* Every call that takes a path, with relative paths from /dir; checked
 * with absolute ones. */
static void cwd_relative_calls(struct ktest *t)
{
	struct timespec times[2] = { { .tv_sec = 100 }, { .tv_sec = 200 } };
	struct timespec later[2] = { { .tv_sec = 200 }, { .tv_sec = 200 } };
	char buf[16];
	struct statfs sf;
	struct stat st;
	DIR *d;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, chdir("/dir"), 0);
	KTEST_ASSERT_EQ(t, mkdir("t_rel", 0755), 0);
	KTEST_ASSERT_EQ(t, write_file("t_rel/f", "rel", 3), 0);
	KTEST_EXPECT_EQ(t, read_file("/dir/t_rel/f", buf, 16), 3);
	KTEST_EXPECT_EQ(t, link("t_rel/f", "t_rel/g"), 0);
	KTEST_EXPECT_EQ(t, stat("/dir/t_rel/g", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 2);
	KTEST_EXPECT_EQ(t, rename("t_rel/g", "t_rel/h"), 0);
	KTEST_EXPECT_EQ(t, stat("/dir/t_rel/h", &st), 0);
	KTEST_EXPECT_EQ(t, truncate("t_rel/h", 1), 0);
	KTEST_EXPECT_EQ(t, chmod("t_rel/h", 0600), 0);
	KTEST_EXPECT_EQ(t, utimensat(AT_FDCWD, "t_rel/h", times, 0), 0);
	KTEST_EXPECT_EQ(t, stat("/dir/t_rel/f", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, 1);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFREG | 0600);
	KTEST_EXPECT_EQ(t, st.st_mtim.tv_sec, 200);
	/* utimensat from a directory descriptor */
	fd = open("t_rel", O_RDONLY | O_DIRECTORY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, utimensat(fd, "f", later, 0), 0);
	KTEST_EXPECT_EQ(t, stat("/dir/t_rel/f", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_atim.tv_sec, 200);
	close(fd);
	fd = open("t_rel/f", O_RDONLY);
	EXPECT_ERRNO(t, utimensat(fd, "f", times, 0), ENOTDIR);
	close(fd);
	EXPECT_ERRNO(t, utimensat(fd, "f", times, 0), EBADF);
	KTEST_EXPECT_EQ(t, utimensat(fd, "/dir/t_rel/f", times, 0), 0);
	KTEST_EXPECT_EQ(t, symlink("f", "t_rel/l"), 0);
	KTEST_EXPECT_EQ(t, readlink("t_rel/l", buf, 16), 1);
	KTEST_EXPECT_EQ(t, lstat("t_rel/l", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISLNK(st.st_mode));
	KTEST_EXPECT_EQ(t, statfs("t_rel", &sf), 0);
	d = opendir("t_rel");
	KTEST_EXPECT_NOT_NULL(t, d);
	if (d)
		closedir(d);
	KTEST_EXPECT_EQ(t, unlink("t_rel/l"), 0);
	KTEST_EXPECT_EQ(t, unlink("t_rel/h"), 0);
	KTEST_EXPECT_EQ(t, unlink("t_rel/f"), 0);
	KTEST_EXPECT_EQ(t, rmdir("t_rel"), 0);
	EXPECT_ERRNO(t, stat("/dir/t_rel", &st), ENOENT);
}

struct child_result {
	char cwd[32];
	long read;
};

static int child_fn(void *arg)
{
	struct child_result *r = arg;
	char buf[8];

	if (!getcwd(r->cwd, sizeof(r->cwd)))
		r->cwd[0] = '\0';
	r->read = read_file("a.txt", buf, sizeof(buf));
	/* its own chdir does not move its creator */
	return chdir("/");
}

static void cwd_inherited(struct ktest *t)
{
	struct child_result r = { { 0 }, 0 };
	struct task *child;

	need_root(t);
	KTEST_ASSERT_EQ(t, chdir("/dir"), 0);
	child = task_create("cwd_child", child_fn, &r);
	KTEST_ASSERT_FALSE(t, IS_ERR(child));
	KTEST_EXPECT_EQ(t, task_join(child), 0);
	KTEST_EXPECT_STREQ(t, r.cwd, "/dir");
	KTEST_EXPECT_EQ(t, r.read, 2);
	expect_cwd(t, "/dir");
}

static struct ktest_case cwd_cases[] = {
	KTEST_CASE(cwd_chdir),
	KTEST_CASE(cwd_errors),
	KTEST_CASE(cwd_relative_calls),
	KTEST_CASE(cwd_inherited),
	{},
};
KTEST_SUITE(vfs_cwd, cwd_cases);

/*
 * fs/vfs_dir_test.c: directories (suite vfs_dir: readdir, mkdir/rmdir,
 * link, rename), the cksum command against the host's lines (vfs_cksum)
 * and a file left for the post-check to read back (vfs_persist), on the
 * vfs boots' image (tools/vfsimg.py; the files are listed in
 * fs/vfs_test.c). Split from fs/vfs_test.c, which has vfs_namei and
 * vfs_file.
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
#include <fs/internal.h>
#include <fs/vfs_test.h>

static uint8_t persist_byte(long i)
{
	return (i * 13 + 5) & 0xff;
}

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

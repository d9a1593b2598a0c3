/*
 * fs/symlink_test.c: symbolic links on the root ext2 (suite vfs_symlink).
 *
 * The vfs boots' image (tools/vfsimg.py, SKEL_LINKS) holds links that
 * mke2fs -d copied from a host folder; their targets are restated here:
 *   /hello.lnk -> hello.txt      /dir/up.lnk -> ../hello.txt
 *   /abs.lnk -> /dir/sub/b.txt   /dir.lnk -> dir/sub
 *   /slow.lnk -> "./" x 40 + "dir/a.txt" (89 bytes: in a block)
 *   /dangling.lnk -> nowhere     /loop1 -> loop2, /loop2 -> loop1
 * sym_persist leaves /made/fast.lnk and /made/slow.lnk (MADE_LINKS) for the
 * post-check, which reads them back on the host (debugfs rdump, readlink)
 * after e2fsck found the image clean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <kernel/err.h>
#include <fs/vfs_test.h>
#include <fs/ext2/ext2.h>

#define SLOW_TARGET_LEN 89

static void slow_target(char *buf)
{
	buf[0] = '\0';
	for (int i = 0; i < 40; i++)
		strcat(buf, "./");
	strcat(buf, "dir/a.txt");
}

/* readlink(@path) must give @want exactly. */
static void expect_link(struct ktest *t, const char *path, const char *want)
{
	char buf[PATH_MAX_LEN];
	long n = readlink(path, buf, sizeof(buf));

	KTEST_EXPECT_EQ(t, n, (long)strlen(want));
	if (n >= 0) {
		buf[n] = '\0';
		KTEST_EXPECT_STREQ(t, buf, want);
	}
}

static void sym_read_image(struct ktest *t)
{
	char slow[SLOW_TARGET_LEN + 1], buf[16];
	struct stat st;

	need_root(t);
	slow_target(slow);
	KTEST_ASSERT_EQ(t, strlen(slow), SLOW_TARGET_LEN);
	expect_link(t, "/hello.lnk", "hello.txt");
	expect_link(t, "/dir/up.lnk", "../hello.txt");
	expect_link(t, "/abs.lnk", "/dir/sub/b.txt");
	expect_link(t, "/dir.lnk", "dir/sub");
	expect_link(t, "/slow.lnk", slow);
	expect_link(t, "/dangling.lnk", "nowhere");
	/* lstat: the link itself, its size the target's length */
	KTEST_ASSERT_EQ(t, lstat("/slow.lnk", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISLNK(st.st_mode));
	KTEST_EXPECT_EQ(t, st.st_size, SLOW_TARGET_LEN);
	KTEST_EXPECT_GT(t, st.st_blocks, 0);
	KTEST_ASSERT_EQ(t, lstat("/hello.lnk", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISLNK(st.st_mode));
	KTEST_EXPECT_EQ(t, st.st_blocks, 0);
	/* stat and open follow */
	KTEST_ASSERT_EQ(t, stat("/hello.lnk", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISREG(st.st_mode));
	KTEST_EXPECT_EQ(t, st.st_size, 13);
	KTEST_EXPECT_EQ(t, read_file("/hello.lnk", buf, 16), 13);
	KTEST_EXPECT_EQ(t, read_file("/dir/up.lnk", buf, 16), 13);
	KTEST_EXPECT_EQ(t, read_file("/abs.lnk", buf, 16), 4);
	KTEST_EXPECT_EQ(t, read_file("/slow.lnk", buf, 16), 2);
	KTEST_EXPECT_MEMEQ(t, buf, "a\n", 2);
	KTEST_EXPECT_EQ(t, read_file("/dir.lnk/b.txt", buf, 16), 4);
	KTEST_EXPECT_MEMEQ(t, buf, "bee\n", 4);
	KTEST_EXPECT_EQ(t, stat("/dir.lnk", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISDIR(st.st_mode));
	KTEST_EXPECT_EQ(t, stat("/dir.lnk/", &st), 0);
	KTEST_EXPECT_EQ(t, lstat("/dir.lnk/", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISDIR(st.st_mode));
	KTEST_EXPECT_EQ(t, lstat("/dangling.lnk", &st), 0);
	EXPECT_ERRNO(t, stat("/dangling.lnk", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/loop1", &st), ELOOP);
	EXPECT_ERRNO(t, stat("/loop1/x", &st), ELOOP);
	EXPECT_ERRNO(t, stat("/hello.lnk/", &st), ENOTDIR);
	EXPECT_ERRNO(t, readlink("/hello.txt", buf, 16), EINVAL);
	EXPECT_ERRNO(t, readlink("/dir.lnk/", buf, 16), EINVAL);
	EXPECT_ERRNO(t, readlink("/hello.lnk", buf, 0), EINVAL);
	/* readlink truncates to the buffer, without a NUL */
	memset(buf, '#', sizeof(buf));
	KTEST_EXPECT_EQ(t, readlink("/hello.lnk", buf, 5), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "hello#", 6);
}

/* Free blocks and inodes: what "nothing changed on disk" compares. */
static void free_counts(struct ktest *t, long counts[2])
{
	struct statfs sf;

	KTEST_ASSERT_EQ(t, statfs("/", &sf), 0);
	counts[0] = sf.f_bfree;
	counts[1] = sf.f_ffree;
}

static void sym_create(struct ktest *t)
{
	long before[2], after[2], bs;
	char *target = malloc(PATH_MAX_LEN + 1);
	struct stat st;

	need_root(t);
	KTEST_ASSERT_NOT_NULL(t, target);
	KTEST_ASSERT_EQ(t, stat("/", &st), 0);
	bs = st.st_blksize;
	free_counts(t, before);
	/* fast: 59 bytes fit in i_block with a NUL, no block is taken */
	memset(target, 'f', 59);
	target[59] = '\0';
	KTEST_ASSERT_EQ(t, symlink(target, "/t_fast"), 0);
	expect_link(t, "/t_fast", target);
	KTEST_ASSERT_EQ(t, lstat("/t_fast", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_mode, S_IFLNK | 0777);
	KTEST_EXPECT_EQ(t, st.st_blocks, 0);
	free_counts(t, after);
	KTEST_EXPECT_EQ(t, after[0], before[0]);
	KTEST_EXPECT_EQ(t, after[1], before[1] - 1);
	/* slow: 60 bytes take one block; the longest is a block minus one */
	memset(target, 's', bs - 1);
	target[bs - 1] = '\0';
	KTEST_ASSERT_EQ(t, symlink(target, "/t_slow"), 0);
	expect_link(t, "/t_slow", target);
	KTEST_ASSERT_EQ(t, lstat("/t_slow", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_blocks, bs / 512);
	free_counts(t, after);
	KTEST_EXPECT_EQ(t, after[0], before[0] - 1);
	EXPECT_ERRNO(t, symlink("x", "/t_fast"), EEXIST);
	EXPECT_ERRNO(t, symlink("x", "/hello.txt"), EEXIST);
	EXPECT_ERRNO(t, symlink("x", "/dangling.lnk"), EEXIST);
	/* unlink frees the slow link's block, and nothing for the fast one */
	KTEST_EXPECT_EQ(t, unlink("/t_slow"), 0);
	KTEST_EXPECT_EQ(t, unlink("/t_fast"), 0);
	free_counts(t, after);
	KTEST_EXPECT_EQ(t, after[0], before[0]);
	KTEST_EXPECT_EQ(t, after[1], before[1]);
	free(target);
}

/* Bad input: each call fails with Linux's errno and takes nothing. */
static void sym_bad_input(struct ktest *t)
{
	long before[2], after[2], bs;
	char *s = malloc(PATH_MAX_LEN + 2);
	struct stat st;

	need_root(t);
	KTEST_ASSERT_NOT_NULL(t, s);
	KTEST_ASSERT_EQ(t, stat("/", &st), 0);
	bs = st.st_blksize;
	free_counts(t, before);
	EXPECT_ERRNO(t, symlink("", "/t_bad"), ENOENT);
	memset(s, 'x', bs); /* a block with no room for the NUL */
	s[bs] = '\0';
	EXPECT_ERRNO(t, symlink(s, "/t_bad"), ENAMETOOLONG);
	memset(s, 'x', PATH_MAX_LEN);
	s[PATH_MAX_LEN] = '\0';
	EXPECT_ERRNO(t, symlink(s, "/t_bad"), ENAMETOOLONG);
	EXPECT_ERRNO(t, lstat("/t_bad", &st), ENOENT);
	/* a name of 256 bytes */
	s[0] = '/';
	memset(s + 1, 'n', 256);
	s[257] = '\0';
	EXPECT_ERRNO(t, symlink("x", s), ENAMETOOLONG);
	EXPECT_ERRNO(t, mkdir(s, 0755), ENAMETOOLONG);
	EXPECT_ERRNO(t, open(s, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	/* a path of 4097 bytes (a PATH_MAX of 4096 counts the NUL) */
	for (int i = 0; i < PATH_MAX_LEN + 1; i++)
		s[i] = i % 2 ? 'p' : '/';
	s[PATH_MAX_LEN + 1] = '\0';
	EXPECT_ERRNO(t, symlink("x", s), ENAMETOOLONG);
	EXPECT_ERRNO(t, open(s, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	EXPECT_ERRNO(t, symlink("x", "/t_bad/"), ENOENT);
	EXPECT_ERRNO(t, symlink("x", "/nonexistent/t_bad"), ENOENT);
	EXPECT_ERRNO(t, symlink("x", "/hello.txt/t_bad"), ENOTDIR);
	EXPECT_ERRNO(t, open("/loop1", O_CREAT | O_WRONLY, 0644), ELOOP);
	free_counts(t, after);
	KTEST_EXPECT_EQ(t, after[0], before[0]);
	KTEST_EXPECT_EQ(t, after[1], before[1]);
	free(s);
}

/* 40 links in a row are followed; the 41st is -ELOOP (Linux's limit). */
static void sym_limit(struct ktest *t)
{
	char name[32], target[32], buf[16];
	struct stat st;

	need_root(t);
	KTEST_ASSERT_EQ(t, mkdir("/t_chain", 0755), 0);
	KTEST_ASSERT_EQ(t, symlink("/hello.txt", "/t_chain/l40"), 0);
	for (int i = 39; i >= 0; i--) {
		snprintf(name, sizeof(name), "/t_chain/l%d", i);
		snprintf(target, sizeof(target), "l%d", i + 1);
		KTEST_ASSERT_EQ(t, symlink(target, name), 0);
	}
	/* l1 -> ... -> l40 -> /hello.txt: 40 links */
	KTEST_EXPECT_EQ(t, stat("/t_chain/l1", &st), 0);
	KTEST_EXPECT_EQ(t, read_file("/t_chain/l1", buf, 16), 13);
	/* l0: 41 */
	EXPECT_ERRNO(t, stat("/t_chain/l0", &st), ELOOP);
	EXPECT_ERRNO(t, open("/t_chain/l0", O_RDONLY), ELOOP);
	KTEST_EXPECT_EQ(t, lstat("/t_chain/l0", &st), 0);
	for (int i = 0; i <= 40; i++) {
		snprintf(name, sizeof(name), "/t_chain/l%d", i);
		KTEST_EXPECT_EQ(t, unlink(name), 0);
	}
	KTEST_EXPECT_EQ(t, rmdir("/t_chain"), 0);
}

static void sym_open_flags(struct ktest *t)
{
	char buf[16];
	struct stat st;
	int fd;

	need_root(t);
	EXPECT_ERRNO(t, open("/hello.lnk", O_RDONLY | O_NOFOLLOW), ELOOP);
	EXPECT_ERRNO(
	    t, open("/hello.lnk", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
	EXPECT_ERRNO(
	    t,
	    open("/dangling.lnk", O_CREAT | O_NOFOLLOW | O_WRONLY, 0644),
	    ELOOP);
	/* a link in the middle is followed even with O_NOFOLLOW */
	fd = open("/dir.lnk/b.txt", O_RDONLY | O_NOFOLLOW);
	KTEST_EXPECT_GE(t, fd, 0);
	close(fd);
	/* O_CREAT through a dangling link makes its target */
	KTEST_ASSERT_EQ(t, symlink("t_target", "/t_dangle"), 0);
	fd = open("/t_dangle", O_CREAT | O_WRONLY, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, "made", 4), 4);
	close(fd);
	KTEST_EXPECT_EQ(t, read_file("/t_target", buf, 16), 4);
	KTEST_EXPECT_EQ(t, lstat("/t_dangle", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISLNK(st.st_mode));
	/* unlink and rename act on the link, not its target */
	KTEST_EXPECT_EQ(t, rename("/t_dangle", "/t_moved"), 0);
	expect_link(t, "/t_moved", "t_target");
	KTEST_EXPECT_EQ(t, unlink("/t_moved"), 0);
	KTEST_EXPECT_EQ(t, stat("/t_target", &st), 0);
	/* link() links the symbolic link itself (Linux) */
	KTEST_EXPECT_EQ(t, link("/hello.lnk", "/t_hard"), 0);
	KTEST_EXPECT_EQ(t, lstat("/t_hard", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISLNK(st.st_mode));
	KTEST_EXPECT_EQ(t, st.st_nlink, 2);
	KTEST_EXPECT_EQ(t, unlink("/t_hard"), 0);
	KTEST_EXPECT_EQ(t, unlink("/t_target"), 0);
	EXPECT_ERRNO(t, rmdir("/dir.lnk"), ENOTDIR);
	EXPECT_ERRNO(t, mkdir("/hello.lnk", 0755), EEXIST);
}

/*
 * A fast link's i_block holds text, never block numbers: unlinking it
 * must free nothing, even when its bytes happen to name a live block.
 * Text without NULs cannot name a block below 0x01010101, past what the
 * test images hold, so the test writes /hello.txt's block number into
 * the link's i_block itself, as a 16M-block filesystem could see.
 */
static void sym_fast_unlink_frees_nothing(struct ktest *t)
{
	struct inode *file, *link;
	long before[2], after[2];
	uint32_t pblk = 0;
	char buf[16];

	need_root(t);
	file = vfs_lookup("/hello.txt");
	KTEST_ASSERT_FALSE(t, IS_ERR(file));
	KTEST_EXPECT_EQ(t, ext2_get_block(file, 0, false, &pblk, NULL), 0);
	iput(file);
	KTEST_ASSERT_NE(t, pblk, 0);
	free_counts(t, before);
	KTEST_ASSERT_EQ(t, symlink("abcd", "/t_text"), 0);
	link = vfs_lookup_flags("/t_text", 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(link));
	KTEST_EXPECT_TRUE(t, ext2_inode_is_fast_symlink(link));
	mutex_lock(&EXT2_I(link)->i_map_lock);
	EXT2_I(link)->i_data[0] = pblk;
	mutex_unlock(&EXT2_I(link)->i_map_lock);
	iput(link);
	KTEST_EXPECT_EQ(t, unlink("/t_text"), 0);
	free_counts(t, after);
	KTEST_EXPECT_EQ(t, after[0], before[0]);
	KTEST_EXPECT_EQ(t, after[1], before[1]);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	KTEST_EXPECT_EQ(t, read_file("/hello.txt", buf, 16), 13);
	KTEST_EXPECT_MEMEQ(t, buf, "hello, world\n", 13);
}

static void sym_persist(struct ktest *t)
{
	char *slow = malloc(1001);

	need_root(t);
	KTEST_ASSERT_NOT_NULL(t, slow);
	slow[0] = '/';
	memset(slow + 1, 'd', 98);
	slow[99] = '/';
	memset(slow + 100, 'x', 900);
	slow[1000] = '\0';
	KTEST_ASSERT_EQ(t, mkdir("/made", 0755), 0);
	KTEST_EXPECT_EQ(t, symlink("../hello.txt", "/made/fast.lnk"), 0);
	KTEST_EXPECT_EQ(t, symlink(slow, "/made/slow.lnk"), 0);
	expect_link(t, "/made/slow.lnk", slow);
	free(slow);
}

static struct ktest_case symlink_cases[] = {
	KTEST_CASE(sym_read_image), KTEST_CASE(sym_create),
	KTEST_CASE(sym_bad_input),  KTEST_CASE(sym_limit),
	KTEST_CASE(sym_open_flags), KTEST_CASE(sym_fast_unlink_frees_nothing),
	KTEST_CASE(sym_persist),    {},
};
KTEST_SUITE(vfs_symlink, symlink_cases);

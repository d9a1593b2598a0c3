/*
 * fs/errseq_test.c: suite vfs_errseq - writeback errors as a real device
 * gives them, reported as Linux's errseq reports them.
 *
 * The errseq boot's image (tools/errimg.py) sits behind QEMU's blkdebug,
 * which fails every write to the first block of /wfail.bin and of
 * /evict.bin and every read of the second block of /rfail.bin. The cases
 * run in order; each leaves the errors it made heard by every file the
 * next one opens. The post-check reads the image with e2fsck and debugfs:
 * consistent, the failed blocks as mke2fs wrote them, /good.bin and the
 * block written to /rfail.bin as written here.
 */
#include <limits.h>
#include <string.h>
#include <fs/vfs_test.h>
#include <mm/kmalloc.h>

#define BLK 4096 /* the image's block size */

static void fill(char *buf, char c)
{
	memset(buf, c, BLK);
}

/* An error met by sync reaches every file open on the inode once, at its
 * fsync; sync and drop_caches consume nothing. */
static void errseq_each_open_file_once(struct ktest *t)
{
	char *buf = kmalloc(BLK, GFP_KERNEL);
	int fa, fb, fc;

	need_root(t);
	KTEST_ASSERT_NOT_NULL(t, buf);
	fa = open("/wfail.bin", O_RDWR);
	fb = open("/wfail.bin", O_RDONLY);
	KTEST_ASSERT_GE(t, fa, 0);
	KTEST_ASSERT_GE(t, fb, 0);
	fill(buf, 'N');
	KTEST_EXPECT_EQ(t, pwrite(fa, buf, BLK, 0), BLK);
	sync(); /* the write fails here */
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	sync();
	EXPECT_ERRNO(t, fsync(fa), EIO);
	KTEST_EXPECT_EQ(t, fsync(fa), 0);
	EXPECT_ERRNO(t, fdatasync(fb), EIO);
	KTEST_EXPECT_EQ(t, fsync(fb), 0);
	/* opened after both heard it: no news */
	fc = open("/wfail.bin", O_RDONLY);
	KTEST_ASSERT_GE(t, fc, 0);
	KTEST_EXPECT_EQ(t, fsync(fc), 0);
	/* a new error is news again, to each */
	KTEST_EXPECT_EQ(t, pwrite(fa, buf, 100, 7), 100);
	EXPECT_ERRNO(t, fsync(fa), EIO); /* met by this very fsync */
	EXPECT_ERRNO(t, fsync(fc), EIO);
	EXPECT_ERRNO(t, fsync(fb), EIO);
	KTEST_EXPECT_EQ(t, fsync(fb), 0);
	close(fa);
	close(fb);
	close(fc);
	kfree(buf);
}

/* An error no file was open to hear goes to the next file opened. */
static void errseq_unheard_error_reaches_next_open(struct ktest *t)
{
	char buf[64];
	int fd;

	need_root(t);
	memset(buf, 'L', sizeof(buf));
	fd = open("/wfail.bin", O_WRONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, sizeof(buf), 0), sizeof(buf));
	close(fd);
	sync();
	fd = open("/wfail.bin", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	EXPECT_ERRNO(t, fsync(fd), EIO);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	close(fd);
}

/* The filesystem keeps the error of an inode that is gone: syncfs on any
 * of its files hears it once. */
static void errseq_evicted_inode_reaches_syncfs(struct ktest *t)
{
	char buf[64];
	int root, fd;

	need_root(t);
	memset(buf, 'E', sizeof(buf));
	root = open("/", O_RDONLY);
	KTEST_ASSERT_GE(t, root, 0);
	syncfs(root); /* the earlier cases' errors: heard, whatever they were */
	KTEST_EXPECT_EQ(t, syncfs(root), 0);
	fd = open("/evict.bin", O_WRONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, sizeof(buf), 0), sizeof(buf));
	close(fd);
	sync();
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	prune_icache(vfs_root_sb(), ULONG_MAX);
	EXPECT_ERRNO(t, syncfs(root), EIO);
	KTEST_EXPECT_EQ(t, syncfs(root), 0);
	/* The inode was evicted, its mapping's record with it: were it still
	 * cached, this new file would hear the unheard error at fsync. */
	fd = open("/evict.bin", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	close(fd);
	close(root);
	EXPECT_ERRNO(t, syncfs(root), EBADF);
}

/* A failed read returns -EIO to its reader and is no writeback error. */
static void errseq_read_error_is_not_a_write_error(struct ktest *t)
{
	char *buf = kmalloc(BLK, GFP_KERNEL), *want = kmalloc(BLK, GFP_KERNEL);
	int fd;

	need_root(t);
	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_NOT_NULL(t, want);
	fd = open("/rfail.bin", O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	EXPECT_ERRNO(t, pread(fd, buf, BLK, BLK), EIO);
	EXPECT_ERRNO(t, pread(fd, buf, 10, BLK + 100), EIO); /* again */
	fill(want, 'r');
	KTEST_EXPECT_EQ(t, pread(fd, buf, BLK, 0), BLK); /* its neighbour */
	KTEST_EXPECT_MEMEQ(t, buf, want, BLK);
	fill(buf, 'W');
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, BLK, 2 * BLK), BLK);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	close(fd);
	kfree(buf);
	kfree(want);
}

/* Beside the failing blocks, a new file is written and fsynced as always
 * (the post-check compares its bytes). */
static void errseq_other_files_unaffected(struct ktest *t)
{
	char *buf = kmalloc(3 * BLK, GFP_KERNEL);
	int fd;

	need_root(t);
	KTEST_ASSERT_NOT_NULL(t, buf);
	for (int i = 0; i < 3 * BLK; i++)
		buf[i] = (char)('a' + i % 23);
	fd = open("/good.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, buf, 3 * BLK), 3 * BLK);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	close(fd);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
	kfree(buf);
}

static struct ktest_case errseq_cases[] = {
	KTEST_CASE(errseq_each_open_file_once),
	KTEST_CASE(errseq_unheard_error_reaches_next_open),
	KTEST_CASE(errseq_evicted_inode_reaches_syncfs),
	KTEST_CASE(errseq_read_error_is_not_a_write_error),
	KTEST_CASE(errseq_other_files_unaffected),
	{},
};
KTEST_SUITE(vfs_errseq, errseq_cases);

/*
 * fs/ext2/ext2_bad_test.c: suite ext2_bad - corrupt images made by
 * tools/mkbadimg.py; bootarg ext2.bad=KIND says which one this boot has.
 * Each must fail cleanly (the mount, or the operation with -EIO/-EUCLEAN),
 * never panic or hang; the host checks the console message and that no
 * block outside the filesystem's data was written.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/bootargs.h>
#include <kernel/err.h>
#include <fs/vfs.h>
#include "ext2_test.h"

static bool corrupt(long err)
{
	return err == -EUCLEAN || err == -EIO;
}

static void bad_kind(struct ktest *t, char *kind, size_t len)
{
	if (!bootarg_get("ext2.bad", kind, len))
		ktest_fail(t, __FILE__, __LINE__, "no ext2.bad= boot argument");
}

/* trunc, magic, zero, geometry, incompat: no root, and mounting again
 * fails the same way. */
static void bad_mount(struct ktest *t)
{
	char kind[16] = "";
	struct block_device *bdev = blkdev_get("vda");
	bool must_fail;

	bad_kind(t, kind, sizeof(kind));
	must_fail = strcmp(kind, "rocompat") && strcmp(kind, "reclen") &&
		    strcmp(kind, "blocknr") && strcmp(kind, "ino");
	KTEST_ASSERT_NOT_NULL(t, bdev);
	if (!must_fail) {
		KTEST_EXPECT_NOT_NULL(t, vfs_root_sb());
		return;
	}
	KTEST_EXPECT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_LT(t, vfs_mount_root("ext2", bdev), 0);
}

static void bad_rocompat(struct ktest *t)
{
	char kind[16] = "";
	struct file *f;

	bad_kind(t, kind, sizeof(kind));
	if (strcmp(kind, "rocompat"))
		return;
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_TRUE(t, vfs_root_sb()->s_rdonly);
	ext2_test_check(t, "/f4097", 4, 0, 4097);
	f = vfs_open("/new", O_WRONLY | O_CREAT, 0644);
	KTEST_EXPECT_TRUE(t, IS_ERR(f));
	if (!IS_ERR(f))
		fput(f);
	KTEST_EXPECT_LT(t, vfs_mkdir("/newdir", 0755), 0);
}

static void bad_entries(struct ktest *t)
{
	char kind[16] = "";
	struct inode *inode;
	struct file *f;

	bad_kind(t, kind, sizeof(kind));
	if (strcmp(kind, "reclen") && strcmp(kind, "ino"))
		return;
	/* The entry the image broke, and a name past it. */
	inode = vfs_lookup("/bad/victim");
	KTEST_EXPECT_TRUE(t, IS_ERR(inode) && corrupt(PTR_ERR(inode)));
	if (!IS_ERR(inode))
		iput(inode);
	f = vfs_open("/bad/new", O_WRONLY | O_CREAT, 0644);
	KTEST_EXPECT_TRUE(t, IS_ERR(f) && corrupt(PTR_ERR(f)));
	if (!IS_ERR(f))
		fput(f);
	/* Good directories still work. */
	ext2_test_check(t, "/f4097", 4, 0, 4097);
}

static void bad_blocks(struct ktest *t)
{
	char kind[16] = "", buf[64];
	struct file *f;
	loff_t pos = 0;
	int err;

	bad_kind(t, kind, sizeof(kind));
	if (strcmp(kind, "blocknr"))
		return;
	/* i_block[0] past the end of the device. */
	f = vfs_open("/far", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_TRUE(t, corrupt(vfs_read(f, buf, sizeof(buf), &pos)));
	fput(f);
	/* i_block[0] on the inode table: neither read nor written. */
	f = vfs_open("/meta", O_RDWR, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	pos = 0;
	KTEST_EXPECT_TRUE(t, corrupt(vfs_read(f, buf, sizeof(buf), &pos)));
	memset(buf, 0xee, sizeof(buf));
	pos = 0;
	KTEST_EXPECT_TRUE(t, corrupt(vfs_write(f, buf, sizeof(buf), &pos)));
	fput(f);
	/* Syncing goes on; the page cache may report the failed I/O again. */
	err = vfs_sync();
	KTEST_EXPECT_TRUE(t, err == 0 || err == -EIO);
}

static struct ktest_case ext2_bad_cases[] = {
	KTEST_CASE(bad_mount),
	KTEST_CASE(bad_rocompat),
	KTEST_CASE(bad_entries),
	KTEST_CASE(bad_blocks),
	{},
};
KTEST_SUITE(ext2_bad, ext2_bad_cases);

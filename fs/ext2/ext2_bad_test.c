/*
 * fs/ext2/ext2_bad_test.c: suites ext2_bad_* - corrupt images made by
 * tools/mkbadimg.py, one suite per kind of damage, each run only in the
 * boot whose image has that damage (bootarg ext2.bad=KIND; a suite in a
 * boot of another kind fails, so no case passes by having nothing to do):
 *   ext2_bad_mount     trunc, magic, zero, incompat, rootfile: the mount
 *                      is refused
 *   ext2_bad_rocompat  rocompat: mounted read-only, writes refused
 *   ext2_bad_entries   reclen, ino: the broken entry fails -EUCLEAN/-EIO;
 *                      and an entry naming its own directory -ELOOP
 *   ext2_bad_blocks    blocknr: blocks outside the data area, never used
 * Each must fail cleanly, never panic or hang; the host checks that the
 * suite's console names the cause and that no block outside the
 * filesystem's data was written (tools/boots.py).
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

/* The boot's ext2.bad= kind must be one of @kinds (NULL-terminated). */
static void require_kind(struct ktest *t, const char *const *kinds)
{
	char kind[16] = "";

	if (!bootarg_get("ext2.bad", kind, sizeof(kind))) {
		ktest_fail(t, __FILE__, __LINE__, "no ext2.bad= boot argument");
		ktest_abort(t);
	}
	for (; *kinds; kinds++)
		if (!strcmp(kind, *kinds))
			return;
	ktest_fail(
	    t, __FILE__, __LINE__, "ext2.bad=%s: not this suite's", kind);
	ktest_abort(t);
}

static const char *const mount_kinds[] = { "trunc",    "magic",	   "zero",
					   "incompat", "rootfile", NULL };

/* The boot-time root mount was refused; mounting again fails the same
 * way: -EINVAL for a bad superblock (as Linux's ext2), -EUCLEAN for a
 * root inode that is not a directory. A refused mount leaves none of its
 * inodes cached (the root inode it read would point at a freed superblock,
 * and be found again by the next mount whose superblock lands at the same
 * address); with no root mounted, the inode cache is empty. */
static void mount_refused(struct ktest *t)
{
	struct block_device *bdev = blkdev_get("vda");
	char kind[16] = "";

	require_kind(t, mount_kinds);
	bootarg_get("ext2.bad", kind, sizeof(kind));
	KTEST_ASSERT_NOT_NULL(t, bdev);
	KTEST_EXPECT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_EQ(t, icache_unused(), 0);
	KTEST_EXPECT_EQ(t,
			vfs_mount_root("ext2", bdev),
			strcmp(kind, "rootfile") ? -EINVAL : -EUCLEAN);
	KTEST_EXPECT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_EQ(t, icache_unused(), 0);
}

static struct ktest_case ext2_bad_mount_cases[] = {
	KTEST_CASE(mount_refused),
	{},
};
KTEST_SUITE(ext2_bad_mount, ext2_bad_mount_cases);

static const char *const rocompat_kinds[] = { "rocompat", NULL };

/* Unmounted and mounted again, the root is read-only again. */
static void remount_is_read_only(struct ktest *t)
{
	struct block_device *bdev = blkdev_get("vda");

	require_kind(t, rocompat_kinds);
	KTEST_ASSERT_NOT_NULL(t, bdev);
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_TRUE(t, vfs_root_sb()->s_rdonly);
	KTEST_ASSERT_EQ(t, vfs_unmount_root(), 0);
	KTEST_ASSERT_EQ(t, vfs_mount_root("ext2", bdev), 0);
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_TRUE(t, vfs_root_sb()->s_rdonly);
}

/* Reads work; creating a file or a folder fails -EROFS. */
static void writes_refused(struct ktest *t)
{
	struct file *f;

	require_kind(t, rocompat_kinds);
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	ext2_test_check(t, "/f4097", 4, 0, 4097);
	f = vfs_open("/new", O_WRONLY | O_CREAT, 0644);
	KTEST_EXPECT_EQ(t, IS_ERR(f) ? PTR_ERR(f) : 0, -EROFS);
	if (!IS_ERR(f))
		fput(f);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/newdir", 0755), -EROFS);
}

static struct ktest_case ext2_bad_rocompat_cases[] = {
	KTEST_CASE(remount_is_read_only),
	KTEST_CASE(writes_refused),
	{},
};
KTEST_SUITE(ext2_bad_rocompat, ext2_bad_rocompat_cases);

static const char *const entries_kinds[] = { "reclen", "ino", NULL };

/* The entry the image broke, and a name created past it, fail. */
static void broken_entry_fails(struct ktest *t)
{
	struct inode *inode;
	struct file *f;

	require_kind(t, entries_kinds);
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	inode = vfs_lookup("/bad/victim");
	KTEST_EXPECT_TRUE(t, IS_ERR(inode) && corrupt(PTR_ERR(inode)));
	if (!IS_ERR(inode))
		iput(inode);
	f = vfs_open("/bad/new", O_WRONLY | O_CREAT, 0644);
	KTEST_EXPECT_TRUE(t, IS_ERR(f) && corrupt(PTR_ERR(f)));
	if (!IS_ERR(f))
		fput(f);
}

/*
 * loop/self names loop itself: every call that would lock the directory
 * and then the entry's inode (unlink, rmdir, rename) refuses with -ELOOP,
 * as a look-up does, instead of taking the directory's lock twice.
 */
static void entry_naming_its_dir(struct ktest *t)
{
	struct inode *inode;
	long err;

	require_kind(t, entries_kinds);
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	inode = vfs_lookup("/loop/self");
	err = IS_ERR(inode) ? PTR_ERR(inode) : 0;
	if (!IS_ERR(inode))
		iput(inode);
	/* else the calls below would hang, not fail */
	KTEST_ASSERT_EQ(t, err, -ELOOP);
	KTEST_EXPECT_EQ(t, vfs_unlink("/loop/self"), -ELOOP);
	KTEST_EXPECT_EQ(t, vfs_rmdir("/loop/self"), -ELOOP);
	KTEST_EXPECT_EQ(t, vfs_rename("/loop/self", "/moved"), -ELOOP);
	KTEST_EXPECT_EQ(t, vfs_rename("/f4097", "/loop/self"), -ELOOP);
	inode = vfs_lookup("/loop");
	KTEST_ASSERT_FALSE(t, IS_ERR(inode));
	KTEST_EXPECT_TRUE(t, S_ISDIR(inode->i_mode));
	iput(inode);
	ext2_test_check(t, "/f4097", 4, 0, 4097);
}

static void good_directories_work(struct ktest *t)
{
	require_kind(t, entries_kinds);
	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	ext2_test_check(t, "/f4097", 4, 0, 4097);
}

static struct ktest_case ext2_bad_entries_cases[] = {
	KTEST_CASE(broken_entry_fails),
	KTEST_CASE(entry_naming_its_dir),
	KTEST_CASE(good_directories_work),
	{},
};
KTEST_SUITE(ext2_bad_entries, ext2_bad_entries_cases);

static const char *const blocks_kinds[] = { "blocknr", NULL };

/* /far's i_block[0] is past the end of the device. */
static void block_past_device(struct ktest *t)
{
	char buf[64];
	loff_t pos = 0;
	struct file *f;

	require_kind(t, blocks_kinds);
	f = vfs_open("/far", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_TRUE(t, corrupt(vfs_read(f, buf, sizeof(buf), &pos)));
	fput(f);
}

/* /meta's i_block[0] is on the inode table: neither read nor written;
 * syncing goes on (the page cache may report the failed I/O again). */
static void block_on_metadata(struct ktest *t)
{
	char buf[64];
	loff_t pos = 0;
	struct file *f;
	int err;

	require_kind(t, blocks_kinds);
	f = vfs_open("/meta", O_RDWR, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_TRUE(t, corrupt(vfs_read(f, buf, sizeof(buf), &pos)));
	memset(buf, 0xee, sizeof(buf));
	pos = 0;
	KTEST_EXPECT_TRUE(t, corrupt(vfs_write(f, buf, sizeof(buf), &pos)));
	fput(f);
	err = vfs_sync();
	KTEST_EXPECT_TRUE(t, err == 0 || err == -EIO);
}

static struct ktest_case ext2_bad_blocks_cases[] = {
	KTEST_CASE(block_past_device),
	KTEST_CASE(block_on_metadata),
	{},
};
KTEST_SUITE(ext2_bad_blocks, ext2_bad_blocks_cases);

/*
 * fs/ext2/ext4_bad_test.c: suite ext4_bad - damaged ext4 metadata is
 * refused with Linux's errno and a console line, never read through,
 * never written (tools/ext4img.py damages the files under /bad after
 * e2fsck found the image clean; the boot's post-check finds every image
 * unchanged and each message on the console):
 *   /bad/magic, entries, depth    a bad extent-tree root: EUCLEAN on look-up
 *   /bad/far                      an extent past the end: EUCLEAN
 *   /bad/overlap                  two extents overlapping: EUCLEAN
 *   /bad/leafmagic, leafcsum      a bad leaf block (magic, checksum): the
 *                                 file opens, its read fails EIO (a failed
 *                                 page read, as on Linux)
 *   /bad/inodecsum                the inode's checksum: EBADMSG (EFSBADCRC)
 *   /bad/dcsum                    a directory block's checksum: EBADMSG
 *   /bad/dxbad                    an htree root of an unknown hash: the
 *                                 directory is searched linearly instead
 * and the mounts of the disks vdb..vde: a bad superblock or group
 * descriptor checksum (EBADMSG), a clean journal (mounted read-only), a
 * journal that needs recovery (refused, EINVAL); an ext4 image as "ext2"
 * (refused: extents are an incompat feature).
 */
#include <errno.h>
#include <fcntl.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <fs/vfs.h>
#include "ext2.h"
#include "ext2_test.h"

static long lookup_err(const char *path)
{
	struct inode *inode = vfs_lookup(path);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	iput(inode);
	return 0;
}

static void bad_root_refused(struct ktest *t)
{
	static const char *const paths[] = { "/bad/magic",
					     "/bad/entries",
					     "/bad/depth",
					     "/bad/far",
					     "/bad/overlap" };

	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		ktest_log(t, "%s", paths[i]);
		KTEST_EXPECT_EQ(t, lookup_err(paths[i]), -EUCLEAN);
	}
}

static void bad_leaf_read_fails(struct ktest *t)
{
	static const char *const paths[] = { "/bad/leafmagic",
					     "/bad/leafcsum" };
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct file *f = vfs_open(paths[i], O_RDONLY, 0);
		loff_t pos = 0;

		KTEST_ASSERT_FALSE(t, IS_ERR(f));
		KTEST_EXPECT_EQ(t, vfs_read(f, buf, sizeof(buf), &pos), -EIO);
		fput(f);
	}
}

static void bad_checksums(struct ktest *t)
{
	struct file *f;
	struct dir_context ctx = { 0 };

	KTEST_EXPECT_EQ(t, lookup_err("/bad/inodecsum"), -EBADMSG);
	KTEST_EXPECT_EQ(t, lookup_err("/bad/dcsum/x"), -EBADMSG);
	f = vfs_open("/bad/dcsum", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_readdir(f, &ctx), -EBADMSG);
	fput(f);
	/* the rest of the filesystem reads on */
	ext2_test_check(t, "/hello", 1, 0, 11);
}

/* /bad/dxbad's htree root names an unknown hash version (its checksum is
 * right): the look-up reports it and scans the directory instead. */
static void bad_htree_searched_linearly(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();
	unsigned long dx;

	KTEST_ASSERT_NOT_NULL(t, sb);
	dx = __atomic_load_n(&EXT2_SBI(sb)->s_dx_lookups, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, lookup_err("/bad/dxbad/n000"), 0);
	KTEST_EXPECT_EQ(t, lookup_err("/bad/dxbad/n599"), 0);
	KTEST_EXPECT_EQ(t, lookup_err("/bad/dxbad/n600"), -ENOENT);
	KTEST_EXPECT_EQ(
	    t,
	    __atomic_load_n(&EXT2_SBI(sb)->s_dx_lookups, __ATOMIC_RELAXED),
	    dx);
}

static long mount(const char *type, const char *disk)
{
	struct block_device *bdev = blkdev_get(disk);

	return bdev ? vfs_mount_root(type, bdev) : -ENODEV;
}

/* Root unmounted, each disk's mount, then the root mounted back. */
static void mounts_refused(struct ktest *t)
{
	KTEST_ASSERT_EQ(t, vfs_unmount_root(), 0);
	KTEST_EXPECT_EQ(t, mount("ext4", "vdb"), -EBADMSG); /* superblock */
	KTEST_EXPECT_EQ(t, mount("ext4", "vdc"), -EBADMSG); /* descriptor */
	KTEST_EXPECT_EQ(t, mount("ext4", "vde"), -EINVAL);  /* recovery */
	KTEST_EXPECT_EQ(t, mount("ext2", "vda"), -EINVAL);  /* extents */
	KTEST_EXPECT_NULL(t, vfs_root_sb());
	KTEST_EXPECT_EQ(t, icache_unused(), 0);
	KTEST_ASSERT_EQ(t, mount("ext4", "vdd"), 0); /* a clean journal */
	KTEST_EXPECT_TRUE(t, vfs_root_sb()->s_rdonly);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/d", 0755), -EROFS);
	KTEST_ASSERT_EQ(t, vfs_unmount_root(), 0);
	KTEST_ASSERT_EQ(t, mount("ext4", "vda"), 0);
	ext2_test_check(t, "/hello", 1, 0, 11);
}

static struct ktest_case ext4_bad_cases[] = {
	KTEST_CASE(bad_root_refused), KTEST_CASE(bad_leaf_read_fails),
	KTEST_CASE(bad_checksums),    KTEST_CASE(bad_htree_searched_linearly),
	KTEST_CASE(mounts_refused),   {},
};
KTEST_SUITE(ext4_bad, ext4_bad_cases);

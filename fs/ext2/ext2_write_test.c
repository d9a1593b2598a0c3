/*
 * fs/ext2/ext2_write_test.c: suite ext2_write - the write workloads whose
 * end state tools/ext2tree.py (expected_after_write) checks on the host
 * with e2fsck -fn and debugfs dumps after the boot. Keep the two in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <mm/filemap.h>
#include <fs/internal.h>
#include <fs/vfs.h>
#include "ext2_test.h"

#define KiB  1024ULL
#define GiB  (1024ULL * 1024 * 1024)
#define NPAR 4

static int truncate_path(const char *path, loff_t size)
{
	struct inode *inode = vfs_lookup(path);
	int err;

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	err = vfs_truncate(inode, size);
	iput(inode);
	return err;
}

static void write_basic(struct ktest *t)
{
	KTEST_ASSERT_EQ(t, vfs_mkdir("/w", 0755), 0);
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/created", 1, 0, 10000), 0);
	ext2_test_check(t, "/w/created", 1, 0, 10000);

	KTEST_EXPECT_EQ(t, ext2_test_write("/w/over", 2, 0, 8192), 0);
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/over", 3, 100, 5000), 0);
	ext2_test_check(t, "/w/over", 2, 0, 100);
	ext2_test_check(t, "/w/over", 3, 100, 5000);
	ext2_test_check(t, "/w/over", 2, 5100, 8192 - 5100);

	for (int i = 0; i < 3; i++)
		KTEST_EXPECT_EQ(
		    t, ext2_test_write("/w/append", 4, i * 3000, 3000), 0);
	KTEST_EXPECT_EQ(t, ext2_test_size("/w/append"), 9000);
	ext2_test_check(t, "/w/append", 4, 0, 9000);
}

static void write_truncate(struct ktest *t)
{
	struct file *f;

	KTEST_EXPECT_EQ(t, ext2_test_write("/w/trunc_down", 5, 0, 300000), 0);
	KTEST_EXPECT_EQ(t, truncate_path("/w/trunc_down", 5000), 0);
	KTEST_EXPECT_EQ(t, ext2_test_size("/w/trunc_down"), 5000);
	ext2_test_check(t, "/w/trunc_down", 5, 0, 5000);

	KTEST_EXPECT_EQ(t, ext2_test_write("/w/trunc_up", 6, 0, 1000), 0);
	KTEST_EXPECT_EQ(t, truncate_path("/w/trunc_up", 200000), 0);
	ext2_test_check(t, "/w/trunc_up", 6, 0, 1000);
	ext2_test_check(t, "/w/trunc_up", -1, 1000, 199000);

	/* Past 5 GiB: triple indirect with either block size. */
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/sparse3", 12, 0, 100), 0);
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/sparse3", 12, 5 * GiB, 4096), 0);
	ext2_test_check(t, "/w/sparse3", 12, 5 * GiB, 4096);
	ext2_test_check(t, "/w/sparse3", -1, 4 * GiB, 4096);
	f = vfs_open("/w/sparse3", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 4096, SEEK_DATA), 5 * GiB);
	fput(f);
	KTEST_EXPECT_EQ(t, truncate_path("/w/sparse3", 8192), 0);
	ext2_test_check(t, "/w/sparse3", 12, 0, 100);
	ext2_test_check(t, "/w/sparse3", -1, 100, 8092);
}

static void write_names(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/unlinked", 1, 0, 50000), 0);
	KTEST_EXPECT_EQ(t, vfs_unlink("/w/unlinked"), 0);
	KTEST_EXPECT_EQ(t, ext2_test_size("/w/unlinked"), -ENOENT);

	KTEST_EXPECT_EQ(t, ext2_test_write("/w/torename", 7, 0, 777), 0);
	KTEST_EXPECT_EQ(t, vfs_rename("/w/torename", "/w/renamed"), 0);
	KTEST_EXPECT_EQ(t, ext2_test_size("/w/torename"), -ENOENT);
	ext2_test_check(t, "/w/renamed", 7, 0, 777);

	KTEST_EXPECT_EQ(t, ext2_test_write("/w/target", 13, 0, 50), 0);
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/src", 8, 0, 888), 0);
	KTEST_EXPECT_EQ(t, vfs_rename("/w/src", "/w/target"), 0);
	KTEST_EXPECT_EQ(t, ext2_test_size("/w/target"), 888);
	ext2_test_check(t, "/w/target", 8, 0, 888);

	KTEST_EXPECT_EQ(t, ext2_test_write("/w/hard", 9, 0, 500), 0);
	KTEST_EXPECT_EQ(t, vfs_link("/w/hard", "/w/hard2"), 0);
	ext2_test_check(t, "/w/hard2", 9, 0, 500);

	KTEST_EXPECT_EQ(t, vfs_mkdir("/w/a", 0755), 0);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/w/a/b", 0755), 0);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/w/a/b/c", 0755), 0);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/w/a/b/c/d", 0755), 0);
	KTEST_EXPECT_EQ(t, ext2_test_write("/w/a/b/c/d/f", 11, 0, 50000), 0);
	KTEST_EXPECT_EQ(t, vfs_rmdir("/w/a/b"), -ENOTEMPTY);
	/* A directory moves to another parent: its ".." follows. */
	KTEST_EXPECT_EQ(t, vfs_rename("/w/a/b/c", "/w/c2"), 0);
	ext2_test_check(t, "/w/c2/d/f", 11, 0, 50000);
	ext2_test_check(t, "/w/c2/d/../../c2/d/f", 11, 0, 50000);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/w/rmme", 0755), 0);
	KTEST_EXPECT_EQ(t, vfs_rmdir("/w/rmme"), 0);
	KTEST_EXPECT_EQ(t, vfs_rmdir("/w/a/b"), 0);
}

static void write_many(struct ktest *t)
{
	char path[32];

	KTEST_ASSERT_EQ(t, vfs_mkdir("/w/many", 0755), 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "/w/many/n%04d", i);
		KTEST_ASSERT_EQ(t, ext2_test_write(path, i & 0xff, 0, 100), 0);
	}
	for (int i = 1; i < 1000; i += 2) {
		snprintf(path, sizeof(path), "/w/many/n%04d", i);
		KTEST_ASSERT_EQ(t, vfs_unlink(path), 0);
	}
	for (int i = 0; i < 1000; i += 50) {
		snprintf(path, sizeof(path), "/w/many/n%04d", i);
		ext2_test_check(t, path, i & 0xff, 0, 100);
	}
}

static int par_work(int n)
{
	char path[32];
	int err;

	snprintf(path, sizeof(path), "/w/par/t%d", n);
	for (int i = 0; i < 16; i++) {
		err = ext2_test_write(path, 20 + n, i * 4 * KiB, 4 * KiB);
		if (err)
			return err;
		/* The same file from every task, each its own 16 KiB. */
		err = ext2_test_write(
		    "/w/same", 30 + n, n * 16 * KiB + i * KiB, KiB);
		if (err)
			return err;
	}
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "/w/par/c%d_%d", n, i);
		err = ext2_test_write(path, i, 0, 10);
		if (!err && i % 2 == 0)
			err = vfs_unlink(path);
		if (err)
			return err;
	}
	return 0;
}

static struct ktest_overlap par_busy; /* workers inside at once */

static int par_worker(void *arg)
{
	int err;

	ktest_overlap_enter_all(&par_busy, NPAR);
	err = par_work((int)(uintptr_t)arg);
	ktest_overlap_exit(&par_busy);
	return err;
}

static void write_parallel(struct ktest *t)
{
	struct task *tasks[NPAR];
	char path[32];

	KTEST_ASSERT_EQ(t, vfs_mkdir("/w/par", 0755), 0);
	for (int n = 0; n < NPAR; n++) {
		tasks[n] =
		    task_create("ext2_par", par_worker, (void *)(uintptr_t)n);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[n]));
	}
	for (int n = 0; n < NPAR; n++)
		KTEST_EXPECT_EQ(t, task_join(tasks[n]), 0);
	KTEST_EXPECT_EQ(t, par_busy.max, NPAR); /* they did run together */
	for (int n = 0; n < NPAR; n++) {
		snprintf(path, sizeof(path), "/w/par/t%d", n);
		ext2_test_check(t, path, 20 + n, 0, 64 * KiB);
		ext2_test_check(t, "/w/same", 30 + n, n * 16 * KiB, 16 * KiB);
	}
}

/* A write that grows the file inside a page that is dirty already (so
 * dirtying it marks nothing) leaves the inode dirty, and the new size
 * reaches the disk (tools/ext2tree.py). write_end marks it for the size;
 * vfs_write's time update marks it again after the call. inode_sync_range
 * over a range past the page writes the inode alone and leaves the page
 * dirty. */
static void write_grows_file_inside_dirty_page(struct ktest *t)
{
	struct inode *inode;
	int err;

	writeback_hold_flusher(true); /* the page stays dirty until we sync */
	err = ext2_test_write("/w/regrow", 13, 0, 100);
	inode = err ? ERR_PTR(err) : vfs_lookup("/w/regrow");
	if (!IS_ERR(inode)) {
		KTEST_EXPECT_EQ(
		    t, inode_sync_range(inode, 1 << 20, (2 << 20) - 1), 0);
		KTEST_EXPECT_FALSE(t, READ_ONCE(inode->i_state) & I_DIRTY);
		KTEST_EXPECT_EQ(t, READ_ONCE(inode->i_mapping->nrdirty), 1);
		KTEST_EXPECT_EQ(
		    t, ext2_test_write("/w/regrow", 13, 100, 100), 0);
		KTEST_EXPECT_TRUE(t, READ_ONCE(inode->i_state) & I_DIRTY);
		iput(inode);
	}
	writeback_hold_flusher(false);
	KTEST_ASSERT_FALSE(t, IS_ERR(inode));
	KTEST_EXPECT_EQ(t, ext2_test_size("/w/regrow"), 200);
}

static void write_sync(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
}

static struct ktest_case ext2_write_cases[] = {
	KTEST_CASE(write_basic),
	KTEST_CASE(write_truncate),
	KTEST_CASE(write_names),
	KTEST_CASE(write_many),
	KTEST_CASE(write_parallel),
	KTEST_CASE(write_grows_file_inside_dirty_page),
	KTEST_CASE(write_sync),
	{},
};
KTEST_SUITE(ext2_write, ext2_write_cases);

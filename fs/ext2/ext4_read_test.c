/*
 * fs/ext2/ext4_read_test.c: suite ext4_read - an image `mke2fs -t ext4 -O
 * ^has_journal -d` made from a known tree (tools/ext4img.py, which holds
 * the same table) mounts as "ext4", read-only, and every file reads back
 * as the host wrote it: through the extent tree (a fragmented file with a
 * tree of depth 2), holes, unwritten extents (zeroes, though their blocks
 * hold 0xA5 on disk), fast and slow symbolic links, and a hashed directory
 * of 5000 hard links. Writes fail with EROFS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "ext2.h"
#include "ext2_test.h"

#define MiB	     (1024ULL * 1024)
#define FRAG_EXTENTS 1500
#define SPARSE_SIZE  (20 * MiB)
#define PREALLOC     16 /* blocks; 1..15 unwritten */
#define DIR_ENTRIES  5000
#define SLOW_TARGET                                                          \
	"ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss" \
	"ssssssssssssssssssssssssssssssssss/target-of-a-slow-link"

static const struct {
	uint64_t off, len;
} sparse_data[] = {
	{ 0, 4096 },
	{ MiB + 100, 5000 },
	{ 20 * MiB - 10, 10 },
};

static struct inode *lookup_ok(struct ktest *t, const char *path)
{
	struct inode *inode = vfs_lookup(path);

	if (IS_ERR(inode)) {
		ktest_fail(
		    t, __FILE__, __LINE__, "%s: %ld", path, PTR_ERR(inode));
		ktest_abort(t);
	}
	return inode;
}

static void mounted_read_only(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();
	struct file *f;

	KTEST_ASSERT_NOT_NULL(t, sb);
	KTEST_EXPECT_STREQ(t, sb->s_type->name, "ext4");
	KTEST_EXPECT_TRUE(t, sb->s_rdonly);
	KTEST_EXPECT_TRUE(t, EXT2_SBI(sb)->s_csum);
	KTEST_EXPECT_EQ(t, EXT2_SBI(sb)->s_desc_size, 64u);
	f = vfs_open("/new", O_WRONLY | O_CREAT, 0644);
	KTEST_EXPECT_EQ(t, IS_ERR(f) ? PTR_ERR(f) : 0, -EROFS);
	f = vfs_open("/hello", O_RDWR, 0);
	KTEST_EXPECT_EQ(t, IS_ERR(f) ? PTR_ERR(f) : 0, -EROFS);
	KTEST_EXPECT_EQ(t, vfs_mkdir("/newdir", 0755), -EROFS);
	KTEST_EXPECT_EQ(t, vfs_unlink("/hello"), -EROFS);
}

static void read_files(struct ktest *t)
{
	struct inode *inode = lookup_ok(t, "/big");

	KTEST_EXPECT_TRUE(t, EXT2_I(inode)->i_map == &ext2_extent_map);
	KTEST_EXPECT_EQ(t, vfs_get_flags(inode) & FS_EXTENT_FL, FS_EXTENT_FL);
	iput(inode);
	KTEST_EXPECT_EQ(t, ext2_test_size("/hello"), 11);
	ext2_test_check(t, "/hello", 1, 0, 11);
	KTEST_EXPECT_EQ(t, ext2_test_size("/big"), 3 * MiB + 123);
	ext2_test_check(t, "/big", 2, 0, 3 * MiB + 123);
}

/* Data in every even block, holes between: one extent per data block. */
static void read_fragmented(struct ktest *t)
{
	uint64_t bs = ext2_test_bsize(t);
	struct inode *inode = lookup_ok(t, "/frag");
	const struct ext3_extent_header *eh =
	    (const void *)EXT2_I(inode)->i_data;

	/* 1500 extents: more than the 4 of the root and than the 4 leaves
	 * it can point at hold (340 each at 4 KiB, 84 at 1 KiB): depth 2 */
	ktest_log(t, "/frag: extent tree of depth %u", eh->eh_depth);
	KTEST_EXPECT_EQ(t, eh->eh_depth, 2u);
	iput(inode);
	KTEST_ASSERT_EQ(t, ext2_test_size("/frag"), 2 * FRAG_EXTENTS * bs);
	for (uint64_t i = 0; i < FRAG_EXTENTS; i++) {
		if (!ext2_test_check(t, "/frag", 3, 2 * i * bs, bs) ||
		    !ext2_test_check(t, "/frag", -1, (2 * i + 1) * bs, bs))
			break;
	}
}

static void read_sparse(struct ktest *t)
{
	uint64_t bs = ext2_test_bsize(t), end = 0;
	struct file *f;

	KTEST_ASSERT_EQ(t, ext2_test_size("/sparse"), SPARSE_SIZE);
	for (size_t i = 0; i < ARRAY_SIZE(sparse_data); i++) {
		uint64_t off = sparse_data[i].off, len = sparse_data[i].len;

		if (off > end)
			ext2_test_check(t, "/sparse", -1, end, off - end);
		ext2_test_check(t, "/sparse", 6, off, len);
		end = off + len;
	}
	f = vfs_open("/sparse", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 0, SEEK_HOLE), 4096);
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 4096, SEEK_DATA), MiB);
	KTEST_EXPECT_EQ(t,
			vfs_llseek(f, 2 * MiB, SEEK_DATA),
			ALIGN_DOWN(20 * MiB - 10, bs));
	KTEST_EXPECT_EQ(
	    t, vfs_llseek(f, SPARSE_SIZE - 5, SEEK_HOLE), SPARSE_SIZE);
	KTEST_EXPECT_EQ(t, vfs_llseek(f, SPARSE_SIZE, SEEK_DATA), -ENXIO);
	fput(f);
}

/* Blocks 1-15 are unwritten extents over blocks that hold 0xA5. */
static void read_unwritten(struct ktest *t)
{
	uint64_t bs = ext2_test_bsize(t);
	struct file *f;

	KTEST_ASSERT_EQ(t, ext2_test_size("/prealloc"), PREALLOC * bs);
	ext2_test_check(t, "/prealloc", 9, 0, bs);
	ext2_test_check(t, "/prealloc", -1, bs, (PREALLOC - 1) * bs);
	f = vfs_open("/prealloc", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_llseek(f, 0, SEEK_HOLE), (loff_t)bs);
	fput(f);
}

static void check_link(struct ktest *t, const char *path, const char *want)
{
	char buf[256];
	long n = vfs_readlink(path, buf, sizeof(buf) - 1);

	KTEST_ASSERT_EQ(t, n, (long)strlen(want));
	buf[n] = '\0';
	KTEST_EXPECT_STREQ(t, buf, want);
}

static void read_symlinks(struct ktest *t)
{
	struct inode *link;

	check_link(t, "/fast", "hello");
	check_link(t, "/slow", SLOW_TARGET);
	ext2_test_check(t, "/fast", 1, 0, 11); /* followed to /hello */
	/* fast: no block; slow: one block, found through its extent tree */
	link = vfs_lookup_flags("/fast", 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(link));
	KTEST_EXPECT_TRUE(t, ext2_inode_is_fast_symlink(link));
	iput(link);
	link = vfs_lookup_flags("/slow", 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(link));
	KTEST_EXPECT_FALSE(t, ext2_inode_is_fast_symlink(link));
	KTEST_EXPECT_TRUE(t, EXT2_I(link)->i_map == &ext2_extent_map);
	iput(link);
}

struct names_ctx {
	struct dir_context ctx;
	unsigned int n, dup, other;
	uint8_t *seen; /* DIR_ENTRIES of them */
};

static bool names_actor(struct dir_context *ctx,
			const char *name,
			size_t len,
			loff_t pos,
			unsigned long ino,
			unsigned int type)
{
	struct names_ctx *c = container_of(ctx, struct names_ctx, ctx);
	unsigned int i = 0;

	(void)pos, (void)ino, (void)type;
	c->n++;
	if (len != 5 || name[0] != 'f' || sscanf(name + 1, "%4u", &i) != 1 ||
	    i >= DIR_ENTRIES) {
		c->other++;
		return true;
	}
	c->dup += c->seen[i]++ != 0;
	return true;
}

/* A directory e2fsck -D hashed: readdir (a linear scan) lists every name
 * once, and each name is found through the htree (half-MD4 with the
 * image's seed: it must agree with e2fsprogs' hash to find them). */
static void read_hashed_dir(struct ktest *t)
{
	struct names_ctx c = { .ctx = { .actor = names_actor } };
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	struct inode *dir = lookup_ok(t, "/dir5000"), *first;
	unsigned long dx;
	char path[32];
	struct file *f;

	KTEST_EXPECT_TRUE(t, EXT2_I(dir)->i_flags & EXT2_INDEX_FL);
	KTEST_EXPECT_EQ(t, vfs_get_flags(dir) & FS_INDEX_FL, FS_INDEX_FL);
	iput(dir);
	c.seen = kzalloc(DIR_ENTRIES, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, c.seen);
	f = vfs_open("/dir5000", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_readdir(f, &c.ctx), 0);
	fput(f);
	KTEST_EXPECT_EQ(t, c.n, DIR_ENTRIES + 2u); /* with "." and ".." */
	KTEST_EXPECT_EQ(t, c.other, 2u);
	KTEST_EXPECT_EQ(t, c.dup, 0u);
	kfree(c.seen);
	first = lookup_ok(t, "/dir5000/f0000");
	KTEST_EXPECT_EQ(t, first->i_nlink, DIR_ENTRIES);
	/* every name, each through the index: a few blocks per look-up */
	dx = __atomic_load_n(&sbi->s_dx_lookups, __ATOMIC_RELAXED);
	for (int i = 0; i < DIR_ENTRIES; i++) {
		struct inode *link;

		snprintf(path, sizeof(path), "/dir5000/f%04d", i);
		link = lookup_ok(t, path);
		KTEST_EXPECT_EQ(t, link->i_ino, first->i_ino);
		iput(link);
	}
	KTEST_EXPECT_EQ(t,
			__atomic_load_n(&sbi->s_dx_lookups, __ATOMIC_RELAXED) -
			    dx,
			(unsigned long)DIR_ENTRIES);
	iput(first);
	ext2_test_check(t, "/dir5000/f4999", 8, 0, 100);
	KTEST_EXPECT_EQ(t, ext2_test_size("/dir5000/f5000"), -ENOENT);
}

static struct ktest_case ext4_read_cases[] = {
	KTEST_CASE(mounted_read_only), KTEST_CASE(read_files),
	KTEST_CASE(read_fragmented),   KTEST_CASE(read_sparse),
	KTEST_CASE(read_unwritten),    KTEST_CASE(read_symlinks),
	KTEST_CASE(read_hashed_dir),   {},
};
KTEST_SUITE(ext4_read, ext4_read_cases);

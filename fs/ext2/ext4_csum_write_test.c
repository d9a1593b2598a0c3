/*
 * fs/ext2/ext4_csum_write_test.c: suite ext4_csum_write - writing an ext4 image
 * whose files use indirect blocks (tools/ext2img.py EXT4_INDIRECT:
 * metadata_csum, dir_index, flex_bg, ...), mounted read-write as "ext4" (the
 * ext4w_* boots). The host checks afterwards, with e2fsck -fn (every checksum,
 * the htree, the uninitialised groups) and debugfs (tools/ext2tree.py,
 * expected_dx_names): the names of /hp/h below, and at 1 KiB blocks an htree
 * of two levels.
 *
 * hashed_dir_5000: 5000 names of 29 bytes (40-byte records) in /h. By the
 * format, a 1 KiB leaf holds (1024 - 12) / 40 = 25 of them, so at least
 * 200 leaves, more than the 123 entries a 1 KiB root holds: the tree must
 * have grown a level. Every name is then found through the index (one
 * htree look-up each, s_dx_lookups); every 7th is removed and every 11th
 * (of the rest) renamed, and look-ups and readdir agree; last, /h moves to
 * /hp/h (its ".." lives in the htree root).
 *
 * links_read_and_written: the image's hard and symbolic links read back,
 * then a write through the hard link, its first name removed, a fast and a
 * slow symbolic link made (checked by the host with debugfs).
 *
 * bad_csum_refused: a directory leaf damaged on disk (its checksum no
 * longer matches) makes the insert into it fail with EBADMSG and a console
 * line naming the directory's inode and the block; the block on disk is
 * left as it was. bad_bitmap_csum_refused: the same for an inode bitmap
 * (the console names the group and the block).
 *
 * bitmap_csum_set_at_sync: allocations leave their bitmap's checksum stale
 * (no CRC of the bitmap per allocation, group.c); a stale bitmap written
 * back and dropped from the buffer cache is read again without a refusal;
 * the sync sets every checksum, and each initialised block bitmap on disk
 * then matches its descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "ext2.h"
#include "ext2_test.h"

#define DX_NAMES 5000
#define DX_NAME	 "a-hashed-directory-entry-%04d" /* 29 bytes */
#define DX_REN	 "renamed-hashed-dir-entry-%04d"
/* links/ of tools/ext2tree.py, and the links this suite adds */
#define LINKS_SEED 60
#define LINKS_SIZE 5000
#define SLOW_TARGET                                                      \
	"llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll" \
	"llllllllllllllllll/orig"
#define SLOW_TARGET2                                                     \
	"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm" \
	"mmmmmmmmmmmmmmmmmmmmmmmmmmmm/hard"

static void mounted_writable(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();

	KTEST_ASSERT_NOT_NULL(t, sb);
	KTEST_EXPECT_STREQ(t, sb->s_type->name, "ext4");
	KTEST_EXPECT_FALSE(t, sb->s_rdonly);
	KTEST_EXPECT_TRUE(t, EXT2_SBI(sb)->s_csum);
	KTEST_EXPECT_TRUE(t, EXT2_SBI(sb)->s_flex_bg);
}

static int create(const char *path)
{
	struct file *f = vfs_open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (IS_ERR(f))
		return PTR_ERR(f);
	fput(f);
	return 0;
}

static bool removed(int i)
{
	return i % 7 == 0;
}

static bool renamed(int i)
{
	return !removed(i) && i % 11 == 0;
}

/* The htree root's levels below it (byte 30 of block 0). */
static int dx_levels(struct ktest *t, struct inode *dir)
{
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	struct ext2_buf *b;
	uint32_t pblk;
	int levels;

	if (ext2_get_block(dir, 0, false, &pblk, NULL) || !pblk)
		return -1;
	b = ext2_bread(sbi, pblk);
	if (IS_ERR(b))
		return -1;
	levels = ((uint8_t *)b->b_data)[30];
	ext2_brelse(sbi, b);
	return levels;
}

struct count_ctx {
	struct dir_context ctx;
	unsigned int n;
};

static bool count_actor(struct dir_context *ctx,
			const char *name,
			size_t len,
			loff_t pos,
			unsigned long ino,
			unsigned int type)
{
	(void)name, (void)len, (void)pos, (void)ino, (void)type;
	container_of(ctx, struct count_ctx, ctx)->n++;
	return true;
}

/* Look every name up: present ones through the index, others ENOENT. */
static void check_names(struct ktest *t, bool changed)
{
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	unsigned long dx =
	    __atomic_load_n(&sbi->s_dx_lookups, __ATOMIC_RELAXED);
	unsigned int present = 0, bad = 0;
	char path[64];

	for (int i = 0; i < DX_NAMES; i++) {
		bool gone = changed && (removed(i) || renamed(i));

		snprintf(path, sizeof(path), "/h/" DX_NAME, i);
		bad += (ext2_test_size(path) == -ENOENT) != gone;
		present += !gone;
		if (changed && renamed(i)) {
			snprintf(path, sizeof(path), "/h/" DX_REN, i);
			bad += ext2_test_size(path) != 0;
			present++;
		}
	}
	KTEST_EXPECT_EQ(t, bad, 0u);
	/* each look-up went through the htree, found or not */
	KTEST_EXPECT_GE(t,
			__atomic_load_n(&sbi->s_dx_lookups, __ATOMIC_RELAXED) -
			    dx,
			(unsigned long)present);
}

static void hashed_dir_5000(struct ktest *t)
{
	struct count_ctx c = { .ctx = { .actor = count_actor } };
	unsigned int failed = 0, expect = 2;
	char path[64], path2[64];
	struct inode *dir, *parent;
	struct file *f;

	KTEST_ASSERT_EQ(t, vfs_mkdir("/h", 0755), 0);
	for (int i = 0; i < DX_NAMES; i++) {
		snprintf(path, sizeof(path), "/h/" DX_NAME, i);
		failed += create(path) != 0;
	}
	KTEST_ASSERT_EQ(t, failed, 0u);
	dir = vfs_lookup("/h");
	KTEST_ASSERT_FALSE(t, IS_ERR(dir));
	KTEST_EXPECT_TRUE(t, EXT2_I(dir)->i_flags & EXT2_INDEX_FL);
	if (ext2_test_bsize(t) == 1024)
		KTEST_EXPECT_EQ(t, dx_levels(t, dir), 1);
	iput(dir);
	check_names(t, false);

	for (int i = 0; i < DX_NAMES; i++) {
		snprintf(path, sizeof(path), "/h/" DX_NAME, i);
		snprintf(path2, sizeof(path2), "/h/" DX_REN, i);
		if (removed(i))
			failed += vfs_unlink(path) != 0;
		else if (renamed(i))
			failed += vfs_rename(path, path2) != 0;
		expect += !removed(i);
	}
	KTEST_EXPECT_EQ(t, failed, 0u);
	check_names(t, true);
	f = vfs_open("/h", O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	KTEST_EXPECT_EQ(t, vfs_readdir(f, &c.ctx), 0);
	fput(f);
	KTEST_EXPECT_EQ(t, c.n, expect); /* with "." and ".." */

	/* moved: its ".." (in the htree root) names the new parent */
	KTEST_ASSERT_EQ(t, vfs_mkdir("/hp", 0755), 0);
	KTEST_ASSERT_EQ(t, vfs_rename("/h", "/hp/h"), 0);
	dir = vfs_lookup("/hp");
	parent = vfs_lookup("/hp/h/..");
	KTEST_ASSERT_FALSE(t, IS_ERR(dir) || IS_ERR(parent));
	KTEST_EXPECT_EQ(t, parent->i_ino, dir->i_ino);
	iput(dir);
	iput(parent);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
}

static void bad_csum_refused(struct ktest *t)
{
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	unsigned int bs = sbi->s_sb->s_blocksize;
	uint8_t *good = kmalloc(bs, GFP_KERNEL), *bad = kmalloc(bs, GFP_KERNEL);
	uint8_t *now = kmalloc(bs, GFP_KERNEL);
	struct inode *dir;
	uint32_t pblk = 0;

	KTEST_ASSERT_TRUE(t, good && bad && now);
	KTEST_ASSERT_EQ(t, vfs_mkdir("/csum", 0755), 0);
	KTEST_ASSERT_EQ(t, create("/csum/a"), 0);
	KTEST_ASSERT_EQ(t, vfs_sync(), 0);
	dir = vfs_lookup("/csum");
	KTEST_ASSERT_FALSE(t, IS_ERR(dir));
	KTEST_ASSERT_EQ(t, ext2_get_block(dir, 0, false, &pblk, NULL), 0);
	KTEST_ASSERT_NE(t, pblk, 0u);
	KTEST_ASSERT_EQ(t, ext2_read_blocks(sbi, pblk, good, 1), 0);
	/* one byte of the free space after "a", covered by the checksum */
	memcpy(bad, good, bs);
	bad[bs / 2] ^= 0x5a;
	KTEST_ASSERT_EQ(t, ext2_write_blocks(sbi, pblk, bad, 1), 0);
	ext2_bforget(sbi, pblk); /* clean after the sync: read it again */
	ktest_log(t, "damaged directory inode %lu block %u", dir->i_ino, pblk);

	KTEST_EXPECT_EQ(t, create("/csum/b"), -EBADMSG);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
	KTEST_ASSERT_EQ(t, ext2_read_blocks(sbi, pblk, now, 1), 0);
	KTEST_EXPECT_EQ(t, memcmp(now, bad, bs), 0); /* nothing written */

	KTEST_ASSERT_EQ(t, ext2_write_blocks(sbi, pblk, good, 1), 0);
	ext2_bforget(sbi, pblk);
	KTEST_EXPECT_EQ(t, create("/csum/b"), 0);
	iput(dir);
	kfree(good);
	kfree(bad);
	kfree(now);
}

/* links/ (tools/ext2tree.py): a file and its hard link share an inode; the
 * fast and the slow symbolic link read back. Then, written: the middle of
 * the file through the hard link, the first name removed, two new links. */
static void links_read_and_written(struct ktest *t)
{
	struct inode *orig = vfs_lookup("/links/orig");
	struct inode *hard = vfs_lookup("/links/hard");
	char buf[128];

	KTEST_ASSERT_FALSE(t, IS_ERR(orig) || IS_ERR(hard));
	KTEST_EXPECT_EQ(t, orig->i_ino, hard->i_ino);
	KTEST_EXPECT_EQ(t, hard->i_nlink, 2u);
	iput(orig);
	ext2_test_check(t, "/links/hard", LINKS_SEED, 0, LINKS_SIZE);
	KTEST_EXPECT_EQ(t, vfs_readlink("/links/fast", buf, sizeof(buf)), 4);
	KTEST_EXPECT_EQ(t, memcmp(buf, "orig", 4), 0);
	KTEST_EXPECT_EQ(t,
			vfs_readlink("/links/slow", buf, sizeof(buf)),
			(long)strlen(SLOW_TARGET));
	KTEST_EXPECT_EQ(t, memcmp(buf, SLOW_TARGET, strlen(SLOW_TARGET)), 0);

	KTEST_EXPECT_EQ(t, ext2_test_write("/links/hard", 61, 1000, 100), 0);
	KTEST_EXPECT_EQ(t, vfs_unlink("/links/orig"), 0);
	KTEST_EXPECT_EQ(t, hard->i_nlink, 1u);
	iput(hard);
	KTEST_EXPECT_EQ(t, vfs_symlink("hard", "/links/fast2"), 0);
	KTEST_EXPECT_EQ(t, vfs_symlink(SLOW_TARGET2, "/links/slow2"), 0);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
}

/* The inode bitmap of /csum's group, damaged on disk in the bit of a free
 * inode (the group's last): creating a file there fails with EBADMSG, and
 * neither the bitmap nor anything else of the allocation is written. */
static void bad_bitmap_csum_refused(struct ktest *t)
{
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	uint32_t ipg = sbi->s_inodes_per_group, bs = sbi->s_sb->s_blocksize;
	uint8_t *good = kmalloc(bs, GFP_KERNEL), *bad = kmalloc(bs, GFP_KERNEL);
	uint8_t *now = kmalloc(bs, GFP_KERNEL);
	struct inode *dir = vfs_lookup("/csum");
	uint32_t blk, free_before;

	KTEST_ASSERT_TRUE(t, good && bad && now);
	KTEST_ASSERT_FALSE(t, IS_ERR(dir));
	blk = ext2_gd_block(sbi, (dir->i_ino - 1) / ipg, EXT2_GD_INODE_BITMAP);
	iput(dir);
	KTEST_ASSERT_EQ(t, vfs_sync(), 0);
	KTEST_ASSERT_EQ(t, ext2_read_blocks(sbi, blk, good, 1), 0);
	KTEST_ASSERT_FALSE(t, good[(ipg - 1) / 8] & (1u << ((ipg - 1) % 8)));
	memcpy(bad, good, bs);
	bad[(ipg - 1) / 8] |= 1u << ((ipg - 1) % 8);
	KTEST_ASSERT_EQ(t, ext2_write_blocks(sbi, blk, bad, 1), 0);
	ext2_bforget(sbi, blk); /* clean after the sync: read it again */
	ktest_log(t, "damaged inode bitmap block %u", blk);
	free_before = sbi->s_es.s_free_inodes_count;

	KTEST_EXPECT_EQ(t, create("/csum/c"), -EBADMSG);
	KTEST_EXPECT_EQ(t, sbi->s_es.s_free_inodes_count, free_before);
	KTEST_EXPECT_EQ(t, vfs_sync(), 0);
	KTEST_ASSERT_EQ(t, ext2_read_blocks(sbi, blk, now, 1), 0);
	KTEST_EXPECT_EQ(t, memcmp(now, bad, bs), 0); /* nothing written */

	KTEST_ASSERT_EQ(t, ext2_write_blocks(sbi, blk, good, 1), 0);
	ext2_bforget(sbi, blk);
	KTEST_EXPECT_EQ(t, create("/csum/c"), 0);
	kfree(good);
	kfree(bad);
	kfree(now);
}

/* Groups with a stale block bitmap checksum; their bitmaps' blocks into
 * @blks (up to @n) if not NULL. */
static unsigned int
stale_block_bitmaps(struct ext2_sb_info *sbi, uint32_t *blks, unsigned int n)
{
	unsigned int stale = 0;

	mutex_lock(&sbi->s_alloc_lock);
	for (uint32_t g = 0; g < sbi->s_groups_count; g++) {
		if (!(sbi->s_csum_stale[g] &
		      EXT2_CSUM_STALE(EXT2_GD_BLOCK_BITMAP)))
			continue;
		if (blks && stale < n)
			blks[stale] =
			    ext2_gd_block(sbi, g, EXT2_GD_BLOCK_BITMAP);
		stale++;
	}
	mutex_unlock(&sbi->s_alloc_lock);
	return stale;
}

static void bitmap_csum_set_at_sync(struct ktest *t)
{
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	uint8_t *map = kmalloc(sbi->s_sb->s_blocksize, GFP_KERNEL);
	uint32_t blks[8];
	unsigned int n;
	int bad = 0;

	KTEST_ASSERT_NOT_NULL(t, map);
	KTEST_ASSERT_EQ(t, vfs_sync(), 0);
	KTEST_EXPECT_EQ(t, stale_block_bitmaps(sbi, NULL, 0), 0u);
	KTEST_ASSERT_EQ(t, ext2_test_write("/stale_csum", 7, 0, 65536), 0);
	n = stale_block_bitmaps(sbi, blks, ARRAY_SIZE(blks));
	KTEST_EXPECT_GT(t, n, 0u);
	/* written back, dropped: the next allocation reads them again */
	KTEST_ASSERT_EQ(t, ext2_bsync_all(sbi), 0);
	for (unsigned int i = 0; i < MIN(n, ARRAY_SIZE(blks)); i++)
		ext2_bforget(sbi, blks[i]);
	KTEST_EXPECT_EQ(t, ext2_test_write("/stale_csum", 7, 65536, 65536), 0);
	KTEST_ASSERT_EQ(t, vfs_sync(), 0);
	KTEST_EXPECT_EQ(t, stale_block_bitmaps(sbi, NULL, 0), 0u);
	mutex_lock(&sbi->s_alloc_lock);
	for (uint32_t g = 0; g < sbi->s_groups_count; g++) {
		const struct ext4_group_desc *gd =
		    (const void *)ext2_gd(sbi, g);

		if (gd->bg_flags & EXT2_BG_BLOCK_UNINIT)
			continue;
		bad += ext2_read_blocks(
			   sbi,
			   ext2_gd_block(sbi, g, EXT2_GD_BLOCK_BITMAP),
			   map,
			   1) ||
		       !ext2_bitmap_csum_ok(sbi, g, EXT2_GD_BLOCK_BITMAP, map);
	}
	mutex_unlock(&sbi->s_alloc_lock);
	KTEST_EXPECT_EQ(t, bad, 0);
	KTEST_EXPECT_TRUE(t, ext2_test_check(t, "/stale_csum", 7, 0, 131072));
	KTEST_EXPECT_EQ(t, vfs_unlink("/stale_csum"), 0);
	kfree(map);
}

static struct ktest_case ext4_write_cases[] = {
	KTEST_CASE(mounted_writable),
	KTEST_CASE(hashed_dir_5000),
	KTEST_CASE(bad_csum_refused),
	KTEST_CASE(bad_bitmap_csum_refused),
	KTEST_CASE(links_read_and_written),
	KTEST_CASE(bitmap_csum_set_at_sync),
	{},
};
KTEST_SUITE(ext4_csum_write, ext4_write_cases);

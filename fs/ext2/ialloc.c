/*
 * fs/ext2/ialloc.c: inode bitmaps and inode number allocation.
 *
 * A file's inode goes to its directory's group when it has room, so its
 * blocks (allocated near the inode's group) stay near the directory; a new
 * directory goes to the group with the most free inodes, spreading the
 * tree. Free-inode and used-directory counts are kept exact in the group
 * descriptors and the superblock. Both functions take s_alloc_lock.
 */
#include <errno.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"

static uint32_t pick_dir_group(struct ext2_sb_info *sbi)
{
	uint32_t best = sbi->s_last_group, best_free = 0;

	for (uint32_t i = 0; i < sbi->s_groups_count; i++) {
		uint32_t g = (sbi->s_last_group + i) % sbi->s_groups_count;

		if (ext2_gd(sbi, g)->bg_free_inodes_count > best_free) {
			best = g;
			best_free = ext2_gd(sbi, g)->bg_free_inodes_count;
		}
	}
	sbi->s_last_group = (best + 1) % sbi->s_groups_count;
	return best;
}

/* Take a free inode of group @g. Return: 0 and *ino, -ENOSPC, or errno. */
static int alloc_in_group(struct ext2_sb_info *sbi,
			  uint32_t g,
			  bool dir,
			  unsigned long *ino)
{
	struct ext2_group_desc *gd = ext2_gd(sbi, g);
	uint32_t ipg = sbi->s_inodes_per_group, bit = 0;
	struct ext2_buf *b;
	uint8_t *map;

	if (!gd->bg_free_inodes_count)
		return -ENOSPC;
	b = ext2_bitmap_get(sbi, g, EXT2_GD_INODE_BITMAP);
	if (IS_ERR(b))
		return PTR_ERR(b);
	map = b->b_data;
	/* Reserved inodes are never handed out, whatever the bitmap says. */
	if (g == 0)
		bit = sbi->s_first_ino - 1;
	for (; bit < ipg; bit++) {
		if (!(map[bit >> 3] & (1u << (bit & 7))))
			break;
	}
	if (bit == ipg) {
		ext2_brelse(sbi, b);
		return -ENOSPC;
	}
	if (ext2_itable_initialized(sbi, g, bit)) {
		int err =
		    ext2_inode_slot_free(sbi, (unsigned long)g * ipg + bit + 1);

		if (err) {
			ext2_brelse(sbi, b);
			return err;
		}
	}
	map[bit >> 3] |= 1u << (bit & 7);
	ext2_bitmap_dirty(sbi, g, EXT2_GD_INODE_BITMAP, b);
	ext2_brelse(sbi, b);
	ext2_itable_used(sbi, g, bit);
	gd->bg_free_inodes_count--;
	if (dir)
		gd->bg_used_dirs_count++;
	sbi->s_es.s_free_inodes_count--;
	*ino = (unsigned long)g * ipg + bit + 1;
	return 0;
}

/**
 * ext2_new_inode_nr - allocate an inode number for a new inode in @dir
 * Context: task; takes s_alloc_lock.
 * Return: 0 and *ino, -ENOSPC, -EIO.
 */
int ext2_new_inode_nr(struct inode *dir, mode_t mode, unsigned long *ino)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	bool is_dir = S_ISDIR(mode);
	uint32_t g0;
	int err = -ENOSPC;

	mutex_lock(&sbi->s_alloc_lock);
	g0 = is_dir ? pick_dir_group(sbi) : EXT2_I(dir)->i_block_group;
	for (uint32_t i = 0; i < sbi->s_groups_count; i++) {
		err = alloc_in_group(
		    sbi, (g0 + i) % sbi->s_groups_count, is_dir, ino);
		if (err != -ENOSPC)
			break;
	}
	mutex_unlock(&sbi->s_alloc_lock);
	return err;
}

/**
 * ext2_free_inode_nr - clear @ino in its bitmap and count it free
 * Context: task; takes s_alloc_lock.
 */
void ext2_free_inode_nr(struct super_block *sb, unsigned long ino, bool dir)
{
	struct ext2_sb_info *sbi = EXT2_SBI(sb);
	uint32_t g = (ino - 1) / sbi->s_inodes_per_group;
	uint32_t bit = (ino - 1) % sbi->s_inodes_per_group;
	struct ext2_group_desc *gd;
	struct ext2_buf *b;
	uint8_t *byte;

	if (ino < sbi->s_first_ino || ino > sbi->s_inodes_count) {
		pr_err("ext2: not freeing reserved or invalid inode %lu\n",
		       ino);
		return;
	}
	mutex_lock(&sbi->s_alloc_lock);
	gd = ext2_gd(sbi, g);
	b = ext2_bitmap_get(sbi, g, EXT2_GD_INODE_BITMAP);
	if (IS_ERR(b)) {
		pr_err("ext2: inode %lu not freed: bitmap unreadable\n", ino);
		goto out_unlock;
	}
	byte = (uint8_t *)b->b_data + (bit >> 3);
	if (!(*byte & (1u << (bit & 7)))) {
		pr_err("ext2: freeing inode %lu, already free\n", ino);
	} else {
		*byte &= ~(1u << (bit & 7));
		gd->bg_free_inodes_count++;
		if (dir && gd->bg_used_dirs_count)
			gd->bg_used_dirs_count--;
		sbi->s_es.s_free_inodes_count++;
		ext2_bitmap_dirty(sbi, g, EXT2_GD_INODE_BITMAP, b);
	}
	ext2_brelse(sbi, b);
out_unlock:
	mutex_unlock(&sbi->s_alloc_lock);
}

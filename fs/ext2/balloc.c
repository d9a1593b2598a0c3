/*
 * fs/ext2/balloc.c: block bitmaps and block allocation.
 *
 * ext2_new_block() takes one free block, preferring @goal (the block after
 * the file's previous one), then the rest of the goal's group, then the
 * following groups in order, and keeps the free counts of the group
 * descriptor and the superblock exact; ext2_new_blocks() takes the free
 * blocks that follow the first one too, up to a count, in the same pass
 * over the bitmap (a write past EOF maps its blocks a run at a time). For
 * an extent-mapped inode a run of @max free blocks in the group, from the
 * goal on, is taken before the first free block (ext4's allocator also
 * looks for a free extent of the length asked): each extent then maps as
 * much as it can.
 * ext2_free_blocks() undoes it, a group's bitmap at a time, and forgets
 * any metadata buffer of the freed blocks.
 *
 * Caller holds the inode's i_map_lock (or owns the inode alone); both take
 * s_alloc_lock, which protects the bitmaps and the counts.
 *
 * For tests, ext2_debug_reuse_freed() makes freeing poison the blocks and
 * queue them to be allocated again first (tests/race_*.c).
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/trace.h>
#include <mm/kmalloc.h>
#include "ext2.h"

/* The first clear bit in [@from, @nbits), or @nbits. */
static uint32_t find_zero_bit(const uint8_t *map, uint32_t from, uint32_t nbits)
{
	for (uint32_t i = from; i < nbits; i++) {
		if ((i & 7) == 0 && map[i >> 3] == 0xff && i + 8 <= nbits) {
			i += 7;
			continue;
		}
		if (!(map[i >> 3] & (1u << (i & 7))))
			return i;
	}
	return nbits;
}

static uint32_t group_nr_blocks(struct ext2_sb_info *sbi, uint32_t g)
{
	uint32_t first = sbi->s_first_data_block + g * sbi->s_blocks_per_group;

	return MIN(sbi->s_blocks_per_group, sbi->s_blocks_count - first);
}

static bool bit_set(const uint8_t *map, uint32_t bit)
{
	return map[bit >> 3] & (1u << (bit & 7));
}

/* The first run of @len free bits in [@from, @nbits), or @nbits. */
static uint32_t
find_free_run(const uint8_t *map, uint32_t from, uint32_t nbits, uint32_t len)
{
	uint32_t start = from, n = 0;

	for (uint32_t i = from; i < nbits; i++) {
		if (bit_set(map, i)) {
			n = 0;
			start = i + 1;
		} else if (++n == len) {
			return start;
		}
	}
	return nbits;
}

/* Try group @g from bit @from: the first free block and the free ones
 * that follow it, up to @max. Caller holds s_alloc_lock.
 * Return: 0 with *out and *count, -ENOSPC, or another negative errno. */
static int alloc_in_group(struct inode *inode,
			  uint32_t g,
			  uint32_t from,
			  uint32_t max,
			  uint32_t *out,
			  uint32_t *count)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_group_desc *gd = ext2_gd(sbi, g);
	uint32_t nbits = group_nr_blocks(sbi, g), bit, blk, n;
	struct ext2_buf *b;

	if (!gd->bg_free_blocks_count || from >= nbits)
		return -ENOSPC;
	b = ext2_bitmap_get(sbi, g, EXT2_GD_BLOCK_BITMAP);
	if (IS_ERR(b))
		return PTR_ERR(b);
	bit = nbits;
	if (max > 1 && ext2_has_extents(inode))
		bit = find_free_run(b->b_data, from, nbits, max);
	if (bit == nbits)
		bit = find_zero_bit(b->b_data, from, nbits);
	if (bit == nbits) {
		ext2_brelse(sbi, b);
		return -ENOSPC;
	}
	blk = sbi->s_first_data_block + g * sbi->s_blocks_per_group + bit;
	if (!ext2_data_blocks_valid(sbi, blk, 1)) {
		pr_err("ext2: inode %lu: block bitmap of group %u marks "
		       "metadata block %u free\n",
		       inode->i_ino,
		       g,
		       blk);
		ext2_brelse(sbi, b);
		return -EUCLEAN;
	}
	max = ext2_data_run(sbi, blk, max);
	n = 1;
	while (n < max && bit + n < nbits && !bit_set(b->b_data, bit + n))
		n++;
	for (uint32_t i = bit; i < bit + n; i++)
		((uint8_t *)b->b_data)[i >> 3] |= 1u << (i & 7);
	ext2_bitmap_dirty(sbi, g, EXT2_GD_BLOCK_BITMAP, b);
	ext2_brelse(sbi, b);
	gd->bg_free_blocks_count -= n;
	sbi->s_es.s_free_blocks_count -= n;
	*out = blk;
	*count = n;
	return 0;
}

/**
 * ext2_new_blocks - allocate a block near @goal and the free ones right
 * after it, @max at most (one while tests reuse freed blocks first)
 * Context: task; takes s_alloc_lock.
 * Return: 0 with *out and *count (at least 1), -ENOSPC, -EIO or -EUCLEAN.
 */
int ext2_new_blocks(struct inode *inode,
		    uint32_t goal,
		    uint32_t max,
		    uint32_t *out,
		    uint32_t *count)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	uint32_t g0, from;
	int err = -ENOSPC;

	if (goal < sbi->s_first_data_block || goal >= sbi->s_blocks_count)
		goal = sbi->s_first_data_block +
		       EXT2_I(inode)->i_block_group * sbi->s_blocks_per_group;
	g0 = (goal - sbi->s_first_data_block) / sbi->s_blocks_per_group;
	from = (goal - sbi->s_first_data_block) % sbi->s_blocks_per_group;

	mutex_lock(&sbi->s_alloc_lock);
	if (!sbi->s_es.s_free_blocks_count)
		goto out_unlock;
	if (sbi->s_reuse_n) { /* tests: a freed block first */
		goal = sbi->s_reuse[sbi->s_reuse_head];
		sbi->s_reuse_head = (sbi->s_reuse_head + 1) % EXT2_REUSE_MAX;
		sbi->s_reuse_n--;
		g0 = (goal - sbi->s_first_data_block) / sbi->s_blocks_per_group;
		from =
		    (goal - sbi->s_first_data_block) % sbi->s_blocks_per_group;
		max = 1;
	}
	/* The goal's group from the goal, every other group, then the
	 * goal's group from its start. */
	for (uint32_t i = 0; i <= sbi->s_groups_count; i++) {
		uint32_t g = (g0 + i) % sbi->s_groups_count;

		err = alloc_in_group(
		    inode, g, i == 0 ? from : 0, MAX(max, 1u), out, count);
		if (err != -ENOSPC)
			break;
	}
out_unlock:
	mutex_unlock(&sbi->s_alloc_lock);
	return err;
}

int ext2_new_block(struct inode *inode, uint32_t goal, uint32_t *out)
{
	uint32_t count;

	return ext2_new_blocks(inode, goal, 1, out, &count);
}

/* Free [@blk, @blk+@n), all in one group: one pass over its bitmap, the
 * counts updated once. Caller holds s_alloc_lock. */
static void free_in_group(struct inode *inode, uint32_t blk, uint32_t n)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	uint32_t g = (blk - sbi->s_first_data_block) / sbi->s_blocks_per_group;
	uint32_t bit =
	    (blk - sbi->s_first_data_block) % sbi->s_blocks_per_group;
	struct ext2_group_desc *gd = ext2_gd(sbi, g);
	uint32_t freed = 0;
	struct ext2_buf *b;

	b = ext2_bitmap_get(sbi, g, EXT2_GD_BLOCK_BITMAP);
	if (IS_ERR(b)) {
		pr_err("ext2: inode %lu: blocks %u+%u not freed: bitmap "
		       "unreadable\n",
		       inode->i_ino,
		       blk,
		       n);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *byte = (uint8_t *)b->b_data + ((bit + i) >> 3);
		uint8_t mask = 1u << ((bit + i) & 7);

		ext2_bforget(sbi, blk + i);
		if (!(*byte & mask)) {
			pr_err("ext2: inode %lu: freeing block %u, already "
			       "free\n",
			       inode->i_ino,
			       blk + i);
			continue;
		}
		*byte &= ~mask;
		freed++;
	}
	if (freed) {
		gd->bg_free_blocks_count += freed;
		sbi->s_es.s_free_blocks_count += freed;
		ext2_bitmap_dirty(sbi, g, EXT2_GD_BLOCK_BITMAP, b);
	}
	ext2_brelse(sbi, b);
}

/* Fill freed blocks with the poison byte on disk (tests). */
static void poison_blocks(struct ext2_sb_info *sbi, uint32_t blk, uint32_t n)
{
	void *buf = kmalloc(sbi->s_sb->s_blocksize, GFP_KERNEL);

	if (!buf)
		return;
	memset(buf, EXT2_POISON_BYTE, sbi->s_sb->s_blocksize);
	for (uint32_t i = 0; i < n; i++)
		ext2_write_blocks(sbi, blk + i, buf, 1);
	kfree(buf);
}

/**
 * ext2_free_blocks - return [@blk, @blk+@count) to the free pool
 * Blocks outside the data area are reported and left alone.
 * Context: task; takes s_alloc_lock.
 */
void ext2_free_blocks(struct inode *inode, uint32_t blk, uint32_t count)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);

	if (!ext2_data_blocks_valid(sbi, blk, count)) {
		pr_err("ext2: inode %lu: not freeing invalid blocks %u+%u\n",
		       inode->i_ino,
		       blk,
		       count);
		return;
	}
	trace_event(TRACE_BLOCK_FREE,
		    blk,
		    (count & 0xffffff) |
			(uint64_t)inode->i_sb->s_blocksize_bits << 24 |
			(uint64_t)inode->i_ino << 32);
	if (READ_ONCE(sbi->s_debug_reuse))
		poison_blocks(sbi, blk, count);
	mutex_lock(&sbi->s_alloc_lock);
	while (count) {
		uint32_t bit =
		    (blk - sbi->s_first_data_block) % sbi->s_blocks_per_group;
		uint32_t n = MIN(count, sbi->s_blocks_per_group - bit);

		free_in_group(inode, blk, n);
		for (uint32_t i = 0; sbi->s_debug_reuse && i < n &&
				     sbi->s_reuse_n < EXT2_REUSE_MAX;
		     i++) {
			sbi->s_reuse[(sbi->s_reuse_head + sbi->s_reuse_n++) %
				     EXT2_REUSE_MAX] = blk + i;
		}
		blk += n;
		count -= n;
	}
	mutex_unlock(&sbi->s_alloc_lock);
}

void ext2_debug_reuse_freed(struct super_block *sb, bool on)
{
	struct ext2_sb_info *sbi = EXT2_SBI(sb);

	mutex_lock(&sbi->s_alloc_lock);
	sbi->s_debug_reuse = on;
	sbi->s_reuse_head = sbi->s_reuse_n = 0;
	mutex_unlock(&sbi->s_alloc_lock);
}

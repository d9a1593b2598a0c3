/*
 * fs/ext2/zone.c: the metadata blocks of a filesystem, for checking the
 * block numbers read from block maps and the allocator's runs.
 *
 * At mount, every group's superblock and descriptor copies (with the
 * reserved descriptor blocks), its two bitmaps and its inode table become
 * a run [start, end); the runs are sorted and merged into sbi->s_zone
 * (Linux's ext4 keeps the same set as its "system zone"). A group's
 * bitmaps and table need not lie in the group: with flex_bg, mke2fs packs
 * those of a whole flex group together in its first group, so a per-group
 * look is not enough. A look-up is a binary search.
 *
 * Read-only after mount; needs no lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <mm/kmalloc.h>
#include "ext2.h"

static int zone_cmp(const void *a, const void *b)
{
	const struct ext2_zone *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int ext2_zone_build(struct ext2_sb_info *sbi)
{
	uint32_t reserved = sbi->s_es.s_reserved_gdt_blocks, n = 0;
	struct ext2_zone *z;

	z = kmalloc((size_t)sbi->s_groups_count * 4 * sizeof(*z), GFP_KERNEL);
	if (!z)
		return -ENOMEM;
	for (uint32_t g = 0; g < sbi->s_groups_count; g++) {
		uint32_t start =
		    sbi->s_first_data_block + g * sbi->s_blocks_per_group;
		uint32_t table = ext2_gd_block(sbi, g, EXT2_GD_INODE_TABLE);

		if (ext2_group_has_super(sbi, g))
			z[n++] = (struct ext2_zone){
				start, start + 1 + sbi->s_desc_blocks + reserved
			};
		z[n++] = (struct ext2_zone){
			ext2_gd_block(sbi, g, EXT2_GD_BLOCK_BITMAP),
			ext2_gd_block(sbi, g, EXT2_GD_BLOCK_BITMAP) + 1
		};
		z[n++] = (struct ext2_zone){
			ext2_gd_block(sbi, g, EXT2_GD_INODE_BITMAP),
			ext2_gd_block(sbi, g, EXT2_GD_INODE_BITMAP) + 1
		};
		z[n++] =
		    (struct ext2_zone){ table, table + sbi->s_itb_per_group };
	}
	qsort(z, n, sizeof(*z), zone_cmp);
	sbi->s_zone_nr = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ext2_zone *last = &z[sbi->s_zone_nr - 1];

		if (sbi->s_zone_nr && z[i].start <= last->end)
			last->end = MAX(last->end, z[i].end);
		else
			z[sbi->s_zone_nr++] = z[i];
	}
	sbi->s_zone = z;
	return 0;
}

void ext2_zone_free(struct ext2_sb_info *sbi)
{
	kfree(sbi->s_zone);
	sbi->s_zone = NULL;
	sbi->s_zone_nr = 0;
}

/* The first run that ends past @blk, or s_zone_nr if none does. */
static uint32_t zone_after(struct ext2_sb_info *sbi, uint32_t blk)
{
	uint32_t lo = 0, hi = sbi->s_zone_nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sbi->s_zone[mid].end <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The data blocks from @blk on before the next metadata or the end. */
static uint64_t data_left(struct ext2_sb_info *sbi, uint32_t blk)
{
	uint32_t i;

	if (blk < sbi->s_first_data_block || blk >= sbi->s_blocks_count)
		return 0;
	i = zone_after(sbi, blk);
	if (i == sbi->s_zone_nr)
		return sbi->s_blocks_count - blk;
	if (sbi->s_zone[i].start <= blk)
		return 0;
	return sbi->s_zone[i].start - blk;
}

bool ext2_data_blocks_valid(struct ext2_sb_info *sbi,
			    uint32_t blk,
			    uint32_t count)
{
	return count && data_left(sbi, blk) >= count;
}

uint32_t ext2_data_run(struct ext2_sb_info *sbi, uint32_t blk, uint32_t max)
{
	return (uint32_t)MIN(data_left(sbi, blk), (uint64_t)max);
}

/*
 * fs/ext2/htree_split.c: growing a hashed directory's index when an
 * insert finds no room (htree_insert.c decides which of these to do).
 *
 * - A full leaf splits by hash: its entries sorted by hash, the upper
 *   half (by bytes) goes to a new block at the directory's end, and an
 *   index entry (the first moved hash) for the new block goes right after
 *   the old leaf's. When the moved half begins with the same hash the
 *   kept half ends with, the new entry's hash gets its low bit set: names
 *   of that hash go on in the next leaf (look-ups then read both).
 * - A full index node splits in two, the upper half of its entries to a
 *   new node, which the root gains an entry for.
 * - A full root with no level below moves its entries to a new node and
 *   keeps one entry, for it: the tree is one level deeper. Two levels
 *   (root and nodes) is the most ext4 allows without largedir.
 *
 * Every block changed is dirtied with its checksum (ext2_dir_block_dirty).
 * Caller holds the directory's i_rwsem exclusive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <mm/kmalloc.h>
#include "ext2.h"
#include "htree.h"

unsigned int ext2_dx_limit(struct inode *dir, unsigned int off)
{
	unsigned int tail = EXT2_SBI(dir->i_sb)->s_csum ? DX_TAIL_LEN : 0;

	return (dir->i_sb->s_blocksize - off - tail) / sizeof(struct dx_entry);
}

static void dx_set_count(struct dx_entry *e, unsigned int limit, unsigned count)
{
	e[0].hash = limit | (uint32_t)count << 16;
}

void ext2_dx_insert(struct inode *dir,
		    struct dx_frame *f,
		    uint32_t hash,
		    uint64_t lblk)
{
	struct dx_entry *at = &f->e[f->at + 1];

	memmove(at + 1, at, (f->count - f->at - 1) * sizeof(*at));
	at->hash = hash;
	at->block = (uint32_t)lblk;
	f->count++;
	dx_set_count(f->e, f->limit, f->count);
	ext2_dir_block_dirty(dir, f->lblk, f->b);
}

struct ext2_buf *ext2_dx_new_block(struct inode *dir, uint64_t *lblk)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	uint32_t pblk;
	int err;

	*lblk = READ_ONCE(dir->i_size) >> dir->i_sb->s_blocksize_bits;
	if (*lblk > DX_BLOCK_MASK)
		return ERR_PTR(-ENOSPC);
	err = ext2_get_block(dir, *lblk, true, &pblk, NULL);
	if (err)
		return ERR_PTR(err);
	inode_set_size(dir, (*lblk + 1) << dir->i_sb->s_blocksize_bits);
	mark_inode_dirty(dir);
	return ext2_bget_new(sbi, pblk);
}

/* An entry of a leaf being split: its hash and where it is. */
struct dx_map {
	uint32_t hash;
	uint16_t off, size;
};

static int map_cmp(const void *a, const void *b)
{
	const struct dx_map *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The entries in use of @block with their hashes. Return: how many. */
static unsigned int map_leaf(struct inode *dir,
			     unsigned int version,
			     const uint8_t *block,
			     struct dx_map *map)
{
	const uint32_t *seed = EXT2_SBI(dir->i_sb)->s_es.s_hash_seed;
	unsigned int n = 0, end = ext2_dir_leaf_space(dir);

	for (unsigned int off = 0; off < end;) {
		const struct ext2_dir_entry_2 *de = (const void *)(block + off);

		if (de->inode &&
		    !ext2_dx_hash(
			de->name, de->name_len, version, seed, &map[n].hash)) {
			map[n].off = off;
			map[n].size = ext2_rec_len(de->name_len);
			n++;
		}
		off += de->rec_len;
	}
	return n;
}

/* Write entries @map[0..@n) of @src one after another into @dst, a leaf:
 * the last one's record runs to the tail. */
static void pack_leaf(struct inode *dir,
		      uint8_t *dst,
		      const uint8_t *src,
		      const struct dx_map *map,
		      unsigned int n)
{
	unsigned int off = 0, space = ext2_dir_leaf_space(dir);
	struct ext2_dir_entry_2 *de = (void *)dst;

	memset(dst, 0, dir->i_sb->s_blocksize);
	for (unsigned int i = 0; i < n; i++) {
		de = (void *)(dst + off);
		memcpy(de, src + map[i].off, map[i].size);
		de->rec_len = map[i].size;
		off += map[i].size;
	}
	/* the last record (or, in an empty leaf, a free one) runs on */
	de->rec_len += space - off;
	ext2_dir_tail_init(dir, dst);
}

/* The first entry of the upper half: past half the bytes in use, but
 * leaving at least one entry in each half. */
static unsigned int split_point(const struct dx_map *map, unsigned int n)
{
	unsigned int total = 0, acc = 0, k;

	for (unsigned int i = 0; i < n; i++)
		total += map[i].size;
	for (k = 0; k < n - 1 && acc + map[k].size <= total / 2; k++)
		acc += map[k].size;
	return MAX(k, 1u);
}

int ext2_dx_split_leaf(struct inode *dir,
		       struct dx_frame *f,
		       unsigned int version,
		       struct ext2_buf *leaf,
		       uint64_t lblk)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	unsigned int bs = dir->i_sb->s_blocksize, n, k;
	struct dx_map *map;
	struct ext2_buf *nb;
	uint8_t *copy;
	uint64_t nlblk;
	uint32_t hash2;
	int err = 0;

	map = kmalloc(bs / EXT2_DIR_REC_LEN(1) * sizeof(*map), GFP_KERNEL);
	copy = kmalloc(bs, GFP_KERNEL);
	if (!map || !copy) {
		err = -ENOMEM;
		goto out_free;
	}
	memcpy(copy, leaf->b_data, bs);
	n = map_leaf(dir, version, copy, map);
	if (n < 2) { /* one name fills the block: nothing to split */
		err = -ENOSPC;
		goto out_free;
	}
	qsort(map, n, sizeof(*map), map_cmp);
	k = split_point(map, n);
	hash2 = map[k].hash | (map[k - 1].hash == map[k].hash);
	nb = ext2_dx_new_block(dir, &nlblk);
	if (IS_ERR(nb)) {
		err = PTR_ERR(nb);
		goto out_free;
	}
	pack_leaf(dir, nb->b_data, copy, map + k, n - k);
	ext2_dir_block_dirty(dir, nlblk, nb);
	ext2_brelse(sbi, nb);
	pack_leaf(dir, leaf->b_data, copy, map, k);
	ext2_dir_block_dirty(dir, lblk, leaf);
	ext2_dx_insert(dir, f, hash2, nlblk);
out_free:
	kfree(map);
	kfree(copy);
	return err;
}

/* A new index node holding @n entries copied from @from. */
static struct ext2_buf *new_node(struct inode *dir,
				 const struct dx_entry *from,
				 unsigned int n,
				 uint64_t *lblk)
{
	struct ext2_buf *b = ext2_dx_new_block(dir, lblk);
	unsigned int limit = ext2_dx_limit(dir, DX_NODE_ENTRIES);
	struct ext2_dir_entry_2 *de;
	struct dx_entry *e;

	if (IS_ERR(b))
		return b;
	de = b->b_data;
	de->rec_len = dir->i_sb->s_blocksize; /* inode 0, no name */
	e = (struct dx_entry *)((char *)b->b_data + DX_NODE_ENTRIES);
	memcpy(e, from, n * sizeof(*e));
	dx_set_count(e, limit, n);
	ext2_dir_block_dirty(dir, *lblk, b);
	return b;
}

int ext2_dx_grow(struct inode *dir, struct dx_frame *root)
{
	struct ext2_buf *b;
	uint64_t lblk;

	b = new_node(dir, root->e, root->count, &lblk);
	if (IS_ERR(b))
		return PTR_ERR(b);
	ext2_brelse(EXT2_SBI(dir->i_sb), b);
	root->count = 1;
	root->e[0].block = (uint32_t)lblk;
	dx_set_count(root->e, root->limit, 1);
	ext2_dx_info(root->b)->indirect_levels = 1;
	ext2_dir_block_dirty(dir, 0, root->b);
	return 0;
}

int ext2_dx_split_node(struct inode *dir,
		       struct dx_frame *root,
		       struct dx_frame *node)
{
	unsigned int keep = node->count / 2;
	struct ext2_buf *b;
	uint32_t hash = node->e[keep].hash;
	uint64_t lblk;

	b = new_node(dir, node->e + keep, node->count - keep, &lblk);
	if (IS_ERR(b))
		return PTR_ERR(b);
	ext2_brelse(EXT2_SBI(dir->i_sb), b);
	node->count = keep;
	dx_set_count(node->e, node->limit, keep);
	ext2_dir_block_dirty(dir, node->lblk, node->b);
	ext2_dx_insert(dir, root, hash, lblk);
	return 0;
}

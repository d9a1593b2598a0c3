/*
 * fs/ext2/extent.h: what the extent-tree files share. extent.c reads and
 * checks the tree; extent_insert.c adds extents (splitting nodes, growing
 * the tree); extent_map.c maps blocks for writes; extent_remove.c takes
 * ranges out (freeing blocks and emptied nodes); extent_falloc.c
 * preallocates, converts and shifts. Not for the
 * rest of ext2: ext2.h has their public functions. Unless said otherwise
 * the caller holds i_map_lock.
 *
 * A path is the chain of nodes from the root (level 0, in i_data) down to
 * the leaf (level depth) that holds, or would hold, one logical block;
 * lv[l].pos is the entry taken at level l (in the leaf: the last extent
 * starting at or before the block, or -1). Index keys are kept equal to
 * the first key of the node below them: when a node's first entry
 * changes, ext_fix_keys carries the change up.
 */
#pragma once

#include "ext2.h"

#define EXT_MAX_DEPTH  5
#define EXT_MAX_BLOCKS EXT_MAX_EXTENT_LBLK /* logical blocks a tree maps */
#define EXT_ENTRY_SIZE 12
/* The longest unwritten extent (a length above 32768 marks one). */
#define EXT_UNWRITTEN_MAX (EXT_INIT_MAX_LEN - 1)

static inline bool ext_unwritten(const struct ext3_extent *ex)
{
	return ex->ee_len > EXT_INIT_MAX_LEN;
}

static inline uint32_t ext_len(const struct ext3_extent *ex)
{
	return ext_unwritten(ex) ? ex->ee_len - (uint32_t)EXT_INIT_MAX_LEN
				 : ex->ee_len;
}

static inline uint64_t ext_pblk(const struct ext3_extent *ex)
{
	return ex->ee_start | (uint64_t)ex->ee_start_hi << 32;
}

static inline uint64_t idx_pblk(const struct ext3_extent_idx *ix)
{
	return ix->ei_leaf | (uint64_t)ix->ei_leaf_hi << 32;
}

static inline uint32_t ext_max_len(bool unwritten)
{
	return unwritten ? EXT_UNWRITTEN_MAX : EXT_INIT_MAX_LEN;
}

/* Fill @ex: [@lblk, @lblk + @len) at @pblk, unwritten or not. */
static inline void ext_set(struct ext3_extent *ex,
			   uint64_t lblk,
			   uint32_t len,
			   uint64_t pblk,
			   bool unwritten)
{
	ex->ee_block = (uint32_t)lblk;
	ex->ee_len = (uint16_t)(len + (unwritten ? EXT_INIT_MAX_LEN : 0));
	ex->ee_start = (uint32_t)pblk;
	ex->ee_start_hi = (uint16_t)(pblk >> 32);
}

static inline struct ext3_extent *ext_first(struct ext3_extent_header *eh)
{
	return (struct ext3_extent *)(eh + 1);
}

static inline struct ext3_extent_idx *idx_first(struct ext3_extent_header *eh)
{
	return (struct ext3_extent_idx *)(eh + 1);
}

/* The first logical block of entry @i of a node (extent or index). */
static inline uint32_t node_key(struct ext3_extent_header *eh, int i)
{
	return *(uint32_t *)((char *)(eh + 1) + (size_t)i * EXT_ENTRY_SIZE);
}

struct ext_level {
	struct ext3_extent_header *eh;
	struct ext2_buf *b; /* NULL: the root, in i_data */
	int pos;
};

struct ext_path {
	int depth;
	uint64_t next; /* the first key after lblk's leaf entry, or max */
	struct ext_level lv[EXT_MAX_DEPTH + 1];
};

/* extent.c */
/* Read and check the node at @pblk, @depth, whose keys start at @key. */
struct ext2_buf *
ext_read_node(struct inode *inode, uint32_t pblk, int depth, uint64_t key);
/* The last of @n entries of @size bytes from @v whose key is at most
 * @lblk, or -1. */
int ext_last_at_or_before(const void *v,
			  unsigned int n,
			  size_t size,
			  uint64_t lblk);

/* extent_insert.c */
/* The path to @lblk. Return: 0 or -EUCLEAN/-EBADMSG/-EIO (reported). */
int ext_find(struct inode *inode, uint64_t lblk, struct ext_path *p);
void ext_put(struct inode *inode, struct ext_path *p);
/* Level @l of @p changed: dirty its block (checksum tail set) or the
 * inode. */
void ext_dirty(struct inode *inode, struct ext_path *p, int l);
/* Level @l's first key changed: set the keys above it. */
void ext_fix_keys(struct inode *inode, struct ext_path *p, int l);
/* The extent of @p's leaf that covers @lblk, or NULL. */
struct ext3_extent *ext_covering(struct ext_path *p, uint64_t lblk);
/* Map [@lblk, @lblk + @len) at @pblk, a range the tree leaves unmapped,
 * merging with a neighbour that continues it. Return: 0, -ENOSPC (for a
 * new node: the tree is unchanged), -EFBIG, -EIO, -EUCLEAN. */
int ext_insert(struct inode *inode,
	       uint64_t lblk,
	       uint32_t len,
	       uint64_t pblk,
	       bool unwritten);
/* Count @n blocks more (or fewer) in i_blocks. */
void ext_account(struct inode *inode, int64_t n);
/* A goal for a new block at @lblk: after the extent before it. */
uint32_t ext_goal(struct inode *inode, struct ext_path *p, uint64_t lblk);

/* extent_remove.c */
/* Unmap [@first, @end); with @free, free its blocks. Nodes left empty are
 * freed. Return: 0 or a negative errno (-ENOSPC: splitting an extent
 * needed a node; what was unmapped before stays unmapped). */
int ext_remove(struct inode *inode, uint64_t first, uint64_t end, bool free);
/* Make the tree as shallow as its entries allow. */
void ext_shrink(struct inode *inode);

/* extent_falloc.c */
/* Set [@first, @end), mapped, to written or unwritten (splitting
 * extents). */
int ext_convert(struct inode *inode,
		uint64_t first,
		uint64_t end,
		bool unwritten);

/*
 * fs/ext2/htree.h: the htree's on-disk index layout and the walk that
 * htree.c (look-ups) shares with htree_insert.c and htree_split.c
 * (inserting, splitting, indexing and un-indexing a directory).
 * Caller holds the directory's i_rwsem (exclusive to change it).
 */
#pragma once

#include "ext2.h"

#define DX_ROOT_INFO	24 /* after "." (12 bytes) and ".." (12 bytes) */
#define DX_ROOT_ENTRIES 32 /* after the 8-byte root info */
#define DX_NODE_ENTRIES 8  /* after the empty record */
#define DX_MAX_LEVELS	2  /* the root and one level more (no largedir) */
#define DX_BLOCK_MASK	0x0fffffffu
#define DX_TAIL_LEN	8 /* metadata_csum: reserved word, checksum */

struct dx_entry {
	uint32_t hash; /* entry 0: limit (16 bits) and count (16 bits) */
	uint32_t block;
};

struct dx_root_info {
	uint32_t reserved_zero;
	uint8_t hash_version;
	uint8_t info_length;
	uint8_t indirect_levels;
	uint8_t unused_flags;
};

/* One index block on the way down: its entries and the one taken. */
struct dx_frame {
	struct ext2_buf *b;
	uint64_t lblk; /* the index block's logical block */
	struct dx_entry *e;
	unsigned int count, limit, at;
};

static inline struct dx_root_info *ext2_dx_info(struct ext2_buf *root)
{
	return (struct dx_root_info *)((char *)root->b_data + DX_ROOT_INFO);
}

/* Read logical block @lblk of @dir (checksum checked). */
struct ext2_buf *ext2_dx_read(struct inode *dir, uint64_t lblk);
/* The root into @f, @name's hash in *hash. Return: the levels below the
 * root, EXT2_DX_FALLBACK (an index not to trust, reported) or errno. */
int ext2_dx_root(struct inode *dir,
		 struct dx_frame *f,
		 const char *name,
		 size_t len,
		 uint32_t *hash);
/* The interior block below @parent's chosen entry into @f. Return: 0,
 * EXT2_DX_FALLBACK or errno. */
int ext2_dx_descend(struct inode *dir,
		    const struct dx_frame *parent,
		    struct dx_frame *f,
		    uint32_t hash);
/* The logical block of @f's chosen child (checked against the size). */
int ext2_dx_child(struct inode *dir, const struct dx_frame *f, uint64_t *lblk);
/* The hash version names are hashed with (the unsigned variant if the
 * superblock says so). */
unsigned int ext2_dx_version(struct inode *dir,
			     const struct dx_root_info *info);

/* htree_split.c */
/* How many index entries fit in an index block whose entries start at
 * byte @off (before the checksum tail). */
unsigned int ext2_dx_limit(struct inode *dir, unsigned int off);
/* Put (@hash, @lblk) after @f's chosen entry; the block is dirtied with
 * its checksum. Caller checked f->count < f->limit. */
void ext2_dx_insert(struct inode *dir,
		    struct dx_frame *f,
		    uint32_t hash,
		    uint64_t lblk);
/* A new block at the directory's end: *lblk and its zeroed buffer. */
struct ext2_buf *ext2_dx_new_block(struct inode *dir, uint64_t *lblk);
/* Split full leaf @leaf (@lblk), @f's chosen child, by hash (names hashed
 * with @version): the upper half to a new block, added to @f. */
int ext2_dx_split_leaf(struct inode *dir,
		       struct dx_frame *f,
		       unsigned int version,
		       struct ext2_buf *leaf,
		       uint64_t lblk);
/* The root is full (no level below): its entries move to a new node. */
int ext2_dx_grow(struct inode *dir, struct dx_frame *root);
/* Node @node is full, the root has room: half of it to a new node. */
int ext2_dx_split_node(struct inode *dir,
		       struct dx_frame *root,
		       struct dx_frame *node);

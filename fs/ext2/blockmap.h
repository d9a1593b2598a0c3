/*
 * fs/ext2/blockmap.h: what the block-map files share (blockmap.c maps one
 * block; blockmap_range.c frees and allocates ranges; blockmap_shift.c
 * moves pointers for collapse and insert). Not for the rest of ext2:
 * ext2.h has their public functions. Unless said otherwise the caller
 * holds i_map_lock.
 */
#pragma once

#include "ext2.h"

/* The pointer path to @lblk: offs[0] indexes i_data, offs[1..depth] the
 * indirect blocks. Return: depth, or -EFBIG. Needs no lock. */
int ext2_block_path(struct ext2_sb_info *sbi, uint64_t lblk, uint32_t offs[4]);
/* Blocks from the hole at level @k of a depth-@depth path to its end. */
uint64_t ext2_hole_len(struct ext2_sb_info *sbi,
		       const uint32_t offs[4],
		       int depth,
		       int k);
/* Is @blk, read from the map for @lblk, in the data area? (Reported.) */
bool ext2_check_ptr(struct inode *inode, uint32_t blk, uint64_t lblk);
/* Allocate a block into *slot (in @holder's block, or i_data if NULL),
 * zeroed when @indirect; count it in i_blocks. */
int ext2_alloc_slot(struct inode *inode,
		    uint32_t *slot,
		    struct ext2_buf *holder,
		    bool indirect,
		    uint32_t *out);

/* A slot of the map: i_data[] (holder NULL) or in an indirect block. */
struct slot_ref {
	uint32_t *slot;
	struct ext2_buf *holder; /* referenced; ext2_brelse when done */
	uint32_t left;		 /* slots from this one to its block's end */
};

/* Logical blocks [start, start + len): mapped runs of a file. */
struct run {
	uint64_t start, len;
};

struct runs {
	struct run *v;
	size_t nr, cap;
};

/* @ref's slot changed: dirty its indirect block or the inode. */
void ext2_slot_dirty(struct inode *inode, struct slot_ref *ref);
/* Walk to @lblk's slot. With @create, missing indirect blocks on the way
 * are allocated (never the data block); without, a missing one gives
 * -ENOENT and *skip, the blocks from @lblk on that its branch covers. */
int ext2_find_slot(struct inode *inode,
		   uint64_t lblk,
		   bool create,
		   struct slot_ref *ref,
		   uint64_t *skip);
/* Append @lblk (ascending) to @r. Return: 0 or -ENOMEM. */
int ext2_runs_add(struct runs *r, uint64_t lblk);
/* The mapped blocks in [@lblk, @end) as runs. */
int ext2_collect_runs(struct inode *inode,
		      uint64_t lblk,
		      uint64_t end,
		      struct runs *r);
/* What free_branch frees. */
enum {
	FREE_DATA = 1,	   /* the data blocks of the range */
	FREE_INDIRECT = 2, /* the range's indirect blocks left empty */
};

/* Free what @what says in logical blocks [@first, @end). */
int ext2_free_range_locked(struct inode *inode,
			   uint64_t first,
			   uint64_t end,
			   int what);

/*
 * fs/ext2/ext2.h: ext2's private interface between its files.
 *
 * On-disk structures come from e2fsprogs' <ext2fs/ext2_fs.h>; the fields
 * are little-endian, which is also riscv64's order, so they are used as is.
 *
 * Locks, outermost first (see also fs/vfs.h and docs/design.md):
 *   inode->i_rwsem             directory entries of a directory; writes and
 *                              truncate of a file (the VFS or file.c takes it)
 *   mapping->invalidate_lock   X around truncate (inode.c); S around the
 *                              reads that fill the cache (mm/, caller)
 *   ei->i_map_lock             the inode's block map: i_data[], its indirect
 *                              blocks or extent-tree nodes, i_blocks, i_goal
 *                              (LOCK_RANK_FS_BLOCKMAP)
 *   sbi->s_alloc_lock          bitmaps, group descriptors, the superblock's
 *                              free counts (LOCK_RANK_FS_BLOCKMAP + 1: taken
 *                              inside i_map_lock when a block is allocated)
 *   buffer b_io_lock           one metadata block's read-in and writes
 *                              (buffer.c)
 *   sbi->s_bcache.lock         the buffer cache's index and LRU (spinlock)
 */
#pragma once

#include <sys/statfs.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext3_extents.h>
#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <fs/vfs.h>

struct block_device;

/* Rank of s_alloc_lock: nests inside the block-map lock. */
#define EXT2_RANK_ALLOC (LOCK_RANK_FS_BLOCKMAP + 1)
/* Rank of a buffer's read-in lock: inside both of the above. */
#define EXT2_RANK_BUF (LOCK_RANK_FS_BLOCKMAP + 2)

#define EXT2_NDIR		12 /* direct pointers in i_block[] */
#define EXT2_BCACHE_HASH	256
#define EXT2_BCACHE_MAX_CLEAN	2048 /* unreferenced clean buffers kept */
#define EXT2_BSYNC_BATCH	16 /* dirty buffers written in one round trip */
#define EXT2_MAX_BLOCKSIZE_BITS 12 /* 4 KiB = PAGE_SIZE: one page */
#define EXT2_REUSE_MAX		64 /* freed blocks a test can reuse */
#define EXT2_POISON_BYTE	0xa5 /* what a test sees in a freed block */

/* One cached filesystem block of metadata (buffer.c). */
struct ext2_buf {
	uint32_t b_blocknr;
	void *b_data;		/* blocksize bytes */
	struct mutex b_io_lock; /* serialises read-in, writes, forget */
	/* protected by bcache.lock: */
	int b_count; /* references */
	bool b_hashed;
	struct list_head b_hash;
	struct list_head b_lru; /* unreferenced buffers, oldest first */
	/* atomic: */
	int b_dirty;
	bool b_uptodate; /* set (release) under b_io_lock, read (acquire) */
	bool b_csum_ok;	 /* metadata_csum: checked since read (atomic) */
};

struct ext2_bcache {
	struct spinlock lock;
	struct list_head hash[EXT2_BCACHE_HASH];
	struct list_head lru;
	unsigned long nr_lru;
};

/* A run of metadata blocks [start, end): superblock and descriptor
 * copies, bitmaps, inode tables (zone.c). */
struct ext2_zone {
	uint32_t start, end;
};

struct ext2_sb_info {
	struct super_block *s_sb;
	struct block_device *s_bdev;
	struct ext2_bcache s_bcache;
	/* read-only after mount: */
	uint32_t s_blocks_count, s_inodes_count, s_first_data_block;
	uint32_t s_blocks_per_group, s_inodes_per_group, s_groups_count;
	uint32_t s_first_ino, s_inode_size, s_desc_blocks, s_itb_per_group;
	uint32_t s_addr_per_block;
	unsigned int s_addr_bits; /* log2(s_addr_per_block) */
	unsigned int s_sect_per_block;
	uint32_t s_desc_size; /* bytes per group descriptor: 32 or 64+ */
	bool s_ext4;	      /* mounted as "ext4" (features.c) */
	bool s_filetype, s_sparse;
	/* ext4 (features.c): extents allowed; metadata_csum with its seed */
	bool s_extents, s_flex_bg, s_csum, s_huge_file;
	uint32_t s_csum_seed;
	/* the metadata blocks, sorted and merged (zone.c) */
	struct ext2_zone *s_zone;
	uint32_t s_zone_nr;
	uint32_t s_time_floor;	    /* the newest time the image holds */
	unsigned long s_map_walks;  /* atomic: block-map walks by reads */
	unsigned long s_dx_lookups; /* atomic: look-ups through an htree */
	/* atomic: block-map walks that may allocate (writes, fallocate) */
	unsigned long s_alloc_walks;
	struct mutex s_alloc_lock;
	/* protected by s_alloc_lock: */
	struct ext2_super_block s_es; /* the primary superblock */
	void *s_gd;		      /* s_groups_count, s_desc_size each */
	bool s_dirty;		      /* s_es or s_gd changed since sync */
	/* with metadata_csum, per group: EXT2_CSUM_STALE(which) set while
	 * the bitmap has changed since its checksum was set (group.c) */
	uint8_t *s_csum_stale;
	uint32_t s_last_group; /* where directories spread from */
	/* tests only (ext2_debug_reuse_freed): freed blocks are poisoned and
	 * handed out again first, oldest first */
	bool s_debug_reuse;
	unsigned int s_reuse_head, s_reuse_n;
	uint32_t s_reuse[EXT2_REUSE_MAX];
};

struct ext2_inode_info {
	struct inode vfs_inode;
	struct mutex i_map_lock;
	/* protected by i_map_lock: */
	uint32_t i_data[EXT2_N_BLOCKS]; /* pointers, or an extent-tree root */
	uint32_t i_goal; /* next block to try: after the last one */
	/* read-only after read_inode: */
	const struct ext2_map_ops *i_map; /* which block map i_data holds */
	uint32_t i_csum_seed;		  /* metadata_csum: crc of ino, gen */
	/* protected by the inode's i_rwsem (or private while new/evicting): */
	uint32_t i_flags, i_dtime, i_file_acl, i_generation;
	uint32_t i_block_group;
	/* protected by i_rwsem (exclusive), from write_begin to write_end:
	 * bit j set = block i_wnew_first + j was a hole that this write
	 * allocated (freed again if the write fails). */
	uint64_t i_wnew_first;
	uint32_t i_wnew_mask;
	/* protected by i_rwsem (exclusive), within one ext2_file_write: the
	 * blocks of a write past EOF are mapped a run at a time (file.c);
	 * [i_ahead_next, i_ahead_end) are mapped and not written yet, and no
	 * run reaches i_ahead_limit, the block after the write's last. */
	uint64_t i_ahead_next, i_ahead_end, i_ahead_limit;
};

/*
 * The block map: one interface, two implementations - indirect blocks
 * (blockmap*.c, ext2_indirect_map) and the extent tree (extent*.c,
 * ext2_extent_map). ext2_map_run() and ext2_get_block() go through it;
 * the calls that change a map (allocation, ranges) each start with the
 * extent tree's own version (ext2_ext_*) for an extent-mapped inode.
 */
struct ext2_map_ops {
	const char *name;
	/* See ext2_map_run. Context: takes i_map_lock. */
	int (*map_run)(struct inode *inode,
		       uint64_t lblk,
		       uint32_t max,
		       uint32_t *pblk,
		       uint64_t *len);
	/* The largest number of logical blocks a file can map. */
	uint64_t (*max_blocks)(struct ext2_sb_info *sbi);
	bool writable;
};
extern const struct ext2_map_ops ext2_indirect_map, ext2_extent_map;
/* extent.c: check the tree's root in i_data (read_inode). Return: 0 or
 * -EUCLEAN, reported. */
int ext2_extent_check_root(struct inode *inode);
/* blockmap.c: 0 if @inode's map can be changed, else -EROFS (and a
 * warning: nothing should try). */
int ext2_map_writable(struct inode *inode);
static inline bool ext2_has_extents(struct inode *inode)
{
	return container_of(inode, struct ext2_inode_info, vfs_inode)->i_map ==
	       &ext2_extent_map;
}
/* The largest number of logical blocks @inode's map holds. */
uint64_t ext2_inode_max_blocks(struct inode *inode);
/* extent_map.c, extent_remove.c, extent_falloc.c: the calls of the
 * same names without "ext_" below, for an extent-mapped inode (each
 * takes i_map_lock). */
int ext2_ext_get_block_new(struct inode *inode,
			   uint64_t lblk,
			   uint32_t *pblk,
			   bool *new);
int ext2_ext_alloc_run(struct inode *inode,
		       uint64_t lblk,
		       uint32_t max,
		       uint32_t *pblk,
		       uint32_t *count);
int ext2_ext_free_range(struct inode *inode, uint64_t first, uint64_t end);
int ext2_ext_alloc_range(struct inode *inode,
			 uint64_t first,
			 uint64_t end,
			 uint64_t zero_first,
			 uint64_t zero_end);
int ext2_ext_collapse(struct inode *inode, uint64_t first, uint64_t n);
int ext2_ext_insert(struct inode *inode, uint64_t first, uint64_t n);
/* extent_reseed.c: @inode's node blocks checked (@write false), or their
 * checksum tails set for seed @seed (swapext). */
int ext2_ext_reseed(struct inode *inode, uint32_t seed, bool write);

static inline struct ext2_inode_info *EXT2_I(struct inode *inode)
{
	return container_of(inode, struct ext2_inode_info, vfs_inode);
}

static inline struct ext2_sb_info *EXT2_SBI(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline unsigned int ext2_rec_len(unsigned int name_len)
{
	return (name_len + EXT2_DIR_ENTRY_HEADER_LEN + EXT2_DIR_ROUND) &
	       ~EXT2_DIR_ROUND;
}

/* Group @g's descriptor; only its first 32 bytes (the ext2 fields, low
 * words) on 64-byte descriptors: ext2_gd_block() has the whole numbers. */
static inline struct ext2_group_desc *ext2_gd(struct ext2_sb_info *sbi,
					      uint32_t g)
{
	return (struct ext2_group_desc *)((char *)sbi->s_gd +
					  (size_t)g * sbi->s_desc_size);
}

enum ext2_gd_block {
	EXT2_GD_BLOCK_BITMAP,
	EXT2_GD_INODE_BITMAP,
	EXT2_GD_INODE_TABLE
};

/* super.c */
/* A group's bitmap or inode-table block, high word included (checked at
 * mount to lie inside the filesystem, which has fewer than 2^32 blocks). */
uint32_t
ext2_gd_block(struct ext2_sb_info *sbi, uint32_t g, enum ext2_gd_block which);
void ext2_sb_mark_dirty(struct ext2_sb_info *sbi);
/* Seconds for on-disk times: current_time(), but never before the times
 * the image already holds (the clock may count from boot). */
uint32_t ext2_now(struct ext2_sb_info *sbi);
bool ext2_group_has_super(struct ext2_sb_info *sbi, uint32_t group);
int ext2_sync_fs(struct super_block *sb, bool wait);
void ext2_put_super(struct super_block *sb);

/* features.c: which features a type mounts, and how. Return: 0, 1 to
 * mount read-only (said on the console), or -EINVAL to refuse. */
int ext2_check_features(struct ext2_sb_info *sbi, bool ext4);
/* The superblock's (before any feature decision) and every descriptor's
 * checksum (metadata_csum). Return: 0 or -EBADMSG, reported. */
int ext2_check_sb_csum(struct ext2_sb_info *sbi);
int ext2_check_gd_csums(struct ext2_sb_info *sbi);

/* zone.c: the metadata blocks, as Linux's ext4 "system zone". */
int ext2_zone_build(struct ext2_sb_info *sbi);
void ext2_zone_free(struct ext2_sb_info *sbi);
/* Is [@blk, @blk+@count) inside the fs and clear of the superblocks,
 * descriptors, bitmaps and inode tables? */
bool ext2_data_blocks_valid(struct ext2_sb_info *sbi,
			    uint32_t blk,
			    uint32_t count);
/* How many blocks from @blk on, at most @max, pass that check: one look
 * at each group's metadata instead of one check per block. */
uint32_t ext2_data_run(struct ext2_sb_info *sbi, uint32_t blk, uint32_t max);

/* csum.c: CRC32C (ext4's chaining: no inversions) and the metadata
 * checksums. The *_ok verifiers accept everything without metadata_csum. */
uint32_t ext2_crc32c(uint32_t crc, const void *buf, size_t len);
bool ext2_sb_csum_ok(const struct ext2_super_block *es);
uint32_t ext2_fs_csum_seed(const struct ext2_super_block *es);
bool ext2_gd_csum_ok(struct ext2_sb_info *sbi, uint32_t group, const void *gd);
uint32_t ext2_inode_csum_seed(struct ext2_sb_info *sbi,
			      unsigned long ino,
			      uint32_t generation);
bool ext2_inode_csum_ok(struct ext2_sb_info *sbi,
			uint32_t seed,
			const struct ext2_inode_large *raw);
bool ext2_extent_block_csum_ok(struct inode *inode, const void *block);
/* Block @lblk of @dir: a leaf with its tail, or an htree index block. */
bool ext2_dir_block_csum_ok(struct inode *dir,
			    uint64_t lblk,
			    const void *block);
/* The computations behind the verifiers, for csum_set.c: a descriptor's
 * (16 bits); an inode's (*with_hi: 32 bits, else the low 16); a leaf's
 * (up to its tail); an index block's (-EUCLEAN if its limit and count do
 * not fit; *tail: the offset of its 8-byte tail). */
uint16_t ext2_gd_csum(struct ext2_sb_info *sbi, uint32_t group, const void *gd);
uint32_t ext2_inode_csum(struct ext2_sb_info *sbi,
			 uint32_t seed,
			 const struct ext2_inode_large *raw,
			 bool *with_hi);
uint32_t ext2_dir_leaf_csum(struct inode *dir, const void *block);
int ext2_dx_csum(struct inode *dir,
		 const void *block,
		 bool root,
		 uint32_t *crc,
		 size_t *tail);
/* A directory leaf's checksum tail: a record of no inode, rec_len 12,
 * name_len 0, type 0xDE, then the checksum, in the block's last 12 bytes. */
#define EXT2_DIR_TAIL_LEN 12
#define EXT2_DIR_TAIL_FT  0xde
bool ext2_is_dir_tail(const struct ext2_dir_entry_2 *de);
/* What block @lblk of @dir is: a leaf, the htree root or an index node. */
enum { EXT2_DIR_LEAF, EXT2_DIR_DX_ROOT, EXT2_DIR_DX_NODE };
int ext2_dir_block_kind(struct inode *dir, uint64_t lblk, const void *block);

/* csum_set.c: each checksum set at the one point where its structure is
 * written or dirtied (docs/ext4.md). All do nothing without metadata_csum.
 * Superblock and descriptors: before write_super_and_descs writes them. */
void ext2_sb_csum_set(struct ext2_sb_info *sbi);
void ext2_gd_csum_set(struct ext2_sb_info *sbi, uint32_t group);
/* The descriptor's checksum of group @g's bitmap @which (block or inode
 * bitmap), from @map. Caller holds s_alloc_lock. */
void ext2_bitmap_csum_set(struct ext2_sb_info *sbi,
			  uint32_t g,
			  enum ext2_gd_block which,
			  const void *map);
/* Set the checksum of each bitmap changed since its last one (group.c).
 * Caller holds s_alloc_lock. Return: 0, or -EIO/-ENOMEM (those left
 * stale). */
int ext2_bitmap_csums_update(struct ext2_sb_info *sbi);
#define EXT2_CSUM_STALE(which) (1u << (which))
/* A bitmap's checksum (of its group's bits only), and whether group @g's
 * descriptor holds it (always true without metadata_csum). */
uint32_t ext2_bitmap_csum(struct ext2_sb_info *sbi,
			  enum ext2_gd_block which,
			  const void *map);
bool ext2_bitmap_csum_ok(struct ext2_sb_info *sbi,
			 uint32_t g,
			 enum ext2_gd_block which,
			 const void *map);
/* The inode in slot @raw, after every other field is final. */
void ext2_inode_csum_set(struct ext2_sb_info *sbi,
			 uint32_t seed,
			 struct ext2_inode_large *raw);
/* Directory block @lblk of @dir: its leaf tail's or index tail's checksum.
 * Return: 0, or -EUCLEAN for an index block whose count does not fit. */
int ext2_dir_block_csum_set(struct inode *dir, uint64_t lblk, void *block);
/* Write an empty tail record in a leaf's last 12 bytes. */
void ext2_dir_tail_init(struct inode *dir, void *block);
/* The bytes of a leaf that entries may use: all but the tail's. */
unsigned int ext2_dir_leaf_space(struct inode *dir);

/* buffer.c */
void ext2_bcache_init(struct ext2_bcache *bc);
/* A referenced, uptodate buffer for @blk, or ERR_PTR(-EIO/-ENOMEM). */
struct ext2_buf *ext2_bread(struct ext2_sb_info *sbi, uint32_t blk);
/* The same without reading: the caller overwrites all of it (new block). */
struct ext2_buf *ext2_bget_new(struct ext2_sb_info *sbi, uint32_t blk);
void ext2_brelse(struct ext2_sb_info *sbi, struct ext2_buf *b);
void ext2_bmark_dirty(struct ext2_buf *b);
/* @blk was freed: drop its buffer, dirty or not, so that it is never
 * written over the block's next owner. */
void ext2_bforget(struct ext2_sb_info *sbi, uint32_t blk);
int ext2_bwrite(struct ext2_sb_info *sbi, struct ext2_buf *b);
/* Write every dirty buffer. */
int ext2_bsync_all(struct ext2_sb_info *sbi);
/* Free every buffer (unmount, failed mount); none may be referenced. */
void ext2_bcache_destroy(struct ext2_sb_info *sbi);
int ext2_read_blocks(struct ext2_sb_info *sbi,
		     uint32_t blk,
		     void *buf,
		     uint32_t count);
int ext2_write_blocks(struct ext2_sb_info *sbi,
		      uint32_t blk,
		      const void *buf,
		      uint32_t count);

/* balloc.c */
/* Allocate one block near @goal for @inode (i_blocks is the caller's). */
int ext2_new_block(struct inode *inode, uint32_t goal, uint32_t *out);
/* Allocate a block near @goal and the free ones that follow it on disk:
 * *count of them, 1 to @max. */
int ext2_new_blocks(struct inode *inode,
		    uint32_t goal,
		    uint32_t max,
		    uint32_t *out,
		    uint32_t *count);
void ext2_free_blocks(struct inode *inode, uint32_t blk, uint32_t count);
/* For race reproducers: from now on (@on), every freed block is filled
 * with EXT2_POISON_BYTE on disk and is the next one allocated, oldest
 * first - stale data and cross-file corruption show at once. */
void ext2_debug_reuse_freed(struct super_block *sb, bool on);
/* group.c: bitmaps as the allocators change them; uninitialised groups
 * (BLOCK_UNINIT, INODE_UNINIT) built on first use. Caller holds
 * s_alloc_lock. */
struct ext2_buf *
ext2_bitmap_get(struct ext2_sb_info *sbi, uint32_t g, enum ext2_gd_block which);
/* After a change to @b, group @g's bitmap @which: dirty, its checksum
 * stale until the next write of the descriptors. */
void ext2_bitmap_dirty(struct ext2_sb_info *sbi,
		       uint32_t g,
		       enum ext2_gd_block which,
		       struct ext2_buf *b);
/* Inode @bit of group @g is handed out: bg_itable_unused shrinks past it. */
void ext2_itable_used(struct ext2_sb_info *sbi, uint32_t g, uint32_t bit);
/* Has group @g's inode table been initialized at @bit (below
 * bg_itable_unused, or no uninit tables at all)? */
bool ext2_itable_initialized(struct ext2_sb_info *sbi,
			     uint32_t g,
			     uint32_t bit);
int ext2_inode_slot_free(struct ext2_sb_info *sbi, unsigned long ino);
/* ialloc.c */
int ext2_new_inode_nr(struct inode *dir, mode_t mode, unsigned long *ino);
void ext2_free_inode_nr(struct super_block *sb, unsigned long ino, bool dir);

/* inode.c */
extern const struct super_operations ext2_sops;
bool ext2_inode_valid_nr(struct ext2_sb_info *sbi, unsigned long ino);
/* Map logical block @lblk. Return: 0 with *pblk (0 = hole; *hole then
 * says how many blocks from @lblk on are unmapped, at least 1), or a
 * negative errno (-EUCLEAN: a corrupt pointer, reported). @create
 * allocates. Context: takes i_map_lock. */
int ext2_get_block(struct inode *inode,
		   uint64_t lblk,
		   bool create,
		   uint32_t *pblk,
		   uint64_t *hole);
/* For reads: @lblk and the run of blocks after it that follow it on disk
 * (*len of them, at most @max), or a hole (*pblk 0, *len unmapped), in
 * one walk of the map. Context: takes i_map_lock. */
int ext2_map_run(struct inode *inode,
		 uint64_t lblk,
		 uint32_t max,
		 uint32_t *pblk,
		 uint64_t *len);
/* A walk of a batch of blocks, ascending, that maps each block from the
 * run in hand and walks the map only for a new run (reads, writeback). */
struct ext2_run_cursor {
	uint64_t lblk, len; /* the run: len blocks from lblk */
	uint32_t pblk;	    /* at pblk on (0: a hole) */
	uint64_t last;	    /* the batch's last block: runs stop there */
	unsigned long walks;
};
/* Map @lblk (<= @c->last) through @c: *pblk, 0 for a hole. Return: 0 or
 * a negative errno as ext2_map_run. Context: takes i_map_lock. */
int ext2_run_map(struct inode *inode,
		 struct ext2_run_cursor *c,
		 uint64_t lblk,
		 uint32_t *pblk);
/* ext2_get_block with create that also says whether the block was a
 * hole that this call allocated. */
int ext2_get_block_new(struct inode *inode,
		       uint64_t lblk,
		       uint32_t *pblk,
		       bool *new);
/* Map the hole at @lblk and the holes after it in the same pointer block,
 * up to @max, with blocks that follow one another on disk, in one walk of
 * the map and one pass over a bitmap: *count of them from *pblk (0 if
 * @lblk is mapped already). Context: takes i_map_lock and s_alloc_lock.
 * Return: 0, -ENOSPC, -EFBIG, -EIO or -EUCLEAN. */
int ext2_alloc_run(struct inode *inode,
		   uint64_t lblk,
		   uint32_t max,
		   uint32_t *pblk,
		   uint32_t *count);
uint64_t ext2_max_blocks(struct ext2_sb_info *sbi);
/* blockmap_range.c, blockmap_shift.c: ranges of the block map (their
 * shared helpers: blockmap.h). Caller holds i_rwsem exclusive and, for a
 * file's data, invalidate_lock exclusive with the page cache of the range
 * already dropped (or owns the inode: eviction). They take i_map_lock. */
/* Free every block at or past byte @size. */
int ext2_truncate_blocks(struct inode *inode, loff_t size);
/* Free logical blocks [@first, @end) and the indirect blocks left empty. */
int ext2_free_range(struct inode *inode, uint64_t first, uint64_t end);
/* Free only the indirect blocks of [@first, @end) that map nothing. */
void ext2_free_empty_indirect(struct inode *inode,
			      uint64_t first,
			      uint64_t end);
/* Map every block of [@first, @end), zeroing on disk each new one and
 * each one in [@zero_first, @zero_end). On failure the blocks this call
 * allocated are freed again: the map is as before. */
int ext2_alloc_range(struct inode *inode,
		     uint64_t first,
		     uint64_t end,
		     uint64_t zero_first,
		     uint64_t zero_end);
/* Collapse: free [@first, @first+@n) and move every block after it @n
 * down. Insert: move every block at or past @first @n up, leaving a hole.
 * -ENOSPC/-EFBIG leave the map unchanged. */
int ext2_collapse_blocks(struct inode *inode, uint64_t first, uint64_t n);
int ext2_insert_blocks(struct inode *inode, uint64_t first, uint64_t n);
int ext2_setattr(struct inode *inode, const struct iattr *attr);
/* i_op->get_flags: the on-disk i_flags that lsattr shows. */
unsigned int ext2_get_flags(struct inode *inode);
/* The file is about to grow past @old: zero the rest of @old's block in
 * the cache and on disk. Caller holds i_rwsem and invalidate_lock
 * exclusive. */
int ext2_zero_past_eof(struct inode *inode, loff_t old);
/* Does i_data hold a block map (files, directories, slow symlinks)? */
bool ext2_inode_has_block_map(struct inode *inode);
/* inode_ext4.c: what ext4 adds to an inode read from slot @raw of
 * inode-table block @tblk: first the checksum (-EBADMSG) and the extent
 * flag (which map i_data holds); then, over the ext2 fields, i_blocks'
 * high word and the times' nanoseconds (ext2_read_inode_ext4_fields).
 * Return: 0 or a negative errno, reported. */
int ext2_read_inode_ext4(struct inode *inode,
			 const struct ext2_inode *raw,
			 uint32_t tblk);
void ext2_read_inode_ext4_fields(struct inode *inode,
				 const struct ext2_inode *raw);
/* A new inode on a filesystem with extents: regular files and
 * directories get EXT4_EXTENTS_FL and an empty extent root, as Linux
 * gives them. Context: the inode is new, private to the caller. */
void ext2_new_inode_ext4(struct inode *inode);
/* i_blocks into @raw (i_flags already there): with huge_file the high 16
 * bits too, and past 2^48 sectors in filesystem blocks, with
 * EXT4_HUGE_FILE_FL. Caller holds i_map_lock. */
void ext2_fill_raw_blocks(struct inode *inode, struct ext2_inode *raw);
/* Write side (ext4 mount): the ext4 fields of a slot fill_raw has filled,
 * the checksum last (write_inode). A new inode's slot: its checksum seed;
 * on ext4, the slot zeroed with i_extra_isize and the creation time (the
 * table of a group mke2fs left uninitialised may hold anything). */
void ext2_write_inode_ext4(struct inode *inode, struct ext2_inode *raw);
void ext2_init_inode_slot(struct inode *inode, struct ext2_inode *raw);
/* Set up a freshly allocated inode number as a new inode of @mode. */
struct inode *ext2_new_inode(struct inode *dir, mode_t mode);
void ext2_set_ops(struct inode *inode);
/* Set RO_COMPAT_LARGE_FILE once a regular file passes 2 GiB. */
void ext2_note_large_file(struct ext2_sb_info *sbi, struct inode *inode);

/* file.c */
/* falloc.c */
long ext2_fallocate(struct file *f, int mode, loff_t off, loff_t len);
extern const struct address_space_operations ext2_aops;
extern const struct file_operations ext2_file_fops;
extern const struct inode_operations ext2_file_iops;
/* fs/ext2/dir.c, for fs/ext2/readdir.c: record @off of directory block
 * @pblk is sound (or -EUCLEAN, with a message), and the record there. */
int ext2_check_entry(struct inode *dir,
		     uint32_t pblk,
		     unsigned int off,
		     const struct ext2_dir_entry_2 *de);
struct ext2_dir_entry_2 *ext2_entry_at(struct ext2_buf *b, unsigned int off);
/* Directory block @lblk (at @pblk) of @dir, its checksum checked once per
 * read from disk (metadata_csum): a buffer or ERR_PTR(-EBADMSG/-EIO). */
struct ext2_buf *
ext2_dir_bread(struct inode *dir, uint64_t lblk, uint32_t pblk);

/* Data bios carry up to this many pieces (fs/ext2/read.c, file.c). */
#define EXT2_BIO_VECS 32

/* fs/ext2/read.c: the address-space read operations. */
struct readahead_control;
int ext2_read_page(struct address_space *m, struct page *page);
void ext2_readahead(struct readahead_control *rac);
/* swapext (fs/ext2/swap.c): i_op->swap_contents. */
int ext2_swap_contents(struct inode *a, struct inode *b);

/* dir.c: entries of linear directories. Caller holds the dir's i_rwsem. */
int ext2_find_entry(struct inode *dir,
		    const char *name,
		    size_t len,
		    unsigned long *ino);
int ext2_add_entry(struct inode *dir,
		   const char *name,
		   size_t len,
		   unsigned long ino,
		   mode_t mode);
int ext2_delete_entry(struct inode *dir, const char *name, size_t len);
/* Point the existing entry @name at @ino. */
int ext2_set_entry(struct inode *dir,
		   const char *name,
		   size_t len,
		   unsigned long ino,
		   mode_t mode);
/* 1 if @dir holds only "." and "..", 0 if not, or a negative errno. */
int ext2_dir_is_empty(struct inode *dir);
int ext2_make_empty_dir(struct inode *dir, struct inode *parent);
int ext2_set_dotdot(struct inode *dir, unsigned long parent_ino);
extern const struct file_operations ext2_dir_fops;
/* Look @name up through @dir's htree: 0 with *ino, -ENOENT, a negative
 * errno, or EXT2_DX_FALLBACK when the directory has no index this code
 * reads or trusts (htree.c; the caller then scans it). */
#define EXT2_DX_FALLBACK 256
int ext2_dx_find_entry(struct inode *dir,
		       const char *name,
		       size_t len,
		       unsigned long *ino);
/* htree_insert.c: add a name through @dir's htree, keeping it valid.
 * Return: 0, a negative errno, or EXT2_DX_FALLBACK when @dir has no index
 * to keep (not hashed, or on a type that keeps none, or untrusted: the
 * index is then cleared and the caller adds the name linearly). */
int ext2_dx_add_entry(struct inode *dir,
		      const char *name,
		      size_t len,
		      unsigned long ino,
		      mode_t mode);
/* Does this mount keep hashed directories (ext4 type, dir_index)? */
bool ext2_dx_can_index(struct inode *dir);
/* Make the one-block linear @dir hashed. Return: 0, EXT2_DX_FALLBACK (not
 * a layout to index), or errno. */
int ext2_dx_make_indexed(struct inode *dir);
/* dir.c: add a name to leaf @b (logical block @lblk) if it has room.
 * Return: 1 added, 0 no room, or errno. */
int ext2_add_in_leaf(struct inode *dir,
		     uint64_t lblk,
		     struct ext2_buf *b,
		     const char *name,
		     size_t len,
		     unsigned long ino,
		     mode_t mode);
/* dir_block.c: is @de the checksum tail at the end of leaf @b? */
bool ext2_dir_is_csum_tail(struct inode *dir,
			   struct ext2_buf *b,
			   struct ext2_dir_entry_2 *de);
/* Directory block @b (@lblk) was changed: set its checksum, mark dirty. */
void ext2_dir_block_dirty(struct inode *dir, uint64_t lblk, struct ext2_buf *b);
/* dir.c: search one directory block. Return: 1 with *ino, 0, or errno. */
int ext2_find_in_block(struct inode *dir,
		       struct ext2_buf *b,
		       const char *name,
		       size_t len,
		       unsigned long *ino);
/* dx_hash.c: the hash versions of an htree root (and, + 3, the unsigned
 * variants), and the hash of a name: 0, or -1 for an unknown version. */
enum {
	EXT2_DX_LEGACY,
	EXT2_DX_HALF_MD4,
	EXT2_DX_TEA,
	EXT2_DX_LEGACY_UNSIGNED,
	EXT2_DX_HALF_MD4_UNSIGNED,
	EXT2_DX_TEA_UNSIGNED,
};
int ext2_dx_hash(const char *name,
		 size_t len,
		 unsigned int version,
		 const uint32_t seed[4],
		 uint32_t *hash);
/* namei.c */
extern const struct inode_operations ext2_dir_iops;
/* statfs.c */
int ext2_statfs(struct super_block *sb, struct statfs *buf);
/* symlink.c */
extern const struct inode_operations ext2_symlink_iops;
extern const struct inode_operations ext2_special_iops;
/* No data block: the target is in i_block[] (and nothing to free). */
bool ext2_inode_is_fast_symlink(struct inode *inode);
int ext2_write_link(struct inode *inode, const char *target, size_t len);

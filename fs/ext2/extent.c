/*
 * fs/ext2/extent.c: the extent tree - ext4's block map (ext2_extent_map).
 *
 * i_data holds the root: a 12-byte header (magic 0xF30A, entries, max,
 * depth) and up to 4 12-byte entries. At depth 0 they are extents (first
 * logical block, length, 48-bit physical start); above, index entries
 * (first logical block covered, 48-bit block of the child node). A node
 * in a block has the same header, (blocksize - 12) / 12 entries, and with
 * metadata_csum a crc32c of header and entries right after the last
 * possible entry. An extent longer than 32768 is unwritten (preallocated):
 * its length is ee_len - 32768 and it reads as zeroes. docs/ext4.md.
 *
 * Every node is checked before it is used, as Linux's __ext4_ext_check:
 * magic, depth (the root's at most 5, each child one less than its
 * parent), 0 < eh_max <= what fits, eh_entries <= eh_max (and not 0 below
 * the root), entries in ascending order from the parent's key without
 * overlap, every physical block in the data area (zone.c), and a child's
 * checksum. A bad one is reported with the inode and block and gives
 * -EUCLEAN, a checksum mismatch -EBADMSG (Linux's EFSBADCRC); nothing
 * past it is read. A block's checksum is checked once per read from disk
 * (b_csum_ok).
 *
 * The tree is read here; extent_insert.c, extent_remove.c and
 * extent_falloc.c change it (extent.h).
 *
 * Locks: i_map_lock around a walk; child nodes through the buffer cache.
 */
#include <errno.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "extent.h"

static uint64_t ext_max_blocks(struct ext2_sb_info *sbi)
{
	(void)sbi;
	return EXT_MAX_BLOCKS;
}

/* Where a node was read from, for the reports. */
struct ext_where {
	struct inode *inode;
	uint32_t pblk; /* 0: the root, in the inode */
};

static int bad_node(const struct ext_where *w, const char *what, long val)
{
	if (w->pblk)
		pr_err("ext4: inode %lu: extent block %u: %s (%ld)\n",
		       w->inode->i_ino,
		       w->pblk,
		       what,
		       val);
	else
		pr_err("ext4: inode %lu: extent root in the inode: %s (%ld)\n",
		       w->inode->i_ino,
		       what,
		       val);
	return -EUCLEAN;
}

static bool data_valid(struct inode *inode, uint64_t blk, uint64_t count)
{
	return blk + count <= UINT32_MAX &&
	       ext2_data_blocks_valid(EXT2_SBI(inode->i_sb), blk, count);
}

/* Leaf entries: sorted, disjoint, from @key on, each inside the data area. */
static int check_extents(const struct ext_where *w,
			 const struct ext3_extent_header *eh,
			 uint64_t key)
{
	const struct ext3_extent *ex = (const void *)(eh + 1);

	for (unsigned int i = 0; i < eh->eh_entries; i++) {
		uint32_t len = ext_len(&ex[i]);

		if (!len || ex[i].ee_block < key ||
		    (uint64_t)ex[i].ee_block + len > EXT_MAX_BLOCKS + 1)
			return bad_node(w,
					"extents overlap or are out of order "
					"at logical block",
					ex[i].ee_block);
		if (!data_valid(w->inode, ext_pblk(&ex[i]), len))
			return bad_node(w,
					"extent outside the data area at block",
					(long)ext_pblk(&ex[i]));
		key = (uint64_t)ex[i].ee_block + len;
	}
	return 0;
}

static int check_indexes(const struct ext_where *w,
			 const struct ext3_extent_header *eh,
			 uint64_t key)
{
	const struct ext3_extent_idx *ix = (const void *)(eh + 1);

	for (unsigned int i = 0; i < eh->eh_entries; i++) {
		if (ix[i].ei_block < key)
			return bad_node(w,
					"index entries out of order at "
					"logical block",
					ix[i].ei_block);
		if (!data_valid(w->inode, idx_pblk(&ix[i]), 1))
			return bad_node(w,
					"index outside the data area at block",
					(long)idx_pblk(&ix[i]));
		key = (uint64_t)ix[i].ei_block + 1;
	}
	return 0;
}

/* Check a node of @room bytes at @depth (-1: the root, any depth up to
 * the limit) whose entries start at logical block @key or later. */
static int check_node(const struct ext_where *w,
		      const struct ext3_extent_header *eh,
		      size_t room,
		      int depth,
		      uint64_t key)
{
	size_t fits = (room - sizeof(*eh)) / EXT_ENTRY_SIZE;

	if (eh->eh_magic != EXT3_EXT_MAGIC)
		return bad_node(w, "bad magic", eh->eh_magic);
	if (depth < 0 ? eh->eh_depth > EXT_MAX_DEPTH : eh->eh_depth != depth)
		return bad_node(w, "unexpected depth", eh->eh_depth);
	if (!eh->eh_max || eh->eh_max > fits)
		return bad_node(w, "bad eh_max", eh->eh_max);
	if (eh->eh_entries > eh->eh_max)
		return bad_node(w, "eh_entries above eh_max", eh->eh_entries);
	if (!eh->eh_entries && w->pblk)
		return bad_node(w, "empty node", 0);
	return eh->eh_depth ? check_indexes(w, eh, key)
			    : check_extents(w, eh, key);
}

struct ext2_buf *
ext_read_node(struct inode *inode, uint32_t pblk, int depth, uint64_t key)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext_where w = { inode, pblk };
	struct ext2_buf *b = ext2_bread(sbi, pblk);
	int err;

	if (IS_ERR(b))
		return b;
	err = check_node(&w, b->b_data, inode->i_sb->s_blocksize, depth, key);
	if (!err && !__atomic_load_n(&b->b_csum_ok, __ATOMIC_ACQUIRE)) {
		if (!ext2_extent_block_csum_ok(inode, b->b_data)) {
			pr_err("ext4: inode %lu: extent block %u: checksum "
			       "does not match\n",
			       inode->i_ino,
			       pblk);
			err = -EBADMSG;
		} else {
			__atomic_store_n(&b->b_csum_ok, true, __ATOMIC_RELEASE);
		}
	}
	if (err) {
		ext2_brelse(sbi, b);
		return ERR_PTR(err);
	}
	return b;
}

int ext2_extent_check_root(struct inode *inode)
{
	struct ext_where w = { inode, 0 };

	return check_node(&w,
			  (const void *)EXT2_I(inode)->i_data,
			  sizeof(EXT2_I(inode)->i_data),
			  -1,
			  0);
}

int ext_last_at_or_before(const void *v,
			  unsigned int n,
			  size_t size,
			  uint64_t lblk)
{
	int lo = 0, hi = (int)n - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		uint32_t first =
		    *(const uint32_t *)((const char *)v + mid * size);

		if (first <= lblk) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* Map @lblk in leaf @eh; @next: the first logical block past the leaf. */
static void map_in_leaf(const struct ext3_extent_header *eh,
			uint64_t lblk,
			uint64_t next,
			uint32_t max,
			uint32_t *pblk,
			uint64_t *len)
{
	const struct ext3_extent *ex = (const void *)(eh + 1);
	int i = ext_last_at_or_before(ex, eh->eh_entries, sizeof(*ex), lblk);
	uint64_t off;

	if (i + 1 < eh->eh_entries)
		next = ex[i + 1].ee_block;
	if (i < 0 || lblk >= (uint64_t)ex[i].ee_block + ext_len(&ex[i])) {
		*len = next - lblk; /* a hole up to the next extent */
		return;
	}
	off = lblk - ex[i].ee_block;
	*len = ext_len(&ex[i]) - off;
	if (ext_unwritten(&ex[i]))
		return; /* reads as zeroes, as a hole */
	*pblk = (uint32_t)(ext_pblk(&ex[i]) + off);
	*len = MIN(*len, (uint64_t)MAX(max, 1u));
}

static int ext_map_run(struct inode *inode,
		       uint64_t lblk,
		       uint32_t max,
		       uint32_t *pblk,
		       uint64_t *len)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	const struct ext3_extent_header *eh = (const void *)ei->i_data;
	uint64_t next = EXT_MAX_BLOCKS + 1;
	struct ext2_buf *b = NULL;
	int err = 0;

	*pblk = 0;
	*len = 1;
	if (lblk >= EXT_MAX_BLOCKS)
		return 0;
	mutex_lock(&ei->i_map_lock);
	for (int depth = eh->eh_depth; depth > 0; depth--) {
		const struct ext3_extent_idx *ix = (const void *)(eh + 1);
		int i = ext_last_at_or_before(
		    ix, eh->eh_entries, sizeof(*ix), lblk);
		struct ext2_buf *child;

		if (i + 1 < eh->eh_entries)
			next = ix[i + 1].ei_block;
		if (i < 0) { /* before the first index: a hole */
			*len = next - lblk;
			goto out;
		}
		child = ext_read_node(
		    inode, idx_pblk(&ix[i]), depth - 1, ix[i].ei_block);
		if (IS_ERR(child)) {
			err = PTR_ERR(child);
			goto out;
		}
		ext2_brelse(sbi, b);
		b = child;
		eh = b->b_data;
	}
	map_in_leaf(eh, lblk, next, max, pblk, len);
out:
	ext2_brelse(sbi, b);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

const struct ext2_map_ops ext2_extent_map = {
	.name = "extents",
	.map_run = ext_map_run,
	.max_blocks = ext_max_blocks,
	.writable = true,
};

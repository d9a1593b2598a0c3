/*
 * fs/ext2/extent_reseed.c: an extent tree's node checksums made over for
 * another inode - what swapext needs with metadata_csum.
 *
 * A node block's checksum tail is crc32c seeded with its inode's seed
 * (inode number and generation, csum.c), so when swapext hands a tree to
 * the other inode every node below the root must be checksummed again
 * with that inode's seed (the root lives in the inode, whose own
 * checksum is set when it is written). ext2_ext_reseed walks the tree
 * in two passes: the first reads and checks every node as its owner's (a
 * bad node stops the exchange before anything changed), the second sets
 * each node's tail for the new owner, children before their parent; a
 * node is read before its own tail changes, so every read of the walk
 * still checks against the old owner's seed.
 *
 * Locks: the caller holds the inode's i_rwsem and invalidate_lock
 * exclusive (fs/copy_range.c) and has dropped its pages, so no one else
 * walks the tree; ext2_ext_reseed takes i_map_lock, as every walk does.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include "extent.h"

/* Set @block's tail to its checksum under @seed (no tail: nothing). */
static void set_tail_seeded(struct inode *inode, void *block, uint32_t seed)
{
	struct ext3_extent_header *eh = block;
	size_t tail = sizeof(*eh) + (size_t)eh->eh_max * EXT_ENTRY_SIZE;
	uint32_t crc;

	if (tail + sizeof(crc) > inode->i_sb->s_blocksize)
		return;
	crc = ext2_crc32c(seed, block, tail);
	memcpy((char *)block + tail, &crc, sizeof(crc));
}

/* The nodes below @eh, checked; with @write, their tails set for @seed. */
static int reseed_below(struct inode *inode,
			struct ext3_extent_header *eh,
			uint32_t seed,
			bool write)
{
	struct ext2_sb_info *sbi = EXT2_SBI(inode->i_sb);

	if (!eh->eh_depth)
		return 0;
	for (int i = 0; i < eh->eh_entries; i++) {
		struct ext3_extent_idx *ix = &idx_first(eh)[i];
		struct ext2_buf *b = ext_read_node(
		    inode, idx_pblk(ix), eh->eh_depth - 1, ix->ei_block);
		int err;

		if (IS_ERR(b))
			return PTR_ERR(b);
		err = reseed_below(inode, b->b_data, seed, write);
		if (!err && write) {
			set_tail_seeded(inode, b->b_data, seed);
			ext2_bmark_dirty(b);
		}
		ext2_brelse(sbi, b);
		if (err)
			return err;
	}
	return 0;
}

/**
 * ext2_ext_reseed - check @inode's extent tree (@write false), or set its
 * node blocks' checksum tails for an owner of seed @seed (@write true)
 * @inode: an extent-mapped inode on a metadata_csum filesystem
 * @seed: the checksum seed of the inode the tree moves to
 * @write: false to check only; true to rewrite the tails
 * Context: task, may sleep; caller holds @inode's invalidate_lock
 * exclusive; takes i_map_lock.
 * Return: 0, or -EIO, -EBADMSG, -EUCLEAN from a node that does not read
 * back as @inode's (nothing is changed by a check; a failing write pass
 * leaves the nodes before the bad one reseeded).
 */
int ext2_ext_reseed(struct inode *inode, uint32_t seed, bool write)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	mutex_lock(&ei->i_map_lock);
	err = reseed_below(inode, (void *)ei->i_data, seed, write);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

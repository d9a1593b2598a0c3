/*
 * fs/ext2/swap.c: swapext for ext2 - two regular files exchange their
 * whole contents: block maps (i_data[]: the direct pointers and the roots
 * of the indirect trees), block counts and sizes. No data block moves and
 * none is freed or allocated: the exchange is one metadata update of each
 * inode, as a defragmenter or an atomic replace wants it. Both files must
 * have the same kind of map (indirect blocks or an extent tree: the roots
 * are exchanged, not converted), else EINVAL. With metadata_csum an extent
 * tree's node blocks are checksummed with their inode's seed: both trees
 * are checked first, then their nodes checksummed for the other inode
 * (extent_reseed.c), then the roots exchanged.
 *
 * Locks: the caller (fs/copy_range.c) holds both i_rwsems and both
 * invalidate_locks exclusive and has written back, unmapped and dropped
 * both page caches, so nothing reads or changes either block map meanwhile
 * (no write, fault, fill or writeback can start). Each i_map_lock is still
 * taken around the change of its own inode, one at a time (same class: not
 * nested), for the readers lockdep expects there.
 */
#include <string.h>
#include <fs/internal.h>
#include "ext2.h"

struct contents {
	uint32_t data[EXT2_N_BLOCKS];
	unsigned long blocks; /* 512-byte sectors */
	loff_t size;
};

static void save(struct inode *inode, struct contents *c)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	mutex_lock(&ei->i_map_lock);
	memcpy(c->data, ei->i_data, sizeof(c->data));
	c->blocks = inode->i_blocks;
	mutex_unlock(&ei->i_map_lock);
	c->size = READ_ONCE(inode->i_size);
}

static void load(struct inode *inode, const struct contents *c)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	mutex_lock(&ei->i_map_lock);
	memcpy(ei->i_data, c->data, sizeof(ei->i_data));
	inode->i_blocks = c->blocks;
	ei->i_goal = 0; /* the next allocation looks afresh */
	mutex_unlock(&ei->i_map_lock);
	inode_set_size(inode, c->size);
	mark_inode_dirty(inode);
}

int ext2_swap_contents(struct inode *a, struct inode *b)
{
	struct contents of_a, of_b;

	lockdep_assert_held_write(&a->i_mapping->invalidate_lock);
	lockdep_assert_held_write(&b->i_mapping->invalidate_lock);
	if (a->i_mapping->nrpages || b->i_mapping->nrpages)
		return -EBUSY; /* a page came back: the caller's bug */
	if (ext2_map_writable(a) || ext2_map_writable(b))
		return -EROFS;
	if (ext2_has_extents(a) != ext2_has_extents(b))
		return -EINVAL;
	if (ext2_has_extents(a) && EXT2_SBI(a->i_sb)->s_csum) {
		uint32_t seed_a = EXT2_I(a)->i_csum_seed;
		uint32_t seed_b = EXT2_I(b)->i_csum_seed;
		int err = ext2_ext_reseed(a, seed_b, false) ?:
			  ext2_ext_reseed(b, seed_a, false) ?:
			  ext2_ext_reseed(a, seed_b, true) ?:
			  ext2_ext_reseed(b, seed_a, true);

		if (err)
			return err;
	}
	save(a, &of_a);
	save(b, &of_b);
	load(a, &of_b);
	load(b, &of_a);
	return 0;
}

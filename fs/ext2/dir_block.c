/*
 * fs/ext2/dir_block.c: one directory block - its records checked before
 * use, its checksum checked once per read from disk and set again after
 * each change (metadata_csum).
 *
 * Every record is checked before use (rec_len at least 12, a multiple of
 * 4, inside the block and large enough for the name; inode number in
 * range; a name without '/' or NUL): a bad one gives -EUCLEAN with a
 * message naming the directory, the block and the offset. With
 * metadata_csum a block's checksum is checked once per read from disk
 * (ext2_dir_bread: -EBADMSG with a message on a mismatch), and a changed
 * block gets its checksum again when it is marked dirty
 * (ext2_dir_block_dirty); a leaf's last 12 bytes are then the checksum
 * tail, which no entry may take (ext2_dir_is_csum_tail).
 *
 * Caller holds the directory's i_rwsem (exclusive for changes).
 */
#include <errno.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"

#define DOT_REC_LEN 12

/* An entry in use names something: at least one byte, none of them '/'
 * or NUL (e2fsck's rules; readdir would hand such a name to a task). */
static bool name_ok(const struct ext2_dir_entry_2 *de)
{
	if (!de->inode)
		return true;
	if (!de->name_len)
		return false;
	for (unsigned int i = 0; i < de->name_len; i++)
		if (de->name[i] == '/' || de->name[i] == 0)
			return false;
	return true;
}

int ext2_check_entry(struct inode *dir,
		     uint32_t pblk,
		     unsigned int off,
		     const struct ext2_dir_entry_2 *de)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	unsigned int bs = dir->i_sb->s_blocksize;

	if (bs - off >= EXT2_DIR_ENTRY_HEADER_LEN &&
	    de->rec_len >= DOT_REC_LEN && !(de->rec_len & EXT2_DIR_ROUND) &&
	    de->rec_len <= bs - off &&
	    de->rec_len >= ext2_rec_len(de->name_len) &&
	    de->inode <= sbi->s_inodes_count && name_ok(de))
		return 0;
	pr_err("ext2: directory inode %lu: bad entry in block %u at offset %u "
	       "(rec_len %u, name_len %u, inode %u)\n",
	       dir->i_ino,
	       pblk,
	       off,
	       bs - off >= EXT2_DIR_ENTRY_HEADER_LEN ? de->rec_len : 0,
	       bs - off >= EXT2_DIR_ENTRY_HEADER_LEN ? de->name_len : 0,
	       bs - off >= EXT2_DIR_ENTRY_HEADER_LEN ? de->inode : 0);
	return -EUCLEAN;
}

struct ext2_dir_entry_2 *ext2_entry_at(struct ext2_buf *b, unsigned int off)
{
	return (struct ext2_dir_entry_2 *)((char *)b->b_data + off);
}

struct ext2_buf *ext2_dir_bread(struct inode *dir, uint64_t lblk, uint32_t pblk)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	struct ext2_buf *b = ext2_bread(sbi, pblk);

	if (IS_ERR(b) || !sbi->s_csum ||
	    __atomic_load_n(&b->b_csum_ok, __ATOMIC_ACQUIRE))
		return b;
	if (!ext2_dir_block_csum_ok(dir, lblk, b->b_data)) {
		pr_err("ext4: directory inode %lu: block %u (logical %llu): "
		       "checksum does not match\n",
		       dir->i_ino,
		       pblk,
		       (unsigned long long)lblk);
		ext2_brelse(sbi, b);
		return ERR_PTR(-EBADMSG);
	}
	__atomic_store_n(&b->b_csum_ok, true, __ATOMIC_RELEASE);
	return b;
}

/* Is @de the checksum tail at the end of leaf @b? */
bool ext2_dir_is_csum_tail(struct inode *dir,
			   struct ext2_buf *b,
			   struct ext2_dir_entry_2 *de)
{
	return EXT2_SBI(dir->i_sb)->s_csum &&
	       (char *)de - (char *)b->b_data ==
		   (long)ext2_dir_leaf_space(dir) &&
	       ext2_is_dir_tail(de);
}

void ext2_dir_block_dirty(struct inode *dir, uint64_t lblk, struct ext2_buf *b)
{
	if (ext2_dir_block_csum_set(dir, lblk, b->b_data))
		pr_err("ext4: directory inode %lu: htree block %u: count past "
		       "limit, checksum not set\n",
		       dir->i_ino,
		       b->b_blocknr);
	ext2_bmark_dirty(b);
}

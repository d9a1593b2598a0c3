/*
 * fs/ext2/readdir.c: reading a linear directory's entries for getdents
 * (the directory's file operations; changing entries is fs/ext2/dir.c).
 *
 * readdir takes no lock of its own (the VFS holds the directory's i_rwsem
 * shared) and may see a block between two changes, never a torn record
 * chain: each change rewrites the chain in one block under the buffer's
 * owner, and every record is checked again here (ext2_check_entry).
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include "ext2.h"

/* Linux's DT_* values for readdir, by EXT2_FT_*. */
static const uint8_t ft_to_dt[EXT2_FT_MAX] = { 0, 8, 4, 2, 6, 1, 12, 10 };

/* Emit the records of one block from byte @off on. Return: 1 when the
 * actor is full (ctx->pos at the entry it refused), 0, or errno. */
static int readdir_block(struct inode *dir,
			 struct ext2_buf *b,
			 uint64_t lblk,
			 unsigned int from,
			 struct dir_context *ctx)
{
	unsigned int bits = dir->i_sb->s_blocksize_bits;

	for (unsigned int off = 0; off < (1u << bits);) {
		struct ext2_dir_entry_2 *de = ext2_entry_at(b, off);
		loff_t pos = ((loff_t)lblk << bits) + off;
		int err = ext2_check_entry(dir, b->b_blocknr, off, de);

		if (err)
			return err;
		if (off >= from && de->inode) {
			unsigned int dt =
			    de->file_type < EXT2_FT_MAX &&
				    EXT2_SBI(dir->i_sb)->s_filetype
				? ft_to_dt[de->file_type]
				: 0;

			ctx->pos = pos;
			if (!ctx->actor(ctx,
					de->name,
					de->name_len,
					pos,
					de->inode,
					dt))
				return 1;
		}
		off += de->rec_len;
		ctx->pos = pos + de->rec_len;
	}
	return 0;
}

static int ext2_iterate(struct file *f, struct dir_context *ctx)
{
	struct inode *dir = f->f_inode;
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	unsigned int bits = dir->i_sb->s_blocksize_bits;

	while (ctx->pos < READ_ONCE(dir->i_size)) {
		uint64_t lblk = ctx->pos >> bits;
		struct ext2_buf *b;
		uint64_t hole = 1;
		uint32_t pblk;
		int ret = ext2_get_block(dir, lblk, false, &pblk, &hole);

		if (ret)
			return ret;
		if (!pblk) { /* the whole run of holes (dir.c's walk_dir) */
			ctx->pos = (loff_t)(lblk + hole) << bits;
			continue;
		}
		b = ext2_dir_bread(dir, lblk, pblk);
		if (IS_ERR(b))
			return PTR_ERR(b);
		ret = readdir_block(
		    dir, b, lblk, ctx->pos & ((1u << bits) - 1), ctx);
		ext2_brelse(sbi, b);
		if (ret)
			return ret > 0 ? 0 : ret;
		ctx->pos = (loff_t)(lblk + 1) << bits;
	}
	return 0;
}

const struct file_operations ext2_dir_fops = {
	.iterate = ext2_iterate,
};

/*
 * fs/ext2/htree.c: look-ups through a hashed directory's index (dir_index).
 *
 * A directory with EXT2_INDEX_FL (on a filesystem with dir_index, mounted
 * as ext4) keeps an htree: its block 0 is the root - "." and ".." records,
 * the 8-byte root info (hash version, levels below the root), then index
 * entries - and with one level more, interior blocks are one empty record
 * covering the block followed by index entries. An index entry is a hash
 * and the logical block whose names hash from it on; the first entry's
 * hash field holds the entries' limit and count instead, and stands for
 * hash 0. The leaves are ordinary directory blocks. With metadata_csum an
 * 8-byte tail follows an index block's limit entries (csum.c).
 *
 * A look-up hashes the name (dx_hash.c), takes in each index block the
 * last entry whose hash is at most the name's, and searches the one leaf
 * it reaches; when the next entry has the same hash (its low bit marks a
 * run of names of one hash split over leaves), the next leaf too. An index
 * this code cannot trust (a bad root info, limit, count or block number)
 * is reported and the directory searched linearly, as Linux falls back; a
 * checksum mismatch fails the look-up (-EBADMSG).
 *
 * Locks: the caller holds the directory's i_rwsem; blocks through the
 * buffer cache (ext2_dir_bread).
 */
#include <errno.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"
#include "htree.h"

static int dx_untrusted(struct inode *dir, uint32_t pblk, const char *what)
{
	pr_err("ext4: directory inode %lu: htree block %u: %s: searching it "
	       "linearly\n",
	       dir->i_ino,
	       pblk,
	       what);
	return EXT2_DX_FALLBACK;
}

struct ext2_buf *ext2_dx_read(struct inode *dir, uint64_t lblk)
{
	uint32_t pblk;
	int err = ext2_get_block(dir, lblk, false, &pblk, NULL);

	if (err)
		return ERR_PTR(err);
	if (!pblk) {
		pr_err("ext4: directory inode %lu: htree names block %llu, a "
		       "hole\n",
		       dir->i_ino,
		       (unsigned long long)lblk);
		return ERR_PTR(-EUCLEAN);
	}
	return ext2_dir_bread(dir, lblk, pblk);
}

/* Fill @f from the index entries at byte @off of @f->b; pick the entry
 * for @hash. Return: 0 or EXT2_DX_FALLBACK (reported). */
static int dx_frame_fill(struct inode *dir,
			 struct dx_frame *f,
			 unsigned int off,
			 uint32_t hash)
{
	unsigned int bs = dir->i_sb->s_blocksize;
	unsigned int tail = EXT2_SBI(dir->i_sb)->s_csum ? 8 : 0;
	unsigned int limit, lo = 1, hi;

	f->e = (struct dx_entry *)((char *)f->b->b_data + off);
	f->limit = limit = f->e[0].hash & 0xffff;
	f->count = f->e[0].hash >> 16;
	if (limit != (bs - off - tail) / sizeof(struct dx_entry))
		return dx_untrusted(dir, f->b->b_blocknr, "bad limit");
	if (!f->count || f->count > limit)
		return dx_untrusted(dir, f->b->b_blocknr, "bad count");
	/* the last entry whose hash is at most @hash (entry 0: hash 0) */
	hi = f->count;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (f->e[mid].hash <= hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	f->at = lo - 1;
	return 0;
}

int ext2_dx_child(struct inode *dir, const struct dx_frame *f, uint64_t *lblk)
{
	*lblk = f->e[f->at].block & DX_BLOCK_MASK;
	if (*lblk >= (uint64_t)READ_ONCE(dir->i_size) >>
	    dir->i_sb->s_blocksize_bits)
		return dx_untrusted(dir, f->b->b_blocknr, "block past the end");
	return 0;
}

int ext2_dx_descend(struct inode *dir,
		    const struct dx_frame *parent,
		    struct dx_frame *f,
		    uint32_t hash)
{
	const struct ext2_dir_entry_2 *de;
	uint64_t lblk;
	int err = ext2_dx_child(dir, parent, &lblk);

	if (err)
		return err;
	f->b = ext2_dx_read(dir, lblk);
	if (IS_ERR(f->b)) {
		err = PTR_ERR(f->b);
		f->b = NULL;
		return err;
	}
	f->lblk = lblk;
	de = f->b->b_data;
	if (de->inode || de->rec_len != dir->i_sb->s_blocksize || de->name_len)
		return dx_untrusted(dir, f->b->b_blocknr, "not an index block");
	return dx_frame_fill(dir, f, DX_NODE_ENTRIES, hash);
}

unsigned int ext2_dx_version(struct inode *dir, const struct dx_root_info *info)
{
	unsigned int version = info->hash_version;

	if (version <= EXT2_DX_TEA &&
	    (EXT2_SBI(dir->i_sb)->s_es.s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		version += EXT2_DX_LEGACY_UNSIGNED;
	return version;
}

int ext2_dx_root(struct inode *dir,
		 struct dx_frame *f,
		 const char *name,
		 size_t len,
		 uint32_t *hash)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	const struct dx_root_info *info;
	unsigned int version;
	int err;

	f->b = ext2_dx_read(dir, 0);
	if (IS_ERR(f->b)) {
		err = PTR_ERR(f->b);
		f->b = NULL;
		return err;
	}
	f->lblk = 0;
	info = ext2_dx_info(f->b);
	version = ext2_dx_version(dir, info);
	if (info->reserved_zero || info->info_length != sizeof(*info) ||
	    info->indirect_levels >= DX_MAX_LEVELS ||
	    info->hash_version > EXT2_DX_TEA ||
	    ext2_dx_hash(name, len, version, sbi->s_es.s_hash_seed, hash))
		return dx_untrusted(dir, f->b->b_blocknr, "bad root info");
	err = dx_frame_fill(dir, f, DX_ROOT_ENTRIES, *hash);
	return err ? err : info->indirect_levels;
}

/* Step to the next leaf whose names may hash to @hash: the next entry of
 * the deepest frame, or of the one above (then down again). Return: 1,
 * 0 when there is none, or a negative errno / EXT2_DX_FALLBACK. */
static int dx_next_leaf(struct inode *dir,
			struct dx_frame *frames,
			int levels,
			uint32_t hash)
{
	int k = levels;

	while (frames[k].at + 1 >= frames[k].count)
		if (--k < 0)
			return 0;
	frames[k].at++;
	if ((frames[k].e[frames[k].at].hash & ~1u) != hash)
		return 0;
	for (; k < levels; k++) {
		int err;

		ext2_brelse(EXT2_SBI(dir->i_sb), frames[k + 1].b);
		err = ext2_dx_descend(dir, &frames[k], &frames[k + 1], hash);
		if (err)
			return err;
		frames[k + 1].at = 0;
	}
	return 1;
}

int ext2_dx_find_entry(struct inode *dir,
		       const char *name,
		       size_t len,
		       unsigned long *ino)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	struct dx_frame frames[DX_MAX_LEVELS] = { 0 };
	uint32_t hash = 0;
	int levels, ret;

	if (!sbi->s_ext4 || !(EXT2_I(dir)->i_flags & EXT2_INDEX_FL) ||
	    !(sbi->s_es.s_feature_compat & EXT2_FEATURE_COMPAT_DIR_INDEX))
		return EXT2_DX_FALLBACK;
	/* "." and ".." are in the root block, no leaf: the scan finds them
	 * there, in its first block (as Linux looks them up) */
	if (len <= 2 && name[0] == '.' && (len == 1 || name[1] == '.'))
		return EXT2_DX_FALLBACK;
	ret = levels = ext2_dx_root(dir, &frames[0], name, len, &hash);
	for (int k = 0; ret >= 0 && ret != EXT2_DX_FALLBACK && k < levels; k++)
		ret = ext2_dx_descend(dir, &frames[k], &frames[k + 1], hash);
	while (ret >= 0 && ret != EXT2_DX_FALLBACK) {
		struct ext2_buf *leaf;
		uint64_t lblk;

		ret = ext2_dx_child(dir, &frames[levels], &lblk);
		if (ret)
			break;
		leaf = ext2_dx_read(dir, lblk);
		if (IS_ERR(leaf)) {
			ret = PTR_ERR(leaf);
			break;
		}
		ret = ext2_find_in_block(dir, leaf, name, len, ino);
		ext2_brelse(sbi, leaf);
		if (ret)
			break; /* found (1) or an error */
		ret = dx_next_leaf(dir, frames, levels, hash);
		if (!ret) {
			ret = -ENOENT;
			break;
		}
	}
	for (int k = 0; k < DX_MAX_LEVELS; k++)
		ext2_brelse(sbi, frames[k].b);
	if (ret == 1) {
		__atomic_fetch_add(&sbi->s_dx_lookups, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return ret;
}

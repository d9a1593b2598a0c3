/*
 * fs/ext2/csum.c: metadata_csum - CRC32C and the checksums ext4 keeps in
 * its metadata (docs/ext4.md has the layouts).
 *
 * ext2_crc32c() is the Castagnoli CRC (reflected polynomial 0x82F63B78)
 * without the customary inversions before and after: ext4 and e2fsprogs
 * chain it that way, starting from ~0 or from a seed. The standard check
 * value is ~ext2_crc32c(~0, "123456789", 9) = 0xE3069283. Table-driven in
 * portable C, eight bytes per step ("slicing by 8": table k gives a byte's
 * CRC advanced over k zero bytes more, so the eight bytes of a word are
 * looked up at once and XORed) and one byte per step for what is left;
 * the tables are filled by an INIT_LEVEL_EARLY hook, before any
 * filesystem mounts. A byte at a time made crc32c a fifth of the busy
 * time of 4 KiB writes on ext4, each of which allocates a block and so
 * sets its group's 4 KiB bitmap's checksum (docs/benchmarks.md).
 *
 * The verifiers below are pure functions of the block or inode bytes and
 * the filesystem's seed (sbi->s_csum_seed: crc32c of the UUID, or the
 * superblock's s_checksum_seed) and the inode's (ei->i_csum_seed). They say
 * whether the stored checksum matches; reporting is the caller's, which
 * knows the inode and block to name. Without metadata_csum they accept.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <kernel/init.h>
#include "ext2.h"

#define CRC32C_POLY 0x82F63B78u

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ext2_crc32c reads words as little-endian"
#endif

/* crc32c_table[k][b]: byte @b's CRC, then k zero bytes more. */
static uint32_t crc32c_table[8][256];

static int crc32c_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? CRC32C_POLY : 0);
		crc32c_table[0][i] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = crc32c_table[k - 1][i];

			crc32c_table[k][i] =
			    (c >> 8) ^ crc32c_table[0][c & 0xff];
		}
	return 0;
}
INIT_HOOK(ext2_crc32c, crc32c_init, INIT_LEVEL_EARLY);

uint32_t ext2_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w)); /* any alignment */
		w ^= crc;
		crc = crc32c_table[7][w & 0xff] ^
		      crc32c_table[6][(w >> 8) & 0xff] ^
		      crc32c_table[5][(w >> 16) & 0xff] ^
		      crc32c_table[4][(w >> 24) & 0xff] ^
		      crc32c_table[3][(w >> 32) & 0xff] ^
		      crc32c_table[2][(w >> 40) & 0xff] ^
		      crc32c_table[1][(w >> 48) & 0xff] ^
		      crc32c_table[0][w >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

static uint32_t crc_le32(uint32_t crc, uint32_t v)
{
	return ext2_crc32c(crc, &v, sizeof(v)); /* riscv64 is little-endian */
}

/* The CRC of @len bytes of @p with the @zlen-byte field at @zoff read as
 * zeroes (where the checksum itself is stored). */
static uint32_t
crc_skipping(uint32_t crc, const void *p, size_t len, size_t zoff, size_t zlen)
{
	static const uint8_t zeroes[4];

	crc = ext2_crc32c(crc, p, zoff);
	crc = ext2_crc32c(crc, zeroes, zlen);
	return ext2_crc32c(
	    crc, (const uint8_t *)p + zoff + zlen, len - zoff - zlen);
}

bool ext2_sb_csum_ok(const struct ext2_super_block *es)
{
	return ext2_crc32c(
		   ~0u, es, offsetof(struct ext2_super_block, s_checksum)) ==
	       es->s_checksum;
}

uint32_t ext2_fs_csum_seed(const struct ext2_super_block *es)
{
	if (es->s_feature_incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED)
		return es->s_checksum_seed;
	return ext2_crc32c(~0u, es->s_uuid, sizeof(es->s_uuid));
}

uint16_t ext2_gd_csum(struct ext2_sb_info *sbi, uint32_t group, const void *gd)
{
	const size_t off = offsetof(struct ext4_group_desc, bg_checksum);
	uint32_t crc = crc_le32(sbi->s_csum_seed, group);

	return (uint16_t)crc_skipping(
	    crc, gd, sbi->s_desc_size, off, sizeof(uint16_t));
}

bool ext2_gd_csum_ok(struct ext2_sb_info *sbi, uint32_t group, const void *gd)
{
	if (!sbi->s_csum)
		return true;
	return ext2_gd_csum(sbi, group, gd) ==
	       ((const struct ext4_group_desc *)gd)->bg_checksum;
}

uint32_t ext2_inode_csum_seed(struct ext2_sb_info *sbi,
			      unsigned long ino,
			      uint32_t generation)
{
	return crc_le32(crc_le32(sbi->s_csum_seed, (uint32_t)ino), generation);
}

/* Does the large inode @raw have room for i_checksum_hi? */
static bool has_csum_hi(struct ext2_sb_info *sbi,
			const struct ext2_inode_large *raw)
{
	return sbi->s_inode_size > EXT2_GOOD_OLD_INODE_SIZE &&
	       EXT2_GOOD_OLD_INODE_SIZE + (size_t)raw->i_extra_isize >=
		   offsetof(struct ext2_inode_large, i_checksum_hi) +
		       sizeof(raw->i_checksum_hi);
}

uint32_t ext2_inode_csum(struct ext2_sb_info *sbi,
			 uint32_t seed,
			 const struct ext2_inode_large *raw,
			 bool *with_hi)
{
	const size_t lo = offsetof(struct ext2_inode_large, i_checksum_lo);
	const size_t hi = offsetof(struct ext2_inode_large, i_checksum_hi);
	const size_t old = EXT2_GOOD_OLD_INODE_SIZE;
	const uint8_t *p = (const uint8_t *)raw;
	uint32_t crc = crc_skipping(seed, p, old, lo, sizeof(uint16_t));

	*with_hi = sbi->s_inode_size > old && has_csum_hi(sbi, raw);
	if (sbi->s_inode_size > old)
		crc = crc_skipping(crc,
				   p + old,
				   sbi->s_inode_size - old,
				   hi - old,
				   *with_hi ? sizeof(uint16_t) : 0);
	return *with_hi ? crc : crc & 0xffff;
}

bool ext2_inode_csum_ok(struct ext2_sb_info *sbi,
			uint32_t seed,
			const struct ext2_inode_large *raw)
{
	uint32_t want = raw->i_checksum_lo;
	bool with_hi;
	uint32_t crc;

	if (!sbi->s_csum)
		return true;
	crc = ext2_inode_csum(sbi, seed, raw, &with_hi);
	if (with_hi)
		want |= (uint32_t)raw->i_checksum_hi << 16;
	return crc == want;
}

bool ext2_extent_block_csum_ok(struct inode *inode, const void *block)
{
	const struct ext3_extent_header *eh = block;
	size_t tail = sizeof(*eh) + (size_t)eh->eh_max * 12;
	uint32_t stored;

	if (!EXT2_SBI(inode->i_sb)->s_csum)
		return true;
	if (tail + sizeof(stored) > inode->i_sb->s_blocksize)
		return false;
	memcpy(&stored, (const uint8_t *)block + tail, sizeof(stored));
	return ext2_crc32c(EXT2_I(inode)->i_csum_seed, block, tail) == stored;
}

bool ext2_is_dir_tail(const struct ext2_dir_entry_2 *t)
{
	return !t->inode && t->rec_len == EXT2_DIR_TAIL_LEN && !t->name_len &&
	       t->file_type == EXT2_DIR_TAIL_FT;
}

uint32_t ext2_dir_leaf_csum(struct inode *dir, const void *block)
{
	return ext2_crc32c(EXT2_I(dir)->i_csum_seed,
			   block,
			   dir->i_sb->s_blocksize - EXT2_DIR_TAIL_LEN);
}

static bool dir_leaf_csum_ok(struct inode *dir, const uint8_t *block)
{
	unsigned int bs = dir->i_sb->s_blocksize;
	uint32_t stored;

	if (!ext2_is_dir_tail((const void *)(block + bs - EXT2_DIR_TAIL_LEN)))
		return false;
	memcpy(&stored, block + bs - sizeof(stored), sizeof(stored));
	return ext2_dir_leaf_csum(dir, block) == stored;
}

/* An htree block: the root (after "." and ".." and the 8-byte root info)
 * or a node (after an empty record covering the block). Its count and
 * limit sit where the first index entry would; a 4-byte reserved word and
 * the checksum follow the @limit entries. The CRC covers the block up to
 * the @count entries in use, then that 8-byte tail. */
int ext2_dx_csum(struct inode *dir,
		 const void *block,
		 bool root,
		 uint32_t *crc,
		 size_t *tail)
{
	const uint8_t *p = block;
	size_t count_off = root ? 32 : 8;
	uint16_t limit, count;

	memcpy(&limit, p + count_off, sizeof(limit));
	memcpy(&count, p + count_off + 2, sizeof(count));
	*tail = count_off + (size_t)limit * 8;
	if (count > limit || *tail + 8 > dir->i_sb->s_blocksize)
		return -EUCLEAN;
	*crc = ext2_crc32c(
	    EXT2_I(dir)->i_csum_seed, block, count_off + (size_t)count * 8);
	/* then the tail, its checksum field read as zero */
	*crc = crc_skipping(*crc, p + *tail, 8, 4, 4);
	return 0;
}

static bool
dir_index_csum_ok(struct inode *dir, const uint8_t *block, bool root)
{
	uint32_t crc, stored;
	size_t tail;

	if (ext2_dx_csum(dir, block, root, &crc, &tail))
		return false;
	memcpy(&stored, block + tail + 4, sizeof(stored));
	return crc == stored;
}

int ext2_dir_block_kind(struct inode *dir, uint64_t lblk, const void *block)
{
	const struct ext2_dir_entry_2 *de = block;

	if (EXT2_I(dir)->i_flags & EXT2_INDEX_FL) {
		if (lblk == 0)
			return EXT2_DIR_DX_ROOT;
		if (!de->inode && de->rec_len == dir->i_sb->s_blocksize &&
		    !de->name_len)
			return EXT2_DIR_DX_NODE;
	}
	return EXT2_DIR_LEAF;
}

bool ext2_dir_block_csum_ok(struct inode *dir, uint64_t lblk, const void *block)
{
	int kind = ext2_dir_block_kind(dir, lblk, block);

	if (!EXT2_SBI(dir->i_sb)->s_csum)
		return true;
	if (kind == EXT2_DIR_LEAF)
		return dir_leaf_csum_ok(dir, block);
	return dir_index_csum_ok(dir, block, kind == EXT2_DIR_DX_ROOT);
}

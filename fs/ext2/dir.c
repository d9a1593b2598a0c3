/*
 * fs/ext2/dir.c: linear directories - entries in directory blocks.
 *
 * A directory's blocks (through the metadata cache, not the page cache)
 * hold struct ext2_dir_entry_2 records whose rec_len chain covers each
 * block exactly. Every record is checked before use (rec_len at least 12,
 * a multiple of 4, inside the block and large enough for the name; inode
 * number in range): a bad one gives -EUCLEAN with a message naming the
 * directory, the block and the offset.
 *
 * Reading and checking a block, its records and its checksum, and setting
 * the checksum of a changed block: dir_block.c. Mounted as ext4, a look-up in a
 * hashed directory (dir_index) goes through its htree (htree.c); anything else
 * - readdir, ext2, an index that cannot be trusted - scans the blocks in order,
 * where the htree's index blocks read as records that name nothing.
 *
 * Removing an entry merges its rec_len into the previous record (or clears
 * the inode of the first record of a block); adding one reuses a free
 * record, splits the slack of a used one, or appends a block. A change
 * clears EXT2_INDEX_FL, since ext2 does not keep an htree up to date.
 *
 * Caller holds the directory's i_rwsem (exclusive for changes). readdir is
 * fs/ext2/readdir.c.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include "ext2.h"

#define DOT_REC_LEN 12

/* Called for each valid record; return 0 to go on, >0 to stop, <0 error. */
typedef int (*dirent_fn)(struct inode *dir,
			 uint64_t lblk,
			 struct ext2_buf *b,
			 struct ext2_dir_entry_2 *de,
			 struct ext2_dir_entry_2 *prev,
			 void *arg);

static int walk_block(struct inode *dir,
		      uint64_t lblk,
		      struct ext2_buf *b,
		      dirent_fn fn,
		      void *arg)
{
	struct ext2_dir_entry_2 *prev = NULL;

	for (unsigned int off = 0; off < dir->i_sb->s_blocksize;) {
		struct ext2_dir_entry_2 *de = ext2_entry_at(b, off);
		int ret = ext2_check_entry(dir, b->b_blocknr, off, de);

		if (!ret)
			ret = fn(dir, lblk, b, de, prev, arg);
		if (ret)
			return ret;
		prev = de;
		off += de->rec_len;
	}
	return 0;
}

/* Run @fn over every record of @dir. Return: 0, the first >0, or errno. */
static int walk_dir(struct inode *dir, dirent_fn fn, void *arg)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	uint64_t nblocks =
	    READ_ONCE(dir->i_size) >> dir->i_sb->s_blocksize_bits;

	for (uint64_t lblk = 0; lblk < nblocks; lblk++) {
		struct ext2_buf *b;
		uint64_t hole = 1;
		uint32_t pblk;
		int ret = ext2_get_block(dir, lblk, false, &pblk, &hole);

		if (ret)
			return ret;
		if (!pblk) { /* a run of holes at once: a size far past the
			      * blocks (a damaged inode) costs no more */
			lblk += hole - 1;
			continue;
		}
		b = ext2_dir_bread(dir, lblk, pblk);
		if (IS_ERR(b))
			return PTR_ERR(b);
		ret = walk_block(dir, lblk, b, fn, arg);
		ext2_brelse(sbi, b);
		if (ret)
			return ret;
	}
	return 0;
}

struct name_arg {
	const char *name;
	size_t len;
	unsigned long ino;
	mode_t mode;
};

static bool
name_match(const struct ext2_dir_entry_2 *de, const char *name, size_t len)
{
	return de->inode && de->name_len == len && !memcmp(de->name, name, len);
}

static uint8_t file_type(struct inode *dir, mode_t mode)
{
	if (!EXT2_SBI(dir->i_sb)->s_filetype)
		return 0;
	switch (mode & S_IFMT) {
	case S_IFREG: return EXT2_FT_REG_FILE;
	case S_IFDIR: return EXT2_FT_DIR;
	case S_IFLNK: return EXT2_FT_SYMLINK;
	case S_IFCHR: return EXT2_FT_CHRDEV;
	case S_IFBLK: return EXT2_FT_BLKDEV;
	case S_IFIFO: return EXT2_FT_FIFO;
	case S_IFSOCK: return EXT2_FT_SOCK;
	}
	return EXT2_FT_UNKNOWN;
}

static void dir_changed(struct inode *dir)
{
	dir->i_mtime = dir->i_ctime = current_time();
	mark_inode_dirty(dir);
}

static int find_fn(struct inode *dir,
		   uint64_t lblk,
		   struct ext2_buf *b,
		   struct ext2_dir_entry_2 *de,
		   struct ext2_dir_entry_2 *prev,
		   void *arg)
{
	struct name_arg *na = arg;

	(void)lblk, (void)b, (void)prev;
	if (!name_match(de, na->name, na->len))
		return 0;
	if (!ext2_inode_valid_nr(EXT2_SBI(dir->i_sb), de->inode)) {
		pr_err(
		    "ext2: directory inode %lu: entry names invalid inode %u\n",
		    dir->i_ino,
		    de->inode);
		return -EUCLEAN;
	}
	na->ino = de->inode;
	return 1;
}

int ext2_find_in_block(struct inode *dir,
		       struct ext2_buf *b,
		       const char *name,
		       size_t len,
		       unsigned long *ino)
{
	struct name_arg na = { name, len, 0, 0 };
	int ret = walk_block(dir, 0, b, find_fn, &na);

	if (ret > 0)
		*ino = na.ino;
	return ret;
}

int ext2_find_entry(struct inode *dir,
		    const char *name,
		    size_t len,
		    unsigned long *ino)
{
	struct name_arg na = { name, len, 0, 0 };
	int ret = ext2_dx_find_entry(dir, name, len, ino);

	if (ret != EXT2_DX_FALLBACK)
		return ret;
	ret = walk_dir(dir, find_fn, &na);

	if (ret < 0)
		return ret;
	if (!ret)
		return -ENOENT;
	*ino = na.ino;
	return 0;
}

static void fill_entry(struct inode *dir,
		       struct ext2_dir_entry_2 *de,
		       const struct name_arg *na)
{
	de->inode = na->ino;
	de->name_len = na->len;
	de->file_type = file_type(dir, na->mode);
	memcpy(de->name, na->name, na->len);
}

static int add_fn(struct inode *dir,
		  uint64_t lblk,
		  struct ext2_buf *b,
		  struct ext2_dir_entry_2 *de,
		  struct ext2_dir_entry_2 *prev,
		  void *arg)
{
	struct name_arg *na = arg;
	unsigned int need = ext2_rec_len(na->len);
	unsigned int used = de->inode ? ext2_rec_len(de->name_len) : 0;

	(void)prev;
	if (de->rec_len < used + need || ext2_dir_is_csum_tail(dir, b, de))
		return 0;
	if (used) {
		struct ext2_dir_entry_2 *nde =
		    (struct ext2_dir_entry_2 *)((char *)de + used);

		nde->rec_len = de->rec_len - used;
		de->rec_len = used;
		de = nde;
	}
	fill_entry(dir, de, na);
	ext2_dir_block_dirty(dir, lblk, b);
	return 1;
}

int ext2_add_in_leaf(struct inode *dir,
		     uint64_t lblk,
		     struct ext2_buf *b,
		     const char *name,
		     size_t len,
		     unsigned long ino,
		     mode_t mode)
{
	struct name_arg na = { name, len, ino, mode };

	return walk_block(dir, lblk, b, add_fn, &na);
}

int ext2_add_entry(struct inode *dir,
		   const char *name,
		   size_t len,
		   unsigned long ino,
		   mode_t mode)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	struct name_arg na = { name, len, ino, mode };
	uint64_t lblk = READ_ONCE(dir->i_size) >> dir->i_sb->s_blocksize_bits;
	struct ext2_dir_entry_2 *de;
	struct ext2_buf *b;
	uint32_t pblk;
	int ret;

	if (!len || len > NAME_MAX_LEN)
		return -ENAMETOOLONG;
	ret = ext2_dx_add_entry(dir, name, len, ino, mode);
	if (ret != EXT2_DX_FALLBACK)
		goto out;
	ret = walk_dir(dir, add_fn, &na);
	if (!ret && lblk == 1 && ext2_dx_can_index(dir)) {
		/* block 0 is full: index the directory, as ext4 does */
		ret = ext2_dx_make_indexed(dir);
		if (!ret)
			ret = ext2_dx_add_entry(dir, name, len, ino, mode);
		if (ret != EXT2_DX_FALLBACK)
			goto out;
		/* not indexed after all: a block at the end */
		ret = 0;
		lblk = READ_ONCE(dir->i_size) >> dir->i_sb->s_blocksize_bits;
	}
	if (ret < 0)
		return ret;
	if (!ret) {
		ret = ext2_get_block(dir, lblk, true, &pblk, NULL);
		if (ret)
			return ret;
		b = ext2_bget_new(sbi, pblk);
		if (IS_ERR(b))
			return PTR_ERR(b);
		de = ext2_entry_at(b, 0);
		de->rec_len = ext2_dir_leaf_space(dir);
		fill_entry(dir, de, &na);
		ext2_dir_tail_init(dir, b->b_data);
		ext2_dir_block_dirty(dir, lblk, b);
		ext2_brelse(sbi, b);
		inode_set_size(dir, (lblk + 1) << dir->i_sb->s_blocksize_bits);
	}
	ret = 0;
out:
	if (!ret)
		dir_changed(dir);
	return ret;
}

/* A change to the entry a name_arg names, in its block (after @prev). */
typedef void (*entry_change)(struct inode *dir,
			     struct ext2_dir_entry_2 *de,
			     struct ext2_dir_entry_2 *prev,
			     const struct name_arg *na);

struct change_arg {
	struct name_arg na;
	entry_change change;
};

static int change_fn(struct inode *dir,
		     uint64_t lblk,
		     struct ext2_buf *b,
		     struct ext2_dir_entry_2 *de,
		     struct ext2_dir_entry_2 *prev,
		     void *arg)
{
	struct change_arg *ca = arg;

	if (!name_match(de, ca->na.name, ca->na.len))
		return 0;
	ca->change(dir, de, prev, &ca->na);
	ext2_dir_block_dirty(dir, lblk, b);
	return 1;
}

/* Find the entry @na names and apply @change to it.
 * Return: 0, -ENOENT or an I/O error. */
static int
change_entry(struct inode *dir, const struct name_arg *na, entry_change change)
{
	struct change_arg ca = { *na, change };
	int ret = walk_dir(dir, change_fn, &ca);

	if (ret < 0)
		return ret;
	if (!ret)
		return -ENOENT;
	dir_changed(dir);
	return 0;
}

/* The entry's space goes to the one before it, or it becomes unused. */
static void remove_entry(struct inode *dir,
			 struct ext2_dir_entry_2 *de,
			 struct ext2_dir_entry_2 *prev,
			 const struct name_arg *na)
{
	(void)dir, (void)na;
	if (prev)
		prev->rec_len += de->rec_len;
	else
		de->inode = 0;
}

static void point_entry(struct inode *dir,
			struct ext2_dir_entry_2 *de,
			struct ext2_dir_entry_2 *prev,
			const struct name_arg *na)
{
	(void)prev;
	de->inode = na->ino;
	de->file_type = file_type(dir, na->mode);
}

int ext2_delete_entry(struct inode *dir, const char *name, size_t len)
{
	struct name_arg na = { name, len, 0, 0 };

	return change_entry(dir, &na, remove_entry);
}

int ext2_set_entry(struct inode *dir,
		   const char *name,
		   size_t len,
		   unsigned long ino,
		   mode_t mode)
{
	struct name_arg na = { name, len, ino, mode };

	return change_entry(dir, &na, point_entry);
}

static bool is_dot_or_dotdot(const struct ext2_dir_entry_2 *de)
{
	return (de->name_len == 1 && de->name[0] == '.') ||
	       (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.');
}

static int nonempty_fn(struct inode *dir,
		       uint64_t lblk,
		       struct ext2_buf *b,
		       struct ext2_dir_entry_2 *de,
		       struct ext2_dir_entry_2 *prev,
		       void *arg)
{
	(void)dir, (void)lblk, (void)b, (void)prev, (void)arg;
	return de->inode && !is_dot_or_dotdot(de);
}

int ext2_dir_is_empty(struct inode *dir)
{
	int ret = walk_dir(dir, nonempty_fn, NULL);

	return ret < 0 ? ret : !ret;
}

int ext2_make_empty_dir(struct inode *dir, struct inode *parent)
{
	struct ext2_sb_info *sbi = EXT2_SBI(dir->i_sb);
	struct ext2_dir_entry_2 *de;
	struct ext2_buf *b;
	uint32_t pblk;
	int err;

	err = ext2_get_block(dir, 0, true, &pblk, NULL);
	if (err)
		return err;
	b = ext2_bget_new(sbi, pblk);
	if (IS_ERR(b))
		return PTR_ERR(b);
	de = ext2_entry_at(b, 0);
	fill_entry(dir, de, &(struct name_arg){ ".", 1, dir->i_ino, S_IFDIR });
	de->rec_len = DOT_REC_LEN;
	de = ext2_entry_at(b, DOT_REC_LEN);
	fill_entry(
	    dir, de, &(struct name_arg){ "..", 2, parent->i_ino, S_IFDIR });
	de->rec_len = ext2_dir_leaf_space(dir) - DOT_REC_LEN;
	ext2_dir_tail_init(dir, b->b_data);
	ext2_dir_block_dirty(dir, 0, b);
	ext2_brelse(sbi, b);
	inode_set_size(dir, dir->i_sb->s_blocksize);
	mark_inode_dirty(dir);
	return 0;
}

int ext2_set_dotdot(struct inode *dir, unsigned long parent_ino)
{
	return ext2_set_entry(dir, "..", 2, parent_ino, S_IFDIR);
}

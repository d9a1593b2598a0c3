/*
 * fs/ext2/namei.c: directory inode operations - lookup, create, mkdir,
 * symlink, link, unlink, rmdir, rename - and the link counts they keep.
 *
 * The VFS calls these with the parent directory's i_rwsem held exclusive
 * (both directories for rename, ordered by the VFS, and the moved inode
 * when it changes parent: its ".." is rewritten), and never with "." or
 * "..". A directory has 2 + (number of subdirectories) links; moving a
 * directory to another parent rewrites its ".." and moves one link.
 */
#include <errno.h>
#include <string.h>
#include <kernel/err.h>
#include "ext2.h"

static void touch(struct inode *inode)
{
	inode->i_ctime = current_time();
	mark_inode_dirty(inode);
}

static int
ext2_lookup(struct inode *dir, const char *name, size_t len, unsigned long *ino)
{
	return ext2_find_entry(dir, name, len, ino);
}

/* Drop a new inode whose entry could not be added: eviction frees it. */
static void discard_new(struct inode *inode)
{
	inode->i_nlink = 0;
	mark_inode_dirty(inode);
	iput(inode);
}

/* A new inode of @mode under @name; a symbolic link gets @target. */
static int new_entry(struct inode *dir,
		     const char *name,
		     size_t len,
		     mode_t mode,
		     const char *target,
		     struct inode **out)
{
	unsigned long ino;
	struct inode *inode;
	int err;

	err = ext2_find_entry(dir, name, len, &ino);
	if (err != -ENOENT)
		return err ? err : -EEXIST;
	if (S_ISDIR(mode) && dir->i_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	inode = ext2_new_inode(dir, mode);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (S_ISDIR(mode)) {
		inode->i_nlink = 2;
		err = ext2_make_empty_dir(inode, dir);
		if (err)
			goto err_discard;
	}
	if (S_ISLNK(mode)) {
		err = ext2_write_link(inode, target, strlen(target));
		if (err)
			goto err_discard;
	}
	err = ext2_add_entry(dir, name, len, inode->i_ino, mode);
	if (err)
		goto err_discard;
	if (S_ISDIR(mode)) {
		dir->i_nlink++;
		touch(dir);
	}
	*out = inode;
	return 0;

err_discard:
	discard_new(inode);
	return err;
}

static int ext2_create(struct inode *dir,
		       const char *name,
		       size_t len,
		       mode_t mode,
		       struct inode **out)
{
	return new_entry(dir, name, len, S_IFREG | (mode & 07777), NULL, out);
}

static int ext2_mkdir(struct inode *dir,
		      const char *name,
		      size_t len,
		      mode_t mode,
		      struct inode **out)
{
	return new_entry(dir, name, len, S_IFDIR | (mode & 07777), NULL, out);
}

static int ext2_symlink(struct inode *dir,
			const char *name,
			size_t len,
			const char *target,
			struct inode **out)
{
	if (strlen(target) + 1 > dir->i_sb->s_blocksize)
		return -ENAMETOOLONG;
	return new_entry(dir, name, len, S_IFLNK | 0777, target, out);
}

static int
ext2_link(struct inode *old, struct inode *dir, const char *name, size_t len)
{
	unsigned long ino;
	int err;

	if (S_ISDIR(old->i_mode))
		return -EPERM;
	if (old->i_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	err = ext2_find_entry(dir, name, len, &ino);
	if (err != -ENOENT)
		return err ? err : -EEXIST;
	err = ext2_add_entry(dir, name, len, old->i_ino, old->i_mode);
	if (err)
		return err;
	old->i_nlink++;
	touch(old);
	return 0;
}

static int ext2_unlink(struct inode *dir,
		       const char *name,
		       size_t len,
		       struct inode *victim)
{
	int err = ext2_delete_entry(dir, name, len);

	if (err)
		return err;
	if (victim->i_nlink)
		victim->i_nlink--;
	touch(victim);
	return 0;
}

static int ext2_rmdir(struct inode *dir,
		      const char *name,
		      size_t len,
		      struct inode *victim)
{
	int err = ext2_dir_is_empty(victim);

	if (err <= 0)
		return err ? err : -ENOTEMPTY;
	err = ext2_delete_entry(dir, name, len);
	if (err)
		return err;
	victim->i_nlink = 0;
	touch(victim);
	if (dir->i_nlink > 2)
		dir->i_nlink--;
	touch(dir);
	return 0;
}

/* Replace @victim's entry @nname in @ndir by @moved. */
static int replace_victim(struct inode *ndir,
			  const char *nname,
			  size_t nlen,
			  struct inode *moved,
			  struct inode *victim)
{
	bool dir = S_ISDIR(moved->i_mode);
	int err;

	if (S_ISDIR(victim->i_mode) != dir)
		return dir ? -ENOTDIR : -EISDIR;
	if (dir) {
		err = ext2_dir_is_empty(victim);
		if (err <= 0)
			return err ? err : -ENOTEMPTY;
	}
	err = ext2_set_entry(ndir, nname, nlen, moved->i_ino, moved->i_mode);
	if (err)
		return err;
	if (dir) {
		victim->i_nlink = 0;
		ndir->i_nlink--; /* victim's ".." */
	} else if (victim->i_nlink) {
		victim->i_nlink--;
	}
	touch(victim);
	return 0;
}

static int ext2_rename(struct inode *odir,
		       const char *oname,
		       size_t olen,
		       struct inode *ndir,
		       const char *nname,
		       size_t nlen,
		       struct inode *moved,
		       struct inode *victim)
{
	bool dir = S_ISDIR(moved->i_mode);
	int err;

	if (victim == moved)
		return 0;
	if (victim) {
		err = replace_victim(ndir, nname, nlen, moved, victim);
	} else {
		if (dir && odir != ndir && ndir->i_nlink >= EXT2_LINK_MAX)
			return -EMLINK;
		err = ext2_add_entry(
		    ndir, nname, nlen, moved->i_ino, moved->i_mode);
	}
	if (err)
		return err;
	err = ext2_delete_entry(odir, oname, olen);
	if (err)
		return err;
	if (dir && odir != ndir) {
		lockdep_assert_held_write(&moved->i_rwsem);
		err = ext2_set_dotdot(moved, ndir->i_ino);
		odir->i_nlink--;
		ndir->i_nlink++;
	}
	touch(moved);
	touch(odir);
	touch(ndir);
	return err;
}

const struct inode_operations ext2_dir_iops = {
	.lookup = ext2_lookup,
	.create = ext2_create,
	.mkdir = ext2_mkdir,
	.link = ext2_link,
	.unlink = ext2_unlink,
	.rmdir = ext2_rmdir,
	.rename = ext2_rename,
	.symlink = ext2_symlink,
	.setattr = ext2_setattr,
	.get_flags = ext2_get_flags,
};

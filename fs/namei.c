/*
 * fs/namei.c: the directory-changing calls but rename (fs/rename.c); path
 * lookup is fs/path.c.
 *
 * They act on the last component itself, never following a symbolic link
 * there (unlink removes the link, rename moves it, link links it).
 * Directory calls lock the parent's i_rwsem exclusive, then the victim's
 * (unlink, rmdir). rename, with its own locking, is fs/rename.c.
 */
#include <string.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <fs/internal.h>

/* The last component was followed by '/'. */
bool trailing_slash(const char *name, size_t len)
{
	return name[len] == '/';
}

int may_change(struct inode *dir)
{
	if (dir->i_sb->s_rdonly)
		return -EROFS;
	if (!dir->i_op)
		return -EPERM;
	return 0;
}

/*
 * A directory removed (rmdir, or replaced by rename) is marked S_DEAD under
 * its own i_rwsem, held with its parent's. A creator found the directory
 * before taking its lock: once it holds the lock it must look again, or it
 * would add an entry, and an inode, to a directory no path reaches.
 */
int may_create(struct inode *dir)
{
	lockdep_assert_held_write(&dir->i_rwsem);
	if (dir->i_flags & S_DEAD)
		return -ENOENT;
	return may_change(dir);
}

/* Caller holds @dir's i_rwsem exclusive; @dir has just been removed. */
void mark_dead_dir(struct inode *dir)
{
	lockdep_assert_held_write(&dir->i_rwsem);
	dir->i_flags |= S_DEAD;
}

/* What makes a new name: mkdir's mode or symlink's target. */
struct new_name {
	mode_t mode;
	const char *target;
};

static int make_name(struct inode *dir,
		     const char *name,
		     size_t len,
		     const struct new_name *what)
{
	struct inode *inode;
	int err;

	if (what->target) {
		if (trailing_slash(name, len))
			return -ENOENT;
		err = dir->i_op->symlink
			  ? dir->i_op->symlink(
				dir, name, len, what->target, &inode)
			  : -EPERM;
	} else {
		err = dir->i_op->mkdir
			  ? dir->i_op->mkdir(dir, name, len, what->mode, &inode)
			  : -EPERM;
	}
	if (!err)
		iput(inode);
	return err;
}

/* mkdir and symlink: @path's last component must not exist (not even as a
 * dangling link); its directory is locked while it is made. */
static int new_name_at(const char *path, const struct new_name *what)
{
	const char *name;
	size_t len;
	struct inode *dir = vfs_lookup_parent(path, &name, &len);
	struct inode *inode;
	int err;

	if (IS_ERR(dir))
		return PTR_ERR(dir);
	err = -EEXIST;
	if (!len || name_is_dots(name, len))
		goto out_put;
	down_write(&dir->i_rwsem);
	inode = lookup_one(dir, name, len);
	if (!IS_ERR(inode)) {
		iput(inode);
		err = -EEXIST;
	} else if (PTR_ERR(inode) != -ENOENT) {
		err = PTR_ERR(inode);
	} else if (!(err = may_create(dir))) {
		err = make_name(dir, name, len, what);
	}
	up_write(&dir->i_rwsem);
out_put:
	iput(dir);
	return err;
}

int vfs_mkdir(const char *path, mode_t mode)
{
	return new_name_at(
	    path, &(struct new_name){ .mode = S_IFDIR | (mode & 07777) });
}

/**
 * vfs_symlink - make @path a symbolic link to @target (not checked: it may
 * dangle). Context: task, may sleep.
 * Return: 0, -ENOENT (empty @target), -ENAMETOOLONG (@target of
 * PATH_MAX_LEN bytes or more, or more than the filesystem holds), -EEXIST.
 */
int vfs_symlink(const char *target, const char *path)
{
	size_t tlen = strnlen(target, PATH_MAX_LEN);

	if (tlen == PATH_MAX_LEN)
		return -ENAMETOOLONG;
	if (!tlen)
		return -ENOENT;
	return new_name_at(path, &(struct new_name){ .target = target });
}

/* Lock @dir, look @name up and lock it too. Return: the victim (referenced,
 * locked) with @dir locked, or ERR_PTR with nothing locked. */
static struct inode *
lock_victim(struct inode *dir, const char *name, size_t len)
{
	struct inode *victim;

	down_write(&dir->i_rwsem);
	victim = lookup_one(dir, name, len);
	if (IS_ERR(victim)) {
		up_write(&dir->i_rwsem);
		return victim;
	}
	down_write_nested(&victim->i_rwsem, 1);
	return victim;
}

static void unlock_victim(struct inode *dir, struct inode *victim)
{
	up_write(&victim->i_rwsem);
	up_write(&dir->i_rwsem);
	iput(victim);
}

/* rmdir's checks and call, with the parent and @victim locked. */
static int rmdir_locked(struct inode *dir,
			const char *name,
			size_t len,
			struct inode *victim)
{
	int err;

	if (!S_ISDIR(victim->i_mode))
		return -ENOTDIR;
	if (victim == victim->i_sb->s_root)
		return -EBUSY;
	err = dir_check_empty(victim);
	if (!err)
		err = dir->i_op->rmdir
			  ? dir->i_op->rmdir(dir, name, len, victim)
			  : -EPERM;
	if (!err)
		mark_dead_dir(victim);
	return err;
}

static int unlink_locked(struct inode *dir,
			 const char *name,
			 size_t len,
			 struct inode *victim)
{
	if (S_ISDIR(victim->i_mode))
		return -EISDIR;
	if (trailing_slash(name, len))
		return -ENOTDIR;
	return dir->i_op->unlink ? dir->i_op->unlink(dir, name, len, victim)
				 : -EPERM;
}

/*
 * rmdir and unlink: find the parent, refuse a last component that is not
 * a name (@name_err: its errno, or 0), lock the parent and the victim, and
 * let @locked check and remove.
 */
static int remove_name(const char *path,
		       int (*name_err)(const char *name, size_t len),
		       int (*locked)(struct inode *dir,
				     const char *name,
				     size_t len,
				     struct inode *victim))
{
	const char *name;
	size_t len;
	struct inode *dir = vfs_lookup_parent(path, &name, &len);
	struct inode *victim;
	int err;

	if (IS_ERR(dir))
		return PTR_ERR(dir);
	if (!(err = name_err(name, len)) && !(err = may_change(dir))) {
		victim = lock_victim(dir, name, len);
		if (IS_ERR(victim)) {
			err = PTR_ERR(victim);
		} else {
			err = locked(dir, name, len, victim);
			unlock_victim(dir, victim);
		}
	}
	iput(dir);
	return err;
}

/* rmdir of "/" is busy; of "." invalid; of ".." not empty (Linux). */
static int rmdir_name_err(const char *name, size_t len)
{
	if (!len)
		return -EBUSY;
	if (name_is_dots(name, len))
		return len == 1 ? -EINVAL : -ENOTEMPTY;
	return 0;
}

static int unlink_name_err(const char *name, size_t len)
{
	return !len || name_is_dots(name, len) ? -EISDIR : 0;
}

int vfs_rmdir(const char *path)
{
	return remove_name(path, rmdir_name_err, rmdir_locked);
}

int vfs_unlink(const char *path)
{
	return remove_name(path, unlink_name_err, unlink_locked);
}

int vfs_link(const char *oldpath, const char *newpath)
{
	struct inode *old = vfs_lookup_flags(oldpath, 0), *dir, *exists;
	const char *name;
	size_t len;
	int err;

	if (IS_ERR(old))
		return PTR_ERR(old);
	dir = vfs_lookup_parent(newpath, &name, &len);
	err = PTR_ERR(dir);
	if (IS_ERR(dir))
		goto out_put_old;
	err = -EEXIST;
	if (!len || name_is_dots(name, len))
		goto out_put_dir;
	err = -EPERM;
	if (S_ISDIR(old->i_mode))
		goto out_put_dir;
	err = -EXDEV;
	if (old->i_sb != dir->i_sb)
		goto out_put_dir;
	down_write(&dir->i_rwsem);
	exists = lookup_one(dir, name, len);
	if (!IS_ERR(exists)) {
		iput(exists);
		err = -EEXIST;
	} else if (PTR_ERR(exists) != -ENOENT) {
		err = PTR_ERR(exists);
	} else if (!(err = may_create(dir))) {
		down_write_nested(&old->i_rwsem, 1);
		if (!old->i_nlink)
			err = -ENOENT;
		else if (trailing_slash(name, len))
			err = -ENOENT;
		else
			err = dir->i_op->link
				  ? dir->i_op->link(old, dir, name, len)
				  : -EPERM;
		up_write(&old->i_rwsem);
	}
	up_write(&dir->i_rwsem);
out_put_dir:
	iput(dir);
out_put_old:
	iput(old);
	return err;
}

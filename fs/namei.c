/*
 * fs/namei.c: the directory-changing calls (path lookup is fs/path.c).
 *
 * They act on the last component itself, never following a symbolic link
 * there (unlink removes the link, rename moves it, link links it).
 * Directory calls lock the parent's i_rwsem exclusive, then the victim's
 * (unlink, rmdir, rename's target); rename also locks the moved inode
 * unless it is a directory staying in its parent. A cross-directory rename
 * takes rename_mutex first, which keeps the tree's shape still while it checks
 * ancestry, then locks the two directories ancestor first (address order
 * if neither contains the other), as Linux's lock_rename does.
 */
#include <string.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <fs/internal.h>

#define MAX_DEPTH 4096 /* ancestry walks give up (-ELOOP) past this */

static struct mutex rename_mutex;

static int rename_mutex_init(void)
{
	mutex_init(&rename_mutex, "rename_mutex", NULL);
	return 0;
}
INIT_HOOK(rename_mutex, rename_mutex_init, INIT_LEVEL_SCHED);

/* The last component was followed by '/'. */
static bool trailing_slash(const char *name, size_t len)
{
	return name[len] == '/';
}

static int may_change(struct inode *dir)
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
static void mark_dead_dir(struct inode *dir)
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

int vfs_rmdir(const char *path)
{
	const char *name;
	size_t len;
	struct inode *dir = vfs_lookup_parent(path, &name, &len);
	struct inode *victim;
	int err;

	if (IS_ERR(dir))
		return PTR_ERR(dir);
	if (!len)
		err = -EBUSY;
	else if (name_is_dots(name, len))
		err = len == 1 ? -EINVAL : -ENOTEMPTY;
	else if ((err = may_change(dir)))
		;
	else if (IS_ERR(victim = lock_victim(dir, name, len)))
		err = PTR_ERR(victim);
	else {
		if (!S_ISDIR(victim->i_mode))
			err = -ENOTDIR;
		else if (victim == victim->i_sb->s_root)
			err = -EBUSY;
		else if (!(err = dir_check_empty(victim)))
			err = dir->i_op->rmdir
				  ? dir->i_op->rmdir(dir, name, len, victim)
				  : -EPERM;
		if (!err)
			mark_dead_dir(victim);
		unlock_victim(dir, victim);
	}
	iput(dir);
	return err;
}

int vfs_unlink(const char *path)
{
	const char *name;
	size_t len;
	struct inode *dir = vfs_lookup_parent(path, &name, &len);
	struct inode *victim;
	int err;

	if (IS_ERR(dir))
		return PTR_ERR(dir);
	if (!len || name_is_dots(name, len))
		err = -EISDIR;
	else if ((err = may_change(dir)))
		;
	else if (IS_ERR(victim = lock_victim(dir, name, len)))
		err = PTR_ERR(victim);
	else {
		if (S_ISDIR(victim->i_mode))
			err = -EISDIR;
		else if (trailing_slash(name, len))
			err = -ENOTDIR;
		else
			err = dir->i_op->unlink
				  ? dir->i_op->unlink(dir, name, len, victim)
				  : -EPERM;
		unlock_victim(dir, victim);
	}
	iput(dir);
	return err;
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

/*
 * Is @anc @dir or one of its ancestors? Walks ".." up to the root.
 * Caller holds rename_mutex and no directory lock.
 * Return: 1, 0 or a negative errno.
 */
static int is_ancestor(struct inode *anc, struct inode *dir)
{
	struct inode *cur = dir, *next;
	int ret = 0;

	ihold(cur);
	for (int depth = 0;; depth++) {
		if (cur == anc) {
			ret = 1;
			break;
		}
		if (cur == cur->i_sb->s_root)
			break;
		if (depth == MAX_DEPTH) {
			ret = -ELOOP;
			break;
		}
		next = lookup_child(cur, "..", 2);
		iput(cur);
		if (IS_ERR(next))
			return PTR_ERR(next);
		cur = next;
	}
	iput(cur);
	return ret;
}

struct rename_ctx {
	struct inode *odir, *ndir;
	const char *oname, *nname;
	size_t olen, nlen;
	struct inode *moved, *victim;
	struct inode *checked; /* cross-directory: the moved inode checked */
};

/*
 * Between two directories: under rename_mutex, refuse to move a directory
 * into itself and find the lock order, then lock both.
 * Return: 0 with both locked and rename_mutex held, or an error with
 * nothing held.
 */
static int lock_rename_two(struct rename_ctx *r)
{
	struct inode *first = r->odir, *second = r->ndir;
	struct inode *moved;
	int err;

	mutex_lock(&rename_mutex);
	moved = lookup_child(r->odir, r->oname, r->olen);
	err = PTR_ERR(moved);
	if (IS_ERR(moved))
		goto out_unlock;
	r->checked = moved;
	err = S_ISDIR(moved->i_mode) ? is_ancestor(moved, r->ndir) : 0;
	if (err)
		goto out_einval;
	err = is_ancestor(r->odir, r->ndir);
	if (err == 0) {
		err = is_ancestor(r->ndir, r->odir);
		if (err == 1 || (!err && r->ndir < r->odir)) {
			first = r->ndir;
			second = r->odir;
		}
	}
	if (err < 0)
		goto out_unlock;
	down_write_nested(&first->i_rwsem, 0);
	down_write_nested(&second->i_rwsem, 1);
	return 0;
out_einval:
	err = err < 0 ? err : -EINVAL;
out_unlock:
	mutex_unlock(&rename_mutex);
	return err;
}

static void unlock_rename(struct rename_ctx *r)
{
	up_write(&r->odir->i_rwsem);
	if (r->odir != r->ndir) {
		up_write(&r->ndir->i_rwsem);
		mutex_unlock(&rename_mutex);
	}
}

/* Type checks of a rename whose inodes are found. */
static int rename_check(struct rename_ctx *r)
{
	struct inode *m = r->moved, *v = r->victim;

	if (m == m->i_sb->s_root || (v && v == v->i_sb->s_root))
		return -EBUSY;
	if (S_ISDIR(m->i_mode)) {
		if (v && !S_ISDIR(v->i_mode))
			return -ENOTDIR;
		return v ? dir_check_empty(v) : 0;
	}
	if (v && S_ISDIR(v->i_mode))
		return -EISDIR;
	if (trailing_slash(r->oname, r->olen) ||
	    trailing_slash(r->nname, r->nlen))
		return -ENOTDIR;
	return 0;
}

/*
 * The moved inode is locked when it is not a directory or when it changes
 * parent (the filesystem rewrites its ".."; a create in it must not run
 * meanwhile), and the victim when there is one: Linux's lock_two_inodes.
 * Both are of one type (rename_check) and neither contains the other, so
 * they go in address order, after the parents.
 */
static bool rename_locks_moved(const struct rename_ctx *r)
{
	return !S_ISDIR(r->moved->i_mode) || r->odir != r->ndir;
}

static void lock_rename_children(struct rename_ctx *r)
{
	struct inode *a = rename_locks_moved(r) ? r->moved : NULL;
	struct inode *b = r->victim;

	if (a && b && b < a) {
		b = a;
		a = r->victim;
	}
	if (a)
		down_write_nested(&a->i_rwsem, 2);
	if (b)
		down_write_nested(&b->i_rwsem, 3);
}

static void unlock_rename_children(struct rename_ctx *r)
{
	if (r->victim)
		up_write(&r->victim->i_rwsem);
	if (rename_locks_moved(r))
		up_write(&r->moved->i_rwsem);
}

/* Both directories locked: find the two inodes and move. */
static int rename_locked(struct rename_ctx *r)
{
	struct inode *odir = r->odir, *ndir = r->ndir;
	int err = may_create(ndir);

	if (err)
		return err;
	r->moved = lookup_one(odir, r->oname, r->olen);
	if (IS_ERR(r->moved))
		return PTR_ERR(r->moved);
	if (r->checked && r->checked != r->moved) {
		iput(r->moved);
		return -EAGAIN; /* replaced since it was checked */
	}
	r->victim = lookup_one(ndir, r->nname, r->nlen);
	err = 0;
	if (IS_ERR(r->victim)) {
		err = PTR_ERR(r->victim) == -ENOENT ? 0 : PTR_ERR(r->victim);
		r->victim = NULL;
	}
	if (!err && r->moved != r->victim)
		err = rename_check(r);
	if (!err && r->moved != r->victim) {
		lock_rename_children(r);
		race_point(RACE_RENAME_LOCKED, r->moved);
		err = odir->i_op->rename ? odir->i_op->rename(odir,
							      r->oname,
							      r->olen,
							      ndir,
							      r->nname,
							      r->nlen,
							      r->moved,
							      r->victim)
					 : -EPERM;
		if (r->victim && !err && S_ISDIR(r->victim->i_mode))
			mark_dead_dir(r->victim);
		unlock_rename_children(r);
	}
	iput(r->victim);
	iput(r->moved);
	return err;
}

static int rename_parents(struct rename_ctx *r)
{
	int err;

	if (!r->olen || !r->nlen || name_is_dots(r->oname, r->olen) ||
	    name_is_dots(r->nname, r->nlen))
		return -EBUSY;
	if (r->odir->i_sb != r->ndir->i_sb)
		return -EXDEV;
	if ((err = may_change(r->ndir)))
		return err;
	do {
		if (r->odir == r->ndir)
			down_write(&r->odir->i_rwsem);
		else if ((err = lock_rename_two(r)))
			break;
		err = rename_locked(r);
		unlock_rename(r);
		iput(r->checked);
		r->checked = NULL;
	} while (err == -EAGAIN);
	iput(r->checked);
	return err;
}

int vfs_rename(const char *oldpath, const char *newpath)
{
	struct rename_ctx r = { 0 };
	int err;

	r.odir = vfs_lookup_parent(oldpath, &r.oname, &r.olen);
	if (IS_ERR(r.odir))
		return PTR_ERR(r.odir);
	r.ndir = vfs_lookup_parent(newpath, &r.nname, &r.nlen);
	if (IS_ERR(r.ndir)) {
		iput(r.odir);
		return PTR_ERR(r.ndir);
	}
	err = rename_parents(&r);
	iput(r.ndir);
	iput(r.odir);
	return err;
}

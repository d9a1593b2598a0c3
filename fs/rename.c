/*
 * fs/rename.c: rename(2).
 *
 * Within one directory: the directory's i_rwsem exclusive, then the moved
 * inode's (unless it is a directory staying in its parent) and the
 * victim's. Between two: rename_mutex first, which keeps the tree's shape
 * still while it checks that a directory does not move into itself, then
 * the two directories ancestor first (address order if neither contains
 * the other), as Linux's lock_rename does; then the children, moved inode
 * and victim, in address order.
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

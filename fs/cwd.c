/*
 * fs/cwd.c: each task's working directory.
 *
 * task->cwd is a referenced directory inode, or NULL for the root. Only
 * the task itself changes or reads it (chdir, fchdir, relative lookups),
 * except at creation, when the creating task - the running one - lends a
 * reference to the new task (cwd_inherit), and after the task ended, when
 * its joiner drops it (cwd_release). So it takes no lock.
 *
 * getcwd has no names to read back (the VFS caches inodes, not paths): it
 * climbs "..", finding each directory's name by its inode number in its
 * parent, as the classic Unix getcwd did. A working directory that was
 * removed has no path: -ENOENT, as Linux says.
 */
#include <fcntl.h>
#include <string.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

struct inode *cwd_get(void)
{
	struct task *t = current_task();
	struct inode *cwd = t ? t->cwd : NULL;

	if (!cwd)
		return root_inode();
	/* The root was unmounted and mounted again since chdir. */
	if (cwd->i_sb != vfs_root_sb())
		return ERR_PTR(-ENOENT);
	ihold(cwd);
	return cwd;
}

void cwd_inherit(struct task *t)
{
	struct task *parent = current_task();

	t->cwd = NULL;
	if (parent && parent->cwd) {
		ihold(parent->cwd);
		t->cwd = parent->cwd;
	}
}

void cwd_release(struct task *t)
{
	struct inode *cwd = t->cwd;

	/* the task itself, or its joiner once it is dead */
	DEBUG_ASSERT(t == current_task() || READ_ONCE(t->state) == TASK_DEAD);
	t->cwd = NULL;
	iput(cwd);
}

/* Make @dir (referenced; consumed) the working directory. */
static int set_cwd(struct inode *dir)
{
	struct task *t = current_task();

	DEBUG_ASSERT(t);
	if (!S_ISDIR(dir->i_mode)) {
		iput(dir);
		return -ENOTDIR;
	}
	iput(t->cwd);
	t->cwd = dir;
	return 0;
}

int vfs_chdir(const char *path)
{
	struct inode *dir = vfs_lookup(path);

	return IS_ERR(dir) ? PTR_ERR(dir) : set_cwd(dir);
}

int vfs_fchdir(struct file *f)
{
	if (!f->f_inode)
		return -ENOTDIR;
	ihold(f->f_inode);
	return set_cwd(f->f_inode);
}

struct find_ino {
	struct dir_context ctx;
	unsigned long ino;
	char *name; /* NAME_MAX_LEN + 1 bytes */
	bool found;
};

static bool find_ino_actor(struct dir_context *ctx,
			   const char *name,
			   size_t len,
			   loff_t pos,
			   unsigned long ino,
			   unsigned int type)
{
	struct find_ino *f = container_of(ctx, struct find_ino, ctx);

	(void)pos;
	(void)type;
	if (ino != f->ino || name_is_dots(name, len))
		return true;
	memcpy(f->name, name, len);
	f->name[len] = '\0';
	f->found = true;
	return false;
}

/* The name of @ino in @dir into @name. */
static int name_in_dir(struct inode *dir, unsigned long ino, char *name)
{
	struct find_ino f = { .ctx = { .actor = find_ino_actor },
			      .ino = ino,
			      .name = name };
	int err;

	down_read(&dir->i_rwsem);
	err = dir_iterate(dir, &f.ctx);
	up_read(&dir->i_rwsem);
	if (err)
		return err;
	return f.found ? 0 : -ENOENT;
}

/* Put "/@name" before *@start (which moves back) in @buf. */
static int prepend(char *buf, char **start, const char *name)
{
	size_t len = strlen(name);

	if ((size_t)(*start - buf) < len + 1)
		return -ENAMETOOLONG;
	*start -= len;
	memcpy(*start, name, len);
	*--*start = '/';
	return 0;
}

/* Build the path of @cwd (consumed) at the end of @buf (PATH_MAX_LEN). */
static char *build_path(struct inode *cwd, char *buf, char *name)
{
	char *start = buf + PATH_MAX_LEN - 1;
	struct inode *parent;
	int err = 0;

	*start = '\0';
	while (!err && cwd != cwd->i_sb->s_root) {
		parent = lookup_child(cwd, "..", 2);
		if (IS_ERR(parent)) {
			err = PTR_ERR(parent);
			break;
		}
		err = name_in_dir(parent, cwd->i_ino, name);
		if (!err)
			err = prepend(buf, &start, name);
		iput(cwd);
		cwd = parent;
	}
	iput(cwd);
	if (err)
		return ERR_PTR(err);
	if (!*start)
		*--start = '/';
	return start;
}

/**
 * vfs_getcwd - the working directory's absolute path.
 * Context: task, may sleep (reads directories).
 */
long vfs_getcwd(char *buf, size_t size)
{
	struct inode *cwd = cwd_get();
	char *page, *path;
	long len;

	if (IS_ERR(cwd))
		return PTR_ERR(cwd);
	if (!cwd->i_nlink) {
		iput(cwd);
		return -ENOENT;
	}
	page = kmalloc(PATH_MAX_LEN + NAME_MAX_LEN + 1, GFP_KERNEL);
	if (!page) {
		iput(cwd);
		return -ENOMEM;
	}
	path = build_path(cwd, page, page + PATH_MAX_LEN);
	if (IS_ERR(path)) {
		len = PTR_ERR(path);
	} else {
		len = strlen(path) + 1;
		if ((size_t)len > size)
			len = -ERANGE;
		else
			memcpy(buf, path, len);
	}
	kfree(page);
	return len;
}

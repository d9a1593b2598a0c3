/*
 * fs/path.c: path lookup.
 *
 * A path is walked from the root if it starts with '/', else from the
 * task's working directory (fs/cwd.c). Components are separated by one or
 * more '/'; "." stays, ".." asks the filesystem's lookup for "..", except
 * at the root where it stays.
 *
 * Symbolic links met in the middle of a path are always followed; the last
 * component is followed only with LOOKUP_FOLLOW or when a '/' comes after
 * it, as Linux does (stat follows, lstat does not). A relative link target
 * is walked from the directory that holds the link, an absolute one from
 * the root. At most MAX_SYMLINKS links are followed in one lookup, nested
 * or one after another; one more is -ELOOP. The targets being walked sit
 * on an explicit stack (struct nameidata), not on the task's stack.
 *
 * Errors as Linux: -ENOENT (missing component, empty path or empty link
 * target), -ENOTDIR (a non-directory in the middle, or a trailing '/' after
 * one), -ENAMETOOLONG (a component over NAME_MAX_LEN, a path or a link
 * target of PATH_MAX_LEN bytes or more), -ELOOP.
 *
 * Locks: each step takes the directory's i_rwsem shared for its lookup and
 * drops it before the next; no lock is held between steps.
 */
#include <string.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

/* A link target being walked, and where the text that led to it resumes. */
struct nd_frame {
	char *text;	    /* the target (owned) */
	const char *resume; /* the rest of the path that held the link */
};

struct nameidata {
	unsigned int flags;
	int links; /* followed so far */
	int depth; /* frames on the stack */
	struct nd_frame stack[MAX_SYMLINKS];
};

bool name_is_dots(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') ||
	       (len == 2 && name[0] == '.' && name[1] == '.');
}

struct inode *lookup_one(struct inode *dir, const char *name, size_t len)
{
	unsigned long ino;
	int err;

	if (!S_ISDIR(dir->i_mode))
		return ERR_PTR(-ENOTDIR);
	if (len > NAME_MAX_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	if (!dir->i_op || !dir->i_op->lookup)
		return ERR_PTR(-ENOTDIR);
	err = dir->i_op->lookup(dir, name, len, &ino);
	if (err)
		return ERR_PTR(err);
	/*
	 * Only "." may name the directory itself: a corrupt entry that does
	 * would have unlink and rename lock the directory twice. As Linux:
	 * -ELOOP, and a console line.
	 */
	if (ino == dir->i_ino && !name_is_dots(name, len)) {
		pr_err("vfs: entry '%.*s' in directory %lu names the directory "
		       "itself: refused (run e2fsck)\n",
		       (int)len,
		       name,
		       dir->i_ino);
		return ERR_PTR(-ELOOP);
	}
	return iget(dir->i_sb, ino);
}

struct inode *lookup_child(struct inode *dir, const char *name, size_t len)
{
	struct inode *next;

	if (!S_ISDIR(dir->i_mode))
		return ERR_PTR(-ENOTDIR);
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.' &&
	     dir == dir->i_sb->s_root)) {
		ihold(dir);
		return dir;
	}
	down_read(&dir->i_rwsem);
	next = lookup_one(dir, name, len);
	up_read(&dir->i_rwsem);
	return next;
}

struct inode *root_inode(void)
{
	struct super_block *sb = vfs_root_sb();

	if (!sb)
		return ERR_PTR(-ENODEV);
	ihold(sb->s_root);
	return sb->s_root;
}

/* Read @link's target into a new buffer. Return: it, or ERR_PTR. */
static char *link_text(struct inode *link)
{
	char *text = kmalloc(PATH_MAX_LEN, GFP_KERNEL);
	int len;

	if (!text)
		return ERR_PTR(-ENOMEM);
	len = vfs_get_link(link, text, PATH_MAX_LEN);
	if (len <= 0) {
		kfree(text);
		return ERR_PTR(len ? len : -ENOENT);
	}
	return text;
}

/* Nothing left to walk: this text and every one it interrupted ended. */
static bool walk_done(const struct nameidata *nd, const char *s)
{
	if (*s)
		return false;
	for (int i = 0; i < nd->depth; i++)
		if (*nd->stack[i].resume)
			return false;
	return true;
}

/*
 * Push @link's target; *@dir (the link's directory) becomes the root for
 * an absolute one. Consumes @link. Return: the text to walk, or ERR_PTR.
 */
static const char *push_link(struct nameidata *nd,
			     struct inode **dir,
			     struct inode *link,
			     const char *resume)
{
	char *text;
	struct inode *root;

	if (++nd->links > MAX_SYMLINKS) {
		iput(link);
		return ERR_PTR(-ELOOP);
	}
	text = link_text(link);
	iput(link);
	if (IS_ERR(text))
		return text;
	if (text[0] == '/') {
		root = root_inode();
		if (IS_ERR(root)) {
			kfree(text);
			return ERR_PTR(PTR_ERR(root));
		}
		iput(*dir);
		*dir = root;
	}
	nd->stack[nd->depth++] = (struct nd_frame){ text, resume };
	return text;
}

static void nd_release(struct nameidata *nd)
{
	while (nd->depth)
		kfree(nd->stack[--nd->depth].text);
}

/*
 * The walk itself, from @dir (referenced; consumed). With LOOKUP_PARENT,
 * stop before the last component and return it in *last and *lastlen
 * (length 0 for "/"); the returned inode is then a directory.
 */
static struct inode *walk(struct nameidata *nd,
			  struct inode *dir,
			  const char *s,
			  const char **last,
			  size_t *lastlen)
{
	bool parent = nd->flags & LOOKUP_PARENT, slash, must_dir = false;
	const char *name = s;
	size_t len = 0;
	struct inode *next;

	for (;;) {
		while (*s == '/')
			s++;
		if (!*s && nd->depth) {
			kfree(nd->stack[--nd->depth].text);
			s = nd->stack[nd->depth].resume;
			continue;
		}
		name = s;
		while (*s && *s != '/')
			s++;
		len = s - name;
		if (!len)
			break;
		if (len > NAME_MAX_LEN) {
			next = ERR_PTR(-ENAMETOOLONG);
			goto out_put;
		}
		slash = *s == '/';
		while (*s == '/')
			s++;
		if (parent && walk_done(nd, s))
			break;
		/* "file/": what the path finally names must be a directory */
		must_dir |= slash && walk_done(nd, s);
		next = lookup_child(dir, name, len);
		if (IS_ERR(next))
			goto out_put;
		if (S_ISLNK(next->i_mode) && (slash || !walk_done(nd, s) ||
					      (nd->flags & LOOKUP_FOLLOW))) {
			s = push_link(nd, &dir, next, s);
			if (IS_ERR(s)) {
				next = ERR_PTR(PTR_ERR(s));
				goto out_put;
			}
			continue;
		}
		iput(dir);
		dir = next;
	}
	if (parent) {
		*last = name;
		*lastlen = len;
	}
	if ((parent || must_dir) && !S_ISDIR(dir->i_mode)) {
		next = ERR_PTR(-ENOTDIR);
		goto out_put;
	}
	return dir;
out_put:
	iput(dir);
	return next;
}

/**
 * path_lookup_at - walk @path from @base (NULL: the working directory; an
 * absolute path starts at the root whatever @base is).
 * @flags: LOOKUP_FOLLOW, LOOKUP_PARENT (then *@last, *@lastlen name the
 * last component, which points into @path).
 * Context: task, may sleep.
 * Return: a referenced inode or ERR_PTR.
 */
struct inode *path_lookup_at(struct inode *base,
			     const char *path,
			     unsigned int flags,
			     const char **last,
			     size_t *lastlen)
{
	struct nameidata *nd;
	struct inode *start, *ret;

	if (!*path)
		return ERR_PTR(-ENOENT);
	if (strnlen(path, PATH_MAX_LEN) == PATH_MAX_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	if (path[0] == '/')
		start = root_inode();
	else if (base)
		ihold(start = base);
	else
		start = cwd_get();
	if (IS_ERR(start))
		return start;
	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd) {
		iput(start);
		return ERR_PTR(-ENOMEM);
	}
	nd->flags = flags;
	ret = walk(nd, start, path, last, lastlen);
	nd_release(nd);
	kfree(nd);
	if ((flags & LOOKUP_PARENT) && !IS_ERR(ret))
		race_point(RACE_LOOKUP_PARENT, ret);
	return ret;
}

struct inode *vfs_lookup_flags(const char *path, unsigned int flags)
{
	return path_lookup_at(NULL, path, flags & LOOKUP_FOLLOW, NULL, NULL);
}

struct inode *vfs_lookup(const char *path)
{
	return vfs_lookup_flags(path, LOOKUP_FOLLOW);
}

struct inode *
vfs_lookup_parent(const char *path, const char **name, size_t *len)
{
	return path_lookup_at(NULL, path, LOOKUP_PARENT, name, len);
}

int vfs_get_link(struct inode *inode, char *buf, size_t size)
{
	if (!S_ISLNK(inode->i_mode) || !inode->i_op || !inode->i_op->get_link)
		return -EINVAL;
	return inode->i_op->get_link(inode, buf, size);
}

/**
 * vfs_readlink - the target of the symbolic link @path (not followed).
 * Context: task, may sleep.
 * Return: bytes put in @buf (at most @size, no NUL), or -EINVAL (not a
 * link, or @size 0), -ENOENT ...
 */
long vfs_readlink(const char *path, char *buf, size_t size)
{
	struct inode *inode;
	char *text;
	long len;

	if (!size || size > INT_MAX)
		return -EINVAL;
	inode = vfs_lookup_flags(path, 0);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	text = S_ISLNK(inode->i_mode) ? link_text(inode) : ERR_PTR(-EINVAL);
	iput(inode);
	if (IS_ERR(text))
		return PTR_ERR(text);
	len = MIN(strlen(text), size);
	memcpy(buf, text, len);
	kfree(text);
	return len;
}

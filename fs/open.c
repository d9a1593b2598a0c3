/*
 * fs/open.c: open(2) - finding or creating the file, then a struct file.
 *
 * Without O_CREAT the path is looked up, a last symbolic link followed
 * unless O_NOFOLLOW (which makes a link -ELOOP). With O_CREAT the last
 * component is found or created under its directory's i_rwsem held
 * exclusive (fs/file.c's rules); a symbolic link found there is followed
 * as Linux does, so a dangling one makes its target. O_TRUNC truncates a
 * regular file under its i_rwsem (vfs_truncate).
 */
#include <fcntl.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

/* Create @name in @dir (locked) or find it. A symbolic link found there
 * comes back as it is, for the caller to follow. */
static struct inode *open_create(
    struct inode *dir, const char *name, size_t len, int flags, mode_t mode)
{
	struct inode *inode = lookup_one(dir, name, len);
	int err;

	if (!IS_ERR(inode)) {
		if (flags & O_EXCL) {
			iput(inode);
			return ERR_PTR(-EEXIST);
		}
		return inode;
	}
	if (PTR_ERR(inode) != -ENOENT)
		return inode;
	if (name[len] == '/')
		return ERR_PTR(-EISDIR);
	err = may_create(dir);
	if (err)
		return ERR_PTR(err == -EPERM ? -EACCES : err);
	if (!dir->i_op->create)
		return ERR_PTR(-EACCES);
	err =
	    dir->i_op->create(dir, name, len, S_IFREG | (mode & 07777), &inode);
	return err ? ERR_PTR(err) : inode;
}

/* Find or create the last component of @path, from @base (NULL: the
 * working directory). Return: the inode, or ERR_PTR; *@dir is its
 * directory (referenced) when the inode is a symbolic link. */
static struct inode *open_create_at(struct inode *base,
				    const char *path,
				    int flags,
				    mode_t mode,
				    struct inode **dirp)
{
	const char *name;
	size_t len;
	struct inode *dir, *inode;

	dir = path_lookup_at(base, path, LOOKUP_PARENT, &name, &len);
	if (IS_ERR(dir))
		return dir;
	if (!len || name_is_dots(name, len)) {
		iput(dir);
		return ERR_PTR(-EISDIR);
	}
	down_write(&dir->i_rwsem);
	inode = open_create(dir, name, len, flags, mode);
	up_write(&dir->i_rwsem);
	if (!IS_ERR(inode) && S_ISLNK(inode->i_mode))
		*dirp = dir;
	else
		iput(dir);
	return inode;
}

/*
 * O_CREAT: a symbolic link as the last component is followed (unless
 * O_NOFOLLOW, or O_EXCL, which refuses any existing name), and a dangling
 * one makes its target, as on Linux. MAX_SYMLINKS links in a row at the
 * end of @path at most (each walk of a target has its own count).
 */
static struct inode *open_creat(const char *path, int flags, mode_t mode)
{
	struct inode *base = NULL, *dir = NULL, *inode;
	char *text = NULL;
	int links = 0;

	for (;;) {
		inode = open_create_at(base, path, flags, mode, &dir);
		iput(base);
		kfree(text);
		if (IS_ERR(inode) || !S_ISLNK(inode->i_mode))
			return inode;
		base = dir;
		text = NULL;
		if ((flags & O_NOFOLLOW) || ++links > MAX_SYMLINKS) {
			iput(inode);
			iput(base);
			return ERR_PTR(-ELOOP);
		}
		text = kmalloc(PATH_MAX_LEN, GFP_KERNEL);
		int n =
		    text ? vfs_get_link(inode, text, PATH_MAX_LEN) : -ENOMEM;
		iput(inode);
		if (n <= 0) {
			iput(base);
			kfree(text);
			return ERR_PTR(n ? n : -ENOENT);
		}
		path = text;
	}
}

static struct inode *open_inode(const char *path, int flags, mode_t mode)
{
	struct inode *inode;

	if (flags & O_CREAT)
		return open_creat(path, flags, mode);
	inode = vfs_lookup_flags(path, flags & O_NOFOLLOW ? 0 : LOOKUP_FOLLOW);
	if (!IS_ERR(inode) && S_ISLNK(inode->i_mode)) {
		iput(inode);
		return ERR_PTR(-ELOOP);
	}
	return inode;
}

static int may_open(struct inode *inode, int flags)
{
	int acc = flags & O_ACCMODE;

	if (S_ISDIR(inode->i_mode) && (acc != O_RDONLY || (flags & O_CREAT)))
		return -EISDIR;
	if ((flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (inode->i_sb->s_rdonly && (acc != O_RDONLY || (flags & O_TRUNC)))
		return -EROFS;
	return 0;
}

/**
 * vfs_open - open @path with O_* @flags (newlib's values); @mode for
 * O_CREAT. O_TRUNC truncates a regular file under its i_rwsem.
 * Context: task, may sleep.
 * Return: a file with one reference, or ERR_PTR.
 */
struct file *vfs_open(const char *path, int flags, mode_t mode)
{
	struct inode *inode;
	struct file *f;
	int err;

	if ((flags & O_ACCMODE) == O_ACCMODE)
		return ERR_PTR(-EINVAL);
	inode = open_inode(path, flags, mode);
	if (IS_ERR(inode))
		return ERR_PTR(PTR_ERR(inode));
	err = may_open(inode, flags);
	if (err)
		goto err_put;
	if ((flags & O_TRUNC) && S_ISREG(inode->i_mode)) {
		err = vfs_truncate(inode, 0);
		if (err)
			goto err_put;
	}
	err = -ENOMEM;
	f = file_alloc(inode, flags);
	if (!f)
		goto err_put;
	if (f->f_op && f->f_op->open) {
		err = f->f_op->open(inode, f);
		if (err) {
			kfree(f);
			goto err_put;
		}
	}
	return f;
err_put:
	iput(inode);
	return ERR_PTR(err);
}

/*
 * fs/syscalls_path.c: the POSIX calls on links, the working directory and
 * attributes, which newlib does not provide for this target: lstat,
 * readlink, symlink, chdir, fchdir, getcwd, chmod, fchmod, utimensat,
 * futimens, statfs, fstatfs. Prototypes newlib lacks are in
 * kernel/libc/include (sys/stat.h, sys/statfs.h).
 *
 * As in fs/syscalls.c, each sets errno (Linux's values) and returns -1 on
 * failure.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <fs/internal.h>

/* Apply @fn to the inode of @path, following a last symbolic link. */
static int on_path(const char *path,
		   unsigned int flags,
		   int (*fn)(struct inode *, void *),
		   void *arg)
{
	struct inode *inode = vfs_lookup_flags(path, flags);
	int ret;

	if (IS_ERR(inode))
		return sys_ret(PTR_ERR(inode));
	ret = fn(inode, arg);
	iput(inode);
	return sys_ret(ret);
}

/* Apply @fn to the inode open as @fd. */
static int on_fd(int fd, int (*fn)(struct inode *, void *), void *arg)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = f->f_inode ? fn(f->f_inode, arg) : -EINVAL;
	fput(f);
	return sys_ret(ret);
}

static int getattr_fn(struct inode *inode, void *st)
{
	return vfs_getattr(inode, st);
}

int lstat(const char *path, struct stat *st)
{
	return on_path(path, 0, getattr_fn, st);
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	return sys_ret(vfs_readlink(path, buf, size));
}

int symlink(const char *target, const char *path)
{
	return sys_ret(vfs_symlink(target, path));
}

int chdir(const char *path)
{
	return sys_ret(vfs_chdir(path));
}

int fchdir(int fd)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = vfs_fchdir(f);
	fput(f);
	return sys_ret(ret);
}

/* With @buf NULL, a buffer of @size bytes (of the length needed if @size
 * is 0) is allocated for the caller to free, as glibc does. */
char *getcwd(char *buf, size_t size)
{
	char *mine = NULL;
	long len;

	if (!buf) {
		mine = malloc(size ? size : PATH_MAX_LEN);
		if (!mine) {
			errno = ENOMEM;
			return NULL;
		}
		buf = mine;
		size = size ? size : PATH_MAX_LEN;
	} else if (!size) {
		errno = EINVAL;
		return NULL;
	}
	len = vfs_getcwd(buf, size);
	if (len < 0) {
		free(mine);
		sys_ret(len);
		return NULL;
	}
	return buf;
}

static int chmod_fn(struct inode *inode, void *mode)
{
	return vfs_chmod(inode, *(mode_t *)mode);
}

int chmod(const char *path, mode_t mode)
{
	return on_path(path, LOOKUP_FOLLOW, chmod_fn, &mode);
}

int fchmod(int fd, mode_t mode)
{
	return on_fd(fd, chmod_fn, &mode);
}

static int utimens_fn(struct inode *inode, void *times)
{
	return vfs_utimens(inode, times);
}

/* The directory @dirfd names for a relative path (NULL: the working
 * directory), referenced. */
static struct inode *dirfd_inode(int dirfd)
{
	struct file *f;
	struct inode *dir;

	if (dirfd == AT_FDCWD)
		return NULL;
	f = fd_get(dirfd);
	if (!f)
		return ERR_PTR(-EBADF);
	dir = f->f_inode;
	if (dir && S_ISDIR(dir->i_mode))
		ihold(dir);
	else
		dir = ERR_PTR(-ENOTDIR);
	fput(f);
	return dir;
}

int utimensat(int dirfd,
	      const char *path,
	      const struct timespec *times,
	      int flags)
{
	struct inode *base, *inode;
	int ret;

	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return sys_ret(-EINVAL);
	/* A NULL path: the file @dirfd itself (Linux; futimens is this). */
	if (!path)
		return on_fd(dirfd, utimens_fn, (void *)times);
	base = path[0] == '/' ? NULL : dirfd_inode(dirfd);
	if (IS_ERR(base))
		return sys_ret(PTR_ERR(base));
	inode = path_lookup_at(base,
			       path,
			       flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW,
			       NULL,
			       NULL);
	iput(base);
	if (IS_ERR(inode))
		return sys_ret(PTR_ERR(inode));
	ret = vfs_utimens(inode, times);
	iput(inode);
	return sys_ret(ret);
}

int futimens(int fd, const struct timespec *times)
{
	return on_fd(fd, utimens_fn, (void *)times);
}

static int statfs_fn(struct inode *inode, void *buf)
{
	return vfs_statfs(inode, buf);
}

int statfs(const char *path, struct statfs *buf)
{
	return on_path(path, LOOKUP_FOLLOW, statfs_fn, buf);
}

int fstatfs(int fd, struct statfs *buf)
{
	return on_fd(fd, statfs_fn, buf);
}

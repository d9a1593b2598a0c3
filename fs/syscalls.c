/*
 * fs/syscalls.c: the POSIX file calls, for newlib and for tasks.
 *
 * newlib's open/read/write/close/lseek/fstat/stat/link/unlink/isatty call
 * the underscored functions here; pread, pwrite, (f)truncate, fsync,
 * fdatasync, fallocate, posix_fallocate, dup, dup2, fcntl, mmap, munmap,
 * msync, madvise (mm/mmap.c), mkdir, rmdir, rename, sync and
 * opendir/readdir/closedir are defined here outright (newlib has none for
 * this target or a stub saying ENOSYS, and its rename would be link +
 * unlink; fs/vfs.h declares the two fallocates). Each sets errno (Linux's
 * values) and returns -1 on failure, as POSIX says; there is no user/kernel
 * boundary, so buffers are used as given. The calls on paths and
 * attributes newlib lacks are fs/syscalls_path.c's; those on the page
 * cache, fs/syscalls_cache.c's.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/reent.h>
#include <sys/stat.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include <fs/internal.h>

int _open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	struct file *f;
	va_list ap;
	int fd;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	f = vfs_open(path, flags, mode);
	if (IS_ERR(f))
		return sys_ret(PTR_ERR(f));
	fd = fd_install(f);
	if (fd < 0)
		fput(f);
	return sys_ret(fd);
}

int _close(int fd)
{
	return sys_ret(fd_close(fd));
}

/*
 * f_pos_lock keeps a shared file's offset consistent per call. A file
 * only this call and its descriptor hold (a count of 2) needs none, as in
 * Linux's fdget_pos: another holder could come only through the
 * descriptor table, which is this task's own, or through a holder that
 * already exists.
 */
static ssize_t fd_rw(int fd, void *buf, size_t len, bool write)
{
	struct file *f = fd_get(fd);
	bool shared;
	ssize_t ret;

	if (!f)
		return sys_ret(-EBADF);
	shared = __atomic_load_n(&f->f_count, __ATOMIC_ACQUIRE) > 2;
	if (shared)
		mutex_lock(&f->f_pos_lock);
	loff_t pos = f->f_pos;
	ret =
	    write ? vfs_write(f, buf, len, &pos) : vfs_read(f, buf, len, &pos);
	if (ret >= 0)
		f->f_pos = pos;
	if (shared)
		mutex_unlock(&f->f_pos_lock);
	fput(f);
	return sys_ret(ret);
}

int _read(int fd, void *buf, size_t len)
{
	return fd_rw(fd, buf, len, false);
}

int _write(int fd, const void *buf, size_t len)
{
	return fd_rw(fd, (void *)buf, len, true);
}

static ssize_t fd_prw(int fd, void *buf, size_t len, off_t off, bool write)
{
	struct file *f = fd_get(fd);
	loff_t pos = off;
	ssize_t ret;

	if (!f)
		return sys_ret(-EBADF);
	if (!f->f_inode)
		ret = -ESPIPE;
	else if (off < 0)
		ret = -EINVAL;
	else
		ret = write ? vfs_write(f, buf, len, &pos)
			    : vfs_read(f, buf, len, &pos);
	fput(f);
	return sys_ret(ret);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return fd_prw(fd, buf, len, off, false);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return fd_prw(fd, (void *)buf, len, off, true);
}

off_t _lseek(int fd, off_t off, int whence)
{
	struct file *f = fd_get(fd);
	loff_t ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = vfs_llseek(f, off, whence);
	fput(f);
	return sys_ret(ret);
}

int _fstat(int fd, struct stat *st)
{
	struct file *f = fd_get(fd);
	int ret = 0;

	if (!f)
		return sys_ret(-EBADF);
	if (f->f_inode) {
		ret = vfs_getattr(f->f_inode, st);
	} else {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFCHR | 0620;
	}
	fput(f);
	return sys_ret(ret);
}

int _stat(const char *path, struct stat *st)
{
	struct inode *inode = vfs_lookup(path);
	int ret;

	if (IS_ERR(inode))
		return sys_ret(PTR_ERR(inode));
	ret = vfs_getattr(inode, st);
	iput(inode);
	return sys_ret(ret);
}

int dup(int fd)
{
	struct file *f = fd_get(fd);
	int newfd;

	if (!f)
		return sys_ret(-EBADF);
	newfd = fd_install(f);
	if (newfd < 0)
		fput(f);
	return sys_ret(newfd);
}

int dup2(int oldfd, int newfd)
{
	return sys_ret(fd_dup2(oldfd, newfd));
}

/* The flags F_SETFL may change (Linux: also O_ASYNC, O_DIRECT, O_NOATIME,
 * which whole has not). */
#define SETFL_MASK (O_APPEND | O_NONBLOCK)

static long fcntl_file(struct file *f, int cmd, long arg)
{
	long ret;

	switch (cmd) {
	case F_DUPFD:
		if (arg < 0 || arg >= FD_MAX)
			return -EINVAL;
		ret = fd_install_from(fget(f), arg);
		if (ret < 0)
			fput(f);
		return ret;
	case F_GETFL: return READ_ONCE(f->f_flags);
	case F_SETFL:
		mutex_lock(&f->f_pos_lock);
		WRITE_ONCE(f->f_flags,
			   (f->f_flags & ~SETFL_MASK) | (arg & SETFL_MASK));
		mutex_unlock(&f->f_pos_lock);
		return 0;
	default: return -EINVAL;
	}
}

/* newlib's own fcntl() only says ENOSYS: this one replaces it. */
int fcntl(int fd, int cmd, ...)
{
	struct file *f = fd_get(fd);
	va_list ap;
	long arg, ret;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (!f)
		return sys_ret(-EBADF);
	ret = fcntl_file(f, cmd, arg);
	fput(f);
	return sys_ret(ret);
}

int _isatty(int fd)
{
	struct file *f = fd_get(fd);
	bool tty;

	if (!f) {
		errno = EBADF;
		return 0;
	}
	tty = file_is_console(f);
	fput(f);
	if (!tty)
		errno = ENOTTY;
	return tty;
}

int _link(const char *oldpath, const char *newpath)
{
	return sys_ret(vfs_link(oldpath, newpath));
}

int _unlink(const char *path)
{
	return sys_ret(vfs_unlink(path));
}

int mkdir(const char *path, mode_t mode)
{
	return sys_ret(vfs_mkdir(path, mode));
}

int rmdir(const char *path)
{
	return sys_ret(vfs_rmdir(path));
}

int rename(const char *oldpath, const char *newpath)
{
	return sys_ret(vfs_rename(oldpath, newpath));
}

int _rename_r(struct _reent *r, const char *oldpath, const char *newpath)
{
	int err = vfs_rename(oldpath, newpath);

	if (err) {
		r->_errno = -err;
		return -1;
	}
	return 0;
}

int truncate(const char *path, off_t size)
{
	struct inode *inode = vfs_lookup(path);
	int ret;

	if (IS_ERR(inode))
		return sys_ret(PTR_ERR(inode));
	ret = vfs_truncate(inode, size);
	iput(inode);
	return sys_ret(ret);
}

int ftruncate(int fd, off_t size)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return sys_ret(-EBADF);
	if (!f->f_inode || !S_ISREG(f->f_inode->i_mode) ||
	    (f->f_flags & O_ACCMODE) == O_RDONLY)
		ret = -EINVAL;
	else
		ret = vfs_truncate(f->f_inode, size);
	fput(f);
	return sys_ret(ret);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	struct file *f = fd_get(fd);
	long ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = vfs_fallocate(f, mode, off, len);
	fput(f);
	return sys_ret(ret);
}

/* POSIX: the error number is returned, errno is left alone. */
int posix_fallocate(int fd, off_t off, off_t len)
{
	struct file *f = fd_get(fd);
	long ret;

	if (!f)
		return EBADF;
	ret = vfs_fallocate(f, 0, off, len);
	fput(f);
	return -ret;
}

static int fd_sync(int fd, bool datasync)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = vfs_fsync_range(f, 0, LLONG_MAX, datasync);
	fput(f);
	return sys_ret(ret);
}

int fsync(int fd)
{
	return fd_sync(fd, false);
}

int fdatasync(int fd)
{
	return fd_sync(fd, true);
}

/* Only addr NULL: whole picks the address (no MAP_FIXED). */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct file *f;
	void *p;

	if (addr || (off & ~PAGE_MASK) || !len)
		return sys_ret(-EINVAL), MAP_FAILED;
	f = fd_get(fd);
	if (!f)
		return sys_ret(-EBADF), MAP_FAILED;
	p = vm_mmap(f, len, prot, flags, off);
	fput(f);
	return IS_ERR(p) ? (sys_ret(PTR_ERR(p)), MAP_FAILED) : p;
}

int munmap(void *addr, size_t len)
{
	return sys_ret(vm_munmap(addr, len));
}

int msync(void *addr, size_t len, int flags)
{
	return sys_ret(vm_msync(addr, len, flags));
}

int madvise(void *addr, size_t len, int advice)
{
	return sys_ret(vm_madvise(addr, len, advice));
}

void sync(void)
{
	vfs_sync();
}

DIR *opendir(const char *path)
{
	DIR *d;
	int fd = _open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return NULL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		_close(fd);
		errno = ENOMEM;
		return NULL;
	}
	d->dd_fd = fd;
	return d;
}

struct one_entry {
	struct dir_context ctx;
	struct dirent *ent;
	bool got;
};

static bool one_entry_actor(struct dir_context *ctx,
			    const char *name,
			    size_t len,
			    loff_t pos,
			    unsigned long ino,
			    unsigned int type)
{
	struct one_entry *o = container_of(ctx, struct one_entry, ctx);

	if (o->got || len >= sizeof(o->ent->d_name))
		return false;
	memcpy(o->ent->d_name, name, len);
	o->ent->d_name[len] = '\0';
	o->ent->d_ino = ino;
	o->ent->d_off = pos;
	o->ent->d_type = type;
	o->ent->d_reclen = sizeof(*o->ent);
	o->got = true;
	return true;
}

/* One entry per call: the filesystem resumes at f_pos each time. */
struct dirent *readdir(DIR *d)
{
	struct one_entry o = { .ctx = { .actor = one_entry_actor },
			       .ent = &d->dd_ent };
	struct file *f = fd_get(d->dd_fd);
	int err;

	if (!f) {
		errno = EBADF;
		return NULL;
	}
	err = vfs_readdir(f, &o.ctx);
	fput(f);
	if (err) {
		errno = -err;
		return NULL;
	}
	return o.got ? &d->dd_ent : NULL;
}

int closedir(DIR *d)
{
	int fd = d->dd_fd;

	kfree(d);
	return _close(fd);
}

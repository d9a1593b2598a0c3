/*
 * fs/syscalls_cache.c: the POSIX and Linux calls on a file's page cache
 * that newlib lacks - posix_fadvise, readahead, preadv2 (RWF_NOWAIT) and
 * syncfs.
 * As in fs/syscalls.c: errno (Linux's values) and -1 on failure - except
 * posix_fadvise, which returns the error number itself, as POSIX says.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <fs/internal.h>

int posix_fadvise(int fd, off_t offset, off_t len, int advice)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return EBADF;
	ret = vfs_fadvise(f, offset, len, advice);
	fput(f);
	return -ret; /* the errno itself, not -1 */
}

ssize_t readahead(int fd, off_t offset, size_t count)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = vfs_readahead(f, offset, count);
	fput(f);
	return sys_ret(ret);
}

/* Each vector in turn; a short read ends the call. */
static ssize_t read_vectors(
    struct file *f, const struct iovec *iov, int iovcnt, loff_t *pos, int flags)
{
	ssize_t total = 0;

	for (int i = 0; i < iovcnt; i++) {
		ssize_t n = vfs_read_flags(
		    f, iov[i].iov_base, iov[i].iov_len, pos, flags);

		if (n < 0)
			return total ? total : n;
		total += n;
		if ((size_t)n < iov[i].iov_len)
			break;
	}
	return total;
}

ssize_t
preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
	struct file *f = fd_get(fd);
	loff_t pos = offset;
	ssize_t ret;

	if (!f)
		return sys_ret(-EBADF);
	if (iovcnt < 0 || offset < -1) {
		ret = -EINVAL;
	} else if (offset == -1) { /* at the file position, advancing it */
		mutex_lock(&f->f_pos_lock);
		pos = f->f_pos;
		ret = read_vectors(f, iov, iovcnt, &pos, flags);
		if (ret >= 0)
			f->f_pos = pos;
		mutex_unlock(&f->f_pos_lock);
	} else if (!f->f_inode) {
		ret = -ESPIPE;
	} else {
		ret = read_vectors(f, iov, iovcnt, &pos, flags);
	}
	fput(f);
	return sys_ret(ret);
}

int syncfs(int fd)
{
	struct file *f = fd_get(fd);
	int ret;

	if (!f)
		return sys_ret(-EBADF);
	ret = f->f_inode ? vfs_syncfs(f) : -EINVAL;
	fput(f);
	return sys_ret(ret);
}

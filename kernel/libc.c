/*
 * kernel/libc.c: what newlib needs from the kernel.
 *
 * newlib's malloc family goes to kmalloc (newlib's own allocator would want
 * sbrk); its reentrancy hook __getreent lives with the tasks in sched.c.
 * The file system calls (_read, _write, ...) answer EBADF until the VFS
 * provides descriptors; descriptors 1 and 2 write to the console.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/reent.h>
#include <sys/stat.h>
#include <kernel/arch.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>

void *malloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

void free(void *p)
{
	kfree(p);
}

void *calloc(size_t n, size_t size)
{
	return kcalloc(n, size, GFP_KERNEL);
}

void *realloc(void *p, size_t size)
{
	return krealloc(p, size, GFP_KERNEL);
}

void *_malloc_r(struct _reent *r, size_t size)
{
	(void)r;
	return malloc(size);
}

void _free_r(struct _reent *r, void *p)
{
	(void)r;
	free(p);
}

void *_calloc_r(struct _reent *r, size_t n, size_t size)
{
	(void)r;
	return calloc(n, size);
}

void *_realloc_r(struct _reent *r, void *p, size_t size)
{
	(void)r;
	return realloc(p, size);
}

int _write(int fd, const void *buf, size_t len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, len);
	return (int)len;
}

int _read(int fd, void *buf, size_t len)
{
	(void)fd;
	(void)buf;
	(void)len;
	errno = EBADF;
	return -1;
}

int _close(int fd)
{
	(void)fd;
	errno = EBADF;
	return -1;
}

int _fstat(int fd, struct stat *st)
{
	(void)fd;
	(void)st;
	errno = EBADF;
	return -1;
}

int _isatty(int fd)
{
	return fd >= 0 && fd <= 2;
}

off_t _lseek(int fd, off_t off, int whence)
{
	(void)fd;
	(void)off;
	(void)whence;
	errno = EBADF;
	return -1;
}

int _getpid(void)
{
	return current_task() ? current_task()->tid : 0;
}

int _kill(int pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = ENOSYS;
	return -1;
}

/* abort() and exit() from newlib end the calling task. */
void _exit(int status)
{
	task_exit(status);
}

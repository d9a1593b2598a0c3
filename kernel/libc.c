/*
 * kernel/libc.c: what newlib needs from the kernel.
 *
 * newlib's malloc family goes to kmalloc (newlib's own allocator would want
 * sbrk); its reentrancy hook __getreent lives with the tasks in sched.c.
 * The file system calls (_read, _write, ...) are the VFS's (fs/syscalls.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/reent.h>
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

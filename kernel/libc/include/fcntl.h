/*
 * fcntl.h: newlib's, plus the Linux calls newlib lacks for this target:
 * posix_fadvise (advice values from the Linux UAPI header) and readahead.
 * Shadows newlib's header (kernel/libc/include comes first on the path).
 */
#pragma once

#include_next <fcntl.h>
#include <sys/types.h>
#include <linux/fadvise.h>

/* Return: 0 or an errno value (not -1: POSIX's convention for it). */
int posix_fadvise(int fd, off_t offset, off_t len, int advice);
/* Read [offset, offset+count) into the page cache. Return: 0 or -1. */
ssize_t readahead(int fd, off_t offset, size_t count);
/* Linux's copy_file_range(2) (glibc declares it in <unistd.h>).
 * Return: bytes copied, or -1. */
ssize_t copy_file_range(int fd_in,
			off_t *off_in,
			int fd_out,
			off_t *off_out,
			size_t len,
			unsigned int flags);
/* Linux's syncfs(2) (glibc: <unistd.h>): write back the filesystem of
 * @fd; report a writeback error on any of its files since @fd last heard
 * of one. Return: 0 or -1. */
int syncfs(int fd);
/* whole's swapext: exchange the whole contents of two regular files, as
 * XFS_IOC_SWAPEXT / xfs_io swapext. Return: 0 or -1. */
int swapext(int fd_target, int fd_donor);

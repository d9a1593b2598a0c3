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

/*
 * sys/uio.h: vectored I/O, as much as whole has - preadv2 with Linux's
 * RWF_* flags (RWF_NOWAIT: return what is cached, -EAGAIN rather than
 * wait or start I/O).
 */
#pragma once

#include <sys/types.h>

struct iovec {
	void *iov_base;
	size_t iov_len;
};

/* Linux's value (<linux/fs.h>, whose other names clash with the kernel's
 * own, so it is not included here). */
#define RWF_NOWAIT 0x00000008

/* @offset -1: at and advancing the file position. */
ssize_t
preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);

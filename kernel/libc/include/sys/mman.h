/*
 * sys/mman.h: memory mappings (newlib has none for this target). The
 * values are Linux's; the calls are in fs/syscalls.c.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define PROT_NONE  0x0
#define PROT_READ  0x1
#define PROT_WRITE 0x2
#define PROT_EXEC  0x4

#define MAP_SHARED	    0x01
#define MAP_PRIVATE	    0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE	    0x0f
#define MAP_FIXED	    0x10
#define MAP_FAILED	    ((void *)-1)

#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC	      4

#define MADV_NORMAL	0
#define MADV_RANDOM	1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED	3
#define MADV_DONTNEED	4

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);
int msync(void *addr, size_t len, int flags);
int madvise(void *addr, size_t len, int advice);

/*
 * sys/errno.h: errno with Linux's numbers.
 *
 * Shadows newlib's header (kernel/libc/include comes before newlib on the
 * include path) so the kernel and its tasks agree with Linux on every errno
 * value. The numbers come from the Linux UAPI headers; nothing is retyped.
 * errno itself is per task: newlib's __errno() reads __getreent().
 */
#pragma once

#include <asm-generic/errno.h>

#ifndef ENOTSUP
#define ENOTSUP EOPNOTSUPP
#endif

#ifndef __ASSEMBLY__
extern int *__errno(void);
#define errno (*__errno())
#endif

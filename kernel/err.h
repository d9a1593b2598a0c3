/*
 * kernel/err.h: pointers that carry a negative errno.
 *
 * Functions returning a pointer return ERR_PTR(-ENOMEM) and the like on
 * failure; callers test with IS_ERR and recover the code with PTR_ERR.
 */
#pragma once

#include <errno.h>
#include <kernel/compiler.h>

#define MAX_ERRNO 4095

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return (uintptr_t)ptr >= (uintptr_t)-MAX_ERRNO;
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

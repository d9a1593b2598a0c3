/*
 * mm/kmalloc.h: general-purpose kernel allocation.
 *
 * Size classes from 16 bytes to 2 KiB come from per-class slabs; larger
 * requests take whole pages (up to 4 MiB). kmalloc returns NULL when memory
 * runs out. An object is aligned to its size class (16 .. 2048 bytes; a
 * page for larger ones), so always to 16 bytes. kmalloc(0) returns a
 * 16-byte object; kfree(NULL) does nothing; krealloc(p, 0) frees p and
 * returns NULL; kcalloc returns NULL when n * size overflows.
 * Context: any hart, never sleeps; GFP_ATOMIC from interrupt context.
 * newlib's malloc family is routed here (kernel/libc.c).
 */
#pragma once

#include <mm/page_alloc.h>

void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
void *krealloc(void *p, size_t size, gfp_t gfp);
void kfree(const void *p);
/* The usable size of an allocation. */
size_t ksize(const void *p);

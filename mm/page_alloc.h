/*
 * mm/page_alloc.h: physical pages.
 *
 * Every page of RAM the device tree reports has a struct page in mem_map.
 * alloc_pages() hands out 2^order contiguous, naturally aligned pages; it
 * returns NULL when memory is exhausted (callers report -ENOMEM). Safe on
 * all harts and from interrupt context with GFP_ATOMIC.
 * RAM is mapped 1:1 (virtual == physical) so page_address() is the
 * physical address, usable directly for device DMA.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/list.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define MAX_ORDER 11 /* largest block: 2^10 pages = 4 MiB */

typedef unsigned int gfp_t;
#define GFP_KERNEL 0x0u	/* may sleep (for reclaim, later) */
#define GFP_ATOMIC 0x1u	/* never sleeps */
#define GFP_ZERO 0x2u	/* zero-filled */

struct page {
	unsigned long flags;	/* PG_* bits, atomic bit operations */
	int refcount;		/* atomic */
	unsigned int order;	/* order of a free block's head page */
	struct list_head lru;	/* free list while free; LRU later */
	void *mapping;		/* page cache owner (later) */
	unsigned long index;	/* offset in mapping, in pages (later) */
	void *private;
};

struct page *alloc_pages(gfp_t gfp, unsigned int order);
void free_pages(struct page *page, unsigned int order);
void *page_address(const struct page *page);
struct page *virt_to_page(const void *addr);
/* Whole pages as plain memory: NULL on exhaustion. */
void *alloc_pages_va(gfp_t gfp, unsigned int order);
void free_pages_va(void *addr, unsigned int order);
unsigned long pages_free(void);
unsigned long pages_total(void);

/*
 * mm/page_alloc.h: physical pages.
 *
 * Every page of RAM the device tree reports has a struct page in mem_map.
 * alloc_pages() hands out 2^order contiguous, naturally aligned pages; it
 * returns NULL when memory is exhausted (callers report -ENOMEM). Safe on
 * all harts and from interrupt context with GFP_ATOMIC.
 * RAM is mapped 1:1 (virtual == physical) so page_address() is the
 * physical address, usable directly for device DMA.
 *
 * Freeing a block that is not allocated (double free, wrong page, wrong
 * order) is reported once with WARN_ON_ONCE and otherwise ignored.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/rcu.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1UL << PAGE_SHIFT)
#define PAGE_MASK  (~(PAGE_SIZE - 1))
#define MAX_ORDER  11 /* largest block: 2^10 pages = 4 MiB */

typedef unsigned int gfp_t;
#define GFP_KERNEL 0x0u /* may sleep (for reclaim, later) */
#define GFP_ATOMIC 0x1u /* never sleeps */
#define GFP_ZERO   0x2u /* zero-filled */

/* page->flags bits. The allocator owns PG_BUDDY and PG_RESERVED under its
 * lock; PG_ALLOCATED marks the head page of an allocated block; the owner of
 * an allocated block may use the others. */
#define PG_RESERVED  (1UL << 0) /* never handed out (firmware, kernel, dtb) */
#define PG_BUDDY     (1UL << 1) /* head of a free block, on a free list */
#define PG_ALLOCATED (1UL << 2) /* head of an allocated block */
#define PG_SLAB	     (1UL << 3) /* a kmalloc slab (mm/kmalloc.c) */
#define PG_KMALLOC   (1UL << 4) /* a large kmalloc block (mm/kmalloc.c) */

struct page {
	unsigned long flags; /* PG_* bits, atomic bit operations */
	int refcount;	     /* atomic */
	unsigned int order;  /* order of a free or allocated block's head */
	union {
		struct list_head lru; /* free list while free; LRU or slab */
		struct rcu_head rcu;  /* waiting for a grace period to free */
	};
	union {
		struct {		     /* page cache (later) */
			void *mapping;	     /* owner */
			unsigned long index; /* offset in mapping, in pages */
		};
		struct {		/* kmalloc slab, under its class lock */
			void *freelist; /* first free object */
			unsigned long inuse; /* objects handed out */
		};
	};
	void *private;
};

struct page *alloc_pages(gfp_t gfp, unsigned int order);
/* Up to @n single pages into @pages under one hold of the allocator's
 * lock, in runs adjacent in memory (ascending) where free blocks allow;
 * never reclaims (fewer when memory is short: alloc_pages then reclaims
 * for one). No GFP_ZERO. Return: how many. */
unsigned int alloc_pages_bulk(gfp_t gfp, unsigned int n, struct page **pages);
void free_pages(struct page *page, unsigned int order);
void *page_address(const struct page *page);
/* The struct page of a RAM address, or NULL outside RAM. */
struct page *virt_to_page(const void *addr);
/* Whole pages as plain memory: NULL on exhaustion. */
void *alloc_pages_va(gfp_t gfp, unsigned int order);
void free_pages_va(void *addr, unsigned int order);
unsigned long pages_free(void);
unsigned long pages_total(void);
/* Smallest order whose block holds @size bytes (MAX_ORDER if none). */
unsigned int get_order(size_t size);

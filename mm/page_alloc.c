/*
 * mm/page_alloc.c: the buddy allocator over all of RAM.
 *
 * At boot, page_alloc_init() places mem_map (one struct page per page of
 * RAM) in the first free stretch of RAM, then puts every page on the free
 * lists except the reserved ones: the 2 MiB of OpenSBI below the kernel,
 * the kernel image, the device tree blob and mem_map itself.
 *
 * A free block of 2^order pages is naturally aligned (its physical page
 * number is a multiple of 2^order); its head page has PG_BUDDY and
 * page->order set and sits on free_area[order]. Freeing merges a block with
 * its buddy (pfn ^ 2^order) while the buddy is free and of the same order.
 * An allocated block's head page has PG_ALLOCATED and its order, which is
 * how a bad free is told from a good one.
 *
 * A GFP_KERNEL request that finds nothing free reclaims page cache
 * (mm/vmscan.c) and retries; GFP_ATOMIC never does. Below a low watermark
 * the flusher is woken so that dirty cache becomes reclaimable. The last
 * RESERVE_PAGES free pages go only to GFP_ATOMIC requests and to a task
 * inside reclaim: writing a dirty page back allocates (a bio), and with
 * nothing clean left to drop, reclaim must still be able to write.
 *
 * Locking: zone_lock (irqsave, so interrupt handlers may allocate) protects
 * the free lists, nr_free and the PG_BUDDY/PG_ALLOCATED/order fields of
 * every page. Pages are zeroed outside it.
 */
#include <string.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <mm/filemap.h>
#include <mm/page_alloc.h>

#define FIRMWARE_SIZE (2UL << 20) /* OpenSBI, just below the kernel */
#define RECLAIM_TRIES 16	  /* reclaim-and-retry rounds before NULL */

extern char __kernel_start[], __kernel_end[];

struct range {
	uintptr_t start, end;
};

static struct page *mem_map;
static unsigned long base_pfn, nr_pages; /* RAM covered by mem_map */
static unsigned long nr_total;		 /* pages the allocator manages */

static DEFINE_SPINLOCK(zone_lock);
/* protected by zone_lock: */
static struct list_head free_area[MAX_ORDER];
static unsigned long nr_free;

static inline unsigned long page_to_pfn(const struct page *page)
{
	return base_pfn + (unsigned long)(page - mem_map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return &mem_map[pfn - base_pfn];
}

static inline bool pfn_valid(unsigned long pfn)
{
	return pfn >= base_pfn && pfn - base_pfn < nr_pages;
}

void *page_address(const struct page *page)
{
	return (void *)(page_to_pfn(page) << PAGE_SHIFT);
}

struct page *virt_to_page(const void *addr)
{
	unsigned long pfn = (uintptr_t)addr >> PAGE_SHIFT;

	return pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
}

unsigned int get_order(size_t size)
{
	unsigned int order = 0;

	while (order < MAX_ORDER && (PAGE_SIZE << order) < size)
		order++;
	return order;
}

/* Put the free block at @pfn on its list, merged with free buddies.
 * Caller holds zone_lock. */
static void free_block_locked(unsigned long pfn, unsigned int order)
{
	struct page *freed = pfn_to_page(pfn);

	DEBUG_ASSERT(spin_lock_held(&zone_lock));
	/* Forget that it was a block's head: if it merges as the upper
	 * buddy it becomes a free tail, and a later free of it must fail. */
	freed->flags = 0;
	freed->order = 0;
	nr_free += 1UL << order;
	while (order < MAX_ORDER - 1) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		struct page *buddy;

		if (!pfn_valid(buddy_pfn))
			break;
		buddy = pfn_to_page(buddy_pfn);
		if (!(buddy->flags & PG_BUDDY) || buddy->order != order)
			break;
		list_del(&buddy->lru);
		buddy->flags &= ~PG_BUDDY;
		pfn &= ~(1UL << order);
		order++;
	}
	struct page *head = pfn_to_page(pfn);
	head->flags = PG_BUDDY;
	head->order = order;
	list_add(&head->lru, &free_area[order]);
}

/* Take a block of exactly @order off the free lists, splitting a larger
 * one if needed. Caller holds zone_lock. Return: its head, or NULL. */
static struct page *take_block_locked(unsigned int order)
{
	unsigned int o = order;
	struct page *page;

	DEBUG_ASSERT(spin_lock_held(&zone_lock));
	while (o < MAX_ORDER && list_empty(&free_area[o]))
		o++;
	if (o == MAX_ORDER)
		return NULL;
	page = list_first_entry(&free_area[o], struct page, lru);
	list_del(&page->lru);
	while (o > order) {
		struct page *half;

		o--;
		half = page + (1UL << o);
		half->flags = PG_BUDDY;
		half->order = o;
		list_add(&half->lru, &free_area[o]);
	}
	page->flags = PG_ALLOCATED;
	page->order = order;
	page->refcount = 1;
	nr_free -= 1UL << order;
	return page;
}

#define RESERVE_PAGES MAX(nr_total / 256, 32UL)

/* May @gfp's caller dip into the reserve? */
static bool gfp_reserve(gfp_t gfp)
{
	return (gfp & GFP_ATOMIC) || current_is_reclaiming();
}

/* take_block_locked, leaving the reserve alone unless @reserve. Caller
 * holds zone_lock. */
static struct page *take_block_checked(unsigned int order, bool reserve)
{
	if (!reserve && nr_free < RESERVE_PAGES + (1UL << order))
		return NULL;
	return take_block_locked(order);
}

static struct page *take_block(unsigned int order, bool reserve)
{
	unsigned long flags = spin_lock_irqsave(&zone_lock);
	struct page *page = take_block_checked(order, reserve);

	spin_unlock_irqrestore(&zone_lock, flags);
	return page;
}

/* Free memory is short: wake the flusher so dirty pages become
 * reclaimable. */
static void check_low_watermark(void)
{
	if (READ_ONCE(nr_free) < MAX(nr_total / 64, 64UL))
		writeback_wakeup();
}

/* GFP_KERNEL and nothing free: reclaim page cache and retry, backing off
 * while pages are being written out or another task reclaims. Not from
 * inside reclaim (its write_page allocating) and not where the caller
 * cannot sleep (reclaim_pages checks). */
static struct page *alloc_pages_reclaim(unsigned int order, bool reserve)
{
	struct page *page = NULL;

	for (unsigned int tries = 0; !page && tries < RECLAIM_TRIES; tries++) {
		if (!reclaim_pages(RECLAIM_BATCH << order)) {
			if (current_is_reclaiming() || !preemptible() ||
			    !lru_pages())
				return NULL; /* waiting cannot help */
			task_sleep_ms(1U << MIN(tries, 4U));
		}
		page = take_block(order, reserve);
	}
	return page;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	struct page *page;
	bool reserve;

	if (WARN_ON_ONCE(order >= MAX_ORDER))
		return NULL;
	reserve = gfp_reserve(gfp);
	page = take_block(order, reserve);
	if (!(gfp & GFP_ATOMIC)) {
		check_low_watermark();
		if (!page)
			page = alloc_pages_reclaim(order, reserve);
	}
	if (page && (gfp & GFP_ZERO))
		memset(page_address(page), 0, PAGE_SIZE << order);
	return page;
}

/* The largest order whose block fits in @n pages (n > 0). */
static unsigned int order_within(unsigned int n)
{
	unsigned int order = 0;

	while (order + 1 < MAX_ORDER && (2U << order) <= n)
		order++;
	return order;
}

/* Cut the allocated block at @head into 2^@order single pages, each
 * allocated on its own (freed one by one, they merge back). Caller holds
 * zone_lock. */
static void split_block_locked(struct page *head, unsigned int order)
{
	DEBUG_ASSERT(spin_lock_held(&zone_lock));
	for (unsigned long i = 0; i < 1UL << order; i++) {
		head[i].flags = PG_ALLOCATED;
		head[i].order = 0;
		head[i].refcount = 1;
	}
}

/*
 * Runs of pages adjacent in memory where the free lists have them: each
 * step takes the largest block that fits what is still wanted and cuts it
 * into single pages, so a batch of page cache is one contiguous piece and
 * a bio over it one segment (bio_add_buf merges adjacent buffers).
 */
unsigned int alloc_pages_bulk(gfp_t gfp, unsigned int n, struct page **pages)
{
	bool reserve = gfp_reserve(gfp);
	unsigned int got = 0, order = MAX_ORDER - 1; /* lowered to fit */
	unsigned long flags;

	if (WARN_ON_ONCE(gfp & GFP_ZERO))
		return 0;
	flags = spin_lock_irqsave(&zone_lock);
	while (got < n) {
		struct page *head;

		order = MIN(order, order_within(n - got));
		while (!(head = take_block_checked(order, reserve)) && order)
			order--; /* nothing that large: try smaller */
		if (!head)
			break;
		split_block_locked(head, order);
		for (unsigned long i = 0; i < 1UL << order; i++)
			pages[got++] = head + i;
	}
	spin_unlock_irqrestore(&zone_lock, flags);
	if (!(gfp & GFP_ATOMIC))
		check_low_watermark();
	return got;
}

void free_pages(struct page *page, unsigned int order)
{
	unsigned long flags;

	if (!page)
		return;
	if (WARN_ON_ONCE(order >= MAX_ORDER || page < mem_map ||
			 page >= mem_map + nr_pages))
		return;
	flags = spin_lock_irqsave(&zone_lock);
	if (WARN_ON_ONCE(!(page->flags & PG_ALLOCATED) || page->order != order))
		goto out_unlock;
	page->refcount = 0;
	free_block_locked(page_to_pfn(page), order);
out_unlock:
	spin_unlock_irqrestore(&zone_lock, flags);
}

void *alloc_pages_va(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	return page ? page_address(page) : NULL;
}

void free_pages_va(void *addr, unsigned int order)
{
	struct page *page;

	if (!addr)
		return;
	page = virt_to_page(addr);
	if (WARN_ON_ONCE(!page || !IS_ALIGNED((uintptr_t)addr, PAGE_SIZE)))
		return;
	free_pages(page, order);
}

unsigned long pages_free(void)
{
	return READ_ONCE(nr_free);
}

unsigned long pages_total(void)
{
	return nr_total;
}

static bool
ranges_overlap(const struct range *r, uintptr_t start, uintptr_t end)
{
	return start < r->end && r->start < end;
}

/* First page-aligned stretch of @size bytes of RAM after the start of RAM
 * or after a reserved range that overlaps none of them; 0 if none. */
static uintptr_t find_free_stretch(const struct range *res,
				   int n,
				   uintptr_t mem_end,
				   size_t size)
{
	for (int i = -1; i < n; i++) {
		uintptr_t start =
		    ALIGN_UP(i < 0 ? platform.mem_base : res[i].end, PAGE_SIZE);
		bool clash =
		    start < platform.mem_base || start + size > mem_end;

		for (int j = 0; j < n && !clash; j++)
			clash = ranges_overlap(&res[j], start, start + size);
		if (!clash)
			return start;
	}
	return 0;
}

/* Hand the pages in [start, end) to the free lists in the largest
 * naturally aligned blocks that fit. Boot hart, before anyone allocates. */
static void free_range(uintptr_t start, uintptr_t end)
{
	unsigned long pfn = ALIGN_UP(start, PAGE_SIZE) >> PAGE_SHIFT;
	unsigned long end_pfn = end >> PAGE_SHIFT;
	unsigned long flags = spin_lock_irqsave(&zone_lock);

	while (pfn < end_pfn) {
		unsigned int order = MAX_ORDER - 1;

		while (!IS_ALIGNED(pfn, 1UL << order) ||
		       pfn + (1UL << order) > end_pfn)
			order--;
		for (unsigned long i = 0; i < (1UL << order); i++)
			pfn_to_page(pfn + i)->flags = 0;
		free_block_locked(pfn, order);
		nr_total += 1UL << order;
		pfn += 1UL << order;
	}
	spin_unlock_irqrestore(&zone_lock, flags);
}

static void sort_ranges(struct range *r, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && r[j - 1].start > r[j].start; j--) {
			struct range t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
}

static int page_alloc_init(void)
{
	uintptr_t mem_end =
	    ALIGN_DOWN(platform.mem_base + platform.mem_size, PAGE_SIZE);
	uintptr_t kstart = (uintptr_t)__kernel_start, cursor;
	struct range res[4] = {
		{ MAX(platform.mem_base, kstart - FIRMWARE_SIZE), kstart },
		{ kstart, ALIGN_UP((uintptr_t)__kernel_end, PAGE_SIZE) },
		{ ALIGN_DOWN(platform.dtb, PAGE_SIZE),
		  ALIGN_UP(platform.dtb + platform.dtb_size, PAGE_SIZE) },
	};
	size_t map_size;

	for (unsigned int o = 0; o < MAX_ORDER; o++)
		list_init(&free_area[o]);
	base_pfn = ALIGN_UP(platform.mem_base, PAGE_SIZE) >> PAGE_SHIFT;
	nr_pages = (mem_end >> PAGE_SHIFT) - base_pfn;
	map_size = ALIGN_UP(nr_pages * sizeof(struct page), PAGE_SIZE);
	res[3].start = find_free_stretch(res, 3, mem_end, map_size);
	if (!res[3].start)
		panic("page_alloc: no room for mem_map (%zu bytes)", map_size);
	res[3].end = res[3].start + map_size;
	mem_map = (struct page *)res[3].start;
	for (unsigned long i = 0; i < nr_pages; i++) {
		mem_map[i] = (struct page){ .flags = PG_RESERVED };
		list_init(&mem_map[i].lru);
	}
	sort_ranges(res, ARRAY_SIZE(res));
	cursor = base_pfn << PAGE_SHIFT;
	for (unsigned int i = 0; i < ARRAY_SIZE(res); i++) {
		if (res[i].start > cursor)
			free_range(cursor, MIN(res[i].start, mem_end));
		cursor = MAX(cursor, res[i].end);
	}
	if (cursor < mem_end)
		free_range(cursor, mem_end);
	pr_info(
	    "page_alloc: %lu MiB RAM at %#lx, %lu pages free, mem_map at %p\n",
	    (unsigned long)(platform.mem_size >> 20),
	    (unsigned long)platform.mem_base,
	    nr_free,
	    (void *)mem_map);
	return 0;
}
INIT_HOOK(page_alloc, page_alloc_init, INIT_LEVEL_MM);

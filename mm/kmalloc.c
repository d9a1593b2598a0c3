/*
 * mm/kmalloc.c: kmalloc and friends over the page allocator.
 *
 * Requests up to 2 KiB are rounded up to a power-of-two size class
 * (16 ... 2048) and served from that class's slabs: one page each, cut into
 * equal objects, so every object is aligned to its size. The slab's state
 * lives in its struct page (PG_SLAB, private = its class, freelist, inuse);
 * a free object holds the pointer to the next free one. Slabs with a free
 * object sit on their class's partial list; a slab that becomes empty goes
 * back to the page allocator at once, so kmalloc caches no memory.
 * Larger requests take 2^order whole pages (PG_KMALLOC, page->order).
 *
 * Tests inject failures as Linux's fail-nth does: a task that sets its
 * fail_nth to N sees its Nth kmalloc from then on return NULL (never in an
 * interrupt handler, never another task's).
 *
 * Locking: each class has its own lock (irqsave: kmalloc(GFP_ATOMIC) works
 * in interrupt handlers). It protects the class's partial list and the
 * freelist/inuse of its slabs; the page allocator is called without it.
 */
#include <string.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <mm/kmalloc.h>

#define KMALLOC_MIN_SHIFT 4
#define KMALLOC_MAX_SHIFT 11
#define KMALLOC_MAX_SIZE  (1UL << KMALLOC_MAX_SHIFT)
#define NR_CLASSES	  (KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1)

struct kmalloc_class {
	size_t size;
	struct spinlock lock;
	/* protected by lock: */
	struct list_head partial; /* slabs with at least one free object */
};

#define CLASS(shift)                                                           \
	{                                                                      \
		.size = 1UL << (shift),                                        \
		.lock = SPINLOCK_INIT(kmalloc_##shift),                        \
		.partial =                                                     \
		    LIST_HEAD_INIT(classes[(shift)-KMALLOC_MIN_SHIFT].partial) \
	}

static struct kmalloc_class classes[NR_CLASSES] = {
	CLASS(4), CLASS(5), CLASS(6),  CLASS(7),
	CLASS(8), CLASS(9), CLASS(10), CLASS(11),
};

BUILD_BUG_ON(ARRAY_SIZE(classes) != NR_CLASSES);

static struct kmalloc_class *class_for(size_t size)
{
	unsigned int shift = KMALLOC_MIN_SHIFT;

	while ((1UL << shift) < size)
		shift++;
	return &classes[shift - KMALLOC_MIN_SHIFT];
}

/* A new slab with every object on its freelist, or NULL. */
static struct page *slab_create(struct kmalloc_class *c, gfp_t gfp)
{
	struct page *page = alloc_pages(gfp & ~GFP_ZERO, 0);
	char *base;

	if (!page)
		return NULL;
	base = page_address(page);
	for (size_t off = 0; off < PAGE_SIZE; off += c->size)
		*(void **)(base + off) =
		    off + c->size < PAGE_SIZE ? base + off + c->size : NULL;
	page->flags |= PG_SLAB;
	page->private = c;
	page->freelist = base;
	page->inuse = 0;
	return page;
}

/* Take one object from the first partial slab. Caller holds c->lock. */
static void *slab_take_locked(struct kmalloc_class *c)
{
	struct page *page;
	void *obj;

	DEBUG_ASSERT(spin_lock_held(&c->lock));
	if (list_empty(&c->partial))
		return NULL;
	page = list_first_entry(&c->partial, struct page, lru);
	obj = page->freelist;
	page->freelist = *(void **)obj;
	page->inuse++;
	if (!page->freelist)
		list_del(&page->lru);
	return obj;
}

static void *slab_alloc(struct kmalloc_class *c, gfp_t gfp)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	void *obj = slab_take_locked(c);
	struct page *page;

	spin_unlock_irqrestore(&c->lock, flags);
	if (!obj) {
		page = slab_create(c, gfp);
		if (!page)
			return NULL;
		flags = spin_lock_irqsave(&c->lock);
		list_add(&page->lru, &c->partial);
		obj = slab_take_locked(c);
		spin_unlock_irqrestore(&c->lock, flags);
	}
	if (gfp & GFP_ZERO)
		memset(obj, 0, c->size);
	return obj;
}

static void slab_free(struct page *page, void *obj)
{
	struct kmalloc_class *c = page->private;
	unsigned long flags;
	bool empty;

	if (WARN_ON_ONCE(((uintptr_t)obj & (c->size - 1)) != 0))
		return;
	flags = spin_lock_irqsave(&c->lock);
	if (!page->freelist)
		list_add(&page->lru, &c->partial);
	*(void **)obj = page->freelist;
	page->freelist = obj;
	empty = --page->inuse == 0;
	if (empty)
		list_del(&page->lru);
	spin_unlock_irqrestore(&c->lock, flags);
	if (empty) {
		page->flags &= ~PG_SLAB;
		page->private = NULL;
		page->freelist = NULL;
		free_pages(page, 0);
	}
}

static void *large_alloc(size_t size, gfp_t gfp)
{
	unsigned int order = get_order(size);
	struct page *page;

	if (order >= MAX_ORDER)
		return NULL;
	page = alloc_pages(gfp, order);
	if (!page)
		return NULL;
	page->flags |= PG_KMALLOC;
	return page_address(page);
}

static bool fail_injected(void)
{
	struct task *t;

	if (in_interrupt())
		return false;
	t = current_task();
	return unlikely(t->fail_nth) && --t->fail_nth == 0;
}

void *kmalloc(size_t size, gfp_t gfp)
{
	if (fail_injected())
		return NULL;
	if (size > KMALLOC_MAX_SIZE)
		return large_alloc(size, gfp);
	return slab_alloc(class_for(size), gfp);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | GFP_ZERO);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kzalloc(bytes, gfp);
}

/* The page of a kmalloc'ed pointer, or NULL (with a warning) if @p did
 * not come from kmalloc. */
static struct page *kmalloc_page(const void *p)
{
	struct page *page = virt_to_page(p);

	if (WARN_ON_ONCE(!page))
		return NULL;
	if (page->flags & PG_SLAB)
		return page;
	if (WARN_ON_ONCE(!(page->flags & PG_KMALLOC) ||
			 p != page_address(page)))
		return NULL;
	return page;
}

void kfree(const void *p)
{
	struct page *page;

	if (!p)
		return;
	page = kmalloc_page(p);
	if (!page)
		return;
	if (page->flags & PG_SLAB) {
		slab_free(page, (void *)p);
		return;
	}
	page->flags &= ~PG_KMALLOC;
	free_pages(page, page->order);
}

size_t ksize(const void *p)
{
	struct page *page;

	if (!p)
		return 0;
	page = kmalloc_page(p);
	if (!page)
		return 0;
	if (page->flags & PG_SLAB)
		return ((struct kmalloc_class *)page->private)->size;
	return PAGE_SIZE << page->order;
}

void *krealloc(void *p, size_t size, gfp_t gfp)
{
	size_t old = ksize(p);
	void *q;

	if (p && !size) {
		kfree(p);
		return NULL;
	}
	if (p && size <= old)
		return p;
	q = kmalloc(size, gfp);
	if (q && p) {
		memcpy(q, p, old);
		kfree(p);
	}
	return q;
}

/*
 * mm/page_alloc_test.c: suite mm_page_alloc - blocks of every order are
 * aligned and come back, exhaustion returns NULL and everything returns,
 * GFP_ZERO zeroes, bad frees are ignored, harts allocating at once
 * never share a page, and a bulk allocation is a run adjacent in memory.
 */
#include <limits.h>
#include <string.h>
#include <kernel/ktest.h>
#include <mm/filemap.h>
#include <mm/mm_test.h>
#include <mm/page_alloc.h>

static void every_order_is_aligned(struct ktest *t)
{
	unsigned long start = pages_free();

	for (unsigned int order = 0; order < MAX_ORDER; order++) {
		struct page *page = alloc_pages(GFP_KERNEL, order);
		uintptr_t addr;

		KTEST_ASSERT_NOT_NULL(t, page);
		addr = (uintptr_t)page_address(page);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED(addr, PAGE_SIZE << order));
		KTEST_EXPECT_TRUE(t, virt_to_page((void *)addr) == page);
		KTEST_EXPECT_TRUE(t,
				  virt_to_page((void *)(addr + 100)) == page);
		memset((void *)addr, 0x5a, PAGE_SIZE << order);
		free_pages(page, order);
	}
	KTEST_EXPECT_EQ(t, pages_free(), start);
}

static void gfp_zero_zeroes(struct ktest *t)
{
	unsigned char *p = alloc_pages_va(GFP_KERNEL, 2);
	size_t nonzero = 0;

	KTEST_ASSERT_NOT_NULL(t, p);
	memset(p, 0xa5, 4 * PAGE_SIZE);
	free_pages_va(p, 2);
	p = alloc_pages_va(GFP_ZERO, 2);
	KTEST_ASSERT_NOT_NULL(t, p);
	for (size_t i = 0; i < 4 * PAGE_SIZE; i++)
		nonzero += p[i] != 0;
	KTEST_EXPECT_EQ(t, nonzero, 0);
	free_pages_va(p, 2);
}

/* A bulk allocation comes in runs adjacent in memory while free blocks
 * allow (a block of 32 is free on a fresh boot), its pages freed one by
 * one go back whole, and a bad free of one of them is still refused. */
static void bulk_is_contiguous(struct ktest *t)
{
	struct page *pages[32];
	unsigned long start = pages_free();
	unsigned int got = alloc_pages_bulk(GFP_KERNEL, 32, pages), apart = 0;

	KTEST_ASSERT_EQ(t, got, 32u);
	KTEST_EXPECT_EQ(t, pages_free(), start - 32);
	for (unsigned int i = 1; i < got; i++)
		apart += page_address(pages[i]) !=
			 (char *)page_address(pages[i - 1]) + PAGE_SIZE;
	KTEST_EXPECT_EQ(t, apart, 0u);
	KTEST_EXPECT_TRUE(
	    t, IS_ALIGNED((uintptr_t)page_address(pages[0]), 32 * PAGE_SIZE));
	for (unsigned int i = 0; i < got; i++)
		KTEST_EXPECT_EQ(t, pages[i]->refcount, 1);
	for (unsigned int i = 0; i < got; i++)
		free_pages(pages[(i * 7) % 32], 0); /* out of order */
	KTEST_EXPECT_EQ(t, pages_free(), start);
	/* 31 wanted: 16 + 8 + 4 + 2 + 1, still one run */
	got = alloc_pages_bulk(GFP_KERNEL, 31, pages);
	KTEST_ASSERT_EQ(t, got, 31u);
	apart = 0;
	for (unsigned int i = 1; i < got; i++)
		apart += page_address(pages[i]) !=
			 (char *)page_address(pages[i - 1]) + PAGE_SIZE;
	KTEST_EXPECT_LE(t, apart, 4u);
	for (unsigned int i = 0; i < got; i++)
		free_pages(pages[i], 0);
	KTEST_EXPECT_EQ(t, pages_free(), start);
}

#define DROP_ROUNDS 4 /* a referenced page goes on the second */

/* Nothing may come free while every page is held. What an earlier suite
 * left (after the filesystem suites: a mounted root's page cache, its
 * unused inodes) is written back, waited for and reclaimed now, all of
 * it - else the GFP_KERNEL allocation below reclaims it (the LRU, then
 * the inode cache's shrinker), gets a page or leaves some free - and
 * pages freed through RCU (the page cache's put_page) are waited for. */
static void drop_reclaimable(void)
{
	writeback_all(true);
	for (unsigned int round = 0;
	     round < DROP_ROUNDS && reclaim_pages(ULONG_MAX);
	     round++)
		;
	rcu_barrier();
}

/* Take every page (largest blocks first, each linked through its own first
 * word), check that the next allocation fails, then give them all back;
 * what is reclaimable is dropped first (drop_reclaimable), so the test
 * holds whatever ran before it. */
static void exhaustion_returns_null(struct ktest *t)
{
	unsigned long start, taken = 0;
	void *chain = NULL;

	drop_reclaimable();
	start = pages_free();
	KTEST_EXPECT_LE(t, start, pages_total());
	for (int order = MAX_ORDER - 1; order >= 0; order--) {
		void *p;
		while ((p = alloc_pages_va(GFP_ATOMIC, order))) {
			((void **)p)[0] = chain;
			((unsigned long *)p)[1] = (unsigned long)order;
			chain = p;
			taken += 1UL << order;
		}
	}
	KTEST_EXPECT_NULL(t, alloc_pages(GFP_KERNEL, 0));
	KTEST_EXPECT_EQ(t, pages_free(), 0);
	KTEST_EXPECT_GE(t, taken, start);
	while (chain) {
		void *next = ((void **)chain)[0];
		free_pages_va(chain, ((unsigned long *)chain)[1]);
		chain = next;
	}
	KTEST_EXPECT_EQ(t, pages_free(), start);
	ktest_log(t, "took %lu of %lu pages", taken, pages_total());
}

/* A double free, a free of a block's tail page and a free of a page that
 * merged as the upper buddy warn (once) and change nothing. Each runs with
 * every other hart stopped (mm_test_alone): a freed block may otherwise be
 * handed to another task before the bad free, which would then free that
 * task's memory. Results go through struct bad_free, checked afterwards. */
struct bad_free {
	unsigned long start, after_tail, after_free, after_double;
	unsigned long after_upper, end;
	bool got_block, got_pair;
};

static void bad_frees_alone(void *arg)
{
	struct bad_free *b = arg;
	struct page *page = alloc_pages(GFP_ATOMIC, 1);

	b->start = pages_free() + (page ? 2 : 0);
	b->got_block = page;
	if (!page)
		return;
	free_pages(page + 1, 0);
	b->after_tail = pages_free();
	free_pages(page, 1);
	b->after_free = pages_free();
	free_pages(page, 1);
	b->after_double = pages_free();
}

#define PAIR_TRIES 256

/* Allocate single pages until two are buddies (pfn ^ 1); free all but
 * that pair. Return: the pair's lower page, or NULL. */
static struct page *take_buddy_pair(void)
{
	static struct page *held[PAIR_TRIES];
	struct page *lower = NULL;
	unsigned int n = 0;

	while (!lower && n < PAIR_TRIES) {
		struct page *p = alloc_pages(GFP_ATOMIC, 0);
		uintptr_t buddy;

		if (!p)
			break;
		buddy = (uintptr_t)page_address(p) ^ PAGE_SIZE;
		for (unsigned int i = 0; i < n; i++)
			if ((uintptr_t)page_address(held[i]) == buddy)
				lower = buddy < (uintptr_t)page_address(p)
					    ? held[i]
					    : p;
		held[n++] = p;
	}
	for (unsigned int i = 0; i < n; i++)
		if (!lower || (held[i] != lower && held[i] != lower + 1))
			free_pages(held[i], 0);
	return lower;
}

static void upper_buddy_free_alone(void *arg)
{
	struct bad_free *b = arg;
	struct page *lower = take_buddy_pair();

	b->got_pair = lower;
	if (!lower)
		return;
	free_pages(lower, 0);
	free_pages(lower + 1, 0); /* merges as the upper buddy */
	b->after_upper = pages_free();
	free_pages(lower + 1, 0); /* now a free block's tail */
	b->end = pages_free();
}

static void bad_free_is_ignored(struct ktest *t)
{
	struct bad_free b = { 0 };

	mm_test_alone(t, bad_frees_alone, &b);
	KTEST_ASSERT_TRUE(t, b.got_block);
	KTEST_EXPECT_EQ(t, b.after_tail, b.start - 2);
	KTEST_EXPECT_EQ(t, b.after_free, b.start);
	KTEST_EXPECT_EQ(t, b.after_double, b.start);

	mm_test_alone(t, upper_buddy_free_alone, &b);
	KTEST_ASSERT_TRUE(t, b.got_pair);
	KTEST_EXPECT_EQ(t, b.end, b.after_upper);
}

#define HELD   16
#define ROUNDS 2000

struct hammer {
	uint64_t seed;
};

/* Allocate and free blocks of order 0..3 at random, each filled with a
 * pattern unique to this task and block, checked just before it is freed. */
static int hammer_pages(void *arg)
{
	struct hammer *h = arg;
	uint64_t *held[HELD] = { 0 }, stamp[HELD];
	unsigned int order[HELD];
	int bad = 0;

	for (int round = 0; round < ROUNDS; round++) {
		unsigned int i = test_rand(&h->seed) % HELD;
		if (held[i]) {
			size_t words = (PAGE_SIZE << order[i]) / 8;
			for (size_t w = 0; w < words; w += 61)
				bad += held[i][w] != stamp[i] + w;
			free_pages_va(held[i], order[i]);
		}
		order[i] = test_rand(&h->seed) % 4;
		held[i] = alloc_pages_va(GFP_KERNEL, order[i]);
		if (!held[i])
			continue;
		stamp[i] = test_rand(&h->seed);
		for (size_t w = 0; w < (PAGE_SIZE << order[i]) / 8; w += 61)
			held[i][w] = stamp[i] + w;
	}
	for (unsigned int i = 0; i < HELD; i++)
		free_pages_va(held[i], order[i]);
	return bad;
}

static void harts_allocate_concurrently(struct ktest *t)
{
	struct hammer args[MAX_CPUS];
	unsigned long start = pages_free();

	for (unsigned int c = 0; c < MAX_CPUS; c++)
		args[c].seed = 0x9e3779b97f4a7c15ULL * (c + 1);
	KTEST_EXPECT_EQ(t,
			mm_test_on_every_hart(
			    t, "pages", hammer_pages, args, sizeof(args[0])),
			0);
	KTEST_EXPECT_EQ(t, pages_free(), start);
}

static struct ktest_case page_alloc_cases[] = {
	KTEST_CASE(every_order_is_aligned),
	KTEST_CASE(gfp_zero_zeroes),
	KTEST_CASE(bulk_is_contiguous),
	KTEST_CASE(exhaustion_returns_null),
	KTEST_CASE(bad_free_is_ignored),
	KTEST_CASE(harts_allocate_concurrently),
	{},
};
KTEST_SUITE(mm_page_alloc, page_alloc_cases);

/*
 * mm/kmalloc_test.c: suite mm_kmalloc - every size class and large sizes,
 * alignment, ksize, kzalloc/kcalloc/krealloc semantics, no memory kept
 * after everything is freed, and harts allocating at once never overlap.
 */
#include <string.h>
#include <kernel/ktest.h>
#include <mm/kmalloc.h>
#include <mm/mm_test.h>

static const size_t sizes[] = { 1,    8,    16,	  17,	 31,   32,   33,
				63,   64,   100,  128,	 200,  256,  257,
				511,  512,  1000, 1024,	 1025, 2047, 2048,
				2049, 4096, 4097, 12000, 65536 };

static void every_size_class(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t size = sizes[i], usable;
		unsigned char *p = kmalloc(size, GFP_KERNEL);

		KTEST_ASSERT_NOT_NULL(t, p);
		usable = ksize(p);
		KTEST_EXPECT_GE(t, usable, size);
		KTEST_EXPECT_LT(t, usable, 2 * MAX(size, 16));
		KTEST_EXPECT_TRUE(t, IS_ALIGNED((uintptr_t)p, MIN(usable, 16)));
		if (size > 2048)
			KTEST_EXPECT_TRUE(t,
					  IS_ALIGNED((uintptr_t)p, PAGE_SIZE));
		memset(p, 0xc3, usable);
		kfree(p);
	}
}

static void objects_are_distinct(struct ktest *t)
{
	void *p[64];

	for (int i = 0; i < 64; i++) {
		p[i] = kmalloc(48, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p[i]);
		memset(p[i], i, 48);
	}
	for (int i = 0; i < 64; i++) {
		unsigned char *b = p[i];
		KTEST_EXPECT_TRUE(t, b[0] == i && b[47] == i);
		for (int j = 0; j < i; j++)
			KTEST_EXPECT_TRUE(t, p[i] != p[j]);
		kfree(p[i]);
	}
}

static void kzalloc_and_kcalloc_zero(struct ktest *t)
{
	unsigned char *p = kmalloc(300, GFP_KERNEL);
	size_t nonzero = 0;

	KTEST_ASSERT_NOT_NULL(t, p);
	memset(p, 0xff, 300);
	kfree(p);
	p = kzalloc(300, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	for (int i = 0; i < 300; i++)
		nonzero += p[i] != 0;
	kfree(p);
	p = kcalloc(100, 50, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	for (int i = 0; i < 5000; i++)
		nonzero += p[i] != 0;
	kfree(p);
	KTEST_EXPECT_EQ(t, nonzero, 0);
}

static void kcalloc_overflow_is_null(struct ktest *t)
{
	KTEST_EXPECT_NULL(t, kcalloc(SIZE_MAX / 2, 3, GFP_KERNEL));
	KTEST_EXPECT_NULL(
	    t, kcalloc((size_t)1 << 33, (size_t)1 << 33, GFP_KERNEL));
	KTEST_EXPECT_NULL(t, kmalloc(SIZE_MAX, GFP_KERNEL));
}

static void krealloc_keeps_data(struct ktest *t)
{
	static const size_t steps[] = { 24, 100, 2048, 5000, 70000, 10 };
	unsigned char *p = krealloc(NULL, 8, GFP_KERNEL);
	size_t have = 8, bad = 0;

	KTEST_ASSERT_NOT_NULL(t, p);
	for (size_t i = 0; i < have; i++)
		p[i] = (unsigned char)(i * 7);
	for (size_t s = 0; s < ARRAY_SIZE(steps); s++) {
		p = krealloc(p, steps[s], GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_GE(t, ksize(p), steps[s]);
		for (size_t i = 0; i < MIN(have, steps[s]); i++)
			bad += p[i] != (unsigned char)(i * 7);
		for (size_t i = have; i < steps[s]; i++)
			p[i] = (unsigned char)(i * 7);
		have = steps[s];
	}
	KTEST_EXPECT_EQ(t, bad, 0);
	KTEST_EXPECT_NULL(t, krealloc(p, 0, GFP_KERNEL));
}

static void kfree_null_and_no_leak(struct ktest *t)
{
	unsigned long start = pages_free();
	void *p[200];

	kfree(NULL);
	KTEST_EXPECT_EQ(t, ksize(NULL), 0);
	for (int i = 0; i < 200; i++)
		p[i] = kmalloc(sizes[i % ARRAY_SIZE(sizes)], GFP_KERNEL);
	for (int i = 0; i < 200; i++)
		kfree(p[i]);
	KTEST_EXPECT_EQ(t, pages_free(), start);
}

#define LIVE   64
#define ROUNDS 4000

struct churn {
	uint64_t seed;
};

/* Random sizes up to 5000 bytes; each object is filled with a pattern
 * unique to it and checked whole before it is freed: an object handed to
 * two owners, or overlapping another, breaks a pattern. */
static int churn_kmalloc(void *arg)
{
	struct churn *c = arg;
	uint8_t *live[LIVE] = { 0 };
	size_t len[LIVE];
	uint8_t tag[LIVE];
	int bad = 0;

	for (int round = 0; round < ROUNDS; round++) {
		unsigned int i = test_rand(&c->seed) % LIVE;
		if (live[i]) {
			for (size_t b = 0; b < len[i]; b++)
				bad += live[i][b] != (uint8_t)(tag[i] + b);
			kfree(live[i]);
		}
		len[i] = 1 + test_rand(&c->seed) % (round & 1 ? 5000 : 300);
		live[i] = kmalloc(len[i], GFP_KERNEL);
		if (!live[i])
			return -1;
		tag[i] = (uint8_t)test_rand(&c->seed);
		for (size_t b = 0; b < len[i]; b++)
			live[i][b] = (uint8_t)(tag[i] + b);
	}
	for (unsigned int i = 0; i < LIVE; i++)
		kfree(live[i]);
	return bad;
}

static void harts_kmalloc_concurrently(struct ktest *t)
{
	struct churn args[MAX_CPUS];
	unsigned long start = pages_free();

	for (unsigned int c = 0; c < MAX_CPUS; c++)
		args[c].seed = 0xd1b54a32d192ed03ULL * (c + 3);
	KTEST_EXPECT_EQ(t,
			mm_test_on_every_hart(
			    t, "kmalloc", churn_kmalloc, args, sizeof(args[0])),
			0);
	KTEST_EXPECT_EQ(t, pages_free(), start);
}

static struct ktest_case kmalloc_cases[] = {
	KTEST_CASE(every_size_class),
	KTEST_CASE(objects_are_distinct),
	KTEST_CASE(kzalloc_and_kcalloc_zero),
	KTEST_CASE(kcalloc_overflow_is_null),
	KTEST_CASE(krealloc_keeps_data),
	KTEST_CASE(kfree_null_and_no_leak),
	KTEST_CASE(harts_kmalloc_concurrently),
	{},
};
KTEST_SUITE(mm_kmalloc, kmalloc_cases);

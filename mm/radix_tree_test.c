/*
 * mm/radix_tree_test.c: suite pcache_radix.
 *
 * Dense and sparse key sets, indices near ULONG_MAX, the tree shrinking
 * back to empty as entries leave, gang lookups in index order, the leaf
 * slots of an index, and inserts that run out of memory leaving nothing
 * behind.
 */
#include <errno.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <mm/radix_tree.h>

/* A distinct, non-NULL item for each index. */
static void *item_of(unsigned long index)
{
	return (void *)((index << 4) | 8);
}

static void radix_dense(struct ktest *t)
{
	struct radix_tree tree = RADIX_TREE_INIT;
	const unsigned long n = 5000;

	for (unsigned long i = 0; i < n; i++)
		KTEST_ASSERT_EQ(t, radix_tree_insert(&tree, i, item_of(i)), 0);
	KTEST_EXPECT_EQ(t, tree.height, 3);
	KTEST_EXPECT_EQ(t, radix_tree_insert(&tree, 77, item_of(1)), -EEXIST);
	for (unsigned long i = 0; i < n; i++)
		KTEST_EXPECT_TRUE(t, radix_tree_lookup(&tree, i) == item_of(i));
	KTEST_EXPECT_NULL(t, radix_tree_lookup(&tree, n));
	for (unsigned long i = 0; i < n; i += 2)
		KTEST_EXPECT_TRUE(t, radix_tree_delete(&tree, i) == item_of(i));
	for (unsigned long i = 0; i < n; i++)
		KTEST_EXPECT_TRUE(t,
				  radix_tree_lookup(&tree, i) ==
				      (i & 1 ? item_of(i) : NULL));
	for (unsigned long i = 1; i < n; i += 2)
		radix_tree_delete(&tree, i);
	KTEST_EXPECT_NULL(t, tree.root);
}

static void radix_sparse_and_huge(struct ktest *t)
{
	struct radix_tree tree = RADIX_TREE_INIT;
	const unsigned long keys[] = { 0,	  63,	     64,
				       4095,	  1UL << 20, 1UL << 40,
				       ~0UL >> 1, ~0UL - 1,  ~0UL };

	for (unsigned int i = 0; i < ARRAY_SIZE(keys); i++)
		KTEST_ASSERT_EQ(
		    t, radix_tree_insert(&tree, keys[i], item_of(i + 1)), 0);
	KTEST_EXPECT_EQ(t, tree.height, 11);
	for (unsigned int i = 0; i < ARRAY_SIZE(keys); i++)
		KTEST_EXPECT_TRUE(
		    t, radix_tree_lookup(&tree, keys[i]) == item_of(i + 1));
	KTEST_EXPECT_NULL(t, radix_tree_lookup(&tree, 65));
	KTEST_EXPECT_NULL(t, radix_tree_lookup(&tree, ~0UL - 2));
	KTEST_EXPECT_NULL(t, radix_tree_delete(&tree, 1UL << 30));
	for (unsigned int i = 0; i < ARRAY_SIZE(keys); i++)
		KTEST_EXPECT_TRUE(
		    t, radix_tree_delete(&tree, keys[i]) == item_of(i + 1));
	KTEST_EXPECT_NULL(t, tree.root);
}

static void radix_delete_frees_nodes(struct ktest *t)
{
	struct radix_tree tree = RADIX_TREE_INIT;

	KTEST_ASSERT_EQ(t, radix_tree_insert(&tree, 5, item_of(5)), 0);
	KTEST_EXPECT_EQ(t, tree.height, 1);
	KTEST_ASSERT_EQ(t, radix_tree_insert(&tree, 1UL << 24, item_of(1)), 0);
	KTEST_EXPECT_EQ(t, tree.height, 5);
	/* The far key leaves: the tree shrinks back to one level. */
	KTEST_EXPECT_TRUE(t, radix_tree_delete(&tree, 1UL << 24) == item_of(1));
	KTEST_EXPECT_EQ(t, tree.height, 1);
	KTEST_EXPECT_TRUE(t, radix_tree_lookup(&tree, 5) == item_of(5));
	KTEST_EXPECT_TRUE(t, radix_tree_delete(&tree, 5) == item_of(5));
	KTEST_EXPECT_NULL(t, tree.root);
	KTEST_EXPECT_EQ(t, tree.height, 0);
	KTEST_EXPECT_NULL(t, radix_tree_delete(&tree, 5));
}

static void radix_gang_lookup_order(struct ktest *t)
{
	struct radix_tree tree = RADIX_TREE_INIT;
	void *items[8];
	unsigned long idx[8], expect[] = { 3, 64, 100, 4096, 1UL << 33 };
	unsigned int n;

	/* Inserted out of order. */
	for (int i = ARRAY_SIZE(expect) - 1; i >= 0; i--)
		KTEST_ASSERT_EQ(
		    t,
		    radix_tree_insert(&tree, expect[i], item_of(expect[i])),
		    0);
	n = radix_tree_gang_lookup(&tree, items, idx, 0, 8);
	KTEST_ASSERT_EQ(t, n, ARRAY_SIZE(expect));
	for (unsigned int i = 0; i < n; i++) {
		KTEST_EXPECT_EQ(t, idx[i], expect[i]);
		KTEST_EXPECT_TRUE(t, items[i] == item_of(expect[i]));
	}
	n = radix_tree_gang_lookup(&tree, items, idx, 65, 2);
	KTEST_ASSERT_EQ(t, n, 2);
	KTEST_EXPECT_EQ(t, idx[0], 100);
	KTEST_EXPECT_EQ(t, idx[1], 4096);
	n = radix_tree_gang_lookup(&tree, items, NULL, 4097, 8);
	KTEST_EXPECT_EQ(t, n, 1);
	KTEST_EXPECT_TRUE(t, items[0] == item_of(1UL << 33));
	KTEST_EXPECT_EQ(
	    t,
	    radix_tree_gang_lookup(&tree, items, idx, (1UL << 33) + 1, 8),
	    0);
	for (unsigned int i = 0; i < ARRAY_SIZE(expect); i++)
		radix_tree_delete(&tree, expect[i]);
	KTEST_EXPECT_NULL(t, tree.root);
}

/* The leaf slots of an index: from its own to the leaf's end, the items in
 * index order, NULL where absent; no leaf for an index whose whole leaf
 * is empty. A leaf emptied by deletes leaves the tree: its index has no
 * leaf again. */
static void radix_leaf_slots(struct ktest *t)
{
	struct radix_tree tree = RADIX_TREE_INIT;
	void *const *slots;
	unsigned int n = 0;

	for (unsigned long i = 10; i < 200; i++)
		if (i != 20)
			KTEST_ASSERT_EQ(
			    t, radix_tree_insert(&tree, i, item_of(i)), 0);
	slots = radix_tree_leaf_slots(&tree, 10, &n);
	KTEST_ASSERT_NOT_NULL(t, slots);
	KTEST_EXPECT_EQ(t, n, 54); /* 10..63 */
	for (unsigned int i = 0; i < n; i++)
		KTEST_EXPECT_TRUE(
		    t, slots[i] == (i == 10 ? NULL : item_of(10 + i)));
	slots = radix_tree_leaf_slots(&tree, 5, &n);
	KTEST_ASSERT_NOT_NULL(t, slots);
	KTEST_EXPECT_EQ(t, n, 59);
	KTEST_EXPECT_NULL(t, slots[0]);
	KTEST_EXPECT_TRUE(t, slots[5] == item_of(10));
	slots = radix_tree_leaf_slots(&tree, 64, &n);
	KTEST_ASSERT_NOT_NULL(t, slots);
	KTEST_EXPECT_EQ(t, n, 64);
	KTEST_EXPECT_TRUE(t, slots[63] == item_of(127));
	slots = radix_tree_leaf_slots(&tree, 199, &n);
	KTEST_ASSERT_NOT_NULL(t, slots);
	KTEST_EXPECT_EQ(t, n, 57); /* 199..255 */
	KTEST_EXPECT_TRUE(t, slots[0] == item_of(199));
	KTEST_EXPECT_NULL(t, slots[1]);
	KTEST_EXPECT_NULL(t, radix_tree_leaf_slots(&tree, 256, &n));
	KTEST_EXPECT_NULL(t, radix_tree_leaf_slots(&tree, 1UL << 40, &n));
	for (unsigned long i = 64; i < 128; i++)
		radix_tree_delete(&tree, i);
	KTEST_EXPECT_NULL(t, radix_tree_leaf_slots(&tree, 64, &n));
	for (unsigned long i = 10; i < 200; i++)
		radix_tree_delete(&tree, i);
	KTEST_EXPECT_NULL(t, tree.root);
	KTEST_EXPECT_NULL(t, radix_tree_leaf_slots(&tree, 0, &n));
}

/*
 * Rule: an insert that fails with -ENOMEM leaves the tree as it was, so
 * deleting every entry still empties it (no empty node stays counted).
 * Allocation failures are injected with the task's fail_nth.
 */
static void radix_enomem_leaves_no_nodes(struct ktest *t)
{
	struct radix_tree tree = RADIX_TREE_INIT;
	const unsigned long far = 3UL << 12 | 5; /* height 3 */

	/* Growing an empty tree: the second new level fails. */
	current_task()->fail_nth = 2;
	KTEST_EXPECT_EQ(t, radix_tree_insert(&tree, far, item_of(1)), -ENOMEM);
	current_task()->fail_nth = 0;
	KTEST_EXPECT_NULL(t, tree.root);
	KTEST_EXPECT_EQ(t, tree.height, 0);

	/* Two new roots, then the path below: its second node fails. */
	KTEST_ASSERT_EQ(t, radix_tree_insert(&tree, 0, item_of(0)), 0);
	current_task()->fail_nth = 4;
	KTEST_EXPECT_EQ(t, radix_tree_insert(&tree, far, item_of(1)), -ENOMEM);
	current_task()->fail_nth = 0;
	KTEST_EXPECT_EQ(t, tree.height, 1);
	KTEST_EXPECT_NULL(t, radix_tree_lookup(&tree, far));
	KTEST_EXPECT_TRUE(t, radix_tree_delete(&tree, 0) == item_of(0));
	KTEST_EXPECT_NULL(t, tree.root);

	/* The same insert with memory succeeds and empties cleanly. */
	KTEST_ASSERT_EQ(t, radix_tree_insert(&tree, far, item_of(1)), 0);
	KTEST_EXPECT_TRUE(t, radix_tree_delete(&tree, far) == item_of(1));
	KTEST_EXPECT_NULL(t, tree.root);
}

static struct ktest_case radix_cases[] = {
	KTEST_CASE(radix_dense),
	KTEST_CASE(radix_sparse_and_huge),
	KTEST_CASE(radix_delete_frees_nodes),
	KTEST_CASE(radix_gang_lookup_order),
	KTEST_CASE(radix_leaf_slots),
	KTEST_CASE(radix_enomem_leaves_no_nodes),
	{},
};
KTEST_SUITE(pcache_radix, radix_cases);

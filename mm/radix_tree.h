/*
 * mm/radix_tree.h: an ordered map from unsigned long to pointers.
 *
 * 64-way radix tree: lookup, insert and delete in O(log64 n); range walks in
 * index order. No internal locking: the owner's lock protects it (for the
 * page cache, mapping->i_pages_lock); nodes are allocated with GFP_ATOMIC so
 * inserting under a spinlock is allowed. radix_tree_lookup alone may also
 * run with no lock inside an RCU read-side section (kernel/rcu.h): nodes
 * are freed through call_rcu. Items must be freed the same way by their
 * owner if lock-free readers may use them.
 */
#pragma once

#include <kernel/compiler.h>

struct radix_node;

struct radix_tree {
	struct radix_node *root;
	unsigned int height; /* levels; 0: empty */
};

#define RADIX_TREE_INIT \
	{               \
		NULL, 0 \
	}

void radix_tree_init(struct radix_tree *t);
/* Return: 0, -EEXIST if @index is present, -ENOMEM. @item must not be NULL. */
int radix_tree_insert(struct radix_tree *t, unsigned long index, void *item);
void *radix_tree_lookup(const struct radix_tree *t, unsigned long index);
/*
 * The slots of the leaf that holds @index, from @index's own to the leaf's
 * end (*@n of them: @index, @index + 1, ..., up to a multiple of 64), or
 * NULL if no leaf holds @index (it is absent). Under the owner's lock, or
 * lock-free in an RCU read-side section: read each slot with
 * rcu_dereference. A leaf stays at its indices while it is in the tree
 * and leaves it only empty, so a slot read again inside the same section
 * shows its index's item now, or NULL.
 */
void *const *radix_tree_leaf_slots(const struct radix_tree *t,
				   unsigned long index,
				   unsigned int *n);
/* Return: the item removed, or NULL. Empty nodes are freed. */
void *radix_tree_delete(struct radix_tree *t, unsigned long index);
/* Fill @items (and @indices, if not NULL) with up to @max entries whose
 * index >= @first, ascending. Return: how many. */
unsigned int radix_tree_gang_lookup(const struct radix_tree *t,
				    void **items,
				    unsigned long *indices,
				    unsigned long first,
				    unsigned int max);

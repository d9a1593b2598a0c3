/*
 * mm/radix_tree.c: a 64-way radix tree from unsigned long to pointers.
 *
 * A tree of height h holds indices 0 .. 64^h - 1: each level consumes six
 * bits of the index, the root the most significant ones. Inserting an index
 * that does not fit grows the tree at the top (the old root becomes slot 0
 * of a new root); deleting frees every node left empty and shrinks the top
 * while only slot 0 of the root is used. An insert that runs out of memory
 * undoes the same way what it had built, so no node ever stays empty. Nodes
 * come from kmalloc(GFP_ATOMIC) so the owner may insert under a spinlock.
 *
 * Lookups may run with no lock, inside an RCU read-side section
 * (kernel/rcu.h), beside one writer holding the owner's lock: each node
 * carries its own level (a reader never reads t->height, which a grow or
 * shrink changes separately from the root), every pointer a reader follows
 * is published with a release store after the node or item it leads to is
 * complete, and a node leaves the tree before call_rcu frees it. A shrink
 * leaves the old root's slot 0 in place, so a reader that still holds the
 * old root walks down to the same items.
 */
#include <errno.h>
#include <kernel/rcu.h>
#include <mm/kmalloc.h>
#include <mm/radix_tree.h>

#define RADIX_SHIFT 6
#define RADIX_SLOTS (1U << RADIX_SHIFT)
#define RADIX_MASK  (RADIX_SLOTS - 1)
/* Enough levels for every bit of an unsigned long. */
#define RADIX_MAX_HEIGHT DIV_ROUND_UP(8 * sizeof(unsigned long), RADIX_SHIFT)

struct radix_node {
	unsigned int count; /* non-NULL slots */
	unsigned int shift; /* index bits of this level start here */
	struct rcu_head rcu;
	void *slots[RADIX_SLOTS];
};

static struct radix_node *node_alloc(unsigned int shift)
{
	struct radix_node *n = kzalloc(sizeof(*n), GFP_ATOMIC);

	if (n)
		n->shift = shift;
	return n;
}

static void node_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct radix_node, rcu));
}

/* @n has left the tree: free it once no lock-free reader can hold it. */
static void node_free(struct radix_node *n)
{
	call_rcu(&n->rcu, node_free_rcu);
}

void radix_tree_init(struct radix_tree *t)
{
	t->root = NULL;
	t->height = 0;
}

/* Slot of @index at a node of a level whose index bits start at @shift. */
static unsigned int slot_of(unsigned long index, unsigned int shift)
{
	return (index >> shift) & RADIX_MASK;
}

/* Largest index a tree of @height holds. */
static unsigned long max_index(unsigned int height)
{
	if (height * RADIX_SHIFT >= 8 * sizeof(unsigned long))
		return ~0UL;
	return (1UL << (height * RADIX_SHIFT)) - 1;
}

static void shrink(struct radix_tree *t);
static void prune_path(struct radix_tree *t, unsigned long index);

static int grow(struct radix_tree *t, unsigned long index)
{
	while (t->height == 0 || index > max_index(t->height)) {
		struct radix_node *n = node_alloc(t->height * RADIX_SHIFT);

		if (!n)
			return -ENOMEM;
		if (t->root) {
			n->slots[0] = t->root;
			n->count = 1;
		}
		rcu_assign_pointer(t->root, n);
		t->height++;
	}
	return 0;
}

int radix_tree_insert(struct radix_tree *t, unsigned long index, void *item)
{
	struct radix_node *n;
	unsigned int shift;
	int err = grow(t, index);

	if (err) {
		shrink(t);
		return err;
	}
	n = t->root;
	for (shift = (t->height - 1) * RADIX_SHIFT; shift;
	     shift -= RADIX_SHIFT) {
		void **slot = &n->slots[slot_of(index, shift)];

		if (!*slot) {
			struct radix_node *child =
			    node_alloc(shift - RADIX_SHIFT);

			if (!child) {
				prune_path(t, index);
				return -ENOMEM;
			}
			rcu_assign_pointer(*slot, child);
			n->count++;
		}
		n = *slot;
	}
	if (n->slots[slot_of(index, 0)])
		return -EEXIST;
	rcu_assign_pointer(n->slots[slot_of(index, 0)], item);
	n->count++;
	return 0;
}

/* Under the owner's lock, or lock-free inside an RCU read-side section. */
void *radix_tree_lookup(const struct radix_tree *t, unsigned long index)
{
	struct radix_node *n = rcu_dereference(t->root);

	if (!n || index > max_index(n->shift / RADIX_SHIFT + 1))
		return NULL;
	while (n->shift) {
		n = rcu_dereference(n->slots[slot_of(index, n->shift)]);
		if (!n)
			return NULL;
	}
	return rcu_dereference(n->slots[slot_of(index, 0)]);
}

/* A node stays at its indices while it is in the tree (a grow puts the old
 * root under slot 0 of the new one: the same indices), and a leaf is
 * taken out only when a delete has emptied it (prune_path; a shrink drops
 * only roots above a leaf, or an empty one). */
void *const *radix_tree_leaf_slots(const struct radix_tree *t,
				   unsigned long index,
				   unsigned int *n)
{
	struct radix_node *node = rcu_dereference(t->root);

	if (!node || index > max_index(node->shift / RADIX_SHIFT + 1))
		return NULL;
	while (node->shift) {
		node =
		    rcu_dereference(node->slots[slot_of(index, node->shift)]);
		if (!node)
			return NULL;
	}
	*n = RADIX_SLOTS - slot_of(index, 0);
	return &node->slots[slot_of(index, 0)];
}

/* Drop top levels whose root uses only slot 0; free an empty root. */
static void shrink(struct radix_tree *t)
{
	while (t->height > 1 && t->root->count == 1 && t->root->slots[0]) {
		struct radix_node *old = t->root;

		rcu_assign_pointer(t->root, old->slots[0]);
		t->height--;
		node_free(old);
	}
	if (t->root && t->root->count == 0) {
		struct radix_node *old = t->root;

		rcu_assign_pointer(t->root, NULL);
		t->height = 0;
		node_free(old);
	}
}

/* Free the nodes on @index's path that hold nothing, bottom up, then
 * shrink the top. */
static void prune_path(struct radix_tree *t, unsigned long index)
{
	struct radix_node *path[RADIX_MAX_HEIGHT];
	unsigned int shift, level = 0;

	if (!t->root)
		return;
	path[0] = t->root;
	for (shift = (t->height - 1) * RADIX_SHIFT; shift;
	     shift -= RADIX_SHIFT) {
		struct radix_node *next =
		    path[level]->slots[slot_of(index, shift)];

		if (!next)
			break;
		path[++level] = next;
	}
	/* Each parent indexes its child by the bits of its own level. */
	for (; level > 0 && path[level]->count == 0; level--) {
		struct radix_node *parent = path[level - 1];

		WRITE_ONCE(parent->slots[slot_of(index, parent->shift)], NULL);
		parent->count--;
		node_free(path[level]);
	}
	shrink(t);
}

void *radix_tree_delete(struct radix_tree *t, unsigned long index)
{
	struct radix_node *n = t->root;
	unsigned int shift;
	void *item;

	if (!n || index > max_index(t->height))
		return NULL;
	for (shift = (t->height - 1) * RADIX_SHIFT; shift;
	     shift -= RADIX_SHIFT) {
		n = n->slots[slot_of(index, shift)];
		if (!n)
			return NULL;
	}
	item = n->slots[slot_of(index, 0)];
	if (!item)
		return NULL;
	WRITE_ONCE(n->slots[slot_of(index, 0)], NULL);
	n->count--;
	prune_path(t, index);
	return item;
}

struct gang {
	void **items;
	unsigned long *indices;
	unsigned int max, found;
};

/* Collect entries >= @first under @n, whose first index is @base and whose
 * slots span 64^(@shift/6) indices each. */
static void gang_walk(const struct radix_node *n,
		      unsigned int shift,
		      unsigned long base,
		      unsigned long first,
		      struct gang *g)
{
	unsigned int i = first > base ? slot_of(first, shift) : 0;

	for (; i < RADIX_SLOTS && g->found < g->max; i++) {
		unsigned long index = base + ((unsigned long)i << shift);

		if (!n->slots[i])
			continue;
		if (shift) {
			gang_walk(
			    n->slots[i], shift - RADIX_SHIFT, index, first, g);
			continue;
		}
		g->items[g->found] = n->slots[i];
		if (g->indices)
			g->indices[g->found] = index;
		g->found++;
	}
}

unsigned int radix_tree_gang_lookup(const struct radix_tree *t,
				    void **items,
				    unsigned long *indices,
				    unsigned long first,
				    unsigned int max)
{
	struct gang g = { items, indices, max, 0 };

	if (!t->root || first > max_index(t->height))
		return 0;
	gang_walk(t->root, (t->height - 1) * RADIX_SHIFT, 0, first, &g);
	return g.found;
}

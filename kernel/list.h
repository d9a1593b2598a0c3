/*
 * kernel/list.h: intrusive circular doubly linked lists.
 *
 * Embed a struct list_head in the object, initialise the head with
 * LIST_HEAD_INIT or list_init, walk with list_for_each_entry(_safe).
 * No locking: the owner of the list says which lock protects it.
 */
#pragma once

#include <kernel/compiler.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}

static inline void list_init(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void __list_insert(struct list_head *n,
				 struct list_head *prev,
				 struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_insert(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_insert(n, head->prev, head);
}

static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_init(e);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)

#define list_for_each_entry(pos, head, member)                         \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); \
	     &pos->member != (head);                                   \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)                  \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),  \
	    n = list_entry(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head);                                    \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

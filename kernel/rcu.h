/*
 * kernel/rcu.h: read-copy-update, whole's own small version.
 *
 * Lets readers walk a structure with no lock at all while writers change
 * it under their own lock: a writer unpublishes an object (clears the
 * pointer readers follow) and hands it to call_rcu(), which frees it only
 * after a grace period - once every hart has been seen outside a read-side
 * section since the unpublishing. A reader that found the object before it
 * was unpublished can still use it to the end of its section.
 *
 * Rules:
 *   - A read-side section is rcu_read_lock() .. rcu_read_unlock(), in task
 *     context only (not in interrupt handlers), and never sleeps: it runs
 *     with preemption off. Sections nest.
 *   - Inside it, follow published pointers with rcu_dereference() and use
 *     what they lead to only until the unlock. To keep an object longer,
 *     take a reference that is refused once the count reached zero (the
 *     page cache's page_ref_tryget) and recheck that it is still published.
 *   - Writers publish with rcu_assign_pointer() (the object's contents
 *     first), serialise among themselves with their own lock, and free an
 *     unpublished object through call_rcu() (any context, any lock held)
 *     or after synchronize_rcu() (task context, may sleep; readers take
 *     no lock, so the waiter may hold any sleeping lock).
 *
 * How a grace period is seen: each hart counts its read-side nesting in
 * struct cpu (rcu_depth) and bumps rcu_ends when its outermost section
 * ends. The reader's first lock is followed by a full fence, and the
 * waiter fences after its unpublishing, so a waiter that reads a hart's
 * depth as 0 knows any section that hart starts later sees the
 * unpublished state; a depth of 1 is waited out by watching rcu_ends.
 * Callbacks run in the "rcu" task (or in rcu_barrier's caller), never in
 * the context that queued them.
 */
#pragma once

#include <kernel/compiler.h>

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

void rcu_read_lock(void);
void rcu_read_unlock(void);
/* Does this hart run inside a read-side section? */
bool rcu_read_lock_held(void);

#define rcu_dereference(p)	 __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/**
 * call_rcu - run @func(@head) once a grace period has passed
 * Context: any (interrupts too, spinlocks held); does not sleep.
 */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

/**
 * synchronize_rcu - wait until every read-side section that began before
 * the call has ended.
 * Context: task, not inside a read-side section; spins and yields.
 */
void synchronize_rcu(void);

/**
 * rcu_barrier - wait until every callback queued before the call has run
 * (freed memory is back in the allocator). Reclaim calls it; so do tests
 * that count free pages.
 * Context: task, may sleep, not inside a read-side section.
 */
void rcu_barrier(void);

/* Grace periods completed and callbacks run since boot (for tests). */
unsigned long rcu_grace_periods(void);
unsigned long rcu_callbacks_run(void);

/*
 * kernel/mutex.h: sleeping mutual exclusion.
 *
 * One owner task at a time; waiters sleep in FIFO order. Only the owner
 * may unlock. Not for interrupt context. Taking a free mutex and letting
 * go of one nobody waits for is one compare-and-swap each on the owner
 * word (below); wait_lock is taken only when a task has to wait.
 *
 * Sleeping locks (this mutex, kernel/rwsem.h) spin up to spin_ns
 * (LOCK_SPIN_NS) for a holder before they queue, and only while nobody is
 * queued, so a queued waiter keeps its turn: most holds last a few
 * microseconds, less than a sleep and its wake-up (an IPI to an idle
 * hart, a trap, two context switches), as Linux's mutex spins on a
 * running owner. With one hart the holder cannot run meanwhile: no spin.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/spinlock.h>
#include <kernel/list.h>
#include <kernel/lockdep.h>

struct task;

/*
 * The owner word: the owning task's address, 0 when free, and
 * MUTEX_WAITERS (bit 0; a task is at least 8-aligned) while a task is
 * queued. Its changes:
 *   0 -> T         the locker's compare-and-swap, acquire (any path)
 *   T -> 0         the owner's compare-and-swap, release, which fails
 *                  when MUTEX_WAITERS is set: then the slow unlock
 *   T -> T|WAITERS a locker that is about to queue, compare-and-swap,
 *                  under wait_lock (it queues itself before dropping it)
 *   T|WAITERS -> U|WAITERS, or U   the slow unlock, under wait_lock:
 *                  hands the mutex to the head waiter U (store, release)
 * So while MUTEX_WAITERS is set only wait_lock's holder changes the word
 * (the owner's fast unlock fails), and a task that found the mutex held
 * either sees it free under wait_lock, or sets the bit before its owner
 * lets go, whose unlock then takes wait_lock and finds it queued.
 */
#define MUTEX_WAITERS 1UL

struct mutex {
	unsigned long owner; /* above; atomic */
	struct spinlock wait_lock;
	/* protected by wait_lock: */
	struct list_head waiters;
	uintptr_t site;	  /* where the owner took it; the owner's */
	uint32_t spin_ns; /* see above; 0: never spin */
	struct lockdep_map dep;
};

#define LOCK_SPIN_NS 20000u

#define MUTEX_INIT(lname)                                    \
	{                                                    \
		.wait_lock = SPINLOCK_INIT(lname.wait_lock), \
		.waiters = LIST_HEAD_INIT(lname.waiters),    \
		.spin_ns = LOCK_SPIN_NS,                     \
		.dep = {.name = #lname }                     \
	}
#define DEFINE_MUTEX(lname) struct mutex lname = MUTEX_INIT(lname)

void mutex_init(struct mutex *m, const char *name, struct lock_class *class);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
/* Several of one class held at once, each taken by trylock (so none is
 * waited for while others are held): the @subclass of each must be above
 * the last's (0, 1, 2, ...), for lockdep. */
bool mutex_trylock_nested(struct mutex *m, unsigned int subclass);
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(struct mutex *m);
/* The task holding @m, or NULL (a racy read unless it is the caller). */
static inline struct task *mutex_owner(struct mutex *m)
{
	return (struct task *)(READ_ONCE(m->owner) & ~MUTEX_WAITERS);
}
/* Tasks queued for @m now (a test sees a task blocked on it). */
unsigned int mutex_nr_waiters(struct mutex *m);
/* When a spin for a holder that starts now must end: 0 (no spin) with
 * one hart or @spin_ns 0. */
uint64_t lock_spin_deadline(uint32_t spin_ns);

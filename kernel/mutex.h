/*
 * kernel/mutex.h: sleeping mutual exclusion.
 *
 * One owner task at a time; waiters sleep in FIFO order. Only the owner
 * may unlock. Not for interrupt context.
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

struct mutex {
	struct spinlock wait_lock;
	/* protected by wait_lock: */
	struct task *owner;
	uintptr_t site;
	struct list_head waiters;
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
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(struct mutex *m);
/* Tasks queued for @m now (a test sees a task blocked on it). */
unsigned int mutex_nr_waiters(struct mutex *m);
/* When a spin for a holder that starts now must end: 0 (no spin) with
 * one hart or @spin_ns 0. */
uint64_t lock_spin_deadline(uint32_t spin_ns);

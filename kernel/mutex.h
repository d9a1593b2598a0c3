/*
 * kernel/mutex.h: sleeping mutual exclusion.
 *
 * One owner task at a time; waiters sleep in FIFO order. Only the owner may
 * unlock. Not for interrupt context.
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
	struct lockdep_map dep;
};

#define MUTEX_INIT(lname)                                    \
	{                                                    \
		.wait_lock = SPINLOCK_INIT(lname.wait_lock), \
		.waiters = LIST_HEAD_INIT(lname.waiters),    \
		.dep = {.name = #lname }                     \
	}
#define DEFINE_MUTEX(lname) struct mutex lname = MUTEX_INIT(lname)

void mutex_init(struct mutex *m, const char *name, struct lock_class *class);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(struct mutex *m);

/*
 * kernel/rwsem.h: reader/writer semaphores.
 *
 * Many readers or one writer. Waiters are served in FIFO order, and a
 * reader that arrives while anyone waits queues too, even if only readers
 * are inside: as Linux's rwsem, which lets a reader steal the lock past
 * waiters only when no other reader holds it (rwsem_down_read_slowpath:
 * "very likely owned by readers" queues), a moment that never comes here
 * because a release hands the lock to the head waiter at once. So a
 * writer waits only for the readers inside when it queued, never for a
 * stream of later ones. downgrade_write turns the writer into a reader
 * and lets the readers queued behind it in. A task that finds it busy and
 * nobody queued spins up to spin_ns first, as a mutex does
 * (kernel/mutex.h). Not for interrupt context.
 *
 * s->writer names the owning task while the semaphore is held exclusive
 * (rwsem_is_write_owner), so assertions check the owner, not only the
 * mode. Every acquisition is counted in s->stats and in the class's stats
 * (kernel/lockdep.h), waits and failed trylocks as contended.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/spinlock.h>
#include <kernel/list.h>
#include <kernel/lockdep.h>
#include <kernel/mutex.h> /* LOCK_SPIN_NS */

struct task;

struct rw_semaphore {
	struct spinlock wait_lock;
	/* protected by wait_lock: */
	long readers;	     /* active readers */
	struct task *writer; /* active writer, or NULL */
	uintptr_t writer_site;
	struct list_head waiters;
	uint32_t spin_ns; /* kernel/mutex.h; 0: never spin */
	struct lockdep_map dep;
	struct lock_stats stats; /* atomic counters */
};

#define RWSEM_INIT(lname)                                    \
	{                                                    \
		.wait_lock = SPINLOCK_INIT(lname.wait_lock), \
		.waiters = LIST_HEAD_INIT(lname.waiters),    \
		.spin_ns = LOCK_SPIN_NS,                     \
		.dep = {.name = #lname }                     \
	}
#define DECLARE_RWSEM(lname) struct rw_semaphore lname = RWSEM_INIT(lname)

void init_rwsem(struct rw_semaphore *s,
		const char *name,
		struct lock_class *class);
void down_read(struct rw_semaphore *s);
void down_write(struct rw_semaphore *s);
/* Same class held twice (two inodes, two mappings): caller orders them. */
void down_write_nested(struct rw_semaphore *s, unsigned int subclass);
bool down_read_trylock(struct rw_semaphore *s);
bool down_write_trylock(struct rw_semaphore *s);
void up_read(struct rw_semaphore *s);
void up_write(struct rw_semaphore *s);
void downgrade_write(struct rw_semaphore *s);
bool rwsem_is_locked(struct rw_semaphore *s);
/* Held exclusive by the running task. */
bool rwsem_is_write_owner(struct rw_semaphore *s);
/* Tasks queued for @s now (a test sees a task blocked on it). */
unsigned int rwsem_nr_waiters(struct rw_semaphore *s);
/* Task @t is queued for @s now (a test's controller sees it blocked). */
bool rwsem_is_waiting(struct rw_semaphore *s, struct task *t);

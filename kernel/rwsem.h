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
 * Entering a free (or, for a reader, read-held) semaphore nobody waits
 * for is one compare-and-swap of the count word (below), and leaving one
 * nobody waits for is one atomic operation; wait_lock is taken only when
 * a task has to wait or wake another.
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

/*
 * The count word: RWSEM_WRITER (bit 0) while a writer is inside,
 * RWSEM_WAITERS (bit 1) while a task is queued, and RWSEM_READER for
 * each reader inside (the bits above). Its changes:
 *   enter   a reader adds RWSEM_READER, a writer sets RWSEM_WRITER on 0,
 *           by compare-and-swap, acquire, only while RWSEM_WAITERS is
 *           clear (and no writer inside): the fast path
 *   leave   a reader subtracts RWSEM_READER (one atomic add, release); a
 *           writer swaps RWSEM_WRITER for 0 (compare-and-swap, release),
 *           which fails when RWSEM_WAITERS is set: then the slow unlock
 *   queue   a locker about to queue sets RWSEM_WAITERS (compare-and-swap)
 *           under wait_lock, and queues itself before dropping it
 *   grant   under wait_lock, the holders added for the head waiters
 *           (atomic add), RWSEM_WAITERS cleared when the queue empties
 * While RWSEM_WAITERS is set nobody enters past the queue: only a grant
 * lets tasks in, and a leave that empties the lock (a reader's that
 * leaves the count at RWSEM_WAITERS, a writer's failed compare-and-swap)
 * takes wait_lock and grants.
 */
#define RWSEM_WRITER  1L
#define RWSEM_WAITERS 2L
#define RWSEM_READER  4L

struct rw_semaphore {
	long count; /* above; atomic */
	/* the writer inside, or NULL: stored by the writer after it
	 * entered (by the granter for a writer it let in) and cleared
	 * before it leaves; read by assertions and tests */
	struct task *writer;
	uintptr_t writer_site;
	struct spinlock wait_lock;
	struct list_head waiters; /* protected by wait_lock */
	uint32_t spin_ns;	  /* kernel/mutex.h; 0: never spin */
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

/*
 * kernel/rwsem.h: reader/writer semaphores.
 *
 * Many readers or one writer. Waiters are served in FIFO order, and a
 * waiting writer stops new readers from entering, so a stream of readers
 * cannot starve a writer. downgrade_write turns the writer into a reader
 * and lets the readers queued behind it in. Not for interrupt context.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/spinlock.h>
#include <kernel/list.h>
#include <kernel/lockdep.h>

struct task;

struct rw_semaphore {
	struct spinlock wait_lock;
	/* protected by wait_lock: */
	long readers;	     /* active readers */
	struct task *writer; /* active writer, or NULL */
	uintptr_t writer_site;
	struct list_head waiters;
	struct lockdep_map dep;
};

#define RWSEM_INIT(lname)                                    \
	{                                                    \
		.wait_lock = SPINLOCK_INIT(lname.wait_lock), \
		.waiters = LIST_HEAD_INIT(lname.waiters),    \
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

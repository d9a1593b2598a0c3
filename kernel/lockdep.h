/*
 * kernel/lockdep.h: lock debugging, lite.
 *
 * Every lock embeds a struct lockdep_map naming its class. A class carries a
 * rank from docs/design.md's lock order; a task may only acquire a ranked lock
 * whose rank is greater than the rank of every ranked lock it holds. An
 * acquisition out of order is reported once per pair of classes, with both
 * acquisition sites, and the kernel goes on (WARN, not panic).
 *
 * Each task keeps a stack of the locks it holds (lock, mode, site), which
 * also answers lockdep_assert_held*() for any kind of lock; each entry
 * keeps the highest rank up to it (held_lock.top), so a lock ranked above
 * the top entry's, the usual case, is in order without a walk of the
 * stack, and releasing the top entry costs no walk either. Spinlocks taken in
 * interrupt context are not tracked (no task owns them).
 *
 * Without CONFIG_LOCKDEP (kernel/compiler.h; the production build) none of
 * that is done: a task only counts the locks it took (lockdep_acquired)
 * and the locks it holds (lockdep_task.depth, which reclaim asks:
 * mm/vmscan.c), lockdep_is_held() cannot tell and says true, the
 * lockdep_assert_*() check nothing and nothing is ever reported.
 *
 * The documented order (outermost first; see docs/design.md):
 *   inode->i_rwsem                 LOCK_RANK_I_RWSEM
 *     mm->mmap_lock                LOCK_RANK_MMAP
 *       mapping->invalidate_lock   LOCK_RANK_INVALIDATE
 *         page lock                LOCK_RANK_PAGE
 *           mapping->i_mmap lock   LOCK_RANK_I_MMAP
 *             fs block-map locks   LOCK_RANK_FS_BLOCKMAP
 *               spinlocks          LOCK_RANK_SPIN and above
 */
#pragma once

#include <kernel/compiler.h>

enum lock_rank {
	LOCK_RANK_NONE = 0, /* not ordered: never checked */
	LOCK_RANK_I_RWSEM = 10,
	LOCK_RANK_MMAP = 20,
	LOCK_RANK_INVALIDATE = 30,
	LOCK_RANK_PAGE = 40,
	LOCK_RANK_I_MMAP = 50,
	LOCK_RANK_FS_BLOCKMAP = 60,
	LOCK_RANK_SPIN = 100,
};

enum lock_mode {
	LOCK_MODE_EXCLUSIVE = 1,
	LOCK_MODE_SHARED = 2,
	LOCK_MODE_ANY = 3,
};

/* Acquisitions of a lock or of every lock of a class (rwsems count them;
 * `lockstat` prints them). Atomic counters. */
struct lock_stats {
	unsigned long shared, exclusive;
	unsigned long contended; /* had to wait, or a trylock failed */
};

struct lock_class {
	const char *name;
	int rank;
	struct lock_stats stats;
	/* kernel/trace.h: nonzero for a traced rwsem class (TRACE_LOCK_*),
	 * and the object its events name (an inode number) */
	unsigned int trace_kind;
	uint64_t (*trace_obj)(const void *lock);
};

#define DEFINE_LOCK_CLASS(var, rank_) \
	struct lock_class var = { .name = #var, .rank = (rank_) }
/* A class whose rwsems' waits, acquisitions and releases go to the trace. */
#define DEFINE_TRACED_LOCK_CLASS(var, rank_, kind, obj) \
	struct lock_class var = { .name = #var,         \
				  .rank = (rank_),      \
				  .trace_kind = (kind), \
				  .trace_obj = (obj) }

struct lockdep_map {
	struct lock_class *class; /* NULL: unranked */
	const char *name;
};

struct held_lock {
	const struct lockdep_map *map;
	uintptr_t site;
	enum lock_mode mode;
	unsigned int subclass;
	int top; /* the highest rank of this entry and those below it */
};

#define LOCKDEP_MAX_HELD 24

/* Per-task state, embedded in struct task. */
struct lockdep_task {
	unsigned long acquired; /* every lock this task took, ever */
	/* held[]'s entries; without CONFIG_LOCKDEP, the locks held */
	unsigned int depth;
	unsigned int untracked; /* acquired past LOCKDEP_MAX_HELD */
	struct held_lock held[LOCKDEP_MAX_HELD];
};

/* The running task's state, or NULL where no task owns the context. */
struct lockdep_task *lockdep_current(void);

/* lockdep_acquire(map, mode, subclass, site) and lockdep_release(map)
 * are inline in kernel/sched.h, where the running task is known: with
 * CONFIG_LOCKDEP they call these, without it they only count. */
void lockdep_acquire_tracked(const struct lockdep_map *map,
			     enum lock_mode mode,
			     unsigned int subclass,
			     uintptr_t site);
void lockdep_release_tracked(const struct lockdep_map *map);
/* How many locks (spinlocks, raw ones too, mutexes, rwsems) the running
 * task has taken since it started, the run queue's taken to preempt it
 * apart: benchmarks read it before and after. */
unsigned long lockdep_acquired(void);
/* An exclusive hold became shared (downgrade_write). */
void lockdep_downgrade(const struct lockdep_map *map);
bool lockdep_is_held(const struct lockdep_map *map, enum lock_mode mode);
void lockdep_set_class(struct lockdep_map *map, struct lock_class *class);
/* About to touch memory that may fault (a copy to or from a task's
 * buffer, which may be a file mapping): checked as an acquisition of
 * mm->mmap_lock, so holding invalidate_lock or a page lock here is
 * reported like any order violation. */
#define might_fault()                                  \
	do {                                           \
		if (IS_ENABLED(CONFIG_LOCKDEP))        \
			lockdep_might_fault(({         \
				__label__ __here;      \
			__here:                        \
				(uintptr_t) && __here; \
			}));                           \
	} while (0)
void lockdep_might_fault(uintptr_t site);
/* Order violations, and releases of locks the task did not hold,
 * reported since boot (tests read it). */
unsigned long lockdep_reports(void);

#define __lockdep_assert(held, l, mode)            \
	WARN_ON_ONCE(IS_ENABLED(CONFIG_LOCKDEP) && \
		     lockdep_is_held(&(l)->dep, (mode)) != (held))
#define lockdep_assert_held(l) __lockdep_assert(true, l, LOCK_MODE_ANY)
#define lockdep_assert_held_write(l) \
	__lockdep_assert(true, l, LOCK_MODE_EXCLUSIVE)
#define lockdep_assert_held_read(l) __lockdep_assert(true, l, LOCK_MODE_SHARED)
#define lockdep_assert_not_held(l)  __lockdep_assert(false, l, LOCK_MODE_ANY)

#define _THIS_IP_ ((uintptr_t)__builtin_return_address(0))

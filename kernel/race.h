/*
 * kernel/race.h: race points - named places where a test can hold a path
 * to force the interleaving it claims.
 *
 *   race_point(RACE_COMPLETE_WAKE, c);         // in the code under test
 *   race_hook_set(RACE_COMPLETE_WAKE, fn);     // in the test; NULL clears
 *
 * With no hook set a race point is one load and a not-taken branch. A hook
 * runs where the point is, with the locks that code holds (each point says
 * which), so it must not sleep where that code may not. Hooks are for
 * tests only: a test sets one, forces its case and clears it again.
 */
#pragma once

#include <kernel/compiler.h>

enum race_id {
	/* kernel/sched.c finish_switch: a dead task's last switch is done,
	 * its own reference dropped, its joiners not woken yet. IRQs off,
	 * the task's exited wait-queue lock held. */
	RACE_TASK_EXIT_WAKE,
	/* kernel/wait.c complete(): done counted, waiters not woken yet.
	 * The completion's wait-queue lock is held (irqs off). */
	RACE_COMPLETE_WAKE,
	/* fs/ext2/buffer.c ext2_bwrite: a dirty buffer's flag is cleared,
	 * its write not started. The buffer's b_io_lock is held. */
	RACE_BUF_WRITE,
	/* fs/path.c path_lookup_at(LOOKUP_PARENT): the parent directory is
	 * found and referenced, not locked. No lock held. */
	RACE_LOOKUP_PARENT,
	/* fs/namei.c rename: both parents, the moved inode and the victim
	 * are locked; the filesystem's rename is not called yet. */
	RACE_RENAME_LOCKED,
	NR_RACE_POINTS,
};

typedef void race_fn(void *obj);

extern race_fn *race_hooks[NR_RACE_POINTS];

static inline void race_point(enum race_id id, void *obj)
{
	race_fn *fn = READ_ONCE(race_hooks[id]);

	if (unlikely(fn))
		fn(obj);
}

static inline void race_hook_set(enum race_id id, race_fn *fn)
{
	__atomic_store_n(&race_hooks[id], fn, __ATOMIC_SEQ_CST);
}

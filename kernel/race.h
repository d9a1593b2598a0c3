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
 *
 * Gates are a hook that stops a task until the test lets it go, for the
 * points where the code may sleep (the page-cache ones, tests/race*.c):
 *   race_arm(RACE_INVAL_DROPPED);          // the next task there stops
 *   ... start task A (truncate) ...
 *   race_wait(RACE_INVAL_DROPPED, NULL, NULL); // until A stopped there
 *   ... let task B run; wait for it at another point, or for B blocked ...
 *   race_release(RACE_INVAL_DROPPED);      // A goes on
 * A gate stops one task (any, or the one named), once; others pass it.
 * race_wait polls a second condition (e.g. "B waits for the lock") that
 * has no wake-up of its own; the schedule never depends on how long
 * anything sleeps.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/trace.h>

enum race_id {
/* Each point's place and what is held there: kernel/race_points.def, the
 * one list the SPIN model (docs/model/) takes its labels from too. */
#define RACE_POINT_DEF(name, where) name,
#include <kernel/race_points.def>
#undef RACE_POINT_DEF
	NR_RACE_POINTS,
};

typedef void race_fn(void *obj);

extern race_fn *race_hooks[NR_RACE_POINTS];

static inline void race_point(enum race_id id, void *obj)
{
	race_fn *fn = READ_ONCE(race_hooks[id]);

	trace_event(TRACE_RACE, id, 0);
	if (unlikely(fn))
		fn(obj);
}

static inline void race_hook_set(enum race_id id, race_fn *fn)
{
	__atomic_store_n(&race_hooks[id], fn, __ATOMIC_SEQ_CST);
}

#define RACE_TIMEOUT_MS 30000

struct task;
/* Gates, for RACE_FILL_START .. RACE_LOCK_TWO_FIRST,
 * RACE_INODES_TWO_FIRST, RACE_READ_COPY, RACE_FILL_INSERTED,
 * RACE_ALLOC_LINKED, RACE_RA_WORKER, RACE_WB_MAPPED, RACE_RECLAIM_CHOSEN,
 * RACE_WRITE_COPY, RACE_INVAL_FREED, RACE_INVAL_UNLOCK and
 * RACE_FAULT_PAGE_FOUND (points that may sleep).
 * race_arm_for stops only task @only; race_arm_for_obj only a task that
 * passes with @obj (the point's object: a page, an inode), @only if set. */
void race_arm(enum race_id id);
void race_arm_for(enum race_id id, struct task *only);
void race_arm_for_obj(enum race_id id, struct task *only, void *obj);
/* Return: 1 if a task stopped at @id, 0 if @cond(@arg) became true
 * first, -ETIMEDOUT after RACE_TIMEOUT_MS (a test failure, never a
 * schedule). */
int race_wait(enum race_id id, bool (*cond)(void *), void *arg);
/* Wait until @cond(@arg) (e.g. a task waits for a lock). Return: 0, or
 * -ETIMEDOUT after RACE_TIMEOUT_MS. */
int race_wait_until(bool (*cond)(void *), void *arg);
/* Let the stopped task go on (or disarm a gate nobody reached). */
void race_release(enum race_id id);

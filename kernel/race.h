/*
 * kernel/race.h: named race points - reproducers force an interleaving
 * instead of hoping for one.
 *
 * In the code, a point costs one load and a branch while no test armed it:
 *   RACE_POINT(RP_INVAL_DROPPED);
 * In a test (tests/race_*.c):
 *   race_arm(RP_INVAL_DROPPED);            // the next task there stops
 *   ... start task A (truncate) ...
 *   race_wait(RP_INVAL_DROPPED, NULL, NULL); // until A stopped there
 *   ... let task B run; wait for it at another point, or for B blocked ...
 *   race_release(RP_INVAL_DROPPED);        // A goes on
 * A gate stops one task (any, or the one named), once; others pass it.
 * race_wait polls a second condition (e.g. "B waits for the lock") that has no
 * wake-up of its own; the schedule never depends on how long anything sleeps.
 */
#pragma once

#include <kernel/compiler.h>

enum race_point {
	RP_FILL_START,	   /* fill: i_size sampled, lock not yet taken */
	RP_FILL_MAPPED,	   /* fill: page inserted, block mapped, read not
			      yet submitted */
	RP_INVAL_DROPPED,  /* invalidation: page cache dropped, blocks not
			      yet freed */
	RP_LOCK_TWO_FIRST, /* lock_two: the first mapping locked, not the
			      second */
	RP_NR,
};

extern unsigned long race_armed; /* one bit per armed point */

void race_point_reached(enum race_point rp);

#define RACE_POINT(rp)                                                        \
	do {                                                                  \
		if (unlikely(__atomic_load_n(&race_armed, __ATOMIC_RELAXED) & \
			     (1UL << (rp))))                                  \
			race_point_reached(rp);                               \
	} while (0)

#define RACE_TIMEOUT_MS 30000

void race_arm(enum race_point rp);
struct task;
/* The same for task @only; others pass. */
void race_arm_for(enum race_point rp, struct task *only);
/* Return: 1 if a task stopped at @rp, 0 if @cond(@arg) became true
 * first, -ETIMEDOUT after RACE_TIMEOUT_MS (a test failure, never a
 * schedule). */
int race_wait(enum race_point rp, bool (*cond)(void *), void *arg);
/* Wait until @cond(@arg) (e.g. a task waits for a lock). Return: 0, or
 * -ETIMEDOUT after RACE_TIMEOUT_MS. */
int race_wait_until(bool (*cond)(void *), void *arg);
/* Let the stopped task go on (or disarm a gate nobody reached). */
void race_release(enum race_point rp);
const char *race_point_name(enum race_point rp);

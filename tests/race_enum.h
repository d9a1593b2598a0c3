/*
 * tests/race_enum.h: the controller of the interleaving enumerators
 * (tests/race_enum_ctl.c), shared by race_enum (an operation against a
 * fill, tests/race_enum.c) and race_enum_wb (an operation against a task
 * that writes back or reclaims, tests/race_enum_wb.c).
 *
 * Two tasks, A and B, are enrolled (enum_start). Each stops at every
 * race point the controller watches and goes on only when it is let go:
 *   A: its start, RACE_INVAL_DROPPED, RACE_INVAL_FREED, RACE_INVAL_UNLOCK;
 *   B: its start, RACE_FILL_START, RACE_FILL_INSERTED, RACE_FILL_MAPPED;
 *      with ENUM_THIRD also RACE_WB_MAPPED (a write-back of F's inode:
 *      blocks mapped, bio not submitted) and RACE_RECLAIM_CHOSEN (F's
 *      page RACE_VICTIM chosen by reclaim, not locked).
 * A task that sleeps on a lock instead (ENUM_BLOCKED_MS asleep away from
 * any point, or queued for F's invalidate_lock) is blocked until the
 * other lets go. Where both wait at points, the schedule's next pick says
 * which goes first: enum_drive runs one schedule, enum_next moves a
 * depth-first search over the picks to the next one (stateless model
 * checking: each schedule is replayed from a fresh F by the caller).
 *
 * Locking: the controller's state is under its own spinlock; one
 * enumeration runs at a time (the suites run one after another).
 */
#pragma once

#include <stdbool.h>
#include <mm/filemap.h>

#define ENUM_BOUND	   12  /* branching picks per schedule */
#define ENUM_MAX_SCHEDULES 256 /* per pair: more is a bug in the search */

enum { ROLE_A, ROLE_B, NR_ROLES };

/* Which points B stops at. */
enum enum_watch {
	ENUM_FILL,  /* the fill points */
	ENUM_THIRD, /* the fill points, and writeback's and reclaim's */
};

struct enum_search {
	int pick[ENUM_BOUND]; /* this schedule's choices (0: A first) */
	int npicks;	      /* branching points met */
	int prefix;	      /* choices forced from the last schedule */
	bool deep;	      /* more branching points than the bound */
	int b_first; /* 1: try B first at each pick (a search that stops at
		      * the first failure finds it sooner) */
};

/* A task's work and its result. */
struct enum_body {
	int role;
	int (*fn)(void *);
	void *arg;
	int ret;
};

/* A fresh schedule on F (@m): no task enrolled, empty log, the hooks on. */
void enum_begin(struct address_space *m, enum enum_watch watch);
/* @t (a kernel task, such as the readahead worker) stops at @role's
 * points too, as if it were that role's task; the role's task waits for
 * it, so that the role ends after it. Call after enum_begin. */
void enum_enrol_helper(int role, struct task *t);
/* Start @b's task @name on hart @cpu (modulo the harts online), enrolled
 * as @b->role: it stops at its start first. */
struct task *enum_start(struct enum_body *b, const char *name, int cpu);
/*
 * Let the enrolled tasks go, one at a time, along @s's picks until both
 * end. Return: false if they did not (a task never reached a point or
 * ended within the timeout): both are then let go, and the hooks are off.
 */
bool enum_drive(struct enum_search *s);
/* The schedule just run: "B.FILL_START A.INVAL_DROPPED ... A.end". */
const char *enum_log(void);
/* Move @s to the next schedule. Return: false when every one was run. */
bool enum_next(struct enum_search *s);

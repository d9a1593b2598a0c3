/*
 * tests/race_enum_ctl.c: the controller of race_enum and race_enum_wb
 * (tests/race_enum.h): it enrols two tasks, stops them at race points and
 * lets them go one at a time along a schedule's picks.
 *
 * Locking: en.lock (a leaf spinlock) guards en; tasks sleep on en.wq
 * until the controller lets them go. A hook that stops a task runs where
 * the kernel passes the point, so it may sleep there: every point it
 * watches is one where the kernel may (tests/race.h).
 */
#include <string.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <fs/vfs.h>
#include "race.h"
#include "race_enum.h"

#define ENUM_BLOCKED_MS 30
#define ENUM_TIMEOUT_MS 20000
#define ENUM_LOG	200

enum { ENUM_RUNNING = -1, ENUM_DONE = -2, ENUM_START = NR_RACE_POINTS };

static const char *const point_names[] = {
	[RACE_FILL_START] = "FILL_START",
	[RACE_FILL_INSERTED] = "FILL_INSERTED",
	[RACE_FILL_MAPPED] = "FILL_MAPPED",
	[RACE_INVAL_DROPPED] = "INVAL_DROPPED",
	[RACE_INVAL_FREED] = "INVAL_FREED",
	[RACE_INVAL_UNLOCK] = "INVAL_UNLOCK",
	[RACE_WB_MAPPED] = "WB_MAPPED",
	[RACE_RECLAIM_CHOSEN] = "RECLAIM_CHOSEN",
};

/* The controller's view; en.lock guards it, tasks sleep on en.wq. */
static struct {
	struct spinlock lock;
	struct wait_queue_head wq;
	struct task *task[NR_ROLES];
	struct task *helper[NR_ROLES]; /* stops at the role's points too */
	struct address_space *m;       /* F's */
	int at[NR_ROLES];	  /* a point it waits at, or RUNNING/DONE */
	bool go[NR_ROLES];	  /* let it go on */
	uint64_t since[NR_ROLES]; /* when it stopped at its point */
	char log[ENUM_LOG];	  /* the schedule: "B.FILL_START A.end ..." */
	size_t len;
	bool chosen; /* reclaim chose F's page once in this schedule */
	enum enum_watch watch; /* the points whose hooks are on */
} en = { .lock = SPINLOCK_INIT(en.lock), .wq = WAIT_QUEUE_HEAD_INIT(en.wq) };

static void log_event(int role, const char *what)
{
	int n = snprintf(en.log + en.len,
			 sizeof(en.log) - en.len,
			 "%s%c.%s",
			 en.len ? " " : "",
			 role == ROLE_A ? 'A' : 'B',
			 what);

	if (n > 0)
		en.len = MIN(en.len + n, sizeof(en.log) - 1);
}

static int role_of(struct task *t)
{
	for (int r = 0; r < NR_ROLES; r++)
		if (READ_ONCE(en.task[r]) == t || READ_ONCE(en.helper[r]) == t)
			return r;
	return -1;
}

/* A point: task @r (enrolled) stops until the controller lets it go. */
static void stop_role_at(int r, int point)
{
	spin_lock(&en.lock);
	if (point != ENUM_START)
		log_event(r, point_names[point]);
	en.at[r] = point;
	en.since[r] = time_ns();
	spin_unlock(&en.lock);
	wake_up_all(&en.wq);
	wait_event(&en.wq, READ_ONCE(en.go[r]));
	spin_lock(&en.lock);
	en.go[r] = false;
	spin_unlock(&en.lock);
}

static void stop_at(int point)
{
	int r = role_of(current_task());

	if (r >= 0)
		stop_role_at(r, point);
}

/* A hook knows its object, not its point: one per point. */
#define ENUM_HOOK(point)                  \
	static void at_##point(void *obj) \
	{                                 \
		(void)obj;                \
		stop_at(point);           \
	}
ENUM_HOOK(RACE_FILL_START)
ENUM_HOOK(RACE_FILL_INSERTED)
ENUM_HOOK(RACE_FILL_MAPPED)
ENUM_HOOK(RACE_INVAL_DROPPED)
ENUM_HOOK(RACE_INVAL_FREED)
ENUM_HOOK(RACE_INVAL_UNLOCK)

/* The third party's points stop B only, and only for F: A's own
 * write-back (collapse and insert write the range back first) is part of
 * A, and the pages of other files are not the race. */
static void at_RACE_WB_MAPPED(void *inode)
{
	if (role_of(current_task()) == ROLE_B && en.m && inode == en.m->host)
		stop_role_at(ROLE_B, RACE_WB_MAPPED);
}

/* Reclaim's first choice of F's page only: a page it cannot free yet
 * (locked, under writeback) comes round again in the same scan, and each
 * round would be one more point of the same kind. */
static void at_RACE_RECLAIM_CHOSEN(void *obj)
{
	struct page *page = obj;

	/* reclaim holds a reference: the page is not freed under us */
	if (role_of(current_task()) == ROLE_B && en.m && !en.chosen &&
	    READ_ONCE(page->mapping) == en.m &&
	    READ_ONCE(page->index) == RACE_VICTIM) {
		en.chosen = true;
		stop_role_at(ROLE_B, RACE_RECLAIM_CHOSEN);
	}
}

static const struct {
	enum race_id point;
	race_fn *hook;
	enum enum_watch from; /* watched from this kind of pair on */
} enum_points[] = {
	{ RACE_FILL_START, at_RACE_FILL_START, ENUM_FILL },
	{ RACE_FILL_INSERTED, at_RACE_FILL_INSERTED, ENUM_FILL },
	{ RACE_FILL_MAPPED, at_RACE_FILL_MAPPED, ENUM_FILL },
	{ RACE_INVAL_DROPPED, at_RACE_INVAL_DROPPED, ENUM_FILL },
	{ RACE_INVAL_FREED, at_RACE_INVAL_FREED, ENUM_FILL },
	{ RACE_INVAL_UNLOCK, at_RACE_INVAL_UNLOCK, ENUM_FILL },
	{ RACE_WB_MAPPED, at_RACE_WB_MAPPED, ENUM_THIRD },
	{ RACE_RECLAIM_CHOSEN, at_RACE_RECLAIM_CHOSEN, ENUM_THIRD },
};

static void set_hooks(bool on, enum enum_watch watch)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(enum_points); i++)
		if (enum_points[i].from <= watch)
			race_hook_set(enum_points[i].point,
				      on ? enum_points[i].hook : NULL);
}

static int enrolled(void *arg)
{
	struct enum_body *b = arg;

	WRITE_ONCE(en.task[b->role], current_task());
	stop_at(ENUM_START);
	b->ret = b->fn(b->arg);
	spin_lock(&en.lock);
	log_event(b->role, "end");
	en.at[b->role] = ENUM_DONE;
	spin_unlock(&en.lock);
	wake_up_all(&en.wq);
	return 0;
}

void enum_begin(struct address_space *m, enum enum_watch watch)
{
	memset(&en.task, 0, sizeof(en.task));
	memset(&en.helper, 0, sizeof(en.helper));
	en.m = m;
	en.len = 0;
	en.log[0] = 0;
	en.chosen = false;
	for (int r = 0; r < NR_ROLES; r++) {
		en.at[r] = ENUM_RUNNING;
		en.go[r] = false;
		en.since[r] = time_ns();
	}
	en.watch = watch;
	set_hooks(true, watch);
}

void enum_enrol_helper(int role, struct task *t)
{
	WRITE_ONCE(en.helper[role], t);
}

struct task *enum_start(struct enum_body *b, const char *name, int cpu)
{
	return task_create_on(name, enrolled, b, cpu % (int)ncpus);
}

const char *enum_log(void)
{
	return en.log;
}

/* Waiting for a lock the other task holds: queued for F's
 * invalidate_lock (it or its helper), or asleep long enough away from
 * any point (a page lock; a page read sleeps too, but ends within
 * milliseconds; a task that waits for its helper sleeps as long as the
 * helper is blocked). */
static bool blocked(int r)
{
	struct task *t = READ_ONCE(en.task[r]);

	if (en.at[r] != ENUM_RUNNING || !t ||
	    READ_ONCE(t->state) != TASK_SLEEPING)
		return false;
	if (en.m && (rwsem_is_waiting(&en.m->invalidate_lock, t) ||
		     (en.helper[r] &&
		      rwsem_is_waiting(&en.m->invalidate_lock, en.helper[r]))))
		return true;
	return time_ns() - en.since[r] > ENUM_BLOCKED_MS * NSEC_PER_MSEC;
}

/* Something moved: a task reached a point or ended. */
static bool moved(void *arg)
{
	int *seen = arg;

	return READ_ONCE(en.at[ROLE_A]) != seen[ROLE_A] ||
	       READ_ONCE(en.at[ROLE_B]) != seen[ROLE_B];
}

/* Every task at a point, done or blocked. Return: false on timeout. */
static bool quiescent(void)
{
	uint64_t end = time_ns() + ENUM_TIMEOUT_MS * NSEC_PER_MSEC;

	for (;;) {
		bool still = true;

		spin_lock(&en.lock);
		for (int r = 0; r < NR_ROLES; r++) {
			struct task *task = READ_ONCE(en.task[r]);

			/* killed (a bus error past EOF): it will not end */
			if (en.at[r] == ENUM_RUNNING && task &&
			    READ_ONCE(task->state) == TASK_DEAD) {
				log_event(r, "killed");
				en.at[r] = ENUM_DONE;
			}
			if (en.at[r] == ENUM_RUNNING && !blocked(r))
				still = false;
		}
		spin_unlock(&en.lock);
		if (still)
			return true;
		if (time_ns() > end)
			return false;
		wait_event_timeout(&en.wq, false, NSEC_PER_MSEC);
	}
}

static void let_go(int r)
{
	spin_lock(&en.lock);
	en.go[r] = true;
	en.at[r] = ENUM_RUNNING; /* at once: the next look must not see it
				  * waiting where it was */
	en.since[r] = time_ns(); /* blocked() measures from here */
	spin_unlock(&en.lock);
	wake_up_all(&en.wq);
}

bool enum_drive(struct enum_search *s)
{
	bool ended;

	s->npicks = 0;
	while (quiescent()) {
		int waiting[NR_ROLES], n = 0, r;

		for (r = 0; r < NR_ROLES; r++)
			if (en.at[r] >= 0)
				waiting[n++] = r;
		if (!n) {
			int seen[NR_ROLES] = { en.at[ROLE_A], en.at[ROLE_B] };

			if (seen[ROLE_A] == ENUM_DONE &&
			    seen[ROLE_B] == ENUM_DONE)
				break;
			/* One asleep (a read in flight), none to let go:
			 * wait for it to move; forever would be a deadlock. */
			if (!wait_event_timeout(&en.wq,
						moved(seen),
						ENUM_TIMEOUT_MS *
						    NSEC_PER_MSEC))
				break;
			continue;
		}
		if (n == 1) {
			let_go(waiting[0]);
			continue;
		}
		if (s->npicks < ENUM_BOUND) {
			if (s->npicks >= s->prefix)
				s->pick[s->npicks] = 0;
			r = waiting[s->pick[s->npicks++] ^ s->b_first];
		} else {
			s->deep = true;
			r = en.since[0] <= en.since[1] ? 0 : 1;
		}
		let_go(r);
	}
	ended = en.at[ROLE_A] == ENUM_DONE && en.at[ROLE_B] == ENUM_DONE;
	set_hooks(false, en.watch);
	if (!ended) /* let everything go: the boot reports the rest */
		for (int r = 0; r < NR_ROLES; r++)
			let_go(r);
	return ended;
}

bool enum_next(struct enum_search *s)
{
	/* The deepest pick with an untried option (two tasks: pick 0 then
	 * 1), the rest fresh. */
	while (s->npicks > 0 && s->pick[s->npicks - 1] == 1)
		s->npicks--;
	if (!s->npicks)
		return false;
	s->pick[s->npicks - 1] = 1;
	s->prefix = s->npicks;
	return true;
}

/*
 * tests/race_enum.c: suite race_enum - every interleaving of the race
 * points, not one chosen schedule.
 *
 * For each invalidating operation (punch, zero, collapse, insert,
 * truncate: one case each) and each fill path of tests/race.h but the
 * NOWAIT read (its fill is a plain read; its own check needs the forced
 * schedule) and the readahead worker's (the same readahead, run by a task
 * that is neither A nor B), the two tasks A (the operation) and B (the fill)
 * run under a controller. Each stops at every race point it passes - its start,
 * RACE_FILL_START, RACE_FILL_MAPPED, RACE_INVAL_DROPPED - and only goes on
 * when the controller lets it; a task that sleeps on a lock instead (30 ms
 * asleep without reaching a point) is blocked until the other lets go.
 * Where both wait at points, the controller picks one: every schedule is
 * a sequence of such picks, and a depth-first search over them runs each
 * one from a fresh F (stateless model checking: replay, not restore).
 * Bound: the first ENUM_BOUND picks of a schedule branch; past them the
 * one waiting longest goes first (no case here needs more: the log says
 * when one did).
 *
 * After each schedule the model's invariant (docs/model/) is checked: no
 * page of F holds data of a freed block (op->observe: page RACE_VICTIM
 * holds what the operation's rule says, not F's old bytes, G's or
 * poison), no page came back into a range the operation invalidated
 * (filemap_invalidate_leftovers), and G, written last into the freed
 * blocks, reads back whole. The fixed kernel must pass every schedule;
 * legacy mode must fail some for each pair, and prints each failing one
 * ("race_enum: OP x FILL: fails: B.FILL_START A.INVAL_DROPPED ..."), for
 * tools/boots.py to compare with the interleaving SPIN reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <fs/ext2/ext2.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "race.h"

#define ENUM_BOUND	   8  /* branching picks per schedule */
#define ENUM_MAX_SCHEDULES 64 /* per pair: more is a bug in the search */
#define ENUM_BLOCKED_MS	   30
#define ENUM_TIMEOUT_MS	   20000
#define ENUM_LOG	   160

enum { ENUM_RUNNING = -1, ENUM_DONE = -2, ENUM_START = NR_RACE_POINTS };
enum { ROLE_A, ROLE_B, NR_ROLES };

static const char *const point_names[] = {
	[RACE_FILL_START] = "FILL_START",
	[RACE_FILL_MAPPED] = "FILL_MAPPED",
	[RACE_INVAL_DROPPED] = "INVAL_DROPPED",
};

/* The controller's view; en.lock guards it, tasks sleep on en.wq. */
static struct {
	struct spinlock lock;
	struct wait_queue_head wq;
	struct task *task[NR_ROLES];
	int at[NR_ROLES];	  /* a point it waits at, or RUNNING/DONE */
	bool go[NR_ROLES];	  /* let it go on */
	uint64_t since[NR_ROLES]; /* when it stopped at its point */
	char log[ENUM_LOG];	  /* the schedule: "B.FILL_START A.end ..." */
	size_t len;
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
		if (READ_ONCE(en.task[r]) == t)
			return r;
	return -1;
}

/* A point: an enrolled task stops until the controller lets it go. */
static void stop_at(int point)
{
	int r = role_of(current_task());

	if (r < 0)
		return;
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

static void at_fill_start(void *obj)
{
	(void)obj;
	stop_at(RACE_FILL_START);
}

static void at_fill_mapped(void *obj)
{
	(void)obj;
	stop_at(RACE_FILL_MAPPED);
}

static void at_inval_dropped(void *obj)
{
	(void)obj;
	stop_at(RACE_INVAL_DROPPED);
}

struct body {
	int role;
	int (*fn)(void *);
	void *arg;
	int ret;
};

static int enrolled(void *arg)
{
	struct body *b = arg;

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

static int run_op(void *arg)
{
	return ((const struct race_op *)arg)->run();
}

/* Asleep long enough away from any point: waiting for a lock the other
 * task holds. (A page read sleeps too, but ends within milliseconds.) */
static bool blocked(int r)
{
	struct task *t = READ_ONCE(en.task[r]);

	return en.at[r] == ENUM_RUNNING && t &&
	       READ_ONCE(t->state) == TASK_SLEEPING &&
	       time_ns() - en.since[r] > ENUM_BLOCKED_MS * NSEC_PER_MSEC;
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

struct search {
	int pick[ENUM_BOUND]; /* this schedule's choices (0: A first) */
	int npicks;	      /* branching points met */
	int prefix;	      /* choices forced from the last schedule */
	bool deep;	      /* more branching points than the bound */
};

/* Run one schedule; return the failure's description, or NULL. */
static const char *run_schedule(struct ktest *t,
				const struct race_op *op,
				enum fill_kind kind,
				struct search *s,
				bool *timed_out)
{
	struct race_case rc = { .kind = kind, .store = op->victim_after };
	unsigned long leftovers = filemap_invalidate_leftovers();
	struct body a = { ROLE_A, run_op, (void *)op, 0 };
	struct body b = { ROLE_B, race_filler, &rc, 0 };
	struct task *ta, *tb;
	const char *bug = NULL;
	struct file *f;
	int code;

	*timed_out = false;
	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	rc.m = f->f_mapping;
	rc.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, rc.buf);
	race_setup_kind(&rc);
	ext2_debug_reuse_freed(f->f_inode->i_sb, true);
	memset(&en.task, 0, sizeof(en.task));
	en.len = 0;
	en.log[0] = 0;
	for (int r = 0; r < NR_ROLES; r++) {
		en.at[r] = ENUM_RUNNING;
		en.go[r] = false;
		en.since[r] = time_ns();
	}
	race_hook_set(RACE_FILL_START, at_fill_start);
	race_hook_set(RACE_FILL_MAPPED, at_fill_mapped);
	race_hook_set(RACE_INVAL_DROPPED, at_inval_dropped);
	ta = task_create_on(op->name, enrolled, &a, 1);
	tb = task_create_on("filler", enrolled, &b, 2 % ncpus);
	KTEST_ASSERT_FALSE(t, IS_ERR(ta));
	KTEST_ASSERT_FALSE(t, IS_ERR(tb));
	rc.filler = tb;
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
			r = waiting[s->pick[s->npicks++]];
		} else {
			s->deep = true;
			r = en.since[0] <= en.since[1] ? 0 : 1;
		}
		let_go(r);
	}
	if (en.at[ROLE_A] != ENUM_DONE || en.at[ROLE_B] != ENUM_DONE)
		*timed_out = true;
	race_hook_set(RACE_FILL_START, NULL);
	race_hook_set(RACE_FILL_MAPPED, NULL);
	race_hook_set(RACE_INVAL_DROPPED, NULL);
	if (*timed_out) { /* let everything go: the boot reports the rest */
		for (int r = 0; r < NR_ROLES; r++)
			let_go(r);
	}
	task_join(ta);
	code = task_join(tb);
	if (rc.map)
		munmap(rc.map, RACE_NPAGES * PAGE_SIZE);
	/* A fault after the truncate ends B (SIGBUS); one before it not. */
	KTEST_EXPECT_TRUE(t,
			  code == 0 ||
			      ((kind == FILL_FAULT || kind == FILL_MKWRITE) &&
			       code == TASK_EXIT_KILLED));
	KTEST_EXPECT_EQ(t, a.ret, 0);
	KTEST_EXPECT_EQ(
	    t, race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES), 0);
	ext2_debug_reuse_freed(f->f_inode->i_sb, false);
	bug = op->observe(t, &rc);
	race_check_g_intact(t, rc.buf);
	if (!bug && filemap_invalidate_leftovers() != leftovers)
		bug = "a page back in the range the operation invalidated";
	fput(f);
	kfree(rc.buf);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(RACE_G_PATH), 0);
	return bug;
}

static const char *const kind_names[] = {
	[FILL_READ_MISS] = "read_miss",
	[FILL_READ_NOT_UPTODATE] = "read_not_uptodate",
	[FILL_SYNC_RA] = "sync_readahead",
	[FILL_ASYNC_RA] = "async_readahead",
	[FILL_FADVISE] = "fadvise",
	[FILL_READAHEAD] = "readahead",
	[FILL_NOWAIT] = "nowait",
	[FILL_FAULT] = "fault",
	[FILL_MADVISE] = "madvise",
	[FILL_MKWRITE] = "page_mkwrite",
	[FILL_RA_WORKER] = "ra_worker",
};

/* Every schedule of @op against @kind. Return: how many failed. */
static int
enumerate(struct ktest *t, const struct race_op *op, enum fill_kind kind)
{
	struct search s = { .prefix = 0 };
	int schedules = 0, failed = 0;
	bool deep = false;

	for (;;) {
		bool timed_out;
		const char *bug = run_schedule(t, op, kind, &s, &timed_out);

		schedules++;
		deep |= s.deep;
		KTEST_EXPECT_FALSE(t, timed_out);
		if (bug || timed_out) {
			failed++;
			ktest_log(t,
				  "race_enum: %s x %s: fails: %s: %s",
				  op->name,
				  kind_names[kind],
				  en.log,
				  timed_out ? "a task never ended" : bug);
		}
		/* The next schedule: the deepest pick with an untried
		 * option (two tasks: pick 0 then 1), the rest fresh. */
		while (s.npicks > 0 && s.pick[s.npicks - 1] == 1)
			s.npicks--;
		if (!s.npicks || schedules >= ENUM_MAX_SCHEDULES)
			break;
		s.pick[s.npicks - 1] = 1;
		s.prefix = s.npicks;
	}
	KTEST_EXPECT_LT(t, schedules, ENUM_MAX_SCHEDULES);
	ktest_log(t,
		  "race_enum: %s x %s: %d schedules, %d failed%s",
		  op->name,
		  kind_names[kind],
		  schedules,
		  failed,
		  deep ? " (bound reached)" : "");
	return failed;
}

static void enumerate_op(struct ktest *t, const struct race_op *op)
{
	bool legacy = filemap_legacy_mode();

	for (int k = 0; k < (int)ARRAY_SIZE(kind_names); k++) {
		bool immune = k == FILL_MKWRITE && op->mkwrite_past_eof;
		int failed;

		/* NOWAIT: see the head; the worker's fill: the controller
		 * knows two tasks, A and B, and the worker is neither. */
		if (k == FILL_NOWAIT || k == FILL_RA_WORKER)
			continue;
		failed = enumerate(t, op, k);
		if (!legacy || immune)
			KTEST_EXPECT_EQ(t, failed, 0);
		else
			KTEST_EXPECT_GT(t, failed, 0);
	}
}

static void race_enum_punch(struct ktest *t)
{
	enumerate_op(t, &op_punch);
}

static void race_enum_zero(struct ktest *t)
{
	enumerate_op(t, &op_zero);
}

static void race_enum_collapse(struct ktest *t)
{
	enumerate_op(t, &op_collapse);
}

static void race_enum_insert(struct ktest *t)
{
	enumerate_op(t, &op_insert);
}

static void race_enum_truncate(struct ktest *t)
{
	enumerate_op(t, &op_truncate);
}

static struct ktest_case race_enum_cases[] = {
	KTEST_CASE(race_enum_punch),	KTEST_CASE(race_enum_zero),
	KTEST_CASE(race_enum_collapse), KTEST_CASE(race_enum_insert),
	KTEST_CASE(race_enum_truncate), {},
};
KTEST_SUITE(race_enum, race_enum_cases);

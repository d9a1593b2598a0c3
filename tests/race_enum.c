/*
 * tests/race_enum.c: suite race_enum - every interleaving of the race
 * points, not one chosen schedule.
 *
 * For each invalidating operation (punch, zero, collapse, insert,
 * truncate: one case each; with blocks smaller than a page also a punch
 * and a zero range of one block inside page 2, which stays cached: cases
 * punch_partial and zero_partial) and each fill path of tests/race.h but
 * the NOWAIT read (its fill is a plain read; its own check needs the
 * forced schedule), the two tasks A (the operation) and B (the fill) run
 * under the controller of tests/race_enum.h. The readahead worker's fill
 * is B's too: B's read hands its window to the worker, which stops at
 * B's points as the controller's helper of B, and B waits for it. Each
 * stops at every race point it passes and only goes on when the
 * controller lets it:
 *   A: its start, RACE_INVAL_DROPPED (cache dropped), RACE_INVAL_FREED
 *      (block map changed), RACE_INVAL_UNLOCK (edges zeroed, the lock
 *      dropped next);
 *   B: its start, RACE_FILL_START (i_size sampled), RACE_FILL_INSERTED
 *      (pages in, no block mapped), RACE_FILL_MAPPED (blocks mapped, read
 *      not submitted; page_mkwrite done);
 * a task that sleeps on a lock instead (30 ms asleep without reaching a
 * point) is blocked until the other lets go. Where both wait at points,
 * the controller picks one: every schedule is a sequence of such picks,
 * and a depth-first search over them runs each one from a fresh F
 * (stateless model checking: replay, not restore). Bound: the first
 * ENUM_BOUND picks of a schedule branch; past them the one waiting
 * longest goes first (the log says when a pair reached it). The third
 * parties - writeback and reclaim - have their own enumeration against
 * the same operations (tests/race_enum_wb.c).
 *
 * After each schedule the model's invariant (docs/model/) is checked:
 * pages 1 to 3 of F (the range and a page either side) read what the
 * operation's rule says, through the cache and from the disk (written
 * back, dropped, read again): no freed block's data, no old bytes where
 * the rule put zeroes or moved data, no page past the EOF; no page came
 * back into a range the operation invalidated
 * (filemap_invalidate_leftovers); A ended with status 0; and G, written
 * last into the freed blocks, reads back whole. The fixed kernel must
 * pass every schedule; legacy mode must fail some for each pair (but the
 * immune ones, below), and prints each failing one ("race_enum: OP x
 * FILL: fails: B.FILL_START A.INVAL_DROPPED ..."), for tools/boots.py to
 * compare with the interleaving SPIN reports. Each pair's count of
 * schedules is printed with the bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/ext2/ext2.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "race.h"
#include "race_enum.h"

static int run_op(void *arg)
{
	return ((const struct race_op *)arg)->run();
}

/* FILL_RA_WORKER's B: the read that hands the window to the worker (the
 * controller's helper of B, which stops at the fill points), then the
 * wait until the worker has read it. */
static int worker_filler(void *arg)
{
	struct race_case *rc = arg;
	int ret = race_filler(rc);

	readahead_wait(rc->m);
	return ret;
}

#define F_BYTES ((loff_t)(RACE_NPAGES + 1) * PAGE_SIZE) /* insert grows */
#define P	((loff_t)PAGE_SIZE)

/* An operation and its rule: F's bytes after it (F: page i all 'a' + i),
 * written into @f, and the size it leaves. */
struct enum_op {
	const struct race_op *op;
	loff_t (*model)(char *f, loff_t bs);
	/* Fill kinds (bits) legacy mode cannot break here either: the
	 * page lock, not invalidate_lock, keeps them out (see the cases). */
	unsigned int legacy_safe;
};

static loff_t model_punch(char *f, loff_t bs)
{
	(void)bs;
	memset(f + 2 * P, 0, P);
	return 4 * P;
}

static loff_t model_collapse(char *f, loff_t bs)
{
	(void)bs;
	memmove(f + P, f + 2 * P, 2 * P);
	return 3 * P;
}

static loff_t model_insert(char *f, loff_t bs)
{
	(void)bs;
	memmove(f + 2 * P, f + P, 3 * P);
	memset(f + P, 0, P);
	return 5 * P;
}

static loff_t model_truncate(char *f, loff_t bs)
{
	(void)f, (void)bs;
	return P;
}

/* The partial range: page 2's second block (suite race_enum_partial
 * runs where a page holds several). */
static loff_t partial_len(loff_t bs)
{
	return bs;
}

static loff_t model_partial(char *f, loff_t bs)
{
	memset(f + 2 * P + partial_len(bs), 0, partial_len(bs));
	return 4 * P;
}

static loff_t f_block_size(void)
{
	struct file *f = vfs_open("/", O_RDONLY, 0);
	loff_t bs = IS_ERR(f) ? 0 : f->f_inode->i_sb->s_blocksize;

	if (!IS_ERR(f))
		fput(f);
	return bs;
}

static int punch_partial_f(void)
{
	loff_t len = partial_len(f_block_size());

	return race_falloc(
	    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * P + len, len);
}

static int zero_partial_f(void)
{
	loff_t len = partial_len(f_block_size());

	return race_falloc(FALLOC_FL_ZERO_RANGE, 2 * P + len, len);
}

/* The rule is the model's, checked by check_f; page 2's first byte
 * stays 'c' (FILL_MKWRITE stores it). */
static const char *observe_none(struct ktest *t, struct race_case *rc)
{
	(void)t, (void)rc;
	return NULL;
}

static const struct race_op op_punch_partial = {
	.name = "punch_partial",
	.run = punch_partial_f,
	.observe = observe_none,
	.victim_after = 'a' + RACE_VICTIM,
};

static const struct race_op op_zero_partial = {
	.name = "zero_partial",
	.run = zero_partial_f,
	.observe = observe_none,
	.victim_after = 'a' + RACE_VICTIM,
};

/* What a byte that breaks the rule is. */
static const char *byte_kind(unsigned char c)
{
	if (c >= 'a' && c < 'a' + RACE_NPAGES)
		return "data of F the rule moved or removed";
	if (c == 'G')
		return "another file's (G) data";
	if (c == EXT2_POISON_BYTE)
		return "a freed block's poison";
	return c ? "garbage" : "zeroes";
}

/*
 * Pages RACE_VICTIM - 1 .. RACE_VICTIM + 1 of F (the range and a page
 * either side) against @eo's rule, as a read sees them now (@disk false)
 * or from the disk (written back, dropped, read again).
 * Return: what broke the rule, or NULL; the place goes to the log.
 */
static const char *check_f(struct ktest *t,
			   const struct enum_op *eo,
			   const struct race_case *rc,
			   loff_t bs,
			   bool disk)
{
	loff_t first = (RACE_VICTIM - 1) * P, len = 3 * P, size, want_n;
	char *want = kmalloc(F_BYTES, GFP_KERNEL);
	char *got = kmalloc(len, GFP_KERNEL);
	const char *bug = NULL;
	int fd = open(RACE_F_PATH, O_RDONLY);
	ssize_t n;

	KTEST_ASSERT_TRUE(t, want && got && fd >= 0);
	for (int i = 0; i <= RACE_NPAGES; i++)
		memset(want + i * P, 'a' + i, P);
	if (rc->kind == FILL_MKWRITE && rc->store_first)
		want[RACE_VICTIM * P] = rc->store; /* then the operation */
	size = eo->model(want, bs);
	if (rc->kind == FILL_MKWRITE && !rc->store_first &&
	    RACE_VICTIM * P < size)
		want[RACE_VICTIM * P] = rc->store; /* after it */
	if (disk) {
		if (fsync(fd)) /* legacy: a stale page's data with no block */
			bug = "a failed write-back";
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	n = pread(fd, got, len, first);
	want_n = MAX(MIN(len, size - first), 0);
	if (n != want_n) {
		ktest_log(t, "pages 1-3: %zd bytes, want %lld", n, want_n);
		bug = n > want_n ? "data past the EOF" : "a short read";
	}
	for (loff_t i = 0; i < MIN(n, want_n); i++) {
		if (got[i] == want[first + i])
			continue;
		ktest_log(t,
			  "%s: byte %lld of F is %#x, the rule says %#x",
			  disk ? "disk" : "cache",
			  (long long)(first + i),
			  (unsigned char)got[i],
			  (unsigned char)want[first + i]);
		bug = byte_kind(got[i]);
		break;
	}
	close(fd);
	kfree(want);
	kfree(got);
	return bug;
}

/* B's store came before the operation: B ended before A dropped the
 * cache (A's first point). */
static bool store_before(const char *log)
{
	const char *b_end = strstr(log, "B.end"), *a_drop = strstr(log, "A.");

	return b_end && (!a_drop || b_end < a_drop);
}

/* Run one schedule; return the failure's description, or NULL. */
static const char *run_schedule(struct ktest *t,
				const struct enum_op *eo,
				enum fill_kind kind,
				struct enum_search *s,
				bool *timed_out)
{
	const struct race_op *op = eo->op;
	struct race_case rc = { .kind = kind, .store = op->victim_after };
	unsigned long leftovers = filemap_invalidate_leftovers();
	struct enum_body a = { ROLE_A, run_op, (void *)op, 0 };
	struct enum_body b = { ROLE_B,
			       kind == FILL_RA_WORKER ? worker_filler
						      : race_filler,
			       &rc,
			       0 };
	unsigned int worker_min = 0;
	struct task *ta, *tb;
	const char *bug = NULL;
	struct file *f;
	int code, a_code;
	loff_t bs;

	*timed_out = false;
	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	rc.m = f->f_mapping;
	bs = f->f_inode->i_sb->s_blocksize;
	if (eo->model == model_partial) /* a page of several blocks */
		KTEST_ASSERT_LT(t, bs, P);
	rc.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, rc.buf);
	race_setup_kind(&rc);
	ext2_debug_reuse_freed(f->f_inode->i_sb, true);
	if (kind == FILL_RA_WORKER) { /* B's one-page window goes to it */
		KTEST_ASSERT_NOT_NULL(t, readahead_worker_task());
		worker_min = readahead_set_worker_min(1);
	}
	enum_begin(rc.m, ENUM_FILL);
	if (kind == FILL_RA_WORKER)
		enum_enrol_helper(ROLE_B, readahead_worker_task());
	ta = enum_start(&a, op->name, 1);
	tb = enum_start(&b, "filler", 2);
	KTEST_ASSERT_FALSE(t, IS_ERR(ta));
	KTEST_ASSERT_FALSE(t, IS_ERR(tb));
	rc.filler = tb;
	*timed_out = !enum_drive(s);
	a_code = task_join(ta);
	code = task_join(tb);
	if (kind == FILL_RA_WORKER)
		readahead_set_worker_min(worker_min);
	/* B's mapping went with its join (vm_release_task). A fault after
	 * the truncate ends B (SIGBUS); one before it not. */
	KTEST_EXPECT_TRUE(t,
			  code == 0 ||
			      ((kind == FILL_FAULT || kind == FILL_MKWRITE) &&
			       code == TASK_EXIT_KILLED));
	KTEST_EXPECT_EQ(t, a_code, 0);
	KTEST_EXPECT_EQ(t, a.ret, 0);
	KTEST_EXPECT_EQ(
	    t, race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES), 0);
	ext2_debug_reuse_freed(f->f_inode->i_sb, false);
	/* A store linearizes before or after the operation: which one, the
	 * log of the schedule says (B ended before A dropped the cache). */
	rc.store_first = store_before(enum_log());
	bug = op->observe(t, &rc) ?: check_f(t, eo, &rc, bs, false);
	bug = check_f(t, eo, &rc, bs, true) ?: bug; /* and after a drop */
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

/* Every schedule of @eo against @kind. Return: how many failed. */
static int
enumerate(struct ktest *t, const struct enum_op *eo, enum fill_kind kind)
{
	bool full = eo->op == &op_punch && kind == FILL_READ_MISS;
	struct enum_search s = { .b_first = filemap_legacy_mode() && !full };
	int schedules = 0, failed = 0;
	bool deep = false;

	for (;;) {
		bool timed_out;
		const char *bug = run_schedule(t, eo, kind, &s, &timed_out);

		schedules++;
		deep |= s.deep;
		KTEST_EXPECT_FALSE(t, timed_out);
		if (bug || timed_out) {
			failed++;
			ktest_log(t,
				  "race_enum: %s x %s: fails: %s: %s",
				  eo->op->name,
				  kind_names[kind],
				  enum_log(),
				  timed_out ? "a task never ended" : bug);
		}
		/* Legacy mode: one failing schedule shows the bug, but for
		 * the pair whose failing schedules tools/boots.py compares
		 * with SPIN's (every one of them is printed). */
		if (failed && filemap_legacy_mode() && !full)
			break;
		if (schedules >= ENUM_MAX_SCHEDULES || !enum_next(&s))
			break;
	}
	KTEST_EXPECT_LT(t, schedules, ENUM_MAX_SCHEDULES);
	ktest_log(t,
		  "race_enum: %s x %s: %d schedules (bound %d picks%s), "
		  "%d failed%s",
		  eo->op->name,
		  kind_names[kind],
		  schedules,
		  ENUM_BOUND,
		  deep ? ", reached" : "",
		  failed,
		  failed && filemap_legacy_mode() && !full
		      ? " (the search stops at the first)"
		      : "");
	return failed;
}

static void enumerate_op(struct ktest *t, const struct enum_op *eo)
{
	bool legacy = filemap_legacy_mode();

	for (int k = 0; k < (int)ARRAY_SIZE(kind_names); k++) {
		bool immune = (k == FILL_MKWRITE && eo->op->mkwrite_past_eof) ||
			      (eo->legacy_safe & (1u << k));
		int failed;

		if (k == FILL_NOWAIT) /* see the head */
			continue;
		failed = enumerate(t, eo, k);
		if (!legacy || immune)
			KTEST_EXPECT_EQ(t, failed, 0);
		else
			KTEST_EXPECT_GT(t, failed, 0);
	}
}

#define ENUM_CASE(name, model_fn, safe)                                   \
	static void race_enum_##name(struct ktest *t)                     \
	{                                                                 \
		static const struct enum_op eo = { .op = &op_##name,      \
						   .model = model_fn,     \
						   .legacy_safe = safe }; \
		enumerate_op(t, &eo);                                     \
	}
ENUM_CASE(punch, model_punch, 0)
ENUM_CASE(zero, model_punch, 0)
ENUM_CASE(collapse, model_collapse, 0)
ENUM_CASE(insert, model_insert, 0)
ENUM_CASE(truncate, model_truncate, 0)
/* Page 2 stays cached: the punch holds it locked from its zeroing until
 * the block is freed (mm/truncate.c), so a re-read or a page_mkwrite,
 * which lock it, come after the free in legacy mode too; and a store
 * beside a zero range, which frees nothing, lands after the zeroes. The
 * partial reproducers that legacy mode does break for those two paths
 * are tests/race_partial_test.c's. */
ENUM_CASE(punch_partial,
	  model_partial,
	  1u << FILL_READ_NOT_UPTODATE | 1u << FILL_MKWRITE)
ENUM_CASE(zero_partial, model_partial, 1u << FILL_MKWRITE)

static struct ktest_case race_enum_cases[] = {
	KTEST_CASE(race_enum_punch),	KTEST_CASE(race_enum_zero),
	KTEST_CASE(race_enum_collapse), KTEST_CASE(race_enum_insert),
	KTEST_CASE(race_enum_truncate), {},
};
KTEST_SUITE(race_enum, race_enum_cases);

/* The boots of blocks smaller than a page: page 2 stays cached. */
static struct ktest_case race_enum_partial_cases[] = {
	KTEST_CASE(race_enum_punch_partial),
	KTEST_CASE(race_enum_zero_partial),
	{},
};
KTEST_SUITE(race_enum_partial, race_enum_partial_cases);

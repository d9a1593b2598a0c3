/*
 * tests/race_hold_test.c: suite race_hold - an invalidating operation
 * holds invalidate_lock exclusive from its cache drop to its block-map
 * change without a break, also when a fill queued for the lock while the
 * drop was still going on.
 *
 * The reproducers of tests/race.h stop the fill (task B) before it takes
 * the lock and let it go only once the operation (task A) stands at
 * RACE_INVAL_DROPPED, between its drop and its block change: an A that let
 * the lock go after its drop and took it again before that point passes
 * them, since nobody waited for the lock then. Here B queues for the lock
 * while A is still inside its drop: the test holds page STALL of F locked,
 * which A's walk over its range must lock (or, preallocating, wait for:
 * filemap_wait_fills) holding the lock exclusive. Then it lets page STALL
 * go: A must reach its block change still holding the lock, B still
 * waiting. An A that let go of the lock after its drop, however briefly,
 * hands it to B (the rw-semaphore serves its waiters in order), and B's
 * page comes from the block map as it was before the change: B passes
 * RACE_FILL_MAPPED (RACE_FILL_INSERTED for preallocation) while A waits at
 * its own point, and page RACE_VICTIM of F ends up wrong.
 *
 * F holds pages 'a'..'d'; B reads page 2 (a read miss, readahead off);
 * page 3 is the one that stalls A. What page 2 reads afterwards:
 *   punch [2P, 4P)        zeroes (its block, freed, is the file G's by then)
 *   zero [2P, 4P)         zeroes (B's read, if it got in, goes first)
 *   collapse [P, 2P)      'd'
 *   insert [P, 2P)        'b'
 *   swapext F <-> H       H's page 2 (swapext finds no page of F back)
 *   prealloc [2P, 4P)     zeroes: page 2 punched first, its block poisoned,
 *     (KEEP_SIZE)         handed out again (ext2_debug_reuse_freed); A is
 *                         held at RACE_ALLOC_LINKED (block linked, its
 *                         zeroes not written), and a B that got in maps
 *                         and reads the poison; on ext4 A is held
 *                         once the unwritten extent is in, which a B
 *                         that got in reads as zeroes: the case shows
 *                         only that B still waits
 * Truncate is not here: it stores the new i_size before it drops, and a
 * fill reads i_size again under the lock, so a B let in after the drop
 * puts nothing past the new EOF.
 *
 * The fixed kernel only (the race boots without invalidate_lock=off): in
 * legacy mode the fill takes no lock to queue for.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/rwsem.h>
#include <kernel/sched.h>
#include <fs/ext2/ext2.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "race.h"

#define H_PATH "/race_hold_h"
#define STALL  (RACE_VICTIM + 1) /* the page whose lock stalls A */

struct hold_op {
	const char *name;
	int (*run)(void); /* task A: 0 or an errno */
	char want;	  /* page RACE_VICTIM of F afterwards */
	/* A B that got in reads before A changes the block map (a change
	 * that rewrites blocks in place would otherwise hand B the new
	 * contents). */
	bool filler_first;
	/* B is held at RACE_FILL_INSERTED, A at RACE_ALLOC_LINKED (not
	 * RACE_FILL_MAPPED and RACE_INVAL_DROPPED). */
	bool prealloc;
};

static int punch_f(void)
{
	return race_falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			   RACE_VICTIM * PAGE_SIZE,
			   2 * PAGE_SIZE);
}

static int zero_f(void)
{
	return race_falloc(
	    FALLOC_FL_ZERO_RANGE, RACE_VICTIM * PAGE_SIZE, 2 * PAGE_SIZE);
}

static int collapse_f(void)
{
	return race_falloc(FALLOC_FL_COLLAPSE_RANGE, PAGE_SIZE, PAGE_SIZE);
}

static int insert_f(void)
{
	return race_falloc(FALLOC_FL_INSERT_RANGE, PAGE_SIZE, PAGE_SIZE);
}

static int prealloc_f(void)
{
	return race_falloc(
	    FALLOC_FL_KEEP_SIZE, RACE_VICTIM * PAGE_SIZE, 2 * PAGE_SIZE);
}

static int swapext_f(void)
{
	int f = open(RACE_F_PATH, O_RDWR), h = open(H_PATH, O_RDWR), err = 0;

	if (f < 0 || h < 0)
		err = errno;
	else if (swapext(f, h))
		err = errno;
	if (f >= 0)
		close(f);
	if (h >= 0)
		close(h);
	return err;
}

static const struct hold_op hold_punch = {
	.name = "punch", .run = punch_f, .want = 0,
};
static const struct hold_op hold_zero = {
	.name = "zero", .run = zero_f, .want = 0, .filler_first = true,
};
static const struct hold_op hold_collapse = {
	.name = "collapse", .run = collapse_f, .want = 'a' + RACE_VICTIM + 1,
};
static const struct hold_op hold_insert = {
	.name = "insert", .run = insert_f, .want = 'a' + RACE_VICTIM - 1,
};
static const struct hold_op hold_swapext = {
	.name = "swapext", .run = swapext_f, .want = 'p' + RACE_VICTIM,
};
static const struct hold_op hold_prealloc = {
	.name = "prealloc",
	.run = prealloc_f,
	.want = 0,
	.filler_first = true,
	.prealloc = true,
};

struct hold_case {
	struct race_case rc;
	struct task *a;
};

static int invalidator(void *arg)
{
	const struct hold_op *op = arg;

	return op->run();
}

/* A holds F's invalidate_lock exclusive and sleeps (on page STALL). */
static bool a_stalled(void *arg)
{
	struct hold_case *hc = arg;

	return READ_ONCE(hc->rc.m->invalidate_lock.writer) == hc->a &&
	       READ_ONCE(hc->a->state) == TASK_SLEEPING;
}

/* Page @index of F read into the cache alone; its page, referenced. */
static struct page *cache_page(struct address_space *m, unsigned long index)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int fd = open(RACE_F_PATH, O_RDONLY);

	if (fd >= 0 && buf) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); /* just the page */
		pread(fd, buf, PAGE_SIZE, (loff_t)index * PAGE_SIZE);
	}
	if (fd >= 0)
		close(fd);
	kfree(buf);
	return filemap_get_page(m, index);
}

static void hold_run(struct ktest *t, const struct hold_op *op)
{
	struct hold_case hc = { .rc = { .kind = FILL_READ_MISS } };
	enum race_id fill_gate =
	    op->prealloc ? RACE_FILL_INSERTED : RACE_FILL_MAPPED;
	enum race_id inval_gate =
	    op->prealloc ? RACE_ALLOC_LINKED : RACE_INVAL_DROPPED;
	unsigned long leftovers = filemap_invalidate_leftovers();
	bool b_done = false;
	struct page *stall;
	const char *bug;
	struct task *b;
	struct file *f;
	int stopped;

	KTEST_ASSERT_FALSE(t, filemap_legacy_mode()); /* no lock to queue for */
	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	KTEST_ASSERT_EQ(t, race_write_file(H_PATH, 'p', 1, RACE_NPAGES), 0);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0); /* keeps the inode cached */
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	hc.rc.m = f->f_mapping;
	hc.rc.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, hc.rc.buf);
	ext2_debug_reuse_freed(f->f_inode->i_sb, true);
	if (op->prealloc) /* a hole, its old block poisoned */
		KTEST_ASSERT_EQ(
		    t,
		    race_falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				RACE_VICTIM * PAGE_SIZE,
				PAGE_SIZE),
		    0);
	stall = cache_page(hc.rc.m, STALL);
	KTEST_ASSERT_NOT_NULL(t, stall);
	KTEST_EXPECT_FALSE(t, filemap_cached(hc.rc.m, RACE_VICTIM));
	lock_page(stall);

	/* B stops before the lock; A takes it and stalls on page STALL. */
	race_arm(RACE_FILL_START);
	b = task_create("filler", race_filler, &hc.rc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	hc.rc.filler = hc.rc.fill_task = b;
	KTEST_ASSERT_EQ(t, race_wait(RACE_FILL_START, NULL, NULL), 1);
	race_arm(inval_gate);
	hc.a = task_create(op->name, invalidator, (void *)op);
	KTEST_ASSERT_FALSE(t, IS_ERR(hc.a));
	KTEST_ASSERT_EQ(t, race_wait_until(a_stalled, &hc), 0);

	/* B queues for the lock while A is inside its drop. */
	race_arm_for(fill_gate, b);
	race_release(RACE_FILL_START);
	KTEST_ASSERT_EQ(t, race_wait_until(race_waits_for_lock, hc.rc.m), 0);
	unlock_page(stall);
	put_page(stall);

	/* A reaches its block change: B must still wait for the lock. */
	KTEST_ASSERT_EQ(t, race_wait(inval_gate, NULL, NULL), 1);
	stopped = race_wait(fill_gate, race_waits_for_lock, hc.rc.m);
	KTEST_EXPECT_EQ(t, stopped, 0);
	if (stopped == 1)
		ktest_log(t,
			  "%s let invalidate_lock go after its drop: the "
			  "filler got in before the block map changed",
			  op->name);
	else
		ktest_log(
		    t, "filler waits for invalidate_lock held by %s", op->name);
	if (stopped == 1 && op->filler_first) { /* B reads, then A goes on */
		race_release(fill_gate);
		KTEST_EXPECT_EQ(t, task_join(b), 0);
		b_done = true;
	}
	race_release(inval_gate);
	KTEST_EXPECT_EQ(t, task_join(hc.a), 0);
	/* G takes the blocks A freed, if any (they are handed out first). */
	KTEST_EXPECT_EQ(
	    t, race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES), 0);
	if (!b_done) {
		race_release(fill_gate); /* or disarm it: B may be past it */
		KTEST_EXPECT_EQ(t, task_join(b), 0);
	}
	ext2_debug_reuse_freed(f->f_inode->i_sb, false);

	bug = race_observe_page(t, &hc.rc, op->want);
	KTEST_EXPECT_NULL(t, bug);
	if (bug)
		ktest_log(t, "page %d of F: %s", RACE_VICTIM, bug);
	race_check_g_intact(t, hc.rc.buf);
	KTEST_EXPECT_EQ(t, filemap_invalidate_leftovers(), leftovers);
	fput(f);
	kfree(hc.rc.buf);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(RACE_G_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(H_PATH), 0);
}

/* clang-format off */
#define HOLD_CASE(op)                                                  \
	static void race_hold_##op(struct ktest *t)                    \
	{                                                              \
		hold_run(t, &hold_##op);                                 \
	}
HOLD_CASE(punch)
HOLD_CASE(zero)
HOLD_CASE(collapse)
HOLD_CASE(insert)
HOLD_CASE(swapext)
HOLD_CASE(prealloc)
/* clang-format on */

static struct ktest_case race_hold_cases[] = {
	KTEST_CASE(race_hold_punch),
	KTEST_CASE(race_hold_zero),
	KTEST_CASE(race_hold_collapse),
	KTEST_CASE(race_hold_insert),
	KTEST_CASE(race_hold_swapext),
	KTEST_CASE(race_hold_prealloc),
	{},
};
KTEST_SUITE(race_hold, race_hold_cases);

/*
 * tests/race_wb_test.c: suite race_writeback - the third party. Every
 * invalidating operation (punch, zero, truncate, collapse, insert) against
 * each task that writes dirty pages back without being asked by the file's
 * user: a flush round (the flusher's flush_round, run by a task of the
 * test), an fsync from another task, and reclaim.
 *
 * F holds pages 'a', 'b', 'c', 'd' on disk; page 2 is then rewritten with
 * 'C' and left dirty. The operation's range lies inside page 2 where the
 * block size allows (one block, from the second block on; truncate to the
 * middle of page 2's second block), so page 2 stays cached, partly zeroed,
 * over blocks that are freed. The schedule, forced by race points:
 *   1. A (the operation) stops at RACE_INVAL_DROPPED: the cache dropped
 *      (partial pages zeroed), the block map not yet changed;
 *   2. W (the third party) starts writing F back, and either stops at
 *      RACE_WB_MAPPED (page 2's blocks mapped from the block map as it is
 *      then, its bio not submitted), or waits for page 2's lock, or ends;
 *   3. A goes on; if it waits for W's write (zero range zeroes page 2
 *      again and waits for its writeback) W goes first;
 *   4. G is written once A is done: the blocks A freed are poisoned and
 *      handed out first, so G takes them;
 *   5. W goes on and submits what it mapped.
 * A write mapped before the free and submitted after it lands in G: G,
 * read back from disk, must hold only 'G', and F, written back and read
 * from disk, what the operation's rule says (a model of its bytes here).
 * And reclaim the other way round: it chooses page 2 (a reference, no
 * lock: RACE_RECLAIM_CHOSEN) before A starts, A runs to its end, G is
 * written, and reclaim goes on with a page that left the cache, or stayed
 * partly zeroed over holes: it must free it or write only what the block
 * map holds now.
 * W takes no invalidate_lock in either mode, so the suite runs in the
 * legacy boots too and must pass there: what keeps W out is the page lock
 * of the partial pages, held by the operation across the block change
 * (mm/truncate.c, truncate_inode_pages_hold_edges).
 * F, the range, the operation's rule and the third party's work are
 * shared with race_enum_wb, which runs every schedule (tests/race_wb.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
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
#include "race_wb.h"

#define VICTIM ((loff_t)RACE_VICTIM * PAGE_SIZE)

const char *const race_wb_op_names[NR_WB_OPS] = { "punch",    "zero",
						  "truncate", "collapse",
						  "insert",   "swapext" };
const char *const race_wb_third_names[NR_THIRD] = {
	"flush", "fsync", "reclaim", "reclaim chose first"
};

void race_wb_pick_range(struct wb_case *c)
{
	bool small = c->bs < (loff_t)PAGE_SIZE;

	c->start = VICTIM + (small ? c->bs : 0);
	c->len = small ? c->bs : (loff_t)PAGE_SIZE;
	if (c->op == OP_TRUNCATE)
		c->start = VICTIM +
			   (small ? c->bs + c->bs / 2 : (loff_t)PAGE_SIZE / 2);
}

int race_wb_run_op(void *arg)
{
	struct wb_case *c = arg;
	int fd = open(RACE_F_PATH, O_RDWR), err = 0;
	static const int modes[] = {
		[OP_PUNCH] = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		[OP_ZERO] = FALLOC_FL_ZERO_RANGE,
		[OP_COLLAPSE] = FALLOC_FL_COLLAPSE_RANGE,
		[OP_INSERT] = FALLOC_FL_INSERT_RANGE,
	};

	if (fd < 0)
		return errno;
	if (c->op == OP_SWAPEXT) {
		int h = open(WB_H_PATH, O_RDWR);

		err = h < 0 || swapext(fd, h) ? errno : 0;
		if (h >= 0)
			close(h);
	} else if (c->op == OP_TRUNCATE)
		err = ftruncate(fd, c->start) ? errno : 0;
	else if (fallocate(fd, modes[c->op], c->start, c->len))
		err = errno;
	close(fd);
	c->a_ret = err;
	return 0;
}

loff_t race_wb_apply_model(const struct wb_case *c, char *model)
{
	loff_t s = c->start, l = c->len;

	switch (c->op) {
	case OP_PUNCH:
	case OP_ZERO: memset(model + s, 0, l); return F_SIZE;
	case OP_TRUNCATE: return s;
	case OP_SWAPEXT:
		for (int i = 0; i < RACE_NPAGES; i++)
			memset(model + i * PAGE_SIZE, 'p' + i, PAGE_SIZE);
		return F_SIZE;
	case OP_COLLAPSE:
		memmove(model + s, model + s + l, F_SIZE - s - l);
		return F_SIZE - l;
	default:
		memmove(model + s + l, model + s, F_SIZE - s);
		memset(model + s, 0, l);
		return F_SIZE + l;
	}
}

static bool may_go(void *arg)
{
	return READ_ONCE(((struct wb_case *)arg)->go);
}

int race_wb_third_act(const struct wb_case *c)
{
	int fd;

	switch (c->by) {
	case BY_FLUSH: return writeback_all(false);
	case BY_RECLAIM:
	case BY_RECLAIM_FIRST: reclaim_pages(ULONG_MAX / 4); return 0;
	default:
		fd = open(RACE_F_PATH, O_RDONLY);
		if (fd < 0)
			return errno;
		fsync(fd);
		close(fd);
		return 0;
	}
}

static int third_party(void *arg)
{
	struct wb_case *c = arg;

	if (race_wait_until(may_go, c))
		return -ETIMEDOUT;
	return race_wb_third_act(c);
}

static bool sleeps_on_victim(struct task *task, struct page *victim)
{
	return READ_ONCE(task->state) == TASK_SLEEPING &&
	       page_test(victim, PG_waiters);
}

/* W waits for page 2 (its lock), or has ended. */
static bool w_blocked_or_done(void *arg)
{
	struct wb_case *c = arg;

	return READ_ONCE(c->w->state) == TASK_DEAD ||
	       sleeps_on_victim(c->w, c->victim);
}

/* A has ended, or waits for page 2 (its writeback: W's bio). */
static bool a_done_or_waits(void *arg)
{
	struct wb_case *c = arg;

	return READ_ONCE(c->a->state) == TASK_DEAD ||
	       (page_test(c->victim, PG_writeback) &&
		sleeps_on_victim(c->a, c->victim));
}

/* F: pages 'a'..'d' on disk, page 2 rewritten with 'C', dirty, not
 * marked referenced (reclaim takes it at its first look). */
void race_wb_make_f(struct ktest *t, struct wb_case *c, char *model)
{
	struct address_space *m;
	struct file *f;
	int fd;

	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	if (c->op == OP_SWAPEXT)
		KTEST_ASSERT_EQ(
		    t, race_write_file(WB_H_PATH, 'p', 1, RACE_NPAGES), 0);
	for (int i = 0; i < RACE_NPAGES; i++)
		memset(model + i * PAGE_SIZE, 'a' + i, PAGE_SIZE);
	memset(model + VICTIM, 'C', PAGE_SIZE);
	fd = open(RACE_F_PATH, O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_ASSERT_EQ(
	    t, pwrite(fd, model + VICTIM, PAGE_SIZE, VICTIM), PAGE_SIZE);
	close(fd);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	m = f->f_mapping;
	c->bs = f->f_inode->i_sb->s_blocksize;
	c->sb = f->f_inode->i_sb;
	c->victim = filemap_get_page(m, RACE_VICTIM);
	fput(f);
	KTEST_ASSERT_NOT_NULL(t, c->victim);
	KTEST_ASSERT_TRUE(t, page_test(c->victim, PG_dirty));
	page_clear(c->victim, PG_referenced);
}

bool race_wb_check_file(struct ktest *t,
			const char *path,
			const char *model,
			loff_t size)
{
	char *buf = kmalloc(F_SIZE + PAGE_SIZE, GFP_KERNEL);
	int fd = open(path, O_RDONLY);
	loff_t bad = -1;
	ssize_t n;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	n = pread(fd, buf, F_SIZE + PAGE_SIZE, 0);
	KTEST_EXPECT_EQ(t, n, size);
	for (loff_t i = 0; i < MIN(n, size) && bad < 0; i++)
		if (buf[i] != model[i])
			bad = i;
	if (bad >= 0)
		ktest_log(t,
			  "%s byte %lld is %#x, the rule says %#x",
			  path,
			  (long long)bad,
			  (unsigned char)buf[bad],
			  (unsigned char)model[bad]);
	KTEST_EXPECT_EQ(t, bad, -1);
	close(fd);
	kfree(buf);
	return n == size && bad < 0;
}

/* Reclaim holds page 2, chosen, while A runs from start to end; G takes
 * what A freed; then reclaim goes on. */
static void reclaim_first(struct ktest *t, struct wb_case *c)
{
	c->w = task_create(race_wb_third_names[c->by], third_party, c);
	KTEST_ASSERT_FALSE(t, IS_ERR(c->w));
	race_arm_for_obj(RACE_RECLAIM_CHOSEN, c->w, c->victim);
	WRITE_ONCE(c->go, true);
	KTEST_EXPECT_EQ(t, race_wait(RACE_RECLAIM_CHOSEN, NULL, NULL), 1);
	c->a = task_create(race_wb_op_names[c->op], race_wb_run_op, c);
	KTEST_ASSERT_FALSE(t, IS_ERR(c->a));
	task_join(c->a);
	KTEST_EXPECT_EQ(t, c->a_ret, 0);
	KTEST_EXPECT_EQ(
	    t, race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES), 0);
	race_release(RACE_RECLAIM_CHOSEN);
	KTEST_EXPECT_EQ(t, task_join(c->w), 0);
}

static void run_case(struct ktest *t, enum wb_op op, enum third by)
{
	struct wb_case c = { .op = op, .by = by };
	char *model = kmalloc(F_SIZE + PAGE_SIZE, GFP_KERNEL), *buf;
	struct super_block *sb;
	loff_t size;
	int stopped;

	KTEST_ASSERT_NOT_NULL(t, model);
	writeback_hold_flusher(true); /* page 2 stays dirty until W */
	race_wb_make_f(t, &c, model);
	race_wb_pick_range(&c);
	size = race_wb_apply_model(&c, model);
	sb = c.sb;
	ext2_debug_reuse_freed(sb, true);

	if (by == BY_RECLAIM_FIRST) {
		reclaim_first(t, &c);
		goto check;
	}
	race_arm(RACE_INVAL_DROPPED);
	c.a = task_create(race_wb_op_names[op], race_wb_run_op, &c);
	KTEST_ASSERT_FALSE(t, IS_ERR(c.a));
	KTEST_ASSERT_EQ(t, race_wait(RACE_INVAL_DROPPED, NULL, NULL), 1);
	c.w = task_create(race_wb_third_names[by], third_party, &c);
	KTEST_ASSERT_FALSE(t, IS_ERR(c.w));
	race_arm_for(RACE_WB_MAPPED, c.w);
	WRITE_ONCE(c.go, true);
	stopped = race_wait(RACE_WB_MAPPED, w_blocked_or_done, &c);
	KTEST_EXPECT_GE(t, stopped, 0);
	ktest_log(t,
		  "%s x %s, %lld-byte blocks: %s",
		  race_wb_op_names[op],
		  race_wb_third_names[by],
		  (long long)c.bs,
		  stopped == 1 ? "W mapped page 2's blocks first"
		  : READ_ONCE(c.w->state) == TASK_DEAD
		      ? "W ended with nothing to write"
		      : "W waits for page 2's lock");
	race_release(RACE_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, race_wait_until(a_done_or_waits, &c), 0);
	if (READ_ONCE(c.a->state) != TASK_DEAD) /* A waits for W's write */
		race_release(RACE_WB_MAPPED);
	task_join(c.a);
	KTEST_EXPECT_EQ(t, c.a_ret, 0);
	/* G takes the blocks A freed; W's write comes after. */
	KTEST_EXPECT_EQ(
	    t, race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES), 0);
	race_release(RACE_WB_MAPPED);
	KTEST_EXPECT_EQ(t, task_join(c.w), 0);
check:
	ext2_debug_reuse_freed(sb, false);
	writeback_hold_flusher(false);
	put_page(c.victim);

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, buf);
	race_check_g_intact(t, buf);
	race_wb_check_file(t, RACE_F_PATH, model, size);
	kfree(buf);
	kfree(model);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(RACE_G_PATH), 0);
}

#define WB_CASES(op, OP)                                 \
	static void race_wb_##op(struct ktest *t)        \
	{                                                \
		for (int by = 0; by < NR_THIRD; by++)    \
			run_case(t, OP, (enum third)by); \
	}
WB_CASES(punch, OP_PUNCH)
WB_CASES(zero, OP_ZERO)
WB_CASES(truncate, OP_TRUNCATE)
WB_CASES(collapse, OP_COLLAPSE)
WB_CASES(insert, OP_INSERT)

static struct ktest_case race_wb_cases[] = {
	KTEST_CASE(race_wb_punch),    KTEST_CASE(race_wb_zero),
	KTEST_CASE(race_wb_truncate), KTEST_CASE(race_wb_collapse),
	KTEST_CASE(race_wb_insert),   {},
};
KTEST_SUITE(race_writeback, race_wb_cases);

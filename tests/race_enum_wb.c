/*
 * tests/race_enum_wb.c: suite race_enum_wb - every interleaving of an
 * invalidating operation with a task nobody calls: a flush round, an
 * fsync from another task, reclaim.
 *
 * race_writeback (tests/race_wb_test.c) forces one schedule per pair, the
 * one that broke before the edge pages were held: the third party maps
 * page 2's blocks after the cache drop and submits after the free. Here
 * the controller of tests/race_enum.h runs all of them, on the same F
 * (tests/race_wb.h: page 2 dirty, the range inside it where a page holds
 * several blocks):
 *   A: its start, RACE_INVAL_DROPPED, RACE_INVAL_FREED, RACE_INVAL_UNLOCK
 *      (punch, zero, truncate, collapse, insert; and swapext of F with a
 *      file H, whose blocks a write of F mapped before the exchange and
 *      submitted after it would land in);
 *      after the operation A writes G with fsync, the blocks it freed
 *      handed out first, so a write mapped before the free and submitted
 *      after G lands in G;
 *   B (the third party): its start, RACE_WB_MAPPED (F's blocks mapped, the
 *      bio not submitted: a flush round, an fsync, or reclaim writing page
 *      2) and RACE_RECLAIM_CHOSEN (reclaim holds page 2 by a reference
 *      only: it may stay chosen while A runs to its end).
 * After each schedule: A's operation and G's write succeeded, B ended
 * with 0, G reads back whole from the disk, and F, written back and read
 * from the disk, holds what the operation's rule says (after swapext, H
 * holds what F held). Neither B takes
 * invalidate_lock, in either mode, so every schedule must pass in the
 * legacy boots too: what keeps B out is the page lock of page 2, held by
 * the operation from its zeroing to the block change (docs/locking.md).
 * A pair stops at its first failing schedule and prints it.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <fs/ext2/ext2.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "race.h"
#include "race_enum.h"
#include "race_wb.h"

struct wb_enum {
	struct wb_case c;
	int g_ret; /* G's write, after the operation */
};

/* A: the operation, then G into the blocks it freed. */
static int op_then_g(void *arg)
{
	struct wb_enum *we = arg;

	race_wb_run_op(&we->c);
	we->g_ret = race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES);
	return 0;
}

static int third_body(void *arg)
{
	return race_wb_third_act(arg);
}

/* Run one schedule of @op against @by. Return: what broke, or NULL. */
static const char *run_schedule(struct ktest *t,
				enum wb_op op,
				enum third by,
				struct enum_search *s)
{
	struct wb_enum we = { .c = { .op = op, .by = by } };
	struct enum_body a = { ROLE_A, op_then_g, &we, 0 };
	struct enum_body b = { ROLE_B, third_body, &we.c, 0 };
	char *model = kmalloc(F_SIZE + PAGE_SIZE, GFP_KERNEL);
	char *was = kmalloc(F_SIZE, GFP_KERNEL); /* F before: swapext's H */
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	const char *bug = NULL;
	struct task *ta, *tb;
	struct file *f;
	int a_code, b_code;
	loff_t size;

	KTEST_ASSERT_TRUE(t, model && was && buf);
	writeback_hold_flusher(true); /* page 2 stays dirty until B */
	race_wb_make_f(t, &we.c, model);
	memcpy(was, model, F_SIZE);
	race_wb_pick_range(&we.c);
	size = race_wb_apply_model(&we.c, model);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0); /* F's mapping lives on */
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	ext2_debug_reuse_freed(we.c.sb, true);
	enum_begin(f->f_mapping, ENUM_THIRD);
	ta = enum_start(&a, race_wb_op_names[op], 1);
	tb = enum_start(&b, race_wb_third_names[by], 2);
	KTEST_ASSERT_FALSE(t, IS_ERR(ta));
	KTEST_ASSERT_FALSE(t, IS_ERR(tb));
	if (!enum_drive(s))
		bug = "a task never ended";
	a_code = task_join(ta);
	b_code = task_join(tb);
	ext2_debug_reuse_freed(we.c.sb, false);
	writeback_hold_flusher(false);
	put_page(we.c.victim);

	KTEST_EXPECT_EQ(t, a_code, 0);
	KTEST_EXPECT_EQ(t, b_code, 0);
	KTEST_EXPECT_EQ(t, we.c.a_ret, 0);
	KTEST_EXPECT_EQ(t, we.g_ret, 0);
	KTEST_EXPECT_EQ(t, b.ret, 0);
	if (a_code || b_code || we.c.a_ret || we.g_ret || b.ret)
		bug = bug ?: "a task failed";
	if (!race_check_g_intact(t, buf))
		bug = bug ?: "G's data overwritten on the disk";
	if (!race_wb_check_file(t, RACE_F_PATH, model, size))
		bug = bug ?: "F on the disk is not what the rule says";
	if (op == OP_SWAPEXT) {
		if (!race_wb_check_file(t, WB_H_PATH, was, F_SIZE))
			bug = bug ?: "H on the disk is not what F was";
		KTEST_EXPECT_EQ(t, unlink(WB_H_PATH), 0);
	}
	fput(f);
	kfree(model);
	kfree(was);
	kfree(buf);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(RACE_G_PATH), 0);
	return bug;
}

/* Every schedule of @op against @by, until the first that fails. */
static void enumerate(struct ktest *t, enum wb_op op, enum third by)
{
	struct enum_search s = { 0 };
	const char *bug = NULL;
	int schedules = 0;
	bool deep = false;

	while (!bug && schedules < ENUM_MAX_SCHEDULES) {
		bug = run_schedule(t, op, by, &s);
		schedules++;
		deep |= s.deep;
		if (bug)
			ktest_log(t,
				  "race_enum_wb: %s x %s: fails: %s: %s",
				  race_wb_op_names[op],
				  race_wb_third_names[by],
				  enum_log(),
				  bug);
		else if (!enum_next(&s))
			break;
	}
	KTEST_EXPECT_LT(t, schedules, ENUM_MAX_SCHEDULES);
	KTEST_EXPECT_NULL(t, bug);
	ktest_log(t,
		  "race_enum_wb: %s x %s: %d schedules (bound %d picks%s), "
		  "%d failed",
		  race_wb_op_names[op],
		  race_wb_third_names[by],
		  schedules,
		  ENUM_BOUND,
		  deep ? ", reached" : "",
		  bug != NULL);
}

/* Reclaim choosing first is one of reclaim's schedules here. */
#define ENUM_WB_CASE(op, OP)                                  \
	static void race_enum_wb_##op(struct ktest *t)        \
	{                                                     \
		for (int by = 0; by < BY_RECLAIM_FIRST; by++) \
			enumerate(t, OP, (enum third)by);     \
	}
ENUM_WB_CASE(punch, OP_PUNCH)
ENUM_WB_CASE(zero, OP_ZERO)
ENUM_WB_CASE(truncate, OP_TRUNCATE)
ENUM_WB_CASE(collapse, OP_COLLAPSE)
ENUM_WB_CASE(insert, OP_INSERT)
ENUM_WB_CASE(swapext, OP_SWAPEXT)

static struct ktest_case race_enum_wb_cases[] = {
	KTEST_CASE(race_enum_wb_punch),
	KTEST_CASE(race_enum_wb_zero),
	KTEST_CASE(race_enum_wb_truncate),
	KTEST_CASE(race_enum_wb_collapse),
	KTEST_CASE(race_enum_wb_insert),
	KTEST_CASE(race_enum_wb_swapext),
	{},
};
KTEST_SUITE(race_enum_wb, race_enum_wb_cases);

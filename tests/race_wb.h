/*
 * tests/race_wb.h: the third party's case (tests/race_wb_test.c), shared
 * by race_writeback (one forced schedule per pair) and race_enum_wb
 * (every schedule, tests/race_enum_wb.c).
 *
 * F holds pages 'a', 'b', 'c', 'd' on disk; page RACE_VICTIM is then
 * rewritten with 'C' and left dirty (race_wb_make_f). The operation's
 * range lies inside that page where the block size allows
 * (race_wb_pick_range), and race_wb_apply_model gives F's bytes after it.
 * Locking: none; the caller holds the flusher off
 * (writeback_hold_flusher) while page RACE_VICTIM must stay dirty.
 */
#pragma once

#include <kernel/ktest.h>
#include <mm/filemap.h>
#include "race.h"

#define F_SIZE	  ((loff_t)RACE_NPAGES * PAGE_SIZE)
#define WB_H_PATH "/race_wb_h" /* OP_SWAPEXT's donor: pages 'p'..'s' */

enum wb_op {
	OP_PUNCH,
	OP_ZERO,
	OP_TRUNCATE,
	OP_COLLAPSE,
	OP_INSERT,
	OP_SWAPEXT, /* F <-> H, whole files (race_enum_wb only) */
	NR_WB_OPS
};
/* The task nobody calls; BY_RECLAIM_FIRST: reclaim chooses the page
 * before the operation starts (race_writeback's schedule). */
enum third { BY_FLUSH, BY_FSYNC, BY_RECLAIM, BY_RECLAIM_FIRST, NR_THIRD };

extern const char *const race_wb_op_names[NR_WB_OPS];
extern const char *const race_wb_third_names[NR_THIRD];

struct wb_case {
	enum wb_op op;
	enum third by;
	loff_t bs;	     /* F's block size */
	loff_t start, len;   /* the range (truncate: the new size at start) */
	struct page *victim; /* page 2, referenced for the case */
	struct super_block *sb;
	struct task *a, *w;
	bool go; /* W may start: its gate is armed */
	int a_ret;
};

/* F as above, @model its bytes (OP_SWAPEXT: H too, on disk);
 * takes a reference on page 2 (victim). */
void race_wb_make_f(struct ktest *t, struct wb_case *c, char *model);
/* The range inside page 2: its second block when a page holds several,
 * else the whole page (truncate: into the block after the first). */
void race_wb_pick_range(struct wb_case *c);
/* The operation's rule on @model (F_SIZE + len bytes): the new size.
 * OP_SWAPEXT: F becomes H (and H what F was: the caller's copy). */
loff_t race_wb_apply_model(const struct wb_case *c, char *model);
/* Task body: @arg's operation on F; its errno goes to a_ret. */
int race_wb_run_op(void *arg);
/* The third party's work: a flush round, an fsync of F, or reclaim. */
int race_wb_third_act(const struct wb_case *c);
/* The file at @path (F, or OP_SWAPEXT's H), written back and read from
 * the disk, equals @model's @size bytes. Return: true if it does (a
 * difference is logged and fails @t). */
bool race_wb_check_file(struct ktest *t,
			const char *path,
			const char *model,
			loff_t size);

/*
 * tests/race.h: the harness of the race reproducers (tests/race.c).
 *
 * A reproducer is an invalidating operation (struct race_op: what task A
 * does to file F, and how the case sees the operation's promise broken)
 * run against one fill path (enum fill_kind: what task B does to page
 * RACE_VICTIM of F), forced by the race points of kernel/race.h:
 *   1. B starts its fill and stops at RACE_FILL_START (i_size sampled);
 *   2. A starts and stops at RACE_INVAL_DROPPED (cache dropped, block map
 *      not yet changed);
 *   3. B goes on: it must stop at RACE_FILL_MAPPED (page inserted, block
 *      mapped, read not submitted) in legacy mode, and wait for F's
 *      invalidate_lock in the fixed kernel (its waiter count shows it);
 *   4. A finishes (with filler_first, in legacy mode, after B's read):
 *      freed blocks are poisoned and handed out first, and file G, written
 *      now, takes them;
 *   5. B finishes; op->observe looks at F, and G is re-read from disk.
 * The fixed kernel must show nothing; legacy mode (invalidate_lock=off)
 * must show the bug, and the case says "bug observed as expected in
 * legacy mode". F starts as RACE_NPAGES pages, page i all 'a' + i.
 *
 *   static const struct race_op op_punch = { "punch", run, observe };
 *   RACE_SUITE(punch);        // suite race_punch: one case per fill path
 */
#pragma once

#include <kernel/ktest.h>
#include <mm/filemap.h>

#define RACE_F_PATH "/race_f"
#define RACE_G_PATH "/race_g"
#define RACE_NPAGES 4
#define RACE_VICTIM 2

enum fill_kind {
	FILL_READ_MISS,		/* read, readahead off (FADV_RANDOM) */
	FILL_READ_NOT_UPTODATE, /* read of a page left !uptodate */
	FILL_SYNC_RA,		/* read miss: synchronous readahead */
	FILL_ASYNC_RA,		/* read of a page with the readahead mark */
	FILL_FADVISE,		/* posix_fadvise(WILLNEED) */
	FILL_READAHEAD,		/* readahead(2) */
	FILL_NOWAIT,	/* a sync readahead; RWF_NOWAIT meanwhile and after */
	FILL_FAULT,	/* a load from a shared mapping: the page fault */
	FILL_MADVISE,	/* madvise(MADV_WILLNEED) on a shared mapping */
	FILL_MKWRITE,	/* a store to a clean, cached page of a shared mapping:
			 * the write fault and page_mkwrite */
	FILL_RA_WORKER, /* FILL_ASYNC_RA's window handed to the readahead
			 * worker (its threshold lowered to one page): the
			 * worker fills, B only reads the marked page */
};

struct race_case {
	enum fill_kind kind;
	struct address_space *m; /* F's */
	char *buf;		 /* a page */
	char store;		 /* FILL_MKWRITE: the byte B stores */
	bool store_first; /* FILL_MKWRITE: before the operation (race_enum) */
	struct task *filler;	/* B */
	struct task *fill_task; /* the task that fills: B, or the worker */
	ssize_t c_ret;		/* the NOWAIT task's result */
	int c_errno;
	bool c_done;
};

struct race_op {
	const char *name;
	int (*run)(void); /* task A: 0 or an errno */
	/* Return: what broke the operation's promise, or NULL. */
	const char *(*observe)(struct ktest *t, struct race_case *rc);
	/* Legacy mode: B's read completes before A changes the block map
	 * (an operation that rewrites blocks in place, such as zeroing, would
	 * otherwise hand B the new contents). */
	bool filler_first;
	/* What page RACE_VICTIM of F holds after the operation (the
	 * observe's rule): FILL_MKWRITE's store writes it, so that the store
	 * itself changes nothing the rule does not. */
	char victim_after;
	/* A store's fault past the EOF this operation sets ends the filler
	 * (SIGBUS) before page_mkwrite in both modes: the fault checks i_size
	 * again under the page lock, so FILL_MKWRITE has nothing for
	 * invalidate_lock to close here, and legacy mode shows no bug. */
	bool mkwrite_past_eof;
};

void race_run(struct ktest *t, const struct race_op *op, enum fill_kind kind);

/* The pieces of race_run, for tests/race_enum.c. */
/* @npages pages, page i all @ch + i * @step; written back and dropped. */
int race_write_file(const char *path, char ch, int step, unsigned int npages);
/* Set up F for @rc->kind (a page left !uptodate, a readahead mark...). */
void race_setup_kind(struct race_case *rc);
/* Task B: the fill path @rc->kind on page RACE_VICTIM of F. */
int race_filler(void *rc);
/* B ended with @code: 0, or killed by a bus error past EOF. */
void race_check_filler(struct ktest *t, struct race_case *rc, int code);
/* G, read back from disk, holds only 'G'. Return: true if so (else
 * @t fails). */
bool race_check_g_intact(struct ktest *t, char *buf);
/* A task waits for @mapping's invalidate_lock (a race_wait condition). */
bool race_waits_for_lock(void *mapping);
/* fallocate(@mode, @off, @len) on F. Return: 0 or the errno. */
int race_falloc(int mode, loff_t off, loff_t len);

/* The invalidating operations (tests/race_falloc_test.c,
 * tests/race_truncate_test.c). */
extern const struct race_op op_punch, op_zero, op_collapse, op_insert,
    op_truncate;
/* Page RACE_VICTIM of F as a read sees it (RWF_NOWAIT for FILL_NOWAIT),
 * against the byte @want everywhere. Return: what it holds instead, or
 * NULL. */
const char *race_observe_page(struct ktest *t, struct race_case *rc, char want);

/* clang-format off */
#define RACE_CASE(op, kind, what)                                     \
	static void race_##op##_##what(struct ktest *t)               \
	{                                                             \
		race_run(t, &op_##op, kind);                          \
	}
#define RACE_SUITE(op)                                                \
	RACE_CASE(op, FILL_READ_MISS, read_miss)                      \
	RACE_CASE(op, FILL_READ_NOT_UPTODATE, read_not_uptodate)      \
	RACE_CASE(op, FILL_SYNC_RA, sync_readahead)                   \
	RACE_CASE(op, FILL_ASYNC_RA, async_readahead)                 \
	RACE_CASE(op, FILL_FADVISE, fadvise_willneed)                 \
	RACE_CASE(op, FILL_READAHEAD, readahead_call)                 \
	RACE_CASE(op, FILL_NOWAIT, nowait_read)                       \
	RACE_CASE(op, FILL_FAULT, fault)                              \
	RACE_CASE(op, FILL_MADVISE, madvise_willneed)                 \
	RACE_CASE(op, FILL_MKWRITE, page_mkwrite)                     \
	RACE_CASE(op, FILL_RA_WORKER, ra_worker)                      \
	static struct ktest_case race_##op##_cases[] = {              \
		KTEST_CASE(race_##op##_read_miss),                    \
		KTEST_CASE(race_##op##_read_not_uptodate),            \
		KTEST_CASE(race_##op##_sync_readahead),               \
		KTEST_CASE(race_##op##_async_readahead),              \
		KTEST_CASE(race_##op##_fadvise_willneed),             \
		KTEST_CASE(race_##op##_readahead_call),               \
		KTEST_CASE(race_##op##_nowait_read),                  \
		KTEST_CASE(race_##op##_fault),                        \
		KTEST_CASE(race_##op##_madvise_willneed),             \
		KTEST_CASE(race_##op##_page_mkwrite),                 \
		KTEST_CASE(race_##op##_ra_worker),                    \
		{},                                                   \
	};                                                            \
	KTEST_SUITE(race_##op, race_##op##_cases)
/* clang-format on */

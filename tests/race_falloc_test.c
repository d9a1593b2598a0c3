/*
 * tests/race_falloc_test.c: suites race_punch, race_zero, race_collapse
 * and race_insert - one reproducer per fill path against each fallocate
 * mode that drops cached pages and changes the block map, forced by race
 * points, in both modes (the schedule: tests/race.h).
 *
 * F holds pages 'a', 'b', 'c', 'd'; the filler fills page 2. What page 2
 * must read afterwards is fallocate(2)'s rule for each mode:
 *   punch [2P, 3P)       zeroes (the block is freed: poisoned, then G's)
 *   zero [2P, 3P)        zeroes (the block is zeroed in place; in legacy
 *                        mode the filler's read goes first, so its page
 *                        keeps the old bytes)
 *   collapse [P, 2P)     'd', the page that moved down to it
 *   insert [P, 2P)       'b', the page that moved up to it
 * Legacy mode shows F's old data or another file's: "bug observed as
 * expected in legacy mode"; the fixed kernel must read the rule's bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <fs/vfs.h>
#include "race.h"

int race_falloc(int mode, loff_t off, loff_t len)
{
	int fd = open(RACE_F_PATH, O_RDWR), err = 0;

	if (fd < 0)
		return errno;
	if (fallocate(fd, mode, off, len))
		err = errno;
	close(fd);
	return err;
}

static int punch_f(void)
{
	return race_falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			   RACE_VICTIM * PAGE_SIZE,
			   PAGE_SIZE);
}

static int zero_f(void)
{
	return race_falloc(
	    FALLOC_FL_ZERO_RANGE, RACE_VICTIM * PAGE_SIZE, PAGE_SIZE);
}

static int collapse_f(void)
{
	return race_falloc(FALLOC_FL_COLLAPSE_RANGE, PAGE_SIZE, PAGE_SIZE);
}

static int insert_f(void)
{
	return race_falloc(FALLOC_FL_INSERT_RANGE, PAGE_SIZE, PAGE_SIZE);
}

static const char *observe_zeroes(struct ktest *t, struct race_case *rc)
{
	return race_observe_page(t, rc, 0);
}

static const char *observe_moved_down(struct ktest *t, struct race_case *rc)
{
	return race_observe_page(t, rc, 'a' + RACE_VICTIM + 1);
}

static const char *observe_moved_up(struct ktest *t, struct race_case *rc)
{
	return race_observe_page(t, rc, 'a' + RACE_VICTIM - 1);
}

const struct race_op op_punch = {
	.name = "punch",
	.run = punch_f,
	.observe = observe_zeroes,
};

const struct race_op op_zero = {
	.name = "zero",
	.run = zero_f,
	.observe = observe_zeroes,
	.victim_after = 0,
	.filler_first = true,
};

const struct race_op op_collapse = {
	.name = "collapse",
	.run = collapse_f,
	.observe = observe_moved_down,
	.victim_after = 'a' + RACE_VICTIM + 1,
};

const struct race_op op_insert = {
	.name = "insert",
	.run = insert_f,
	.observe = observe_moved_up,
	.victim_after = 'a' + RACE_VICTIM - 1,
};

RACE_SUITE(punch);
RACE_SUITE(zero);
RACE_SUITE(collapse);
RACE_SUITE(insert);

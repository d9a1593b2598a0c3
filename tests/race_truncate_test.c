/*
 * tests/race_truncate_test.c: suite race_truncate - one reproducer per
 * fill path of the race invalidate_lock closes, against truncate, forced
 * by race points (kernel/race.h), in both modes.
 *
 * The schedule is tests/race.h's; A truncates F to one page.
 * Rule: when truncate has returned, no page of F is cached past its new
 * EOF (Linux's truncate promise; mm/invalidate.c's unlock check reports a
 * page back in the range too). In legacy mode (invalidate_lock=off) B
 * inserts page 2 after A dropped the cache, from an i_size it read before
 * A changed it; in the fixed kernel B waits for the lock and then reads
 * i_size again. Legacy mode must show the bug - each case then reports
 * "bug observed as expected in legacy mode" and passes; the fixed kernel
 * must never show it. ext2 reads nothing at or past i_size, so against
 * truncate the leftover page holds zeroes, not stale bytes: stale bytes
 * need an invalidation that keeps the size (tests/race_falloc_test.c).
 * G is re-read from disk: the other file must be intact in both modes.
 */
#include <errno.h>
#include <unistd.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include "race.h"

#define KEEP PAGE_SIZE /* A truncates F to this */

static int truncate_f(void)
{
	return truncate(RACE_F_PATH, KEEP) ? errno : 0;
}

/* Truncate's promise: once it returned, no page of F is cached past
 * the EOF it set. */
static const char *observe_truncate(struct ktest *t, struct race_case *rc)
{
	struct page *page = filemap_get_page(rc->m, RACE_VICTIM);

	KTEST_EXPECT_EQ(t, READ_ONCE(rc->m->host->i_size), KEEP);
	if (!page)
		return NULL;
	put_page(page);
	return "a page cached past the EOF truncate set";
}

const struct race_op op_truncate = {
	.name = "truncate",
	.run = truncate_f,
	.observe = observe_truncate,
	.mkwrite_past_eof = true,
};

RACE_SUITE(truncate);

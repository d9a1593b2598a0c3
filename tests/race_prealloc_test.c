/*
 * tests/race_prealloc_test.c: suite race_prealloc - a fill of a hole
 * against a preallocation of it (fallocate KEEP_SIZE), in both orders and
 * both modes.
 *
 * ext2 has no unwritten extents: preallocation maps each new block and
 * then writes it with zeroes, and it keeps the cached pages over the holes
 * (they are zeroes already). A fill that looks the map up between the two
 * reads the block's old contents into the cache, where they stay while
 * the disk holds zeroes. A fill holds invalidate_lock shared only around
 * the insertion of its pages and maps their blocks under their page locks
 * (fs/ext2/read.c); preallocation holds the lock exclusive and first waits
 * for the pages of its range that are locked (filemap_wait_fills).
 *
 * F holds pages 'a'..'d'; page 2 is punched first, so its block is
 * poisoned and handed out again first (ext2_debug_reuse_freed).
 *   fill first: B fills page 2 and stops at RACE_FILL_INSERTED (pages
 *     inserted, no block mapped); A preallocates page 2 and must sleep
 *     holding the lock exclusive (waiting for B's page) short of
 *     RACE_ALLOC_LINKED, in both modes; B goes on and maps the hole.
 *   prealloc first: A stops at RACE_ALLOC_LINKED (block mapped, zeroes
 *     not written); B fills page 2: the fixed kernel makes it wait for the
 *     lock at the insertion; legacy mode (invalidate_lock=off) lets it map
 *     the poisoned block and read it (B passes RACE_FILL_MAPPED).
 * Page 2 must read as zeroes from the cache and from the disk; legacy mode
 * must show the poison in the cache over zeroes on the disk in the second
 * order.
 *
 * ext4 (an extent-mapped F): preallocation maps the hole with an unwritten
 * extent and writes nothing (fs/ext2/extent_falloc.c; A stops at
 * RACE_ALLOC_LINKED once the extent is in). A fill that maps it reads
 * zeroes without reading the block, so the schedules are the same but
 * legacy mode has nothing to show: page 2 must read as zeroes there too.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/ext2/ext2.h>
#include <fs/vfs.h>
#include <mm/kmalloc.h>
#include "race.h"

static int preallocator(void *arg)
{
	(void)arg;
	return race_falloc(
	    FALLOC_FL_KEEP_SIZE, RACE_VICTIM * PAGE_SIZE, PAGE_SIZE);
}

struct prealloc_case {
	struct race_case rc;
	struct task *a;
};

/* A holds invalidate_lock exclusive and sleeps (on B's page lock). */
static bool a_waits_for_page(void *arg)
{
	struct prealloc_case *pc = arg;

	return READ_ONCE(pc->rc.m->invalidate_lock.writer) == pc->a &&
	       READ_ONCE(pc->a->state) == TASK_SLEEPING;
}

/* Page RACE_VICTIM once more, after its clean page is dropped: the disk. */
static const char *observe_disk(struct ktest *t, struct race_case *rc)
{
	int fd = open(RACE_F_PATH, O_RDONLY);

	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	KTEST_EXPECT_NULL(t, filemap_get_page(rc->m, RACE_VICTIM));
	return race_observe_page(t, rc, 0);
}

/* B ended; its read of page 2 (fadvise's is not waited for) ends too,
 * before A writes the block. */
static void fill_done(struct ktest *t, struct prealloc_case *pc, struct task *b)
{
	struct page *page;

	race_check_filler(t, &pc->rc, task_join(b));
	page = filemap_get_page(pc->rc.m, RACE_VICTIM);
	if (page) {
		wait_on_page_locked(page);
		put_page(page);
	}
}

/* Fill first: B inserted page 2, A must wait for it (both modes). */
static void fill_first(struct ktest *t, struct prealloc_case *pc)
{
	struct task *b;

	race_arm(RACE_FILL_INSERTED);
	b = task_create("filler", race_filler, &pc->rc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	pc->rc.filler = b;
	KTEST_ASSERT_EQ(t, race_wait(RACE_FILL_INSERTED, NULL, NULL), 1);
	race_arm(RACE_ALLOC_LINKED);
	pc->a = task_create("prealloc", preallocator, NULL);
	KTEST_ASSERT_FALSE(t, IS_ERR(pc->a));
	KTEST_EXPECT_EQ(
	    t, race_wait(RACE_ALLOC_LINKED, a_waits_for_page, pc), 0);
	race_release(RACE_FILL_INSERTED);
	fill_done(t, pc, b);
	race_release(RACE_ALLOC_LINKED); /* or disarm it: A may pass it now */
}

/* Prealloc first: A mapped the block; B must wait for the lock (fixed) or
 * reads the block before its zeroes (legacy). */
static void prealloc_first(struct ktest *t, struct prealloc_case *pc)
{
	bool legacy = filemap_legacy_mode();
	struct task *b;
	int stopped;

	race_arm(RACE_ALLOC_LINKED);
	pc->a = task_create("prealloc", preallocator, NULL);
	KTEST_ASSERT_FALSE(t, IS_ERR(pc->a));
	KTEST_ASSERT_EQ(t, race_wait(RACE_ALLOC_LINKED, NULL, NULL), 1);
	race_arm(RACE_FILL_MAPPED);
	b = task_create("filler", race_filler, &pc->rc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	pc->rc.filler = b;
	stopped = race_wait(RACE_FILL_MAPPED, race_waits_for_lock, pc->rc.m);
	KTEST_EXPECT_EQ(t, stopped, legacy ? 1 : 0);
	if (stopped == 1) { /* B's read goes first, then the zeroes */
		race_release(RACE_FILL_MAPPED);
		fill_done(t, pc, b);
		race_release(RACE_ALLOC_LINKED);
		return;
	}
	ktest_log(t, "filler waits for invalidate_lock held by prealloc");
	race_release(RACE_ALLOC_LINKED);
	KTEST_EXPECT_EQ(t, task_join(pc->a), 0);
	pc->a = NULL;
	race_release(RACE_FILL_MAPPED);
	fill_done(t, pc, b);
}

static void
race_prealloc_run(struct ktest *t, enum fill_kind kind, bool fill_goes_first)
{
	struct prealloc_case pc = { .rc = { .kind = kind } };
	const char *cached, *disk;
	bool bug_expected;
	struct file *f;

	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0); /* keeps the inode cached */
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	pc.rc.m = f->f_mapping;
	bug_expected = filemap_legacy_mode() && !fill_goes_first &&
		       !ext2_has_extents(f->f_inode);
	pc.rc.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, pc.rc.buf);
	ext2_debug_reuse_freed(f->f_inode->i_sb, true);
	KTEST_ASSERT_EQ(t,
			race_falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				    RACE_VICTIM * PAGE_SIZE,
				    PAGE_SIZE),
			0);
	if (fill_goes_first)
		fill_first(t, &pc);
	else
		prealloc_first(t, &pc);
	if (pc.a)
		KTEST_EXPECT_EQ(t, task_join(pc.a), 0);
	ext2_debug_reuse_freed(f->f_inode->i_sb, false);

	cached = race_observe_page(t, &pc.rc, 0);
	disk = observe_disk(t, &pc.rc);
	KTEST_EXPECT_NULL(t, disk);
	if (bug_expected) {
		KTEST_EXPECT_NOT_NULL(t, cached);
		if (cached)
			ktest_log(
			    t,
			    "bug observed as expected in legacy mode: "
			    "page %d of F: %s in the cache, zeroes on disk",
			    RACE_VICTIM,
			    cached);
	} else {
		KTEST_EXPECT_NULL(t, cached);
		if (cached)
			ktest_log(t, "page %d of F: %s", RACE_VICTIM, cached);
	}
	fput(f);
	kfree(pc.rc.buf);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
}

/* clang-format off */
#define PREALLOC_CASES(kind, what)                                        \
	static void race_prealloc_##what##_first(struct ktest *t)         \
	{                                                                 \
		race_prealloc_run(t, kind, true);                         \
	}                                                                 \
	static void race_prealloc_##what##_second(struct ktest *t)        \
	{                                                                 \
		race_prealloc_run(t, kind, false);                        \
	}
PREALLOC_CASES(FILL_READ_MISS, read_miss)
PREALLOC_CASES(FILL_SYNC_RA, sync_readahead)
PREALLOC_CASES(FILL_FAULT, fault)
PREALLOC_CASES(FILL_FADVISE, fadvise_willneed)
/* clang-format on */

static struct ktest_case race_prealloc_cases[] = {
	KTEST_CASE(race_prealloc_read_miss_first),
	KTEST_CASE(race_prealloc_read_miss_second),
	KTEST_CASE(race_prealloc_sync_readahead_first),
	KTEST_CASE(race_prealloc_sync_readahead_second),
	KTEST_CASE(race_prealloc_fault_first),
	KTEST_CASE(race_prealloc_fault_second),
	KTEST_CASE(race_prealloc_fadvise_willneed_first),
	KTEST_CASE(race_prealloc_fadvise_willneed_second),
	{},
};
KTEST_SUITE(race_prealloc, race_prealloc_cases);

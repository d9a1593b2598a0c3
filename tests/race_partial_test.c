/*
 * tests/race_partial_test.c: suite race_partial - the fill paths that run
 * on a page that stays cached: blocks smaller than a page, a range inside
 * one page (the 1 and 2 KiB race boots).
 *
 * tests/race*.c's other reproducers drop their victim page whole, so the
 * filler always goes back through the read-miss path. Here F's page 2
 * stays in the cache and the fill path named is the one that runs:
 *
 *   zero_read_not_uptodate: page 2 is cached but not uptodate (a failed
 *     read leaves it so); zero range clears its second block. The re-read
 *     of page 2 must wait for invalidate_lock: legacy mode lets it read
 *     the block before it is zeroed on disk, and the cache keeps one
 *     block of F's old bytes inside the zeroed range.
 *   prealloc_page_mkwrite: page 2's second block is a hole, cached (as
 *     zeroes) and mapped read-only; fallocate KEEP_SIZE gives it a block
 *     (RACE_ALLOC_LINKED: mapped, zeroes not yet written) while a store
 *     faults into page_mkwrite, and an fsync from a third task writes the
 *     page back. page_mkwrite must wait for invalidate_lock: legacy mode
 *     lets it dirty the page over the new block, the fsync writes the
 *     store there, and the preallocation's zeroes then land over it - the
 *     store is lost on disk while the cache still shows it. On ext4 (an
 *     extent-mapped F) the block comes as an unwritten extent and nothing
 *     is written over it: RACE_ALLOC_LINKED is where the extent is in, the
 *     same schedule runs, and legacy mode must keep the store too.
 *
 * Each case forces its schedule with race points; the fixed kernel must
 * keep the rule, legacy mode (invalidate_lock=off) must break it ("bug
 * observed as expected in legacy mode").
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

#define VICTIM	   ((loff_t)RACE_VICTIM * PAGE_SIZE)
#define STORE_AT   16 /* into the range */
#define STORE_BYTE 'S'

struct partial_case {
	struct address_space *m;
	loff_t bs; /* F's block size: the range is [VICTIM + bs, + bs) */
	char *buf;
	struct task *a, *b;
};

/* Page 2 of F as the rule says: 'c', the range zeroes, and @store (if
 * not 0) at STORE_AT into the range. Return: what broke it, or NULL. */
static const char *
check_page(struct ktest *t, struct partial_case *pc, char store, bool disk)
{
	int fd = open(RACE_F_PATH, O_RDONLY);

	KTEST_ASSERT_GE(t, fd, 0);
	if (disk) {
		KTEST_EXPECT_EQ(t, fsync(fd), 0);
		KTEST_EXPECT_EQ(
		    t, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	}
	KTEST_EXPECT_EQ(t, pread(fd, pc->buf, PAGE_SIZE, VICTIM), PAGE_SIZE);
	close(fd);
	for (loff_t i = 0; i < (loff_t)PAGE_SIZE; i++) {
		bool in = i >= pc->bs && i < 2 * pc->bs;
		char want = in ? 0 : 'a' + RACE_VICTIM;

		if (store && i == pc->bs + STORE_AT)
			want = store;
		if (pc->buf[i] == want)
			continue;
		ktest_log(t,
			  "page 2 byte %lld (%s): %#x, the rule says %#x",
			  (long long)i,
			  disk ? "disk" : "cache",
			  (unsigned char)pc->buf[i],
			  (unsigned char)want);
		if (store && i == pc->bs + STORE_AT)
			return "the store was lost";
		return in ? "F's old bytes inside the range"
			  : "bytes outside it";
	}
	return NULL;
}

/* F as the other reproducers make it; its block size, a page of buffer
 * and the mapping kept cached by an open file (returned). */
static struct file *setup(struct ktest *t, struct partial_case *pc)
{
	struct file *f;

	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	pc->m = f->f_mapping;
	pc->bs = f->f_inode->i_sb->s_blocksize;
	/* The boots of blocks smaller than a page run this suite. */
	KTEST_ASSERT_LT(t, pc->bs, (loff_t)PAGE_SIZE);
	pc->buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, pc->buf);
	return f;
}

static void teardown(struct ktest *t, struct partial_case *pc, struct file *f)
{
	fput(f);
	kfree(pc->buf);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
}

/* @shows: legacy mode breaks the rule on this file system. */
static void report(struct ktest *t, const char *bug, bool shows)
{
	if (filemap_legacy_mode() && shows) {
		KTEST_EXPECT_NOT_NULL(t, bug);
		if (bug)
			ktest_log(t,
				  "bug observed as expected in legacy mode: "
				  "page 2 of F: %s",
				  bug);
	} else {
		KTEST_EXPECT_NULL(t, bug);
		if (bug)
			ktest_log(t, "page 2 of F: %s", bug);
	}
}

/*
 * The schedule both cases share: B (@b_fn) stops at RACE_FILL_START, A
 * (@a_fn) at @a_point, then B goes on and must stop at RACE_FILL_MAPPED in
 * legacy mode, or wait for invalidate_lock in the fixed kernel. A stopped
 * B goes on to its end: its fill comes before A's block change.
 * Return: 1 if B stopped (and has ended), 0 if it waits for the lock.
 */
static int fill_beside(struct ktest *t,
		       struct partial_case *pc,
		       enum race_id a_point,
		       int (*a_fn)(void *),
		       int (*b_fn)(void *))
{
	int stopped;

	race_arm(RACE_FILL_START);
	pc->b = task_create("filler", b_fn, pc);
	KTEST_ASSERT_FALSE(t, IS_ERR(pc->b));
	KTEST_ASSERT_EQ(t, race_wait(RACE_FILL_START, NULL, NULL), 1);
	race_arm(a_point);
	pc->a = task_create("operation", a_fn, pc);
	KTEST_ASSERT_FALSE(t, IS_ERR(pc->a));
	KTEST_ASSERT_EQ(t, race_wait(a_point, NULL, NULL), 1);
	race_arm_for(RACE_FILL_MAPPED, pc->b);
	race_release(RACE_FILL_START);
	stopped = race_wait(RACE_FILL_MAPPED, race_waits_for_lock, pc->m);
	KTEST_EXPECT_EQ(t, stopped, filemap_legacy_mode() ? 1 : 0);
	if (stopped == 1) {
		race_release(RACE_FILL_MAPPED);
		KTEST_EXPECT_EQ(t, task_join(pc->b), 0);
	}
	return stopped;
}

/* A goes on and ends (at @a_point), then a B that waited. */
static void finish(struct ktest *t,
		   struct partial_case *pc,
		   enum race_id a_point,
		   int stopped)
{
	race_release(a_point);
	KTEST_EXPECT_EQ(t, task_join(pc->a), 0);
	if (stopped != 1) {
		race_release(RACE_FILL_MAPPED);
		KTEST_EXPECT_EQ(t, task_join(pc->b), 0);
	}
}

static int zero_range(void *arg)
{
	struct partial_case *pc = arg;

	return race_falloc(FALLOC_FL_ZERO_RANGE, VICTIM + pc->bs, pc->bs);
}

static int reread(void *arg)
{
	struct partial_case *pc = arg;
	int fd = open(RACE_F_PATH, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 1;
	n = pread(fd, pc->buf, PAGE_SIZE, VICTIM);
	close(fd);
	return n != PAGE_SIZE;
}

static void zero_read_not_uptodate(struct ktest *t)
{
	struct partial_case pc = { 0 };
	struct file *f = setup(t, &pc);
	struct page *page;
	int stopped;

	/* Page 2 cached, not uptodate, as a failed read leaves it. */
	down_write(&f->f_inode->i_rwsem); /* may insert: as a write would */
	page = filemap_grab_page(pc.m, RACE_VICTIM);
	up_write(&f->f_inode->i_rwsem);
	KTEST_ASSERT_FALSE(t, IS_ERR(page));
	unlock_page(page);
	put_page(page);

	stopped = fill_beside(t, &pc, RACE_INVAL_DROPPED, zero_range, reread);
	finish(t, &pc, RACE_INVAL_DROPPED, stopped);
	report(t, check_page(t, &pc, 0, false), true);
	KTEST_EXPECT_NULL(t, check_page(t, &pc, 0, true)); /* disk: zeroes */
	teardown(t, &pc, f);
}

static int preallocate(void *arg)
{
	struct partial_case *pc = arg;

	return race_falloc(FALLOC_FL_KEEP_SIZE, VICTIM + pc->bs, pc->bs);
}

/* Map F shared, load page 2 (a read-only entry), store into the range:
 * the write fault and page_mkwrite. */
static int store_in_range(void *arg)
{
	struct partial_case *pc = arg;
	int fd = open(RACE_F_PATH, O_RDWR);
	volatile char *p;

	if (fd < 0)
		return 1;
	p = mmap(NULL,
		 RACE_NPAGES * PAGE_SIZE,
		 PROT_READ | PROT_WRITE,
		 MAP_SHARED,
		 fd,
		 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	(void)p[VICTIM];
	p[VICTIM + pc->bs + STORE_AT] = STORE_BYTE;
	return 0;
}

static int fsync_f(void *arg)
{
	int fd = open(RACE_F_PATH, O_RDONLY), err;

	(void)arg;
	if (fd < 0)
		return 1;
	err = fsync(fd);
	close(fd);
	return err;
}

static void prealloc_page_mkwrite(struct ktest *t)
{
	struct partial_case pc = { 0 };
	struct file *f = setup(t, &pc);
	struct task *w;
	int stopped;

	/* Page 2's second block a hole, page 2 cached (zeroes there). */
	KTEST_ASSERT_EQ(t,
			race_falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				    VICTIM + pc.bs,
				    pc.bs),
			0);
	KTEST_EXPECT_NULL(t, check_page(t, &pc, 0, true));

	stopped =
	    fill_beside(t, &pc, RACE_ALLOC_LINKED, preallocate, store_in_range);
	/* The third party: it writes what is dirty now - the store, if it
	 * landed before the zeroes. */
	w = task_create("fsync", fsync_f, NULL);
	KTEST_ASSERT_FALSE(t, IS_ERR(w));
	KTEST_EXPECT_EQ(t, task_join(w), 0);
	finish(t, &pc, RACE_ALLOC_LINKED, stopped);
	report(t,
	       check_page(t, &pc, STORE_BYTE, true),
	       !ext2_has_extents(f->f_inode));
	teardown(t, &pc, f);
}

static struct ktest_case race_partial_cases[] = {
	KTEST_CASE(zero_read_not_uptodate),
	KTEST_CASE(prealloc_page_mkwrite),
	{},
};
KTEST_SUITE(race_partial, race_partial_cases);

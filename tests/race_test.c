/*
 * tests/race_test.c: suite race_truncate - one reproducer per fill path of
 * the race invalidate_lock closes, against truncate, forced by race points
 * (kernel/race.h), in both modes.
 *
 * File F holds 4 pages of 'F'. Each case runs:
 *   1. filler task B starts its fill of page 2 (a read miss, a read of a
 *      !uptodate page, sync or async readahead, fadvise WILLNEED,
 *      readahead(2)) and stops at RP_FILL_START: it has sampled i_size;
 *   2. task A truncates F to 1 page and stops at RP_INVAL_DROPPED: the
 *      cache is dropped, the blocks are still F's;
 *   3. B goes on: the test waits until B stopped at RP_FILL_MAPPED (page
 *      inserted, block mapped, read not submitted) or B waits for F's
 *      invalidate_lock - the fixed kernel must do the latter;
 *   4. A frees the blocks: poisoned on disk and queued to be allocated
 *      first (ext2_debug_reuse_freed); file G takes them and writes 'G';
 *   5. B submits its read and ends.
 * Rule: when truncate has returned, no page of F is cached past its new
 * EOF (Linux's truncate promise; mm/invalidate.c's unlock check reports a
 * page back in the range too). In legacy mode (invalidate_lock=off) B
 * inserts page 2 after A dropped the cache, from an i_size it read before
 * A changed it; in the fixed kernel B waits for the lock and then reads
 * i_size again. Legacy mode must show the bug - each case then reports
 * "bug observed as expected in legacy mode" and passes; the fixed kernel
 * must never show it. ext2 reads nothing at or past i_size, so against
 * truncate the leftover page holds zeroes, not stale bytes: stale bytes
 * need an invalidation that keeps the size (hole punch). G is re-read
 * from disk: the other file must be intact in both modes.
 * The NOWAIT case also checks, while A holds the lock, that preadv2
 * RWF_NOWAIT of a !uptodate page returns -EAGAIN at once (trylock).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <fs/ext2/ext2.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>

#define F_PATH	  "/race_f"
#define G_PATH	  "/race_g"
#define NPAGES	  4
#define KEEP	  PAGE_SIZE /* A truncates F to this */
#define VICTIM	  2	    /* the page B fills */
#define NOWAIT_MS 5000	    /* a NOWAIT read that takes this long blocked */

enum fill_kind {
	FILL_READ_MISS,
	FILL_READ_NOT_UPTODATE,
	FILL_SYNC_RA,
	FILL_ASYNC_RA,
	FILL_FADVISE,
	FILL_READAHEAD,
	FILL_NOWAIT,
};

struct race_case {
	enum fill_kind kind;
	struct address_space *m; /* F's */
	char *buf;		 /* B's page */
	int b_err;		 /* B: 0, or the errno of its call */
	ssize_t c_ret;		 /* the NOWAIT task's result */
	int c_errno;
	bool c_done;
};

static int write_file(const char *path, char ch, unsigned int npages)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644), err = 0;

	if (!buf || fd < 0) {
		kfree(buf);
		return fd < 0 ? -errno : -ENOMEM;
	}
	memset(buf, ch, PAGE_SIZE);
	for (unsigned int i = 0; i < npages && !err; i++)
		if (write(fd, buf, PAGE_SIZE) != PAGE_SIZE)
			err = -EIO;
	if (!err && fsync(fd))
		err = -errno;
	/* Written back and clean: drop them, the next read must miss. */
	if (!err)
		err = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	kfree(buf);
	return err;
}

/* A page left in the cache !uptodate, as a failed read leaves it. */
static void insert_not_uptodate(struct address_space *m, unsigned long index)
{
	struct inode *inode = m->host;
	struct page *page;

	down_write(&inode->i_rwsem); /* may insert: as a write would */
	page = filemap_grab_page(m, index);
	up_write(&inode->i_rwsem);
	if (!IS_ERR(page)) {
		unlock_page(page);
		put_page(page);
	}
}

/* Page VICTIM - 1 cached and uptodate, carrying the readahead mark. */
static void cache_marked_page(struct address_space *m)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int fd = open(F_PATH, O_RDONLY);
	struct page *page;

	if (fd >= 0 && buf) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); /* just the page */
		pread(fd, buf, PAGE_SIZE, (VICTIM - 1) * PAGE_SIZE);
	}
	if (fd >= 0)
		close(fd);
	kfree(buf);
	page = filemap_get_page(m, VICTIM - 1);
	if (page) {
		page_set(page, PG_readahead);
		put_page(page);
	}
}

static int filler(void *arg)
{
	struct race_case *rc = arg;
	int fd = open(F_PATH, O_RDONLY), ret = 0;
	loff_t at = VICTIM * PAGE_SIZE;

	if (fd < 0)
		return 1;
	switch (rc->kind) {
	case FILL_READ_MISS:
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		ret = pread(fd, rc->buf, PAGE_SIZE, at) < 0;
		break;
	case FILL_ASYNC_RA:
		ret = pread(fd, rc->buf, PAGE_SIZE, at - PAGE_SIZE) < 0;
		break;
	case FILL_FADVISE:
		ret = posix_fadvise(fd, at, PAGE_SIZE, POSIX_FADV_WILLNEED);
		break;
	case FILL_READAHEAD: ret = readahead(fd, at, PAGE_SIZE) < 0; break;
	default: ret = pread(fd, rc->buf, PAGE_SIZE, at) < 0; break;
	}
	rc->b_err = ret ? errno : 0;
	close(fd);
	return ret;
}

/* An invalidation for task A, and how a case sees that it went wrong. */
struct race_op {
	const char *name;
	int (*run)(void); /* 0 or an errno */
	/* Return: what broke the operation's promise, or NULL. */
	const char *(*observe)(struct ktest *t, struct race_case *rc);
};

static int truncate_f(void)
{
	return truncate(F_PATH, KEEP) ? errno : 0;
}

static int invalidator(void *arg)
{
	const struct race_op *op = arg;

	return op->run();
}

static int nowait_reader(void *arg)
{
	struct race_case *rc = arg;
	struct iovec iov = { rc->buf, PAGE_SIZE };
	int fd = open(F_PATH, O_RDONLY);

	rc->c_ret = fd < 0 ? -1 : preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	rc->c_errno = errno;
	if (fd >= 0)
		close(fd);
	WRITE_ONCE(rc->c_done, true);
	return 0;
}

static bool waits_for_lock(void *arg)
{
	struct address_space *m = arg;

	return rwsem_nr_waiters(&m->invalidate_lock) > 0;
}

static bool nowait_done(void *arg)
{
	return READ_ONCE(((struct race_case *)arg)->c_done);
}

/* While A holds the lock: NOWAIT on !uptodate page 0 gives -EAGAIN at
 * once; in the fixed kernel through a failed trylock (counted). */
static void check_nowait(struct ktest *t, struct race_case *rc)
{
	unsigned long tries = rc->m->invalidate_lock.stats.contended;
	struct task *c = task_create("nowait", nowait_reader, rc);

	KTEST_ASSERT_FALSE(t, IS_ERR(c));
	for (uint64_t end = time_ns() + NOWAIT_MS * NSEC_PER_MSEC;
	     !nowait_done(rc) && time_ns() < end;)
		task_sleep_ms(1);
	KTEST_ASSERT_TRUE(t, nowait_done(rc)); /* it did not block */
	task_join(c);
	KTEST_EXPECT_EQ(t, rc->c_ret, -1);
	KTEST_EXPECT_EQ(t, rc->c_errno, EAGAIN);
	if (!filemap_legacy_mode())
		KTEST_EXPECT_EQ(
		    t, rc->m->invalidate_lock.stats.contended, tries + 1);
}

/* Truncate's promise: once it returned, no page of F is cached past
 * the EOF it set. */
static const char *observe_truncate(struct ktest *t, struct race_case *rc)
{
	struct page *page = filemap_get_page(rc->m, VICTIM);

	KTEST_EXPECT_EQ(t, READ_ONCE(rc->m->host->i_size), KEEP);
	if (!page)
		return NULL;
	put_page(page);
	return "a page cached past the EOF truncate set";
}

/* G, read back from disk, must hold only 'G'. */
static void check_g_intact(struct ktest *t, char *buf)
{
	int fd = open(G_PATH, O_RDONLY), bad = 0;

	KTEST_ASSERT_GE(t, fd, 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (unsigned int i = 0; i < NPAGES; i++) {
		KTEST_EXPECT_EQ(t, read(fd, buf, PAGE_SIZE), PAGE_SIZE);
		for (size_t j = 0; j < PAGE_SIZE; j++)
			bad += buf[j] != 'G';
	}
	close(fd);
	KTEST_EXPECT_EQ(t, bad, 0);
}

static void setup_kind(struct race_case *rc)
{
	if (rc->kind == FILL_READ_NOT_UPTODATE)
		insert_not_uptodate(rc->m, VICTIM);
	if (rc->kind == FILL_NOWAIT)
		insert_not_uptodate(rc->m, 0);
	if (rc->kind == FILL_ASYNC_RA)
		cache_marked_page(rc->m);
}

static const struct race_op op_truncate = { "truncate",
					    truncate_f,
					    observe_truncate };

static void
run_race(struct ktest *t, const struct race_op *op, enum fill_kind kind)
{
	struct race_case rc = { .kind = kind };
	unsigned long leftovers = filemap_invalidate_leftovers();
	bool legacy = filemap_legacy_mode();
	struct task *a, *b;
	const char *bug;
	struct file *f;
	int stopped;

	KTEST_ASSERT_EQ(t, write_file(F_PATH, 'F', NPAGES), 0);
	f = vfs_open(F_PATH, O_RDONLY, 0); /* keeps the inode cached */
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	rc.m = f->f_mapping;
	rc.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, rc.buf);
	setup_kind(&rc);
	ext2_debug_reuse_freed(f->f_inode->i_sb, true);

	race_arm(RP_FILL_START);
	b = task_create("filler", filler, &rc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_ASSERT_EQ(t, race_wait(RP_FILL_START, NULL, NULL), 1);
	race_arm(RP_INVAL_DROPPED);
	a = task_create(op->name, invalidator, (void *)op);
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_ASSERT_EQ(t, race_wait(RP_INVAL_DROPPED, NULL, NULL), 1);
	if (kind == FILL_NOWAIT)
		check_nowait(t, &rc);
	race_arm_for(RP_FILL_MAPPED, b); /* A may read pages too */
	race_release(RP_FILL_START);
	stopped = race_wait(RP_FILL_MAPPED, waits_for_lock, rc.m);
	KTEST_EXPECT_EQ(t, stopped, legacy ? 1 : 0);
	if (stopped == 0)
		ktest_log(
		    t, "filler waits for invalidate_lock held by %s", op->name);
	race_release(RP_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, task_join(a), 0);
	KTEST_EXPECT_EQ(t, write_file(G_PATH, 'G', NPAGES), 0);
	race_release(RP_FILL_MAPPED);
	KTEST_EXPECT_EQ(t, task_join(b), 0);
	ext2_debug_reuse_freed(f->f_inode->i_sb, false);

	bug = op->observe(t, &rc);
	check_g_intact(t, rc.buf);
	if (legacy) {
		KTEST_EXPECT_NOT_NULL(t, bug);
		KTEST_EXPECT_EQ(
		    t, filemap_invalidate_leftovers(), leftovers + 1);
		if (bug)
			ktest_log(t,
				  "bug observed as expected in legacy mode: "
				  "page %d of F: %s",
				  VICTIM,
				  bug);
	} else {
		KTEST_EXPECT_NULL(t, bug);
		KTEST_EXPECT_EQ(t, filemap_invalidate_leftovers(), leftovers);
		if (bug)
			ktest_log(t, "page %d of F: %s", VICTIM, bug);
	}
	fput(f);
	kfree(rc.buf);
	KTEST_EXPECT_EQ(t, unlink(F_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(G_PATH), 0);
}

static void race_truncate_read_miss(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_READ_MISS);
}

static void race_truncate_read_not_uptodate(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_READ_NOT_UPTODATE);
}

static void race_truncate_sync_readahead(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_SYNC_RA);
}

static void race_truncate_async_readahead(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_ASYNC_RA);
}

static void race_truncate_fadvise_willneed(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_FADVISE);
}

static void race_truncate_readahead_call(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_READAHEAD);
}

static void race_truncate_nowait_read(struct ktest *t)
{
	run_race(t, &op_truncate, FILL_NOWAIT);
}

static struct ktest_case race_truncate_cases[] = {
	KTEST_CASE(race_truncate_read_miss),
	KTEST_CASE(race_truncate_read_not_uptodate),
	KTEST_CASE(race_truncate_sync_readahead),
	KTEST_CASE(race_truncate_async_readahead),
	KTEST_CASE(race_truncate_fadvise_willneed),
	KTEST_CASE(race_truncate_readahead_call),
	KTEST_CASE(race_truncate_nowait_read),
	{},
};
KTEST_SUITE(race_truncate, race_truncate_cases);

/*
 * tests/race_fill_scope_test.c: suite race_fill_scope - how far a fill
 * holds invalidate_lock, and what orders the rest of its read.
 *
 * Task B reads page V of a file that is not cached (through readahead,
 * and with readahead off through the one-page path) and is held at
 * RACE_FILL_MAPPED: its new page inserted and locked, its block mapped,
 * its bio not yet sent. Then:
 *   - invalidate_lock is free (a trylock exclusive succeeds): the fill held
 *     it around the insertion only (docs/locking.md, "A new page's read
 *     needs only its page lock");
 *   - a punch of page V (task A) takes the lock exclusive and waits in the
 *     truncation for V's page lock: it is asleep holding the lock and does
 *     not reach RACE_INVAL_DROPPED, so V's block is not freed while B's
 *     read of it is pending;
 *   - released, B returns V's old bytes - or zeroes, when it looked V up
 *     again after its read and the punch had dropped V by then (readahead
 *     reads, then looks; both are a pread beside a punch), never a mix -
 *     A finishes, and V reads as zeroes.
 * Invalidation takes the lock in legacy mode too and the page lock is the
 * same, so the suite passes in the four race boots alike.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/rwsem.h>
#include <kernel/sched.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>

#define S_PATH	 "/race_fill_scope"
#define S_PAGES	 4
#define S_VICTIM 1

struct scope_case {
	struct address_space *m;
	struct task *punch;
	char *buf; /* B's page */
	bool one;  /* B reads with readahead off: read_one_page */
	ssize_t n; /* what B's pread returned */
	bool done; /* B has read */
};

/* S_PAGES pages, page i all 'a' + i, on disk and out of the cache. */
static int make_cold_file(char *buf)
{
	int fd = open(S_PATH, O_CREAT | O_TRUNC | O_RDWR, 0644), err = 0;

	if (fd < 0)
		return -1;
	for (int i = 0; i < S_PAGES && !err; i++) {
		memset(buf, 'a' + i, PAGE_SIZE);
		err = write(fd, buf, PAGE_SIZE) != PAGE_SIZE;
	}
	err = err || fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return err ? -1 : 0;
}

static int punch_victim(void *arg)
{
	int fd = open(S_PATH, O_RDWR), err;

	(void)arg;
	if (fd < 0)
		return 1;
	err = fallocate(fd,
			FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			S_VICTIM * PAGE_SIZE,
			PAGE_SIZE) != 0;
	close(fd);
	return err;
}

static int read_victim(void *arg)
{
	struct scope_case *sc = arg;
	int fd = open(S_PATH, O_RDONLY);

	sc->n = -1;
	if (fd >= 0) {
		if (sc->one)
			posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		sc->n = pread(fd, sc->buf, PAGE_SIZE, S_VICTIM * PAGE_SIZE);
		close(fd);
	}
	WRITE_ONCE(sc->done, true);
	return 0;
}

static bool read_done(void *arg)
{
	return READ_ONCE(((struct scope_case *)arg)->done);
}

/* A holds invalidate_lock exclusive and sleeps (on V's page lock). */
static bool punch_waits_for_page(void *arg)
{
	struct scope_case *sc = arg;

	return READ_ONCE(sc->m->invalidate_lock.writer) == sc->punch &&
	       READ_ONCE(sc->punch->state) == TASK_SLEEPING;
}

static int count_bytes(const char *buf, char c)
{
	int n = 0;

	for (size_t i = 0; i < PAGE_SIZE; i++)
		n += buf[i] == c;
	return n;
}

static void fill_scope(struct ktest *t, bool one)
{
	struct scope_case sc = { .buf = kmalloc(PAGE_SIZE, GFP_KERNEL),
				 .one = one };
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	unsigned long leftovers = filemap_invalidate_leftovers();
	struct task *b;
	struct file *f;
	bool free;
	int fd, old;

	KTEST_ASSERT_TRUE(t, sc.buf && buf);
	KTEST_ASSERT_EQ(t, make_cold_file(buf), 0);
	f = vfs_open(S_PATH, O_RDONLY, 0); /* keeps the inode cached */
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	sc.m = f->f_mapping;
	KTEST_ASSERT_FALSE(t, filemap_cached(sc.m, S_VICTIM));

	race_arm(RACE_FILL_MAPPED);
	b = task_create("reader", read_victim, &sc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	KTEST_ASSERT_EQ(t, race_wait(RACE_FILL_MAPPED, read_done, &sc), 1);

	/* B's page is locked and its block mapped; the lock is free. */
	free = down_write_trylock(&sc.m->invalidate_lock);
	KTEST_EXPECT_TRUE(t, free);
	if (!free) { /* B holds it: the punch would wait for B, not V */
		race_release(RACE_FILL_MAPPED);
		KTEST_EXPECT_EQ(t, task_join(b), 0);
		goto out;
	}
	up_write(&sc.m->invalidate_lock);

	race_arm(RACE_INVAL_DROPPED);
	sc.punch = task_create("punch", punch_victim, NULL);
	KTEST_ASSERT_FALSE(t, IS_ERR(sc.punch));
	KTEST_EXPECT_EQ(
	    t, race_wait(RACE_INVAL_DROPPED, punch_waits_for_page, &sc), 0);
	KTEST_EXPECT_FALSE(t, read_done(&sc));

	race_release(RACE_FILL_MAPPED);
	KTEST_EXPECT_EQ(t, race_wait(RACE_INVAL_DROPPED, NULL, NULL), 1);
	race_release(RACE_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, task_join(b), 0);
	KTEST_EXPECT_EQ(t, task_join(sc.punch), 0);
	KTEST_EXPECT_EQ(t, sc.n, (ssize_t)PAGE_SIZE);
	old = count_bytes(sc.buf, 'a' + S_VICTIM);
	KTEST_EXPECT_TRUE(
	    t, old == PAGE_SIZE || count_bytes(sc.buf, 0) == PAGE_SIZE);
	if (old != PAGE_SIZE)
		ktest_log(t, "B looked again after the punch: zeroes");

	fd = open(S_PATH, O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(
	    t, pread(fd, buf, PAGE_SIZE, S_VICTIM * PAGE_SIZE), PAGE_SIZE);
	if (filemap_invalidate_leftovers() != leftovers) {
		/* Legacy mode only: B's look-up after its read came after
		 * the punch dropped V, and its second fill, with no lock,
		 * put V back before the block was freed: legacy's bug. */
		KTEST_EXPECT_TRUE(t, filemap_legacy_mode());
		KTEST_EXPECT_EQ(t, count_bytes(buf, 'a' + S_VICTIM), PAGE_SIZE);
		ktest_log(t, "legacy: B filled V again during the punch");
	} else {
		KTEST_EXPECT_EQ(t, count_bytes(buf, 0), PAGE_SIZE);
	}
	KTEST_EXPECT_EQ(t, pread(fd, buf, PAGE_SIZE, 0), PAGE_SIZE);
	KTEST_EXPECT_EQ(t, count_bytes(buf, 'a'), PAGE_SIZE);
	close(fd);
out:
	fput(f);
	kfree(buf);
	kfree(sc.buf);
	KTEST_EXPECT_EQ(t, unlink(S_PATH), 0);
}

/* A readahead batch (mm/readahead.c read_batch). */
static void race_fill_scope_readahead(struct ktest *t)
{
	fill_scope(t, false);
}

/* Readahead off: the one page (mm/filemap_read.c read_one_page). */
static void race_fill_scope_one_page(struct ktest *t)
{
	fill_scope(t, true);
}

static struct ktest_case race_fill_scope_cases[] = {
	KTEST_CASE(race_fill_scope_readahead),
	KTEST_CASE(race_fill_scope_one_page),
	{},
};
KTEST_SUITE(race_fill_scope, race_fill_scope_cases);

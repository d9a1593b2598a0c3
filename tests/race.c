/*
 * tests/race.c: the harness of the race reproducers - the tasks, the
 * schedule forced by race points, the checks common to every operation
 * (see tests/race.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
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
#include "race.h"

#define NOWAIT_MS 5000 /* a NOWAIT read that takes this long blocked */

/* @npages pages, page i all @ch + i * @step; written back and dropped. */
int race_write_file(const char *path, char ch, int step, unsigned int npages)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644), err = 0;

	if (!buf || fd < 0) {
		kfree(buf);
		return fd < 0 ? -errno : -ENOMEM;
	}
	for (unsigned int i = 0; i < npages && !err; i++) {
		memset(buf, ch + (int)i * step, PAGE_SIZE);
		if (write(fd, buf, PAGE_SIZE) != PAGE_SIZE)
			err = -EIO;
	}
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

/* Page RACE_VICTIM - 1 cached and uptodate, carrying the readahead mark. */
static void cache_marked_page(struct address_space *m)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int fd = open(RACE_F_PATH, O_RDONLY);
	struct page *page;

	if (fd >= 0 && buf) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); /* just the page */
		pread(fd, buf, PAGE_SIZE, (RACE_VICTIM - 1) * PAGE_SIZE);
	}
	if (fd >= 0)
		close(fd);
	kfree(buf);
	page = filemap_get_page(m, RACE_VICTIM - 1);
	if (page) {
		page_set(page, PG_readahead);
		put_page(page);
	}
}

/* Map F shared and load page RACE_VICTIM: the fault fills the cache. The
 * mapping ends with this task (a bus error may end it first). */
static int fault_in(struct race_case *rc, int fd)
{
	char *p =
	    mmap(NULL, RACE_NPAGES * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return 1;
	memcpy(rc->buf, p + RACE_VICTIM * PAGE_SIZE, PAGE_SIZE);
	return 0;
}

/* Map F shared and madvise(WILLNEED) page RACE_VICTIM: readahead. */
static int madvise_in(int fd)
{
	char *p =
	    mmap(NULL, RACE_NPAGES * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return 1;
	madvise(p + RACE_VICTIM * PAGE_SIZE, PAGE_SIZE, MADV_WILLNEED);
	return 0;
}

/* Map F shared, load page RACE_VICTIM (cached by setup_kind: no fill),
 * then store one byte: the write fault and page_mkwrite are the fill. The
 * byte is the one the operation leaves there (rc->store), so the store
 * changes nothing the observe checks. */
static int store_in(struct race_case *rc, int fd)
{
	char *p = mmap(NULL,
		       RACE_NPAGES * PAGE_SIZE,
		       PROT_READ | PROT_WRITE,
		       MAP_SHARED,
		       fd,
		       0);
	volatile char *at;

	if (p == MAP_FAILED)
		return 1;
	at = p + RACE_VICTIM * PAGE_SIZE;
	(void)*at; /* a read-only entry first: the store must upgrade it */
	*at = rc->store;
	return 0;
}

/*
 * A fill that starts its read and returns (an async window, fadvise,
 * readahead(2), madvise) must still end with it: when the operation goes
 * on after the filler (filler_first), a bio of the filler still in flight
 * could reach the device after the operation's writes (QEMU completes
 * requests in any order) and read what they wrote - legacy mode's stale
 * page would then hold the new bytes by luck. Wait until page
 * RACE_VICTIM, if cached, is unlocked (its read done).
 */
static void wait_victim_read(struct address_space *m)
{
	struct page *page = filemap_get_page(m, RACE_VICTIM);

	if (page) {
		wait_on_page_locked(page);
		put_page(page);
	}
}

int race_filler(void *arg)
{
	struct race_case *rc = arg;
	int fd =
	    open(RACE_F_PATH, rc->kind == FILL_MKWRITE ? O_RDWR : O_RDONLY);
	int ret = 0;
	loff_t at = RACE_VICTIM * PAGE_SIZE;

	if (fd < 0)
		return 1;
	switch (rc->kind) {
	case FILL_READ_MISS:
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		ret = pread(fd, rc->buf, PAGE_SIZE, at) < 0;
		break;
	case FILL_ASYNC_RA:
	case FILL_RA_WORKER:
		ret = pread(fd, rc->buf, PAGE_SIZE, at - PAGE_SIZE) < 0;
		break;
	case FILL_FADVISE:
		ret = posix_fadvise(fd, at, PAGE_SIZE, POSIX_FADV_WILLNEED);
		break;
	case FILL_READAHEAD: ret = readahead(fd, at, PAGE_SIZE) < 0; break;
	case FILL_FAULT: ret = fault_in(rc, fd); break;
	case FILL_MADVISE: ret = madvise_in(fd); break;
	case FILL_MKWRITE: ret = store_in(rc, fd); break;
	default: ret = pread(fd, rc->buf, PAGE_SIZE, at) < 0; break;
	}
	close(fd);
	if (rc->kind == FILL_ASYNC_RA || rc->kind == FILL_FADVISE ||
	    rc->kind == FILL_READAHEAD || rc->kind == FILL_MADVISE)
		wait_victim_read(rc->m);
	return ret;
}

const char *race_observe_page(struct ktest *t, struct race_case *rc, char want)
{
	struct iovec iov = { rc->buf, PAGE_SIZE };
	loff_t at = RACE_VICTIM * PAGE_SIZE;
	int fd = open(RACE_F_PATH, O_RDONLY);
	ssize_t n;

	KTEST_ASSERT_GE(t, fd, 0);
	if (rc->kind == FILL_NOWAIT)
		n = preadv2(fd, &iov, 1, at, RWF_NOWAIT);
	else
		n = pread(fd, rc->buf, PAGE_SIZE, at);
	close(fd);
	if (n < 0 && errno == EAGAIN && rc->kind == FILL_NOWAIT)
		return NULL; /* nothing cached: no stale page either */
	KTEST_EXPECT_EQ(t, n, PAGE_SIZE);
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = rc->buf[i];

		if (c == (unsigned char)want)
			continue;
		if (c >= 'a' && c < 'a' + RACE_NPAGES)
			return "stale data of F";
		if (c == 'G')
			return "another file's (G) data";
		if (c == EXT2_POISON_BYTE)
			return "a freed block's poison";
		return c ? "garbage" : "zeroes";
	}
	return NULL;
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
	int fd = open(RACE_F_PATH, O_RDONLY);

	rc->c_ret = fd < 0 ? -1 : preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	rc->c_errno = errno;
	if (fd >= 0)
		close(fd);
	WRITE_ONCE(rc->c_done, true);
	return 0;
}

bool race_waits_for_lock(void *mapping)
{
	struct address_space *m = mapping;

	return rwsem_nr_waiters(&m->invalidate_lock) > 0;
}

/* B waits for the lock, or has ended (killed by a bus error). */
static bool filler_blocked_or_gone(void *arg)
{
	struct race_case *rc = arg;

	return race_waits_for_lock(rc->m) ||
	       READ_ONCE(rc->fill_task->state) == TASK_DEAD;
}

/* B has ended (@code); with FILL_RA_WORKER, the worker's window has also
 * been read (readahead_cancel waits for the window being read), and so
 * has the page, as wait_victim_read says. */
static void fill_done(struct ktest *t, struct race_case *rc, int code)
{
	if (rc->kind == FILL_RA_WORKER) {
		readahead_cancel(rc->m);
		wait_victim_read(rc->m);
	}
	race_check_filler(t, rc, code);
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

/* G, read back from disk, must hold only 'G'. Return: true if it does. */
bool race_check_g_intact(struct ktest *t, char *buf)
{
	int fd = open(RACE_G_PATH, O_RDONLY), bad = 0;

	KTEST_ASSERT_GE(t, fd, 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (unsigned int i = 0; i < RACE_NPAGES; i++) {
		KTEST_EXPECT_EQ(t, read(fd, buf, PAGE_SIZE), PAGE_SIZE);
		for (size_t j = 0; j < PAGE_SIZE; j++)
			bad += buf[j] != 'G';
	}
	close(fd);
	KTEST_EXPECT_EQ(t, bad, 0);
	return !bad;
}

void race_setup_kind(struct race_case *rc)
{
	if (rc->kind == FILL_READ_NOT_UPTODATE)
		insert_not_uptodate(rc->m, RACE_VICTIM);
	if (rc->kind == FILL_NOWAIT)
		insert_not_uptodate(rc->m, 0);
	if (rc->kind == FILL_ASYNC_RA || rc->kind == FILL_RA_WORKER)
		cache_marked_page(rc->m);
	if (rc->kind == FILL_MKWRITE) { /* the load hits: the store fills */
		int fd = open(RACE_F_PATH, O_RDONLY);

		if (fd >= 0) {
			pread(fd, rc->buf, PAGE_SIZE, RACE_VICTIM * PAGE_SIZE);
			close(fd);
		}
	}
}

/* B's exit: 0, except a fault on a page that is past EOF once it is
 * mapped, which ends B with a bus error (SIGBUS in Linux). B's mapping
 * went when it was joined (vm_release_task), whether or not it lived to
 * unmap it. */
void race_check_filler(struct ktest *t, struct race_case *rc, int code)
{
	bool past =
	    READ_ONCE(rc->m->host->i_size) <= (loff_t)(RACE_VICTIM * PAGE_SIZE);

	bool faults = rc->kind == FILL_FAULT || rc->kind == FILL_MKWRITE;

	KTEST_EXPECT_EQ(t, code, faults && past ? TASK_EXIT_KILLED : 0);
}

void race_run(struct ktest *t, const struct race_op *op, enum fill_kind kind)
{
	struct race_case rc = { .kind = kind, .store = op->victim_after };
	unsigned long leftovers = filemap_invalidate_leftovers();
	bool legacy = filemap_legacy_mode();
	bool immune = kind == FILL_MKWRITE && op->mkwrite_past_eof;
	unsigned int worker_min = 0;
	struct task *a, *b;
	const char *bug;
	struct file *f;
	int stopped;

	KTEST_ASSERT_EQ(
	    t, race_write_file(RACE_F_PATH, 'a', 1, RACE_NPAGES), 0);
	f = vfs_open(RACE_F_PATH, O_RDONLY, 0); /* keeps the inode cached */
	KTEST_ASSERT_FALSE(t, IS_ERR(f));
	rc.m = f->f_mapping;
	rc.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, rc.buf);
	race_setup_kind(&rc);
	ext2_debug_reuse_freed(f->f_inode->i_sb, true);

	if (kind == FILL_RA_WORKER) { /* B's one-page window goes to it */
		KTEST_ASSERT_NOT_NULL(t, readahead_worker_task());
		worker_min = readahead_set_worker_min(1);
	}
	race_arm(RACE_FILL_START);
	b = task_create("filler", race_filler, &rc);
	KTEST_ASSERT_FALSE(t, IS_ERR(b));
	rc.filler = b;
	rc.fill_task = kind == FILL_RA_WORKER ? readahead_worker_task() : b;
	KTEST_ASSERT_EQ(t, race_wait(RACE_FILL_START, NULL, NULL), 1);
	race_arm(RACE_INVAL_DROPPED);
	a = task_create(op->name, invalidator, (void *)op);
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_ASSERT_EQ(t, race_wait(RACE_INVAL_DROPPED, NULL, NULL), 1);
	if (kind == FILL_NOWAIT)
		check_nowait(t, &rc);
	race_arm_for(RACE_FILL_MAPPED, rc.fill_task); /* A may read too */
	race_release(RACE_FILL_START);
	stopped = race_wait(RACE_FILL_MAPPED, filler_blocked_or_gone, &rc);
	KTEST_EXPECT_EQ(t, stopped, legacy && !immune ? 1 : 0);
	if (stopped == 0 && READ_ONCE(rc.fill_task->state) == TASK_DEAD)
		ktest_log(t, "filler ended by a bus error before page_mkwrite");
	else if (stopped == 0)
		ktest_log(
		    t, "filler waits for invalidate_lock held by %s", op->name);
	if (stopped == 1 && op->filler_first) { /* B reads, then A goes on */
		race_release(RACE_FILL_MAPPED);
		fill_done(t, &rc, task_join(b));
	}
	race_release(RACE_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, task_join(a), 0);
	KTEST_EXPECT_EQ(
	    t, race_write_file(RACE_G_PATH, 'G', 0, RACE_NPAGES), 0);
	if (stopped != 1 || !op->filler_first) {
		race_release(RACE_FILL_MAPPED);
		fill_done(t, &rc, task_join(b));
	}
	if (kind == FILL_RA_WORKER)
		readahead_set_worker_min(worker_min);
	ext2_debug_reuse_freed(f->f_inode->i_sb, false);

	bug = op->observe(t, &rc);
	race_check_g_intact(t, rc.buf);
	if (legacy && !immune) {
		KTEST_EXPECT_NOT_NULL(t, bug);
		KTEST_EXPECT_EQ(
		    t, filemap_invalidate_leftovers(), leftovers + 1);
		if (bug)
			ktest_log(t,
				  "bug observed as expected in legacy mode: "
				  "page %d of F: %s",
				  RACE_VICTIM,
				  bug);
	} else {
		KTEST_EXPECT_NULL(t, bug);
		KTEST_EXPECT_EQ(t, filemap_invalidate_leftovers(), leftovers);
		if (bug)
			ktest_log(t, "page %d of F: %s", RACE_VICTIM, bug);
	}
	fput(f);
	kfree(rc.buf);
	KTEST_EXPECT_EQ(t, unlink(RACE_F_PATH), 0);
	KTEST_EXPECT_EQ(t, unlink(RACE_G_PATH), 0);
}

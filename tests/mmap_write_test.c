/*
 * tests/mmap_write_test.c: suite vfs_mmap_write - a buffered write whose
 * source is a file mapping that changes under it.
 *
 * filemap_write brings the source in, then copies it into the page it
 * holds locked (write_begin..write_end). The source can leave the page
 * tables between the two (munmap, madvise DONTNEED, reclaim, a truncate of
 * its file). The copy then meets a fault, which must not be taken under
 * the page lock: the fault takes mmap_lock and may need that very page or
 * its file's locks (lockdep reports it), and a bad address would kill the
 * writer holding i_rwsem and the page. Each case stops the writer at
 * RACE_WRITE_COPY (page locked, copy not started), changes the source
 * and lets it go: the copy stops short, the page is let go, and the
 * write faults the source in again outside the lock - the data arrives,
 * or the write fails with EFAULT as Linux's does.
 *
 * And a shared mapping over a file that grows: with blocks smaller than a
 * page, page_mkwrite gives disk blocks only to the blocks inside i_size,
 * so the page that holds EOF may be mapped writable over blocks that have
 * none. When the file grows past them (truncate up, a write past EOF,
 * fallocate past EOF) the next store there must fault into page_mkwrite
 * again, or writeback finds its data with no block to go to and it is
 * lost (issue #31's defect 2; Linux: pagecache_isize_extended).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/lockdep.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <linux/falloc.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "mmap_test.h"

#define DEST_NAME "/mmap_write_dest.bin"
#define SRC_OFF	  (8 * 4096) /* the page of /big.bin the write copies */

struct copy_case {
	const uint8_t *src; /* a shared mapping of /big.bin at SRC_OFF */
	ssize_t ret;
	int err;
};

/* The destination: one page of 'x', cached, so that write_begin takes its
 * page lock with lock_page (which lockdep follows; a new page's trylock is
 * not). */
static void make_dest(struct ktest *t)
{
	char *buf = kmalloc(4096, GFP_KERNEL);
	int fd = open(DEST_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644);

	KTEST_ASSERT_TRUE(t, buf && fd >= 0);
	memset(buf, 'x', 4096);
	KTEST_EXPECT_EQ(t, write(fd, buf, 4096), 4096);
	close(fd);
	kfree(buf);
}

/* Byte @i of the destination is @want(i) (or 'x' with @want NULL). */
static void check_dest(struct ktest *t, uint8_t (*want)(long i))
{
	uint8_t *buf = kmalloc(4096, GFP_KERNEL);
	int fd = open(DEST_NAME, O_RDONLY), bad = 0;

	KTEST_ASSERT_TRUE(t, buf && fd >= 0);
	KTEST_EXPECT_EQ(t, read(fd, buf, 4096), 4096);
	KTEST_EXPECT_EQ(t, read(fd, buf, 1), 0); /* the size */
	for (int i = 0; i < 4096; i++)
		bad += buf[i] != (want ? want(SRC_OFF + i) : 'x');
	KTEST_EXPECT_EQ(t, bad, 0);
	close(fd);
	kfree(buf);
}

static int write_from_map(void *arg)
{
	struct copy_case *c = arg;
	int fd = open(DEST_NAME, O_RDWR);

	if (fd < 0)
		return 1;
	c->ret = write(fd, c->src, 4096);
	c->err = errno;
	close(fd);
	return 0;
}

/* Start the writer, stop it with the destination page locked, let
 * @change run, then let the writer go. Return: the writer's exit. */
static int write_across(struct ktest *t,
			struct copy_case *c,
			void (*change)(struct copy_case *c))
{
	struct task *w;

	race_arm(RACE_WRITE_COPY);
	w = task_create("writer", write_from_map, c);
	KTEST_ASSERT_FALSE(t, IS_ERR(w));
	KTEST_EXPECT_EQ(t, race_wait(RACE_WRITE_COPY, NULL, NULL), 1);
	change(c);
	race_release(RACE_WRITE_COPY);
	return task_join(w);
}

static uint8_t *map_source(struct ktest *t, int *fd)
{
	uint8_t *p;

	*fd = open("/big.bin", O_RDONLY);
	KTEST_ASSERT_TRUE(t, *fd >= 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, *fd, SRC_OFF);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	return p;
}

static void drop_entry(struct copy_case *c)
{
	madvise((void *)c->src, 4096, MADV_DONTNEED);
}

static void unmap_source(struct copy_case *c)
{
	munmap((void *)c->src, 4096);
}

/* The source's entry is dropped: the data still arrives, and no fault ran
 * under the page lock (lockdep would have reported mmap_lock inside it). */
static void write_source_entry_dropped(struct ktest *t)
{
	unsigned long reports = lockdep_reports();
	struct copy_case c = { 0 };
	int fd;

	make_dest(t);
	c.src = map_source(t, &fd);
	KTEST_EXPECT_EQ(t, write_across(t, &c, drop_entry), 0);
	KTEST_EXPECT_EQ(t, c.ret, 4096);
	KTEST_EXPECT_EQ(t, lockdep_reports(), reports);
	munmap((void *)c.src, 4096);
	close(fd);
	check_dest(t, big_byte);
	KTEST_EXPECT_EQ(t, unlink(DEST_NAME), 0);
}

/* The source is unmapped: the write fails with EFAULT and changes
 * nothing, and the writer lives (the fault under the locks killed it,
 * holding i_rwsem and the page). */
static void write_source_unmapped(struct ktest *t)
{
	unsigned long reports = lockdep_reports();
	struct copy_case c = { 0 };
	int fd;

	make_dest(t);
	c.src = map_source(t, &fd);
	KTEST_EXPECT_EQ(t, write_across(t, &c, unmap_source), 0);
	KTEST_EXPECT_EQ(t, c.ret, -1);
	KTEST_EXPECT_EQ(t, c.err, EFAULT);
	KTEST_EXPECT_EQ(t, lockdep_reports(), reports);
	close(fd);
	check_dest(t, NULL);
	KTEST_EXPECT_EQ(t, unlink(DEST_NAME), 0);
}

/* A source nothing maps - low memory, or a mapping's area after munmap -
 * fails the write with EFAULT before any page is taken, and the writer
 * lives. */
static void write_source_never_mapped(struct ktest *t)
{
	const void *low = (const void *)0x1000;
	void *gone;
	int fd;

	make_dest(t);
	fd = open(DEST_NAME, O_RDWR);
	KTEST_ASSERT_TRUE(t, fd >= 0);
	gone = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, gone != MAP_FAILED);
	munmap(gone, 4096);
	KTEST_EXPECT_EQ(t, write(fd, low, 4096), -1);
	KTEST_EXPECT_EQ(t, errno, EFAULT);
	KTEST_EXPECT_EQ(t, pwrite(fd, gone, 4096, 0), -1);
	KTEST_EXPECT_EQ(t, errno, EFAULT);
	close(fd);
	check_dest(t, NULL);
	KTEST_EXPECT_EQ(t, unlink(DEST_NAME), 0);
}

#define GROW_NAME "/mmap_grow.bin"

enum grow_how { GROW_TRUNCATE, GROW_WRITE, GROW_FALLOCATE, NR_GROW };

static int grow(int fd, enum grow_how how)
{
	switch (how) {
	case GROW_TRUNCATE: return ftruncate(fd, 4096);
	case GROW_WRITE: return pwrite(fd, "w", 1, 8192) == 1 ? 0 : -1;
	default: return fallocate(fd, 0, 8192, 4096);
	}
}

/* One KiB of data, then a shared writable mapping that stores at 0 (the
 * page gets its blocks inside EOF), the file grows, and a store lands at
 * 2048 - past the old EOF, inside the new one. It must reach the disk. */
static void grow_then_store(struct ktest *t, enum grow_how how)
{
	char *buf = kmalloc(4096, GFP_KERNEL);
	volatile char *p;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	memset(buf, 'o', 1024);
	fd = open(GROW_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644);
	KTEST_ASSERT_TRUE(t, fd >= 0);
	KTEST_EXPECT_EQ(t, pwrite(fd, buf, 1024, 0), 1024);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	p[0] = 'm'; /* page_mkwrite: the entry is writable from here on */
	KTEST_EXPECT_EQ(t, grow(fd, how), 0);
	p[2048] = 0x33;
	KTEST_EXPECT_EQ(t, msync((void *)p, 4096, MS_SYNC), 0);
	munmap((void *)p, 4096);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 4096, 0), 4096);
	KTEST_EXPECT_EQ(t, buf[0], 'm');
	KTEST_EXPECT_EQ(t, buf[1023], 'o');
	KTEST_EXPECT_EQ(t, buf[2048], 0x33);
	KTEST_EXPECT_EQ(t, buf[2047], 0);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(GROW_NAME), 0);
	kfree(buf);
}

static void grow_write_protects_eof_page(struct ktest *t)
{
	for (int how = 0; how < NR_GROW; how++) {
		ktest_log(t, "growth %d of truncate, write, fallocate", how);
		grow_then_store(t, how);
	}
}

static struct ktest_case mmap_write_cases[] = {
	KTEST_CASE(grow_write_protects_eof_page),
	KTEST_CASE(write_source_entry_dropped),
	KTEST_CASE(write_source_unmapped),
	KTEST_CASE(write_source_never_mapped),
	{},
};
KTEST_SUITE(vfs_mmap_write, mmap_write_cases);

/*
 * tests/mmap_test.c: suite vfs_mmap - file mappings of the root ext2
 * (the vfs_* boots, tools/vfsimg.py's image: /big.bin is 300000 bytes of
 * big_byte(i), /hello.txt "hello, world\n").
 *
 * Rules checked: a mapping shows the file's bytes whether the pages were
 * cached or not, and faulting cached pages takes invalidate_lock zero
 * times; a store to a shared mapping over a hole allocates its blocks and
 * the data reaches the disk with msync (the post-check reads
 * /mmap_persist.bin with debugfs); writeback write-protects the page
 * again, so the next store dirties it again; a private mapping's store
 * leaves the file alone; a fault under invalidate_lock is reported; a
 * write from a mapping of its own file, cold, completes; errno values are
 * Linux's. What ends a mapping's entries (truncate, the
 * removal door, bad accesses) is tests/mmap_unmap_test.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/lockdep.h>
#include <kernel/sched.h>
#include <fs/internal.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include <mm/vm.h>
#include "mmap_test.h"

#define PERSIST_NAME "/mmap_persist.bin"

/* Byte i of /mmap_persist.bin (tools/vfsimg.py: mmap_persist_byte). */
static uint8_t mmap_persist_byte(long i)
{
	return (i * 11 + 3) & 0xff;
}

static unsigned long inval_acquisitions(int fd)
{
	struct file *f = fd_get(fd);
	unsigned long n;

	if (!f)
		return 0;
	n = f->f_mapping->invalidate_lock.stats.shared +
	    f->f_mapping->invalidate_lock.stats.exclusive;
	fput(f);
	return n;
}

bool check_big(struct ktest *t, const volatile uint8_t *p)
{
	for (long i = 0; i < BIG_SIZE; i++)
		if (p[i] != big_byte(i)) {
			KTEST_EXPECT_EQ(t, p[i], big_byte(i));
			return false;
		}
	return true;
}

static void mmap_errors(struct ktest *t)
{
	int ro = open("/hello.txt", O_RDONLY),
	    wo = open("/hello.txt", O_WRONLY);
	int dir = open("/dir", O_RDONLY);
	void *p;

	KTEST_ASSERT_TRUE(t, ro >= 0 && wo >= 0 && dir >= 0);
	errno = 0;
	KTEST_EXPECT_TRUE(
	    t, mmap(NULL, 4096, PROT_READ, MAP_SHARED, 99, 0) == MAP_FAILED);
	KTEST_EXPECT_EQ(t, errno, EBADF);
	mmap(NULL, 0, PROT_READ, MAP_SHARED, ro, 0);
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, 100);
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	mmap(NULL, 4096, PROT_READ, 0, ro, 0); /* neither shared nor private */
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	mmap(NULL, 4096, PROT_READ, MAP_SHARED_VALIDATE | 0x100000, ro, 0);
	KTEST_EXPECT_EQ(t, errno, EOPNOTSUPP);
	mmap(NULL, 1UL << 40, PROT_READ, MAP_SHARED, ro, 0);
	KTEST_EXPECT_EQ(t, errno, ENOMEM);
	mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
	KTEST_EXPECT_EQ(t, errno, EACCES);
	mmap(NULL, 4096, PROT_READ, MAP_SHARED, wo, 0);
	KTEST_EXPECT_EQ(t, errno, EACCES);
	mmap(NULL, 4096, PROT_READ, MAP_SHARED, dir, 0);
	KTEST_EXPECT_EQ(t, errno, ENODEV);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED_VALIDATE, ro, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	KTEST_EXPECT_EQ(t, munmap(p, 4096), 0);
	/* A private writable mapping of a read-only file is allowed. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	KTEST_EXPECT_EQ(t, munmap((char *)p + 1, 4096), -1);
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	KTEST_EXPECT_EQ(t, munmap(p, 4096), 0);
	KTEST_EXPECT_EQ(t, munmap(p, 4096), 0); /* nothing there: fine */
	close(ro);
	close(wo);
	close(dir);
}

static void fault_cached_takes_no_lock(struct ktest *t)
{
	static char buf[BIG_SIZE];
	int fd = open("/big.bin", O_RDONLY);
	unsigned long before;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	KTEST_ASSERT_EQ(t, pread(fd, buf, BIG_SIZE, 0), BIG_SIZE); /* cached */
	p = mmap(NULL, BIG_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	before = inval_acquisitions(fd);
	check_big(t, p);
	KTEST_EXPECT_EQ(t, inval_acquisitions(fd) - before, 0);
	munmap(p, BIG_SIZE);
	/* The same addresses again (first fit), their page tables there now:
	 * every fault is a lock-free one (mm/fault.c), no lock at all. */
	KTEST_ASSERT_TRUE(
	    t, mmap(NULL, BIG_SIZE, PROT_READ, MAP_SHARED, fd, 0) == p);
	before = lockdep_acquired();
	check_big(t, p);
	KTEST_EXPECT_EQ(t, lockdep_acquired() - before, 0);
	munmap(p, BIG_SIZE);
	close(fd);
}

static void fault_uncached_reads_in(struct ktest *t)
{
	int fd = open("/big.bin", O_RDONLY);
	unsigned long before;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	p = mmap(NULL, BIG_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	before = inval_acquisitions(fd);
	check_big(t, p);
	if (!filemap_legacy_mode())
		KTEST_EXPECT_GT(t, inval_acquisitions(fd) - before, 0);
	munmap(p, BIG_SIZE);
	close(fd);
}

static void madvise_willneed_reads_ahead(struct ktest *t)
{
	int fd = open("/big.bin", O_RDONLY);
	struct file *f;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	p = mmap(NULL, BIG_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	KTEST_EXPECT_EQ(t, madvise(p, BIG_SIZE, MADV_WILLNEED), 0);
	f = fd_get(fd);
	KTEST_ASSERT_NOT_NULL(t, f);
	for (unsigned long i = 0; i < DIV_ROUND_UP(BIG_SIZE, PAGE_SIZE); i++) {
		struct page *page = filemap_get_page(f->f_mapping, i);

		KTEST_EXPECT_NOT_NULL(t, page); /* in the cache, no fault */
		if (page)
			put_page(page);
		KTEST_EXPECT_EQ(
		    t, vm_mmap_lookup((uintptr_t)p + i * PAGE_SIZE, NULL), 0);
	}
	fput(f);
	check_big(t, p);
	KTEST_EXPECT_EQ(t, madvise(p + 1, 10, MADV_WILLNEED), -1);
	KTEST_EXPECT_EQ(t, errno, EINVAL);
	munmap(p, BIG_SIZE);
	close(fd);
}

static bool page_dirty(int fd, unsigned long index)
{
	struct file *f = fd_get(fd);
	struct page *page = f ? filemap_get_page(f->f_mapping, index) : NULL;
	bool dirty = page && page_test(page, PG_dirty);

	if (page)
		put_page(page);
	if (f)
		fput(f);
	return dirty;
}

/*
 * 3 pages of hole; the store into page 1 allocates its blocks
 * (PAGE_SIZE/512 sectors of st_blocks, no indirect block below 12
 * blocks); msync writes it and leaves it clean and write-protected; the
 * next store dirties it again. The file stays for the post-check. The
 * flusher is held meanwhile: its round every WRITEBACK_INTERVAL_MS would
 * clean the page between a store and the check that it is dirty (it did,
 * once in a full run).
 */
static void mkwrite_fills_hole(struct ktest *t)
{
	int fd = open(PERSIST_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct stat st;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	KTEST_ASSERT_EQ(t, ftruncate(fd, 3 * PAGE_SIZE), 0);
	p = mmap(
	    NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	writeback_hold_flusher(true); /* no assertion returns until released */
	KTEST_EXPECT_EQ(t, p[PAGE_SIZE], 0); /* a hole reads zeroes */
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, 0);
	for (long i = 0; i < (long)PAGE_SIZE; i++)
		p[PAGE_SIZE + i] = mmap_persist_byte(PAGE_SIZE + i);
	KTEST_EXPECT_TRUE(t, page_dirty(fd, 1));
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, PAGE_SIZE / 512);
	KTEST_EXPECT_EQ(t, msync(p, 3 * PAGE_SIZE, MS_SYNC), 0);
	KTEST_EXPECT_FALSE(t, page_dirty(fd, 1));
	p[PAGE_SIZE] =
	    mmap_persist_byte(PAGE_SIZE); /* same byte, but a store */
	KTEST_EXPECT_TRUE(t, page_dirty(fd, 1));
	KTEST_EXPECT_EQ(t, msync(p, 3 * PAGE_SIZE, MS_SYNC), 0);
	writeback_hold_flusher(false);
	munmap(p, 3 * PAGE_SIZE);
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, PAGE_SIZE / 512);
	close(fd);
}

static void private_store_leaves_file(struct ktest *t)
{
	int fd = open("/hello.txt", O_RDWR);
	char *priv, *shared, buf[16] = { 0 };

	KTEST_ASSERT_TRUE(t, fd >= 0);
	priv =
	    mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	shared = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, priv != MAP_FAILED && shared != MAP_FAILED);
	KTEST_EXPECT_EQ(t, priv[0], 'h');
	priv[0] = 'J';
	KTEST_EXPECT_EQ(t, priv[0], 'J');
	KTEST_EXPECT_EQ(t, shared[0], 'h');
	KTEST_EXPECT_FALSE(t, page_dirty(fd, 0));
	KTEST_EXPECT_EQ(t, msync(priv, PAGE_SIZE, MS_SYNC), 0);
	munmap(priv, PAGE_SIZE);
	munmap(shared, PAGE_SIZE);
	KTEST_EXPECT_TRUE(t, vfs_drop_caches() >= 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, sizeof(buf), 0), 13);
	KTEST_EXPECT_STREQ(t, buf, "hello, world\n");
	close(fd);
}

/* A copy that faults while its task holds invalidate_lock breaks the lock
 * order (the fault takes mmap_lock, which comes first): the checker must
 * say so. The page is cached, so the fault itself goes through. */
static void fault_under_invalidate_lock_is_reported(struct ktest *t)
{
	int fd = open("/hello.txt", O_RDONLY);
	unsigned long before = lockdep_reports();
	struct file *f = fd_get(fd);
	char *p, c = 0, buf[4];

	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_ASSERT_EQ(t, pread(fd, buf, sizeof(buf), 0), (long)sizeof(buf));
	p = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	filemap_invalidate_lock_shared(f->f_mapping);
	c = *(volatile char *)p;
	filemap_invalidate_unlock_shared(f->f_mapping);
	KTEST_EXPECT_EQ(t, c, 'h');
	KTEST_EXPECT_EQ(t, lockdep_reports(), before + 1);
	munmap(p, PAGE_SIZE);
	fput(f);
	close(fd);
}

/*
 * write() from a shared mapping of the very file it writes, cold: the
 * write puts the run of pages it will create in the cache ahead
 * (mm/filemap.c write_prefill), and its source faults on some of them.
 * They are not locked, so the fault reads them in instead of waiting for
 * the writer; each source page is read before the write reaches it (it
 * lies 16 pages ahead), so the file ends as a forward copy.
 */
#define SELF_PAGES 80

static uint8_t self_byte(long i)
{
	return (i * 7 + i / 4096) & 0xff;
}

static void write_from_own_mapping(struct ktest *t)
{
	const size_t size = SELF_PAGES * 4096, shift = 16 * 4096;
	uint8_t *buf = kmalloc(size, GFP_KERNEL);
	uint8_t *p;
	int fd;

	KTEST_ASSERT_NOT_NULL(t, buf);
	for (size_t i = 0; i < size; i++)
		buf[i] = self_byte(i);
	fd = open("/mmap_self.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	KTEST_ASSERT_TRUE(t, fd >= 0);
	KTEST_ASSERT_EQ(t, pwrite(fd, buf, size, 0), (ssize_t)size);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	KTEST_EXPECT_EQ(
	    t, pwrite(fd, p + shift, size - shift, 0), (ssize_t)(size - shift));
	munmap(p, size);
	KTEST_ASSERT_EQ(t, pread(fd, buf, size, 0), (ssize_t)size);
	for (size_t i = 0; i < size; i++) {
		uint8_t want = self_byte(i < size - shift ? i + shift : i);

		if (buf[i] != want) {
			KTEST_EXPECT_EQ(t, buf[i], want);
			break;
		}
	}
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/mmap_self.bin"), 0);
	kfree(buf);
}

static struct ktest_case mmap_cases[] = {
	KTEST_CASE(mmap_errors),
	KTEST_CASE(fault_cached_takes_no_lock),
	KTEST_CASE(fault_uncached_reads_in),
	KTEST_CASE(madvise_willneed_reads_ahead),
	KTEST_CASE(mkwrite_fills_hole),
	KTEST_CASE(private_store_leaves_file),
	KTEST_CASE(fault_under_invalidate_lock_is_reported),
	KTEST_CASE(write_from_own_mapping),
	{},
};
KTEST_SUITE(vfs_mmap, mmap_cases);

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
 * leaves the file alone; an access wholly past EOF, or to an unmapped
 * page, ends only its task; truncate removes the entries on every hart
 * (a task pinned on another hart, which has the page in its TLB, faults
 * afterwards); errno values are Linux's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/lockdep.h>
#include <kernel/sched.h>
#include <kernel/wait.h>
#include <fs/internal.h>
#include <mm/mmap.h>
#include <mm/vm.h>

#define BIG_SIZE     300000
#define PERSIST_NAME "/mmap_persist.bin"

static uint8_t big_byte(long i)
{
	return (i * 7 + i / 4096) & 0xff;
}

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

static bool check_big(struct ktest *t, const volatile uint8_t *p)
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
 * next store dirties it again. The file stays for the post-check.
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

struct toucher {
	volatile uint8_t *addr;
	struct completion touched, go;
	bool wait_go;
	uint8_t seen;
};

/* Load @addr (once, or again after @go): a bad one ends this task. */
static int touch(void *arg)
{
	struct toucher *to = arg;

	to->seen = *to->addr;
	complete(&to->touched);
	if (to->wait_go) {
		wait_for_completion(&to->go);
		to->seen = *to->addr;
	}
	return 0;
}

static int run_toucher(struct toucher *to, int cpu)
{
	struct task *task;

	init_completion(&to->touched);
	init_completion(&to->go);
	task = task_create_on("mmap-touch", touch, to, cpu);
	return IS_ERR(task) ? -1 : task_join(task);
}

static void bad_access_ends_task(struct ktest *t)
{
	int fd = open("/hello.txt", O_RDONLY);
	struct toucher to = { .wait_go = false };
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	p = mmap(NULL, 4 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	to.addr = p + 100; /* past EOF, inside the last page: zero */
	KTEST_EXPECT_EQ(t, run_toucher(&to, CPU_ANY), 0);
	KTEST_EXPECT_EQ(t, to.seen, 0);
	to.addr = p + PAGE_SIZE; /* wholly past EOF: bus error */
	KTEST_EXPECT_EQ(t, run_toucher(&to, CPU_ANY), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, munmap(p + 2 * PAGE_SIZE, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, p[0], 'h'); /* the rest of the split area works */
	to.addr = p + 2 * PAGE_SIZE;   /* unmapped: segmentation fault */
	KTEST_EXPECT_EQ(t, run_toucher(&to, CPU_ANY), TASK_EXIT_KILLED);
	munmap(p, 4 * PAGE_SIZE);
	close(fd);
}

/* A task on another hart has page 1 in its TLB; truncate to one page
 * removes the entry on every hart, so its next load faults past EOF. */
static void truncate_unmaps_every_hart(struct ktest *t)
{
	int fd = open("/mmap_trunc.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct toucher to = { .wait_go = true };
	static char buf[2 * PAGE_SIZE];
	struct task *task;
	uint8_t *p;
	int cpu;

	if (ncpus < 2)
		KTEST_ASSERT_TRUE(t, !"this case needs two harts");
	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	p = mmap(NULL, 2 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	to.addr = p + PAGE_SIZE;
	init_completion(&to.touched);
	init_completion(&to.go);
	cpu = (cpu_id() + 1) % ncpus;
	task = task_create_on("mmap-touch", touch, &to, cpu);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	wait_for_completion(&to.touched);
	KTEST_EXPECT_EQ(t, to.seen, 0x5a);
	KTEST_EXPECT_EQ(t, ftruncate(fd, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup((uintptr_t)p + PAGE_SIZE, NULL), 0);
	complete(&to.go);
	KTEST_EXPECT_EQ(t, task_join(task), TASK_EXIT_KILLED);
	KTEST_EXPECT_EQ(t, p[0], 0x5a);
	munmap(p, 2 * PAGE_SIZE);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/mmap_trunc.bin"), 0);
}

/* Every caller of the removal door (punch, collapse: fs/ext2) unmaps
 * what it drops: the door itself removes the entries of each page it
 * deletes. A shared and a private mapping lose the file's page; the
 * private copy of another page stays. */
static void cache_drop_unmaps_page(struct ktest *t)
{
	int fd = open("/big.bin", O_RDONLY);
	uintptr_t sh, pr;
	struct file *f;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	sh = (uintptr_t)mmap(NULL, 3 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	pr = (uintptr_t)mmap(
	    NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	KTEST_ASSERT_TRUE(t, sh != (uintptr_t)MAP_FAILED);
	KTEST_ASSERT_TRUE(t, pr != (uintptr_t)MAP_FAILED);
	f = fd_get(fd);
	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_EXPECT_EQ(
	    t, *(volatile uint8_t *)(sh + PAGE_SIZE), big_byte(PAGE_SIZE));
	KTEST_EXPECT_EQ(
	    t, *(volatile uint8_t *)(pr + PAGE_SIZE), big_byte(PAGE_SIZE));
	*(volatile uint8_t *)(pr + 2 * PAGE_SIZE) = 1; /* a private copy */
	filemap_invalidate_lock(f->f_mapping);
	truncate_inode_pages_range(f->f_mapping, 0, 2 * PAGE_SIZE - 1);
	filemap_invalidate_unlock(f->f_mapping);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup(sh + PAGE_SIZE, NULL), 0);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup(pr + PAGE_SIZE, NULL), 0);
	KTEST_EXPECT_NE(t, vm_mmap_lookup(pr + 2 * PAGE_SIZE, NULL), 0);
	/* The blocks are still there: the next load reads them again. */
	KTEST_EXPECT_EQ(
	    t, *(volatile uint8_t *)(sh + PAGE_SIZE), big_byte(PAGE_SIZE));
	KTEST_EXPECT_EQ(t, *(volatile uint8_t *)(pr + 2 * PAGE_SIZE), 1);
	fput(f);
	munmap((void *)sh, 3 * PAGE_SIZE);
	munmap((void *)pr, 3 * PAGE_SIZE);
	close(fd);
}

/* A cut inside a page frees the blocks under its tail (1 and 2 KiB
 * blocks) but keeps the page mapped; the entry is write-protected by then
 * (the cut writes the EOF block back, and truncate_page write-protects a
 * partial page too), so the next store faults into page_mkwrite, which
 * allocates the blocks again (st_blocks counts them), and the byte
 * reaches the disk. */
static void cut_page_faults_again(struct ktest *t)
{
	int fd = open("/mmap_cut.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[PAGE_SIZE];
	struct stat st;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(buf, 0x11, sizeof(buf));
	KTEST_ASSERT_EQ(t, write(fd, buf, PAGE_SIZE), (long)PAGE_SIZE);
	p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	p[0] = 0x22; /* mapped writable now */
	KTEST_EXPECT_EQ(t, ftruncate(fd, 1000), 0);
	KTEST_EXPECT_EQ(t, ftruncate(fd, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, p[3000], 0); /* the cut part reads zeroes */
	p[3000] = 0x33;
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, PAGE_SIZE / 512);
	KTEST_EXPECT_EQ(t, msync(p, PAGE_SIZE, MS_SYNC), 0);
	munmap(p, PAGE_SIZE);
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, PAGE_SIZE, 0), (long)PAGE_SIZE);
	KTEST_EXPECT_EQ(t, buf[0], 0x22);
	KTEST_EXPECT_EQ(t, buf[999], 0x11);
	KTEST_EXPECT_EQ(t, buf[1000], 0);
	KTEST_EXPECT_EQ(t, buf[3000], 0x33);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/mmap_cut.bin"), 0);
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

static struct ktest_case mmap_cases[] = {
	KTEST_CASE(mmap_errors),
	KTEST_CASE(fault_cached_takes_no_lock),
	KTEST_CASE(fault_uncached_reads_in),
	KTEST_CASE(madvise_willneed_reads_ahead),
	KTEST_CASE(mkwrite_fills_hole),
	KTEST_CASE(private_store_leaves_file),
	KTEST_CASE(bad_access_ends_task),
	KTEST_CASE(truncate_unmaps_every_hart),
	KTEST_CASE(cache_drop_unmaps_page),
	KTEST_CASE(cut_page_faults_again),
	KTEST_CASE(fault_under_invalidate_lock_is_reported),
	{},
};
KTEST_SUITE(vfs_mmap, mmap_cases);

/*
 * tests/mmap_unmap_test.c: suite vfs_mmap_unmap - what ends the entries
 * of a file mapping, in the vfs_* boots (tools/vfsimg.py's image).
 *
 * Rules checked: an access wholly past EOF (a bus error) or to an
 * unmapped page (a segmentation fault) ends only its task; what a task
 * mapped and left mapped goes when it is joined, however it ended; truncate
 * removes the entries on every hart (a task pinned on another hart, which
 * has the page in its TLB, faults afterwards); the removal door unmaps
 * each page it deletes, private copies aside, so a punch unmaps too; a
 * cut or punched page is written to again through page_mkwrite; a private
 * copy (copy-on-write) past the start of a collapse or insert goes (the
 * file's bytes moved under it: the next load reads what is there now), one
 * inside a punched hole stays - Linux's truncate_pagecache (even_cows) and
 * truncate_pagecache_range. A store's copy-on-write copies the page the
 * file holds when it locks it: a collapse that moved the file's bytes
 * between the look-up and the lock makes it look again.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/falloc.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/wait.h>
#include <fs/internal.h>
#include <mm/mmap.h>
#include <mm/vm.h>
#include "mmap_test.h"

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

struct maker {
	bool bus_error; /* end by a load past EOF, not by returning */
	uintptr_t left; /* what it left mapped: 2 pages */
};

/* Map 4 pages of /hello.txt (one page long), unmap page 1, then page 0
 * (a split, then a removal), and end with [2, 4) still mapped and the
 * file still open. */
static int map_and_end(void *arg)
{
	struct maker *mk = arg;
	int fd = open("/hello.txt", O_RDONLY);
	uint8_t *p;

	if (fd < 0)
		return 1;
	p = mmap(NULL, 4 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || munmap(p + PAGE_SIZE, PAGE_SIZE) ||
	    munmap(p, PAGE_SIZE))
		return 1;
	WRITE_ONCE(mk->left, (uintptr_t)p + 2 * PAGE_SIZE);
	if (mk->bus_error)
		(void)*(volatile uint8_t *)(p + 2 * PAGE_SIZE);
	return 0;
}

static bool mapped_at(uintptr_t addr)
{
	bool found;

	down_read(&kernel_mm.mmap_lock);
	found = vm_find_area(&kernel_mm, addr) != NULL;
	up_read(&kernel_mm.mmap_lock);
	return found;
}

/* A task's mappings end with it, as its descriptors do: a task killed by
 * a bus error could not unmap, and its mapping would have held the file
 * (and the mount: an unclean unmount) for good. The area left is a split
 * one, so the count of the task's areas has to follow splits too. */
static void maker_end_unmaps(struct ktest *t)
{
	int fd = open("/hello.txt", O_RDONLY);
	struct address_space *m;
	struct file *f;
	bool none;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	f = fd_get(fd);
	KTEST_ASSERT_NOT_NULL(t, f);
	m = f->f_mapping;
	for (int bus = 0; bus < 2; bus++) {
		struct maker mk = { .bus_error = bus };
		struct task *task = task_create("mmap-maker", map_and_end, &mk);

		KTEST_ASSERT_FALSE(t, IS_ERR(task));
		KTEST_EXPECT_EQ(t, task_join(task), bus ? TASK_EXIT_KILLED : 0);
		KTEST_ASSERT_NE(t, mk.left, 0);
		KTEST_EXPECT_FALSE(t, mapped_at(mk.left));
		KTEST_EXPECT_FALSE(t, mapped_at(mk.left + PAGE_SIZE));
		mutex_lock(&m->i_mmap_lock);
		none = list_empty(&m->i_mmap);
		mutex_unlock(&m->i_mmap_lock);
		KTEST_EXPECT_TRUE(t, none);
	}
	fput(f);
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

/* An unlinked file stays readable through its mapping, and goes (inode
 * and blocks: e2fsck checks the image afterwards) at munmap. */
static void unlinked_file_lives_until_munmap(struct ktest *t)
{
	int fd = open("/mmap_gone.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[2 * PAGE_SIZE];
	struct stat st;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(buf, 0x6b, sizeof(buf));
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	p = mmap(NULL, sizeof(buf), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	KTEST_EXPECT_EQ(t, close(fd), 0);
	KTEST_EXPECT_EQ(t, unlink("/mmap_gone.bin"), 0);
	KTEST_EXPECT_EQ(t, stat("/mmap_gone.bin", &st), -1);
	KTEST_EXPECT_EQ(t, p[PAGE_SIZE], 0x6b);
	p[PAGE_SIZE] = 0x6c;
	KTEST_EXPECT_EQ(t, p[PAGE_SIZE], 0x6c);
	KTEST_EXPECT_EQ(t, munmap(p, sizeof(buf)), 0);
}

/* Punch (fallocate) drops a mapped page through the removal door: its
 * entry goes, the page reads zeroes from the hole, and a store there
 * faults into page_mkwrite, which allocates the blocks again; the bytes
 * reach the disk. */
static void punch_unmaps_and_refills(struct ktest *t)
{
	int fd = open("/mmap_punch.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[3 * PAGE_SIZE];
	struct stat st;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(buf, 0x11, sizeof(buf));
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	p = mmap(NULL, sizeof(buf), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	p[PAGE_SIZE] = 0x22; /* mapped writable, dirty */
	KTEST_EXPECT_EQ(t,
			fallocate(fd,
				  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  PAGE_SIZE,
				  PAGE_SIZE),
			0);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup((uintptr_t)p + PAGE_SIZE, NULL), 0);
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, 2 * PAGE_SIZE / 512);
	KTEST_EXPECT_EQ(t, p[PAGE_SIZE], 0); /* the hole */
	p[PAGE_SIZE + 5] = 0x33;
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, 3 * PAGE_SIZE / 512);
	KTEST_EXPECT_EQ(t, msync(p, sizeof(buf), MS_SYNC), 0);
	munmap(p, sizeof(buf));
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, sizeof(buf), 0), (long)sizeof(buf));
	KTEST_EXPECT_EQ(t, buf[PAGE_SIZE - 1], 0x11);
	KTEST_EXPECT_EQ(t, buf[PAGE_SIZE], 0);
	KTEST_EXPECT_EQ(t, buf[PAGE_SIZE + 5], 0x33);
	KTEST_EXPECT_EQ(t, buf[2 * PAGE_SIZE], 0x11);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/mmap_punch.bin"), 0);
}

/* F holds pages 'a', 'b', 'c', 'd'; a private mapping has its own copy
 * of page 2 ('X'); then @mode on [@off, @off + PAGE_SIZE). Return: the
 * byte the mapping's page 2 reads afterwards. */
static int cow_after(struct ktest *t, int mode, loff_t off)
{
	int fd = open("/mmap_cow.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[4 * PAGE_SIZE];
	volatile char *p;
	int seen;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	for (int i = 0; i < 4; i++)
		memset(buf + i * PAGE_SIZE, 'a' + i, PAGE_SIZE);
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	p = mmap(NULL, sizeof(buf), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	p[2 * PAGE_SIZE] = 'X'; /* the private copy */
	KTEST_EXPECT_EQ(t, p[2 * PAGE_SIZE + 1], 'c');
	KTEST_EXPECT_EQ(t, fallocate(fd, mode, off, PAGE_SIZE), 0);
	seen = p[2 * PAGE_SIZE + 1];
	KTEST_EXPECT_EQ(t, p[2 * PAGE_SIZE], seen == 'c' ? 'X' : seen);
	munmap((void *)p, sizeof(buf));
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/mmap_cow.bin"), 0);
	return seen;
}

static void collapse_drops_private_copies(struct ktest *t)
{
	/* page 2 is 'd' now: the copy of 'c' went with the move */
	KTEST_EXPECT_EQ(
	    t, cow_after(t, FALLOC_FL_COLLAPSE_RANGE, PAGE_SIZE), 'd');
}

static void insert_drops_private_copies(struct ktest *t)
{
	KTEST_EXPECT_EQ(
	    t, cow_after(t, FALLOC_FL_INSERT_RANGE, PAGE_SIZE), 'b');
}

static void punch_keeps_private_copies(struct ktest *t)
{
	/* The copy is the task's own: a hole punched under it stays unseen. */
	int seen = cow_after(
	    t, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * PAGE_SIZE);

	KTEST_EXPECT_EQ(t, seen, 'c');
}

static int store_x(void *addr)
{
	*(volatile char *)addr = 'X';
	return 0;
}

/* The task has ended (a store that cannot be made kills it). */
static bool task_gone(void *task)
{
	return READ_ONCE(((struct task *)task)->state) == TASK_DEAD;
}

/* F holds 'a' 'b' 'c' 'd', all cached. A store to page 2 of a private
 * mapping finds the cached 'c' and stops before it locks it; a collapse of
 * page 1 then moves 'd' down to page 2 and drops the old pages (unmapping
 * every entry of them, copies too). The store's copy must be of what page
 * 2 holds now: the page lock, and page->mapping checked under it, say the
 * page it found has left the file (docs/labs.md, lab 10). */
static void private_copy_is_of_the_locked_page(struct ktest *t)
{
	int fd = open("/mmap_cow_lock.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[4 * PAGE_SIZE];
	volatile char *p;
	struct task *w;
	struct file *f;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	for (int i = 0; i < 4; i++)
		memset(buf + i * PAGE_SIZE, 'a' + i, PAGE_SIZE);
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	p = mmap(NULL, sizeof(buf), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	f = fd_get(fd);
	KTEST_ASSERT_NOT_NULL(t, f);
	race_arm_for_obj(RACE_FAULT_PAGE_FOUND, NULL, f->f_mapping);
	w = task_create("cow-store", store_x, (void *)(p + 2 * PAGE_SIZE));
	KTEST_ASSERT_FALSE(t, IS_ERR(w));
	KTEST_EXPECT_EQ(t, race_wait(RACE_FAULT_PAGE_FOUND, task_gone, w), 1);
	KTEST_EXPECT_EQ(
	    t,
	    fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, PAGE_SIZE, PAGE_SIZE),
	    0);
	race_release(RACE_FAULT_PAGE_FOUND);
	KTEST_EXPECT_EQ(t, task_join(w), 0);
	KTEST_EXPECT_EQ(t, p[2 * PAGE_SIZE], 'X');
	KTEST_EXPECT_EQ(t, p[2 * PAGE_SIZE + 1], 'd'); /* not the old 'c' */
	fput(f);
	munmap((void *)p, sizeof(buf));
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/mmap_cow_lock.bin"), 0);
}

static struct ktest_case mmap_unmap_cases[] = {
	KTEST_CASE(bad_access_ends_task),
	KTEST_CASE(maker_end_unmaps),
	KTEST_CASE(truncate_unmaps_every_hart),
	KTEST_CASE(cache_drop_unmaps_page),
	KTEST_CASE(cut_page_faults_again),
	KTEST_CASE(unlinked_file_lives_until_munmap),
	KTEST_CASE(punch_unmaps_and_refills),
	KTEST_CASE(collapse_drops_private_copies),
	KTEST_CASE(insert_drops_private_copies),
	KTEST_CASE(punch_keeps_private_copies),
	KTEST_CASE(private_copy_is_of_the_locked_page),
	{},
};
KTEST_SUITE(vfs_mmap_unmap, mmap_unmap_cases);

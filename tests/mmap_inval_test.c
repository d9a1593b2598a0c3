/*
 * tests/mmap_inval_test.c: suite vfs_mmap_inval - what an invalidation
 * does to the entries of the file mappings over the pages it drops or
 * cuts, in the vfs_* boots (one per block size).
 *
 *   - The entries it clears leave every hart's TLB before the blocks are
 *     freed (mm/rmap.c zap_batch: an SBI remote sfence.vma). A task pinned
 *     on the other hart loads a page of a shared mapping and spins there,
 *     never sleeping, so that nothing on its hart flushes its TLB (under
 *     QEMU an sfence.vma of any address flushes the whole TLB, and one
 *     on the toucher's hart while it sleeps hides a zap that flushed
 *     only this hart from vfs_mmap_unmap's truncate_unmaps_every_hart,
 *     which saw it now and then); this task punches that page; the
 *     spinner loads again and must fault into the hole's zeroes, not
 *     read the dropped page through a TLB line left on its hart.
 *   - A cut page that stays mapped loses its write right
 *     (mm/truncate.c truncate_page: page_mkclean of a partial page): with
 *     blocks smaller than a page, a punch of one block inside a page
 *     mapped writable frees that block, and the next store there must
 *     fault into page_mkwrite, which maps a block again (st_blocks counts
 *     it); a store through the old writable entry would dirty a block with
 *     no disk block, which writeback cannot write (ext2 reports it, msync
 *     fails, the byte is lost). With 4 KiB blocks the punch frees nothing
 *     and the case checks only the bytes.
 *     The flusher is held off meanwhile: its writeback would
 *     write-protect the page itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/falloc.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <fs/internal.h>
#include <mm/filemap.h>
#include <mm/mmap.h>
#include <mm/vm.h>

#define TLB_PATH "/mmap_tlb.bin"
#define CUT_PATH "/mmap_cut_block.bin"

struct spinner {
	volatile uint8_t *addr;
	uint8_t first, second;
	bool loaded, go;
};

/* Load, then spin without sleeping until told, then load again. */
static int spin_load(void *arg)
{
	struct spinner *s = arg;

	s->first = *s->addr;
	WRITE_ONCE(s->loaded, true);
	while (!READ_ONCE(s->go))
		arch_cpu_relax();
	s->second = *s->addr;
	return 0;
}

static void punch_flushes_every_hart(struct ktest *t)
{
	int fd = open(TLB_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[2 * PAGE_SIZE];
	struct spinner s = { 0 };
	struct task *task;
	uint8_t *p;

	if (ncpus < 2)
		KTEST_ASSERT_TRUE(t, !"this case needs two harts");
	KTEST_ASSERT_TRUE(t, fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	p = mmap(NULL, sizeof(buf), PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	s.addr = p + PAGE_SIZE;
	task = task_create_on(
	    "mmap-spin", spin_load, &s, (int)((cpu_id() + 1) % ncpus));
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	while (!READ_ONCE(s.loaded))
		task_yield();
	KTEST_EXPECT_EQ(t,
			fallocate(fd,
				  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  PAGE_SIZE,
				  PAGE_SIZE),
			0);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup((uintptr_t)p + PAGE_SIZE, NULL), 0);
	WRITE_ONCE(s.go, true);
	KTEST_EXPECT_EQ(t, task_join(task), 0);
	KTEST_EXPECT_EQ(t, s.first, 0x5a);
	KTEST_EXPECT_EQ(t, s.second, 0); /* the hole, not the old page */
	KTEST_EXPECT_EQ(t, p[0], 0x5a);
	munmap(p, sizeof(buf));
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(TLB_PATH), 0);
}

static void punched_block_faults_again(struct ktest *t)
{
	int fd = open(CUT_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);
	static char buf[3 * PAGE_SIZE];
	loff_t bs, off, len;
	struct stat st;
	struct file *f;
	uint8_t *p;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	f = fd_get(fd);
	KTEST_ASSERT_NOT_NULL(t, f);
	bs = f->f_inode->i_sb->s_blocksize;
	fput(f);
	/* Page 1's second block; with 4 KiB blocks, a KiB of its block. */
	off = PAGE_SIZE + (bs < (loff_t)PAGE_SIZE ? bs : 1024);
	len = bs < (loff_t)PAGE_SIZE ? bs : 1024;
	memset(buf, 0x11, sizeof(buf));
	KTEST_ASSERT_EQ(t, write(fd, buf, sizeof(buf)), (long)sizeof(buf));
	writeback_hold_flusher(true);
	p = mmap(NULL, sizeof(buf), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, p != MAP_FAILED);
	p[PAGE_SIZE] = 0x22; /* page 1 mapped writable, dirty */
	KTEST_EXPECT_EQ(
	    t,
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len),
	    0);
	KTEST_EXPECT_EQ(t, p[off], 0);
	fstat(fd, &st);
	if (bs < (loff_t)PAGE_SIZE)
		KTEST_EXPECT_EQ(t, st.st_blocks, (3 * PAGE_SIZE - bs) / 512);
	p[off + 5] = 0x33; /* faults: the block comes back */
	fstat(fd, &st);
	KTEST_EXPECT_EQ(t, st.st_blocks, 3 * PAGE_SIZE / 512);
	KTEST_EXPECT_EQ(t, msync(p, sizeof(buf), MS_SYNC), 0);
	writeback_hold_flusher(false);
	munmap(p, sizeof(buf));
	KTEST_ASSERT_TRUE(t, vfs_drop_caches() >= 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, sizeof(buf), 0), (long)sizeof(buf));
	KTEST_EXPECT_EQ(t, buf[PAGE_SIZE], 0x22);
	KTEST_EXPECT_EQ(t, buf[off - 1], 0x11);
	KTEST_EXPECT_EQ(t, buf[off], 0);
	KTEST_EXPECT_EQ(t, buf[off + 5], 0x33);
	KTEST_EXPECT_EQ(t, buf[off + len - 1], 0);
	KTEST_EXPECT_EQ(t, buf[off + len], 0x11);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(CUT_PATH), 0);
}

static struct ktest_case mmap_inval_cases[] = {
	KTEST_CASE(punch_flushes_every_hart),
	KTEST_CASE(punched_block_faults_again),
	{},
};
KTEST_SUITE(vfs_mmap_inval, mmap_inval_cases);

/*
 * tests/fs_pressure_test.c: big files through the page cache, the VFS and
 * ext2 while memory is short.
 *
 * The boot fs_pressure (tools/boots.py) mounts a fresh, empty ext2 image as
 * the root with 64 MiB of RAM, so the files below cannot all stay cached:
 * writing them makes reclaim write dirty pages back and drop clean ones,
 * and reading them back reads what reclaim wrote. Each word of a file is a
 * function of its offset and a per-file seed, so a page from the wrong
 * place, a stale page or a lost write shows at its first byte.
 *
 *   fs_pressure_one  one 128 MiB file: write in 1 MiB write()s, fsync,
 *                    read back and check, read and check again (the head
 *                    of the file reclaimed meanwhile), unlink
 *   fs_pressure_two  the same on two 48 MiB files at once, from two tasks
 *                    on different harts
 *   fs_pressure_reclaim_writes
 *                    8 MiB written and left dirty with the flusher held,
 *                    then pages taken until reclaim must write them back
 *                    itself (counted by vmscan_written); fsync, read back,
 *                    and the file /kept stays on the image
 *
 * The first two unlink their files; the post-check (tools/boots.py) runs
 * e2fsck on the image and compares /kept, dumped by debugfs, with the
 * same word_at() pattern computed on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <fs/vfs.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <mm/page_alloc.h>

#define CHUNK (1u << 20)
/* Kept on the image for the post-check; keep in step with tools/boots.py. */
#define KEPT_PATH "/kept"
#define KEPT_SIZE (8u << 20) /* under the dirty limit, a quarter of 64 MiB */
#define KEPT_SEED 0x5eed00c0

struct pressure_file {
	const char *path;
	size_t size;
	uint64_t seed;
	uint8_t *buf; /* CHUNK bytes, allocated before memory runs short */
	/* what went wrong, for the case to report (0: nothing) */
	long err;	/* -errno of the failing call */
	const char *op; /* which call */
	long bad_off;	/* first wrong byte of a read-back, or -1 */
};

static uint64_t word_at(uint64_t seed, uint64_t off)
{
	uint64_t x = (off >> 3) * 0x9e3779b97f4a7c15ULL + seed;

	return x ^ (x >> 29);
}

static void fill_chunk(const struct pressure_file *pf, size_t off)
{
	uint64_t *w = (uint64_t *)pf->buf;

	for (size_t i = 0; i < CHUNK / 8; i++)
		w[i] = word_at(pf->seed, off + i * 8);
}

/* Return: offset of the first wrong byte of the chunk at @off, or -1. */
static long check_chunk(const struct pressure_file *pf, size_t off)
{
	const uint64_t *w = (const uint64_t *)pf->buf;

	for (size_t i = 0; i < CHUNK / 8; i++)
		if (w[i] != word_at(pf->seed, off + i * 8))
			return (long)(off + i * 8);
	return -1;
}

static int failed(struct pressure_file *pf, const char *op, long ret)
{
	pf->op = op;
	pf->err = ret < 0 ? -errno : -EIO; /* short transfer: -EIO */
	return -1;
}

/* Write the whole file, not synced. Return: its open fd, or -1. */
static int write_data(struct pressure_file *pf)
{
	int fd = open(pf->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long n;

	if (fd < 0)
		return failed(pf, "open for write", fd);
	for (size_t off = 0; off < pf->size; off += CHUNK) {
		fill_chunk(pf, off);
		n = write(fd, pf->buf, CHUNK);
		if (n != CHUNK) {
			close(fd);
			return failed(pf, "write", n);
		}
	}
	return fd;
}

static int fsync_close(struct pressure_file *pf, int fd)
{
	long n = fsync(fd);

	close(fd);
	return n ? failed(pf, "fsync", n) : 0;
}

static int write_whole(struct pressure_file *pf)
{
	int fd = write_data(pf);

	return fd < 0 ? -1 : fsync_close(pf, fd);
}

static int read_whole(struct pressure_file *pf)
{
	int fd = open(pf->path, O_RDONLY);
	long n;

	if (fd < 0)
		return failed(pf, "open for read", fd);
	for (size_t off = 0; off < pf->size; off += CHUNK) {
		n = read(fd, pf->buf, CHUNK);
		if (n != CHUNK) {
			close(fd);
			return failed(pf, "read", n);
		}
		pf->bad_off = check_chunk(pf, off);
		if (pf->bad_off >= 0) {
			close(fd);
			pf->op = "read-back check";
			return -1;
		}
	}
	n = read(fd, pf->buf, 1); /* and nothing after the end */
	close(fd);
	return n ? failed(pf, "read at end", n < 0 ? n : 0) : 0;
}

/* Write, read twice, unlink. Return: 0, or -1 with pf->op set. */
static int pressure_run(void *arg)
{
	struct pressure_file *pf = arg;
	struct stat st;

	if (write_whole(pf))
		return -1;
	if (stat(pf->path, &st))
		return failed(pf, "stat", -1);
	if ((size_t)st.st_size != pf->size)
		return failed(pf, "stat size", 0);
	if (read_whole(pf) || read_whole(pf))
		return -1;
	if (unlink(pf->path))
		return failed(pf, "unlink", -1);
	return 0;
}

static void pressure_init(struct ktest *t,
			  struct pressure_file *pf,
			  const char *path,
			  size_t size,
			  uint64_t seed)
{
	*pf = (struct pressure_file){ path, size, seed, NULL, 0, NULL, -1 };
	pf->buf = kmalloc(CHUNK, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, pf->buf);
	unlink(path); /* left by an earlier, failed run */
}

static void report_failure(struct ktest *t, struct pressure_file *pf, int rc)
{
	KTEST_EXPECT_EQ(t, rc, 0);
	if (rc)
		ktest_log(t,
			  "%s: %s failed: err %ld, first bad byte %ld",
			  pf->path,
			  pf->op ? pf->op : "?",
			  pf->err,
			  pf->bad_off);
}

static void pressure_report(struct ktest *t, struct pressure_file *pf, int rc)
{
	report_failure(t, pf, rc);
	if (rc)
		unlink(pf->path); /* free its blocks for the next case */
	kfree(pf->buf);
}

static void pressure_one(struct ktest *t)
{
	unsigned long reclaimed = vmscan_reclaimed();
	struct pressure_file pf;

	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	pressure_init(t, &pf, "/big128", 128u << 20, 0x5eed0001);
	pressure_report(t, &pf, pressure_run(&pf));
	/* The cache could not have held it: reclaim must have run. */
	KTEST_EXPECT_GT(t, vmscan_reclaimed() - reclaimed, 0);
	ktest_log(t,
		  "reclaimed %lu pages, %lu written by reclaim since boot",
		  vmscan_reclaimed() - reclaimed,
		  vmscan_written());
}

static void pressure_two(struct ktest *t)
{
	struct pressure_file pf[2];
	struct task *task[2];

	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	pressure_init(t, &pf[0], "/big48a", 48u << 20, 0x5eed00a0);
	pressure_init(t, &pf[1], "/big48b", 48u << 20, 0x5eed00b0);
	for (int i = 0; i < 2; i++) {
		task[i] =
		    task_create_on("fs_pressure", pressure_run, &pf[i], i);
		KTEST_ASSERT_FALSE(t, IS_ERR(task[i]));
	}
	for (int i = 0; i < 2; i++)
		pressure_report(t, &pf[i], task_join(task[i]));
}

/* Take free pages (chained through their first word) until reclaim has
 * written @want pages back or memory is gone. Return: the chain. */
static void *take_pages_until_written(unsigned long want)
{
	unsigned long written = vmscan_written();
	void *chain = NULL;
	struct page *page;

	while (vmscan_written() - written < want &&
	       (page = alloc_pages(GFP_KERNEL, 0))) {
		*(void **)page_address(page) = chain;
		chain = page_address(page);
	}
	return chain;
}

static void give_pages_back(void *chain)
{
	while (chain) {
		void *next = *(void **)chain;

		free_pages_va(chain, 0);
		chain = next;
	}
}

/*
 * Reclaim must write dirty pages itself when nothing else will: the
 * clean cache is dropped first, the file's pages are left dirty with the
 * flusher held, and this task (holding no lock, so reclaim may write)
 * takes pages until reclaim has written a quarter of the file back.
 */
static void pressure_reclaim_writes(struct ktest *t)
{
	unsigned long written = vmscan_written();
	struct pressure_file pf;
	int fd, rc = -1;

	KTEST_ASSERT_NOT_NULL(t, vfs_root_sb());
	pressure_init(t, &pf, KEPT_PATH, KEPT_SIZE, KEPT_SEED);
	vfs_drop_caches();
	writeback_hold_flusher(true);
	fd = write_data(&pf);
	if (fd >= 0) {
		give_pages_back(
		    take_pages_until_written(KEPT_SIZE / PAGE_SIZE / 4));
		rc = 0;
	}
	writeback_hold_flusher(false);
	ktest_log(
	    t, "%lu pages written by reclaim", vmscan_written() - written);
	KTEST_EXPECT_GE(
	    t, vmscan_written() - written, KEPT_SIZE / PAGE_SIZE / 4);
	if (!rc)
		rc = fsync_close(&pf, fd);
	if (!rc)
		rc = read_whole(&pf);
	report_failure(t, &pf, rc);
	kfree(pf.buf);
}

static struct ktest_case pressure_cases[] = {
	KTEST_CASE(pressure_one),
	KTEST_CASE(pressure_two),
	KTEST_CASE(pressure_reclaim_writes),
	{},
};
KTEST_SUITE(fs_pressure, pressure_cases);

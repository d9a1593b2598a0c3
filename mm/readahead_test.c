/*
 * mm/readahead_test.c: suite pcache_readahead - a read from the start of
 * a file opens Linux's initial window, the window grows on sequential
 * reads and resets on random ones, the PG_readahead mark starts the next
 * window, nothing is read past i_size, and a filesystem's readahead
 * operation gets the pages in batches. The test disk's inode is bare
 * (!ra_worker): the reader reads every window itself
 * (fs/ra_worker_test.c has the worker's share).
 */
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <mm/pcache_test.h>

#define RA_FILE_PAGES 1024

/* Read page @index of @d's file through d->file. */
static void
read_page_at(struct ktest *t, struct tdisk *d, unsigned long index, char *buf)
{
	loff_t pos = (loff_t)index * PAGE_SIZE;

	KTEST_ASSERT_EQ(
	    t, filemap_read(&d->file, buf, PAGE_SIZE, &pos), PAGE_SIZE);
}

/*
 * The rule, for a reader taking one page at a time from page 0: the first
 * miss, at page 0, opens the initial window: the request (one page) times
 * four, since it is at most 1/32 of the cap, its last three pages ahead,
 * page 1 marked; each later window is twice the one before, up to the
 * file's cap (f_ra.ra_pages, set to 512 KiB here), and starts where the
 * one before ended. Only page 0 misses; every later page is cached before
 * it is asked for, and nothing is read past the last window.
 */
#define RA_CAP_PAGES ((512u << 10) / PAGE_SIZE)
#define RA_SEQ_PAGES 400 /* past windows 4 + 8 + ... + 128 = 252 pages */

struct ra_expect {
	unsigned long start, size, windows, misses;
};

/* Read page @i; check a window it opened against the rule. Return: false
 * if it broke the rule (the case stops there: one message, not one per
 * page). */
static bool read_sequential(struct ktest *t,
			    struct tdisk *d,
			    unsigned long i,
			    char *buf,
			    struct ra_expect *want)
{
	struct file_ra_state *ra = &d->file.f_ra;
	unsigned long old_start = ra->start, old_size = ra->size;

	want->misses += !tdisk_cached(d, i);
	read_page_at(t, d, i, buf);
	if (want->windows && ra->start == old_start && ra->size == old_size)
		return true;
	if (ra->start != want->start || ra->size != want->size) {
		ktest_log(
		    t, "reading page %lu: window %d", i, (int)want->windows);
		KTEST_EXPECT_EQ(t, ra->start, want->start);
		KTEST_EXPECT_EQ(t, ra->size, want->size);
		return false;
	}
	want->start += want->size;
	want->size = MIN(2 * want->size, (unsigned long)RA_CAP_PAGES);
	want->windows++;
	return true;
}

/* Pages [0, @n) of @d were each read from the disk once. */
static void expect_read_once(struct ktest *t, struct tdisk *d, unsigned long n)
{
	unsigned long bad = 0;

	for (unsigned long i = 0; i < n; i++)
		bad += d->reads[i] != 1;
	KTEST_EXPECT_EQ(t, bad, 0);
}

static void readahead_window_grows_and_resets(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, RA_FILE_PAGES * PAGE_SIZE, 0);
	struct file_ra_state *ra = &d->file.f_ra;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	struct ra_expect want = { 0, 4, 0, 0 };

	KTEST_ASSERT_NOT_NULL(t, buf);
	ra->ra_pages = RA_CAP_PAGES;
	for (unsigned long i = 0; i < RA_SEQ_PAGES; i++)
		if (!read_sequential(t, d, i, buf, &want))
			goto out;
	/* 4, 8, ..., 128 (6 windows, to page 252), then three more at the
	 * cap: [252, 380), [380, 508) and [508, 636), each opened as the
	 * reader reaches the first page of the window before it (124, 252,
	 * 380). */
	KTEST_EXPECT_EQ(t, want.windows, 9);
	KTEST_EXPECT_EQ(t, want.misses, 1);
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, want.start - 1));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, want.start));
	/* Every page was read once, in windows, not one read per page. */
	expect_read_once(t, d, want.start);
	/* A random read: the window drops back to the request. */
	read_page_at(t, d, 700, buf);
	KTEST_EXPECT_EQ(t, ra->start, 700);
	KTEST_EXPECT_EQ(t, ra->size, 1);
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 701));
	read_page_at(t, d, 701, buf); /* and grows again */
	KTEST_EXPECT_EQ(t, ra->size, 2);
out:
	kfree(buf);
	tdisk_destroy(t, d);
}

/*
 * A stream of 1 MiB reads with the shipped window: every read() returns
 * with the pages of the next one already in the cache (the first read's
 * initial window, then the windows read ahead while each was copied), so
 * the device never waits for the reader's next request. A window capped
 * below the request (512 KiB) would leave each read to miss and wait for
 * its own pages.
 */
#define RA_STREAM_IO (256u) /* pages: 1 MiB */

static void readahead_stream_stays_ahead(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 8 * RA_STREAM_IO * PAGE_SIZE, 0);
	char *buf = kmalloc(RA_STREAM_IO * PAGE_SIZE, GFP_KERNEL);
	unsigned long twice = 0;
	loff_t pos = 0;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_EXPECT_GE(t, d->file.f_ra.ra_pages, (4u << 20) / PAGE_SIZE);
	for (unsigned int k = 0; k < 7; k++) {
		unsigned long next = (k + 1) * RA_STREAM_IO;

		KTEST_ASSERT_EQ(
		    t,
		    filemap_read(&d->file, buf, RA_STREAM_IO * PAGE_SIZE, &pos),
		    RA_STREAM_IO * PAGE_SIZE);
		KTEST_EXPECT_TRUE(t, tdisk_cached(d, next));
		KTEST_EXPECT_TRUE(t, tdisk_cached(d, next + RA_STREAM_IO - 1));
	}
	for (unsigned long i = 0; i < 8 * RA_STREAM_IO; i++)
		twice += d->reads[i] > 1;
	KTEST_EXPECT_EQ(t, twice, 0); /* none read twice */
	kfree(buf);
	tdisk_destroy(t, d);
}

static bool marked(struct tdisk *d, unsigned long index)
{
	struct page *page = filemap_get_page(d->inode.i_mapping, index);
	bool ret = page && page_test(page, PG_readahead);

	if (page)
		put_page(page);
	return ret;
}

/*
 * The first read of a cold file, 1 MiB from page 0 with the shipped cap
 * (4 MiB): the initial window is twice the request (256 pages, at most
 * 1/4 of the cap), [0, 512), the 256 pages past the request ahead, the
 * first of them marked. A 16 KiB read opens four times its size.
 */
static void readahead_first_window(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, RA_FILE_PAGES * PAGE_SIZE, 0);
	struct file_ra_state *ra = &d->file.f_ra;
	char *buf = kmalloc(RA_STREAM_IO * PAGE_SIZE, GFP_KERNEL);
	loff_t pos = 0;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_EQ(t, ra->ra_pages, 1024u);
	KTEST_ASSERT_EQ(
	    t,
	    filemap_read(&d->file, buf, RA_STREAM_IO * PAGE_SIZE, &pos),
	    RA_STREAM_IO * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, ra->start, 0);
	KTEST_EXPECT_EQ(t, ra->size, 2 * RA_STREAM_IO);
	KTEST_EXPECT_EQ(t, ra->async_size, RA_STREAM_IO);
	KTEST_EXPECT_TRUE(t, marked(d, RA_STREAM_IO));
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 2 * RA_STREAM_IO - 1));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 2 * RA_STREAM_IO));
	KTEST_EXPECT_EQ(t, d->read_calls, 2 * RA_STREAM_IO);
	/* From page 0 again, on a fresh file: 4 pages open 16. */
	tdisk_destroy(t, d);
	d = tdisk_create(t, RA_FILE_PAGES * PAGE_SIZE, 0);
	ra = &d->file.f_ra;
	pos = 0;
	KTEST_ASSERT_EQ(
	    t, filemap_read(&d->file, buf, 4 * PAGE_SIZE, &pos), 4 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, ra->size, 16);
	KTEST_EXPECT_TRUE(t, marked(d, 4));
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 15));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 16));
	kfree(buf);
	tdisk_destroy(t, d);
}

/* Past the start of the file, where a first read opens only its request. */
#define RA_AT 100

static void readahead_async_at_marked_page(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, RA_FILE_PAGES * PAGE_SIZE, 0);
	char *buf = kmalloc(4 * PAGE_SIZE, GFP_KERNEL);
	loff_t pos = RA_AT * PAGE_SIZE;
	unsigned long calls;

	KTEST_ASSERT_NOT_NULL(t, buf);
	/* Pages 100-103, then 104-107: the first read, not from page 0,
	 * reads its request; the sequential miss opens an 8-page window
	 * [104, 112) whose last 4 pages are ahead, the first of them
	 * marked. */
	KTEST_ASSERT_EQ(
	    t, filemap_read(&d->file, buf, 4 * PAGE_SIZE, &pos), 4 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, d->file.f_ra.size, 4);
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, RA_AT + 4));
	KTEST_ASSERT_EQ(
	    t, filemap_read(&d->file, buf, 4 * PAGE_SIZE, &pos), 4 * PAGE_SIZE);
	KTEST_EXPECT_TRUE(t, marked(d, RA_AT + 8));
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, RA_AT + 11));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, RA_AT + 12));
	calls = d->read_calls;
	/* Reaching the mark (a cache hit) reads the next window ahead. */
	read_page_at(t, d, RA_AT + 8, buf);
	KTEST_EXPECT_FALSE(t, marked(d, RA_AT + 8));
	KTEST_EXPECT_EQ(t, d->file.f_ra.start, RA_AT + 12);
	KTEST_EXPECT_EQ(t, d->file.f_ra.size, 16);
	KTEST_EXPECT_EQ(t, d->read_calls - calls, 16);
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, RA_AT + 27));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, RA_AT + 28));
	KTEST_EXPECT_TRUE(t, marked(d, RA_AT + 12));
	kfree(buf);
	tdisk_destroy(t, d);
}

static void readahead_stops_at_eof(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 10 * PAGE_SIZE + 1, 0);
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	loff_t pos = 0;
	ssize_t n;

	KTEST_ASSERT_NOT_NULL(t, buf);
	d->inode.i_size = 10 * PAGE_SIZE + 1;
	while ((n = filemap_read(&d->file, buf, PAGE_SIZE, &pos)) > 0)
		;
	KTEST_EXPECT_EQ(t, n, 0);
	KTEST_EXPECT_EQ(t, pos, 10 * PAGE_SIZE + 1);
	KTEST_EXPECT_EQ(t, d->inode.i_data.nrpages, 11);
	KTEST_EXPECT_EQ(t, d->read_calls, 11);
	kfree(buf);
	tdisk_destroy(t, d);
}

static void readahead_uses_fs_readahead(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, 256 * PAGE_SIZE, TDISK_READAHEAD);
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, buf);
	for (unsigned long i = 0; i < 256; i++)
		read_page_at(t, d, i, buf);
	KTEST_EXPECT_EQ(t, d->read_calls, 0);
	KTEST_EXPECT_GT(t, d->ra_calls, 0);
	KTEST_EXPECT_LT(t, d->ra_calls, 20);
	expect_read_once(t, d, 256);
	kfree(buf);
	tdisk_destroy(t, d);
}

static struct ktest_case readahead_cases[] = {
	KTEST_CASE(readahead_window_grows_and_resets),
	KTEST_CASE(readahead_stream_stays_ahead),
	KTEST_CASE(readahead_first_window),
	KTEST_CASE(readahead_async_at_marked_page),
	KTEST_CASE(readahead_stops_at_eof),
	KTEST_CASE(readahead_uses_fs_readahead),
	{},
};
KTEST_SUITE(pcache_readahead, readahead_cases);

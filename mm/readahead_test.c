/*
 * mm/readahead_test.c: suite pcache_readahead - the window grows on
 * sequential reads and resets on random ones, the PG_readahead mark starts
 * the next window, nothing is read past i_size, and a filesystem's
 * readahead operation gets the pages in batches.
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
 * miss reads just the request (one page); each later window is twice the
 * one before, up to the file's cap (f_ra.ra_pages, set to 512 KiB here),
 * and starts where the one before ended. Only pages 0 and 1 miss (page 1
 * continues a read of exactly one page, so nothing was ahead yet); every later
 * page is cached before it is asked for, and nothing is read past the last
 * window.
 */
#define RA_CAP_PAGES ((512u << 10) / PAGE_SIZE)
#define RA_SEQ_PAGES 400 /* past windows 1 + 2 + ... + 128 = 255 pages */

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
	struct ra_expect want = { 0, 1, 0, 0 };

	KTEST_ASSERT_NOT_NULL(t, buf);
	ra->ra_pages = RA_CAP_PAGES;
	for (unsigned long i = 0; i < RA_SEQ_PAGES; i++)
		if (!read_sequential(t, d, i, buf, &want))
			goto out;
	/* 1, 2, ..., 128 (8 windows, to page 255), then three at the cap:
	 * [255, 383), [383, 511) and [511, 639), each opened as the reader
	 * reaches the first page of the window before it (127, 255, 383). */
	KTEST_EXPECT_EQ(t, want.windows, 11);
	KTEST_EXPECT_EQ(t, want.misses, 2);
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
 * A stream of 1 MiB reads with the shipped window: from the second read
 * on, every read() returns with the pages of the next one already in the
 * cache (read ahead while this one was copied), so the device never waits
 * for the reader's next request. A window capped below the request (512
 * KiB) would leave each read to miss and wait for its own pages.
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
		if (k == 0)
			continue; /* the first read has no stream yet */
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

static void readahead_async_at_marked_page(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, RA_FILE_PAGES * PAGE_SIZE, 0);
	char *buf = kmalloc(4 * PAGE_SIZE, GFP_KERNEL);
	loff_t pos = 0;
	unsigned long calls;

	KTEST_ASSERT_NOT_NULL(t, buf);
	/* Pages 0-3, then 4-7: a sequential miss opens an 8-page window
	 * [4, 12) whose last 4 pages are ahead, the first of them marked. */
	KTEST_ASSERT_EQ(
	    t, filemap_read(&d->file, buf, 4 * PAGE_SIZE, &pos), 4 * PAGE_SIZE);
	KTEST_ASSERT_EQ(
	    t, filemap_read(&d->file, buf, 4 * PAGE_SIZE, &pos), 4 * PAGE_SIZE);
	KTEST_EXPECT_TRUE(t, marked(d, 8));
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 11));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 12));
	calls = d->read_calls;
	/* Reaching the mark (a cache hit) reads the next window ahead. */
	read_page_at(t, d, 8, buf);
	KTEST_EXPECT_FALSE(t, marked(d, 8));
	KTEST_EXPECT_EQ(t, d->file.f_ra.start, 12);
	KTEST_EXPECT_EQ(t, d->file.f_ra.size, 16);
	KTEST_EXPECT_EQ(t, d->read_calls - calls, 16);
	KTEST_EXPECT_TRUE(t, tdisk_cached(d, 27));
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 28));
	KTEST_EXPECT_TRUE(t, marked(d, 12));
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
	KTEST_CASE(readahead_async_at_marked_page),
	KTEST_CASE(readahead_stops_at_eof),
	KTEST_CASE(readahead_uses_fs_readahead),
	{},
};
KTEST_SUITE(pcache_readahead, readahead_cases);

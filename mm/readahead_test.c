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

static void readahead_window_grows_and_resets(struct ktest *t)
{
	struct tdisk *d = tdisk_create(t, RA_FILE_PAGES * PAGE_SIZE, 0);
	struct file_ra_state *ra = &d->file.f_ra;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	/* Window size after reading page i, one page at a time. */
	static const struct {
		unsigned long index, size;
	} steps[] = {
		{ 0, 1 },  { 1, 2 },   { 2, 4 },   { 3, 8 },
		{ 7, 16 }, { 15, 32 }, { 31, 32 }, { 63, 32 },
	};

	KTEST_ASSERT_NOT_NULL(t, buf);
	ra->ra_pages = 32; /* a small cap, reached within the first 100 pages */
	for (unsigned long i = 0, s = 0; i < 100; i++) {
		read_page_at(t, d, i, buf);
		if (s < ARRAY_SIZE(steps) && steps[s].index == i) {
			KTEST_EXPECT_EQ(t, ra->size, steps[s].size);
			s++;
		}
	}
	KTEST_EXPECT_EQ(t, ra->ra_pages, 32);
	/* Every page was read once, in windows, not one read per page. */
	for (unsigned long i = 0; i < 100; i++)
		KTEST_EXPECT_EQ(t, d->reads[i], 1);
	/* A random read: the window drops back to the request. */
	read_page_at(t, d, 700, buf);
	KTEST_EXPECT_EQ(t, ra->start, 700);
	KTEST_EXPECT_EQ(t, ra->size, 1);
	KTEST_EXPECT_FALSE(t, tdisk_cached(d, 701));
	read_page_at(t, d, 701, buf); /* and grows again */
	KTEST_EXPECT_EQ(t, ra->size, 2);
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
	for (unsigned long i = 0; i < 256; i++)
		KTEST_EXPECT_EQ(t, d->reads[i], 1);
	kfree(buf);
	tdisk_destroy(t, d);
}

static struct ktest_case readahead_cases[] = {
	KTEST_CASE(readahead_window_grows_and_resets),
	KTEST_CASE(readahead_async_at_marked_page),
	KTEST_CASE(readahead_stops_at_eof),
	KTEST_CASE(readahead_uses_fs_readahead),
	{},
};
KTEST_SUITE(pcache_readahead, readahead_cases);

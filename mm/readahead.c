/*
 * mm/readahead.c: reading ahead of sequential readers.
 *
 * Each open file has a window (struct file_ra_state): [start, start+size)
 * pages, the last async_size of which are still ahead of the reader; the
 * first of those carries PG_readahead.
 *
 *  - A miss (page_cache_sync_readahead) reads a window from the missing
 *    page: the request rounded up to a power of two, or, when the miss
 *    continues the previous read (sequential), twice the previous window;
 *    never more than ra_pages.
 *  - Reaching the PG_readahead page (page_cache_async_readahead) reads the
 *    next window, twice as large, while the reader still has pages cached.
 *  - A miss that is not sequential resets the window to the request.
 *
 * Pages enter the cache only through filemap_add_page; they are read by
 * a_ops->readahead in batches of contiguous pages if the filesystem has
 * one, else one a_ops->read_page each. Pages past i_size are not read.
 * No lock is held on entry; each batch takes invalidate_lock shared from
 * its first insertion through the submission of its reads. The window is
 * per file and racy by design (a lost update only misjudges the next
 * window).
 */
#include <limits.h>
#include <kernel/race.h>
#include <fs/vfs.h>
#include <mm/filemap.h>

#define RA_DEFAULT_PAGES 128 /* 512 KiB */
#define RA_BATCH	 32  /* pages handed to the filesystem at once */

unsigned int file_ra_default_pages(void)
{
	return RA_DEFAULT_PAGES;
}

void file_ra_state_init(struct file_ra_state *ra)
{
	ra->start = 0;
	ra->size = 0;
	ra->async_size = 0;
	ra->ra_pages = RA_DEFAULT_PAGES;
	ra->prev_index = ULONG_MAX;
}

/* Start reading @n locked, cached pages; drop our references. */
static void
read_pages(struct address_space *m, struct page **pages, unsigned int n)
{
	if (!n)
		return;
	if (m->a_ops->readahead) {
		struct readahead_control rac = { m, pages[0]->index, n, pages };

		m->a_ops->readahead(&rac);
	} else {
		for (unsigned int i = 0; i < n; i++)
			m->a_ops->read_page(m, pages[i]);
	}
	for (unsigned int i = 0; i < n; i++)
		put_page(pages[i]);
}

/* Last page index below i_size, or ULONG_MAX if the file is empty. */
static unsigned long last_index(struct address_space *m)
{
	loff_t isize = m->host ? READ_ONCE(m->host->i_size) : 0;

	return isize > 0 ? (unsigned long)((isize - 1) >> PAGE_SHIFT)
			 : ULONG_MAX;
}

/* Submit the batch and end its invalidate_lock section. */
static void read_batch(struct address_space *m,
		       struct page **batch,
		       unsigned int *n,
		       bool *locked)
{
	read_pages(m, batch, *n);
	*n = 0;
	if (*locked)
		filemap_fill_end(m);
	*locked = false;
}

static bool past_last(unsigned long index, unsigned long last)
{
	return last == ULONG_MAX || index > last;
}

/*
 * Bring pages [@start, @start+@nr) in, skipping cached ones; mark @mark.
 * Each batch holds invalidate_lock shared from its first insertion until
 * its reads are submitted; a range already cached takes no lock at all.
 */
static void do_readahead(struct address_space *m,
			 unsigned long start,
			 unsigned long nr,
			 unsigned long mark)
{
	unsigned long last = last_index(m);
	struct page *batch[RA_BATCH];
	unsigned int n = 0;
	bool locked = false;

	if (past_last(start, last))
		return;
	nr = MIN(nr, last - start + 1);
	race_point(RACE_FILL_START, m);
	for (unsigned long index = start;
	     index < start + nr && !past_last(index, last);
	     index++) {
		struct page *page = filemap_get_page(m, index);

		if (page) { /* cached: the batch must stay contiguous */
			put_page(page);
			read_batch(m, batch, &n, &locked);
			continue;
		}
		page = page_cache_alloc();
		if (!page)
			break;
		/* Under the lock i_size is stable: look at it again. */
		if (!locked && filemap_fill_begin(m) &&
		    past_last(index, last = last_index(m))) {
			filemap_fill_end(m);
			put_page(page);
			break;
		}
		locked = !filemap_legacy_mode();
		trylock_page(page);
		if (filemap_add_page(m, page, index)) {
			unlock_page(page);
			put_page(page);
			read_batch(m, batch, &n, &locked);
			continue;
		}
		if (index == mark)
			page_set(page, PG_readahead);
		batch[n++] = page;
		if (n == RA_BATCH)
			read_batch(m, batch, &n, &locked);
	}
	read_batch(m, batch, &n, &locked);
}

static void ra_submit(struct address_space *m, struct file_ra_state *ra)
{
	unsigned long mark =
	    ra->async_size ? ra->start + ra->size - ra->async_size : ULONG_MAX;

	do_readahead(m, ra->start, ra->size, mark);
}

static unsigned int roundup_pow2(unsigned long n)
{
	unsigned int p = 1;

	while (p < n && p < (1U << 30))
		p <<= 1;
	return p;
}

void page_cache_sync_readahead(struct address_space *m,
			       struct file_ra_state *ra,
			       unsigned long index,
			       unsigned long req_pages)
{
	unsigned int init = MIN(roundup_pow2(req_pages), ra->ra_pages);
	bool sequential =
	    ra->prev_index != ULONG_MAX &&
	    (index == ra->prev_index + 1 || index == ra->prev_index);

	if (!ra->ra_pages) { /* readahead off: just the request */
		do_readahead(m, index, req_pages, ULONG_MAX);
		return;
	}
	ra->start = index;
	ra->size = sequential && ra->size
		       ? MIN(MAX(2 * ra->size, init), ra->ra_pages)
		       : init;
	ra->async_size = ra->size > req_pages ? ra->size - req_pages : 0;
	ra_submit(m, ra);
}

void page_cache_async_readahead(struct address_space *m,
				struct file_ra_state *ra,
				struct page *page,
				unsigned long index,
				unsigned long req_pages)
{
	if (!page_test_and_clear(page, PG_readahead) || !ra->ra_pages)
		return;
	if (index >= ra->start && index < ra->start + ra->size) {
		ra->start += ra->size; /* the expected mark: pipeline on */
		ra->size = MIN(2 * ra->size, ra->ra_pages);
	} else { /* someone else's mark: start a window after it */
		ra->start = index + 1;
		ra->size = MIN(roundup_pow2(req_pages), ra->ra_pages);
	}
	ra->async_size = ra->size;
	ra_submit(m, ra);
}

/**
 * page_cache_force_readahead - read [@index, @index+@nr) in, whatever the
 * window (posix_fadvise WILLNEED, readahead(2)); stops at EOF.
 * Context: task, may sleep; takes invalidate_lock shared per batch.
 */
void page_cache_force_readahead(struct address_space *m,
				unsigned long index,
				unsigned long nr)
{
	do_readahead(m, index, nr, ULONG_MAX);
}

/*
 * mm/pcache_test.c: the test disk of mm/pcache_test.h (tests only).
 *
 * Its address-space operations stand for a filesystem's: read_page and
 * readahead fill pages from the disk (at once, or from the completer task
 * with TDISK_ASYNC), write_page stores a page and ends its writeback
 * before returning, write_begin/write_end are the simplest correct pair.
 */
#include <string.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include <mm/pcache_test.h>

#define PATTERN_WORDS (PAGE_SIZE / sizeof(uint64_t))

static DEFINE_LOCK_CLASS(tdisk_i_rwsem, LOCK_RANK_I_RWSEM);

static struct tdisk *tdisk_of(struct address_space *m)
{
	return container_of(m, struct tdisk, inode.i_data);
}

static void count(unsigned long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void count32(uint32_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	return x ^ (x >> 33);
}

void tdisk_pattern(void *buf, unsigned long index, uint32_t version)
{
	uint64_t *w = buf;

	if (!version) {
		memset(buf, 0, PAGE_SIZE);
		return;
	}
	w[0] = ((uint64_t)index << 24) | version;
	for (unsigned int k = 1; k < PATTERN_WORDS; k++)
		w[k] = mix(w[0] + k);
}

/* The version a page of pattern holds, or -1 if it is not a pattern of
 * page @index. */
static long pattern_version(const void *buf, unsigned long index)
{
	const uint64_t *w = buf;
	uint32_t version = w[0] & 0xffffff;

	if (!w[0] && !memcmp(buf, (const char *)buf + 1, PAGE_SIZE - 1))
		return 0;
	if (w[0] >> 24 != index)
		return -1;
	for (unsigned int k = 1; k < PATTERN_WORDS; k++)
		if (w[k] != mix(w[0] + k))
			return -1;
	return version;
}

static void tdisk_load(struct tdisk *d, struct page *page)
{
	void *dst = page_address(page);

	if (page->index >= d->nr_pages)
		memset(dst, 0, PAGE_SIZE);
	else if (d->data)
		memcpy(dst, d->data + page->index * PAGE_SIZE, PAGE_SIZE);
	else
		tdisk_pattern(dst, page->index, d->versions[page->index]);
	count32(&d->reads[MIN(page->index, d->nr_pages - 1)]);
}

static void tdisk_submit_read(struct tdisk *d, struct page *page)
{
	if (!(d->flags & TDISK_ASYNC)) {
		tdisk_load(d, page);
		page_read_done(page, 0);
		return;
	}
	spin_lock(&d->queue_lock);
	while (d->queued == TDISK_QUEUE) {
		spin_unlock(&d->queue_lock);
		task_sleep_ms(1);
		spin_lock(&d->queue_lock);
	}
	d->queue[d->queued++] = page;
	spin_unlock(&d->queue_lock);
	wake_up(&d->queue_wq);
}

static int tdisk_completer(void *arg)
{
	struct tdisk *d = arg;

	for (;;) {
		struct page *page = NULL;

		wait_event(&d->queue_wq,
			   READ_ONCE(d->queued) || READ_ONCE(d->stop));
		spin_lock(&d->queue_lock);
		if (d->queued)
			page = d->queue[--d->queued];
		spin_unlock(&d->queue_lock);
		if (!page && READ_ONCE(d->stop))
			return 0;
		if (page && page->index == 0 && d->first_until &&
		    !d->first_held)
			d->first_held = !race_wait_until(d->first_until, d);
		if (page) {
			tdisk_load(d, page);
			page_read_done(page, 0);
		}
	}
}

static int tdisk_read_page(struct address_space *m, struct page *page)
{
	struct tdisk *d = tdisk_of(m);

	count(&d->read_calls);
	tdisk_submit_read(d, page);
	return 0;
}

static void tdisk_readahead(struct readahead_control *rac)
{
	struct tdisk *d = tdisk_of(rac->mapping);

	count(&d->ra_calls);
	for (unsigned int i = 0; i < rac->nr_pages; i++)
		tdisk_submit_read(d, rac->pages[i]);
}

static int tdisk_write_page(struct address_space *m,
			    struct page *page,
			    struct writeback_control *wbc)
{
	struct tdisk *d = tdisk_of(m);
	int err = 0;
	long v;

	(void)wbc;
	count(&d->write_calls);
	count32(&d->writes[MIN(page->index, d->nr_pages - 1)]);
	if (__atomic_load_n(&d->fail_writes, __ATOMIC_RELAXED) > 0) {
		__atomic_fetch_sub(&d->fail_writes, 1, __ATOMIC_RELAXED);
		err = -EIO;
		mapping_set_error(m, err);
	} else if (page->index >= d->nr_pages) {
		count(&d->corrupt);
	} else if (d->data) {
		memcpy(d->data + page->index * PAGE_SIZE,
		       page_address(page),
		       PAGE_SIZE);
	} else if ((v = pattern_version(page_address(page), page->index)) < 0) {
		count(&d->corrupt);
	} else {
		d->versions[page->index] = v;
	}
	unlock_page(page);
	end_page_writeback(page);
	return err;
}

static int tdisk_write_begin(struct address_space *m,
			     loff_t pos,
			     unsigned int len,
			     struct page **pagep)
{
	struct tdisk *d = tdisk_of(m);
	unsigned long index = pos >> PAGE_SHIFT;
	struct page *page;

	if (d->ahead_at_first_begin < 0) {
		long n = 0;

		while (index + n + 1 < d->nr_pages &&
		       filemap_cached(m, index + n + 1))
			n++;
		d->ahead_at_first_begin = n;
	}
	if ((long)index == d->fail_begin_at) {
		filemap_put_hint(*pagep);
		return -ENOSPC;
	}
	if (*pagep && (*pagep)->mapping == m && (*pagep)->index == index)
		d->begins_handed++;
	page = filemap_grab_page_from(m, index, *pagep);
	if (IS_ERR(page))
		return PTR_ERR(page);
	if (!page_test(page, PG_uptodate) && len != PAGE_SIZE) {
		tdisk_load(tdisk_of(m), page);
		page_set(page, PG_uptodate);
	}
	*pagep = page;
	return 0;
}

static int tdisk_write_end(struct address_space *m,
			   loff_t pos,
			   unsigned int len,
			   unsigned int copied,
			   struct page *page)
{
	struct inode *inode = m->host;

	if (!page_test(page, PG_uptodate) && copied < len)
		copied =
		    0; /* a short copy leaves a page not read in unfilled */
	if (copied) {
		page_set(page, PG_uptodate);
		set_page_dirty(page);
	}
	if (pos + copied > inode->i_size)
		WRITE_ONCE(inode->i_size, pos + copied);
	unlock_page(page);
	put_page(page);
	return copied;
}

static void
tdisk_invalidate_page(struct page *page, unsigned int offset, unsigned int len)
{
	(void)offset;
	(void)len;
	count(&tdisk_of(page->mapping)->invalidate_calls);
}

static const struct address_space_operations tdisk_aops = {
	.read_page = tdisk_read_page,
	.write_page = tdisk_write_page,
	.write_begin = tdisk_write_begin,
	.write_end = tdisk_write_end,
	.invalidate_page = tdisk_invalidate_page,
};

static const struct address_space_operations tdisk_ra_aops = {
	.read_page = tdisk_read_page,
	.readahead = tdisk_readahead,
	.write_page = tdisk_write_page,
	.write_begin = tdisk_write_begin,
	.write_end = tdisk_write_end,
	.invalidate_page = tdisk_invalidate_page,
};

void tdisk_open(struct tdisk *d, struct file *f)
{
	memset(f, 0, sizeof(*f));
	f->f_inode = &d->inode;
	f->f_mapping = d->inode.i_mapping;
	file_ra_state_init(&f->f_ra);
}

struct tdisk *tdisk_create(struct ktest *t, loff_t size, unsigned int flags)
{
	struct tdisk *d = kzalloc(sizeof(*d), GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, d);
	d->flags = flags;
	d->fail_begin_at = -1;
	d->ahead_at_first_begin = -1;
	d->nr_pages = MAX(DIV_ROUND_UP(size, PAGE_SIZE), 1);
	d->reads = kcalloc(d->nr_pages, sizeof(*d->reads), GFP_KERNEL);
	d->writes = kcalloc(d->nr_pages, sizeof(*d->writes), GFP_KERNEL);
	KTEST_ASSERT_TRUE(t, d->reads && d->writes);
	if (flags & TDISK_RAM) {
		d->data = kmalloc(d->nr_pages * PAGE_SIZE, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, d->data);
		for (unsigned long i = 0; i < d->nr_pages; i++)
			tdisk_pattern(d->data + i * PAGE_SIZE, i, 1);
	} else {
		d->versions =
		    kcalloc(d->nr_pages, sizeof(*d->versions), GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, d->versions);
	}
	d->inode.i_size = size;
	d->inode.i_mapping = &d->inode.i_data;
	init_rwsem(&d->inode.i_rwsem, "i_rwsem", &tdisk_i_rwsem);
	mapping_init(&d->inode.i_data,
		     &d->inode,
		     flags & TDISK_READAHEAD ? &tdisk_ra_aops : &tdisk_aops);
	tdisk_open(d, &d->file);
	spin_lock_init(&d->queue_lock, "tdisk_queue");
	wait_queue_init(&d->queue_wq);
	if (flags & TDISK_ASYNC) {
		d->completer = task_create("tdisk", tdisk_completer, d);
		KTEST_ASSERT_FALSE(t, IS_ERR(d->completer));
	}
	return d;
}

void tdisk_destroy(struct ktest *t, struct tdisk *d)
{
	struct address_space *m = d->inode.i_mapping;

	if (d->completer) {
		WRITE_ONCE(d->stop, true);
		wake_up(&d->queue_wq);
		task_join(d->completer);
	}
	filemap_invalidate_lock(m);
	truncate_inode_pages_final(m);
	filemap_invalidate_unlock(m);
	KTEST_EXPECT_EQ(t, m->nrpages, 0);
	KTEST_EXPECT_EQ(t, m->nrdirty, 0);
	KTEST_EXPECT_NULL(t, m->i_pages.root);
	KTEST_EXPECT_TRUE(t, list_empty(&m->wb_node));
	kfree(d->data);
	kfree(d->versions);
	kfree(d->reads);
	kfree(d->writes);
	kfree(d);
}

ssize_t tdisk_write(struct tdisk *d, const void *buf, size_t len, loff_t pos)
{
	ssize_t n;

	down_write(&d->inode.i_rwsem);
	n = filemap_write(&d->file, buf, len, &pos);
	up_write(&d->inode.i_rwsem);
	return n;
}

ssize_t tdisk_read(struct tdisk *d, void *buf, size_t len, loff_t pos)
{
	return filemap_read(&d->file, buf, len, &pos);
}

bool tdisk_cached(struct tdisk *d, unsigned long index)
{
	struct page *page = filemap_get_page(d->inode.i_mapping, index);

	if (page)
		put_page(page);
	return page != NULL;
}

/*
 * fs/ext2/file.c: regular files - address-space and file operations.
 *
 * Data goes through the page cache (mm/filemap.c). A page covers
 * PAGE_SIZE / blocksize blocks (4 with 1 KiB blocks, 1 with 4 KiB):
 *   read_page/readahead: fs/ext2/read.c;
 *   write_begin allocates the blocks the write touches (so dirty pages
 *     always have their blocks) and reads what a partial write keeps;
 *     past EOF it maps them a run at a time (ahead_block): the blocks
 *     of a run that the write does not reach are freed when it ends;
 *   write_pages (and write_page, a batch of one) writes the mapped blocks
 *     inside i_size, zeroing each page past EOF first so the tail on disk
 *     stays zero; a block without a disk block must hold zeroes (a hole
 *     punched under a partial page), else the page's write fails with
 *     -EIO and a console message. The blocks are mapped a run at a time
 *     (ext2_run_map) and written with a bio per run of blocks that follow
 *     one another on disk, across pages (each page's writeback ends when
 *     the last bio with a block of it completes).
 *
 * Locks: write_begin/write_end run with i_rwsem exclusive (filemap_write
 * asserts it once per call, not once per page).
 * All of them take i_map_lock inside (ext2_get_block). Bio completions run
 * in interrupt context and take no lock of ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include "ext2.h"

/*
 * A dirty page's block inside EOF has no disk block. Fine if its bytes are
 * zero (a hole punched under a partial page reads as zeroes anyway); data
 * there would be lost: write_begin maps every block it dirties, so that
 * is a bug, reported, and the page's write fails with -EIO.
 */
static int
unmapped_block(struct inode *inode, uint64_t lblk, const char *data, size_t bs)
{
	for (size_t i = 0; i < bs; i++) {
		if (data[i]) {
			pr_err("ext2: inode %lu: dirty data for logical block "
			       "%llu, which has no disk block: not written\n",
			       inode->i_ino,
			       (unsigned long long)lblk);
			return -EIO;
		}
	}
	return 0;
}

/* One write_pages call: its pages, each with a count of the bios writing
 * it (plus one while they are built); the last put ends its writeback. */
struct wpages_ctx {
	struct address_space *m;
	int refs; /* atomic: bios + builder */
	struct wpage {
		struct page *page;
		int pending; /* atomic */
	} p[];
};

/* A bio of a wpages_ctx covers pages [first, last]. */
struct wpages_bio {
	struct wpages_ctx *ctx;
	unsigned int first, last;
};

struct wpages_builder {
	struct wpages_ctx *ctx;
	struct bio *bio;
	struct wpages_bio *wb;
	uint32_t next_pblk; /* the block that would extend the bio */
	struct ext2_run_cursor map;
};

static void wpage_put(struct wpage *wp)
{
	if (!__atomic_sub_fetch(&wp->pending, 1, __ATOMIC_ACQ_REL))
		end_page_writeback(wp->page);
}

static void wpages_ctx_put(struct wpages_ctx *ctx)
{
	if (!__atomic_sub_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL))
		kfree(ctx);
}

static void wpages_end_io(struct bio *bio)
{
	struct wpages_bio *wb = bio->private;
	struct wpages_ctx *ctx = wb->ctx;

	if (bio->status) {
		pr_err("ext2: inode %lu: write error %d at sector %llu\n",
		       ctx->m->host->i_ino,
		       bio->status,
		       (unsigned long long)bio->sector);
		mapping_set_error(ctx->m, -EIO); /* before end of writeback */
	}
	for (unsigned int i = wb->first; i <= wb->last; i++)
		wpage_put(&ctx->p[i]);
	bio_free(bio);
	kfree(wb);
	wpages_ctx_put(ctx);
}

static void wpages_submit(struct wpages_builder *wr)
{
	if (wr->bio)
		blk_submit(wr->bio);
	wr->bio = NULL;
}

/* Queue block @pblk from @src of page @i: the bio in hand if it continues
 * it on disk (and reaches no further than the page before), else a new
 * one. Return: 0 or -ENOMEM. */
static int wpages_queue(struct wpages_builder *wr,
			unsigned int i,
			uint32_t pblk,
			void *src)
{
	struct ext2_sb_info *sbi = EXT2_SBI(wr->ctx->m->host->i_sb);
	uint32_t bs = sbi->s_sb->s_blocksize;

	if (wr->bio && pblk == wr->next_pblk && i <= wr->wb->last + 1 &&
	    !bio_add_buf(wr->bio, src, bs)) {
		if (wr->wb->last != i) {
			wr->wb->last = i;
			__atomic_add_fetch(
			    &wr->ctx->p[i].pending, 1, __ATOMIC_RELAXED);
		}
		wr->next_pblk = pblk + 1;
		return 0;
	}
	wpages_submit(wr);
	wr->wb = kmalloc(sizeof(*wr->wb), GFP_KERNEL);
	wr->bio = wr->wb ? bio_alloc(sbi->s_bdev,
				     BLK_OP_WRITE,
				     (uint64_t)pblk * sbi->s_sect_per_block,
				     EXT2_BIO_VECS)
			 : NULL;
	if (!wr->bio || bio_add_buf(wr->bio, src, bs)) {
		if (wr->bio)
			bio_free(wr->bio);
		kfree(wr->wb);
		wr->bio = NULL;
		return -ENOMEM;
	}
	*wr->wb = (struct wpages_bio){ wr->ctx, i, i };
	wr->bio->private = wr->wb;
	wr->bio->end_io = wpages_end_io;
	__atomic_add_fetch(&wr->ctx->refs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&wr->ctx->p[i].pending, 1, __ATOMIC_RELAXED);
	wr->next_pblk = pblk + 1;
	return 0;
}

/* Page @i of the batch: its blocks inside i_size queued, the page past
 * EOF zeroed first. Return: 0, or -ENOMEM (the page is dirtied again), or
 * the error recorded. */
static int wpages_one(struct wpages_builder *wr, unsigned int i)
{
	struct inode *inode = wr->ctx->m->host;
	struct page *page = wr->ctx->p[i].page;
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	uint32_t bs = 1u << bits, bpp = PAGE_SIZE >> bits;
	loff_t size = READ_ONCE(inode->i_size);
	loff_t start = (loff_t)page->index << PAGE_SHIFT;
	char *base = page_address(page);
	int err = 0, lost = 0;

	if (size - start < (loff_t)PAGE_SIZE && size > start)
		memset(base + (size - start), 0, PAGE_SIZE - (size - start));
	for (uint32_t j = 0; j < bpp && start + (loff_t)j * bs < size && !err;
	     j++) {
		uint64_t lblk = (uint64_t)page->index * bpp + j;
		uint32_t pblk;

		err = ext2_run_map(inode, &wr->map, lblk, &pblk);
		if (!err && !pblk)
			lost = unmapped_block(inode, lblk, base + j * bs, bs)
				   ?: lost;
		if (!err && pblk)
			err = wpages_queue(wr, i, pblk, base + j * bs);
	}
	err = err ?: lost;
	if (err == -ENOMEM)
		set_page_dirty(page); /* written again later: nothing lost */
	else
		mapping_set_error(wr->ctx->m, err);
	unlock_page(page);
	return err;
}

/* Write @n prepared pages: their blocks mapped a run at a time, a bio for
 * each run of blocks that follow one another on disk across pages. Pages
 * left dirty for lack of memory are counted in *@deferred. Return: the
 * error of the last page that had one, or 0. */
static int write_batch(struct address_space *m,
		       struct page **pages,
		       unsigned int n,
		       unsigned int *deferred)
{
	unsigned int shift = PAGE_SHIFT - m->host->i_sb->s_blocksize_bits;
	struct wpages_builder wr = { 0 };
	struct wpages_ctx *ctx;
	int err = 0;

	*deferred = 0;
	ctx = kmalloc(sizeof(*ctx) + n * sizeof(ctx->p[0]), GFP_KERNEL);
	if (!ctx) {
		for (unsigned int i = 0; i < n; i++) {
			set_page_dirty(pages[i]);
			unlock_page(pages[i]);
			end_page_writeback(pages[i]);
		}
		*deferred = n;
		return -ENOMEM;
	}
	ctx->m = m;
	ctx->refs = 1;
	for (unsigned int i = 0; i < n; i++)
		ctx->p[i] = (struct wpage){ pages[i], 1 };
	wr.ctx = ctx;
	wr.map.last = (((uint64_t)pages[n - 1]->index + 1) << shift) - 1;
	for (unsigned int i = 0; i < n; i++) {
		int e = wpages_one(&wr, i);

		*deferred += e == -ENOMEM;
		err = e ?: err;
	}
	race_point(RACE_WB_MAPPED, m->host);
	wpages_submit(&wr);
	for (unsigned int i = 0; i < n; i++)
		wpage_put(&ctx->p[i]);
	wpages_ctx_put(ctx);
	return err;
}

static void ext2_write_pages(struct address_space *m,
			     struct page **pages,
			     unsigned int n,
			     struct writeback_control *wbc)
{
	unsigned int deferred;

	write_batch(m, pages, n, &deferred);
	wbc->nr_deferred += deferred;
}

/* One page (reclaim's): a batch of one. */
static int ext2_write_page(struct address_space *m,
			   struct page *page,
			   struct writeback_control *wbc)
{
	unsigned int deferred;

	(void)wbc; /* the caller counts -ENOMEM */
	return write_batch(m, &page, 1, &deferred);
}

/* Make the blocks of @page that [@from, @to) does not cover fully valid. */
static int fill_page_sync(struct inode *inode,
			  struct page *page,
			  unsigned int from,
			  unsigned int to)
{
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	uint32_t bs = 1u << bits, bpp = PAGE_SIZE >> bits;
	uint64_t eof = DIV_ROUND_UP((uint64_t)READ_ONCE(inode->i_size), bs);
	char *base = page_address(page);

	for (uint32_t j = 0; j < bpp; j++) {
		uint64_t lblk = (uint64_t)page->index * bpp + j, hole;
		uint32_t pblk = 0;
		int err = 0;

		if (from <= j * bs && (j + 1) * bs <= to)
			continue;
		if (lblk < eof)
			err = ext2_get_block(inode, lblk, false, &pblk, &hole);
		if (!err && pblk)
			err = ext2_read_blocks(
			    EXT2_SBI(inode->i_sb), pblk, base + j * bs, 1);
		if (err)
			return err;
		if (!pblk)
			memset(base + j * bs, 0, bs);
	}
	return 0;
}

/*
 * A write failed part way: free the blocks its write_begin allocated that
 * hold none of its data - all of them if nothing was copied (@copied 0),
 * else those past the new EOF (the dirty page covers the rest) - and the
 * indirect blocks left mapping nothing. Blocks that were mapped before
 * stay: a failed write must not free what an earlier write or fallocate
 * put there.
 */
static void write_failed(struct inode *inode, unsigned int copied)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	uint64_t eof =
	    DIV_ROUND_UP((uint64_t)READ_ONCE(inode->i_size), 1ULL << bits);

	for (uint32_t j = 0; ei->i_wnew_mask >> j; j++) {
		uint64_t lblk = ei->i_wnew_first + j;

		if ((ei->i_wnew_mask & (1u << j)) && (!copied || lblk >= eof))
			ext2_free_range(inode, lblk, lblk + 1);
	}
	/* An indirect block taken for a block that then failed is empty. */
	ext2_free_empty_indirect(
	    inode, ei->i_wnew_first, ei->i_wnew_first + (PAGE_SIZE >> bits));
	ei->i_wnew_mask = 0;
}

/* Blocks mapped at once ahead of a write past EOF (1 MiB of 4 KiB blocks):
 * one walk of the map and one pass over a bitmap for the lot. */
#define EXT2_WRITE_AHEAD 256

/*
 * Block @lblk of the write in progress, if it lies past EOF: the next of
 * the run mapped ahead for it, mapping a new run (to the write's last
 * block at most) when that one is used up. Past EOF no reader can reach a
 * block before write_end has put its data in the cache and moved i_size
 * over it. Return: true if @lblk was taken from a run (it is new); false
 * if the caller maps it itself (inside EOF, mapped already, or any error,
 * which the caller's own mapping then meets and reports).
 */
static bool ahead_block(struct inode *inode, uint64_t lblk)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	uint32_t pblk, n;

	if (lblk == ei->i_ahead_next && lblk < ei->i_ahead_end) {
		ei->i_ahead_next++;
		return true;
	}
	if (ei->i_ahead_next < ei->i_ahead_end || lblk >= ei->i_ahead_limit ||
	    lblk <
		DIV_ROUND_UP((uint64_t)READ_ONCE(inode->i_size), 1ULL << bits))
		return false;
	if (ext2_alloc_run(inode,
			   lblk,
			   (uint32_t)MIN(ei->i_ahead_limit - lblk,
					 (uint64_t)EXT2_WRITE_AHEAD),
			   &pblk,
			   &n) ||
	    !n)
		return false;
	ei->i_ahead_next = lblk + 1;
	ei->i_ahead_end = lblk + n;
	return true;
}

/* The write is over: free the blocks mapped ahead that it did not reach
 * (past its last page, so no page holds them) and their indirect blocks
 * left empty. */
static void ahead_end(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	if (ei->i_ahead_next < ei->i_ahead_end) {
		ext2_free_range(inode, ei->i_ahead_next, ei->i_ahead_end);
		ext2_free_empty_indirect(
		    inode, ei->i_ahead_next, ei->i_ahead_end);
	}
	ei->i_ahead_next = ei->i_ahead_end = ei->i_ahead_limit = 0;
}

static int ext2_write_begin(struct address_space *m,
			    loff_t pos,
			    unsigned int len,
			    struct page **pagep)
{
	struct inode *inode = m->host;
	struct ext2_inode_info *ei = EXT2_I(inode);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	unsigned int off = pos & (PAGE_SIZE - 1);
	uint64_t first = pos >> bits;
	uint64_t nr = len ? ((pos + len - 1) >> bits) - first + 1 : 0;
	struct page *page;
	int err = 0;

	if (first + nr > ext2_inode_max_blocks(inode)) {
		filemap_put_hint(*pagep);
		return -EFBIG;
	}
	page = filemap_grab_page_from(m, pos >> PAGE_SHIFT, *pagep);
	if (IS_ERR(page))
		return PTR_ERR(page);
	if (!page_test(page, PG_uptodate) && (off || len != PAGE_SIZE))
		err = fill_page_sync(inode, page, off, off + len);
	ei->i_wnew_first = first;
	ei->i_wnew_mask = 0;
	for (uint64_t lblk = first; !err && lblk < first + nr; lblk++) {
		uint32_t pblk;
		bool new = ahead_block(inode, lblk);

		if (!new)
			err = ext2_get_block_new(inode, lblk, &pblk, &new);
		if (!err && new)
			ei->i_wnew_mask |= 1u << (lblk - first);
	}
	if (err) {
		unlock_page(page);
		put_page(page);
		write_failed(inode, 0);
		return err;
	}
	*pagep = page;
	return 0;
}

static int ext2_write_end(struct address_space *m,
			  loff_t pos,
			  unsigned int len,
			  unsigned int copied,
			  struct page *page)
{
	struct inode *inode = m->host;
	loff_t old = READ_ONCE(inode->i_size);
	bool grows = false;

	if (!page_test(page, PG_uptodate)) {
		if (copied < len)
			copied = 0;
		else
			page_set(page, PG_uptodate);
	}
	if (copied) {
		grows = pos + copied > old;
		if (grows) {
			inode_set_size(inode, pos + copied);
			ext2_note_large_file(EXT2_SBI(inode->i_sb), inode);
		}
		/* A page dirtied now marks the inode, after the size. */
		if (!set_page_dirty(page) && grows)
			mark_inode_dirty(inode);
	}
	unlock_page(page);
	put_page(page);
	if (grows) /* as Linux's generic_write_end, once the page is let go */
		pagecache_isize_extended(inode, old, pos + copied);
	if (copied < len)
		write_failed(inode, copied);
	EXT2_I(inode)->i_wnew_mask = 0;
	return copied;
}

/* A shared mapping's first store to @page: its blocks inside i_size get
 * disk space (a hole is allocated, as write_begin does), the file's times
 * change and the page is dirtied. The caller (mm/fault.c) holds
 * invalidate_lock shared and the page lock; an error ends the task with a
 * bus error, as ENOSPC does in Linux. */
static int ext2_page_mkwrite(struct address_space *m, struct page *page)
{
	struct inode *inode = m->host;
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	loff_t start = (loff_t)page->index << PAGE_SHIFT;
	uint64_t first = start >> bits;
	uint64_t end = DIV_ROUND_UP(
	    (uint64_t)MIN(READ_ONCE(inode->i_size), start + (loff_t)PAGE_SIZE),
	    1u << bits);
	int err = 0;

	if (inode->i_sb->s_rdonly)
		return -EROFS;
	for (uint64_t lblk = first; lblk < end && !err; lblk++) {
		uint32_t pblk;

		err = ext2_get_block(inode, lblk, true, &pblk, NULL);
	}
	if (err)
		return err;
	inode->i_mtime = inode->i_ctime = current_time();
	set_page_dirty(page);
	mark_inode_dirty(inode);
	return 0;
}

const struct address_space_operations ext2_aops = {
	.page_mkwrite = ext2_page_mkwrite,
	.read_page = ext2_read_page,
	.readahead = ext2_readahead,
	.write_page = ext2_write_page,
	.write_pages = ext2_write_pages,
	.write_begin = ext2_write_begin,
	.write_end = ext2_write_end,
};

/* The VFS holds i_rwsem exclusive, has applied O_APPEND and updates the
 * times. A write that starts past EOF first zeroes the old EOF block's
 * tail (ext2_zero_past_eof), which the write makes part of the file. */
static ssize_t
ext2_file_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct address_space *m = inode->i_mapping;
	struct ext2_inode_info *ei = EXT2_I(inode);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	loff_t old = READ_ONCE(inode->i_size);
	ssize_t n;

	if (inode->i_sb->s_rdonly)
		return -EROFS;
	if (*pos > old) {
		/* copy_file_range writes here holding it already */
		bool held = rwsem_is_write_owner(&m->invalidate_lock);
		int err;

		if (!held)
			filemap_invalidate_lock(m);
		err = ext2_zero_past_eof(inode, old);
		if (!held)
			filemap_invalidate_unlock(m);
		if (err)
			return err;
	}
	/* No block past the write's last is mapped ahead (ahead_end leaves
	 * the limit at 0 between writes). */
	if (len)
		ei->i_ahead_limit = (((uint64_t)*pos + len - 1) >> bits) + 1;
	n = filemap_write(f, buf, len, pos);
	ahead_end(inode);
	return n;
}

/* SEEK_DATA / SEEK_HOLE from the block map: dirty pages always have their
 * blocks (write_begin allocates), so the map is the whole truth. */
static loff_t ext2_llseek(struct file *f, loff_t off, int whence)
{
	struct inode *inode = f->f_inode;
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	loff_t size = READ_ONCE(inode->i_size);
	uint64_t lblk;

	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return -EINVAL;
	if (off < 0 || off >= size)
		return -ENXIO;
	for (lblk = off >> bits; (loff_t)(lblk << bits) < size;) {
		uint64_t hole = 1;
		uint32_t pblk;
		int err = ext2_get_block(inode, lblk, false, &pblk, &hole);

		if (err)
			return err;
		if (!!pblk == (whence == SEEK_DATA))
			return MAX(off, (loff_t)(lblk << bits));
		lblk += pblk ? 1 : hole;
	}
	return whence == SEEK_DATA ? -ENXIO : size;
}

static int ext2_fsync(struct file *f, loff_t start, loff_t end, bool datasync)
{
	struct inode *inode = f->f_inode;
	int err, err2;

	(void)datasync;
	err = filemap_write_and_wait_range(inode->i_mapping, start, end);
	err2 = inode->i_sb->s_op->write_inode(inode, false);
	err = err ?: err2;
	err2 = ext2_sync_fs(inode->i_sb, true);
	return err ?: err2;
}

const struct file_operations ext2_file_fops = {
	.read = filemap_read,
	.read_flags = filemap_read_flags,
	.write = ext2_file_write,
	.llseek = ext2_llseek,
	.fsync = ext2_fsync,
	.fallocate = ext2_fallocate,
};

const struct inode_operations ext2_file_iops = {
	.setattr = ext2_setattr,
	.swap_contents = ext2_swap_contents,
	.get_flags = ext2_get_flags,
};

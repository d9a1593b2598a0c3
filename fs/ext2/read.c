/*
 * fs/ext2/read.c: reading regular files' pages (address-space read_page
 * and readahead; the rest of the file operations are fs/ext2/file.c).
 *
 * Each block of a page is mapped (holes and blocks past EOF are zero-filled,
 * no I/O) and the mapped ones are read with bios, one bio per run of
 * blocks consecutive both in the file and on disk, so a readahead batch of
 * a contiguous file is a single request. The map is walked once per such
 * run (ext2_map_run), not once per block. RACE_FILL_INSERTED is passed
 * before the first block is mapped, RACE_FILL_MAPPED once the blocks are
 * mapped and before the bios go.
 *
 * Locks: run with the page(s) locked; the caller holds invalidate_lock
 * shared only for a page it found not uptodate. Pages it has just inserted
 * are kept from every invalidation by their locks (mm/invalidate.c), and
 * from preallocation, which maps new blocks into holes before it writes
 * their zeroes and keeps the cached pages over them, because it first
 * waits for every locked page of its range (fs/ext2/falloc.c).
 * ext2_get_block takes i_map_lock inside.
 * Bio completions run in interrupt context and take no lock of ours.
 */
#include <errno.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include "ext2.h"

/* One read_page/readahead call: its pages, each with a pending count (the
 * bios touching it, plus one while bios are still being built). */
struct read_ctx {
	struct inode *inode;
	int refs; /* atomic: bios + builder */
	unsigned int nr;
	struct read_page_state {
		struct page *page;
		int pending; /* atomic */
		int err;
	} p[];
};

/* A bio of a read_ctx covers pages [first, last]. */
struct read_bio {
	struct read_ctx *ctx;
	unsigned int first, last;
	uint32_t pblk;
};

static void read_page_put(struct read_page_state *ps)
{
	int left = __atomic_sub_fetch(&ps->pending, 1, __ATOMIC_ACQ_REL);

	WARN_ON_ONCE(left < 0); /* a bio put a page it did not count */
	if (left == 0)
		page_read_done(ps->page, ps->err);
}

static void read_ctx_put(struct read_ctx *ctx)
{
	if (__atomic_sub_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(ctx);
}

static void read_end_io(struct bio *bio)
{
	struct read_bio *rb = bio->private;
	struct read_ctx *ctx = rb->ctx;

	if (bio->status)
		pr_err("ext2: inode %lu: read error %d at block %u\n",
		       ctx->inode->i_ino,
		       bio->status,
		       rb->pblk);
	for (unsigned int i = rb->first; i <= rb->last; i++) {
		if (bio->status)
			ctx->p[i].err = -EIO;
		read_page_put(&ctx->p[i]);
	}
	bio_free(bio);
	kfree(rb);
	read_ctx_put(ctx);
}

struct read_builder {
	struct read_ctx *ctx;
	struct bio *bio;
	struct read_bio *rb;
	uint32_t next_pblk; /* the block that would extend the bio */
	struct ext2_run_cursor map;
};

static void submit_read(struct read_builder *rd)
{
	if (!rd->bio)
		return;
	blk_submit(rd->bio);
	rd->bio = NULL;
}

/* Queue block @pblk into @dst of page @i. Return: 0 or -ENOMEM. */
static int
queue_block(struct read_builder *rd, unsigned int i, uint32_t pblk, void *dst)
{
	struct ext2_sb_info *sbi = EXT2_SBI(rd->ctx->inode->i_sb);
	uint32_t bs = sbi->s_sb->s_blocksize;

	/* A bio covers pages [first, last], each counted once: it may go on
	 * into the next page, never past a page it has no block of (a hole
	 * page between two contiguous blocks). */
	if (rd->bio && pblk == rd->next_pblk && i <= rd->rb->last + 1 &&
	    !bio_add_buf(rd->bio, dst, bs))
		goto added;
	submit_read(rd);
	rd->rb = kmalloc(sizeof(*rd->rb), GFP_KERNEL);
	rd->bio = rd->rb ? bio_alloc(sbi->s_bdev,
				     BLK_OP_READ,
				     (uint64_t)pblk * sbi->s_sect_per_block,
				     EXT2_BIO_VECS)
			 : NULL;
	if (!rd->bio || bio_add_buf(rd->bio, dst, bs)) {
		if (rd->bio)
			bio_free(rd->bio);
		kfree(rd->rb);
		rd->bio = NULL;
		return -ENOMEM;
	}
	*rd->rb = (struct read_bio){ rd->ctx, i, i, pblk };
	rd->bio->private = rd->rb;
	rd->bio->end_io = read_end_io;
	__atomic_add_fetch(&rd->ctx->refs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&rd->ctx->p[i].pending, 1, __ATOMIC_RELAXED);
	rd->next_pblk = pblk + 1;
	return 0;
added:
	if (rd->rb->last != i) {
		rd->rb->last = i;
		__atomic_add_fetch(&rd->ctx->p[i].pending, 1, __ATOMIC_RELAXED);
	}
	rd->next_pblk = pblk + 1;
	return 0;
}

/* Map and queue every block of page @i; zero the holes. */
static void read_one_page(struct read_builder *rd, unsigned int i)
{
	struct inode *inode = rd->ctx->inode;
	struct page *page = rd->ctx->p[i].page;
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	uint32_t bs = 1u << bits, bpp = PAGE_SIZE >> bits;
	uint64_t eof = DIV_ROUND_UP((uint64_t)READ_ONCE(inode->i_size), bs);
	char *base = page_address(page);

	for (uint32_t j = 0; j < bpp; j++) {
		uint64_t lblk = (uint64_t)page->index * bpp + j;
		uint32_t pblk = 0;
		int err = 0;

		if (lblk < eof)
			err = ext2_run_map(inode, &rd->map, lblk, &pblk);
		if (!err && pblk)
			err = queue_block(rd, i, pblk, base + j * bs);
		if (err)
			rd->ctx->p[i].err = err;
		if (err || !pblk)
			memset(base + j * bs, 0, bs);
	}
}

static void
ext2_read_pages(struct inode *inode, struct page **pages, unsigned int nr)
{
	struct read_builder rd = { 0 };
	struct read_ctx *ctx;

	race_point(RACE_FILL_INSERTED, inode);
	ctx = kzalloc(sizeof(*ctx) + nr * sizeof(ctx->p[0]), GFP_KERNEL);
	if (!ctx) {
		for (unsigned int i = 0; i < nr; i++)
			page_read_done(pages[i], -ENOMEM);
		return;
	}
	ctx->inode = inode;
	ctx->refs = 1;
	ctx->nr = nr;
	for (unsigned int i = 0; i < nr; i++)
		ctx->p[i] = (struct read_page_state){ pages[i], 1, 0 };
	/* No plug needed: each bio already covers a whole contiguous run. */
	rd.ctx = ctx;
	rd.map.last = (((uint64_t)pages[nr - 1]->index + 1)
		       << (PAGE_SHIFT - inode->i_sb->s_blocksize_bits)) -
		      1;
	for (unsigned int i = 0; i < nr; i++)
		read_one_page(&rd, i);
	race_point(RACE_FILL_MAPPED, inode);
	submit_read(&rd);
	__atomic_fetch_add(&EXT2_SBI(inode->i_sb)->s_map_walks,
			   rd.map.walks,
			   __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < nr; i++)
		read_page_put(&ctx->p[i]);
	read_ctx_put(ctx);
}

int ext2_read_page(struct address_space *m, struct page *page)
{
	ext2_read_pages(m->host, &page, 1);
	return 0;
}

void ext2_readahead(struct readahead_control *rac)
{
	ext2_read_pages(rac->mapping->host, rac->pages, rac->nr_pages);
}

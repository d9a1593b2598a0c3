/*
 * drivers/block_sync.c: synchronous block I/O on top of blk_submit().
 *
 * A synchronous call splits its range into bios within the device's
 * limits, submits them all at once and waits for the last with a timeout
 * (the disk's sync_timeout_ns, by default BLK_SYNC_TIMEOUT_NS). The wait
 * context is reference counted: if the device never answers, the caller
 * gets -ETIMEDOUT and a console message, and a late completion still
 * finds valid memory. Reads and writes move their data through a bounce
 * buffer that belongs to the wait context, not through the caller's: the
 * device may read or write it until it completes, however late, while
 * the caller's buffer is the caller's again as soon as the call returns.
 * Longer ranges go in rounds of SYNC_BOUNCE_SECTORS. blk_write_sync_vec
 * writes several separate ranges the same way, all in flight at once.
 *
 * Context: task context, may sleep. Locking: none of its own; the counters
 * in struct sync_io are atomic.
 */
#include <errno.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/printk.h>
#include <kernel/wait.h>
#include <mm/kmalloc.h>

#define SYNC_BOUNCE_SECTORS 512 /* 256 KiB per round */

struct sync_io {
	struct completion done;
	int refs;     /* one per bio in flight, one for the waiter */
	int pending;  /* bios not yet completed */
	int status;   /* the first error */
	char *bounce; /* the bios' data, or NULL: freed with the last ref */
};

static void sync_put(struct sync_io *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		kfree(s->bounce);
		kfree(s);
	}
}

static void sync_end_io(struct bio *bio)
{
	struct sync_io *s = bio->private;
	int expected = 0;

	if (bio->status)
		__atomic_compare_exchange_n(&s->status,
					    &expected,
					    bio->status,
					    false,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&s->pending, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&s->done);
	sync_put(s);
}

/* For bios this file allocated. */
static void sync_end_io_free(struct bio *bio)
{
	sync_end_io(bio);
	bio_free(bio);
}

/* @bounce_bytes: 0, or the size of a bounce buffer for the data. */
static struct sync_io *sync_alloc(int nbios, size_t bounce_bytes)
{
	struct sync_io *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	if (bounce_bytes && !(s->bounce = kmalloc(bounce_bytes, GFP_KERNEL))) {
		kfree(s);
		return NULL;
	}
	init_completion(&s->done);
	s->refs = nbios + 1;
	s->pending = nbios;
	return s;
}

static uint64_t sync_timeout_ns(const struct block_device *dev)
{
	return dev->sync_timeout_ns ? dev->sync_timeout_ns
				    : BLK_SYNC_TIMEOUT_NS;
}

/* Wait for @s; on success copy @out_len bytes of the bounce to @out. */
static int
sync_wait(struct block_device *dev, struct sync_io *s, void *out, size_t len)
{
	int status;

	if (!wait_for_completion_timeout(&s->done, sync_timeout_ns(dev))) {
		pr_err("blk: %s: request timed out after %llu ms, abandoned\n",
		       dev->name,
		       sync_timeout_ns(dev) / 1000000ULL);
		sync_put(s);
		return -ETIMEDOUT;
	}
	status = s->status;
	if (!status && out)
		memcpy(out, s->bounce, len);
	sync_put(s);
	return status;
}

/* The largest read/write bio the device takes, in bytes. */
static uint32_t max_rw_bytes(const struct block_device *dev)
{
	const struct blk_limits *l = &dev->limits;
	uint64_t by_segs = (uint64_t)l->max_segments * l->max_segment_size;
	uint64_t bytes = MIN((uint64_t)l->max_sectors << SECTOR_SHIFT, by_segs);

	return (uint32_t)ALIGN_DOWN(bytes, (uint64_t)l->logical_block_size);
}

static struct bio *rw_bio(struct block_device *dev,
			  enum blk_op op,
			  uint64_t sector,
			  char *buf,
			  uint32_t bytes)
{
	uint32_t seg = dev->limits.max_segment_size;
	struct bio *bio = bio_alloc(dev, op, sector, DIV_ROUND_UP(bytes, seg));

	for (uint32_t off = 0; bio && off < bytes; off += seg)
		bio_add_buf(bio, buf + off, MIN(seg, bytes - off));
	return bio;
}

/* Building the bios failed: free the @n built, @bios and @s. */
static int sync_abort(struct bio **bios, int n, struct sync_io *s)
{
	while (n-- > 0)
		bio_free(bios[n]);
	kfree(bios);
	if (s) {
		kfree(s->bounce);
		kfree(s);
	}
	return -ENOMEM;
}

/*
 * Build the bios for [sector, sector + nsect) in chunks of @chunk sectors
 * and submit them; @buf is NULL for discard and write zeroes, else the
 * data goes through the sync_io's bounce buffer.
 */
static int submit_range(struct block_device *dev,
			enum blk_op op,
			uint64_t sector,
			uint64_t nsect,
			char *buf,
			uint64_t chunk)
{
	size_t bytes = buf ? nsect << SECTOR_SHIFT : 0;
	int nbios, i;
	struct bio **bios;
	struct sync_io *s;

	if (!chunk)
		return -EOPNOTSUPP;
	if (!nsect)
		return -EINVAL;
	nbios = (int)DIV_ROUND_UP(nsect, chunk);
	bios = kcalloc(nbios, sizeof(*bios), GFP_KERNEL);
	s = bios ? sync_alloc(nbios, bytes) : NULL;
	if (s && buf && op == BLK_OP_WRITE)
		memcpy(s->bounce, buf, bytes);
	for (i = 0; s && i < nbios; i++) {
		uint64_t off = (uint64_t)i * chunk, n = MIN(chunk, nsect - off);
		bios[i] = buf ? rw_bio(dev,
				       op,
				       sector + off,
				       s->bounce + (off << SECTOR_SHIFT),
				       (uint32_t)(n << SECTOR_SHIFT))
			      : bio_alloc(dev, op, sector + off, 0);
		if (!bios[i])
			break;
		if (!buf)
			bios[i]->size = (uint32_t)(n << SECTOR_SHIFT);
		bios[i]->end_io = sync_end_io_free;
		bios[i]->private = s;
	}
	if (!s || i < nbios)
		return sync_abort(bios, i, s);
	for (i = 0; i < nbios; i++)
		blk_submit(bios[i]);
	kfree(bios);
	return sync_wait(dev, s, op == BLK_OP_READ ? buf : NULL, bytes);
}

/* A read or write in rounds of at most SYNC_BOUNCE_SECTORS. */
static int rw_sync(struct block_device *dev,
		   enum blk_op op,
		   uint64_t sector,
		   char *buf,
		   uint32_t nsect)
{
	uint64_t chunk = max_rw_bytes(dev) >> SECTOR_SHIFT;
	int err;

	if (!nsect || !blk_buf_ok(buf, (size_t)nsect << SECTOR_SHIFT))
		return -EINVAL;
	for (uint32_t done = 0, n; done < nsect; done += n) {
		n = MIN(nsect - done, (uint32_t)SYNC_BOUNCE_SECTORS);
		err = submit_range(dev,
				   op,
				   sector + done,
				   n,
				   buf + ((size_t)done << SECTOR_SHIFT),
				   chunk);
		if (err)
			return err;
	}
	return 0;
}

int blk_write_sync_vec(struct block_device *dev,
		       const struct blk_wseg *v,
		       unsigned int n)
{
	uint32_t chunk = max_rw_bytes(dev);
	size_t bytes = 0, off = 0;
	int nbios = 0, i = 0;
	struct blk_plug plug;
	struct bio **bios;
	struct sync_io *s;

	for (unsigned int k = 0; k < n; k++) {
		size_t len = (size_t)v[k].nsect << SECTOR_SHIFT;

		if (!len || !blk_buf_ok(v[k].buf, len))
			return -EINVAL;
		bytes += len;
		nbios += (int)DIV_ROUND_UP(len, chunk);
	}
	if (bytes > BLK_WRITE_VEC_MAX_BYTES)
		return -EINVAL;
	if (!n)
		return 0;
	bios = kcalloc(nbios, sizeof(*bios), GFP_KERNEL);
	s = bios ? sync_alloc(nbios, bytes) : NULL;
	for (unsigned int k = 0; s && k < n; k++) {
		uint32_t len = v[k].nsect << SECTOR_SHIFT;

		memcpy(s->bounce + off, v[k].buf, len);
		for (uint32_t done = 0; done < len; done += chunk, i++) {
			uint32_t piece = MIN(chunk, len - done);

			bios[i] = rw_bio(dev,
					 BLK_OP_WRITE,
					 v[k].sector + (done >> SECTOR_SHIFT),
					 s->bounce + off + done,
					 piece);
			if (!bios[i])
				return sync_abort(bios, i, s);
			bios[i]->end_io = sync_end_io_free;
			bios[i]->private = s;
		}
		off += len;
	}
	if (!s)
		return sync_abort(bios, 0, s);
	blk_start_plug(&plug, dev);
	for (i = 0; i < nbios; i++)
		blk_submit(bios[i]);
	blk_finish_plug(&plug);
	kfree(bios);
	return sync_wait(dev, s, NULL, 0);
}

/*
 * One request that is not a sector range (a flush, a driver command) in a
 * bio of this file's, freed at completion; @len bytes the device writes go
 * through the bounce and reach @out if it answers in time.
 */
static int submit_one(struct block_device *dev,
		      enum blk_op op,
		      uint32_t drv_cmd,
		      void *out,
		      uint32_t len)
{
	struct sync_io *s = sync_alloc(1, len);
	struct bio *bio = s ? bio_alloc(dev, op, 0, len ? 1 : 0) : NULL;

	if (!bio) {
		if (s) {
			kfree(s->bounce);
			kfree(s);
		}
		return -ENOMEM;
	}
	bio->drv_cmd = drv_cmd;
	if (len)
		bio_add_buf(bio, s->bounce, len);
	bio->end_io = sync_end_io_free;
	bio->private = s;
	blk_submit(bio);
	return sync_wait(dev, s, out, len);
}

int blk_flush(struct block_device *dev)
{
	return submit_one(dev, BLK_OP_FLUSH, 0, NULL, 0);
}

int blk_drv_in_sync(struct block_device *dev,
		    uint32_t cmd,
		    void *buf,
		    uint32_t len)
{
	if (!len || !blk_buf_ok(buf, len))
		return -EINVAL;
	return submit_one(dev, BLK_OP_DRV_IN, cmd, buf, len);
}

int blk_read_sync(struct block_device *dev,
		  uint64_t sector,
		  void *buf,
		  uint32_t nsect)
{
	return rw_sync(dev, BLK_OP_READ, sector, buf, nsect);
}

int blk_write_sync(struct block_device *dev,
		   uint64_t sector,
		   const void *buf,
		   uint32_t nsect)
{
	return rw_sync(dev, BLK_OP_WRITE, sector, (char *)buf, nsect);
}

int blk_discard(struct block_device *dev, uint64_t sector, uint64_t nsect)
{
	return submit_range(dev,
			    BLK_OP_DISCARD,
			    sector,
			    nsect,
			    NULL,
			    dev->limits.max_discard_sectors);
}

int blk_write_zeroes(struct block_device *dev, uint64_t sector, uint64_t nsect)
{
	return submit_range(dev,
			    BLK_OP_WRITE_ZEROES,
			    sector,
			    nsect,
			    NULL,
			    dev->limits.max_write_zeroes_sectors);
}

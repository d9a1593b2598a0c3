/*
 * drivers/block.h: block devices and bio requests.
 *
 * A bio is one I/O: an operation, a start sector (512 bytes), a list of
 * segments (memory the device reads or writes: RAM from kmalloc or the
 * page allocator, which is identity mapped, never a task stack) and a
 * completion callback. blk_submit() queues it; bio->end_io(bio) is called
 * exactly once, with bio->status 0 or a negative errno, from interrupt
 * context or from blk_submit itself when the bio is refused up front:
 *
 *   struct bio *bio = bio_alloc(dev, BLK_OP_READ, sector, 1);
 *   bio_add_buf(bio, buf, 4096);
 *   bio->end_io = my_done; bio->private = me;
 *   blk_submit(bio);                 // my_done(bio) later; bio_free(bio)
 *
 * Synchronous wrappers wait with a timeout and return the status:
 *   blk_read_sync(dev, sector, buf, nsect), blk_write_sync(...),
 *   blk_flush(dev), blk_discard(dev, sector, nsect),
 *   blk_write_zeroes(dev, sector, nsect).
 * After -ETIMEDOUT the caller's buffer is free to reuse: the device only
 * ever had a bounce copy of it (blk_drv_in_sync, a driver's own command,
 * the same).
 *
 * Queued bios wait on the disk's queue while the driver is busy; a bio
 * that continues the last queued one (same op, next sector) is merged with
 * it while the merged request stays within the device's limits. If a
 * merged request fails, its bios are retried one by one, so an error
 * reaches exactly the bios whose sectors failed.
 *
 * A task can plug: between blk_start_plug and blk_finish_plug the bios it
 * submits to that disk are held on its plug (merging there) and reach the
 * disk together. A plug started with no disk (NULL) takes the disk of the
 * first bio submitted under it (mm/writeback.c plugs without knowing the
 * filesystem's disk); bios for other disks go straight to theirs. The
 * plug belongs to the task, not the disk, so other tasks' I/O is never
 * held back, and the scheduler flushes it whenever the task goes to sleep
 * (it may be about to wait for one of those bios, e.g. an indirect block
 * read in the middle of a readahead batch) or is preempted (another task
 * may be waiting for one: fsync for a page the flusher has under
 * writeback).
 *
 * Disks register with blk_register() and are named by the driver in
 * probe order (vda, vdb, ...); blkdev_get("vda") finds one.
 *
 * Hardware queues: a disk has one or more (nr_hw_queues, set by the driver
 * before blk_register: virtio-blk's multi-queue disks have one per hart).
 * A bio goes to the queue of the hart that submits it (hart id modulo the
 * queues in use, blk_set_queues), and waits, merges and is dispatched
 * there: submitters on different harts share no lock.
 *
 * Locking: each queue's lock (irqsave) protects its pending list and its
 * count in flight, and is held while the driver's queue_rq runs for it (so
 * the driver's own locks for that queue nest inside it); the driver's
 * commit (the doorbell) runs after it is released. The statistics are
 * atomic counters. end_io is called with no block-layer lock held.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/spinlock.h>

#define SECTOR_SHIFT	    9
#define SECTOR_SIZE	    (1u << SECTOR_SHIFT)
#define BLK_SYNC_TIMEOUT_NS (30ULL * 1000000000ULL)

enum blk_op {
	BLK_OP_READ,
	BLK_OP_WRITE,
	BLK_OP_FLUSH,
	BLK_OP_DISCARD,
	BLK_OP_WRITE_ZEROES,
	BLK_OP_DRV_IN, /* driver command bio->drv_cmd, data in */
};

struct bio_vec {
	void *addr;
	uint32_t len;
};

#define BIO_NOMERGE 0x1u

struct bio {
	struct block_device *bdev;
	enum blk_op op;
	uint64_t sector;
	uint32_t size;	  /* bytes (discard: the range) */
	uint32_t drv_cmd; /* BLK_OP_DRV_IN only */
	unsigned int flags;
	unsigned int vcnt, max_vecs;
	struct bio_vec *vecs;
	void (*end_io)(struct bio *bio);
	void *private;
	int status;

	/* block layer, protected by its hardware queue's lock while queued: */
	unsigned int hwq; /* the hardware queue it went to */
	struct list_head queue;
	struct bio *rq_next; /* bios merged behind this one */
	struct bio *rq_tail;
	unsigned int rq_segs;
	uint32_t rq_bytes;
};

struct block_device;
struct task;

struct block_ops {
	/* Start request @rq (a bio with rq_next chain) on hardware queue
	 * rq->hwq. Return 0, or -EBUSY to be called again after a completion
	 * on that queue. Called under that queue's lock. */
	int (*queue_rq)(struct block_device *dev, struct bio *rq);
	/* Optional: tell the device about the requests queue_rq accepted on
	 * hardware queue @hwq (a doorbell). Called with no block-layer lock
	 * held, after any call of queue_rq that accepted one, from the same
	 * context: an emulated doorbell can be slow, and other harts must not
	 * spin on the queue's lock meanwhile. */
	void (*commit)(struct block_device *dev, unsigned int hwq);
	/* Optional: print the driver's own lines for `disks`. */
	void (*show)(struct block_device *dev);
};

struct blk_limits {
	uint32_t logical_block_size; /* bytes, >= 512 */
	unsigned int max_segments;
	uint32_t max_segment_size;
	uint32_t max_sectors;		   /* per read/write request */
	uint32_t max_discard_sectors;	   /* 0: no discard */
	uint32_t max_write_zeroes_sectors; /* 0: no write zeroes */
};

/* Atomic counters (relaxed). commits: the driver told to start what it
 * accepted (a doorbell rung). */
struct blk_stats {
	unsigned long reads, writes, other, merges, errors, retries, commits;
	unsigned long read_bytes, write_bytes;
};

#define BLK_MAX_HW_QUEUES 8

struct blk_hw_queue {
	struct spinlock lock;
	/* protected by lock: */
	struct list_head pending; /* requests not yet given to the driver */
	unsigned int inflight;
	unsigned long dispatched; /* requests the driver accepted, ever */
};

struct block_device {
	char name[8];
	uint64_t nr_sectors;
	struct blk_limits limits;
	bool read_only, flush; /* flush: has a volatile cache */
	const char *transport; /* for the boot banner, e.g. "virtio legacy" */
	const char *features;  /* for `disks` */
	const struct block_ops *ops;
	void *driver;
	uint64_t sync_timeout_ns;  /* synchronous calls; 0: the default */
	struct list_head node;	   /* in the disk list, disks_lock */
	unsigned int nr_hw_queues; /* the driver's; 0 counts as 1 */
	unsigned int queues_used;  /* submitters spread over the first N */
	struct blk_hw_queue hwq[BLK_MAX_HW_QUEUES];
	struct blk_stats stats;
};

/* The queues of a disk (blk_register does it; tests' fake disks too). */
void blk_init_queue(struct block_device *dev);
/* Spread submitters over the first @n hardware queues only (1 ..
 * nr_hw_queues; benchmarks compare). Return: the number now in use. */
unsigned int blk_set_queues(struct block_device *dev, unsigned int n);
/* Requests the driver holds, over all queues (a snapshot). */
unsigned int blk_inflight(struct block_device *dev);
int blk_register(struct block_device *dev);
/* Is [@addr, @addr + @len) RAM a device can reach? */
bool blk_buf_ok(const void *addr, size_t len);
struct block_device *blkdev_get(const char *name);
/* The @n-th registered disk (probe order), or NULL. */
struct block_device *blkdev_nth(unsigned int n);

struct bio *bio_alloc(struct block_device *dev,
		      enum blk_op op,
		      uint64_t sector,
		      unsigned int max_vecs);
void bio_free(struct bio *bio);
/* Add @len bytes at @addr; a buffer adjacent to the last one extends it.
 * Return: 0 or -ENOSPC (no vector left). */
int bio_add_buf(struct bio *bio, void *addr, uint32_t len);
void blk_submit(struct bio *bio);
/* Driver side: @rq (head of a merged chain) finished with @status. */
void blk_end_request(struct bio *rq, int status);

/* Owned by one task, usually on its stack. */
struct blk_plug {
	struct block_device *dev; /* NULL: the first bio's disk */
	struct list_head pending; /* held requests, merged as on a disk */
};

void blk_start_plug(struct blk_plug *plug, struct block_device *dev);
void blk_finish_plug(struct blk_plug *plug);
/* Send the bios held on @t's plug to the disk (the plug stays active).
 * Called by the scheduler before @t sleeps. */
void blk_flush_plug(struct task *t);

int blk_read_sync(struct block_device *dev,
		  uint64_t sector,
		  void *buf,
		  uint32_t nsect);
int blk_write_sync(struct block_device *dev,
		   uint64_t sector,
		   const void *buf,
		   uint32_t nsect);
/* One piece of a blk_write_sync_vec: @nsect sectors from @buf at @sector. */
struct blk_wseg {
	uint64_t sector;
	const void *buf;
	uint32_t nsect;
};
#define BLK_WRITE_VEC_MAX_BYTES (256u << 10) /* the pieces' sum */
/* Write @n pieces in flight together (under one plug, so adjacent ones
 * merge) and wait once: one round trip to the device instead of @n.
 * Return: 0, -EINVAL (an empty piece, a buffer a device cannot reach, a
 * sum over BLK_WRITE_VEC_MAX_BYTES), or the first error of any piece
 * (which of the others reached the disk is then not known). */
int blk_write_sync_vec(struct block_device *dev,
		       const struct blk_wseg *v,
		       unsigned int n);
int blk_flush(struct block_device *dev);
/* Driver command @cmd (BLK_OP_DRV_IN) reading @len bytes into @buf. */
int blk_drv_in_sync(struct block_device *dev,
		    uint32_t cmd,
		    void *buf,
		    uint32_t len);
int blk_discard(struct block_device *dev, uint64_t sector, uint64_t nsect);
int blk_write_zeroes(struct block_device *dev, uint64_t sector, uint64_t nsect);

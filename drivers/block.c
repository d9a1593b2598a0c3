/*
 * drivers/block.c: the disk registry, bio checks, the request queue with
 * merging, and completion (see drivers/block.h for the interface).
 *
 * Lock order: disks_lock is taken alone. A hardware queue's lock
 * (irqsave) is held while the driver's queue_rq runs for that queue, so
 * driver locks (virtio-blk's pool lock, the virtqueue lock) nest inside
 * it; its commit (the doorbell) runs after the queue's lock is dropped.
 * end_io callbacks run with no lock held.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/sched.h>
#include <kernel/panic.h>
#include <kernel/trace.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <mm/kmalloc.h>

static DEFINE_SPINLOCK(disks_lock);
static struct list_head disks = LIST_HEAD_INIT(disks); /* disks_lock */

void blk_init_queue(struct block_device *dev)
{
	dev->nr_hw_queues =
	    MIN(MAX(dev->nr_hw_queues, 1u), (unsigned int)BLK_MAX_HW_QUEUES);
	dev->queues_used = dev->nr_hw_queues;
	for (unsigned int i = 0; i < dev->nr_hw_queues; i++) {
		spin_lock_init(&dev->hwq[i].lock, "blk_hw_queue");
		list_init(&dev->hwq[i].pending);
	}
}

unsigned int blk_set_queues(struct block_device *dev, unsigned int n)
{
	WRITE_ONCE(dev->queues_used, MIN(MAX(n, 1u), dev->nr_hw_queues));
	return dev->queues_used;
}

unsigned int blk_inflight(struct block_device *dev)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < dev->nr_hw_queues; i++)
		n += READ_ONCE(dev->hwq[i].inflight);
	return n;
}

/* The submitting hart's queue. A migration right after only costs
 * locality: any queue is correct. */
static struct blk_hw_queue *submit_queue(struct block_device *dev,
					 unsigned int *index)
{
	*index = cpu_id() % READ_ONCE(dev->queues_used);
	return &dev->hwq[*index];
}

static void stat_add(unsigned long *counter, unsigned long n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

int blk_register(struct block_device *dev)
{
	unsigned long flags;

	blk_init_queue(dev);
	flags = spin_lock_irqsave(&disks_lock);
	list_add_tail(&dev->node, &disks);
	spin_unlock_irqrestore(&disks_lock, flags);
	return 0;
}

struct block_device *blkdev_nth(unsigned int n)
{
	struct block_device *dev, *found = NULL;
	unsigned long flags = spin_lock_irqsave(&disks_lock);

	list_for_each_entry (dev, &disks, node)
		if (n-- == 0) {
			found = dev;
			break;
		}
	spin_unlock_irqrestore(&disks_lock, flags);
	return found;
}

struct block_device *blkdev_get(const char *name)
{
	struct block_device *dev;

	for (unsigned int i = 0; (dev = blkdev_nth(i)); i++)
		if (!strcmp(dev->name, name))
			return dev;
	return NULL;
}

struct bio *bio_alloc(struct block_device *dev,
		      enum blk_op op,
		      uint64_t sector,
		      unsigned int max_vecs)
{
	struct bio *bio = kzalloc(
	    sizeof(*bio) + max_vecs * sizeof(struct bio_vec), GFP_KERNEL);

	if (!bio)
		return NULL;
	bio->bdev = dev;
	bio->op = op;
	bio->sector = sector;
	bio->max_vecs = max_vecs;
	bio->vecs = (struct bio_vec *)(bio + 1);
	list_init(&bio->queue);
	return bio;
}

void bio_free(struct bio *bio)
{
	kfree(bio);
}

/* Return: 0, or -ENOSPC when the bio has no free vector. A buffer that
 * starts where the last one ends extends it instead (one segment for the
 * device to map), as long as the bio stays within max_vecs pages: what
 * its caller sized it for. */
int bio_add_buf(struct bio *bio, void *addr, uint32_t len)
{
	struct bio_vec *last = bio->vcnt ? &bio->vecs[bio->vcnt - 1] : NULL;

	if (last && (char *)last->addr + last->len == (char *)addr &&
	    (uint64_t)bio->size + len <= (uint64_t)bio->max_vecs * PAGE_SIZE) {
		last->len += len;
		bio->size += len;
		return 0;
	}
	if (bio->vcnt == bio->max_vecs)
		return -ENOSPC;
	bio->vecs[bio->vcnt++] = (struct bio_vec){ .addr = addr, .len = len };
	bio->size += len;
	return 0;
}

static unsigned int bio_segments(const struct bio *bio,
				 const struct blk_limits *l)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < bio->vcnt; i++)
		n += DIV_ROUND_UP(bio->vecs[i].len, l->max_segment_size);
	return n;
}

bool blk_buf_ok(const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;

	return a >= platform.mem_base &&
	       a + len <= platform.mem_base + platform.mem_size;
}

static bool bio_dma_ok(const struct bio *bio)
{
	for (unsigned int i = 0; i < bio->vcnt; i++)
		if (!blk_buf_ok(bio->vecs[i].addr, bio->vecs[i].len))
			return false;
	return true;
}

static int check_range(const struct block_device *dev,
		       const struct bio *bio,
		       uint32_t max_sectors)
{
	uint32_t lbs = dev->limits.logical_block_size;
	uint64_t nsect = bio->size >> SECTOR_SHIFT;

	if (!max_sectors)
		return -EOPNOTSUPP;
	if (bio->op != BLK_OP_READ && dev->read_only)
		return -EROFS;
	if (!bio->size || bio->size % lbs ||
	    (bio->sector * SECTOR_SIZE) % lbs || nsect > max_sectors ||
	    bio->sector > dev->nr_sectors ||
	    nsect > dev->nr_sectors - bio->sector)
		return -EINVAL;
	return 0;
}

/* Return: 0 if @bio may be queued, 1 if it is already done (a flush on a
 * disk without a volatile cache), or a negative errno. */
static int bio_check(struct block_device *dev, struct bio *bio)
{
	const struct blk_limits *l = &dev->limits;

	switch (bio->op) {
	case BLK_OP_READ:
	case BLK_OP_WRITE:
		if (!bio_dma_ok(bio) || bio_segments(bio, l) > l->max_segments)
			return -EINVAL;
		return check_range(dev, bio, l->max_sectors);
	case BLK_OP_DISCARD:
		return check_range(dev, bio, l->max_discard_sectors);
	case BLK_OP_WRITE_ZEROES:
		return check_range(dev, bio, l->max_write_zeroes_sectors);
	case BLK_OP_FLUSH: return dev->flush ? 0 : 1;
	case BLK_OP_DRV_IN:
		return bio_dma_ok(bio) && bio->vcnt == 1 ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static void bio_endio(struct bio *bio, int status)
{
	trace_event(TRACE_BIO_DONE, bio->sector, (uint64_t)(int64_t)status);
	bio->status = status;
	bio->end_io(bio);
}

/* Complete a request chain; no lock held. */
static void end_chain(struct bio *rq, int status)
{
	while (rq) {
		struct bio *next = rq->rq_next;
		bio_endio(rq, status);
		rq = next;
	}
}

static bool can_merge(const struct block_device *dev,
		      const struct bio *rq,
		      const struct bio *bio)
{
	const struct blk_limits *l = &dev->limits;

	return rq->op == bio->op &&
	       (bio->op == BLK_OP_READ || bio->op == BLK_OP_WRITE) &&
	       !((rq->flags | bio->flags) & BIO_NOMERGE) &&
	       rq->sector + (rq->rq_bytes >> SECTOR_SHIFT) == bio->sector &&
	       rq->rq_segs + bio->rq_segs <= l->max_segments &&
	       ((rq->rq_bytes + (uint64_t)bio->size) >> SECTOR_SHIFT) <=
		   l->max_sectors;
}

/* Add @bio to @queue (a hardware queue's pending list, under its lock, or
 * a task's plug), merged into the last request when it continues it. */
static void
queue_bio(struct block_device *dev, struct list_head *queue, struct bio *bio)
{
	struct bio *last;

	if (!list_empty(queue)) {
		last = list_entry(queue->prev, struct bio, queue);
		if (can_merge(dev, last, bio)) {
			last->rq_tail->rq_next = bio;
			last->rq_tail = bio;
			last->rq_segs += bio->rq_segs;
			last->rq_bytes += bio->size;
			stat_add(&dev->stats.merges, 1);
			return;
		}
	}
	list_add_tail(&bio->queue, queue);
}

/*
 * Give hardware queue @index's requests to the driver until it is busy.
 * Requests it refuses with an error are moved to @failed for the caller
 * to complete unlocked. Caller holds the queue's lock. Return: how many
 * the driver accepted (the caller commits them once it has dropped the
 * lock: commit()).
 */
static unsigned int dispatch_locked(struct block_device *dev,
				    unsigned int index,
				    struct list_head *failed)
{
	struct blk_hw_queue *q = &dev->hwq[index];
	unsigned int accepted = 0;

	while (!list_empty(&q->pending)) {
		struct bio *rq =
		    list_first_entry(&q->pending, struct bio, queue);
		int err;

		list_del(&rq->queue);
		rq->hwq = index;
		err = dev->ops->queue_rq(dev, rq);
		if (err == -EBUSY) {
			list_add(&rq->queue, &q->pending);
			break;
		}
		if (err) {
			rq->status = err;
			list_add_tail(&rq->queue, failed);
			continue;
		}
		q->inflight++;
		q->dispatched++;
		accepted++;
	}
	return accepted;
}

/* After dispatch_locked, with the queue's lock dropped: the doorbell. */
static void
commit(struct block_device *dev, unsigned int index, unsigned int accepted)
{
	if (accepted && dev->ops->commit) {
		__atomic_fetch_add(&dev->stats.commits, 1, __ATOMIC_RELAXED);
		dev->ops->commit(dev, index);
	}
}

static void end_failed(struct list_head *failed)
{
	struct bio *rq, *n;

	list_for_each_entry_safe (rq, n, failed, queue) {
		list_del(&rq->queue);
		end_chain(rq, rq->status);
	}
}

static void count_bio(struct blk_stats *s, const struct bio *bio)
{
	if (bio->op == BLK_OP_READ) {
		stat_add(&s->reads, 1);
		stat_add(&s->read_bytes, bio->size);
	} else if (bio->op == BLK_OP_WRITE) {
		stat_add(&s->writes, 1);
		stat_add(&s->write_bytes, bio->size);
	} else {
		stat_add(&s->other, 1);
	}
}

/**
 * blk_submit - queue @bio on bio->bdev.
 *
 * Context: any (it does not sleep); bio->end_io may run before it returns.
 */
void blk_submit(struct bio *bio)
{
	struct block_device *dev = bio->bdev;
	struct list_head failed = LIST_HEAD_INIT(failed);
	struct blk_plug *plug;
	struct blk_hw_queue *q;
	unsigned long flags;
	unsigned int accepted, index;
	int err = bio_check(dev, bio);

	trace_event(
	    TRACE_BIO_SUBMIT, bio->sector, bio->size | (uint64_t)bio->op << 32);
	if (err) {
		bio_endio(bio, err < 0 ? err : 0);
		return;
	}
	bio->status = 0;
	bio->rq_next = NULL;
	bio->rq_tail = bio;
	bio->rq_bytes = bio->size;
	bio->rq_segs = bio_segments(bio, &dev->limits);
	plug = in_interrupt() ? NULL : current_task()->plug;
	if (plug && !plug->dev)
		plug->dev = dev;
	if (plug && plug->dev == dev) {
		/* Only this task touches its plug, and a preemption flushes it
		 * (kernel/sched.c): no preemption while the list changes. */
		preempt_disable();
		queue_bio(dev, &plug->pending, bio);
		preempt_enable();
		return;
	}
	count_bio(&dev->stats, bio);
	q = submit_queue(dev, &index);
	flags = spin_lock_irqsave(&q->lock);
	queue_bio(dev, &q->pending, bio);
	accepted = dispatch_locked(dev, index, &failed);
	spin_unlock_irqrestore(&q->lock, flags);
	commit(dev, index, accepted);
	end_failed(&failed);
}

/* A merged request failed: queue its bios again one by one, in order, at
 * the head of its queue. Caller holds that queue's lock. */
static void requeue_unmerged_locked(struct block_device *dev, struct bio *rq)
{
	struct list_head *pos = &dev->hwq[rq->hwq].pending;

	for (struct bio *b = rq, *next; b; b = next) {
		next = b->rq_next;
		b->flags |= BIO_NOMERGE;
		b->rq_next = NULL;
		b->rq_tail = b;
		b->rq_bytes = b->size;
		b->rq_segs = bio_segments(b, &dev->limits);
		list_add(&b->queue, pos);
		pos = &b->queue;
	}
	stat_add(&dev->stats.retries, 1);
}

/**
 * blk_end_request - the driver finished @rq.
 * @status: 0 or a negative errno for the whole request.
 *
 * Context: any, usually the device's interrupt handler; no lock held.
 */
void blk_end_request(struct bio *rq, int status)
{
	struct block_device *dev = rq->bdev;
	struct list_head failed = LIST_HEAD_INIT(failed);
	unsigned int index = rq->hwq, accepted;
	struct blk_hw_queue *q = &dev->hwq[index];
	unsigned long flags = spin_lock_irqsave(&q->lock);

	q->inflight--;
	if (status && rq->rq_next) {
		requeue_unmerged_locked(dev, rq);
		rq = NULL;
	} else if (status) {
		stat_add(&dev->stats.errors, 1);
	}
	accepted = dispatch_locked(dev, index, &failed);
	spin_unlock_irqrestore(&q->lock, flags);
	commit(dev, index, accepted);
	if (rq)
		end_chain(rq, status);
	end_failed(&failed);
}

void blk_start_plug(struct blk_plug *plug, struct block_device *dev)
{
	struct task *t = current_task();

	DEBUG_ASSERT(!t->plug); /* plugs do not nest */
	plug->dev = dev;
	list_init(&plug->pending);
	barrier(); /* a preemption may flush it once it is the task's */
	t->plug = plug;
}

/* Move the requests held on @plug to the disk and start them. */
static void submit_plugged(struct blk_plug *plug)
{
	struct block_device *dev = plug->dev;
	struct list_head failed = LIST_HEAD_INIT(failed);
	struct blk_hw_queue *q;
	unsigned long flags;
	unsigned int accepted, index;

	if (list_empty(&plug->pending))
		return;
	q = submit_queue(dev, &index);
	flags = spin_lock_irqsave(&q->lock);
	while (!list_empty(&plug->pending)) {
		struct bio *rq =
		    list_first_entry(&plug->pending, struct bio, queue);
		list_del(&rq->queue);
		for (struct bio *b = rq; b; b = b->rq_next)
			count_bio(&dev->stats, b);
		list_add_tail(&rq->queue, &q->pending);
	}
	accepted = dispatch_locked(dev, index, &failed);
	spin_unlock_irqrestore(&q->lock, flags);
	commit(dev, index, accepted);
	end_failed(&failed);
}

void blk_flush_plug(struct task *t)
{
	if (t->plug)
		submit_plugged(t->plug);
}

void blk_finish_plug(struct blk_plug *plug)
{
	struct task *t = current_task();

	WARN_ON_ONCE(t->plug != plug);
	t->plug = NULL;
	barrier(); /* no preemption flushes it from here on */
	submit_plugged(plug);
}

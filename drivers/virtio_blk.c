/*
 * drivers/virtio_blk.c: the virtio-blk driver (see drivers/virtio_blk.h).
 *
 * One virtqueue per hardware queue of the disk: one, or with
 * VIRTIO_BLK_F_MQ one per hart (up to BLK_MAX_HW_QUEUES). Each request in
 * flight owns a slot from its queue's pool, as large as the ring: the
 * request header, the status byte the device writes, the
 * discard/write-zeroes range and the piece list. A request is header
 * (device reads) + data + status (device writes); the device's interrupt
 * (one for all queues) hands finished slots back and completes their
 * requests in whatever order the device finishes them.
 *
 * Locking: each queue's q->lock (irqsave) protects its slot pool. queue_rq
 * runs under the block layer's lock of the same hardware queue, so the
 * order is that lock -> q->lock and that lock -> vq->lock; the interrupt
 * handler takes them one at a time. Queues share no lock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <drivers/virtio.h>
#include <drivers/virtio_blk.h>
#include <drivers/virtqueue.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <kernel/printk.h>
#include <mm/kmalloc.h>
#include "virtio_blk_internal.h"

static struct virtblk_req *slot_get(struct virtblk_queue *q)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);
	struct virtblk_req *req = q->free;

	if (req)
		q->free = req->next_free;
	spin_unlock_irqrestore(&q->lock, flags);
	return req;
}

void slot_put(struct virtblk_queue *q, struct virtblk_req *req)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);

	req->rq = NULL;
	req->next_free = q->free;
	q->free = req;
	spin_unlock_irqrestore(&q->lock, flags);
}

static uint32_t req_type(const struct bio *rq)
{
	switch (rq->op) {
	case BLK_OP_READ: return VIRTIO_BLK_T_IN;
	case BLK_OP_WRITE: return VIRTIO_BLK_T_OUT;
	case BLK_OP_FLUSH: return VIRTIO_BLK_T_FLUSH;
	case BLK_OP_DISCARD: return VIRTIO_BLK_T_DISCARD;
	case BLK_OP_WRITE_ZEROES: return VIRTIO_BLK_T_WRITE_ZEROES;
	case BLK_OP_DRV_IN: break;
	}
	return rq->drv_cmd;
}

/* Data pieces of every bio in the chain, split at the segment size. */
static unsigned int
map_data(struct virtio_blk *vblk, struct bio *rq, struct vq_sg *sg)
{
	uint32_t max = vblk->bdev.limits.max_segment_size;
	bool in = rq->op != BLK_OP_WRITE;
	unsigned int n = 0;

	for (struct bio *b = rq; b; b = b->rq_next)
		for (unsigned int i = 0; i < b->vcnt; i++)
			for (uint32_t off = 0; off < b->vecs[i].len; off += max)
				sg[n++] = (struct vq_sg){
					.addr =
					    (uintptr_t)b->vecs[i].addr + off,
					.len = MIN(max, b->vecs[i].len - off),
					.device_writes = in,
				};
	return n;
}

static unsigned int
map_request(struct virtio_blk *vblk, struct virtblk_req *req, struct bio *rq)
{
	struct vq_sg *sg = req->sg;
	unsigned int n = 0;

	req->hdr.type = req_type(rq);
	req->hdr.ioprio = 0;
	req->hdr.sector =
	    rq->op == BLK_OP_FLUSH || rq->op == BLK_OP_DRV_IN ? 0 : rq->sector;
	req->status = 0xff;
	sg[n++] = (struct vq_sg){ .addr = (uintptr_t)&req->hdr,
				  .len = sizeof(req->hdr) };
	if (rq->op == BLK_OP_DISCARD || rq->op == BLK_OP_WRITE_ZEROES) {
		req->range.sector = rq->sector;
		req->range.num_sectors = rq->size >> SECTOR_SHIFT;
		req->range.flags = 0;
		sg[n++] = (struct vq_sg){ .addr = (uintptr_t)&req->range,
					  .len = sizeof(req->range) };
	} else {
		n += map_data(vblk, rq, sg + n);
	}
	sg[n++] = (struct vq_sg){ .addr = (uintptr_t)&req->status,
				  .len = 1,
				  .device_writes = true };
	return n;
}

/* Caller holds the lock of hardware queue rq->hwq (the block layer's
 * dispatch). */
static int virtblk_queue_rq(struct block_device *bdev, struct bio *rq)
{
	struct virtio_blk *vblk = bdev->driver;
	struct virtblk_queue *q = &vblk->queues[rq->hwq];
	struct virtblk_req *req = slot_get(q);
	int err;

	if (!req)
		return -EBUSY;
	req->rq = rq;
	err = virtqueue_add(q->vq, req->sg, map_request(vblk, req, rq), req);
	if (err) {
		slot_put(q, req);
		return err == -ENOSPC ? -EBUSY : err;
	}
	return 0;
}

/* The block layer's commit, with no lock held: notify the device of the
 * requests queue_rq made available on queue @hwq, if it asked to be told
 * (event index). Rung outside the queue's lock because under TCG QEMU
 * starts the requests inside the notifying store: other harts completing
 * or submitting must not spin meanwhile. */
static void virtblk_commit(struct block_device *bdev, unsigned int hwq)
{
	struct virtio_blk *vblk = bdev->driver;

	if (!__atomic_exchange_n(&vblk->skip_kick, 0, __ATOMIC_ACQ_REL))
		virtqueue_kick(vblk->queues[hwq].vq);
}

void virtblk_forge_next_status(struct block_device *dev, uint8_t status)
{
	struct virtio_blk *vblk = dev->driver;

	__atomic_store_n(&vblk->forge_status, status + 1, __ATOMIC_RELEASE);
}

void virtblk_skip_next_kick(struct block_device *dev)
{
	struct virtio_blk *vblk = dev->driver;

	__atomic_store_n(&vblk->skip_kick, 1, __ATOMIC_RELEASE);
}

struct virtblk_watch virtblk_watch_of(struct block_device *dev, bool *event_idx)
{
	struct virtio_blk *vblk = dev->driver;
	struct virtblk_watch sum = vblk->queues[0].watched;

	for (unsigned int i = 1; i < vblk->nr_queues; i++) {
		const struct virtblk_watch *w = &vblk->queues[i].watched;

		sum.lost_ticks += w->lost_ticks;
		sum.lost_completions += w->lost_completions;
		sum.renotified += w->renotified;
		sum.lost_kicks += w->lost_kicks;
	}
	*event_idx = vblk->queues[0].vq->event_idx;
	return sum;
}

static int status_to_errno(struct virtio_blk *vblk, uint8_t status)
{
	switch (status) {
	case VIRTIO_BLK_S_OK: return 0;
	case VIRTIO_BLK_S_IOERR: return -EIO;
	case VIRTIO_BLK_S_UNSUPP: return -EOPNOTSUPP;
	}
	pr_err("%s: device returned status %u\n", vblk->bdev.name, status);
	return -EIO;
}

/* Complete every request the device has used on @q. Return: how many. */
static unsigned int virtblk_complete_used(struct virtblk_queue *q)
{
	struct virtio_blk *vblk = q->vblk;
	struct virtblk_req *req;
	unsigned int n = 0;
	uint32_t len;
	int err;

	while ((req = virtqueue_get_buf(q->vq, &len, &err))) {
		struct bio *rq = req->rq;
		int forged = __atomic_exchange_n(
		    &vblk->forge_status, 0, __ATOMIC_ACQ_REL);
		uint8_t byte =
		    forged ? (uint8_t)(forged - 1) : READ_ONCE(req->status);
		int status = err ? err : status_to_errno(vblk, byte);

		slot_put(q, req);
		blk_end_request(rq, status);
		n++;
	}
	return n;
}

/* The device says its configuration changed. The limits the disk was
 * brought up with stay: the filesystem on it was mounted with that size,
 * and a shrunk device fails the requests past its end itself (-EIO). */
static void virtblk_config_changed(struct virtio_blk *vblk)
{
	uint64_t capacity;

	if (virtio_config_read64(vblk->vdev,
				 offsetof(struct virtio_blk_config, capacity),
				 &capacity))
		return;
	if (capacity == vblk->bdev.nr_sectors)
		pr_info("%s: configuration changed\n", vblk->bdev.name);
	else
		pr_warn("%s: configuration changed: capacity %llu sectors, "
			"was %llu; the disk keeps its size\n",
			vblk->bdev.name,
			(unsigned long long)capacity,
			(unsigned long long)vblk->bdev.nr_sectors);
}

void virtblk_queue_interrupt(void *arg, unsigned int index)
{
	struct virtio_blk *vblk = arg;

	__atomic_add_fetch(&vblk->in_interrupt, 1, __ATOMIC_ACQ_REL);
	virtblk_complete_used(&vblk->queues[index]);
	__atomic_sub_fetch(&vblk->in_interrupt, 1, __ATOMIC_ACQ_REL);
}

void virtblk_config_interrupt(void *arg)
{
	virtblk_config_changed(arg);
}

/*
 * A watchdog that sees used buffers left untaken for a whole period
 * collects them and says so, so that a lost interrupt is visible and
 * nothing hangs; one that sees requests in flight and nothing moving for
 * two periods notifies the device again (a lost notification). The losses
 * seen at -smp 1 came from QEMU before 8.1, which drops the guest's
 * barriers when the machine has one possible CPU (docs/benchmarks.md, "One
 * possible CPU loses interrupts"); the tools boot with two, the watchdog stays
 * as a net.
 */

bool virtblk_watch_lost(const struct virtblk_watch *w,
			uint16_t last_used,
			bool waiting,
			bool in_interrupt)
{
	/* Buffers used just before this tick are not late yet: only those
	 * already waiting a period ago, with none taken since, are. */
	return waiting && w->waiting && last_used == w->last_used &&
	       !in_interrupt;
}

static void virtblk_watchdog_collect(struct virtblk_queue *q)
{
	struct virtio_blk *vblk = q->vblk;
	/* Where the interrupt stopped: the device's status (where reading
	 * it does not acknowledge it), the controller's pending bit. Read
	 * before collecting. */
	uint32_t isr = 0;
	bool peeked = virtio_interrupt_peek(vblk->vdev, &isr);
	bool pending = irq_pending(
	    virtio_queue_irq(vblk->vdev, (unsigned int)(q - vblk->queues)));
	unsigned int n = virtblk_complete_used(q);
	char isr_text[16] = "unread";

	if (!n)
		return; /* the interrupt handler took them meanwhile */
	if (peeked)
		snprintf(isr_text, sizeof(isr_text), "%#x", isr);
	if (q->watched.lost_ticks++ < 3)
		pr_warn("%s: %u completions without an interrupt "
			"(isr %s, line pending %d); collected by the "
			"watchdog\n",
			vblk->bdev.name,
			n,
			isr_text,
			pending);
	q->watched.lost_completions += n;
}

bool virtblk_watch_stalled(struct virtblk_watch *w,
			   uint16_t last_used,
			   uint16_t avail_idx,
			   bool in_flight)
{
	if (!in_flight || last_used != w->last_used ||
	    avail_idx != w->avail_idx) {
		w->stalled = 0;
		return false;
	}
	if (++w->stalled < VIRTBLK_STALL_TICKS)
		return false;
	w->stalled = 0;
	return true;
}

/* The notify side: requests wait and the device has done nothing for
 * whole periods. If avail_event says it never looked at some of them, the
 * notification for them was skipped or lost (the same race as a lost
 * interrupt, on the other side); else the device is only slow. Either
 * way a spare notification is harmless. */
static void virtblk_watchdog_renotify(struct virtblk_queue *q)
{
	struct virtblk_watch *w = &q->watched;
	uint16_t unseen = virtqueue_unseen(q->vq);

	w->renotified++;
	if (unseen && w->lost_kicks++ < 3)
		pr_warn("%s: %u requests the device was never told of; "
			"notified it again\n",
			q->vblk->bdev.name,
			unseen);
	virtqueue_notify_again(q->vq);
}

static void virtblk_watch_queue(struct virtblk_queue *q)
{
	struct virtblk_watch *w = &q->watched;
	struct virtqueue *vq = q->vq;

	if (virtblk_watch_lost(
		w,
		READ_ONCE(vq->last_used),
		virtqueue_has_used(vq),
		__atomic_load_n(&q->vblk->in_interrupt, __ATOMIC_ACQUIRE)))
		virtblk_watchdog_collect(q);
	else if (virtblk_watch_stalled(w,
				       READ_ONCE(vq->last_used),
				       READ_ONCE(vq->avail_idx),
				       virtqueue_in_flight(vq)))
		virtblk_watchdog_renotify(q);
	w->last_used = READ_ONCE(vq->last_used);
	w->avail_idx = READ_ONCE(vq->avail_idx);
	w->waiting = virtqueue_has_used(vq);
}

void virtblk_watchdog(struct ktimer *tm)
{
	struct virtio_blk *vblk = tm->data;

	for (unsigned int i = 0; i < vblk->nr_queues; i++)
		virtblk_watch_queue(&vblk->queues[i]);
	timer_arm(tm, time_ns() + VIRTBLK_WATCHDOG_NS);
}

static void virtblk_show(struct block_device *dev)
{
	struct virtio_blk *vblk = dev->driver;
	bool event_idx;
	struct virtblk_watch w = virtblk_watch_of(dev, &event_idx);

	printf(
	    "%s: %u queues; requests per queue:", dev->name, vblk->nr_queues);
	for (unsigned int i = 0; i < vblk->nr_queues; i++)
		printf(" %lu", READ_ONCE(dev->hwq[i].dispatched));
	printf("\n%s: watchdog: %lu ticks found lost completions, "
	       "%lu completions collected\n",
	       dev->name,
	       w.lost_ticks,
	       w.lost_completions);
	printf("%s: watchdog: %lu stalls notified again, %lu of them lost "
	       "notifications\n",
	       dev->name,
	       w.renotified,
	       w.lost_kicks);
}

const struct block_ops virtblk_ops = {
	.queue_rq = virtblk_queue_rq,
	.commit = virtblk_commit,
	.show = virtblk_show,
};

int virtio_blk_drv_in(struct block_device *dev,
		      uint32_t type,
		      void *buf,
		      uint32_t len)
{
	return blk_drv_in_sync(dev, type, buf, len);
}

int virtio_blk_get_id(struct block_device *dev,
		      char id[VIRTIO_BLK_ID_BYTES + 1])
{
	char *buf = kzalloc(VIRTIO_BLK_ID_BYTES, GFP_KERNEL);
	int err;

	if (!buf)
		return -ENOMEM;
	err = virtio_blk_drv_in(
	    dev, VIRTIO_BLK_T_GET_ID, buf, VIRTIO_BLK_ID_BYTES);
	memcpy(id, buf, VIRTIO_BLK_ID_BYTES);
	id[VIRTIO_BLK_ID_BYTES] = '\0';
	kfree(buf);
	return err;
}

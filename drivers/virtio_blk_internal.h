/*
 * drivers/virtio_blk_internal.h: what drivers/virtio_blk.c (requests,
 * completion, the watchdog) and drivers/virtio_blk_probe.c (finding,
 * negotiating and setting up a disk) share, and nothing else includes.
 */
#pragma once

#include <linux/virtio_blk.h>
#include <drivers/block.h>
#include <drivers/virtio.h>
#include <drivers/virtio_blk.h>
#include <drivers/virtqueue.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/timer.h>

#define VBLK_MAX_SEGS	      64   /* data pieces per request */
#define VBLK_MAX_DISKS	      26   /* names vda..vdz */
#define VBLK_MAX_SECTORS      2048 /* 1 MiB per read/write request */
#define VBLK_DEFAULT_SEG_SIZE (1u << 20)
#define BIT(n)		      (1ULL << (n))

struct virtblk_req {
	struct virtio_blk_outhdr hdr;
	struct virtio_blk_discard_write_zeroes range;
	uint8_t status;
	struct bio *rq;
	struct virtblk_req *next_free;
	struct vq_sg *sg; /* [max_sg] */
};

/* One virtqueue and what its requests need: the block layer's hardware
 * queue of the same number feeds it. */
struct virtblk_queue {
	struct virtio_blk *vblk;
	struct virtqueue *vq;
	struct virtblk_watch watched; /* touched by the watchdog only */
	struct virtblk_req *slots;
	struct spinlock lock;
	struct virtblk_req *free; /* protected by lock */
};

struct virtio_blk {
	struct virtio_device *vdev;
	struct ktimer watchdog; /* finds completions without an interrupt */
	int in_interrupt;	/* harts in virtblk_interrupt (atomic) */
	int skip_kick;		/* tests: the next request goes unnotified */
	int forge_status; /* tests: the next completion's status byte + 1 */
	struct block_device bdev;
	char features[128];
	unsigned int
	    nr_queues; /* 1, or with VIRTIO_BLK_F_MQ up to a hart each */
	struct virtblk_queue queues[BLK_MAX_HW_QUEUES];
};

#define VIRTBLK_WATCHDOG_NS (200 * NSEC_PER_MSEC)

extern const struct block_ops virtblk_ops;
/* Bring @vdev up as disk vd('a' + @index) and register it; a disk it
 * refuses keeps nothing of the probe (vdev->priv NULL). Context: init, or
 * a test probing again the disk vblk.fail_probe refused. */
void virtblk_probe(struct virtio_device *vdev, unsigned int index);
/* Give a request slot back to its queue's pool (the pool's lock inside). */
void slot_put(struct virtblk_queue *q, struct virtblk_req *req);
/* Queue @index's interrupt: hand finished slots back, complete requests. */
void virtblk_queue_interrupt(void *arg, unsigned int index);
/* The configuration changed (the capacity is checked, kept). */
void virtblk_config_interrupt(void *arg);
/* Every VIRTBLK_WATCHDOG_NS: collect completions whose interrupt was lost. */
void virtblk_watchdog(struct ktimer *tm);

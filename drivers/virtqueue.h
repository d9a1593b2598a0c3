/*
 * drivers/virtqueue.h: split virtqueues (virtio 1.1, 2.6) on one device.
 *
 *   vq = virtqueue_create(dev, 0, max_sg);    // sized from QueueNumMax
 *   err = virtqueue_add(vq, sg, n, token);    // -ENOSPC: retry later
 *   virtqueue_kick(vq);                       // notify if the device wants
 *   // from the device's interrupt handler:
 *   while ((token = virtqueue_get_buf(vq, &len, &err)))
 *           finish(token, err);
 *
 * A buffer is a list of physically contiguous pieces, those the device
 * reads first, then those it writes. With VIRTIO_F_RING_INDIRECT_DESC a
 * buffer of several pieces takes one ring slot (a per-slot indirect table
 * is preallocated); otherwise one descriptor per piece. With
 * VIRTIO_RING_F_EVENT_IDX the driver asks for an interrupt only when it has
 * consumed everything and the device says when it wants a notification.
 *
 * The device can write all of the ring's memory, so the driver keeps its
 * own books (struct vq_desc_state) and checks what it reads from the used
 * ring: a bad id is ignored with a message, a length past the buffer
 * fails that buffer (-EIO), a runaway used index stops the queue.
 *
 * Locking: vq->lock (irqsave; a leaf lock) protects the ring and the free
 * list; every function takes it itself. The device doorbell is rung outside
 * it. get_buf returning NULL guarantees that another interrupt follows
 * when more buffers are used.
 */
#pragma once

#include <linux/virtio_ring.h>
#include <kernel/compiler.h>
#include <kernel/spinlock.h>

struct virtio_device;

#define VIRTQUEUE_MAX_SIZE 256

struct vq_sg {
	uint64_t addr;
	uint32_t len;
	bool device_writes;
};

/* Driver-private book of one descriptor: the device never sees it. */
struct vq_desc_state {
	void *token;	   /* at a buffer's head while it is in flight */
	uint32_t in_bytes; /* head: bytes the device may write */
	uint16_t ndescs;   /* head: ring descriptors the buffer holds */
	uint16_t next;	   /* free list, and a buffer's chain, in order */
};

struct virtqueue {
	struct virtio_device *dev;
	unsigned int index;
	unsigned int num;    /* ring size, a power of two */
	unsigned int max_sg; /* pieces per buffer */
	bool indirect, event_idx;
	struct vring vr;
	unsigned int ring_order;	    /* ring memory: 2^order pages */
	struct vring_desc *indirect_tables; /* [num][max_sg], or NULL */

	struct spinlock lock;
	/* protected by lock: */
	uint16_t free_head, num_free;
	uint16_t avail_idx;	     /* our copy of avail->idx */
	uint16_t kicked_idx;	     /* avail_idx at the last kick */
	uint16_t last_used;	     /* next used entry to consume */
	struct vq_desc_state *state; /* [num], driver memory */
	bool broken;		     /* the device broke the ring's rules */
	unsigned long kicks, bad_used;
};

struct virtqueue *virtqueue_create(struct virtio_device *dev,
				   unsigned int index,
				   unsigned int max_sg);
int virtqueue_add(struct virtqueue *vq,
		  const struct vq_sg *sg,
		  unsigned int n,
		  void *token);
void virtqueue_kick(struct virtqueue *vq);
void *virtqueue_get_buf(struct virtqueue *vq, uint32_t *len, int *err);
/* For tests that play the device: a queue no device is given. */
struct virtqueue *virtqueue_create_unbound(unsigned int num,
					   unsigned int max_sg,
					   bool indirect,
					   bool event_idx);
void virtqueue_free(struct virtqueue *vq);
/* Could a buffer of @n pieces be added now? A hint without the lock. */
bool virtqueue_has_room(struct virtqueue *vq, unsigned int n);
/* Has the device used buffers not yet taken? A hint: no lock. */
bool virtqueue_has_used(struct virtqueue *vq);
/* Are buffers in flight (added, not yet taken back)? A hint: no lock. */
bool virtqueue_in_flight(struct virtqueue *vq);
/* With event idx: entries made available past the one the device said it
 * has looked at (avail_event); 0 without event idx. A hint: no lock. */
uint16_t virtqueue_unseen(struct virtqueue *vq);
/* Notify the device of the queue whatever avail_event says (the
 * watchdog's net for a lost notification; a spare one is harmless). */
void virtqueue_notify_again(struct virtqueue *vq);

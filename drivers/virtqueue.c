/*
 * drivers/virtqueue.c: the split ring (see drivers/virtqueue.h).
 *
 * Memory ordering with the device (another agent on the bus):
 *  - descriptors and the avail ring entry are written, then smp_wmb, then
 *    avail->idx: the device never sees an index before its entry;
 *  - avail->idx is written, then smp_mb, then avail_event/used->flags is
 *    read to decide on the notify (the device writes them in the opposite
 *    order), so a notification is never wrongly suppressed;
 *  - used->idx is read, then smp_rmb, then the used entry;
 *  - used_event is written after every buffer taken (as Linux does), and
 *    when the ring looks empty it is written, then smp_mb, then used->idx
 *    re-read, so a buffer used in between is either seen now or interrupts
 *    later. Writing it only when the ring looked empty lost an interrupt
 *    about once in 40 bench fs boots (the device's InterruptStatus stayed
 *    0); with the per-buffer update, none in 150.
 * The notify itself is an MMIO write, ordered after memory by mmio_write32.
 *
 * Locking: vq->lock only (irqsave; nothing is taken inside it).
 */
#include <errno.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <drivers/virtio.h>
#include <drivers/virtqueue.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <mm/kmalloc.h>

#define VRING_ALIGN 4096

static unsigned int ring_size(struct virtio_device *dev, unsigned int index)
{
	unsigned int max = virtio_queue_max(dev, index), num = 1;

	while (num * 2 <= MIN(max, VIRTQUEUE_MAX_SIZE))
		num *= 2;
	return max ? num : 0;
}

static unsigned int order_for(size_t bytes)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

static void free_list_init(struct virtqueue *vq)
{
	for (unsigned int i = 0; i < vq->num; i++)
		vq->vr.desc[i].next = (uint16_t)(i + 1);
	vq->free_head = 0;
	vq->num_free = (uint16_t)vq->num;
}

static int vq_alloc(struct virtqueue *vq)
{
	void *ring;

	vq->ring_order = order_for(vring_size(vq->num, VRING_ALIGN));
	ring = alloc_pages_va(GFP_KERNEL | GFP_ZERO, vq->ring_order);
	vq->tokens = kcalloc(vq->num, sizeof(void *), GFP_KERNEL);
	if (vq->indirect)
		vq->indirect_tables = kcalloc((size_t)vq->num * vq->max_sg,
					      sizeof(struct vring_desc),
					      GFP_KERNEL);
	if (!ring || !vq->tokens || (vq->indirect && !vq->indirect_tables)) {
		if (ring)
			free_pages_va(ring, vq->ring_order);
		kfree(vq->tokens);
		kfree(vq->indirect_tables);
		return -ENOMEM;
	}
	memset(ring, 0, PAGE_SIZE << vq->ring_order);
	vring_init(&vq->vr, vq->num, ring, VRING_ALIGN);
	return 0;
}

/**
 * virtqueue_create - set up queue @index of @dev.
 * @max_sg: most pieces a buffer will have.
 *
 * Context: probe, after feature negotiation, before DRIVER_OK.
 * Return: the queue, or ERR_PTR(-ENODEV) for a queue size of 0 or a queue
 * already live, -ENOMEM, -EINVAL.
 */
struct virtqueue *virtqueue_create(struct virtio_device *dev,
				   unsigned int index,
				   unsigned int max_sg)
{
	struct virtqueue *vq = kzalloc(sizeof(*vq), GFP_KERNEL);
	int err;

	if (!vq)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&vq->lock, "virtqueue");
	vq->dev = dev;
	vq->index = index;
	vq->num = ring_size(dev, index);
	vq->max_sg = max_sg;
	vq->indirect = virtio_has_feature(dev, VIRTIO_RING_F_INDIRECT_DESC);
	vq->event_idx = virtio_has_feature(dev, VIRTIO_RING_F_EVENT_IDX);
	err = vq->num ? vq_alloc(vq) : -ENODEV;
	if (err)
		goto err_free_vq;
	free_list_init(vq);
	err = virtio_queue_enable(dev,
				  index,
				  vq->num,
				  (uintptr_t)vq->vr.desc,
				  (uintptr_t)vq->vr.avail,
				  (uintptr_t)vq->vr.used);
	if (err)
		goto err_free_vq;
	return vq;

err_free_vq:
	kfree(vq);
	return ERR_PTR(err);
}

static void fill_desc(struct vring_desc *d,
		      const struct vq_sg *sg,
		      bool more,
		      uint16_t next)
{
	d->addr = sg->addr;
	d->len = sg->len;
	d->flags = (uint16_t)((sg->device_writes ? VRING_DESC_F_WRITE : 0) |
			      (more ? VRING_DESC_F_NEXT : 0));
	d->next = next;
}

/* One ring descriptor pointing at the slot's indirect table. */
static uint16_t
add_indirect(struct virtqueue *vq, const struct vq_sg *sg, unsigned int n)
{
	uint16_t head = vq->free_head;
	struct vring_desc *table =
	    vq->indirect_tables + (size_t)head * vq->max_sg;
	struct vring_desc *d = &vq->vr.desc[head];

	for (unsigned int i = 0; i < n; i++)
		fill_desc(&table[i], &sg[i], i + 1 < n, (uint16_t)(i + 1));
	vq->free_head = d->next;
	vq->num_free--;
	d->addr = (uintptr_t)table;
	d->len = n * sizeof(struct vring_desc);
	d->flags = VRING_DESC_F_INDIRECT;
	return head;
}

static uint16_t
add_direct(struct virtqueue *vq, const struct vq_sg *sg, unsigned int n)
{
	uint16_t head = vq->free_head, i = head;

	for (unsigned int k = 0; k < n; k++) {
		struct vring_desc *d = &vq->vr.desc[i];
		uint16_t next = d->next;

		fill_desc(d, &sg[k], k + 1 < n, next);
		if (k + 1 < n)
			i = next;
		else
			vq->free_head = next;
	}
	vq->num_free = (uint16_t)(vq->num_free - n);
	return head;
}

bool virtqueue_has_used(struct virtqueue *vq)
{
	return READ_ONCE(vq->last_used) != READ_ONCE(vq->vr.used->idx);
}

bool virtqueue_has_room(struct virtqueue *vq, unsigned int n)
{
	unsigned int need = vq->indirect && n > 1 ? 1 : n;

	return READ_ONCE(vq->num_free) >= need;
}

/**
 * virtqueue_add - make a buffer available to the device.
 * @sg: @n pieces, device-readable ones first.
 * @token: returned by virtqueue_get_buf when the device is done; not NULL.
 *
 * Context: any; takes vq->lock.
 * Return: 0, -ENOSPC when the ring is full (retry after completions),
 * -EINVAL for a buffer that can never fit.
 */
int virtqueue_add(struct virtqueue *vq,
		  const struct vq_sg *sg,
		  unsigned int n,
		  void *token)
{
	bool indirect = vq->indirect && n > 1;
	unsigned long flags;
	uint16_t head;

	if (!n || n > vq->max_sg || (!indirect && n > vq->num) || !token)
		return -EINVAL;
	flags = spin_lock_irqsave(&vq->lock);
	if (vq->num_free < (indirect ? 1 : n)) {
		spin_unlock_irqrestore(&vq->lock, flags);
		return -ENOSPC;
	}
	head = indirect ? add_indirect(vq, sg, n) : add_direct(vq, sg, n);
	vq->tokens[head] = token;
	vq->vr.avail->ring[vq->avail_idx % vq->num] = head;
	smp_wmb();
	vq->avail_idx++;
	WRITE_ONCE(vq->vr.avail->idx, vq->avail_idx);
	spin_unlock_irqrestore(&vq->lock, flags);
	return 0;
}

/* vring_avail_event(), without its aliasing cast. */
static volatile uint16_t *avail_event(struct virtqueue *vq)
{
	return (volatile uint16_t *)(void *)&vq->vr.used->ring[vq->num];
}

/* Context: any; takes vq->lock, rings the doorbell outside it. */
void virtqueue_kick(struct virtqueue *vq)
{
	unsigned long flags = spin_lock_irqsave(&vq->lock);
	uint16_t old = vq->kicked_idx, new = vq->avail_idx;
	bool notify;

	vq->kicked_idx = new;
	smp_mb();
	if (vq->event_idx)
		notify =
		    vring_need_event(READ_ONCE(*avail_event(vq)), new, old);
	else
		notify =
		    !(READ_ONCE(vq->vr.used->flags) & VRING_USED_F_NO_NOTIFY);
	if (notify)
		vq->kicks++;
	spin_unlock_irqrestore(&vq->lock, flags);
	if (notify)
		virtio_queue_notify(vq->dev, vq->index);
}

static void free_chain(struct virtqueue *vq, uint16_t head)
{
	uint16_t i = head, n = 1;

	while (vq->vr.desc[i].flags & VRING_DESC_F_NEXT) {
		i = vq->vr.desc[i].next;
		n++;
	}
	vq->vr.desc[i].next = vq->free_head;
	vq->free_head = head;
	vq->num_free = (uint16_t)(vq->num_free + n);
}

/* Nothing new: with event idx, ask for an interrupt at the next entry and
 * look once more so an entry that slipped in is not left without one. */
static bool used_empty(struct virtqueue *vq)
{
	if (vq->last_used != READ_ONCE(vq->vr.used->idx))
		return false;
	if (!vq->event_idx)
		return true;
	WRITE_ONCE(vring_used_event(&vq->vr), vq->last_used);
	smp_mb();
	return vq->last_used == READ_ONCE(vq->vr.used->idx);
}

/**
 * virtqueue_get_buf - take the next buffer the device has finished.
 * @len: set to the number of bytes the device wrote.
 *
 * A used entry naming a descriptor that is not in flight is reported and
 * dropped (a device bug must not complete someone else's request).
 * Context: any, typically the device's interrupt; takes vq->lock.
 * Return: the buffer's token, or NULL when there is none.
 */
void *virtqueue_get_buf(struct virtqueue *vq, uint32_t *len)
{
	unsigned long flags = spin_lock_irqsave(&vq->lock);
	void *token = NULL;

	while (!token && !used_empty(vq)) {
		struct vring_used_elem *e;
		uint32_t id;

		smp_rmb();
		e = &vq->vr.used->ring[vq->last_used % vq->num];
		id = e->id;
		*len = e->len;
		vq->last_used++;
		if (id >= vq->num || !vq->tokens[id]) {
			vq->bad_used++;
			pr_err("virtqueue: device used id %u, not in flight; "
			       "ignored\n",
			       id);
			continue;
		}
		token = vq->tokens[id];
		vq->tokens[id] = NULL;
		free_chain(vq, (uint16_t)id);
		if (vq->event_idx) {
			WRITE_ONCE(vring_used_event(&vq->vr), vq->last_used);
			smp_mb();
		}
	}
	spin_unlock_irqrestore(&vq->lock, flags);
	return token;
}

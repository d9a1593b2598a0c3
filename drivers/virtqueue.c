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
 * The ring is memory the device may write, so nothing is read back from it
 * but the used entries, and those are checked: the free list, the chains
 * and each buffer's token and writable size live in vq->state (driver
 * memory). A used id that is not the head of a buffer in flight is
 * reported and ignored; a length past what the buffer lets the device
 * write fails that buffer (-EIO); a used index more than a ring ahead
 * marks the queue broken (get_buf finds nothing, add fails).
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
		vq->state[i].next = (uint16_t)(i + 1);
	vq->free_head = 0;
	vq->num_free = (uint16_t)vq->num;
}

static int vq_alloc(struct virtqueue *vq)
{
	void *ring;

	vq->ring_order = order_for(vring_size(vq->num, VRING_ALIGN));
	ring = alloc_pages_va(GFP_KERNEL | GFP_ZERO, vq->ring_order);
	vq->state = kcalloc(vq->num, sizeof(*vq->state), GFP_KERNEL);
	if (vq->indirect)
		vq->indirect_tables = kcalloc((size_t)vq->num * vq->max_sg,
					      sizeof(struct vring_desc),
					      GFP_KERNEL);
	if (!ring || !vq->state || (vq->indirect && !vq->indirect_tables)) {
		if (ring)
			free_pages_va(ring, vq->ring_order);
		kfree(vq->state);
		kfree(vq->indirect_tables);
		return -ENOMEM;
	}
	memset(ring, 0, PAGE_SIZE << vq->ring_order);
	vring_init(&vq->vr, vq->num, ring, VRING_ALIGN);
	return 0;
}

/* A queue of @num entries with its memory, not yet given to a device. */
static struct virtqueue *vq_new(struct virtio_device *dev,
				unsigned int index,
				unsigned int num,
				unsigned int max_sg,
				bool indirect,
				bool event_idx)
{
	struct virtqueue *vq;
	int err;

	if (!num)
		return ERR_PTR(-ENODEV);
	vq = kzalloc(sizeof(*vq), GFP_KERNEL);
	if (!vq)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&vq->lock, "virtqueue");
	vq->dev = dev;
	vq->index = index;
	vq->num = num;
	vq->max_sg = max_sg;
	vq->indirect = indirect;
	vq->event_idx = event_idx;
	err = vq_alloc(vq);
	if (err) {
		kfree(vq);
		return ERR_PTR(err);
	}
	free_list_init(vq);
	return vq;
}

/**
 * virtqueue_free - free a queue the device no longer uses (never enabled,
 * or the device reset).
 */
void virtqueue_free(struct virtqueue *vq)
{
	free_pages_va(vq->vr.desc, vq->ring_order);
	kfree(vq->state);
	kfree(vq->indirect_tables);
	kfree(vq);
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
	struct virtqueue *vq =
	    vq_new(dev,
		   index,
		   ring_size(dev, index),
		   max_sg,
		   virtio_has_feature(dev, VIRTIO_RING_F_INDIRECT_DESC),
		   virtio_has_feature(dev, VIRTIO_RING_F_EVENT_IDX));
	int err;

	if (IS_ERR(vq))
		return vq;
	err = virtio_queue_enable(dev,
				  index,
				  vq->num,
				  (uintptr_t)vq->vr.desc,
				  (uintptr_t)vq->vr.avail,
				  (uintptr_t)vq->vr.used);
	if (err) {
		virtqueue_free(vq);
		return ERR_PTR(err);
	}
	return vq;
}

/**
 * virtqueue_create_unbound - a queue of @num (a power of two) entries that
 * no device is given: for tests that play the device on its ring memory.
 * It must not be kicked. Free it with virtqueue_free.
 * Return: the queue or ERR_PTR(-ENOMEM).
 */
struct virtqueue *virtqueue_create_unbound(unsigned int num,
					   unsigned int max_sg,
					   bool indirect,
					   bool event_idx)
{
	return vq_new(NULL, 0, num, max_sg, indirect, event_idx);
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
	vq->free_head = vq->state[head].next;
	vq->num_free--;
	vq->state[head].ndescs = 1;
	d->addr = (uintptr_t)table;
	d->len = n * sizeof(struct vring_desc);
	d->flags = VRING_DESC_F_INDIRECT;
	d->next = 0;
	return head;
}

static uint16_t
add_direct(struct virtqueue *vq, const struct vq_sg *sg, unsigned int n)
{
	uint16_t head = vq->free_head, i = head;

	/* The chain takes the first @n entries of the free list, in order:
	 * it stays linked through state[].next until free_chain. */
	for (unsigned int k = 0; k < n; k++) {
		uint16_t next = vq->state[i].next;

		fill_desc(&vq->vr.desc[i], &sg[k], k + 1 < n, next);
		if (k + 1 < n)
			i = next;
		else
			vq->free_head = next;
	}
	vq->state[head].ndescs = (uint16_t)n;
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
 * -EINVAL for a buffer that can never fit, -EIO on a broken queue.
 */
int virtqueue_add(struct virtqueue *vq,
		  const struct vq_sg *sg,
		  unsigned int n,
		  void *token)
{
	bool indirect = vq->indirect && n > 1;
	uint32_t in_bytes = 0;
	unsigned long flags;
	uint16_t head;

	if (!n || n > vq->max_sg || (!indirect && n > vq->num) || !token)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (sg[i].device_writes)
			in_bytes += sg[i].len;
	flags = spin_lock_irqsave(&vq->lock);
	if (vq->broken || vq->num_free < (indirect ? 1 : n)) {
		spin_unlock_irqrestore(&vq->lock, flags);
		return vq->broken ? -EIO : -ENOSPC;
	}
	head = indirect ? add_indirect(vq, sg, n) : add_direct(vq, sg, n);
	vq->state[head].token = token;
	vq->state[head].in_bytes = in_bytes;
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

uint16_t virtqueue_unseen(struct virtqueue *vq)
{
	if (!vq->event_idx)
		return 0;
	return (uint16_t)(READ_ONCE(vq->avail_idx) -
			  READ_ONCE(*avail_event(vq)));
}

bool virtqueue_in_flight(struct virtqueue *vq)
{
	return READ_ONCE(vq->num_free) != vq->num;
}

void virtqueue_notify_again(struct virtqueue *vq)
{
	unsigned long flags = spin_lock_irqsave(&vq->lock);

	vq->kicks++;
	spin_unlock_irqrestore(&vq->lock, flags);
	virtio_queue_notify(vq->dev, vq->index);
}

/* Give @head's chain back to the free list: its length and links are the
 * driver's own (state[]), whatever the device left in the ring. */
static void free_chain(struct virtqueue *vq, uint16_t head)
{
	uint16_t tail = head, n = vq->state[head].ndescs;

	for (uint16_t k = 1; k < n; k++)
		tail = vq->state[tail].next;
	vq->state[tail].next = vq->free_head;
	vq->free_head = head;
	vq->num_free = (uint16_t)(vq->num_free + n);
}

/* Used entries not yet taken. More than a ring's worth cannot be: the
 * device is broken, and the queue is marked so. */
static bool used_pending(struct virtqueue *vq)
{
	uint16_t n = (uint16_t)(READ_ONCE(vq->vr.used->idx) - vq->last_used);

	if (n > vq->num && !vq->broken) {
		vq->broken = true;
		pr_err("virtqueue %u: device used index is %u entries ahead "
		       "of a ring of %u; queue stopped\n",
		       vq->index,
		       n,
		       vq->num);
	}
	return n && !vq->broken;
}

/* Nothing new: with event idx, ask for an interrupt at the next entry and
 * look once more so an entry that slipped in is not left without one. */
static bool used_empty(struct virtqueue *vq)
{
	if (used_pending(vq))
		return false;
	if (!vq->event_idx || vq->broken)
		return true;
	WRITE_ONCE(vring_used_event(&vq->vr), vq->last_used);
	smp_mb();
	return !used_pending(vq);
}

/* The used entry names the head of a buffer in flight? */
static bool used_id_valid(struct virtqueue *vq, uint32_t id)
{
	if (id < vq->num && vq->state[id].token)
		return true;
	vq->bad_used++;
	pr_err("virtqueue %u: device used id %u, not a buffer in flight; "
	       "ignored\n",
	       vq->index,
	       id);
	return false;
}

/**
 * virtqueue_get_buf - take the next buffer the device has finished.
 * @len: set to the number of bytes the device wrote.
 * @err: set to 0, or -EIO when the device claims to have written more
 *       than the buffer lets it (the buffer's contents are not to be
 *       trusted; the buffer is finished all the same).
 *
 * A used entry naming a descriptor that is not the head of a buffer in
 * flight is reported and dropped (a device bug must not complete someone
 * else's request, nor free a descriptor twice).
 * Context: any, typically the device's interrupt; takes vq->lock.
 * Return: the buffer's token, or NULL when there is none.
 */
void *virtqueue_get_buf(struct virtqueue *vq, uint32_t *len, int *err)
{
	unsigned long flags = spin_lock_irqsave(&vq->lock);
	void *token = NULL;

	while (!token && !used_empty(vq)) {
		struct vring_used_elem *e;
		uint32_t id;

		smp_rmb();
		e = &vq->vr.used->ring[vq->last_used % vq->num];
		id = READ_ONCE(e->id);
		*len = READ_ONCE(e->len);
		vq->last_used++;
		if (!used_id_valid(vq, id))
			continue;
		token = vq->state[id].token;
		vq->state[id].token = NULL;
		*err = 0;
		if (*len > vq->state[id].in_bytes) {
			pr_err(
			    "virtqueue %u: device wrote %u bytes into buffer "
			    "%u of %u; failed\n",
			    vq->index,
			    *len,
			    id,
			    vq->state[id].in_bytes);
			*err = -EIO;
		}
		free_chain(vq, (uint16_t)id);
		if (vq->event_idx) {
			WRITE_ONCE(vring_used_event(&vq->vr), vq->last_used);
			smp_mb();
		}
	}
	spin_unlock_irqrestore(&vq->lock, flags);
	return token;
}

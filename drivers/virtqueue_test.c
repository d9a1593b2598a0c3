/*
 * drivers/virtqueue_test.c: suite virtio_ring - the split ring against a
 * device that breaks the rules. The test plays the device on an unbound
 * queue (virtqueue_create_unbound): it reads the avail ring, writes used
 * entries, and scribbles over the descriptor table, all memory a real
 * device may write.
 *
 * Rules (virtio 1.1, 2.6): the driver owns the free list and the chains
 * it made; a used id must be the head of a buffer in flight; a used
 * length is at most the device-writable bytes of that buffer; used->idx
 * runs at most a ring ahead of the driver.
 */
#include <errno.h>
#include <string.h>
#include <drivers/virtqueue.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/ktest.h>

#define NUM 8

static struct vq_sg pieces[3] = {
	{ .addr = 0x80001000, .len = 16 },
	{ .addr = 0x80002000, .len = 512, .device_writes = true },
	{ .addr = 0x80003000, .len = 1, .device_writes = true },
};

#define IN_BYTES 513

/* The head the driver made available last (what a device reads). */
static uint16_t last_avail(struct virtqueue *vq)
{
	return vq->vr.avail->ring[(uint16_t)(vq->avail_idx - 1) % vq->num];
}

static void device_uses(struct virtqueue *vq, uint32_t id, uint32_t len)
{
	struct vring_used *u = vq->vr.used;

	u->ring[u->idx % vq->num] = (struct vring_used_elem){ id, len };
	smp_wmb();
	WRITE_ONCE(u->idx, (uint16_t)(u->idx + 1));
}

static struct virtqueue *new_queue(struct ktest *t)
{
	struct virtqueue *vq = virtqueue_create_unbound(NUM, 3, false, false);

	KTEST_EXPECT_FALSE(t, IS_ERR(vq));
	return IS_ERR(vq) ? NULL : vq;
}

/* Descriptor links rewritten into a loop and out of range: the driver's
 * own books still free exactly the chains it made. */
static void scribbled_descriptors(struct ktest *t)
{
	struct virtqueue *vq = new_queue(t);
	int tokens[2], err = 1;
	uint16_t heads[2];
	uint32_t len;

	if (!vq)
		return;
	for (int i = 0; i < 2; i++) {
		KTEST_ASSERT_EQ(t, virtqueue_add(vq, pieces, 3, &tokens[i]), 0);
		heads[i] = last_avail(vq);
	}
	for (unsigned int i = 0; i < NUM; i++) {
		vq->vr.desc[i].flags = VRING_DESC_F_NEXT;
		vq->vr.desc[i].next = i % 2 ? 0xffff : (uint16_t)i;
	}
	device_uses(vq, heads[1], IN_BYTES);
	device_uses(vq, heads[0], 7);
	KTEST_EXPECT_TRUE(
	    t, virtqueue_get_buf(vq, &len, &err) == (void *)&tokens[1]);
	KTEST_EXPECT_EQ(t, err, 0);
	KTEST_EXPECT_EQ(t, len, IN_BYTES);
	KTEST_EXPECT_TRUE(
	    t, virtqueue_get_buf(vq, &len, &err) == (void *)&tokens[0]);
	KTEST_EXPECT_EQ(t, len, 7);
	KTEST_EXPECT_NULL(t, virtqueue_get_buf(vq, &len, &err));
	KTEST_EXPECT_EQ(t, vq->num_free, NUM);
	/* The whole ring is usable again: NUM / 3 more buffers fit. */
	for (int i = 0; i < NUM / 3; i++)
		KTEST_EXPECT_EQ(t, virtqueue_add(vq, pieces, 3, &tokens[0]), 0);
	KTEST_EXPECT_EQ(t, virtqueue_add(vq, pieces, 3, &tokens[0]), -ENOSPC);
	virtqueue_free(vq);
}

/* Ids out of range, not a head, already completed: ignored, counted. */
static void bad_used_ids(struct ktest *t)
{
	struct virtqueue *vq = new_queue(t);
	int token, err = 1;
	uint16_t head;
	uint32_t len;

	if (!vq)
		return;
	KTEST_ASSERT_EQ(t, virtqueue_add(vq, pieces, 3, &token), 0);
	head = last_avail(vq);
	device_uses(vq, 99, 1);
	device_uses(vq, (head + 1) % NUM, 1); /* inside the chain */
	device_uses(vq, head, 1);
	device_uses(vq, head, 1); /* again */
	KTEST_EXPECT_TRUE(t,
			  virtqueue_get_buf(vq, &len, &err) == (void *)&token);
	KTEST_EXPECT_EQ(t, err, 0);
	KTEST_EXPECT_NULL(t, virtqueue_get_buf(vq, &len, &err));
	KTEST_EXPECT_EQ(t, vq->bad_used, 3);
	KTEST_EXPECT_EQ(t, vq->num_free, NUM);
	virtqueue_free(vq);
}

/* A length past the device-writable bytes fails that buffer. */
static void overstated_length(struct ktest *t)
{
	struct virtqueue *vq = new_queue(t);
	int token, err = 0;
	uint32_t len;

	if (!vq)
		return;
	KTEST_ASSERT_EQ(t, virtqueue_add(vq, pieces, 3, &token), 0);
	device_uses(vq, last_avail(vq), IN_BYTES + 1);
	KTEST_EXPECT_TRUE(t,
			  virtqueue_get_buf(vq, &len, &err) == (void *)&token);
	KTEST_EXPECT_EQ(t, err, -EIO);
	KTEST_EXPECT_EQ(t, vq->num_free, NUM);
	virtqueue_free(vq);
}

/* used->idx far ahead: the queue stops instead of walking garbage. */
static void runaway_used_index(struct ktest *t)
{
	struct virtqueue *vq = new_queue(t);
	int token, err;
	uint32_t len;

	if (!vq)
		return;
	KTEST_ASSERT_EQ(t, virtqueue_add(vq, pieces, 3, &token), 0);
	WRITE_ONCE(vq->vr.used->idx, (uint16_t)(NUM + 5));
	KTEST_EXPECT_NULL(t, virtqueue_get_buf(vq, &len, &err));
	KTEST_EXPECT_TRUE(t, vq->broken);
	KTEST_EXPECT_EQ(t, virtqueue_add(vq, pieces, 3, &token), -EIO);
	virtqueue_free(vq);
}

static struct ktest_case ring_cases[] = {
	KTEST_CASE(scribbled_descriptors),
	KTEST_CASE(bad_used_ids),
	KTEST_CASE(overstated_length),
	KTEST_CASE(runaway_used_index),
	{},
};
KTEST_SUITE(virtio_ring, ring_cases);

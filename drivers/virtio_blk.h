/*
 * drivers/virtio_blk.h: virtio-blk disks (device id 2).
 *
 * Every virtio-blk device found at boot is probed in address order and
 * registered with the block layer as vda, vdb, ... (drivers/block.h is the
 * interface for I/O). Here are only the commands that are virtio's own.
 *
 * Context: task context, may sleep (they wait with a timeout).
 */
#pragma once

#include <linux/virtio_blk.h>
#include <drivers/block.h>

/* The device's serial number (GET_ID): NUL-terminated into @id.
 * Return: 0 or a negative errno. */
int virtio_blk_get_id(struct block_device *dev,
		      char id[VIRTIO_BLK_ID_BYTES + 1]);
/* Any device-to-driver request type @type with a @len-byte data buffer
 * (kmalloc'd). Return: 0, -EIO (IOERR), -EOPNOTSUPP (UNSUPP), ... */
int virtio_blk_drv_in(struct block_device *dev,
		      uint32_t type,
		      void *buf,
		      uint32_t len);

/* The virtio-blk watchdog's record, kept from one tick to the next. */
struct virtblk_watch {
	uint16_t last_used; /* the virtqueue's last_used at the previous tick */
	uint16_t avail_idx; /* and its avail_idx */
	bool waiting;	    /* used buffers were waiting then */
	unsigned int stalled; /* ticks in a row: in flight, nothing moved */
	unsigned long lost_ticks, lost_completions; /* for `disks` */
	unsigned long renotified, lost_kicks;	    /* for `disks` */
};

/* The watchdog's rule: completions are lost when used buffers are waiting
 * now (@waiting) and were at the previous tick, none was taken since
 * (@last_used unchanged) and the interrupt handler is not running.
 * Return: true if the watchdog must collect them. */
bool virtblk_watch_lost(const struct virtblk_watch *w,
			uint16_t last_used,
			bool waiting,
			bool in_interrupt);

/* The rule on the notify side: buffers are in flight and nothing moved -
 * none used, none added (@last_used, @avail_idx as at the previous tick) -
 * for VIRTBLK_STALL_TICKS ticks in a row. Counts the ticks in w->stalled.
 * Return: true if the watchdog must notify the device again. */
bool virtblk_watch_stalled(struct virtblk_watch *w,
			   uint16_t last_used,
			   uint16_t avail_idx,
			   bool in_flight);
#define VIRTBLK_STALL_TICKS 2

/* Tests and `disks`: the watchdog's counts of @dev, summed over its queues,
 * and whether its queues have event idx (only then can a lost
 * notification be told from a slow device). */
struct virtblk_watch virtblk_watch_of(struct block_device *dev,
				      bool *event_idx);
/* Tests: add the next request to the ring without notifying the device,
 * as a lost notification would leave it. */
void virtblk_skip_next_kick(struct block_device *dev);
/* Tests: the next completion reads @status as the device's status byte,
 * as a device that writes garbage there would leave it. */
void virtblk_forge_next_status(struct block_device *dev, uint8_t status);

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
	bool waiting;	    /* used buffers were waiting then */
	unsigned long lost_ticks, lost_completions; /* for `disks` */
};

/* The watchdog's rule: completions are lost when used buffers are waiting
 * now (@waiting) and were at the previous tick, none was taken since
 * (@last_used unchanged) and the interrupt handler is not running.
 * Return: true if the watchdog must collect them. */
bool virtblk_watch_lost(const struct virtblk_watch *w,
			uint16_t last_used,
			bool waiting,
			bool in_interrupt);

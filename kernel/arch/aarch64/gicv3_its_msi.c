/*
 * kernel/arch/aarch64/gicv3_its_msi.c: MSIs through the GICv3 ITS
 * (gicv3_its.c), for kernel/arch/aarch64/msi.c's <kernel/msi.h>.
 *
 * A device (its device id: the PCI requester id through the host
 * bridge's msi-map) is mapped once, at its first allocation: an
 * interrupt translation table of 2^event_bits entries from the page
 * allocator (zeroed, cleaned, 256-byte aligned: a page) and MAPD. Each
 * line handed out is an LPI (consecutive ones for one allocation) and one
 * of the device's event ids (any free ones): MAPTI maps the event to the
 * LPI in the one collection, and a SYNC ends the batch. The device writes
 * the event id to GITS_TRANSLATER (msi_compose). Freeing a line DISCARDs
 * its event; the device stays mapped (its table is kept for its next
 * allocation: a driver that probes again).
 *
 * Turning a line on or off (irq_register/irq_unregister, through
 * gicv3_lpi.c's configuration byte) ends with INV for that event and a
 * SYNC: the redistributor may have cached the old byte.
 *
 * Locking: msi_lock (a spinlock, interrupts off) protects devices[],
 * lpi_used and lines[]; it is taken outside its_run's queue lock. A
 * line's entry in lines[] is written before the line is handed out and
 * not changed until it is freed, so gicv3_its_lpi_changed and
 * msi_compose read it without the lock (their caller owns the line).
 */
#include <errno.h>
#include <kernel/bitmap.h>
#include <kernel/irq.h>
#include <kernel/msi.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <mm/page_alloc.h>
#include "gicv3_its.h"

#define ITS_MAX_DEVICES 16
#define ITS_MAX_BATCH	34 /* MAPD, 32 MAPTIs, SYNC */

static DEFINE_SPINLOCK(msi_lock);
/* protected by msi_lock: */
static struct its_device {
	uint32_t devid;
	void *itt;	      /* NULL: slot free */
	uint32_t events_used; /* bit e: event e is a line's */
} devices[ITS_MAX_DEVICES];
static uint64_t lpi_used[BITMAP_WORDS(IRQ_NR_LPIS)];
static struct {
	uint32_t devid, event;
} lines[IRQ_NR_LPIS];

BUILD_BUG_ON(ITS_MAX_BATCH < 2 + 32);

/* @devid's device, or a free slot for it (itt NULL), or NULL. */
static struct its_device *find_device(uint32_t devid)
{
	struct its_device *free = NULL;

	for (unsigned int i = 0; i < ITS_MAX_DEVICES; i++) {
		if (devices[i].itt && devices[i].devid == devid)
			return &devices[i];
		if (!devices[i].itt && !free)
			free = &devices[i];
	}
	return free;
}

/* A table for a device not mapped yet, and its MAPD in @cmds. */
static int map_device(struct its_device *dev,
		      uint32_t devid,
		      struct its_cmd *cmds,
		      unsigned int *n)
{
	size_t bytes = (size_t)gicv3_its.itt_entry << gicv3_its.event_bits;

	dev->itt = alloc_pages_va(GFP_ATOMIC | GFP_ZERO, get_order(bytes));
	if (!dev->itt)
		return -ENOMEM;
	gic_table_clean(dev->itt, bytes);
	dev->devid = devid;
	dev->events_used = 0;
	cmds[(*n)++] = its_cmd_mapd(devid, dev->itt);
	return 0;
}

/* @n events the device does not use: their bits, or 0. */
static uint32_t find_events(const struct its_device *dev, unsigned int n)
{
	unsigned int events = 1u << gicv3_its.event_bits;
	uint32_t found = 0;

	for (unsigned int e = 0; e < events && n; e++)
		if (!(dev->events_used & (1u << e))) {
			found |= 1u << e;
			n--;
		}
	return n ? 0 : found;
}

bool gicv3_its_names(uint32_t phandle)
{
	return gicv3_its.ready && phandle && phandle == gicv3_its.phandle;
}

/* msi_alloc() on the ITS: lines IRQ_LPI_BASE + i, where LPIs are free. */
int gicv3_its_alloc(uint32_t devid, unsigned int n, unsigned int *first)
{
	struct its_cmd cmds[ITS_MAX_BATCH];
	unsigned int ncmds = 0;
	struct its_device *dev;
	unsigned long flags;
	uint32_t events;
	int lpi, err;

	if (devid >= gicv3_its.device_ids) {
		pr_err("its: device id %#x is past the device table (%u ids); "
		       "the device uses INTx\n",
		       devid,
		       gicv3_its.device_ids);
		return -ENODEV;
	}
	if (!n || n > (1u << gicv3_its.event_bits))
		return -ENOSPC; /* so a device just mapped has the events */
	flags = spin_lock_irqsave(&msi_lock);
	dev = find_device(devid);
	lpi = bitmap_find_clear_run(lpi_used, 0, IRQ_NR_LPIS, n);
	err = !dev || lpi < 0 ? -ENOSPC : 0;
	if (!err && !dev->itt)
		err = map_device(dev, devid, cmds, &ncmds);
	if (err)
		goto out_unlock;
	events = find_events(dev, n);
	if (!events) {
		err = -ENOSPC;
		goto out_unlock;
	}
	for (unsigned int i = 0, e = 0; i < n; i++, e++) {
		while (!(events & (1u << e)))
			e++;
		lines[lpi + i].devid = devid;
		lines[lpi + i].event = e;
		cmds[ncmds++] = its_cmd_mapti(
		    devid, e, IRQ_LPI_BASE + (unsigned int)lpi + i);
	}
	cmds[ncmds++] = its_cmd_sync();
	err = its_run(cmds, ncmds);
	if (err)
		goto out_unlock;
	dev->events_used |= events;
	for (unsigned int i = 0; i < n; i++)
		bitmap_assign(lpi_used, (unsigned int)lpi + i, true);
	*first = IRQ_LPI_BASE + (unsigned int)lpi;
out_unlock:
	spin_unlock_irqrestore(&msi_lock, flags);
	return err;
}

/* msi_free() on the ITS: DISCARD each line's event, then SYNC. */
void gicv3_its_free(unsigned int first, unsigned int n)
{
	unsigned long flags = spin_lock_irqsave(&msi_lock);

	for (unsigned int irq = first; irq < first + n; irq++) {
		unsigned int i = irq - IRQ_LPI_BASE;
		struct its_cmd cmds[2];
		struct its_device *dev;

		if (WARN_ON_ONCE(i >= IRQ_NR_LPIS || !bitmap_test(lpi_used, i)))
			continue;
		cmds[0] = its_cmd_discard(lines[i].devid, lines[i].event);
		cmds[1] = its_cmd_sync();
		its_run(cmds, 2); /* a failure is said; the ITS is then off */
		dev = find_device(lines[i].devid);
		if (dev && dev->itt)
			dev->events_used &= ~(1u << lines[i].event);
		bitmap_assign(lpi_used, i, false);
	}
	spin_unlock_irqrestore(&msi_lock, flags);
}

void gicv3_its_compose(unsigned int irq, struct msi_msg *msg)
{
	msg->address = gicv3_its.base + GITS_TRANSLATER;
	msg->data = lines[irq - IRQ_LPI_BASE].event;
}

void gicv3_its_lpi_changed(unsigned int irq)
{
	unsigned int i = irq - IRQ_LPI_BASE;
	struct its_cmd cmds[2] = { its_cmd_inv(lines[i].devid, lines[i].event),
				   its_cmd_sync() };

	its_run(cmds, 2); /* a failure is said; the ITS is then off */
}

bool gicv3_its_present(void)
{
	return gicv3_its.ready;
}

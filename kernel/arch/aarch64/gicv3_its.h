/*
 * kernel/arch/aarch64/gicv3_its.h: the GICv3 ITS (gicv3_its.c: the
 * registers, tables and command queue) for its MSI side
 * (gicv3_its_msi.c: devices, events, LPIs behind <kernel/msi.h>).
 *
 * The ITS turns a device's write of an event id to GITS_TRANSLATER into
 * an LPI: the device id (the PCI requester id, through the host bridge's
 * msi-map) picks the device's interrupt translation table (MAPD), whose
 * entry for the event names the LPI and a collection (MAPTI), which names
 * a redistributor (MAPC).
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/arch/aarch64/gic.h>

#define GITS_TRANSLATER 0x10040 /* in the ITS's second 64 KiB frame */
#define ITS_COLLECTION	0	/* the one collection: the boot CPU */

/* The ITS in use, written once by its init hook before `ready` is set,
 * read-only afterwards. */
struct gicv3_its {
	bool ready;
	uintptr_t base; /* registers (identity-mapped: also the bus address) */
	uint32_t phandle;
	uint32_t device_ids;	 /* device ids 0..device_ids-1 fit the table */
	unsigned int event_bits; /* each device's event ids: this many bits */
	unsigned int itt_entry;	 /* bytes per interrupt translation entry */
	uint64_t rdbase;	 /* MAPC's and SYNC's target field */
};
extern struct gicv3_its gicv3_its;

/* One command: four little-endian doublewords (IHI 0069, 5.3). */
struct its_cmd {
	uint64_t dw[4];
};

struct its_cmd its_cmd_mapd(uint32_t devid, const void *itt);
struct its_cmd its_cmd_mapti(uint32_t devid, uint32_t event, unsigned int lpi);
struct its_cmd its_cmd_inv(uint32_t devid, uint32_t event);
struct its_cmd its_cmd_discard(uint32_t devid, uint32_t event);
struct its_cmd its_cmd_sync(void);

/**
 * its_run() - queue @n commands and wait until the ITS has read them all.
 * @cmds: the commands, a SYNC last where their effect must be complete.
 * @n: how many (fewer than the queue's 128 slots).
 *
 * The wait is bounded (100 ms): a queue that does not advance, or one
 * the ITS stalls on an error, is reported on the console and the ITS is
 * not used again (devices probed later use INTx).
 * Context: any; takes the queue's spinlock with interrupts off.
 * Return: 0, or -EIO (stalled, stuck, or the ITS given up before).
 */
int its_run(const struct its_cmd *cmds, unsigned int n);

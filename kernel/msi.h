/*
 * kernel/msi.h: message-signalled interrupts - interrupts a device raises
 * by writing a value (the message data) to an address (the message
 * address) of the board's MSI controller, which the controller turns into
 * one of its interrupt lines. The arch's controller is behind it
 * (aarch64: a GICv2m frame, kernel/arch/aarch64/gicv2m.c, or a GICv3
 * ITS, gicv3_its*.c, whichever the bus names: msi.c there; riscv64: the
 * AIA's IMSIC, kernel/arch/riscv64/msi.c, where the board has one - QEMU
 * virt with aia=aplic-imsic; with the PLIC alone there is none).
 *
 *   err = msi_alloc(controller, devid, n, &first); // first..first+n-1
 *   msi_compose(first + i, &msg);            // what the device writes
 *   irq_register(first + i, handler, arg);   // as any line
 *   msi_free(first, n);                      // unregistered before
 *
 * @controller is the phandle the device's bus names its MSI controller by
 * (a PCI host bridge's msi-parent or msi-map); @devid is the id the
 * controller knows the device by (a PCI requester id, bus << 8 | device
 * << 3 | function, through the msi-map), which a controller that tells
 * devices apart by it (the ITS) needs and others ignore.
 *
 * Locking: the allocator's lock inside; any context that may spin.
 */
#pragma once

#include <kernel/compiler.h>

struct msi_msg {
	uint64_t address; /* bus address the device writes to */
	uint32_t data;	  /* 32 bits, little-endian */
};

/**
 * msi_alloc() - set aside @n consecutive interrupt lines for messages.
 * @controller: the phandle of the MSI controller the bus names.
 * @devid: the device's id at that controller.
 * @n: how many.
 * @first: the first line's number, for irq_register().
 *
 * The lines are edge-triggered: each message raises one interrupt.
 * Context: any; takes the allocator's spinlock.
 * Return: 0, -ENODEV (no MSI controller, or not the one @controller
 * names, or @devid past what it takes), -ENOSPC (not @n lines free in a
 * row), or -ENOMEM/-EIO (the controller could not map the device).
 */
int msi_alloc(uint32_t controller,
	      uint32_t devid,
	      unsigned int n,
	      unsigned int *first);
/* Give back lines msi_alloc() handed out (their handlers unregistered). */
void msi_free(unsigned int first, unsigned int n);
/* The message that raises line @irq (one msi_alloc() handed out). */
void msi_compose(unsigned int irq, struct msi_msg *msg);
/* What the controller's lines are, for messages ("GICv2m SPIs", "GICv3
 * ITS LPIs"), or NULL if there is no controller. */
const char *msi_controller_name(void);

/*
 * kernel/msi.h: message-signalled interrupts - interrupts a device raises
 * by writing a value (the message data) to an address (the message
 * address) of the board's MSI controller, which the controller turns into
 * one of its interrupt lines. The arch's controller is behind it
 * (aarch64: a GICv2m frame in kernel/arch/aarch64/gicv2m.c; riscv64: the
 * AIA's IMSIC, kernel/arch/riscv64/msi.c, where the board has one - QEMU
 * virt with aia=aplic-imsic; with the PLIC alone there is none).
 *
 *   err = msi_alloc(controller, n, &first);  // lines first..first+n-1
 *   msi_compose(first + i, &msg);            // what the device writes
 *   irq_register(first + i, handler, arg);   // as any line
 *   msi_free(first, n);                      // unregistered before
 *
 * @controller is the phandle the device's bus names its MSI controller by
 * (a PCI host bridge's msi-parent or msi-map).
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
 * @n: how many.
 * @first: the first line's number, for irq_register().
 *
 * The lines are edge-triggered: each message raises one interrupt.
 * Context: any; takes the allocator's spinlock.
 * Return: 0, -ENODEV (no MSI controller, or not the one @controller
 * names) or -ENOSPC (not @n lines free in a row).
 */
int msi_alloc(uint32_t controller, unsigned int n, unsigned int *first);
/* Give back lines msi_alloc() handed out (their handlers unregistered). */
void msi_free(unsigned int first, unsigned int n);
/* The message that raises line @irq (one msi_alloc() handed out). */
void msi_compose(unsigned int irq, struct msi_msg *msg);
/* What the controller's lines are, for messages ("GICv2m SPIs"), or NULL
 * if there is no controller. */
const char *msi_controller_name(void);

/*
 * drivers/pci_testutil.h: a PCI configuration space made up in memory, for
 * the suites that feed the enumeration and the capability walks boards
 * QEMU never makes (drivers/pci_test.c, drivers/virtio_pci_test.c).
 *
 * A few functions of 256 bytes each behind a host whose accessor
 * (struct pci_cfg_ops) reads and writes them; a function that is not there
 * reads all ones. A BAR register keeps only its writable bits (bar_wmask),
 * as hardware does, so writing all ones reads back the size mask.
 */
#pragma once

#include <drivers/pci.h>
#include <drivers/virtio_pci.h>
#include <kernel/ktest.h>

#define PCI_FAKE_FNS 4

struct pci_fake_fn {
	uint32_t bdf;
	uint8_t cfg[PCI_CFG_SIZE];
	uint32_t bar_wmask[PCI_BARS];
};

struct pci_fake_bus {
	unsigned int nfns;
	struct pci_fake_fn fn[PCI_FAKE_FNS];
};

struct pci_fake {
	struct pci_fake_bus bus;
	struct pci_host host;
	struct pci_dev devs[PCI_FAKE_FNS];
	struct virtio_pci_regions regions; /* what the walk found */
};

/* A host bridge (named pci@test, one bus, ECAM 1 MiB) with a 1 MiB 32-bit
 * window at bus address 0x40000000 seen by the CPU at @cpu, and QEMU
 * virt's interrupt-map: INTx pin P of device D to PLIC source
 * 32 + (D + P - 1) % 4. Free it with kfree. */
struct pci_fake *pci_fake_new(struct ktest *t, uint64_t cpu);
/* A function at @bdf: @vendor:@device, class 01 (storage), INTA. */
struct pci_fake_fn *pci_fake_add_fn_at(struct pci_fake_bus *bus,
				       uint32_t bdf,
				       uint16_t vendor,
				       uint16_t device);
/* A function at device @dev of bus 0. */
struct pci_fake_fn *pci_fake_add_fn(struct pci_fake_bus *bus,
				    unsigned int dev,
				    uint16_t vendor,
				    uint16_t device);
/* BAR @i: a 32-bit memory BAR of @size (a power of two), or with @mem64
 * a 64-bit prefetchable one in @i and @i + 1. */
void pci_fake_add_bar(struct pci_fake_fn *f,
		      unsigned int i,
		      uint64_t size,
		      bool mem64);
/* Write or read the configuration space as the device would. */
void pci_fake_put(struct pci_fake_fn *f,
		  unsigned int off,
		  unsigned int size,
		  uint32_t v);
uint32_t pci_fake_reg(struct pci_fake_fn *f, unsigned int off);

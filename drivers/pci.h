/*
 * drivers/pci.h: PCI devices behind a host bridge with an ECAM window
 * (the device tree's "pci-host-ecam-generic", kernel/platform.c).
 *
 * At INIT_LEVEL_DEVICE drivers/pci.c reads the host bridge from the device
 * tree (drivers/pci_host.c), maps its configuration window, enumerates the
 * functions of its first bus and of the buses behind PCI-PCI bridges
 * (numbering them), sizes their BARs, keeps the addresses the firmware
 * gave on the first bus and assigns the rest from the host bridge's
 * windows (and the bridges' windows around them), routes INTx through
 * the interrupt-map, maps the BARs and turns on memory decoding and bus
 * mastering. Drivers then take the devices with
 * pci_device_nth(). A device something is wrong with (a BAR that is no
 * size, a BAR no window holds) is skipped with a console message: its
 * decoding stays off and no driver sees it.
 *
 * Every configuration access goes through the host's struct pci_cfg_ops,
 * so the enumeration and the capability walk can be fed a configuration
 * space made up in memory (drivers/pci_test.c).
 *
 * Locking: none. Everything is written by the init hook before any task
 * runs and read-only afterwards; configuration writes after that are the
 * owning driver's, at probe.
 */
#pragma once

#include <kernel/compiler.h>

#define PCI_BARS	6
#define PCI_MAX_DEVICES 32
#define PCI_MAX_IRQ_MAP 64 /* interrupt-map entries kept */
#define PCI_CFG_SIZE	256

/* bus << 8 | device << 3 | function */
#define PCI_BDF(bus, dev, fn) ((uint32_t)(bus) << 8 | (dev) << 3 | (fn))

struct pci_cfg_ops {
	/* @size 1, 2 or 4 bytes at @off, naturally aligned. A function that
	 * is not there reads all ones. */
	uint32_t (*read)(void *ctx,
			 uint32_t bdf,
			 unsigned int off,
			 unsigned int size);
	void (*write)(void *ctx,
		      uint32_t bdf,
		      unsigned int off,
		      unsigned int size,
		      uint32_t val);
};

enum pci_window_kind { PCI_WIN_IO, PCI_WIN_MEM32, PCI_WIN_MEM64, PCI_NR_WIN };

/* One window of the host bridge's `ranges`: bus addresses [pci, pci + size)
 * reached by the CPU at [cpu, cpu + size). */
struct pci_window {
	uint64_t cpu, pci, size; /* size 0: the bridge has none */
	bool prefetch;		 /* holds prefetchable BARs only */
	uint64_t next;		 /* enumeration: the next free bus address */
};

/* One interrupt-map entry: a function's device number bits (phys.hi of the
 * unit address) and pin (1..4: INTA..INTD), as masked, to a PLIC source. */
struct pci_irq_route {
	uint32_t addr_hi, pin;
	unsigned int irq;
};

struct pci_host {
	char name[24]; /* "pci@30000000" */
	const struct pci_cfg_ops *ops;
	void *ctx;
	uint64_t ecam, ecam_size;
	unsigned int bus_start, bus_end;
	struct pci_window win[PCI_NR_WIN];
	uint32_t mask_hi, mask_pin; /* interrupt-map-mask */
	unsigned int nroutes;
	struct pci_irq_route routes[PCI_MAX_IRQ_MAP];
	/* msi-parent or msi-map: the MSI controller's phandle (0: none) of
	 * the functions with bdf in [msi_rid_base, + msi_rid_len), which
	 * it knows as device msi_base + (bdf - msi_rid_base) */
	uint32_t msi_parent, msi_rid_base, msi_rid_len, msi_base;
};

struct pci_bar {
	uint64_t addr; /* CPU address; 0 if not assigned */
	uint64_t size; /* 0: not implemented */
	bool io, mem64, prefetch;
};

struct pci_dev {
	struct pci_host *host;
	uint32_t bdf;
	bool bridge;			/* a PCI-PCI bridge (header type 1) */
	uint8_t secondary, subordinate; /* a bridge's buses */
	char name[40];			/* "pci@30000000 00:01.0" */
	uint16_t vendor, device, subsys_device;
	uint32_t class;	  /* base class << 16 | subclass << 8 | prog-if */
	uint8_t pin;	  /* 1..4, 0: none */
	unsigned int irq; /* from the interrupt-map; 0: none */
	struct pci_bar bar[PCI_BARS];
	/* enumeration only: */
	unsigned int behind; /* a bridge: how many functions follow behind it */
	uint32_t route_bdf; /* INTx: the first bus's function it goes through */
	unsigned int swizzle; /* and the device numbers added to its pin */
	bool enabled;
};

/* Configuration space of @dev. */
static inline uint32_t
pci_read(const struct pci_dev *dev, unsigned int off, unsigned int size)
{
	return dev->host->ops->read(dev->host->ctx, dev->bdf, off, size);
}

static inline void pci_write(const struct pci_dev *dev,
			     unsigned int off,
			     unsigned int size,
			     uint32_t val)
{
	dev->host->ops->write(dev->host->ctx, dev->bdf, off, size, val);
}

/* Fill @host from the device tree node @node (drivers/pci_host.c).
 * Return: 0, or -EINVAL after a console message saying what is missing or
 * contradictory. */
int pci_host_from_dt(int node, struct pci_host *host);
/* Check what the device tree said: the bus range fits the configuration
 * window, each window is addressable and of its kind; a bad window is
 * dropped with a message. Return: 0, or -EINVAL (no bus, no memory window)
 * after a message. */
int pci_host_check(struct pci_host *host);
/* The PLIC source of INTx @pin (1..4) of function @bdf, or 0. */
unsigned int
pci_host_irq(const struct pci_host *host, uint32_t bdf, uint8_t pin);

/* The phandle of the MSI controller @dev's messages go to (the host's
 * msi-parent or msi-map), or 0 if the device tree names none. */
uint32_t pci_msi_controller(const struct pci_dev *dev);
/* @dev's id at that controller: its requester id (bus << 8 | device << 3
 * | function) through the msi-map (msi-base + rid - rid-base); with
 * msi-parent, the requester id. Meaningful where pci_msi_controller()
 * is not 0. */
uint32_t pci_msi_devid(const struct pci_dev *dev);

/* Enumerate the buses of @host into @devs (at most @max; a bridge before
 * the functions behind it): number the buses behind bridges, size the
 * BARs, assign them, route INTx, enable decoding. Nothing is mapped.
 * Return: how many functions were kept. */
unsigned int
pci_enumerate(struct pci_host *host, struct pci_dev *devs, unsigned int max);

/* The capabilities with @id of @dev, at most @max positions into @pos,
 * in list order. Return: how many, or -ELOOP (the list comes back on
 * itself) or -ERANGE (a pointer outside the capability area), after a
 * console message. */
int pci_find_caps(const struct pci_dev *dev,
		  uint8_t id,
		  uint8_t *pos,
		  unsigned int max);

/* A function's MSI-X (drivers/pci_msix.c). */
struct pci_msix {
	uint8_t cap;		/* the capability's offset; 0: none */
	unsigned int size;	/* table entries */
	uintptr_t table;	/* CPU address of entry 0 */
	unsigned int first_irq; /* entry i raises line first_irq + i */
	unsigned int nvec;	/* entries in use; 0: MSI-X off */
};

/* Find @dev's MSI-X capability and table into @m. Return: 0, -ENOENT
 * (none), -ELOOP/-ERANGE (the capability list), or -EINVAL after a
 * console message (the table is not inside a memory BAR in use). */
int pci_msix_find(const struct pci_dev *dev, struct pci_msix *m);
/**
 * pci_msix_enable() - give entries 0..@nvec-1 lines of the MSI controller
 * and turn MSI-X on (INTx off).
 * @dev: the function.
 * @m: what pci_msix_find() found; first_irq and nvec are set.
 * @nvec: entries to use, at most m->size.
 *
 * Context: probe, before the lines' handlers are registered.
 * Return: 0, -ERANGE (no table, or not @nvec entries), or msi_alloc()'s
 * -ENODEV/-ENOSPC (MSI-X stays off).
 */
int pci_msix_enable(const struct pci_dev *dev,
		    struct pci_msix *m,
		    unsigned int nvec);
/* Turn MSI-X off (INTx back on) and give its lines back; their handlers
 * are not registered. Nothing if it is off. */
void pci_msix_disable(const struct pci_dev *dev, struct pci_msix *m);

/* The @nth device the boot enumerated, or NULL. */
struct pci_dev *pci_device_nth(unsigned int nth);

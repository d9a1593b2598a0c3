/*
 * kernel/platform.h: what the board is, as the device tree describes it.
 *
 * platform_init() fills `platform` once on the boot hart before anything
 * else runs; afterwards it is read-only. This is the only place that knows
 * device-tree compatible strings of the board's devices: drivers take their
 * addresses and interrupt numbers from here. Harts past MAX_CPUS and
 * virtio-mmio slots past PLATFORM_MAX_VIRTIO, PCI host bridges past the
 * first, are counted, not used, and a warning on the console says so.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/cpu.h>

#define PLATFORM_MAX_VIRTIO 32
#define IRQ_SENSE_MAX	    1024

struct platform_mmio_dev {
	uintptr_t base;
	uint64_t size;
	unsigned int irq;
};

struct platform {
	uint64_t mem_base, mem_size;
	uintptr_t dtb;
	uint32_t dtb_size;
	unsigned int nharts, harts_ignored; /* past MAX_CPUS */
	unsigned long hartids[MAX_CPUS];    /* [0] is the boot hart */
	int plic_context[MAX_CPUS];	    /* S-mode context per logical cpu */
	bool harts_sstc; /* every RISC-V hart's ISA names Sstc (stimecmp) */
	uint64_t timebase_hz;
	struct platform_mmio_dev uart;
	uint32_t uart_clock;
	enum { UART_NONE, UART_NS16550, UART_PL011 } uart_type;
	struct platform_mmio_dev plic;
	uint32_t plic_ndev;
	/* RISC-V AIA (kernel/arch/riscv64/irqchip.c checks them): the
	 * S-level IMSIC (riscv,imsics whose interrupts-extended names S
	 * external interrupts; base 0 if none), its interrupt files, one per
	 * hart, imsic_file[cpu] the file's index (-1: none for that hart),
	 * its number of identities; the S-level APLIC domain (the
	 * riscv,aplic without riscv,children: the leaf OpenSBI delegates
	 * to; base 0 if none), its sources and msi-parent (0: none). */
	struct platform_mmio_dev imsic, aplic;
	uint32_t imsic_phandle, imsic_num_ids, imsic_guest_bits;
	int imsic_file[MAX_CPUS];
	uint32_t aplic_nsources, aplic_msi_parent;
	/* Source sense modes the APLIC's 2-cell specifiers give (their
	 * second cell: 1 rising edge, 2 falling, 4 level high, 8 level low),
	 * by source; 0 where the device tree says nothing. */
	uint8_t irq_sense[IRQ_SENSE_MAX];
	/* Arm's GIC: version 2 (gicd + gicc, the CPU interface) or 3 (gicd +
	 * gicr, the redistributors' region); 0 if none. */
	unsigned int gic_version;
	struct platform_mmio_dev gicd, gicc, gicr;
	uint32_t irq_cells;	 /* the controller's #interrupt-cells */
	unsigned int timer_irq;	 /* arm,armv8-timer: the virtual timer's */
	const char *psci_method; /* /psci method: "hvc", "smc" or NULL */
	uintptr_t test_base;	 /* sifive,test0: 0 if absent */
	struct platform_mmio_dev
	    rtc; /* google,goldfish-rtc: base 0 if absent */
	unsigned int nvirtio, virtio_ignored; /* past PLATFORM_MAX_VIRTIO */
	struct platform_mmio_dev virtio[PLATFORM_MAX_VIRTIO];
	/* The first pci-host-ecam-generic node, -1 if none: drivers/pci_host.c
	 * reads its PCI bindings (reg, ranges, bus-range, interrupt-map). */
	int pci_host;
	unsigned int pci_hosts_ignored; /* the others */
	const char *bootargs;
};

extern struct platform platform;

int platform_init(unsigned long boot_hartid, const void *dtb);
__noreturn void platform_poweroff(int code);
/**
 * platform_irq_spec() - an interrupt specifier as the controller numbers it
 * @p: the property's cells (big-endian, as in the device tree)
 * @at: the specifier's first cell
 * @ncells: its length, the controller's #interrupt-cells: 1 (the PLIC's
 *          source), 2 (the APLIC's source and sense) or 3 (the GIC's type,
 * number, flags: SPI n is INTID 32 + n, PPI n is INTID 16 + n)
 *
 * Context: any; reads only @p.
 * Return: the interrupt number, or 0 for a length or GIC type (neither SPI
 * nor PPI) whole cannot read.
 */
unsigned int platform_irq_spec(const void *p, int at, uint32_t ncells);
/* Wall time from the board's RTC in ns since 1970, or 0 without one. */
uint64_t platform_wall_ns(void);

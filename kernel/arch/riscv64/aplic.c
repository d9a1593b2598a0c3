/*
 * kernel/arch/riscv64/aplic.c: the S-level interrupt domain of AIA's
 * Advanced PLIC (RISC-V AIA 1.0, chapter 4) in MSI delivery mode.
 *
 * The APLIC takes the board's wired interrupts (UART, virtio-mmio, PCI
 * INTx). The M-level root domain (OpenSBI's) delegates them to this
 * S-level child; here each source n is given its sense (from the device
 * tree's second cell: edge or level, rising/high or falling/low) in
 * sourcecfg[n] and a target[n] naming a hart's interrupt file (its hart
 * index) and the identity to send (EIID = n). When a source turns
 * pending and is enabled, the APLIC writes n to that hart's IMSIC file,
 * at the address the root domain's smsiaddrcfg gives for the hart index
 * (M-mode firmware sets it; S-mode cannot: see docs/bringup.md).
 *
 * Locking: none of its own. The set-up is done once on the boot hart;
 * setienum, clrienum and setipnum are single writes, atomic at the APLIC.
 */
#include <errno.h>
#include <kernel/cpu.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/arch/riscv64/aia.h>

#define APLIC_DOMAINCFG	   0x0000
#define APLIC_DOMAINCFG_IE (1u << 8)
#define APLIC_DOMAINCFG_DM (1u << 2) /* delivery mode: MSIs */
#define APLIC_SOURCECFG(n) (0x0004 + 4 * ((n)-1))
#define APLIC_SETIP(n)	   (0x1c00 + 4 * ((n) / 32))
#define APLIC_SETIPNUM	   0x1cdc
#define APLIC_IN_CLRIP(n)  (0x1d00 + 4 * ((n) / 32)) /* read: inputs */
#define APLIC_SETIENUM	   0x1edc
#define APLIC_CLRIENUM	   0x1fdc
#define APLIC_TARGET(n)	   (0x3004 + 4 * ((n)-1))
#define APLIC_TARGET_HART  18 /* hart index, bits 31:18 */
#define APLIC_TARGET_EIID  0x7ff

/* sourcecfg's source modes */
#define SM_EDGE_RISE  4
#define SM_EDGE_FALL  5
#define SM_LEVEL_HIGH 6
#define SM_LEVEL_LOW  7

static void aplic_write(unsigned long off, uint32_t v)
{
	mmio_write32(platform.aplic.base + off, v);
}

static uint32_t aplic_read(unsigned long off)
{
	return mmio_read32(platform.aplic.base + off);
}

/* The device tree's sense (the specifier's flags) as a source mode;
 * level-high when it says nothing (QEMU virt's every source). */
static uint32_t source_mode(unsigned int src)
{
	switch (src < IRQ_SENSE_MAX ? platform.irq_sense[src] : 0) {
	case 1: return SM_EDGE_RISE;
	case 2: return SM_EDGE_FALL;
	case 8: return SM_LEVEL_LOW;
	default: return SM_LEVEL_HIGH;
	}
}

static void aplic_setup_source(unsigned int src)
{
	aplic_write(APLIC_CLRIENUM, src);
	aplic_write(APLIC_SOURCECFG(src), source_mode(src));
	aplic_write(APLIC_TARGET(src),
		    aia_hart_index(aia_irq_cpu(src)) << APLIC_TARGET_HART |
			(src & APLIC_TARGET_EIID));
}

/**
 * aplic_init() - put the S-level domain in MSI mode, every source set up.
 *
 * Sources the root domain did not delegate here read back sourcecfg 0:
 * they stay off (their devices get no interrupts).
 * Context: boot hart, once, from aia_probe(), interrupts off.
 * Return: 0, or -ENODEV if the domain cannot deliver MSIs.
 */
int aplic_init(void)
{
	unsigned int off = 0;

	aplic_write(APLIC_DOMAINCFG, APLIC_DOMAINCFG_DM);
	if (!(aplic_read(APLIC_DOMAINCFG) & APLIC_DOMAINCFG_DM)) {
		pr_err("aplic: %#lx does not take MSI delivery mode (direct "
		       "mode is not supported): wired devices get no "
		       "interrupts\n",
		       (unsigned long)platform.aplic.base);
		return -ENODEV;
	}
	for (unsigned int src = 1; src <= aia.nsources; src++) {
		aplic_setup_source(src);
		off += !aplic_read(APLIC_SOURCECFG(src));
	}
	if (off)
		pr_warn("aplic: %u of %u sources not delegated to S-mode\n",
			off,
			aia.nsources);
	aplic_write(APLIC_DOMAINCFG, APLIC_DOMAINCFG_IE | APLIC_DOMAINCFG_DM);
	return 0;
}

void aplic_enable(unsigned int src, bool on)
{
	aplic_write(on ? APLIC_SETIENUM : APLIC_CLRIENUM, src);
}

bool aplic_pending(unsigned int src)
{
	return aplic_read(APLIC_SETIP(src)) & (1u << (src % 32));
}

void aplic_raise(unsigned int src)
{
	aplic_write(APLIC_SETIPNUM, src);
}

/**
 * aplic_done() - after a wired source's handler: pend it again if it is
 * level-sensitive and its input is still asserted.
 *
 * In MSI mode a level source's pending bit is cleared when its message is
 * sent and is set again only when the input is next asserted (AIA 1.0,
 * 4.7): a device that kept its line up through the handler (work that
 * came in meanwhile) would not be heard again.
 * Context: interrupt, after irq_handle(@src).
 */
void aplic_done(unsigned int src)
{
	uint32_t mode = aplic_read(APLIC_SOURCECFG(src));

	if ((mode == SM_LEVEL_HIGH || mode == SM_LEVEL_LOW) &&
	    (aplic_read(APLIC_IN_CLRIP(src)) & (1u << (src % 32))))
		aplic_raise(src);
}

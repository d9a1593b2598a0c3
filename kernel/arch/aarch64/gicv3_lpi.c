/*
 * kernel/arch/aarch64/gicv3_lpi.c: GICv3 LPIs (Arm's GICv3/v4
 * architecture specification, IHI 0069, chapter 5): interrupts that exist
 * only as messages. An LPI has no distributor registers: its priority and
 * enable bit are one byte of a configuration table in memory (the byte of
 * INTID n at n - 8192), its pending bit one bit of a pending table in
 * memory (bit n), and a redistributor reads both once GICR_PROPBASER and
 * GICR_PENDBASER name them and GICR_CTLR.EnableLPIs is set.
 *
 * Only the boot CPU's redistributor takes LPIs, as SPIs go to the boot
 * CPU (gicv3.c): the ITS maps its one collection there (gicv3_its.c). The
 * INTID space is 14 bits (GICR_PROPBASER.IDbits 13, the least that has
 * LPIs): 8192 LPIs, a configuration table of 8 KiB and a pending table
 * of 2 KiB (in a 64 KiB block, the alignment it needs), both zeroed. Only
 * IRQ_NR_LPIS of them are handed out (<kernel/irq.h>).
 *
 * Memory attributes: the tables are RAM the kernel maps Normal write-back
 * Inner Shareable (mmu.c), so they are programmed as Inner Shareable,
 * inner read/write-allocate write-back, outer the same: the GIC is then a
 * coherent observer of the CPU's caches. A GIC that does not do that
 * reads the shareability back as Non-shareable (IHI 0069 12.11.30); then
 * the tables are programmed non-cacheable and the GIC reads memory past
 * the caches. Either way every write the GIC must see (the zeroed tables,
 * each configuration byte) is cleaned to the point of coherency
 * (gic_table_clean): the architecture asks for it where the GIC is not
 * coherent and it costs a few lines where it is.
 *
 * A configuration byte that changes takes effect when the ITS is told (an
 * INV for that LPI, then a SYNC: gicv3_its_lpi_changed): a redistributor
 * may cache the table.
 *
 * Locking: none. The tables are set up once by the ITS's init hook, before
 * any driver asks for a line; each LPI's byte is written only by
 * irqchip_enable() of its own line (a whole byte, no read-modify-write).
 */
#include <errno.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <mm/page_alloc.h>
#include <kernel/arch/aarch64/gic.h>
#include <kernel/arch/aarch64/sysreg.h>

#define GICD_TYPER		0x0004
#define GICD_TYPER_LPIS		(1u << 17)
#define GICD_TYPER_IDBITS(t)	((((t) >> 19) & 0x1f) + 1)
#define GICR_CTLR		0x0000
#define GICR_CTLR_ENABLE_LPIS	(1u << 0)
#define GICR_TYPER		0x0008
#define GICR_TYPER_PLPIS	(1ull << 0)
#define GICR_TYPER_PROCESSOR(t) ((unsigned int)(((t) >> 8) & 0xffff))
#define GICR_PROPBASER		0x0070
#define GICR_PENDBASER		0x0078
#define GICR_PENDBASER_PTZ	(1ull << 62) /* the pending table is zero */
#define GICR_CACHE_SHIFT	7	     /* InnerCache, both registers */

#define LPI_ID_BITS	  14
#define LPI_PROP_BYTES	  ((1u << LPI_ID_BITS) - IRQ_LPI_BASE)
#define LPI_PEND_BYTES	  ((1u << LPI_ID_BITS) / 8)
#define LPI_PEND_ALIGN	  0x10000
#define LPI_PROP_PRIORITY 0xa0 /* gic.c's IRQ_PRIORITY */
#define LPI_PROP_RES1	  (1u << 1)
#define LPI_PROP_ENABLE	  (1u << 0)

BUILD_BUG_ON(IRQ_LPI_BASE + IRQ_NR_LPIS > (1u << LPI_ID_BITS));

static struct {
	uint8_t *prop; /* NULL: no LPIs */
	const uint8_t *pend;
} lpi;

void gic_table_clean(const void *p, size_t n)
{
	/* CTR_EL0.DminLine: log2 of the smallest data cache line, in words */
	size_t line = 4u << ((sysreg_read(ctr_el0) >> 16) & 0xf);
	uintptr_t end = (uintptr_t)p + n;

	for (uintptr_t a = ALIGN_DOWN((uintptr_t)p, line); a < end; a += line)
		__asm__ __volatile__("dc cvac, %0" ::"r"(a) : "memory");
	__asm__ __volatile__("dsb sy" ::: "memory");
}

/* Program @reg with the table at @table (@bits below the address) as
 * cacheable Inner Shareable, or non-cacheable where the GIC says it
 * is not coherent. */
static void set_table(uintptr_t reg, const void *table, uint64_t bits)
{
	uint64_t v = (uintptr_t)table | bits;

	gic_write64(
	    reg, v | GIC_TABLE_SH_INNER | GIC_CACHE_WAWB << GICR_CACHE_SHIFT);
	if (!(gic_read64(reg) & GIC_TABLE_SH_MASK))
		gic_write64(reg, v | GIC_CACHE_NC << GICR_CACHE_SHIFT);
}

/* Why the boot CPU's redistributor @rd cannot take LPIs, or NULL. */
static const char *lpi_unusable(uintptr_t rd)
{
	uint32_t typer = mmio_read32(platform.gicd.base + GICD_TYPER);

	if (!(typer & GICD_TYPER_LPIS))
		return "the distributor has no LPIs (GICD_TYPER.LPIS is 0)";
	if (GICD_TYPER_IDBITS(typer) < LPI_ID_BITS)
		return "the distributor's INTIDs stop below 16384";
	if (!rd)
		return "the boot CPU has no redistributor";
	if (!(gic_read64(rd + GICR_TYPER) & GICR_TYPER_PLPIS))
		return "the boot CPU's redistributor has no physical LPIs";
	if (mmio_read32(rd + GICR_CTLR) & GICR_CTLR_ENABLE_LPIS)
		return "the boot CPU's redistributor has LPIs on already "
		       "(tables set up before the kernel)";
	return NULL;
}

/**
 * gicv3_lpi_init() - set up the LPI tables and turn LPIs on in the boot
 * CPU's redistributor.
 * @target: set to that redistributor, for the ITS's MAPC and SYNC.
 *
 * Context: the ITS's init hook, once, after the page allocator.
 * Return: 0, -ENODEV (the GIC has no LPIs; said on the console) or
 * -ENOMEM.
 */
int gicv3_lpi_init(struct gicv3_lpi_target *target)
{
	uintptr_t rd = gicv3_redistributor(platform.hartids[0]);
	const char *why = lpi_unusable(rd);
	uint8_t *prop, *pend;

	if (why) {
		pr_err("its: %s; no MSIs, devices use INTx\n", why);
		return -ENODEV;
	}
	prop = alloc_pages_va(GFP_ZERO, get_order(LPI_PROP_BYTES));
	pend = alloc_pages_va(GFP_ZERO, get_order(LPI_PEND_ALIGN));
	if (!prop || !pend) {
		if (prop)
			free_pages_va(prop, get_order(LPI_PROP_BYTES));
		if (pend)
			free_pages_va(pend, get_order(LPI_PEND_ALIGN));
		return -ENOMEM;
	}
	gic_table_clean(prop, LPI_PROP_BYTES);
	gic_table_clean(pend, LPI_PEND_BYTES);
	set_table(rd + GICR_PROPBASER, prop, LPI_ID_BITS - 1);
	set_table(rd + GICR_PENDBASER, pend, GICR_PENDBASER_PTZ);
	mmio_write32(rd + GICR_CTLR, GICR_CTLR_ENABLE_LPIS);
	target->rd = rd;
	target->processor = GICR_TYPER_PROCESSOR(gic_read64(rd + GICR_TYPER));
	lpi.pend = pend;
	lpi.prop = prop;
	return 0;
}

bool gicv3_lpi_valid(unsigned int irq)
{
	return lpi.prop && irq - IRQ_LPI_BASE < IRQ_NR_LPIS;
}

/* The caller (irqchip_enable) holds @irq valid. */
void gicv3_lpi_enable(unsigned int irq, bool on)
{
	uint8_t *prop = &lpi.prop[irq - IRQ_LPI_BASE];

	WRITE_ONCE(*prop,
		   LPI_PROP_PRIORITY | LPI_PROP_RES1 |
		       (on ? LPI_PROP_ENABLE : 0));
	gic_table_clean(prop, 1);
	gicv3_its_lpi_changed(irq);
}

/* The pending table's bit: the redistributor may hold newer state of its
 * own (diagnostics only: the block driver's watchdog prints it). */
bool gicv3_lpi_pending(unsigned int irq)
{
	return READ_ONCE(lpi.pend[irq / 8]) & (1u << (irq % 8));
}

/*
 * kernel/arch/aarch64/gic.c: the GIC behind <kernel/irq.h>: what v2 and v3
 * share (the distributor's SPI registers), v2's memory-mapped CPU
 * interface, and the dispatch loop; v3's own parts are in gicv3.c.
 *
 * Every device interrupt (SPI) is level-triggered as QEMU drives them (but
 * those a GICv2m frame raises for MSIs, edge: gicv2m.c), at
 * one priority, and goes to any CPU (v2: every CPU interface is a target,
 * the first to acknowledge takes it) or to the boot CPU (v3). On v3 the
 * INTIDs from 8192 are LPIs, message-signalled through the ITS
 * (gicv3_lpi.c, gicv3_its.c); they are acknowledged, handled and ended
 * here as any other line (INTIDs are 24 bits on v3, 10 on v2). Per CPU:
 * SGI 1 (reschedule) and the timer's PPI are enabled in irqchip_init_hart.
 * An acknowledged interrupt is always ended (EOI) after its handler ran:
 * an interrupt never ended blocks every other of its priority.
 *
 * Locking: the distributor's set/clear-enable registers are written one
 * bit at a time (no read-modify-write): no lock.
 */
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/timer.h>
#include <kernel/arch/aarch64/gic.h>

#define GICD_CTLR	   0x000
#define GICD_TYPER	   0x004
#define GICD_ISENABLER(n)  (0x100 + 4 * (n))
#define GICD_ICENABLER(n)  (0x180 + 4 * (n))
#define GICD_ISPENDR(n)	   (0x200 + 4 * (n))
#define GICD_ICFGR(n)	   (0xc00 + 4 * (n))
#define GICD_IPRIORITYR(i) (0x400 + (i))
#define GICD_ITARGETSR(i)  (0x800 + (i))
#define GICD_SGIR	   0xf00
#define GICC_CTLR	   0x00
#define GICC_PMR	   0x04
#define GICC_IAR	   0x0c
#define GICC_EOIR	   0x10

#define IRQ_PRIORITY 0xa0
#define GIC_SPURIOUS 1020 /* 1020-1023: none pending */

static unsigned int nr_lines; /* from GICD_TYPER, once */
/* v2: each CPU's interface bit for GICD_SGIR, read by the CPU itself */
static uint8_t cpu_target[MAX_CPUS];

static uintptr_t gicd(unsigned int reg)
{
	return platform.gicd.base + reg;
}

bool irqchip_valid(unsigned int irq)
{
	if (irq >= IRQ_LPI_BASE)
		return platform.gic_version == 3 && gicv3_lpi_valid(irq);
	return platform.gic_version && irq >= 32 && irq < nr_lines;
}

void irqchip_enable(unsigned int irq, bool on)
{
	if (irq >= IRQ_LPI_BASE) {
		gicv3_lpi_enable(irq, on);
		return;
	}
	if (on) {
		mmio_write8(gicd(GICD_IPRIORITYR(irq)), IRQ_PRIORITY);
		if (platform.gic_version == 2)
			mmio_write8(gicd(GICD_ITARGETSR(irq)), 0xff);
		else
			gicv3_enable_spi(irq, true);
	}
	mmio_write32(
	    gicd(on ? GICD_ISENABLER(irq / 32) : GICD_ICENABLER(irq / 32)),
	    1u << (irq % 32));
}

/* SPI @irq edge-triggered (two bits per line, the upper one: edge); the
 * caller serialises (gicv2m.c's msi_lock), the line is still disabled. */
void gic_set_edge(unsigned int irq)
{
	uintptr_t reg = gicd(GICD_ICFGR(irq / 16));

	mmio_write32(reg, mmio_read32(reg) | 2u << (2 * (irq % 16)));
}

bool irqchip_pending(unsigned int irq)
{
	if (irq >= IRQ_LPI_BASE)
		return gicv3_lpi_pending(irq);
	return mmio_read32(gicd(GICD_ISPENDR(irq / 32))) & (1u << (irq % 32));
}

/* v2: the banked SGI/PPI registers are this CPU's own. */
static void gicv2_init_cpu(void)
{
	uint32_t ppis = (1u << GIC_SGI_RESCHED) | (1u << platform.timer_irq);

	for (unsigned int i = 0; i < 32; i++)
		if (ppis & (1u << i))
			mmio_write8(gicd(GICD_IPRIORITYR(i)), IRQ_PRIORITY);
	mmio_write32(gicd(GICD_ISENABLER(0)), ppis);
	cpu_target[cpu_id()] = mmio_read8(gicd(GICD_ITARGETSR(0)));
	mmio_write32(platform.gicc.base + GICC_PMR, 0xf0);
	mmio_write32(platform.gicc.base + GICC_CTLR, 1);
}

void irqchip_init_hart(void)
{
	if (!platform.gic_version) {
		pr_err("gic: the device tree names no GIC: no interrupts\n");
		return;
	}
	if (cpu_id() == 0) {
		nr_lines = 32 * ((mmio_read32(gicd(GICD_TYPER)) & 0x1f) + 1);
		if (nr_lines > IRQ_MAX)
			nr_lines = IRQ_MAX;
		if (platform.gic_version == 2)
			mmio_write32(gicd(GICD_CTLR), 1);
		else
			gicv3_init_dist();
		pr_info("gic: GICv%u, %u interrupt lines\n",
			platform.gic_version,
			nr_lines);
	}
	if (platform.gic_version == 2)
		gicv2_init_cpu();
	else
		gicv3_init_cpu();
}

void gic_send_resched(const struct cpu *c)
{
	if (platform.gic_version == 3) {
		gicv3_send_sgi(c->hartid, GIC_SGI_RESCHED);
		return;
	}
	/* mmio_write32's barrier orders the waker's stores before it */
	mmio_write32(gicd(GICD_SGIR),
		     (uint32_t)cpu_target[c->id] << 16 | GIC_SGI_RESCHED);
}

static uint32_t ack(void)
{
	return platform.gic_version == 3
		   ? gicv3_ack()
		   : mmio_read32(platform.gicc.base + GICC_IAR);
}

/* The INTID an acknowledge returned: v3's are 24 bits (LPIs from 8192),
 * v2's 10 (its bits 12:10 name an SGI's sender). */
static uint32_t intid(uint32_t iar)
{
	return iar & (platform.gic_version == 3 ? 0xffffff : 0x3ff);
}

/* 1020-1023: no interrupt (spurious), or one for another security state. */
static bool special(uint32_t irq)
{
	return irq - GIC_SPURIOUS < 4;
}

static void eoi(uint32_t iar)
{
	if (platform.gic_version == 3)
		gicv3_eoi(iar);
	else
		mmio_write32(platform.gicc.base + GICC_EOIR, iar);
}

/* The trap path's IRQ: take every pending interrupt, run it, end it. */
void irq_dispatch(void)
{
	uint32_t iar, irq;

	if (!platform.gic_version)
		return;
	while (!special(irq = intid(iar = ack()))) {
		if (irq == GIC_SGI_RESCHED)
			cpu_take_wake_ipi();
		else if (irq == platform.timer_irq)
			timer_interrupt();
		else
			irq_handle(irq);
		eoi(iar);
	}
}

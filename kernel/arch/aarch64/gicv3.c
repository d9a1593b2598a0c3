/*
 * kernel/arch/aarch64/gicv3.c: what GICv3 does its own way (see gic.c):
 * affinity routing, one redistributor per CPU for its SGIs and PPIs, and
 * the CPU interface in system registers (ICC_*_EL1, by encoding so any
 * assembler takes them), and routing each SPI to a chosen CPU
 * (irqchip_set_affinity). Everything is Group 1 (the kernel runs in the
 * one security state QEMU's virt gives it). LPIs: gicv3_lpi.c.
 */
#include <errno.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/arch/aarch64/gic.h>
#include <kernel/arch/aarch64/sysreg.h>

#define GICD_CTLR	      0x0000
#define GICD_IGROUPR(n)	      (0x0080 + 4 * (n))
#define GICD_IROUTER(i)	      (0x6000 + 8 * (i))
#define GICD_CTLR_RWP	      (1u << 31)
#define GICD_CTLR_ARE	      (1u << 4)
#define GICD_CTLR_GRP1	      (1u << 1)
#define GICR_FRAME_SIZE	      0x20000
#define GICR_TYPER	      0x0008
#define GICR_WAKER	      0x0014
#define GICR_TYPER_LAST	      (1u << 4)
#define WAKER_PROCESSOR_SLEEP (1u << 1)
#define WAKER_CHILDREN_ASLEEP (1u << 2)
#define GICR_SGI	      0x10000 /* the SGI/PPI frame */
#define GICR_IGROUPR0	      (GICR_SGI + 0x080)
#define GICR_ISENABLER0	      (GICR_SGI + 0x100)
#define GICR_IPRIORITYR(i)    (GICR_SGI + 0x400 + (i))

#define ICC_PMR_EL1	     S3_0_C4_C6_0
#define ICC_IAR1_EL1	     S3_0_C12_C12_0
#define ICC_EOIR1_EL1	     S3_0_C12_C12_1
#define ICC_SGI1R_EL1	     S3_0_C12_C11_5
#define ICC_SRE_EL1	     S3_0_C12_C12_5
#define ICC_IGRPEN1_EL1	     S3_0_C12_C12_7
#define __sysreg_read(r)     sysreg_read(r)
#define __sysreg_write(r, v) sysreg_write(r, v)

static uintptr_t gicd(unsigned int reg)
{
	return platform.gicd.base + reg;
}

static void wait_rwp(void)
{
	while (mmio_read32(gicd(GICD_CTLR)) & GICD_CTLR_RWP)
		;
}

void gicv3_init_dist(void)
{
	mmio_write32(gicd(GICD_CTLR), 0);
	wait_rwp();
	for (unsigned int n = 1; n < 32; n++) /* every SPI in Group 1 */
		mmio_write32(gicd(GICD_IGROUPR(n)), ~0u);
	mmio_write32(gicd(GICD_CTLR), GICD_CTLR_ARE | GICD_CTLR_GRP1);
	wait_rwp();
}

/*
 * Routing (affinity routing, GICD_IROUTER: Aff3.Aff2.Aff1.Aff0, IRM 0): an
 * SPI goes to the boot CPU unless irq_set_affinity chose another; the
 * choice is kept here, so enabling the line again routes it the same
 * way. (IRM = 1, "any participating CPU", is not used: QEMU's virt
 * routes it to one CPU anyway, and a chosen CPU is what the multi-queue
 * drivers ask for.) Each entry is written by irqchip_set_affinity, with
 * the register, by the one driver that owns the line.
 */
static uint8_t spi_cpu[IRQ_MAX]; /* logical CPU; 0: the boot CPU */

static void route_spi(unsigned int irq)
{
	uint64_t mpidr = cpus[spi_cpu[irq]].hartid;
	uint64_t route = (mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 32;
	uintptr_t r = gicd(GICD_IROUTER(irq));

	mmio_write32(r, (uint32_t)route);
	mmio_write32(r + 4, (uint32_t)(route >> 32));
}

void gicv3_enable_spi(unsigned int irq, bool on)
{
	if (on)
		route_spi(irq);
}

/* GICv3: the SPI's IROUTER names @c (a write takes effect for the next
 * delivery; one pending now may still reach the CPU it was routed to).
 * GICv2 (gic.c) gives every SPI every CPU interface as a target. */
int irqchip_set_affinity(unsigned int irq, const struct cpu *c)
{
	/* LPIs go where their collection is (the boot CPU's: gicv3_its.c) */
	if (platform.gic_version != 3 || irq < 32 || irq >= IRQ_MAX)
		return -EOPNOTSUPP;
	WRITE_ONCE(spi_cpu[irq], (uint8_t)c->id);
	route_spi(irq);
	return 0;
}

/* The redistributor of the CPU @mpidr names: the frame whose GICR_TYPER
 * names its affinity. Return: its base, or 0. */
uintptr_t gicv3_redistributor(unsigned long mpidr)
{
	uint32_t aff =
	    (uint32_t)((mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 24);
	uintptr_t end = platform.gicr.base + platform.gicr.size;

	for (uintptr_t rd = platform.gicr.base; rd + GICR_FRAME_SIZE <= end;
	     rd += GICR_FRAME_SIZE) {
		uint32_t lo = mmio_read32(rd + GICR_TYPER);
		if (mmio_read32(rd + GICR_TYPER + 4) == aff)
			return rd;
		if (lo & GICR_TYPER_LAST)
			break;
	}
	return 0;
}

void gicv3_init_cpu(void)
{
	uint32_t ppis = (1u << GIC_SGI_RESCHED) | (1u << platform.timer_irq);
	uintptr_t rd = gicv3_redistributor(this_cpu()->hartid);

	if (!rd) {
		pr_err("gic: no redistributor for cpu %u (mpidr %#lx)\n",
		       cpu_id(),
		       this_cpu()->hartid);
		return;
	}
	mmio_write32(rd + GICR_WAKER,
		     mmio_read32(rd + GICR_WAKER) & ~WAKER_PROCESSOR_SLEEP);
	while (mmio_read32(rd + GICR_WAKER) & WAKER_CHILDREN_ASLEEP)
		;
	mmio_write32(rd + GICR_IGROUPR0, ~0u);
	for (unsigned int i = 0; i < 32; i++)
		if (ppis & (1u << i))
			mmio_write8(rd + GICR_IPRIORITYR(i), 0xa0);
	mmio_write32(rd + GICR_ISENABLER0, ppis);
	__sysreg_write(ICC_SRE_EL1, __sysreg_read(ICC_SRE_EL1) | 1);
	isb();
	__sysreg_write(ICC_PMR_EL1, 0xf0);
	__sysreg_write(ICC_IGRPEN1_EL1, 1);
	isb();
}

uint32_t gicv3_ack(void)
{
	uint32_t iar = (uint32_t)__sysreg_read(ICC_IAR1_EL1);

	__asm__ __volatile__("dsb sy" ::: "memory"); /* before the handler */
	return iar;
}

void gicv3_eoi(uint32_t iar)
{
	__sysreg_write(ICC_EOIR1_EL1, iar);
	isb();
}

/* A system register write is not ordered after memory stores by the
 * MMIO barrier: dsb first, so the target sees what the waker wrote. */
void gicv3_send_sgi(unsigned long mpidr, unsigned int sgi)
{
	uint64_t aff0 = mpidr & 0xff;
	uint64_t v = ((mpidr >> 32) & 0xff) << 48 |
		     ((mpidr >> 16) & 0xff) << 32 |
		     ((mpidr >> 8) & 0xff) << 16 | (aff0 >> 4) << 44 |
		     (uint64_t)sgi << 24 | 1UL << (aff0 & 0xf);

	__asm__ __volatile__("dsb ishst" ::: "memory");
	__sysreg_write(ICC_SGI1R_EL1, v);
	isb();
}

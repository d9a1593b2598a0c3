/*
 * kernel/arch/aarch64/gic.h: Arm's Generic Interrupt Controller, v2 or v3
 * as the device tree says (platform.gic_version), behind the irqchip_*()
 * hooks and irq_dispatch() of <kernel/irq.h>. The reschedule IPI is
 * SGI 1 and the virtual timer its PPI (platform.timer_irq); both are
 * handled here, device interrupts (SPIs, and v3's LPIs) by kernel/irq.c's
 * handlers.
 */
#pragma once

#include <kernel/arch.h>
#include <kernel/cpu.h>

#define GIC_SGI_RESCHED 1

/* A 64-bit register of the GIC (GICR_PROPBASER, the ITS's), in one
 * access, ordered as mmio_read32/mmio_write32 are. */
static inline uint64_t gic_read64(uintptr_t addr)
{
	uint64_t v = *(volatile uint64_t *)addr;
	io_rmb();
	return v;
}

static inline void gic_write64(uintptr_t addr, uint64_t v)
{
	io_wmb();
	*(volatile uint64_t *)addr = v;
}

/* Make CPU @c take the reschedule IPI. */
void gic_send_resched(const struct cpu *c);

/* Make SPI @irq edge-triggered (for gicv2m.c's MSIs). */
void gic_set_edge(unsigned int irq);

/* gicv3.c, for gic.c: the v3 distributor and redistributor set-up, and
 * the CPU interface's system registers. */
void gicv3_init_dist(void);
void gicv3_init_cpu(void);
void gicv3_enable_spi(unsigned int irq, bool on);
uint32_t gicv3_ack(void);
void gicv3_eoi(uint32_t iar);
void gicv3_send_sgi(unsigned long mpidr, unsigned int sgi);
/* The redistributor of the CPU whose MPIDR is @mpidr, or 0. */
uintptr_t gicv3_redistributor(unsigned long mpidr);

/* gicv3_lpi.c: the LPIs (INTIDs IRQ_LPI_BASE on) of the boot CPU's
 * redistributor, for gic.c's irqchip hooks and the ITS. */
struct gicv3_lpi_target {
	uintptr_t rd;		/* the redistributor's registers */
	unsigned int processor; /* its GICR_TYPER.Processor_Number */
};
int gicv3_lpi_init(struct gicv3_lpi_target *target);
bool gicv3_lpi_valid(unsigned int irq);
void gicv3_lpi_enable(unsigned int irq, bool on);
bool gicv3_lpi_pending(unsigned int irq);
/* Make the GIC see the CPU's writes to [@p, @p + @n) (tables it reads). */
void gic_table_clean(const void *p, size_t n);
/* The attribute bits of a GIC table register (GICR_PROPBASER and
 * PENDBASER; the ITS's BASER and CBASER put the inner ones elsewhere). */
#define GIC_TABLE_SH_INNER (1ull << 10) /* Inner Shareable */
#define GIC_TABLE_SH_MASK  (3ull << 10)
#define GIC_CACHE_WAWB	   7ull /* Normal, read/write-allocate, write-back */
#define GIC_CACHE_NC	   1ull /* Normal, non-cacheable */

/* gicv3_its_msi.c: tell the ITS that LPI @irq's configuration byte
 * changed (INV, then SYNC). */
void gicv3_its_lpi_changed(unsigned int irq);

/* The MSI controllers behind msi.c's <kernel/msi.h>: gicv2m.c's frame of
 * SPIs and gicv3_its_msi.c's ITS of LPIs. Each: does @phandle name it
 * (and is it in use), msi_alloc/msi_free/msi_compose on it, is there
 * one in use. */
struct msi_msg;
bool gicv2m_names(uint32_t phandle);
int gicv2m_alloc(unsigned int n, unsigned int *first);
void gicv2m_free(unsigned int first, unsigned int n);
void gicv2m_compose(unsigned int irq, struct msi_msg *msg);
bool gicv2m_present(void);
bool gicv3_its_names(uint32_t phandle);
int gicv3_its_alloc(uint32_t devid, unsigned int n, unsigned int *first);
void gicv3_its_free(unsigned int first, unsigned int n);
void gicv3_its_compose(unsigned int irq, struct msi_msg *msg);
bool gicv3_its_present(void);

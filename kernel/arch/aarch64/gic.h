/*
 * kernel/arch/aarch64/gic.h: Arm's Generic Interrupt Controller, v2 or v3
 * as the device tree says (platform.gic_version), behind the irqchip_*()
 * hooks and irq_dispatch() of <kernel/irq.h>. The reschedule IPI is
 * SGI 1 and the virtual timer its PPI (platform.timer_irq); both are
 * handled here, device interrupts (SPIs) by kernel/irq.c's handlers.
 */
#pragma once

#include <kernel/cpu.h>

#define GIC_SGI_RESCHED 1

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

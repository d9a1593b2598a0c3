/*
 * kernel/irq.h: external interrupts (the platform interrupt controller).
 *
 *   irq_register(irq, handler, arg);   // enables the line on every hart
 *   irq_set_affinity(irq, cpu);        // or only on @cpu, where it can
 *
 * Handlers run in interrupt context on whichever hart claims the
 * interrupt, with interrupts off: they must not sleep; they may wake tasks
 * and take spinlocks (with the _irqsave variants elsewhere).
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/cpu.h>

typedef void (*irq_handler_t)(void *arg);

int irq_register(unsigned int irq, irq_handler_t handler, void *arg);
void irq_unregister(unsigned int irq);
/**
 * irq_set_affinity() - deliver the registered @irq to logical CPU @cpu only.
 * Context: after irq_register (unregistering forgets it); any context.
 * Return: 0, -EINVAL (no such line or CPU, or not registered) or
 * -EOPNOTSUPP: the controller cannot route it (riscv64's PLIC and
 * aarch64's GICv2 take every line on whichever hart claims it first).
 */
int irq_set_affinity(unsigned int irq, unsigned int cpu);
/* How many times @irq's handler ran on logical CPU @cpu (tests). */
unsigned long irq_count_on(unsigned int irq, unsigned int cpu);
/* Is @irq pending at the controller? (diagnostics) */
bool irq_pending(unsigned int irq);
/*
 * Interrupt numbers: wired lines below IRQ_MAX (the GIC's SPIs stop at
 * INTID 1019), and lines that exist only as messages - the GICv3's LPIs,
 * INTIDs from 8192 - in [IRQ_LPI_BASE, IRQ_LPI_BASE + IRQ_NR_LPIS),
 * which only an MSI controller hands out (<kernel/msi.h>: aarch64's
 * GICv3 ITS; riscv64 has none).
 */
#define IRQ_MAX	     1024
#define IRQ_LPI_BASE 8192
#define IRQ_NR_LPIS  256
/* Called by the trap path on an external interrupt (the controller's: it
 * claims each pending source, runs irq_handle and completes it). */
void irq_dispatch(void);
/* Run @irq's handler (or warn of a spurious one): irq_dispatch's. */
void irq_handle(unsigned int irq);
/* The arch's interrupt controller (kernel/arch/<arch>/: riscv64's PLIC or
 * AIA's APLIC and IMSIC, aarch64's GIC), for kernel/irq.c: is @irq a source it
 * has, turn it on or off on every hart, is it pending, set up this hart. */
bool irqchip_valid(unsigned int irq);
void irqchip_enable(unsigned int irq, bool on);
bool irqchip_pending(unsigned int irq);
void irqchip_init_hart(void);
/* Route the enabled @irq to the CPU @c alone: 0 or -EOPNOTSUPP. */
int irqchip_set_affinity(unsigned int irq, const struct cpu *c);
/* Per-hart set-up of the controller (boot and secondary harts). */
void irq_init_hart(void);
/* Is this hart running a trap handler? (Inline: every lock asks.) */
static inline bool in_interrupt(void)
{
	return this_cpu()->irq_depth > 0;
}

/*
 * kernel/irq.h: external interrupts (the platform interrupt controller).
 *
 *   irq_register(irq, handler, arg);   // enables the line on every hart
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
/* Is @irq pending at the controller? (diagnostics) */
bool irq_pending(unsigned int irq);
/* Called by the trap path on a supervisor external interrupt. */
void irq_dispatch(void);
/* Per-hart set-up of the controller (boot and secondary harts). */
void irq_init_hart(void);
/* Is this hart running a trap handler? (Inline: every lock asks.) */
static inline bool in_interrupt(void)
{
	return this_cpu()->irq_depth > 0;
}

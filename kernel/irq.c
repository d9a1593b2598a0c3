/*
 * kernel/irq.c: external interrupts, behind the arch's interrupt
 * controller (irqchip_*() in <kernel/irq.h>: riscv64's PLIC or AIA,
 * aarch64's GIC).
 *
 * Every registered source is enabled on every hart: whichever hart takes
 * it first handles it (with riscv64's AIA, each interrupt goes to one
 * hart, kernel/arch/riscv64/aia.h). The handler table is written before a
 * source is enabled and read only in interrupt context afterwards.
 */
#include <errno.h>
#include <kernel/irq.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>

static struct {
	irq_handler_t handler;
	void *arg;
	unsigned long count;
} irqs[IRQ_MAX];

int irq_register(unsigned int irq, irq_handler_t handler, void *arg)
{
	if (irq >= IRQ_MAX || !irqchip_valid(irq))
		return -EINVAL;
	if (irqs[irq].handler)
		return -EBUSY;
	irqs[irq].arg = arg;
	WRITE_ONCE(irqs[irq].handler, handler);
	irqchip_enable(irq, true);
	return 0;
}

bool irq_pending(unsigned int irq)
{
	return irq < IRQ_MAX && irqchip_valid(irq) && irqchip_pending(irq);
}

void irq_unregister(unsigned int irq)
{
	if (irq >= IRQ_MAX || !irqchip_valid(irq))
		return;
	irqchip_enable(irq, false);
	WRITE_ONCE(irqs[irq].handler, NULL);
}

void irq_handle(unsigned int irq)
{
	irq_handler_t h = irq < IRQ_MAX ? READ_ONCE(irqs[irq].handler) : NULL;

	if (h) {
		irqs[irq].count++;
		h(irqs[irq].arg);
	} else {
		pr_warn("irq: spurious interrupt %u\n", irq);
	}
}

void irq_init_hart(void)
{
	irqchip_init_hart();
}

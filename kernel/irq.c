/*
 * kernel/irq.c: external interrupts, behind the arch's interrupt
 * controller (irqchip_*() in <kernel/irq.h>: riscv64's PLIC, aarch64's
 * GIC).
 *
 * Every registered source is enabled on every hart: whichever hart takes
 * it first handles it, unless irq_set_affinity routed it to one hart
 * (where the controller can: aarch64's GICv3). The handler table is
 * written before a source is enabled and read only in interrupt context
 * afterwards; each hart counts the runs of each handler in its own slot.
 */
#include <errno.h>
#include <kernel/irq.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>

static struct {
	irq_handler_t handler;
	void *arg;
	uint32_t count[MAX_CPUS]; /* per hart: only that hart writes it */
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

int irq_set_affinity(unsigned int irq, unsigned int cpu)
{
	if (irq >= IRQ_MAX || !irqchip_valid(irq) || cpu >= ncpus ||
	    !READ_ONCE(irqs[irq].handler))
		return -EINVAL;
	return irqchip_set_affinity(irq, &cpus[cpu]);
}

unsigned long irq_count_on(unsigned int irq, unsigned int cpu)
{
	return irq < IRQ_MAX && cpu < MAX_CPUS ? READ_ONCE(irqs[irq].count[cpu])
					       : 0;
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
	irqchip_set_affinity(irq, &cpus[0]); /* the next owner's default */
	WRITE_ONCE(irqs[irq].handler, NULL);
}

void irq_handle(unsigned int irq)
{
	irq_handler_t h = irq < IRQ_MAX ? READ_ONCE(irqs[irq].handler) : NULL;

	if (h) {
		irqs[irq].count[cpu_id()]++;
		h(irqs[irq].arg);
	} else {
		pr_warn("irq: spurious interrupt %u\n", irq);
	}
}

void irq_init_hart(void)
{
	irqchip_init_hart();
}

/*
 * kernel/irq.c: external interrupts, behind the arch's interrupt
 * controller (irqchip_*() in <kernel/irq.h>: riscv64's PLIC or AIA,
 * aarch64's GIC).
 *
 * Every registered source is enabled on every hart: whichever hart takes
 * it first handles it, unless irq_set_affinity routed it to one hart
 * (where the controller can: aarch64's GICv3 SPIs; with riscv64's AIA,
 * each interrupt goes to one hart, kernel/arch/riscv64/aia.h). The
 * handler table is written before a source is enabled and read only in
 * interrupt context afterwards; each hart counts the runs of each handler
 * in its own slot. It has a slot for each wired line (below IRQ_MAX) and
 * each LPI (IRQ_LPI_BASE on, <kernel/irq.h>); any other number has none.
 */
#include <errno.h>
#include <kernel/irq.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>

struct irq_slot {
	irq_handler_t handler;
	void *arg;
	uint32_t count[MAX_CPUS]; /* per hart: only that hart writes it */
};

static struct irq_slot irqs[IRQ_MAX + IRQ_NR_LPIS];

/* @irq's slot, or NULL if it is no number a controller could have. */
static struct irq_slot *slot(unsigned int irq)
{
	if (irq < IRQ_MAX)
		return &irqs[irq];
	if (irq - IRQ_LPI_BASE < IRQ_NR_LPIS)
		return &irqs[IRQ_MAX + irq - IRQ_LPI_BASE];
	return NULL;
}

int irq_register(unsigned int irq, irq_handler_t handler, void *arg)
{
	struct irq_slot *s = slot(irq);

	if (!s || !irqchip_valid(irq))
		return -EINVAL;
	if (s->handler)
		return -EBUSY;
	s->arg = arg;
	WRITE_ONCE(s->handler, handler);
	irqchip_enable(irq, true);
	return 0;
}

int irq_set_affinity(unsigned int irq, unsigned int cpu)
{
	struct irq_slot *s = slot(irq);

	if (!s || !irqchip_valid(irq) || cpu >= ncpus || !READ_ONCE(s->handler))
		return -EINVAL;
	return irqchip_set_affinity(irq, &cpus[cpu]);
}

unsigned long irq_count_on(unsigned int irq, unsigned int cpu)
{
	struct irq_slot *s = slot(irq);

	return s && cpu < MAX_CPUS ? READ_ONCE(s->count[cpu]) : 0;
}

bool irq_pending(unsigned int irq)
{
	return slot(irq) && irqchip_valid(irq) && irqchip_pending(irq);
}

void irq_unregister(unsigned int irq)
{
	struct irq_slot *s = slot(irq);

	if (!s || !irqchip_valid(irq))
		return;
	irqchip_enable(irq, false);
	irqchip_set_affinity(irq, &cpus[0]); /* the next owner's default */
	WRITE_ONCE(s->handler, NULL);
}

void irq_handle(unsigned int irq)
{
	struct irq_slot *s = slot(irq);
	irq_handler_t h = s ? READ_ONCE(s->handler) : NULL;

	if (h) {
		s->count[cpu_id()]++;
		h(s->arg);
	} else {
		pr_warn("irq: spurious interrupt %u\n", irq);
	}
}

void irq_init_hart(void)
{
	irqchip_init_hart();
}

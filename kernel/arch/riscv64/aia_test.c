/*
 * kernel/arch/riscv64/aia_test.c: the AIA's rules (aia.h), on a board that
 * has them (QEMU virt with aia=aplic-imsic; the suite fails elsewhere):
 *
 *  - a wired source goes to the hart its target register names, the one
 *    aia_irq_cpu() gives (spare sources, made pending with setipnum);
 *  - an MSI raises the identity msi_alloc() handed out, on the hart whose
 *    file its address is (the CPU writes the message, as a device would);
 *  - one claim loop takes every pending identity (two raised with
 *    interrupts off, one irq_dispatch());
 *  - an identity that comes while masked is held and runs when unmasked;
 *  - the wake-up IPI is a message to the target's file (its own identity,
 *    which no device can be given), taken by every hart.
 */
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/ktest.h>
#include <kernel/msi.h>
#include <kernel/platform.h>
#include <kernel/arch/riscv64/aia.h>

#define SPIN_LIMIT 100000000ul /* a hang, not a deadline */

struct hit {
	unsigned int irq;
	int cpu;   /* where the handler ran: -1 before */
	int count; /* how many times */
};

static void record(void *arg)
{
	struct hit *h = arg;

	WRITE_ONCE(h->cpu, (int)cpu_id());
	WRITE_ONCE(h->count, h->count + 1);
}

static bool wait_hit(struct hit *h)
{
	for (unsigned long i = 0; i < SPIN_LIMIT; i++) {
		if (READ_ONCE(h->count))
			return true;
		arch_cpu_relax();
	}
	return false;
}

static void wired_source_reaches_its_hart(struct ktest *t)
{
	unsigned int src = aia.nsources;

	KTEST_ASSERT_TRUE(t, aia.on && aia.aplic_on);
	for (unsigned int cpu = 0; cpu < platform.nharts; cpu++) {
		struct hit h = { 0, -1, 0 };
		/* a spare source (no device registered) this hart gets */
		while (src > 1 && (aia_irq_cpu(src) != cpu ||
				   irq_register(src, record, &h)))
			src--;
		KTEST_ASSERT_TRUE(t, src > 1);
		h.irq = src;
		aplic_raise(src);
		KTEST_EXPECT_TRUE(t, wait_hit(&h));
		KTEST_EXPECT_EQ(t, h.cpu, (int)cpu);
		irq_unregister(src);
		src--;
	}
}

static void msi_reaches_its_hart(struct ktest *t)
{
	unsigned int n = platform.nharts, first;
	struct hit h[MAX_CPUS];

	KTEST_ASSERT_TRUE(t, aia.on);
	KTEST_ASSERT_EQ(t, msi_alloc(platform.imsic_phandle, 0, n, &first), 0);
	for (unsigned int i = 0; i < n; i++) {
		h[i] = (struct hit){ first + i, -1, 0 };
		KTEST_EXPECT_EQ(t, irq_register(first + i, record, &h[i]), 0);
	}
	for (unsigned int i = 0; i < n; i++) {
		struct msi_msg msg;
		msi_compose(first + i, &msg);
		KTEST_EXPECT_EQ(
		    t, msg.address, aia.file[aia_irq_cpu(first + i)]);
		mmio_write32((uintptr_t)msg.address, msg.data);
		KTEST_EXPECT_TRUE(t, wait_hit(&h[i]));
		KTEST_EXPECT_EQ(t, h[i].cpu, (int)aia_irq_cpu(first + i));
	}
	for (unsigned int i = 0; i < n; i++) {
		irq_unregister(first + i);
		KTEST_EXPECT_EQ(t, h[i].count, 1);
	}
	msi_free(first, n);
}

static void claim_loop_takes_every_pending(struct ktest *t)
{
	struct hit h[2];
	int counts[2];
	unsigned int first;
	unsigned long flags;

	KTEST_ASSERT_TRUE(t, aia.on);
	KTEST_ASSERT_EQ(t, msi_alloc(platform.imsic_phandle, 0, 2, &first), 0);
	for (unsigned int i = 0; i < 2; i++) {
		h[i] = (struct hit){ first + i, -1, 0 };
		KTEST_EXPECT_EQ(t, irq_register(first + i, record, &h[i]), 0);
	}
	flags = arch_irq_save();
	imsic_raise(cpu_id(), first + 1);
	imsic_raise(cpu_id(), first);
	irq_dispatch();		/* what the trap would do */
	counts[0] = h[0].count; /* before a leftover could interrupt */
	counts[1] = h[1].count;
	arch_irq_restore(flags);
	KTEST_EXPECT_EQ(t, counts[0], 1);
	KTEST_EXPECT_EQ(t, counts[1], 1);
	for (unsigned int i = 0; i < 2; i++)
		irq_unregister(first + i);
	msi_free(first, 2);
}

static void masked_identity_is_held(struct ktest *t)
{
	struct hit h;
	unsigned int id;
	unsigned long flags;

	KTEST_ASSERT_TRUE(t, aia.on);
	KTEST_ASSERT_EQ(t, msi_alloc(platform.imsic_phandle, 0, 1, &id), 0);
	h = (struct hit){ id, -1, 0 };
	KTEST_ASSERT_EQ(t, irq_register(id, record, &h), 0);
	flags = arch_irq_save();
	irqchip_enable(id, false);
	imsic_raise(cpu_id(), id);
	irq_dispatch();
	KTEST_EXPECT_EQ(t, h.count, 0);
	KTEST_EXPECT_TRUE(t, irq_pending(id));
	irqchip_enable(id, true); /* raised again, on its own hart */
	arch_irq_restore(flags);
	KTEST_EXPECT_TRUE(t, wait_hit(&h));
	KTEST_EXPECT_EQ(t, h.cpu, (int)aia_irq_cpu(id));
	irq_unregister(id);
	msi_free(id, 1);
}

static bool wait_ipi(struct cpu *c, unsigned long before)
{
	for (unsigned long i = 0; i < SPIN_LIMIT; i++) {
		if (READ_ONCE(c->ipis_taken) != before)
			return true;
		arch_cpu_relax();
	}
	return false;
}

static void ipi_is_a_message_to_the_file(struct ktest *t)
{
	unsigned long flags, before;
	struct cpu *me;
	bool pending;

	KTEST_ASSERT_TRUE(t, aia.on);
	KTEST_ASSERT_EQ(t, aia.ipi_id, aia.num_ids);
	KTEST_EXPECT_EQ(t, aia_msi_end(), aia.ipi_id);
	KTEST_EXPECT_FALSE(t, irqchip_valid(aia.ipi_id));
	/* To this hart with interrupts off: it waits in this hart's file
	 * (an SBI IPI would be a pending software interrupt instead). */
	flags = arch_irq_save();
	me = this_cpu();
	before = me->ipis_taken;
	arch_send_ipi(me);
	pending = imsic_pending(aia.ipi_id);
	arch_irq_restore(flags);
	KTEST_EXPECT_TRUE(t, pending);
	KTEST_EXPECT_TRUE(t, wait_ipi(me, before));
	for (unsigned int i = 0; i < platform.nharts; i++) {
		struct cpu *c = &cpus[i];

		if (c == me || !READ_ONCE(c->online))
			continue;
		before = READ_ONCE(c->ipis_taken);
		arch_send_ipi(c);
		KTEST_EXPECT_TRUE(t, wait_ipi(c, before));
	}
}

static struct ktest_case aia_cases[] = {
	KTEST_CASE(wired_source_reaches_its_hart),
	KTEST_CASE(msi_reaches_its_hart),
	KTEST_CASE(claim_loop_takes_every_pending),
	KTEST_CASE(masked_identity_is_held),
	KTEST_CASE(ipi_is_a_message_to_the_file),
	{},
};
KTEST_SUITE(aia_irq, aia_cases);

/*
 * kernel/arch/riscv64/imsic.c: the S-level interrupt files of AIA's
 * Incoming MSI Controller (RISC-V AIA 1.0, chapter 3), one per hart.
 *
 * A message (a device's, or the APLIC's for a wired source) is a 32-bit
 * write of an identity to a hart's file page (seteipnum_le, offset 0);
 * the identity turns pending in that file, and if it is enabled there
 * (eie) and above the threshold, the hart takes a supervisor external
 * interrupt (scause 9). The hart reads the file's registers through the
 * indirect CSRs: siselect picks one (eidelivery, eithreshold, eipN, eieN),
 * sireg reads or writes it; stopei gives the pending-and-enabled identity
 * of highest priority (the lowest number) and, written, claims it (clears
 * its pending bit).
 *
 * Each hart sets up its own file: delivery on, threshold 0 (none masked)
 * and every identity enabled. Turning an interrupt on and off is the
 * software mask below, since another hart's eie bits are out of reach;
 * an identity that arrives masked is held and raised again, in its
 * hart's file, when it is unmasked.
 *
 * Locking: mask_lock (irqsave) protects the mask and the held bits.
 */
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/spinlock.h>
#include <kernel/arch/riscv64/aia.h>
#include <kernel/arch/riscv64/csr.h>

/* siselect's values for the S-level file (AIA 1.0, 3.8) */
#define IMSIC_EIDELIVERY  0x70
#define IMSIC_EITHRESHOLD 0x72
#define IMSIC_EIP0	  0x80 /* eip0, eip2, ...: 64 identities each */
#define IMSIC_EIE0	  0xc0 /* eie0, eie2, ... */
#define IMSIC_SETEIPNUM	  0x00 /* offset in the file's page */
#define STOPEI_ID(v)	  (((v) >> 16) & 0x7ff)

static DEFINE_SPINLOCK(mask_lock);
/* protected by mask_lock: */
static uint64_t unmasked[IRQ_MAX / 64], held[IRQ_MAX / 64];

static unsigned long file_read(unsigned long reg)
{
	csr_write(siselect, reg);
	return csr_read(sireg);
}

static void file_write(unsigned long reg, unsigned long val)
{
	csr_write(siselect, reg);
	csr_write(sireg, val);
}

/**
 * imsic_init_hart() - set up this hart's S-level interrupt file.
 *
 * Context: this hart, interrupts off, before it takes interrupts.
 */
void imsic_init_hart(void)
{
	file_write(IMSIC_EIDELIVERY, 1);
	file_write(IMSIC_EITHRESHOLD, 0);
	for (unsigned int i = 0; i <= aia.num_ids / 64; i++) {
		unsigned int top = aia.num_ids - i * 64; /* ids in this word */
		file_write(IMSIC_EIE0 + 2 * i,
			   top >= 63 ? ~0ul : (2ul << top) - 1);
	}
}

static bool bit(const uint64_t *map, unsigned int id)
{
	return map[id / 64] & (1ull << (id % 64));
}

static void set_bit_to(uint64_t *map, unsigned int id, bool on)
{
	if (on)
		map[id / 64] |= 1ull << (id % 64);
	else
		map[id / 64] &= ~(1ull << (id % 64));
}

void imsic_raise(unsigned int cpu, unsigned int id)
{
	mmio_write32(aia.file[cpu] + IMSIC_SETEIPNUM, id);
}

/**
 * imsic_enable() - unmask or mask identity @id on every hart.
 *
 * Context: any; takes mask_lock.
 */
void imsic_enable(unsigned int id, bool on)
{
	unsigned long flags = spin_lock_irqsave(&mask_lock);
	bool again = on && bit(held, id);

	set_bit_to(unmasked, id, on);
	if (again)
		set_bit_to(held, id, false);
	spin_unlock_irqrestore(&mask_lock, flags);
	if (again)
		imsic_raise(aia_irq_cpu(id), id);
}

/* Pending in this hart's file (or held while masked). Diagnostics. */
bool imsic_pending(unsigned int id)
{
	unsigned long eip = file_read(IMSIC_EIP0 + 2 * (id / 64));

	return (eip & (1ul << (id % 64))) || bit(held, id);
}

/* Run @id's handler, or hold it if it is masked. */
static void imsic_handle(unsigned int id)
{
	bool on;

	spin_lock(&mask_lock);
	on = bit(unmasked, id);
	if (!on)
		set_bit_to(held, id, true);
	spin_unlock(&mask_lock);
	if (on) {
		irq_handle(id);
		aia_handled(id);
	}
}

/**
 * imsic_dispatch() - claim and handle every identity pending here.
 *
 * Claims one at a time with stopei (read and clear in one csrrw) until it
 * reads 0: each handler runs after its claim, so a message that comes
 * again while it runs is pending again and taken by the next round. The
 * wake-up IPI's identity has no handler and no mask: it asks this hart
 * to reschedule, as the SBI IPI's software interrupt does.
 * Context: interrupt (the trap path), this hart, interrupts off.
 */
void imsic_dispatch(void)
{
	unsigned long v;

	while ((v = csr_swap(stopei, 0)) != 0) {
		unsigned int id = STOPEI_ID(v);

		if (id == aia.ipi_id) /* a wake-up: as SSIP (trap.c) */
			cpu_take_wake_ipi();
		else
			imsic_handle(id);
	}
}

/*
 * kernel/arch/riscv64/irqchip.c: <kernel/irq.h>'s irqchip_*() hooks and
 * irq_dispatch() on the controller the device tree gives, chosen once on
 * the boot hart (the first irqchip_init_hart()):
 *
 *   AIA    an S-level IMSIC (interrupt files for every hart) and an
 *          S-level APLIC in MSI mode whose msi-parent is that IMSIC:
 *          wired sources through the APLIC, MSIs straight to the files
 *          (aia.h, imsic.c, aplic.c, msi.c);
 *   PLIC   otherwise (plic.c), as before: QEMU virt's default.
 *
 * A device tree that describes the AIA wrongly (an IMSIC without reg, or
 * with fewer files than harts; an APLIC without msi-parent) is said on
 * the console and left out: the PLIC if there is one, else no interrupts
 * from the devices concerned (their drivers poll or leave them out).
 *
 * Locking: `aia` is written once by aia_probe() before any interrupt is
 * registered and read-only afterwards.
 */
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/arch/riscv64/aia.h>

struct aia aia;

unsigned int aia_irq_cpu(unsigned int irq)
{
	return irq % platform.nharts;
}

unsigned int aia_hart_index(unsigned int cpu)
{
	return (unsigned int)platform.imsic_file[cpu];
}

static const char *fallback(void)
{
	return platform.plic.base ? "the PLIC is used"
				  : "devices get no interrupts from it";
}

/* Each hart's file inside the IMSIC's reg: false (said) if one is not. */
static bool imsic_files(void)
{
	uint64_t stride = (uint64_t)IMSIC_FILE_SIZE
			  << platform.imsic_guest_bits;
	unsigned int found = 0;

	for (unsigned int cpu = 0; cpu < platform.nharts; cpu++) {
		int i = platform.imsic_file[cpu];
		if (i < 0 || (uint64_t)(i + 1) * stride > platform.imsic.size)
			continue;
		aia.file[cpu] = platform.imsic.base + (uint64_t)i * stride;
		found++;
	}
	if (found == platform.nharts)
		return true;
	pr_err("aia: the S-level IMSIC at %#lx (%#llx bytes) has interrupt "
	       "files for %u of %u harts; no MSIs, %s\n",
	       (unsigned long)platform.imsic.base,
	       (unsigned long long)platform.imsic.size,
	       found,
	       platform.nharts,
	       fallback());
	return false;
}

static bool imsic_usable(void)
{
	if (!platform.imsic.base) {
		pr_err("aia: the S-level IMSIC (riscv,imsics) has no reg; no "
		       "MSIs, %s\n",
		       fallback());
		return false;
	}
	if (platform.imsic_num_ids < 63 || platform.imsic_num_ids >= IRQ_MAX) {
		pr_err("aia: the S-level IMSIC says riscv,num-ids %u (63-%u "
		       "taken); no MSIs, %s\n",
		       platform.imsic_num_ids,
		       IRQ_MAX - 1,
		       fallback());
		return false;
	}
	return imsic_files();
}

/* The APLIC: usable in MSI mode if it sends to our IMSIC. */
static bool aplic_usable(void)
{
	if (!platform.aplic.base) {
		pr_warn("aia: no S-level APLIC: wired devices get no "
			"interrupts\n");
		return false;
	}
	if (platform.aplic_msi_parent != platform.imsic_phandle ||
	    !platform.aplic_nsources) {
		pr_err("aplic: %#lx has %s (direct delivery mode is not "
		       "supported): wired devices get no interrupts%s\n",
		       (unsigned long)platform.aplic.base,
		       !platform.aplic_msi_parent ? "no msi-parent"
		       : platform.aplic_nsources
			   ? "an msi-parent that is not the S-level IMSIC"
			   : "no riscv,num-sources",
		       platform.plic.base ? " from it; the PLIC is used" : "");
		return false;
	}
	if (platform.aplic_nsources > platform.imsic_num_ids)
		pr_warn("aplic: sources past %u (the IMSIC's identities) get "
			"no interrupts\n",
			platform.imsic_num_ids);
	return true;
}

bool aia_probe(void)
{
	if (!platform.imsic.size || !imsic_usable())
		return false;
	aia.num_ids = platform.imsic_num_ids;
	if (aplic_usable()) {
		aia.nsources = platform.aplic_nsources < aia.num_ids
				   ? platform.aplic_nsources
				   : aia.num_ids;
		aia.aplic_on = aplic_init() == 0;
	} else if (platform.plic.base) {
		return false;
	}
	/* The last identity wakes harts, if the APLIC left one. */
	if (aia.num_ids > aia.nsources + 1)
		aia.ipi_id = aia.num_ids;
	aia.on = true;
	if (aia.aplic_on)
		pr_info("aia: IMSIC files at %#lx, identities 1-%u: wired 1-%u "
			"through the APLIC, MSIs %u-%u, IPIs %u\n",
			(unsigned long)aia.file[0],
			aia.num_ids,
			aia.nsources,
			aia.nsources + 1,
			aia_msi_end() - 1,
			aia.ipi_id);
	else
		pr_info("aia: IMSIC files at %#lx, identities 1-%u: MSIs "
			"1-%u, IPIs %u\n",
			(unsigned long)aia.file[0],
			aia.num_ids,
			aia_msi_end() - 1,
			aia.ipi_id);
	return true;
}

unsigned int aia_msi_end(void)
{
	return aia.ipi_id ? aia.ipi_id : aia.num_ids + 1;
}

/* One store to the target's file: no firmware on either side (an SBI IPI
 * is an ecall into OpenSBI, a CLINT write and an M-mode interrupt on the
 * target that OpenSBI turns into the supervisor one). */
bool aia_send_ipi(unsigned int cpu)
{
	if (!aia.on || !aia.ipi_id)
		return false;
	imsic_raise(cpu, aia.ipi_id);
	return true;
}

static bool is_wired(unsigned int irq)
{
	return aia.aplic_on && irq >= 1 && irq <= aia.nsources;
}

void aia_handled(unsigned int id)
{
	if (is_wired(id))
		aplic_done(id);
}

bool irqchip_valid(unsigned int irq)
{
	if (!aia.on)
		return plic_valid(irq);
	return is_wired(irq) || msi_allocated(irq);
}

void irqchip_enable(unsigned int irq, bool on)
{
	if (!aia.on)
		return plic_enable(irq, on);
	if (on)
		imsic_enable(irq, true);
	if (is_wired(irq))
		aplic_enable(irq, on);
	if (!on)
		imsic_enable(irq, false);
}

bool irqchip_pending(unsigned int irq)
{
	if (!aia.on)
		return plic_pending(irq);
	return imsic_pending(irq) || (is_wired(irq) && aplic_pending(irq));
}

void irq_dispatch(void)
{
	if (aia.on)
		imsic_dispatch();
	else
		plic_dispatch();
}

void irqchip_init_hart(void)
{
	static bool probed;

	if (!probed && cpu_id() == 0) {
		probed = true;
		aia_probe();
	}
	if (aia.on)
		imsic_init_hart();
	else
		plic_init_hart();
}

/*
 * kernel/arch/riscv64/aia.h: the RISC-V Advanced Interrupt Architecture
 * (AIA 1.0) in S-mode, for riscv64's irqchip code only.
 *
 * Interrupt numbers are the IMSIC's identities, one space for every hart
 * (an identity is handed out once, not per hart):
 *   1 .. aplic_nsources        wired sources of the S-level APLIC, which
 *                              sends source n as identity n (EIID = n);
 *   aplic_nsources+1 .. num_ids-1  identities for msi_alloc() (msi.c);
 *   num_ids                    the wake-up IPI (ipi_id), on every hart:
 *                              a hart's message to another's file, with
 *                              no SBI call and no M-mode interrupt.
 * Each identity goes to one hart, aia_irq_cpu()'s: interrupt n to logical
 * cpu n % nharts, so a device's vectors (and the board's wired sources)
 * are spread over the harts; an APLIC source's target register and an
 * MSI's address both name that hart's interrupt file.
 *
 *   imsic.c   the interrupt files: per-hart set-up through siselect/sireg,
 *             the claim loop (stopei), the software enable mask
 *   aplic.c   the S-level APLIC domain in MSI delivery mode
 *   irqchip.c picks the PLIC or the AIA at boot, behind <kernel/irq.h>
 *   msi.c     <kernel/msi.h> on the IMSIC
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/cpu.h>

#define IMSIC_FILE_SIZE 0x1000 /* one page per interrupt file */

/* Set up by aia_probe() on the boot hart, read-only afterwards. */
struct aia {
	bool on;		  /* the IMSIC takes external interrupts */
	bool aplic_on;		  /* wired sources come through the APLIC */
	unsigned int num_ids;	  /* identities 1..num_ids */
	unsigned int nsources;	  /* wired: 1..nsources (0 if no APLIC) */
	unsigned int ipi_id;	  /* the wake-up IPI's identity (0: none,
				     IPIs go through SBI) */
	uintptr_t file[MAX_CPUS]; /* each hart's S-level interrupt file */
};

extern struct aia aia;

/* Check the device tree's IMSIC and APLIC (platform.c) and turn them on;
 * say on the console what is wrong. Boot hart, once. Return: aia.on. */
bool aia_probe(void);
/* The hart (logical cpu) that identity @irq goes to. */
unsigned int aia_irq_cpu(unsigned int irq);
/* The hart's file index, as an APLIC target's hart index counts. */
unsigned int aia_hart_index(unsigned int cpu);

/* Send @cpu the wake-up IPI as a message to its file. Return: false if
 * the AIA has no identity for it (the caller uses SBI). */
bool aia_send_ipi(unsigned int cpu);
/* The end (exclusive) of the identities msi_alloc() hands out. */
unsigned int aia_msi_end(void);

/* imsic.c */
void imsic_init_hart(void);
void imsic_enable(unsigned int id, bool on);
bool imsic_pending(unsigned int id);
void imsic_dispatch(void);
/* Make @id pending in @cpu's file, as a device's message would. */
void imsic_raise(unsigned int cpu, unsigned int id);

/* aplic.c */
int aplic_init(void);
void aplic_enable(unsigned int src, bool on);
bool aplic_pending(unsigned int src);
/* Make wired source @src pending (setipnum), as its device would. */
void aplic_raise(unsigned int src);
/* After @src's handler: a level source still asserted is pended again. */
void aplic_done(unsigned int src);
/* irqchip.c: after identity @id's handler (the APLIC's aplic_done). */
void aia_handled(unsigned int id);

/* plic.c: the PLIC, irqchip.c's other choice (the same hooks' meaning) */
bool plic_valid(unsigned int irq);
void plic_enable(unsigned int irq, bool on);
bool plic_pending(unsigned int irq);
void plic_dispatch(void);
void plic_init_hart(void);

/* msi.c: is @id an identity msi_alloc() handed out? */
bool msi_allocated(unsigned int id);

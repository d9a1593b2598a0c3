/*
 * kernel/arch/aarch64/trap.h: the saved state of an interrupted context.
 *
 * The exception vectors (vectors.S) build a struct trap_frame on the
 * interrupted stack (or on the CPU's emergency stack when that stack has
 * overflowed) and call trap_handler(). record_fp/record_pc form a frame
 * record (x29 points at it) so backtraces continue through a trap.
 */
#pragma once

#define TF_REG(n)    ((n)*8) /* x0-x30 */
#define TF_SP	     (31 * 8)
#define TF_ELR	     (32 * 8)
#define TF_SPSR	     (33 * 8)
#define TF_ESR	     (34 * 8)
#define TF_FAR	     (35 * 8)
#define TF_Q(n)	     (36 * 8 + (n)*16)
#define TF_FPCR	     (100 * 8)
#define TF_FPSR	     (101 * 8)
#define TF_RECORD_FP (102 * 8)
#define TF_RECORD_PC (103 * 8)
#define TF_KIND	     (104 * 8)
#define TF_SIZE	     (106 * 8)

/* Which vector was taken (TF_KIND). */
#define TRAP_SYNC  0
#define TRAP_IRQ   1
#define TRAP_FIQ   2
#define TRAP_SERR  3
#define TRAP_OTHER 4 /* from a lower EL or with SP_EL0: never expected */

/* SPSR/DAIF bits */
#define PSR_I (1UL << 7)

#ifndef __ASSEMBLY__
#include <kernel/compiler.h>

struct trap_frame {
	uint64_t regs[31]; /* x0-x30 */
	uint64_t sp, elr, spsr, esr, far;
	__uint128_t q[32];
	uint64_t fpcr, fpsr;
	uint64_t record_fp, record_pc;
	uint64_t kind, pad;
};

void trap_init_hart(void);
void trap_handler(struct trap_frame *tf);
#endif

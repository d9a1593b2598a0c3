/*
 * kernel/arch/riscv64/trap.h: the saved state of an interrupted context.
 *
 * trap_entry (trap.S) builds a struct trap_frame on the interrupted stack
 * (or on the hart's emergency stack when that stack has overflowed) and
 * calls trap_handler(). The last two words form a frame record
 * (saved fp, pc) so backtraces continue through a trap.
 */
#pragma once

#define TF_REG(n)    ((n)*8)
#define TF_SEPC	     (32 * 8)
#define TF_SSTATUS   (33 * 8)
#define TF_SCAUSE    (34 * 8)
#define TF_STVAL     (35 * 8)
#define TF_FREG(n)   (36 * 8 + (n)*8)
#define TF_FCSR	     (68 * 8)
#define TF_RECORD_FP (69 * 8)
#define TF_RECORD_PC (70 * 8)
#define TF_SIZE	     (72 * 8)

#ifndef __ASSEMBLY__
#include <kernel/compiler.h>

struct trap_frame {
	uint64_t regs[32]; /* x0 slot unused; regs[2] is the interrupted sp */
	uint64_t sepc, sstatus, scause, stval;
	uint64_t fregs[32];
	uint64_t fcsr;
	uint64_t record_fp, record_pc;
	uint64_t pad;
};

void trap_init_hart(void);
void trap_handler(struct trap_frame *tf);
#endif

/*
 * kernel/arch/aarch64/include/arch/context.h: struct task_context, what
 * arch_switch_context (switch.S) saves: the callee-saved registers x19-x28,
 * fp (x29), the return address (x30, "ra"), sp, d8-d15, FPCR and FPSR.
 * Included only by kernel/arch.h.
 */
#pragma once

#include <stdint.h>

struct task_context {
	uint64_t x[10]; /* x19-x28 */
	uint64_t fp, ra, sp;
	uint64_t d[8]; /* d8-d15 */
	uint64_t fpcr, fpsr;
};

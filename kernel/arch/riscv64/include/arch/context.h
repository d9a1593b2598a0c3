/*
 * kernel/arch/riscv64/include/arch/context.h: struct task_context, what
 * arch_switch_context (switch.S) saves: the callee-saved registers ra, sp,
 * s0-s11, fs0-fs11 and fcsr. Included only by kernel/arch.h.
 */
#pragma once

#include <stdint.h>

struct task_context {
	uint64_t ra, sp, s[12];
	uint64_t fs[12];
	uint64_t fcsr;
};

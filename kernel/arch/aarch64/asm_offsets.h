/*
 * Offsets used by assembly. Checked against the C structures with
 * BUILD_BUG_ON in kernel/arch/aarch64/trap.c.
 */
#pragma once

#define CPU_EMERGENCY_SP 0
#define CPU_BOOT_SP	 8
#define TASK_STACK_LO	 0
#define TASK_CPU	 8

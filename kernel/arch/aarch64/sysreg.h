/*
 * kernel/arch/aarch64/sysreg.h: system register values and accessors of
 * the aarch64 port. Only included by aarch64 code; portable code uses
 * <kernel/arch.h>.
 */
#pragma once

/* MAIR_EL1: attribute 0 Normal write-back (RAM), 1 Device-nGnRE (MMIO). */
#define MAIR_VALUE  0x04ff
#define ATTR_NORMAL 0
#define ATTR_DEVICE 1
/*
 * TCR_EL1: 4 KiB granule and 39-bit addresses in both halves (T0SZ = T1SZ
 * = 25: three levels, as Sv39), walks write-back inner shareable, 40-bit
 * physical addresses. TCR_EPD1 keeps the upper half off until the kernel
 * table exists (boot).
 */
#define TCR_KERNEL 0x2b5193519
#define TCR_EPD1   (1 << 23)
/* SCTLR_EL1: MMU, data and instruction caches on; the v8.0 RES1 bits. */
#define SCTLR_RES1   0x30d00800
#define SCTLR_KERNEL 0x30d01805
/* CPACR_EL1.FPEN: FP/SIMD at EL1 without traps (newlib and the kernel use
 * the FP registers: the trap frame and the context switch save them). */
#define CPACR_FPEN (3 << 20)

#ifndef __ASSEMBLY__
#define sysreg_read(reg)                                           \
	({                                                         \
		uint64_t __v;                                      \
		__asm__ __volatile__("mrs %0, " #reg : "=r"(__v)); \
		__v;                                               \
	})
#define sysreg_write(reg, v)                      \
	__asm__ __volatile__("msr " #reg ", %0"   \
			     :                    \
			     : "r"((uint64_t)(v)) \
			     : "memory")
#define isb() __asm__ __volatile__("isb" ::: "memory")

/* ESR_EL1's exception classes */
#define ESR_EC(esr)  ((esr) >> 26)
#define EC_UNKNOWN   0x00
#define EC_SVC	     0x15
#define EC_IABT_SAME 0x21
#define EC_PC_ALIGN  0x22
#define EC_DABT_SAME 0x25
#define EC_SP_ALIGN  0x26
#define EC_BRK	     0x3c
#define ESR_WNR	     (1UL << 6)
#define ESR_FSC(esr) ((esr)&0x3f)
/* translation (0x04-0x07), access flag (0x08-0x0b), permission (0x0c-0x0f) */
#define FSC_IS_PAGE_FAULT(fsc) ((fsc) >= 0x04 && (fsc) <= 0x0f)
#endif

/*
 * kernel/arch/riscv64/csr.h: supervisor CSR numbers, bits and accessors.
 * Only included by riscv64 code; portable code uses <kernel/arch.h>.
 */
#pragma once

#define SSTATUS_SIE	   (1UL << 1)
#define SSTATUS_SPIE	   (1UL << 5)
#define SSTATUS_SPP	   (1UL << 8)
#define SSTATUS_FS_MASK	   (3UL << 13)
#define SSTATUS_FS_INITIAL (1UL << 13)
#define SSTATUS_FS_CLEAN   (2UL << 13)
#define SSTATUS_FS_DIRTY   (3UL << 13)
#define SSTATUS_SUM	   (1UL << 18)

#define SIE_SSIE (1UL << 1)
#define SIE_STIE (1UL << 5)
#define SIE_SEIE (1UL << 9)

#define CAUSE_INTERRUPT (1UL << 63)
#define IRQ_S_SOFT	1
#define IRQ_S_TIMER	5
#define IRQ_S_EXT	9

#define EXC_INST_MISALIGNED  0
#define EXC_INST_ACCESS	     1
#define EXC_ILLEGAL_INST     2
#define EXC_BREAKPOINT	     3
#define EXC_LOAD_MISALIGNED  4
#define EXC_LOAD_ACCESS	     5
#define EXC_STORE_MISALIGNED 6
#define EXC_STORE_ACCESS     7
#define EXC_ECALL_U	     8
#define EXC_ECALL_S	     9
#define EXC_INST_PAGE_FAULT  12
#define EXC_LOAD_PAGE_FAULT  13
#define EXC_STORE_PAGE_FAULT 15

#define SATP_MODE_SV39 (8UL << 60)

#ifndef __ASSEMBLY__
#define csr_read(csr)                                                         \
	({                                                                    \
		unsigned long __v;                                            \
		__asm__ __volatile__("csrr %0, " #csr : "=r"(__v)::"memory"); \
		__v;                                                          \
	})
#define csr_write(csr, val) \
	__asm__ __volatile__("csrw " #csr ", %0" ::"rK"(val) : "memory")
#define csr_set(csr, val) \
	__asm__ __volatile__("csrs " #csr ", %0" ::"rK"(val) : "memory")
#define csr_clear(csr, val) \
	__asm__ __volatile__("csrc " #csr ", %0" ::"rK"(val) : "memory")
/* Write @val, return the old value, in one instruction (stopei's claim). */
#define csr_swap(csr, val)                                    \
	({                                                    \
		unsigned long __v;                            \
		__asm__ __volatile__("csrrw %0, " #csr ", %1" \
				     : "=r"(__v)              \
				     : "rK"(val)              \
				     : "memory");             \
		__v;                                          \
	})
#define csr_read_clear(csr, val)                              \
	({                                                    \
		unsigned long __v;                            \
		__asm__ __volatile__("csrrc %0, " #csr ", %1" \
				     : "=r"(__v)              \
				     : "rK"(val)              \
				     : "memory");             \
		__v;                                          \
	})
#endif

/*
 * kernel/arch/riscv64/sbi.h: calls into the SBI firmware (OpenSBI).
 * Return: SBI error code (0 on success) unless stated.
 */
#pragma once

#include <kernel/compiler.h>

long sbi_set_timer(uint64_t when);
/* The tick is set through Sstc's stimecmp, not sbi_set_timer: every hart's
 * ISA names Sstc (kernel/arch/riscv64/arch.c). */
bool riscv_timer_sstc(void);
long sbi_hart_start(unsigned long hartid, uintptr_t start, uintptr_t opaque);
long sbi_hart_get_status(unsigned long hartid);
long sbi_send_ipi_one(unsigned long hartid);
/* sfence.vma of [start, start + size) on every running hart, this one too. */
long sbi_remote_sfence_vma_all(uintptr_t start, size_t size);
__noreturn void sbi_shutdown(void);

/*
 * kernel/arch/riscv64/sbi.h: calls into the SBI firmware (OpenSBI).
 * Return: SBI error code (0 on success) unless stated.
 */
#pragma once

#include <kernel/compiler.h>

long sbi_set_timer(uint64_t when);
/* sbi_set_timer's calls so far, every hart's (tests: riscv_timer; with
 * Sstc OpenSBI's set_timer writes stimecmp too, so only the calls tell
 * the two ways apart). */
extern unsigned long sbi_set_timer_calls;
long sbi_hart_start(unsigned long hartid, uintptr_t start, uintptr_t opaque);
long sbi_hart_get_status(unsigned long hartid);
long sbi_send_ipi_one(unsigned long hartid);
/* sfence.vma of [start, start + size) on every running hart, this one too. */
long sbi_remote_sfence_vma_all(uintptr_t start, size_t size);
__noreturn void sbi_shutdown(void);

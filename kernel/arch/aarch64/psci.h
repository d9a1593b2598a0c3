/*
 * kernel/arch/aarch64/psci.h: the firmware calls: PSCI (through hvc or
 * smc, as the device tree's /psci method says) and QEMU's semihosting
 * exit (the exit code of a test boot).
 */
#pragma once

#include <kernel/compiler.h>

/* Start CPU @mpidr at physical @entry with x0 = @context. Return: 0 or
 * PSCI's negative error (-1 NOT_SUPPORTED without a /psci node). */
long psci_cpu_on(uint64_t mpidr, uintptr_t entry, uintptr_t context);
void psci_system_off(void);
/* Exit QEMU with @code if it runs with -semihosting; return otherwise. */
void semihosting_exit(int code);
/* The address of the semihosting instruction: trap.c steps over it when
 * it traps (QEMU without -semihosting: an undefined instruction). */
extern char semihosting_insn[];

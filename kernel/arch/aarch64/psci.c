/*
 * kernel/arch/aarch64/psci.c: PSCI calls through the conduit the device
 * tree names (/psci method = "hvc" or "smc"), and the semihosting exit.
 */
#include <string.h>
#include <kernel/platform.h>
#include <kernel/arch/aarch64/psci.h>

#define PSCI_CPU_ON_64	   0xc4000003
#define PSCI_SYSTEM_OFF	   0x84000008
#define PSCI_NOT_SUPPORTED (-1)

/* SMC Calling Convention: x0 function, x1-x3 arguments, x0 result; x4-x17
 * may be changed. */
#define PSCI_CALL(insn)                                               \
	__asm__ __volatile__(insn " #0"                               \
			     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) \
			     :                                        \
			     : "x4",                                  \
			       "x5",                                  \
			       "x6",                                  \
			       "x7",                                  \
			       "x8",                                  \
			       "x9",                                  \
			       "x10",                                 \
			       "x11",                                 \
			       "x12",                                 \
			       "x13",                                 \
			       "x14",                                 \
			       "x15",                                 \
			       "x16",                                 \
			       "x17",                                 \
			       "memory")

/* The conduit is decided before the registers are loaded: a call (strcmp)
 * in between would change them. */
static long psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	const char *method = platform.psci_method;
	bool hvc = method && !strcmp(method, "hvc");
	bool smc = method && !strcmp(method, "smc");
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	if (hvc)
		PSCI_CALL("hvc");
	else if (smc)
		PSCI_CALL("smc");
	else
		return PSCI_NOT_SUPPORTED;
	return (long)x0;
}

long psci_cpu_on(uint64_t mpidr, uintptr_t entry, uintptr_t context)
{
	return psci_call(PSCI_CPU_ON_64, mpidr, entry, context);
}

void psci_system_off(void)
{
	psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
}

/* SYS_EXIT with ADP_Stopped_ApplicationExit and the code: QEMU exits
 * with it. */
__attribute__((noinline)) void semihosting_exit(int code)
{
	uint64_t block[2] = { 0x20026, (uint64_t)code };
	register uint64_t x0 __asm__("x0") = 0x18;
	register uint64_t x1 __asm__("x1") = (uintptr_t)block;

	__asm__ __volatile__(".globl semihosting_insn\n"
			     "semihosting_insn: hlt #0xf000"
			     : "+r"(x0)
			     : "r"(x1)
			     : "memory");
}

/*
 * kernel/arch/riscv64/sbi.c: SBI v0.2+ calls (TIME, HSM, IPI, RFENCE, SRST).
 */
#include <kernel/arch/riscv64/sbi.h>

#define SBI_EXT_TIME   0x54494D45
#define SBI_EXT_IPI    0x735049
#define SBI_EXT_HSM    0x48534D
#define SBI_EXT_SRST   0x53525354
#define SBI_EXT_RFENCE 0x52464E43

struct sbiret {
	long error;
	long value;
};

static struct sbiret
sbi_call4(long ext, long fid, long a0, long a1, long a2, long a3)
{
	register long r0 __asm__("a0") = a0;
	register long r1 __asm__("a1") = a1;
	register long r2 __asm__("a2") = a2;
	register long r3 __asm__("a3") = a3;
	register long r6 __asm__("a6") = fid;
	register long r7 __asm__("a7") = ext;
	__asm__ __volatile__("ecall"
			     : "+r"(r0), "+r"(r1)
			     : "r"(r2), "r"(r3), "r"(r6), "r"(r7)
			     : "memory");
	return (struct sbiret){ r0, r1 };
}

static struct sbiret sbi_call(long ext, long fid, long a0, long a1, long a2)
{
	return sbi_call4(ext, fid, a0, a1, a2, 0);
}

unsigned long sbi_set_timer_calls;

long sbi_set_timer(uint64_t when)
{
	__atomic_fetch_add(&sbi_set_timer_calls, 1, __ATOMIC_RELAXED);
	return sbi_call(SBI_EXT_TIME, 0, (long)when, 0, 0).error;
}

long sbi_hart_start(unsigned long hartid, uintptr_t start, uintptr_t opaque)
{
	return sbi_call(SBI_EXT_HSM, 0, (long)hartid, (long)start, (long)opaque)
	    .error;
}

long sbi_hart_get_status(unsigned long hartid)
{
	struct sbiret r = sbi_call(SBI_EXT_HSM, 2, (long)hartid, 0, 0);
	return r.error ? r.error : r.value;
}

long sbi_send_ipi_one(unsigned long hartid)
{
	/* hart mask of one bit with base hartid */
	return sbi_call(SBI_EXT_IPI, 0, 1, (long)hartid, 0).error;
}

void sbi_shutdown(void)
{
	sbi_call(SBI_EXT_SRST, 0, 0, 0, 0);
	for (;;)
		__asm__ __volatile__("wfi");
}

long sbi_remote_sfence_vma_all(uintptr_t start, size_t size)
{
	/* hart_mask_base -1: every hart that is running (SBI v0.2+) */
	return sbi_call4(SBI_EXT_RFENCE, 1, 0, -1, (long)start, (long)size)
	    .error;
}

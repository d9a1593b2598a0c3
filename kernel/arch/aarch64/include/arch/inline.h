/*
 * kernel/arch/aarch64/include/arch/inline.h: the aarch64 hooks of
 * <kernel/arch.h> that must be inline (one instruction each), and the
 * barriers. Included only by kernel/arch.h.
 */
#pragma once

struct task;

#define ARCH_NAME "aarch64"
/* TTBR0's 39-bit half: how far the identity map (RAM, devices) reaches. */
#define ARCH_IDENTITY_LIMIT (1UL << 39)

/* The running task is kept in TPIDR_EL1: one register read, so it cannot
 * be torn by a migration to another CPU. */
static inline struct task *arch_current_task(void)
{
	struct task *t;
	__asm__ __volatile__("mrs %0, tpidr_el1" : "=r"(t));
	return t;
}

static inline void arch_set_current_task(struct task *t)
{
	__asm__ __volatile__("msr tpidr_el1, %0" ::"r"(t) : "memory");
}

/* The frame record {caller's fp, return address} is what x29 points at. */
static inline const uintptr_t *arch_frame_record(uintptr_t fp)
{
	return (const uintptr_t *)fp;
}

/*
 * Between CPUs (inner shareable): a full barrier, loads before loads,
 * stores before stores. Unlike riscv64's fence w,w, dmb ishst orders
 * stores only: a publish is smp_wmb, a consume is smp_rmb (or an acquire).
 */
#define smp_mb()  __asm__ __volatile__("dmb ish" ::: "memory")
#define smp_rmb() __asm__ __volatile__("dmb ishld" ::: "memory")
#define smp_wmb() __asm__ __volatile__("dmb ishst" ::: "memory")
/*
 * Device I/O: memory writes before an MMIO write (a virtqueue's notify),
 * an MMIO read before later memory reads (a used index after the
 * interrupt status). Device memory is outer shareable: dmb osh*.
 */
#define io_wmb() __asm__ __volatile__("dmb oshst" ::: "memory")
#define io_rmb() __asm__ __volatile__("dmb oshld" ::: "memory")
#define io_mb()	 __asm__ __volatile__("dmb osh" ::: "memory")

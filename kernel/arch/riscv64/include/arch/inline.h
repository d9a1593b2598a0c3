/*
 * kernel/arch/riscv64/include/arch/inline.h: the riscv64 hooks of
 * <kernel/arch.h> that must be inline (one instruction each). Included
 * only by kernel/arch.h.
 */
#pragma once

struct task;

#define ARCH_NAME "riscv64"
/* Sv39's lower canonical half: how far the identity map reaches. */
#define ARCH_IDENTITY_LIMIT (1UL << 38)

/* One register read, so it cannot be torn by a migration to another hart. */
static inline struct task *arch_current_task(void)
{
	struct task *t;
	__asm__ __volatile__("mv %0, tp" : "=r"(t));
	return t;
}

static inline void arch_set_current_task(struct task *t)
{
	__asm__ __volatile__("mv tp, %0" ::"r"(t));
}

/* Full fence between CPUs: orders all earlier memory accesses before later. */
#define smp_mb()  __asm__ __volatile__("fence rw, rw" ::: "memory")
#define smp_rmb() __asm__ __volatile__("fence r, r" ::: "memory")
#define smp_wmb() __asm__ __volatile__("fence w, w" ::: "memory")
/* Device I/O ordering: memory writes before an MMIO write (notify). */
#define io_wmb() __asm__ __volatile__("fence w, o" ::: "memory")
#define io_rmb() __asm__ __volatile__("fence i, r" ::: "memory")
#define io_mb()	 __asm__ __volatile__("fence iorw, iorw" ::: "memory")

/* The frame record {caller's fp, return address} of frame pointer @fp:
 * the two words just below it. */
static inline const uintptr_t *arch_frame_record(uintptr_t fp)
{
	return (const uintptr_t *)fp - 2;
}

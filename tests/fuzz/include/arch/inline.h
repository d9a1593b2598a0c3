/*
 * tests/fuzz/include/arch/inline.h: the inline hooks of <kernel/arch.h>
 * for the host build of the ext2 code (tools/fuzz). One thread runs the
 * filesystem there, so the barriers only need to be C11 fences.
 */
#pragma once

struct task;
extern struct task *host_current_task;

static inline struct task *arch_current_task(void)
{
	return host_current_task;
}

static inline void arch_set_current_task(struct task *t)
{
	host_current_task = t;
}

#define smp_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define io_wmb()  smp_wmb()
#define io_rmb()  smp_rmb()
#define io_mb()	  smp_mb()

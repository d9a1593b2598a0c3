/*
 * kernel/compiler.h: small language helpers used everywhere.
 *
 * container_of, READ_ONCE/WRITE_ONCE (single, untorn accesses the compiler
 * may not merge or repeat), BUILD_BUG_ON, likely/unlikely, ARRAY_SIZE,
 * alignment helpers. Header only.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define ALIGN_UP(x, a)	   (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a)   ((x) & ~((__typeof__(x))(a)-1))
#define IS_ALIGNED(x, a)   (((x) & ((__typeof__(x))(a)-1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* newlib's <sys/cdefs.h> may have defined some of these already. */
#include <sys/cdefs.h>
#ifndef __unused
#define __unused __attribute__((unused))
#endif
#ifndef __packed
#define __packed __attribute__((packed))
#endif
#ifndef __aligned
#define __aligned(n) __attribute__((aligned(n)))
#endif
#ifndef __section
#define __section(s) __attribute__((section(s)))
#endif
#ifndef __used
#define __used __attribute__((used))
#endif
#define __noreturn     __attribute__((noreturn))
#define __printf(a, b) __attribute__((format(printf, a, b)))

/* Options are constants, tested with if (IS_ENABLED(CONFIG_X)), not #ifdef. */
#define IS_ENABLED(option) (option)

/*
 * Build options, 1 unless the compiler's line says -DCONFIG_X=0. Every
 * kernel tools/test boots has them on; the production build (prod.ninja,
 * build/prod/: what tools/bench measures, as Linux's distribution kernels
 * ship without lock debugging) turns them off.
 *   CONFIG_LOCKDEP       kernel/lockdep.h: held-lock tracking, rank checks,
 *                        lockdep_assert_held*(); off, only the running
 *                        task's count of locks taken and held is kept
 *   CONFIG_DEBUG_ASSERT  DEBUG_ASSERT() (kernel/panic.h), the checks of a
 *                        caller's requirements on hot paths
 */
#ifndef CONFIG_LOCKDEP
#define CONFIG_LOCKDEP 1
#endif
#ifndef CONFIG_DEBUG_ASSERT
#define CONFIG_DEBUG_ASSERT 1
#endif

/* A compiler barrier: no memory access moves across it (no CPU fence). */
#define barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

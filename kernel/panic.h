/*
 * kernel/panic.h: fatal errors, warnings and backtraces.
 *
 * panic() stops every hart, prints the message and a symbolized backtrace
 * (function+offset) and powers off with exit code PANIC_EXIT_CODE.
 * WARN_ON(_ONCE) reports a broken expectation with a backtrace and goes on:
 * prefer it wherever the kernel can continue.
 */
#pragma once

#include <kernel/compiler.h>

#define PANIC_EXIT_CODE 3

__printf(1, 2) __noreturn void panic(const char *fmt, ...);
void backtrace_from(uintptr_t fp, uintptr_t pc);
void dump_stack(void);
/* "name+0xoff/0xsize" for a code address, into buf. */
const char *ksym_format(uintptr_t addr, char *buf, size_t len);
/* WARN_ON/WARN_ON_ONCE reports since boot (tests read it). */
unsigned long warn_count(void);
void __warn(const char *file, int line, const char *cond);
/* Set once a hart panics; other harts stop at their next trap. */
extern volatile int panic_in_progress;

#define WARN_ON(cond)                                      \
	({                                                 \
		bool __c = !!(cond);                       \
		if (unlikely(__c))                         \
			__warn(__FILE__, __LINE__, #cond); \
		__c;                                       \
	})

#define WARN_ON_ONCE(cond)                                 \
	({                                                 \
		static bool __warned;                      \
		bool __c = !!(cond);                       \
		if (unlikely(__c) && !__warned) {          \
			__warned = true;                   \
			__warn(__FILE__, __LINE__, #cond); \
		}                                          \
		__c;                                       \
	})

#define BUG_ON(cond)                                                           \
	do {                                                                   \
		if (unlikely(cond))                                            \
			panic(                                                 \
			    "BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__); \
	} while (0)

/* A requirement of the caller, checked (not evaluated at all without
 * CONFIG_DEBUG_ASSERT: @cond must have no side effect). */
#define DEBUG_ASSERT(cond)                                                \
	do {                                                              \
		if (IS_ENABLED(CONFIG_DEBUG_ASSERT) && unlikely(!(cond))) \
			panic("assertion %s failed at %s:%d",             \
			      #cond,                                      \
			      __FILE__,                                   \
			      __LINE__);                                  \
	} while (0)

/*
 * kernel/init.h: declared initialisation order.
 *
 * INIT_HOOK(name, fn, LEVEL) registers fn to run once on the boot hart, in
 * level order (then link order within a level), before the first task.
 * A hook returns 0 or a negative errno; a failure is reported and boot goes
 * on, so a missing device does not stop the kernel.
 */
#pragma once

#include <kernel/compiler.h>

#define INIT_LEVEL_EARLY  1 /* console, boot arguments */
#define INIT_LEVEL_ARCH	  2 /* traps, interrupt controller */
#define INIT_LEVEL_MM	  3 /* page allocator, kmalloc, page tables */
#define INIT_LEVEL_SCHED  4 /* scheduler, timers, other harts */
#define INIT_LEVEL_DEVICE 5 /* drivers */
#define INIT_LEVEL_FS	  6 /* filesystems, root mount */
#define INIT_LEVEL_LATE	  7

struct init_hook {
	const char *name;
	int (*fn)(void);
};

#define __INIT_HOOK(hname, hfn, level)                                      \
	static const struct init_hook __init_hook_##hname __used __section( \
	    ".init_hooks." #level) = { #hname, hfn }
/* The extra step expands the level macro to its number. */
#define INIT_HOOK(hname, hfn, level) __INIT_HOOK(hname, hfn, level)

void init_run_hooks(void);

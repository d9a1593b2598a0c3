/*
 * tests/fuzz/include/kernel/init.h: INIT_HOOK for the host build. The
 * kernel's hooks sit in sections named by level (kernel/init.h), which a
 * host program cannot enumerate; here every hook goes into one section
 * whose name is a C identifier, so the linker provides its bounds
 * (__start_whole_init_hooks, __stop_whole_init_hooks) and the fuzz target
 * runs the filesystem hooks (ext2's registration) itself.
 */
#pragma once

#include <kernel/compiler.h>

#define INIT_LEVEL_EARLY  1
#define INIT_LEVEL_ARCH	  2
#define INIT_LEVEL_MM	  3
#define INIT_LEVEL_SCHED  4
#define INIT_LEVEL_DEVICE 5
#define INIT_LEVEL_FS	  6
#define INIT_LEVEL_LATE	  7

struct init_hook {
	const char *name;
	int (*fn)(void);
};

#define INIT_HOOK(hname, hfn, level)                                        \
	static const struct init_hook __init_hook_##hname __used __section( \
	    "whole_init_hooks") = { #hname, hfn }

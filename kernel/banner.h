/*
 * kernel/banner.h: the boot banner (kernel/banner.c).
 */
#pragma once

/* Print the version, harts, memory, disks, root and mode. Context: the
 * boot hart, after the init hooks (the root is mounted). */
void boot_banner(void);

/*
 * tests/fuzz/include/sys/statfs.h: Linux's own struct statfs, as the
 * kernel's kernel/libc/include/sys/statfs.h has it (glibc's differs in
 * the name of f_fsid's member).
 */
#pragma once

#include <asm/statfs.h>

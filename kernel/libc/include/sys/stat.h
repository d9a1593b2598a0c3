/*
 * sys/stat.h: newlib's, plus what it declares only for other targets:
 * lstat(2) and the special tv_nsec values of utimensat(2) and futimens(2),
 * with Linux's numbers. The calls are fs/syscalls_path.c's.
 */
#pragma once

#include_next <sys/stat.h>

#ifndef UTIME_NOW
#define UTIME_NOW  ((1L << 30) - 1L)
#define UTIME_OMIT ((1L << 30) - 2L)
#endif

int lstat(const char *__restrict path, struct stat *__restrict st);

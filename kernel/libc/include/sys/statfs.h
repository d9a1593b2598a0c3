/*
 * sys/statfs.h: statfs(2) and fstatfs(2), which newlib lacks.
 *
 * struct statfs is Linux's own (asm-generic/statfs.h from the UAPI
 * headers); the calls are fs/syscalls_path.c's.
 */
#pragma once

#include <asm/statfs.h>

int statfs(const char *path, struct statfs *buf);
int fstatfs(int fd, struct statfs *buf);

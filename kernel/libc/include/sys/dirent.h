/*
 * sys/dirent.h: directory streams for newlib's <dirent.h>.
 *
 * newlib leaves this header to the system (its generic one is an #error);
 * whole's opendir/readdir/closedir live in fs/syscalls.c. d_type takes
 * Linux's DT_* values, which filesystems pass to the VFS's readdir actor.
 */
#pragma once

#include <sys/types.h>

#define DT_UNKNOWN 0
#define DT_FIFO	   1
#define DT_CHR	   2
#define DT_DIR	   4
#define DT_BLK	   6
#define DT_REG	   8
#define DT_LNK	   10
#define DT_SOCK	   12

struct dirent {
	ino_t d_ino;
	off_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[256];
};

typedef struct {
	int dd_fd;	      /* the directory's descriptor */
	struct dirent dd_ent; /* what readdir returned last */
} DIR;

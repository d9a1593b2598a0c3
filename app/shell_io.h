/*
 * app/shell_io.h: what the `io` command's subcommand files share
 * (app/shell_io.c: the command, its table and the file calls;
 * app/shell_mmap.c: the memory-mapping subcommands).
 */
#pragma once

#include <kernel/compiler.h>

#define IO_MAX_MAPS 8

/* One mmap subcommand's mapping: file bytes [off, off + len) at addr. */
struct io_map {
	uint8_t *addr;
	long long off, len;
	int prot;
};

struct io_file {
	int fd;
	const char *path;
	int flags;
	long blocksize;
	struct io_map maps[IO_MAX_MAPS]; /* app/shell_mmap.c */
	int nmaps, cur_map;
};

struct io_cmd {
	const char *name;
	int (*fn)(struct io_file *io, int argc, char **argv);
	int min_args, max_args; /* after options */
	const char *usage;
};

/* xfs_io's cvtnum. Return: the value, or -1 if @s is not a size. */
long long io_cvtnum(const struct io_file *io, const char *s);
/* "what: strerror(errno)" */
void io_perror(const char *what);
/* xfs_io's dump_buffer: 16 bytes a line from offset @off. */
void io_dump(long long off, const uint8_t *buf, long n);

/* app/shell_mmap.c */
int io_mmap(struct io_file *io, int argc, char **argv);
int io_munmap(struct io_file *io, int argc, char **argv);
int io_mread(struct io_file *io, int argc, char **argv);
int io_mwrite(struct io_file *io, int argc, char **argv);
int io_msync(struct io_file *io, int argc, char **argv);
int io_madvise(struct io_file *io, int argc, char **argv);
/* app/shell_io_file.c */
int io_truncate(struct io_file *io, int argc, char **argv);
int io_fsync(struct io_file *io, int argc, char **argv);
int io_fadvise(struct io_file *io, int argc, char **argv);
int io_readahead(struct io_file *io, int argc, char **argv);
int io_stat(struct io_file *io, int argc, char **argv);
int io_fallocate(struct io_file *io, int argc, char **argv);
int io_seek(struct io_file *io, int argc, char **argv);
/* app/shell_io_range.c */
int io_copy_range(struct io_file *io, int argc, char **argv);
int io_swapext(struct io_file *io, int argc, char **argv);
/* Unmap what the subcommands left mapped (the end of an `io` run). */
void io_unmap_all(struct io_file *io);

/*
 * app/shell_io.c: `io`, xfs_io's command syntax on one file.
 *
 *   io [-f] [-r] [-t] -c "SUBCMD ARGS" [-c ...] FILE
 *     -f create, -r read-only, -t truncate on open; options may come in
 *     any order and after FILE (as with xfs_io's getopt), "--" ends them
 *     and exactly one FILE is taken. A -c string is split at blanks only,
 *     as xfs_io splits it, with no limit on its words.
 *   pwrite [-S 0xNN] [-b BSIZE] [-q] OFF LEN   (pattern 0xcd by default)
 *   pread [-v] [-b BSIZE] [-q] [-N] OFF LEN    (-N: preadv2 RWF_NOWAIT)
 *   truncate SIZE     fsync     fdatasync     stat
 *   fadvise [-d|-n|-r|-s|-w] [OFF LEN]         (no flag: normal)
 *   readahead OFF LEN
 *   fpunch OFF LEN    fzero [-k] OFF LEN    fcollapse OFF LEN
 *   finsert OFF LEN   falloc [-k] OFF LEN   (fallocate(2)'s modes)
 *   seek -d|-h OFF    (lseek SEEK_DATA / SEEK_HOLE)
 *   mmap, munmap, mread, mwrite, msync, madvise (app/shell_mmap.c)
 *
 * Sizes take xfs_io's suffixes (k, m, g, t, p, e; b = block, s = 512).
 * The output lines are xfs_io's, so a run can be compared with xfs_io's on
 * Linux (the timing line aside). Subcommands are rows of io_cmds[]: a new
 * one (fpunch, fzero, ...) is a function and a row. Here: the command
 * line, the table, pread and pwrite and the shared formatting; the other
 * file subcommands are app/shell_io_file.c, the mapping ones
 * app/shell_mmap.c, the two-file ones app/shell_io_range.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/falloc.h>
#include <kernel/shell.h>
#include <app/shell_parse.h>
#include <kernel/time.h>
#include <fs/internal.h>
#include <app/shell_io.h>

#define IO_DEFAULT_BSIZE 4096

long long io_cvtnum(const struct io_file *io, const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);
	int shift;

	if (end == s || v < 0)
		return -1;
	if (!*end)
		return v;
	if (end[1])
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 'b': return v * io->blocksize;
	case 's': return v * 512;
	case 'k': shift = 10; break;
	case 'm': shift = 20; break;
	case 'g': shift = 30; break;
	case 't': shift = 40; break;
	case 'p': shift = 50; break;
	case 'e': shift = 60; break;
	default: return -1;
	}
	return v << shift;
}

/* xfs_io's cvtstr: "5 KiB", "1.465 KiB", "20.000000 bytes". */
static void io_cvtstr(double v, char *s, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB",
					     "TiB", "PiB", "EiB" };
	bool precise = v * 1000 == (double)(long long)v * 1000;
	double scale = 1ULL << 60;

	for (int i = ARRAY_SIZE(units) - 1; i >= 0; i--, scale /= 1024) {
		if (v >= scale) {
			snprintf(s,
				 len,
				 precise ? "%.0f %s" : "%.3f %s",
				 v / scale,
				 units[i]);
			return;
		}
	}
	snprintf(s, len, "%f bytes", v);
}

static void io_report(long long total, int ops, uint64_t ns)
{
	double secs = (double)ns / NSEC_PER_SEC;
	char s1[64], s2[64];

	io_cvtstr((double)total, s1, sizeof(s1));
	io_cvtstr(total / secs, s2, sizeof(s2));
	printf("%s, %d ops; %.4f sec (%s/sec and %.4f ops/sec)\n",
	       s1,
	       ops,
	       secs,
	       s2,
	       ops / secs);
}

void io_perror(const char *what)
{
	printf("%s: %s\n", what, vfs_strerror(errno));
}

/* 16 bytes a line, alphanumerics shown. */
void io_dump(long long off, const uint8_t *buf, long n)
{
	for (long i = 0; i < n; i += 16) {
		long j, end = MIN(n, i + 16);

		printf("%08llx:  ", off + i);
		for (j = i; j < end; j++)
			printf("%02x ", buf[j]);
		printf(" ");
		for (j = i; j < end; j++)
			putchar(isalnum(buf[j]) ? buf[j] : '.');
		printf("\n");
	}
}

struct rw_opts {
	long long off, len, bsize;
	unsigned int seed;
	bool verbose, quiet, nowait;
};

/* Options then OFF LEN. Return: 0, or 1 after saying what is wrong. */
static int io_rw_args(
    struct io_file *io, int argc, char **argv, struct rw_opts *o, bool write)
{
	int i;

	o->bsize = IO_DEFAULT_BSIZE;
	o->seed = 0xcd;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char opt = argv[i][1];

		if (opt == 'v' && !write)
			o->verbose = true;
		else if (opt == 'N' && !write)
			o->nowait = true;
		else if (opt == 'q')
			o->quiet = true;
		else if ((opt == 'S' && write) || opt == 'b') {
			if (++i == argc)
				goto usage;
			if (opt == 'S')
				o->seed = strtoul(argv[i], NULL, 0);
			else if ((o->bsize = io_cvtnum(io, argv[i])) <= 0)
				goto usage;
		} else {
			goto usage;
		}
	}
	if (argc - i != 2) {
		printf("bad argument count %d to %s, expected 2 arguments\n",
		       argc - i,
		       argv[0]);
		return 1;
	}
	o->off = io_cvtnum(io, argv[i]);
	if (o->off < 0) {
		printf("non-numeric offset argument -- %s\n", argv[i]);
		return 1;
	}
	o->len = io_cvtnum(io, argv[i + 1]);
	if (o->len < 0) {
		printf("non-numeric length argument -- %s\n", argv[i + 1]);
		return 1;
	}
	return 0;
usage:
	printf("%s: bad option\n", argv[0]);
	return 1;
}

static int io_pwrite(struct io_file *io, int argc, char **argv)
{
	struct rw_opts o = { 0 };
	long long done = 0;
	uint64_t start;
	uint8_t *buf;
	int ops = 0, status = 0;

	if (io_rw_args(io, argc, argv, &o, true))
		return 1;
	buf = malloc(o.bsize);
	if (!buf)
		return 1;
	memset(buf, o.seed, o.bsize);
	start = time_ns();
	while (done < o.len) {
		ssize_t n = pwrite(
		    io->fd, buf, MIN(o.bsize, o.len - done), o.off + done);

		if (n < 0) {
			io_perror("pwrite");
			status = 1;
			break;
		}
		ops++;
		done += n;
		if (!n)
			break;
	}
	free(buf);
	if (status || o.quiet)
		return status;
	printf("wrote %lld/%lld bytes at offset %lld\n", done, o.len, o.off);
	io_report(done, ops, time_ns() - start);
	return 0;
}

static int io_pread(struct io_file *io, int argc, char **argv)
{
	struct rw_opts o = { 0 };
	long long done = 0;
	uint64_t start;
	uint8_t *buf;
	int ops = 0, status = 0;

	if (io_rw_args(io, argc, argv, &o, false))
		return 1;
	buf = malloc(o.bsize);
	if (!buf)
		return 1;
	start = time_ns();
	while (done < o.len) {
		struct iovec iov = { buf, MIN(o.bsize, o.len - done) };
		ssize_t n =
		    o.nowait
			? preadv2(io->fd, &iov, 1, o.off + done, RWF_NOWAIT)
			: pread(io->fd, buf, iov.iov_len, o.off + done);

		if (n < 0) {
			io_perror("pread");
			status = 1;
			break;
		}
		if (!n)
			break;
		if (o.verbose)
			io_dump(o.off + done, buf, n);
		ops++;
		done += n;
	}
	free(buf);
	if (status || o.quiet)
		return status;
	printf("read %lld/%lld bytes at offset %lld\n", done, o.len, o.off);
	io_report(done, ops, time_ns() - start);
	return 0;
}

static const struct io_cmd io_cmds[] = {
	{ "pwrite", io_pwrite, 2, 8, "pwrite [-S seed] [-b bs] [-q] off len" },
	{ "pread", io_pread, 2, 9, "pread [-v] [-b bs] [-q] [-N] off len" },
	{ "fadvise", io_fadvise, 0, 3, "fadvise [-d|-n|-r|-s|-w] [off len]" },
	{ "readahead", io_readahead, 0, 2, "readahead [off len]" },
	{ "truncate", io_truncate, 1, 1, "truncate size" },
	{ "fsync", io_fsync, 0, 0, "fsync" },
	{ "fdatasync", io_fsync, 0, 0, "fdatasync" },
	{ "stat", io_stat, 0, 0, "stat" },
	{ "falloc", io_fallocate, 2, 3, "falloc [-k] off len" },
	{ "fpunch", io_fallocate, 2, 2, "fpunch off len" },
	{ "fzero", io_fallocate, 2, 3, "fzero [-k] off len" },
	{ "fcollapse", io_fallocate, 2, 2, "fcollapse off len" },
	{ "finsert", io_fallocate, 2, 2, "finsert off len" },
	{ "seek", io_seek, 2, 2, "seek -d | -h off" },
	{ "mmap", io_mmap, 0, 8, "mmap [N] | [-rwx] [-s size] [off len]" },
	{ "munmap", io_munmap, 0, 0, "munmap" },
	{ "mread", io_mread, 0, 4, "mread [-f|-v] [-r] [off len]" },
	{ "mwrite", io_mwrite, 0, 5, "mwrite [-r] [-S seed] [off len]" },
	{ "msync", io_msync, 0, 4, "msync [-ais] [off len]" },
	{ "madvise", io_madvise, 0, 3, "madvise [-drsw] [off len]" },
	{ "copy_range",
	  io_copy_range,
	  1,
	  7,
	  "copy_range [-s src_off] [-d dst_off] [-l len] src_file" },
	{ "swapext", io_swapext, 1, 1, "swapext donor_file" },
};

static const struct io_cmd *io_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(io_cmds); i++)
		if (!strcmp(io_cmds[i].name, name))
			return &io_cmds[i];
	return NULL;
}

/* Run one -c string, split at blanks as xfs_io splits it (no quoting). */
static int io_run(struct io_file *io, const char *line)
{
	struct shell_words w;
	const struct io_cmd *c;
	const char *why;
	char **argv;
	int argc, pos = 0, status;

	if (shell_parse(line, 0, &w, &why)) {
		printf("io: %s\n", why);
		return 1;
	}
	argv = shell_words_next(&w, &pos, &argc);
	if (!argc) {
		status = 0;
	} else if (!(c = io_find(argv[0]))) {
		printf("command \"%s\" not found\n", argv[0]);
		status = 1;
	} else if (argc - 1 < c->min_args || argc - 1 > c->max_args) {
		printf("bad argument count %d to %s, expected %d arguments\n"
		       "usage: %s\n",
		       argc - 1,
		       c->name,
		       c->min_args,
		       c->usage);
		status = 1;
	} else {
		status = c->fn(io, argc, argv);
	}
	shell_words_free(&w);
	return status;
}

/*
 * Options anywhere, as xfs_io's getopt takes them; exactly one FILE; "--"
 * ends the options. Return: 0, or 2 after saying what is wrong.
 */
static int io_args(struct io_file *io, int argc, char **argv)
{
	bool options = true;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (options && !strcmp(a, "--")) {
			options = false;
		} else if (options && a[0] == '-' && a[1]) {
			if (!strcmp(a, "-f")) {
				io->flags |= O_CREAT;
			} else if (!strcmp(a, "-r")) {
				io->flags = (io->flags & ~O_ACCMODE) | O_RDONLY;
			} else if (!strcmp(a, "-t")) {
				io->flags |= O_TRUNC;
			} else if (!strcmp(a, "-c")) {
				if (++i == argc) {
					printf("io: -c needs a command\n");
					return shell_usage("io");
				}
			} else {
				printf("io: unknown option %s\n", a);
				return shell_usage("io");
			}
		} else if (io->path) {
			printf(
			    "io: one FILE, not both %s and %s\n", io->path, a);
			return shell_usage("io");
		} else {
			io->path = a;
		}
	}
	if (!io->path) {
		printf("io: no FILE\n");
		return shell_usage("io");
	}
	return 0;
}

static int cmd_io(int argc, char **argv)
{
	struct io_file io = { .flags = O_RDWR, .blocksize = 4096 };
	int i, status;
	struct stat st;

	status = io_args(&io, argc, argv);
	if (status)
		return status;
	io.fd = open(io.path, io.flags, 0644);
	if (io.fd < 0) {
		printf("%s: %s\n", io.path, vfs_strerror(errno));
		return 1;
	}
	if (!fstat(io.fd, &st))
		io.blocksize = st.st_blksize;
	/* io_args checked that each -c has its string. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-c"))
			status |= io_run(&io, argv[++i]);
	io_unmap_all(&io);
	close(io.fd);
	return status;
}
SHELL_COMMAND(
    io,
    cmd_io,
    "io [-f] [-r] [-t] -c \"SUBCMD\" ... FILE",
    "xfs_io-style file commands (-f makes FILE if it is missing, -r opens "
    "it read-only, -t truncates it): pwrite, pread, truncate, fsync, stat, "
    "fadvise, readahead, falloc, fpunch, fzero, fcollapse, finsert, seek, "
    "mmap, mread, mwrite, msync, munmap, madvise, copy_range, swapext");

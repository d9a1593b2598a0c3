/*
 * app/shell_io_file.c: io's subcommands on the open file other than the
 * reads, writes and mappings: truncate, fsync/fdatasync, fadvise,
 * readahead, stat, the fallocate family (falloc, fpunch, fzero, fcollapse,
 * finsert) and seek - each in xfs_io's syntax and with its output. The
 * command line, the table and the shared formatting are app/shell_io.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/falloc.h>
#include <fs/internal.h>
#include <app/shell_io.h>

int io_truncate(struct io_file *io, int argc, char **argv)
{
	long long size = io_cvtnum(io, argv[1]);

	(void)argc;
	if (size < 0) {
		printf("non-numeric truncate argument -- %s\n", argv[1]);
		return 1;
	}
	if (ftruncate(io->fd, size)) {
		io_perror("ftruncate");
		return 1;
	}
	return 0;
}

int io_fsync(struct io_file *io, int argc, char **argv)
{
	(void)argc;
	if ((strcmp(argv[0], "fsync") ? fdatasync(io->fd) : fsync(io->fd))) {
		io_perror(argv[0]);
		return 1;
	}
	return 0;
}

/* xfs_io's OFF LEN pair, or the whole file (0 0) when absent. */
static int io_range(struct io_file *io,
		    int argc,
		    char **argv,
		    int i,
		    long long *off,
		    long long *len)
{
	*off = *len = 0;
	if (argc - i != 0 && argc - i != 2) {
		printf("bad argument count %d to %s, expected 0 or 2 "
		       "arguments\n",
		       argc - i,
		       argv[0]);
		return 1;
	}
	if (argc - i == 0)
		return 0;
	*off = io_cvtnum(io, argv[i]);
	*len = io_cvtnum(io, argv[i + 1]);
	if (*off < 0 || *len < 0) {
		printf("non-numeric %s argument -- %s\n",
		       *off < 0 ? "offset" : "length",
		       *off < 0 ? argv[i] : argv[i + 1]);
		return 1;
	}
	return 0;
}

int io_fadvise(struct io_file *io, int argc, char **argv)
{
	static const char flags[] = "nrswd", *f;
	int advice = POSIX_FADV_NORMAL, i = 1, err;
	long long off, len;

	if (i < argc && argv[i][0] == '-') {
		f = argv[i][1] && !argv[i][2] ? strchr(flags, argv[i][1])
					      : NULL;
		if (!f) {
			printf("fadvise: bad option\n");
			return 1;
		}
		advice = (int[]){ POSIX_FADV_NOREUSE,
				  POSIX_FADV_RANDOM,
				  POSIX_FADV_SEQUENTIAL,
				  POSIX_FADV_WILLNEED,
				  POSIX_FADV_DONTNEED }[f - flags];
		i++;
	}
	if (io_range(io, argc, argv, i, &off, &len))
		return 1;
	err = posix_fadvise(io->fd, off, len, advice);
	if (err) {
		printf("fadvise: %s\n", vfs_strerror(err));
		return 1;
	}
	return 0;
}

int io_readahead(struct io_file *io, int argc, char **argv)
{
	long long off, len;

	if (io_range(io, argc, argv, 1, &off, &len))
		return 1;
	if (readahead(io->fd, off, len)) {
		io_perror("readahead");
		return 1;
	}
	return 0;
}

static const char *io_type(mode_t mode)
{
	return S_ISREG(mode)   ? "regular file"
	       : S_ISDIR(mode) ? "directory"
			       : "other";
}

int io_stat(struct io_file *io, int argc, char **argv)
{
	struct stat st;
	int acc = io->flags & O_ACCMODE;

	(void)argc;
	(void)argv;
	if (fstat(io->fd, &st)) {
		io_perror("fstat");
		return 1;
	}
	printf("fd.path = \"%s\"\nfd.flags = non-sync,non-direct,%s\n"
	       "stat.ino = %lu\nstat.type = %s\nstat.size = %lld\n"
	       "stat.blocks = %lld\n",
	       io->path,
	       acc == O_RDONLY ? "read-only" : "read-write",
	       (unsigned long)st.st_ino,
	       io_type(st.st_mode),
	       (long long)st.st_size,
	       (long long)st.st_blocks);
	return 0;
}

/* OFF LEN after the options. Return: 0, or 1 after saying what is
 * wrong. */
static int
io_off_len(struct io_file *io, char **argv, long long *off, long long *len)
{
	*off = io_cvtnum(io, argv[0]);
	if (*off < 0) {
		printf("non-numeric offset argument -- %s\n", argv[0]);
		return 1;
	}
	*len = io_cvtnum(io, argv[1]);
	if (*len < 0) {
		printf("non-numeric length argument -- %s\n", argv[1]);
		return 1;
	}
	return 0;
}

/* The fallocate subcommands: the mode is the row's; -k adds KEEP_SIZE
 * where the row allows it. */
int io_fallocate(struct io_file *io, int argc, char **argv)
{
	static const struct {
		const char *name;
		int mode;
		bool keep_opt;
	} modes[] = {
		{ "falloc", 0, true },
		{ "fpunch", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, false },
		{ "fzero", FALLOC_FL_ZERO_RANGE, true },
		{ "fcollapse", FALLOC_FL_COLLAPSE_RANGE, false },
		{ "finsert", FALLOC_FL_INSERT_RANGE, false },
	};
	long long off, len;
	int mode = 0, i = 1;
	bool keep_opt = false;

	for (size_t k = 0; k < ARRAY_SIZE(modes); k++) {
		if (!strcmp(argv[0], modes[k].name)) {
			mode = modes[k].mode;
			keep_opt = modes[k].keep_opt;
		}
	}
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!keep_opt || strcmp(argv[i], "-k")) {
			printf("%s: invalid option -- '%c'\n",
			       argv[0],
			       argv[i][1]);
			return 1;
		}
		mode |= FALLOC_FL_KEEP_SIZE;
	}
	if (argc - i != 2) {
		printf("bad argument count %d to %s, expected 2 arguments\n",
		       argc - i,
		       argv[0]);
		return 1;
	}
	if (io_off_len(io, argv + i, &off, &len))
		return 1;
	if (fallocate(io->fd, mode, off, len)) {
		io_perror("fallocate");
		return 1;
	}
	return 0;
}

/* xfs_io's seek -d|-h: the next data or hole at or after OFF, "EOF" when
 * there is none (ENXIO). */
int io_seek(struct io_file *io, int argc, char **argv)
{
	int whence = 0;
	long long off;
	off_t res;

	(void)argc;
	if (!strcmp(argv[1], "-d"))
		whence = SEEK_DATA;
	else if (!strcmp(argv[1], "-h"))
		whence = SEEK_HOLE;
	if (!whence) {
		printf("seek: invalid option -- '%s'\n", argv[1] + 1);
		return 1;
	}
	off = io_cvtnum(io, argv[2]);
	if (off < 0) {
		printf("non-numeric offset argument -- %s\n", argv[2]);
		return 1;
	}
	res = lseek(io->fd, off, whence);
	if (res < 0 && errno != ENXIO) {
		io_perror("lseek");
		return 1;
	}
	printf("Whence\tResult\n%s\t", whence == SEEK_DATA ? "DATA" : "HOLE");
	if (res < 0)
		printf("EOF\n");
	else
		printf("%lld\n", (long long)res);
	return 0;
}

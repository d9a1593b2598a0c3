/*
 * app/shell_io_range.c: io's two-file subcommands, in xfs_io's syntax and
 * output:
 *   copy_range [-s src_off] [-d dst_off] [-l len] src_file
 *                   copy_file_range(2) from src_file into the open file;
 *                   without -l the whole source (the copy stops at its EOF)
 *   swapext donor_file
 *                   exchange the open file's contents with donor_file's
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <app/shell_io.h>

int io_copy_range(struct io_file *io, int argc, char **argv)
{
	long long src_off = 0, dst_off = 0, len = -1;
	int i, fd;

	for (i = 1; i + 1 < argc && argv[i][0] == '-' && argv[i][1]; i += 2) {
		long long v = io_cvtnum(io, argv[i + 1]);

		if (v < 0 || argv[i][2] || !strchr("sdl", argv[i][1])) {
			printf("copy_range: bad option or number: %s %s\n",
			       argv[i],
			       argv[i + 1]);
			return 1;
		}
		*(argv[i][1] == 's'   ? &src_off
		  : argv[i][1] == 'd' ? &dst_off
				      : &len) = v;
	}
	if (argc - i != 1) {
		printf("copy_range [-s src_off] [-d dst_off] [-l len] "
		       "src_file\n");
		return 1;
	}
	fd = open(argv[i], O_RDONLY);
	if (fd < 0) {
		printf("%s: %s\n", argv[i], strerror(errno));
		return 1;
	}
	if (len < 0) { /* xfs_io: the source's size, from src_off */
		struct stat st;

		len = fstat(fd, &st) ? 0 : st.st_size;
	}
	while (len > 0) {
		off_t in = src_off, out = dst_off;
		ssize_t n = copy_file_range(fd, &in, io->fd, &out, len, 0);

		if (n < 0) {
			io_perror("copy_range");
			close(fd);
			return 1;
		}
		if (n == 0)
			break;
		src_off = in;
		dst_off = out;
		len -= n;
	}
	close(fd);
	return 0;
}

int io_swapext(struct io_file *io, int argc, char **argv)
{
	int fd = open(argv[1], O_WRONLY), err = 0;

	(void)argc;
	if (fd < 0) {
		printf("%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (swapext(io->fd, fd)) {
		io_perror("swap extents");
		err = 1;
	}
	close(fd);
	return err;
}

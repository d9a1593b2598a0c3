/*
 * app/shell_fs.c: file commands for the shell.
 *
 *   cat FILE...         mkdir DIR...   rmdir DIR...
 *   rm FILE...          mv OLD NEW     stat PATH...   sync
 *   drop_caches         (sync, then drop the clean page cache)
 *   cksum FILE...       (POSIX cksum: "CRC SIZE NAME", byte for byte)
 *
 * They use the POSIX calls like any task; messages name the errno the way
 * glibc's strerror does (newlib's table has other numbers than Linux's).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/shell.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

static const char *const errno_text[] = {
	[EPERM] = "Operation not permitted",
	[ENOENT] = "No such file or directory",
	[EIO] = "Input/output error",
	[ENXIO] = "No such device or address",
	[EBADF] = "Bad file descriptor",
	[EAGAIN] = "Resource temporarily unavailable",
	[ENOMEM] = "Cannot allocate memory",
	[EACCES] = "Permission denied",
	[EBUSY] = "Device or resource busy",
	[EEXIST] = "File exists",
	[EXDEV] = "Invalid cross-device link",
	[ENODEV] = "No such device",
	[ENOTDIR] = "Not a directory",
	[EISDIR] = "Is a directory",
	[EINVAL] = "Invalid argument",
	[EMFILE] = "Too many open files",
	[ENOTTY] = "Inappropriate ioctl for device",
	[EFBIG] = "File too large",
	[ENOSPC] = "No space left on device",
	[ESPIPE] = "Illegal seek",
	[EROFS] = "Read-only file system",
	[EMLINK] = "Too many links",
	[ENAMETOOLONG] = "File name too long",
	[ENOSYS] = "Function not implemented",
	[ENOTEMPTY] = "Directory not empty",
	[ELOOP] = "Too many levels of symbolic links",
	[ERANGE] = "Numerical result out of range",
	[EOVERFLOW] = "Value too large for defined data type",
	[EOPNOTSUPP] = "Operation not supported",
	[EUCLEAN] = "Structure needs cleaning",
};

const char *vfs_strerror(int err)
{
	static char unknown[32];

	if (err > 0 && err < (int)ARRAY_SIZE(errno_text) && errno_text[err])
		return errno_text[err];
	snprintf(unknown, sizeof(unknown), "Unknown error %d", err);
	return unknown;
}

int shell_fs_error(const char *cmd, const char *path)
{
	int err = errno;

	fflush(stdout);
	fprintf(stderr, "%s: %s: %s\n", cmd, path, vfs_strerror(err));
	return 1;
}

void shell_mode_string(mode_t mode, char *s)
{
	static const char rwx[] = "rwxrwxrwx";
	/* setuid, setgid, sticky: shown in the x of user, group, other */
	static const mode_t special[3] = { S_ISUID, S_ISGID, S_ISVTX };

	s[0] = S_ISDIR(mode)	? 'd'
	       : S_ISLNK(mode)	? 'l'
	       : S_ISCHR(mode)	? 'c'
	       : S_ISBLK(mode)	? 'b'
	       : S_ISFIFO(mode) ? 'p'
	       : S_ISSOCK(mode) ? 's'
				: '-';
	for (int i = 0; i < 9; i++)
		s[i + 1] = mode & (0400 >> i) ? rwx[i] : '-';
	for (int k = 0; k < 3; k++) {
		char *x = &s[3 + 3 * k];

		if (mode & special[k])
			*x = *x == 'x' ? (k == 2 ? 't' : 's')
				       : (k == 2 ? 'T' : 'S');
	}
	s[10] = '\0';
}

static int cmd_cat(int argc, char **argv)
{
	char *buf = malloc(4096);
	int status = 0;

	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		ssize_t n;

		if (fd < 0) {
			status = shell_fs_error("cat", argv[i]);
			continue;
		}
		while ((n = read(fd, buf, 4096)) > 0)
			fwrite(buf, 1, n, stdout);
		if (n < 0)
			status = shell_fs_error("cat", argv[i]);
		close(fd);
	}
	fflush(stdout);
	free(buf);
	return status;
}
SHELL_COMMAND(cat, cmd_cat, "cat FILE...", "print files");

/* Apply @fn to each argument; report failures as @cmd. */
static int each_path(int argc, char **argv, int (*fn)(const char *))
{
	int status = 0;

	for (int i = 1; i < argc; i++)
		if (fn(argv[i]))
			status = shell_fs_error(argv[0], argv[i]);
	return status;
}

static int mkdir_0755(const char *path)
{
	return mkdir(path, 0755);
}

static int cmd_mkdir(int argc, char **argv)
{
	return each_path(argc, argv, mkdir_0755);
}
SHELL_COMMAND(mkdir, cmd_mkdir, "mkdir DIR...", "make directories");

static int cmd_rmdir(int argc, char **argv)
{
	return each_path(argc, argv, rmdir);
}
SHELL_COMMAND(rmdir, cmd_rmdir, "rmdir DIR...", "remove empty directories");

static int cmd_rm(int argc, char **argv)
{
	return each_path(argc, argv, unlink);
}
SHELL_COMMAND(rm, cmd_rm, "rm FILE...", "remove files");

static int cmd_mv(int argc, char **argv)
{
	if (argc != 3) {
		printf("usage: mv OLD NEW\n");
		return 2;
	}
	return rename(argv[1], argv[2]) ? shell_fs_error("mv", argv[1]) : 0;
}
SHELL_COMMAND(mv, cmd_mv, "mv OLD NEW", "rename a file or directory");

static const char *file_type(mode_t mode)
{
	return S_ISREG(mode)	? "regular file"
	       : S_ISDIR(mode)	? "directory"
	       : S_ISLNK(mode)	? "symbolic link"
	       : S_ISCHR(mode)	? "character special file"
	       : S_ISBLK(mode)	? "block special file"
	       : S_ISFIFO(mode) ? "fifo"
				: "socket";
}

/* stat's "  File: NAME" line; a link's target after " -> ", as GNU. */
static void stat_name(const char *path, const struct stat *st)
{
	char target[PATH_MAX_LEN];
	long n = S_ISLNK(st->st_mode)
		     ? readlink(path, target, sizeof(target) - 1)
		     : -1;

	if (n >= 0) {
		target[n] = '\0';
		printf("  File: %s -> %s\n", path, target);
	} else {
		printf("  File: %s\n", path);
	}
}

/* Like GNU stat: the path itself, a symbolic link not followed. */
static int cmd_stat(int argc, char **argv)
{
	struct stat st;
	char mode[11];
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (lstat(argv[i], &st)) {
			status = shell_fs_error("stat", argv[i]);
			continue;
		}
		shell_mode_string(st.st_mode, mode);
		stat_name(argv[i], &st);
		printf("  Size: %lld\tBlocks: %lld\tIO Block: %ld\t"
		       "%s\nInode: %lu\tLinks: %u\n"
		       "Access: (%04o/%s)  Uid: %u  Gid: %u\n",
		       (long long)st.st_size,
		       (long long)st.st_blocks,
		       (long)st.st_blksize,
		       file_type(st.st_mode),
		       (unsigned long)st.st_ino,
		       (unsigned int)st.st_nlink,
		       (unsigned int)(st.st_mode & 07777),
		       mode,
		       (unsigned int)st.st_uid,
		       (unsigned int)st.st_gid);
	}
	return status;
}
SHELL_COMMAND(stat, cmd_stat, "stat PATH...", "show inode attributes");

/* sync: everything, errors of this call only. sync -f FILE: syncfs(2),
 * which also reports writeback errors met since FILE was opened (here:
 * just now, so errors nobody was told of yet), as coreutils' sync -f. */
static int cmd_sync(int argc, char **argv)
{
	int fd, err;

	if (argc == 1)
		return vfs_sync() ? 1 : 0;
	if (argc != 3 || strcmp(argv[1], "-f"))
		return shell_usage(argv[0]);
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return shell_fs_error(argv[0], argv[2]);
	err = syncfs(fd) ? errno : 0;
	close(fd);
	if (err) {
		errno = err;
		return shell_fs_error(argv[0], argv[2]);
	}
	return 0;
}
SHELL_COMMAND(sync, cmd_sync, "sync [-f FILE]", "write cached data to disk");

static int cmd_drop_caches(int argc, char **argv)
{
	long n;

	if (argc > 1)
		return shell_usage(argv[0]);
	n = vfs_drop_caches();
	if (n < 0) {
		printf("drop_caches: %s\n", vfs_strerror((int)-n));
		return 1;
	}
	printf("dropped %ld pages\n", n);
	return 0;
}
SHELL_COMMAND(drop_caches,
	      cmd_drop_caches,
	      "drop_caches",
	      "write back, then drop clean cached file pages");

/* POSIX cksum: CRC-32 (polynomial 0x04c11db7, MSB first) of the data,
 * then of the length in as few bytes as it takes, low byte first. */
static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i << 24;

			for (int k = 0; k < 8; k++)
				c = c & 0x80000000u ? (c << 1) ^ 0x04c11db7u
						    : c << 1;
			table[i] = c;
		}
	while (n--)
		crc = (crc << 8) ^ table[(crc >> 24) ^ *p++];
	return crc;
}

int cksum_fd(int fd, uint32_t *crcp, off_t *sizep)
{
	uint8_t *buf = malloc(4096);
	uint32_t crc = 0;
	off_t size = 0;
	ssize_t n;

	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	while ((n = read(fd, buf, 4096)) > 0) {
		crc = crc_update(crc, buf, n);
		size += n;
	}
	free(buf);
	if (n < 0)
		return -1;
	for (off_t len = size; len; len >>= 8) {
		uint8_t b = len & 0xff;

		crc = crc_update(crc, &b, 1);
	}
	*crcp = ~crc;
	*sizep = size;
	return 0;
}

int cksum_line(const char *path, char *line, size_t len)
{
	int fd = open(path, O_RDONLY), ret;
	uint32_t crc;
	off_t size;

	if (fd < 0)
		return -1;
	ret = cksum_fd(fd, &crc, &size);
	close(fd);
	if (!ret)
		snprintf(line,
			 len,
			 "%u %lld %s\n",
			 (unsigned int)crc,
			 (long long)size,
			 path);
	return ret;
}

static int cmd_cksum(int argc, char **argv)
{
	char line[PATH_MAX_LEN + 40];
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (cksum_line(argv[i], line, sizeof(line)))
			status = shell_fs_error("cksum", argv[i]);
		else
			fputs(line, stdout);
	}
	return status;
}
SHELL_COMMAND(cksum,
	      cmd_cksum,
	      "cksum FILE...",
	      "POSIX checksum, size and name of files");

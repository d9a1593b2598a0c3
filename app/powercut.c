/*
 * app/powercut.c: the workload that tools/powercut cuts the power under.
 *
 *   powercut SEED DIR [ROUNDS]
 *
 * Round after round (forever without ROUNDS), in DIR: a file is built
 * under a temporary name by random writes, hole punches and truncates,
 * renamed to its final name, fsynced with its directory (what makes a
 * name durable), and then left alone until KEEP rounds later, when it is
 * dropped; only after both fsyncs returned does the kernel print
 *     powercut: sealed PATH SIZE CKSUM
 * (CKSUM as POSIX cksum prints it), and before the drop
 *     powercut: dropped PATH
 * Around them, scratch files are written, punched and unlinked without fsync,
 * so that the machine dies with dirty pages, half-changed bitmaps and
 * directories in flight. The runner kills QEMU at a random moment, repairs the
 * image with e2fsck -fy and checks that every sealed file has exactly the size
 * and cksum printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <kernel/printk.h>
#include <kernel/shell.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

#define MAX_FILE  (192 << 10)
#define MAX_WRITE (48 << 10)
#define SCRATCH	  4
#define KEEP	  16 /* sealed files kept per DIR: the disk never fills */

/* What makes a name durable, as on Linux: fsync of the directory that
 * holds it (an fsync of the file writes the file and its inode only). */
static int fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY), err;

	if (fd < 0)
		return -1;
	err = fsync(fd);
	close(fd);
	return err;
}

static uint64_t next(uint64_t *s) /* xorshift64 */
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A few random writes, punches and truncates on @fd. */
static int churn(int fd, uint64_t *rnd, char *buf, unsigned int ops)
{
	for (unsigned int i = 0; i < ops; i++) {
		off_t off = next(rnd) % MAX_FILE;
		size_t len = 1 + next(rnd) % MAX_WRITE;
		unsigned int what = next(rnd) % 8;

		if (what < 5) {
			memset(buf, 'A' + next(rnd) % 26, len);
			if (pwrite(fd, buf, len, off) != (ssize_t)len)
				return -1;
		} else if (what < 7) {
			if (fallocate(fd,
				      FALLOC_FL_PUNCH_HOLE |
					  FALLOC_FL_KEEP_SIZE,
				      off,
				      len))
				return -1;
		} else if (ftruncate(fd, off)) {
			return -1;
		}
	}
	return 0;
}

static int seal(const char *dir, unsigned int round, uint64_t *rnd, char *buf)
{
	char tmp[96], path[96];
	uint32_t crc;
	off_t size;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s/t%u", dir, round);
	snprintf(path, sizeof(path), "%s/f%u", dir, round);
	fd = open(tmp, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		return -1;
	if (churn(fd, rnd, buf, 1 + next(rnd) % 8) || rename(tmp, path) ||
	    fsync(fd) || fsync_dir(dir)) {
		close(fd);
		return -1;
	}
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0 || cksum_fd(fd, &crc, &size)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	console_printf("powercut: sealed %s %lld %u\n",
		       path,
		       (long long)size,
		       (unsigned int)crc);
	return 0;
}

/*
 * Only the last KEEP sealed files of a boot stay: however fast the machine,
 * the boots together never fill the disk. The line comes first, so that the
 * runner stops checking a file before the unlink can have touched it; the
 * unlink is not fsynced, and the cut may find it half done.
 */
static int drop(const char *dir, unsigned int round)
{
	char path[96];

	if (round < KEEP)
		return 0;
	snprintf(path, sizeof(path), "%s/f%u", dir, round - KEEP);
	console_printf("powercut: dropped %s\n", path);
	return unlink(path);
}

/* Changes nobody waits for: the cut finds them half done. */
static int
scribble(const char *dir, unsigned int round, uint64_t *rnd, char *buf)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "%s/s%u", dir, round % SCRATCH);
	if (next(rnd) % 3 == 0)
		return unlink(path) && errno != ENOENT ? -1 : 0;
	fd = open(path, O_CREAT | O_RDWR, 0644);
	if (fd < 0)
		return -1;
	if (churn(fd, rnd, buf, 1 + next(rnd) % 4)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int cmd_powercut(int argc, char **argv)
{
	unsigned long rounds = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	uint64_t rnd;
	char *buf;
	int err = 0;

	if (argc < 3 || argc > 4) {
		console_printf("usage: powercut SEED DIR [ROUNDS]\n");
		return 2;
	}
	rnd =
	    strtoull(argv[1], NULL, 0) | 1; /* xorshift needs a nonzero state */
	if ((mkdir(argv[2], 0755) && errno != EEXIST) || fsync_dir(argv[2]) ||
	    fsync_dir("/")) {
		console_printf(
		    "powercut: mkdir %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	buf = kmalloc(MAX_WRITE, GFP_KERNEL);
	if (!buf)
		return 1;
	console_printf("powercut: start %s\n", argv[1]);
	for (unsigned long r = 0; !rounds || r < rounds; r++) {
		if (drop(argv[2], r) || seal(argv[2], r, &rnd, buf) ||
		    scribble(argv[2], r, &rnd, buf)) {
			console_printf(
			    "powercut: round %lu: %s\n", r, strerror(errno));
			err = 1;
			break;
		}
	}
	kfree(buf);
	if (!err)
		console_printf("powercut: done\n");
	return err;
}
SHELL_COMMAND(powercut,
	      cmd_powercut,
	      "powercut SEED DIR [ROUNDS]",
	      "the workload tools/powercut cuts the power under");

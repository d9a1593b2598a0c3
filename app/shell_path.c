/*
 * app/shell_path.c: shell commands for the working directory, links and
 * attributes.
 *
 *   cd [DIR]                  (no DIR: the root; there is no $HOME)
 *   pwd
 *   ln [-s] TARGET LINK       (LINK an existing directory: LINK/basename)
 *   readlink PATH...
 *   df [PATH...]              (1K-blocks, as GNU df; no PATH: "/")
 *   touch FILE...             (create empty, or set both times to now)
 *   chmod MODE PATH...        (MODE octal, or symbolic: [ugoa]*[+-=][rwxst]*
 *                              clauses separated by ',')
 *
 * Commands run in the shell's own task, so cd moves the shell. Failures
 * print "cmd: path: strerror" and give status 1; a usage error gives 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <drivers/block.h>
#include <kernel/shell.h>
#include <fs/internal.h>

static int usage(const char *text)
{
	printf("usage: %s\n", text);
	return 2;
}

static int cmd_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/";

	if (argc > 2)
		return usage("cd [DIR]");
	return chdir(dir) ? shell_fs_error("cd", dir) : 0;
}
SHELL_COMMAND(cd, cmd_cd, "cd [DIR]", "change the working directory");

static int cmd_pwd(int argc, char **argv)
{
	char *buf = malloc(PATH_MAX_LEN);
	int status = 0;

	(void)argv;
	if (argc > 1) {
		free(buf);
		return usage("pwd");
	}
	if (!buf || !getcwd(buf, PATH_MAX_LEN))
		status = shell_fs_error("pwd", ".");
	else
		printf("%s\n", buf);
	free(buf);
	return status;
}
SHELL_COMMAND(pwd, cmd_pwd, "pwd", "print the working directory");

static int cmd_ln(int argc, char **argv)
{
	bool soft = argc > 1 && !strcmp(argv[1], "-s");
	const char *target, *name, *base;
	char *path = NULL;
	struct stat st;
	int err;

	if (argc != (soft ? 4 : 3))
		return usage("ln [-s] TARGET LINK");
	target = argv[soft ? 2 : 1];
	name = argv[soft ? 3 : 2];
	/* into an existing directory, under the target's last name */
	if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) {
		base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
		path = malloc(PATH_MAX_LEN);
		snprintf(path, PATH_MAX_LEN, "%s/%s", name, base);
		name = path;
	}
	err = soft ? symlink(target, name) : link(target, name);
	err = err ? shell_fs_error("ln", name) : 0;
	free(path);
	return err;
}
SHELL_COMMAND(ln,
	      cmd_ln,
	      "ln [-s] TARGET LINK",
	      "make a hard link, or a symbolic link with -s");

static int cmd_readlink(int argc, char **argv)
{
	char *buf = malloc(PATH_MAX_LEN);
	int status = 0;
	long n;

	if (argc < 2) {
		free(buf);
		return usage("readlink PATH...");
	}
	for (int i = 1; i < argc; i++) {
		n = readlink(argv[i], buf, PATH_MAX_LEN - 1);
		if (n < 0) {
			status = shell_fs_error("readlink", argv[i]);
			continue;
		}
		buf[n] = '\0';
		printf("%s\n", buf);
	}
	free(buf);
	return status;
}
SHELL_COMMAND(readlink,
	      cmd_readlink,
	      "readlink PATH...",
	      "print symbolic links' targets");

static void df_line(const char *name, const struct statfs *sf)
{
	unsigned long long k = sf->f_frsize / 1024;
	unsigned long long size = sf->f_blocks * k, avail = sf->f_bavail * k;
	unsigned long long used = (sf->f_blocks - sf->f_bfree) * k;
	/* GNU df: used / (used + available), rounded up */
	unsigned long long pct =
	    used + avail ? (used * 100 + used + avail - 1) / (used + avail) : 0;

	printf("%-14s %9llu %9llu %9llu %3llu%% /\n",
	       name,
	       size,
	       used,
	       avail,
	       pct);
}

static int cmd_df(int argc, char **argv)
{
	struct super_block *sb = vfs_root_sb();
	const char *name = sb && sb->s_bdev ? sb->s_bdev->name : "none";
	struct statfs sf;
	int status = 0;

	printf(
	    "Filesystem     1K-blocks      Used Available Use%% Mounted on\n");
	for (int i = 1; i < argc || i == 1; i++) {
		const char *path = argc > 1 ? argv[i] : "/";

		if (statfs(path, &sf))
			status = shell_fs_error("df", path);
		else
			df_line(name, &sf);
	}
	return status;
}
SHELL_COMMAND(df, cmd_df, "df [PATH...]", "space used and free on the root");

static int touch_one(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY, 0644);

	if (fd < 0 && errno != EISDIR)
		return -1;
	if (fd >= 0) {
		int ret = futimens(fd, NULL);

		close(fd);
		return ret;
	}
	return utimensat(AT_FDCWD, path, NULL, 0);
}

static int cmd_touch(int argc, char **argv)
{
	int status = 0;

	if (argc < 2)
		return usage("touch FILE...");
	for (int i = 1; i < argc; i++)
		if (touch_one(argv[i]))
			status = shell_fs_error("touch", argv[i]);
	return status;
}
SHELL_COMMAND(touch,
	      cmd_touch,
	      "touch FILE...",
	      "make empty files, or set their times to now");

/* What the letters of a symbolic clause name, within the "who" mask. */
static mode_t perm_bits(char c, mode_t old, mode_t cur)
{
	switch (c) {
	case 'r': return 0444;
	case 'w': return 0222;
	case 'x': return 0111;
	case 'X': return S_ISDIR(old) || (cur & 0111) ? 0111 : 0;
	case 's': return S_ISUID | S_ISGID;
	default: return S_ISVTX; /* 't' */
	}
}

/* One clause: [ugoa]*([+-=][rwxXst]*)+ at *@spec, applied to *@mode. */
static int chmod_clause(const char **spec, mode_t old, mode_t *mode)
{
	const char *s = *spec;
	mode_t who = 0, bits;
	char op;

	for (; *s && strchr("ugoa", *s); s++)
		who |= *s == 'u'   ? S_ISUID | 0700
		       : *s == 'g' ? S_ISGID | 0070
		       : *s == 'o' ? S_ISVTX | 0007
				   : 07777;
	/* no "who": all (the umask, which chmod(1) would apply, is 0) */
	who = who ? who : 07777;
	if (!*s || !strchr("+-=", *s))
		return -1;
	while (*s && strchr("+-=", *s)) {
		op = *s++;
		bits = 0;
		for (; *s && strchr("rwxXst", *s); s++)
			bits |= perm_bits(*s, old, *mode);
		bits &= who;
		if (op == '+')
			*mode |= bits;
		else if (op == '-')
			*mode &= ~bits;
		else
			*mode = (*mode & ~who) | bits;
	}
	*spec = s;
	return 0;
}

/* @spec applied to @old's permissions: octal (at most 07777), or
 * symbolic clauses separated by ','. Return: 0, or -1 if malformed. */
static int chmod_parse(const char *spec, mode_t old, mode_t *out)
{
	mode_t mode = old & 07777;
	char *end;

	if (*spec >= '0' && *spec <= '7') {
		unsigned long v = strtoul(spec, &end, 8);

		if (*end || v > 07777)
			return -1;
		*out = v;
		return 0;
	}
	do {
		if (chmod_clause(&spec, old, &mode))
			return -1;
	} while (*spec++ == ',');
	if (spec[-1])
		return -1;
	*out = mode;
	return 0;
}

static int cmd_chmod(int argc, char **argv)
{
	struct stat st;
	mode_t mode;
	int status = 0;

	if (argc < 3)
		return usage("chmod MODE PATH...");
	if (chmod_parse(argv[1], 0, &mode)) {
		fprintf(stderr, "chmod: invalid mode: '%s'\n", argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		if (stat(argv[i], &st) ||
		    chmod_parse(argv[1], st.st_mode, &mode) ||
		    chmod(argv[i], mode))
			status = shell_fs_error("chmod", argv[i]);
	}
	return status;
}
SHELL_COMMAND(chmod,
	      cmd_chmod,
	      "chmod MODE PATH...",
	      "change permissions (octal, or u+x,go-w ...)");

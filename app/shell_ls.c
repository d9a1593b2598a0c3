/*
 * app/shell_ls.c: the shell's ls.
 *
 *   ls [-l] [PATH...]    (no PATH: the working directory)
 *
 * ls -l prints what GNU ls -ln prints, in the C locale and UTC: "total"
 * (1 KiB blocks) before a directory's entries, then per entry the mode
 * (setuid, setgid and sticky bits included), links, uid, gid and size in
 * columns as wide as the widest value of the listing, the modification
 * time ("Mon dd HH:MM" within the last six months, else "Mon dd  YYYY")
 * and the name, with " -> TARGET" after a symbolic link. A symbolic link
 * named on the command line is listed itself with -l, and followed to its
 * directory without (as GNU ls does).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/shell.h>
#include <fs/internal.h>

#define SIX_MONTHS (31556952 / 2) /* GNU ls: half a Gregorian year */

struct ls_entry {
	char *name;
	struct stat st;
	char *target; /* a symbolic link's, for -l */
	bool listed;  /* lstat worked */
};

struct ls_widths {
	int links, uid, gid, size;
};

static int width_of(unsigned long long v)
{
	int w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

static void widths_add(struct ls_widths *w, const struct stat *st)
{
	w->links = MAX(w->links, width_of(st->st_nlink));
	w->uid = MAX(w->uid, width_of(st->st_uid));
	w->gid = MAX(w->gid, width_of(st->st_gid));
	w->size = MAX(w->size, width_of(st->st_size));
}

static void ls_date(time_t t, char *buf, size_t len)
{
	time_t now = current_time().tv_sec;
	bool recent = t > now - SIX_MONTHS && t <= now;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, recent ? "%b %e %H:%M" : "%b %e  %Y", &tm);
}

static void ls_long(const struct ls_entry *e, const struct ls_widths *w)
{
	char mode[11], date[24];

	shell_mode_string(e->st.st_mode, mode);
	ls_date(e->st.st_mtim.tv_sec, date, sizeof(date));
	printf("%s %*u %*u %*u %*lld %s %s",
	       mode,
	       w->links,
	       (unsigned int)e->st.st_nlink,
	       w->uid,
	       (unsigned int)e->st.st_uid,
	       w->gid,
	       (unsigned int)e->st.st_gid,
	       w->size,
	       (long long)e->st.st_size,
	       date,
	       e->name);
	if (e->target)
		printf(" -> %s", e->target);
	putchar('\n');
}

/* lstat @path into @e (named @name), and its target if it is a link. */
static int ls_fill(struct ls_entry *e, const char *path, const char *name)
{
	char buf[PATH_MAX_LEN];
	long n;

	e->name = strdup(name);
	e->target = NULL;
	e->listed = false;
	if (lstat(path, &e->st))
		return -1;
	if (S_ISLNK(e->st.st_mode)) {
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n < 0)
			return -1;
		buf[n] = '\0';
		e->target = strdup(buf);
	}
	e->listed = true;
	return 0;
}

static void ls_free(struct ls_entry *e, int n)
{
	for (int i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].target);
	}
	free(e);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in @path but "." and "..", sorted. Return: count or -1 (errno). */
static int read_names(const char *path, char ***out)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	return n;
}

/* The long listing of @names in @path. */
static int ls_dir_long(const char *path, char **names, int n)
{
	struct ls_entry *e = calloc(n ? n : 1, sizeof(*e));
	struct ls_widths w = { 0 };
	char *child = malloc(PATH_MAX_LEN);
	unsigned long long blocks = 0;
	int status = 0;

	for (int i = 0; i < n; i++) {
		snprintf(child, PATH_MAX_LEN, "%s/%s", path, names[i]);
		if (ls_fill(&e[i], child, names[i])) {
			status = shell_fs_error("ls", child);
			continue;
		}
		widths_add(&w, &e[i].st);
		blocks += e[i].st.st_blocks;
	}
	printf("total %llu\n", (blocks + 1) / 2);
	for (int i = 0; i < n; i++)
		if (e[i].listed)
			ls_long(&e[i], &w);
	free(child);
	ls_free(e, n);
	return status;
}

static int ls_dir(const char *path, bool lng)
{
	char **names;
	int n = read_names(path, &names), status = 0;

	if (n < 0)
		return shell_fs_error("ls", path);
	if (lng)
		status = ls_dir_long(path, names, n);
	for (int i = 0; i < n; i++) {
		if (!lng)
			printf("%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	return status;
}

/* A directory operand: listed as its contents (with -l, a link to one
 * is listed itself). */
static bool is_dir_operand(const char *path, bool lng)
{
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return false;
	return !lng || (lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* The operands that are not directories, as one listing. */
static int ls_files(char **paths, int n, bool lng)
{
	struct ls_entry *e = calloc(n ? n : 1, sizeof(*e));
	struct ls_widths w = { 0 };
	int status = 0;

	for (int i = 0; i < n; i++) {
		if (ls_fill(&e[i], paths[i], paths[i]))
			status = shell_fs_error("ls", paths[i]);
		else
			widths_add(&w, &e[i].st);
	}
	for (int i = 0; i < n; i++) {
		if (!e[i].listed)
			continue;
		if (lng)
			ls_long(&e[i], &w);
		else
			printf("%s\n", e[i].name);
	}
	ls_free(e, n);
	return status;
}

/* As GNU ls: the files first, then each directory, under a "DIR:"
 * heading when there is more than one operand. */
static int cmd_ls(int argc, char **argv)
{
	bool lng = argc > 1 && !strcmp(argv[1], "-l");
	int first = lng ? 2 : 1, n = argc - first, nfiles = 0, status;
	char **files, **dirs;
	int ndirs = 0;

	if (n <= 0)
		return ls_dir(".", lng);
	files = calloc(n, sizeof(*files));
	dirs = calloc(n, sizeof(*dirs));
	for (int i = first; i < argc; i++) {
		if (is_dir_operand(argv[i], lng))
			dirs[ndirs++] = argv[i];
		else
			files[nfiles++] = argv[i];
	}
	qsort(files, nfiles, sizeof(*files), cmp_names);
	qsort(dirs, ndirs, sizeof(*dirs), cmp_names);
	status = ls_files(files, nfiles, lng);
	for (int i = 0; i < ndirs; i++) {
		if (n > 1)
			printf("%s%s:\n", nfiles || i ? "\n" : "", dirs[i]);
		status |= ls_dir(dirs[i], lng);
	}
	free(files);
	free(dirs);
	return status;
}
SHELL_COMMAND(ls, cmd_ls, "ls [-l] [PATH...]", "list directories");

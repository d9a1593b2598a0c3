/*
 * app/shell_mmap.c: `io`'s memory-mapping subcommands, in xfs_io's syntax
 * and with its messages (xfs_io's io/mmap.c is the reference):
 *
 *   mmap                   list the mappings, [NNN] the current one
 *   mmap N                 make mapping N current
 *   mmap [-r] [-w] [-x] [-s SIZE] OFF LEN
 *                          map LEN bytes from OFF, MAP_SHARED (no
 *                          protection flag: all three); becomes current
 *   munmap                 unmap the current mapping, list the rest
 *   mread [-f|-v] [-r] [OFF LEN]    load each byte (-v/-f: dump them,
 *                          offsets from the mapping's / the file's start)
 *   mwrite [-r] [-S SEED] [OFF LEN] store SEED ('X') into each byte
 *   msync [-a] [-i] [-s] [OFF LEN]  (default MS_ASYNC | MS_INVALIDATE)
 *   madvise [-d|-r|-s|-w] [OFF LEN]
 *
 * OFF is a file offset inside the current mapping; without OFF LEN the
 * whole mapping is meant. Loads and stores run in a task of their own, so
 * a bus error past EOF (or a store to a read-only mapping) ends that task
 * and not the shell: the subcommand then fails. The mappings left at the
 * end of an `io` run are unmapped (io_unmap_all).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <kernel/err.h>
#include <kernel/sched.h>
#include <mm/page_alloc.h>
#include <app/shell_io.h>

static struct io_map *current_map(struct io_file *io)
{
	if (!io->nmaps) {
		printf("no mapped regions, try 'help mmap'\n");
		return NULL;
	}
	return &io->maps[io->cur_map];
}

static void list_maps(struct io_file *io)
{
	for (int i = 0; i < io->nmaps; i++) {
		struct io_map *m = &io->maps[i];
		bool cur = i == io->cur_map;

		printf("%c%03d%c 0x%lx - 0x%lx %c%c%c  %14s (%lld : %ld)\n",
		       cur ? '[' : ' ',
		       i,
		       cur ? ']' : ' ',
		       (unsigned long)m->addr,
		       (unsigned long)(m->addr + m->len),
		       m->prot & PROT_READ ? 'r' : '-',
		       m->prot & PROT_WRITE ? 'w' : '-',
		       m->prot & PROT_EXEC ? 'x' : '-',
		       io->path,
		       m->off,
		       (long)m->len);
	}
}

/* OFF LEN (or the whole mapping) checked against @m, as xfs_io's
 * check_mapping_range. Return: 0, or 1 after saying what is wrong. */
static int map_range(struct io_file *io,
		     struct io_map *m,
		     int argc,
		     char **argv,
		     long long *off,
		     long long *len)
{
	if (argc == 0) {
		*off = m->off;
		*len = m->len;
		return 0;
	}
	if (argc != 2)
		return printf("bad argument count\n"), 1;
	*off = io_cvtnum(io, argv[0]);
	*len = io_cvtnum(io, argv[1]);
	if (*off < 0 || *len < 0)
		return printf("non-numeric offset or length argument\n"), 1;
	if (*off < m->off)
		return printf(
			   "offset (%lld) is before start of mapping (%lld)\n",
			   *off,
			   m->off),
		       1;
	if (*off - m->off > m->len)
		return printf("offset (%lld) is beyond end of mapping (%lld)\n",
			      *off - m->off,
			      m->off),
		       1;
	if (*off - m->off + *len > m->len)
		return printf(
			   "range (%lld:%lld) is beyond mapping (%lld:%lld)\n",
			   *off - m->off,
			   *len,
			   m->off,
			   m->len),
		       1;
	return 0;
}

int io_mmap(struct io_file *io, int argc, char **argv)
{
	int i, prot = 0;
	struct io_map *m;
	void *addr;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'r')
				prot |= PROT_READ;
			else if (*o == 'w')
				prot |= PROT_WRITE;
			else if (*o == 'x')
				prot |= PROT_EXEC;
			else if (*o == 's' && i + 1 < argc && !o[1])
				i++; /* a reservation hint: nothing to do */
			else
				return printf("mmap: bad option\n"), 1;
		}
	}
	if (argc - i == 0) {
		if (current_map(io))
			list_maps(io);
		return 0;
	}
	if (argc - i == 1) {
		int n = atoi(argv[i]);

		if (n < 0 || n >= io->nmaps)
			return printf("value %d is out of range (0-%d)\n",
				      n,
				      io->nmaps - 1),
			       1;
		io->cur_map = n;
		list_maps(io);
		return 0;
	}
	if (argc - i != 2)
		return printf("bad argument count to mmap\n"), 1;
	if (io->nmaps == IO_MAX_MAPS)
		return printf("mmap: too many mappings\n"), 1;
	m = &io->maps[io->nmaps];
	m->off = io_cvtnum(io, argv[i]);
	m->len = io_cvtnum(io, argv[i + 1]);
	m->prot = prot ? prot : PROT_READ | PROT_WRITE | PROT_EXEC;
	if (m->off < 0 || m->len < 0)
		return printf("non-numeric offset or length argument\n"), 1;
	addr = mmap(NULL, m->len, m->prot, MAP_SHARED, io->fd, m->off);
	if (addr == MAP_FAILED) {
		io_perror("mmap");
		return 1;
	}
	m->addr = addr;
	io->cur_map = io->nmaps++;
	return 0;
}

int io_munmap(struct io_file *io, int argc, char **argv)
{
	struct io_map *m = current_map(io);

	(void)argc;
	(void)argv;
	if (!m)
		return 1;
	if (munmap(m->addr, m->len) < 0) {
		io_perror("munmap");
		return 1;
	}
	memmove(m, m + 1, (io->nmaps - io->cur_map - 1) * sizeof(*m));
	io->nmaps--;
	io->cur_map = io->nmaps ? io->nmaps - 1 : 0;
	list_maps(io); /* what is left, as xfs_io shows it */
	return 0;
}

void io_unmap_all(struct io_file *io)
{
	while (io->nmaps) {
		struct io_map *m = &io->maps[--io->nmaps];

		munmap(m->addr, m->len);
	}
	io->cur_map = 0;
}

/* The loads or stores of one mread/mwrite, run in a task of its own. */
struct access {
	volatile uint8_t *p;
	uint8_t *buf; /* loads land here (NULL: only touch) */
	long long len;
	bool store, reverse;
	uint8_t seed;
};

static int access_fn(void *arg)
{
	struct access *a = arg;

	for (long long k = 0; k < a->len; k++) {
		long long i = a->reverse ? a->len - 1 - k : k;

		if (a->store)
			a->p[i] = a->seed;
		else if (a->buf)
			a->buf[i] = a->p[i];
		else
			(void)a->p[i];
	}
	return 0;
}

static int run_access(const char *what, struct access *a)
{
	struct task *t = task_create(what, access_fn, a);
	int code;

	if (IS_ERR(t))
		return printf("%s: cannot start a task\n", what), 1;
	code = task_join(t);
	if (code == TASK_EXIT_KILLED)
		return printf("%s: ended by a fault (see the message above)\n",
			      what),
		       1;
	return 0;
}

int io_mread(struct io_file *io, int argc, char **argv)
{
	struct io_map *m = current_map(io);
	struct access a = { 0 };
	bool dump = false, file_offsets = false;
	long long off, len;
	int i, err;

	if (!m)
		return 1;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'v' || *o == 'f') {
				dump = true;
				file_offsets = *o == 'f';
			} else if (*o == 'r') {
				a.reverse = true;
			} else {
				return printf("mread: bad option\n"), 1;
			}
		}
	}
	if (map_range(io, m, argc - i, argv + i, &off, &len))
		return 1;
	a.p = m->addr + (off - m->off);
	a.len = len;
	if (dump && !(a.buf = malloc(len ? len : 1)))
		return printf("mread: out of memory\n"), 1;
	err = run_access("mread", &a);
	if (!err && dump)
		io_dump(file_offsets ? off : off - m->off, a.buf, len);
	free(a.buf);
	return err;
}

int io_mwrite(struct io_file *io, int argc, char **argv)
{
	struct io_map *m = current_map(io);
	struct access a = { .store = true, .seed = 'X' };
	long long off, len;
	int i;

	if (!m)
		return 1;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-r"))
			a.reverse = true;
		else if (!strcmp(argv[i], "-S") && i + 1 < argc)
			a.seed = strtoul(argv[++i], NULL, 0);
		else
			return printf("mwrite: bad option\n"), 1;
	}
	if (map_range(io, m, argc - i, argv + i, &off, &len))
		return 1;
	a.p = m->addr + (off - m->off);
	a.len = len;
	return run_access("mwrite", &a);
}

/* The range of msync/madvise: page-aligned addresses, as xfs_io wants. */
static uint8_t *call_range(
    struct io_file *io, struct io_map *m, int argc, char **argv, long long *len)
{
	long long off;
	uint8_t *addr;

	if (map_range(io, m, argc, argv, &off, len))
		return NULL;
	addr = m->addr + (off - m->off);
	if ((uintptr_t)addr % PAGE_SIZE) {
		printf("offset address (%p) is not page aligned\n", addr);
		return NULL;
	}
	return addr;
}

int io_msync(struct io_file *io, int argc, char **argv)
{
	struct io_map *m = current_map(io);
	int i, flags = MS_ASYNC | MS_INVALIDATE;
	long long len;
	uint8_t *addr;

	if (!m)
		return 1;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'a')
				flags = (flags & ~MS_SYNC) | MS_ASYNC;
			else if (*o == 'i')
				flags |= MS_INVALIDATE;
			else if (*o == 's')
				flags = (flags & ~MS_ASYNC) | MS_SYNC;
			else
				return printf("msync: bad option\n"), 1;
		}
	}
	addr = call_range(io, m, argc - i, argv + i, &len);
	if (!addr)
		return 1;
	if (msync(addr, len, flags) < 0) {
		io_perror("msync");
		return 1;
	}
	return 0;
}

int io_madvise(struct io_file *io, int argc, char **argv)
{
	static const char opts[] = "drsw";
	static const int advice_of[] = {
		MADV_DONTNEED, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED
	};
	struct io_map *m = current_map(io);
	int i, advice = MADV_NORMAL;
	long long len;
	uint8_t *addr;

	if (!m)
		return 1;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = strchr(opts, argv[i][1]);

		if (!argv[i][1] || argv[i][2] || !o)
			return printf("madvise: bad option\n"), 1;
		advice = advice_of[o - opts];
	}
	addr = call_range(io, m, argc - i, argv + i, &len);
	if (!addr)
		return 1;
	if (madvise(addr, len, advice) < 0) {
		io_perror("madvise");
		return 1;
	}
	return 0;
}

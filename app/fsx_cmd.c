/*
 * app/fsx_cmd.c: the fsx shell command - its options, the files (and
 * with -k the mappings held of them), the reader tasks started on every
 * hart beside the mutator (and the storer, and the third-party task),
 * and the final check after dropping the caches. What fsx does:
 * tests/fsx.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include <tests/fsx.h>

/* -w: the mutator stays at the race point between dropping the cache and
 * changing the block map (invalidate_lock held exclusive), and at the one
 * between mapping preallocated blocks and writing their zeroes; readers
 * meet it there. Readers never stop here (they do not invalidate). */
static struct fsx *windowed;

static void hold_window(void *obj)
{
	struct fsx *x = READ_ONCE(windowed);

	(void)obj;
	if (x && current_task() == x->mutator)
		task_sleep_ms(x->window_ms);
}

/* -w, the readers' side: every eighth fill of a reader stays between the
 * insertion of its pages and the look-up of their blocks (its page locks
 * held, no invalidate_lock), so that an operation that changes the map
 * without waiting for those pages meets it there. */
static void hold_fill(void *obj)
{
	static unsigned long fills;
	struct fsx *x = READ_ONCE(windowed);

	(void)obj;
	if (x && current_task() != x->mutator &&
	    __atomic_fetch_add(&fills, 1, __ATOMIC_RELAXED) % 8 == 0)
		task_sleep_ms(x->window_ms);
}

static int
parse_num(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *v > max)
		return -1;
	if (*s == '-')
		return -1;
	return 0;
}

static int parse(struct fsx *x, int argc, char **argv)
{
	unsigned long long v;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (o[0] != '-' || !o[1]) {
			if (x->dir)
				return -1;
			x->dir = o;
			continue;
		}
		if (o[1] == 'k' && !o[2]) {
			x->keep = true;
			continue;
		}
		if (o[2] || i + 1 == argc)
			return -1;
		const char *arg = argv[++i];

		if (o[1] == 'm') {
			if (!*arg || strlen(arg) >= sizeof(x->mix) ||
			    strspn(arg, fsx_op_letters) != strlen(arg))
				return -1;
			strcpy(x->mix, arg);
			continue;
		}
		if (parse_num(arg, UINT64_MAX, &v))
			return -1;
		switch (o[1]) {
		case 'N': x->nops = v; break;
		case 'S': x->seed = v ? v : 1; break;
		case 't': x->secs = v; break;
		case 'f':
			if (!v || v > FSX_MAX_FILES)
				return -1;
			x->nfiles = v;
			break;
		case 'p':
			if (v > FSX_MAX_READERS)
				return -1;
			x->readers = v;
			break;
		case 'w':
			if (v > 1000)
				return -1;
			x->window_ms = v;
			break;
		case 'l':
			if (v < 4 * PAGE_SIZE || v > (8 << 20))
				return -1;
			x->max_len = v;
			break;
		default: return -1;
		}
	}
	if (!x->mix[0]) /* the default: every operation, -k's twice */
		strcpy(x->mix, x->keep ? "rRwWtpzciaCsfMM" : "rRwWtpzciaCsf");
	if (strchr(x->mix, 'M') && !x->keep)
		return -1; /* mapstore needs the held mappings */
	return x->dir && (x->nops || x->secs) ? 0 : -1;
}

static int setup_files(struct fsx *x)
{
	struct stat st;

	if (mkdir(x->dir, 0755) && errno != EEXIST)
		return -1;
	for (unsigned int i = 0; i < x->nfiles; i++) {
		struct fsx_file *f = &x->files[i];

		size_t n = strlen(x->dir);

		if (snprintf(f->path,
			     sizeof(f->path),
			     "%s%sfsx%u",
			     x->dir,
			     n && x->dir[n - 1] == '/' ? "" : "/",
			     i) >= (int)sizeof(f->path))
			return errno = ENAMETOOLONG, -1;
		f->fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (f->fd < 0)
			return -1;
		for (unsigned int v = 0; v < FSX_VERSIONS; v++) {
			f->data[v] = kzalloc(x->max_len, GFP_KERNEL);
			if (!f->data[v])
				return -1;
		}
		for (unsigned int r = 0; r < FSX_MAX_READERS; r++)
			f->readers[r].ver = FSX_IDLE;
		if (x->keep) { /* held until the run ends */
			void *p = mmap(NULL,
				       x->max_len,
				       PROT_READ | PROT_WRITE,
				       MAP_SHARED,
				       f->fd,
				       0);

			if (p == MAP_FAILED)
				return -1;
			f->map = p;
		}
	}
	if (fstat(x->files[0].fd, &st))
		return -1;
	x->blksize = st.st_blksize;
	return 0;
}

/* -k: the held mappings go (their dirty pages stay dirty in the cache). */
static void unmap_held(struct fsx *x)
{
	for (unsigned int i = 0; i < x->nfiles; i++) {
		if (x->files[i].map)
			munmap(x->files[i].map, x->max_len);
		x->files[i].map = NULL;
	}
}

/* After the run, the mutator alone: every file read whole, fsynced (a
 * page whose write failed, e.g. dirty data over a block without disk
 * space, fails it), the caches dropped, every file read again from disk.
 * Return: 0 or 1 (reported). */
static int final_check(struct fsx *x)
{
	if (!fsx_verify_all(x, "final read"))
		return 1;
	for (unsigned int i = 0; i < x->nfiles; i++) {
		if (fsync(x->files[i].fd)) {
			fsx_fail(x,
				 "final fsync %s: errno %d",
				 x->files[i].path,
				 errno);
			return 1;
		}
	}
	return vfs_drop_caches() < 0 ||
	       !fsx_verify_all(x, "read after drop_caches");
}

static void teardown(struct fsx *x)
{
	unmap_held(x);
	for (unsigned int i = 0; i < x->nfiles; i++) {
		struct fsx_file *f = &x->files[i];

		if (f->fd > 0)
			close(f->fd);
		for (unsigned int v = 0; v < FSX_VERSIONS; v++)
			kfree(f->data[v]);
	}
}

/* Start the readers, run the mutator here, stop and join the readers. */
static int run(struct fsx *x)
{
	struct reader_arg ra[FSX_MAX_FILES * FSX_MAX_READERS];
	struct task *t[FSX_MAX_FILES * FSX_MAX_READERS];
	struct task *storer = NULL, *third;
	unsigned int n = 0;
	unsigned long checks = 0;
	uint64_t start = time_ns(), ns;
	int err;

	x->mutator = current_task();
	WRITE_ONCE(windowed, x);
	if (x->window_ms) {
		race_hook_set(RACE_INVAL_DROPPED, hold_window);
		race_hook_set(RACE_ALLOC_LINKED, hold_window);
		race_hook_set(RACE_FILL_INSERTED, hold_fill);
	}
	for (unsigned int i = 0; i < x->nfiles; i++)
		for (unsigned int r = 0; r < x->readers; r++, n++) {
			ra[n] = (struct reader_arg){ x,
						     &x->files[i],
						     &x->files[i].readers[r],
						     x->seed * 7919 + n + 1,
						     -1 };
			t[n] = task_create_on("fsx-reader",
					      fsx_reader_task,
					      &ra[n],
					      (int)((n + 1) % ncpus));
			if (IS_ERR(t[n])) {
				fsx_fail(x, "cannot start a reader");
				break;
			}
		}
	if (x->keep) {
		x->storer.rnd = x->seed * 104729 + 1;
		storer = task_create_on(
		    "fsx-storer", fsx_storer_task, x, (int)((n + 1) % ncpus));
		if (IS_ERR(storer))
			fsx_fail(x, "cannot start the storer");
	}
	x->third.rnd = x->seed * 15485863 + 1;
	third = task_create_on(
	    "fsx-third", fsx_third_task, x, (int)((n + 2) % ncpus));
	if (IS_ERR(third))
		fsx_fail(x, "cannot start the third-party task");
	err = fsx_mutator(x);
	__atomic_store_n(&x->stop, 1, __ATOMIC_SEQ_CST);
	if (!IS_ERR(third) && task_join(third))
		fsx_fail(x, "the third-party task ended abnormally");
	for (unsigned int i = 0; i < n && !IS_ERR(t[i]); i++) {
		if (task_join(t[i]))
			fsx_fail(x, "a reader ended abnormally (a bus error?)");
		checks += ra[i].r->checks;
	}
	if (storer && !IS_ERR(storer) && task_join(storer))
		fsx_fail(x, "the storer ended abnormally (a bus error?)");
	race_hook_set(RACE_INVAL_DROPPED, NULL);
	race_hook_set(RACE_ALLOC_LINKED, NULL);
	race_hook_set(RACE_FILL_INSERTED, NULL);
	WRITE_ONCE(windowed, NULL);
	ns = MAX(time_ns() - start, (uint64_t)1);
	console_printf("fsx: %lu operations in %llu ms (%llu/s), %lu reads "
		       "checked by %u readers\n",
		       x->ops_done,
		       (unsigned long long)(ns / NSEC_PER_MSEC),
		       (unsigned long long)(x->ops_done * NSEC_PER_SEC / ns),
		       checks,
		       n);
	console_printf("fsx: third parties: %lu flush rounds, %lu fsyncs, "
		       "%lu reclaim calls (%lu pages freed)\n",
		       x->third.flushes,
		       x->third.fsyncs,
		       x->third.reclaims,
		       x->third.reclaimed);
	if (x->keep)
		console_printf(
		    "fsx: held mappings: %lu stores by the mutator, "
		    "%lu by the storer (%lu begun before the call "
		    "beside them returned)\n",
		    x->counts[strchr(fsx_op_letters, 'M') - fsx_op_letters],
		    x->storer.stores,
		    x->storer.early);
	return err || x->failed;
}

static int cmd_fsx(int argc, char **argv)
{
	struct fsx *x = kzalloc(sizeof(*x), GFP_KERNEL);
	int err = 1;

	if (!x)
		return 1;
	x->seed = 1; /* the defaults; the rest is zero */
	x->nfiles = 2;
	x->readers = 2;
	x->max_len = 256 << 10;
	if (parse(x, argc, argv)) {
		kfree(x);
		return shell_usage(argv[0]);
	}
	console_printf("fsx: seed %llu, %u files, %u readers each%s, %s mode\n",
		       (unsigned long long)x->seed,
		       x->nfiles,
		       x->readers,
		       x->keep ? ", held mappings" : "",
		       !filemap_legacy_mode() ? "fixed"
		       : filemap_fill_lock() == FILL_I_RWSEM
			   ? "fill_lock=i_rwsem"
			   : "legacy");
	if (setup_files(x)) {
		console_printf("fsx: %s: %s\n", x->dir, strerror(errno));
	} else {
		err = run(x);
		unmap_held(x); /* else drop_caches would keep their pages */
		err = err || final_check(x);
		console_printf(err ? "fsx: FAILED after %lu operations\n"
				   : "fsx: passed, %lu operations\n",
			       x->ops_done);
	}
	teardown(x);
	kfree(x);
	return err;
}
SHELL_COMMAND(fsx,
	      cmd_fsx,
	      "fsx [-N OPS] [-S SEED] [-t SECS] [-f FILES] [-p READERS] "
	      "[-l MAXLEN] [-m MIX] [-w MS] [-k] DIR",
	      "concurrent file exerciser: see tests/fsx.c");

/*
 * tests/fsx.h: what the parts of fsx share - app/fsx_cmd.c (the
 * command), tests/fsx.c (the reader tasks, checking what they see) and
 * tests/fsx_ops.c (the mutator: every data-changing operation and the
 * model it keeps).
 *
 * The model of a file is a ring of FSX_VERSIONS versions: version j is the
 * file after the mutator's j-th operation on it. The mutator writes
 * version j into its slot, publishes started = j, runs the operation,
 * publishes done = j. A reader takes a = done before it reads and b =
 * started after: every byte it saw must be the byte of some version in
 * [a, b]. Before it overwrites a slot the mutator waits until no reader
 * still counts on the version there (reader->ver, set before the read and
 * checked against started after setting it).
 *
 * Mapped reads must stay below EOF (a load past it ends the task, as
 * SIGBUS does): the mutator lowers floor before an operation that
 * shrinks the file and waits until no reader maps past the new size.
 *
 * -k (held mappings): each file has one MAP_SHARED, PROT_READ|PROT_WRITE
 * mapping of [0, max_len) for the whole run. The mutator stores through
 * it (operation M: a version like any other), and hands the storer task
 * one store for each change it makes: below the file's size before and
 * after the change and outside the range the change touches or moves, so
 * that the file is the same whichever lands first; the mutator writes it
 * into the change's version before publishing it and waits for it before
 * publishing done. Nobody stores at or past EOF (a bus error there too).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <mm/filemap.h> /* loff_t */

#define FSX_VERSIONS	8
#define FSX_MAX_FILES	8
#define FSX_MAX_READERS 8  /* per file */
#define FSX_LOG		16 /* last operations shown on a failure */
#define FSX_IDLE	(~0UL)
#define FSX_STORE_MAX	(8 << 10) /* the storer's stores */

struct fsx_reader {
	unsigned long ver;    /* atomic: oldest version it counts on, or IDLE */
	loff_t map_end;	      /* atomic: a mapped read's end, or 0 */
	unsigned long checks; /* reads whose bytes it checked */
};

struct fsx_file {
	char path[64];
	int fd; /* the mutator's */
	uint8_t *data[FSX_VERSIONS];
	loff_t size[FSX_VERSIONS];
	unsigned long started, done; /* atomic */
	loff_t floor;		     /* atomic: EOF will not go below this */
	loff_t hot_off, hot_len;     /* atomic: the range being changed */
	uint8_t *map;	  /* -k: the held mapping of [0, max_len), or NULL */
	loff_t grew_from; /* the size before the last change that grew it */
	struct fsx_reader readers[FSX_MAX_READERS];
};

/* -k: the storer task's job, one at a time (go - done is 0 or 1): store
 * buf[0, len) at off of f through f's held mapping beside the change
 * that makes version ver. */
struct fsx_storer {
	struct fsx_file *f;
	loff_t off;
	size_t len;
	unsigned long ver;
	unsigned long go, done; /* atomic: jobs handed out, jobs done */
	unsigned long returned; /* atomic: go when the last call returned */
	unsigned long stores;	/* its stores */
	unsigned long early;	/* of them, begun before the call returned */
	uint64_t rnd;
	uint8_t buf[FSX_STORE_MAX];
};

/* The tasks nobody calls, as one task beside the mutator: a flush round,
 * an fsync of a file from outside the mutator, or reclaim, at random. */
struct fsx_third {
	uint64_t rnd;
	unsigned long flushes, fsyncs, reclaims; /* calls of each */
	unsigned long reclaimed;		 /* pages reclaim freed */
};

struct fsx {
	/* options */
	unsigned long nops;	/* -N: 0 = until -t */
	uint64_t seed;		/* -S */
	unsigned long secs;	/* -t: 0 = until -N */
	unsigned int nfiles;	/* -f */
	unsigned int readers;	/* -p: per file */
	unsigned int window_ms; /* -w: invalidations held open this long */
	loff_t max_len;		/* -l */
	bool keep;		/* -k: held mappings, op M and the storer */
	char mix[32]; /* -m: the operations' letters, repeated = weight */
	const char *dir;
	/* state */
	struct fsx_file files[FSX_MAX_FILES];
	unsigned int blksize;
	unsigned long ops_done; /* atomic */
	int stop;		/* atomic: the mutator finished or one failed */
	int failed;		/* atomic */
	struct task *mutator;
	struct fsx_storer storer; /* -k */
	struct fsx_third third;
	char log[FSX_LOG][272];
	unsigned long logged;
	unsigned long counts[32]; /* operations run, by letter index */
};

struct reader_arg {
	struct fsx *x;
	struct fsx_file *f;
	struct fsx_reader *r;
	uint64_t rnd;
	int fd; /* its own: descriptor tables are per task */
};

#define FSX_WRITE_MAX (64 << 10)

/* One operation of the mutator (tests/fsx_ops.c). */
struct fsx_op {
	struct fsx *x;
	uint64_t *rnd;
	uint8_t *buf;		/* FSX_WRITE_MAX bytes */
	struct fsx_file *f, *g; /* g: the other file of copy_range, swapext */
	uint8_t *d;		/* f's new version */
	loff_t *size;		/* its size */
	char what[256];
};

/* The operation letters of -m, in fsx_ops.c's table. */
extern const char fsx_op_letters[];

uint64_t fsx_rand(uint64_t *s);
/* Newest version's slot. */
static inline unsigned int fsx_slot(unsigned long ver)
{
	return ver % FSX_VERSIONS;
}

/* A reader task (@arg: its struct reader_arg), until x->stop. */
int fsx_reader_task(void *arg);
/* -k: the storer task (@arg: the struct fsx), until x->stop. */
int fsx_storer_task(void *arg);
/* Task: the third parties (struct fsx_third) until x->stop. */
int fsx_third_task(void *arg);
/* The mutator task: runs -N operations or -t seconds. Return: 0 or 1. */
int fsx_mutator(void *arg);
/* Report a mismatch or failed call (sets failed and stop). */
void fsx_fail(struct fsx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Check @n bytes read at @off of @f against versions [@a, @b]. */
bool fsx_check(struct fsx *x,
	       struct fsx_file *f,
	       const uint8_t *buf,
	       loff_t off,
	       size_t len,
	       ssize_t n,
	       unsigned long a,
	       unsigned long b,
	       bool may_be_short,
	       const char *how);
/* Every file read whole against its newest version (the mutator, alone
 * on them). Return: false on a mismatch (reported). */
bool fsx_verify_all(struct fsx *x, const char *when);

/* The mutator's model (tests/fsx_model.c). */
loff_t fsx_below(struct fsx_op *o, loff_t n); /* random in [0, n) */
loff_t fsx_size(struct fsx_file *f);	      /* newest version's size */
/* Log @what as the next operation (the last FSX_LOG show on a failure). */
void fsx_note(struct fsx *x, const char *what);
/* Make f's next version (o->d, o->size when f is o->f) from the newest. */
void fsx_begin(struct fsx_op *o, struct fsx_file *f);
/* The change of [off, off + len) is in the next version: publish it
 * (logging o->what); with -k, hand the storer its store beside it. */
void fsx_publish(struct fsx_op *o, struct fsx_file *f, loff_t off, loff_t len);
/* The call returned: once the storer's store is done, the next version is
 * the newest. */
void fsx_finish(struct fsx_op *o, struct fsx_file *f);
/* Report a failed call. Return: -1. */
int fsx_failed_call(struct fsx_op *o, long ret);
/* [off, off + len) inside max_len; block-aligned with @align. */
void fsx_pick(struct fsx_op *o, bool align, loff_t *off, loff_t *len);

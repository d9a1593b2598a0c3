/*
 * tests/fsx_model.c: the model fsx's mutator keeps (tests/fsx.h): the
 * next version of a file made, published and finished around each
 * operation, the readers it waits for, the log of the last operations.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include "fsx.h"

void fsx_note(struct fsx *x, const char *what)
{
	snprintf(x->log[x->logged % FSX_LOG],
		 sizeof(x->log[0]),
		 "#%lu %s",
		 x->ops_done + 1,
		 what);
	x->logged++;
}

loff_t fsx_below(struct fsx_op *o, loff_t n)
{
	return n > 0 ? (loff_t)(fsx_rand(o->rnd) % (uint64_t)n) : 0;
}

loff_t fsx_size(struct fsx_file *f)
{
	return f->size[fsx_slot(f->done)];
}

/* Wait until no reader counts on version j - FSX_VERSIONS or maps past
 * @eof. A reader that never lets go (ended by a fault) fails the run. */
static void
wait_readers(struct fsx_op *o, struct fsx_file *f, unsigned long j, loff_t eof)
{
	uint64_t give_up = time_ns() + 10 * NSEC_PER_SEC;

	for (unsigned int r = 0; r < FSX_MAX_READERS; r++) {
		struct fsx_reader *rd = &f->readers[r];

		for (;;) {
			unsigned long v =
			    __atomic_load_n(&rd->ver, __ATOMIC_SEQ_CST);
			loff_t end =
			    __atomic_load_n(&rd->map_end, __ATOMIC_SEQ_CST);

			if ((v == FSX_IDLE || v + FSX_VERSIONS > j) &&
			    end <= eof)
				break;
			if (time_ns() > give_up ||
			    __atomic_load_n(&o->x->failed, __ATOMIC_SEQ_CST)) {
				fsx_fail(o->x,
					 "reader %u of %s holds on for "
					 "10 s (ended?)",
					 r,
					 f->path);
				return;
			}
			task_yield();
		}
	}
}

/* The next version of @f, a copy of the newest, for the change to edit. */
void fsx_begin(struct fsx_op *o, struct fsx_file *f)
{
	unsigned long j = f->done + 1;
	unsigned int from = fsx_slot(f->done), to = fsx_slot(j);

	wait_readers(o, f, j, INT64_MAX);
	memcpy(f->data[to], f->data[from], o->x->max_len);
	f->size[to] = f->size[from];
	if (f == o->f) {
		o->d = f->data[to];
		o->size = &f->size[to];
	}
}

/* The change is in the model: publish it, then the call may run. */
void fsx_publish(struct fsx_op *o, struct fsx_file *f, loff_t off, loff_t len)
{
	unsigned long j = f->done + 1;
	loff_t now = fsx_size(f), next = f->size[fsx_slot(j)];

	if (next < now) {
		__atomic_store_n(&f->floor, next, __ATOMIC_SEQ_CST);
		wait_readers(o, f, j, next);
	}
	__atomic_store_n(&f->hot_off, off, __ATOMIC_RELAXED);
	__atomic_store_n(&f->hot_len, len, __ATOMIC_RELAXED);
	__atomic_store_n(&f->started, j, __ATOMIC_SEQ_CST);
	if (f == o->f)
		fsx_note(o->x, o->what);
}

void fsx_finish(struct fsx_file *f)
{
	unsigned long j = f->done + 1;

	__atomic_store_n(&f->hot_len, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f->done, j, __ATOMIC_SEQ_CST);
	__atomic_store_n(&f->floor, f->size[fsx_slot(j)], __ATOMIC_SEQ_CST);
}

int fsx_failed_call(struct fsx_op *o, long ret)
{
	fsx_fail(o->x, "%s: returned %ld, errno %d", o->what, ret, errno);
	return -1;
}

/* [off, off + len) inside max_len; block-aligned with @align. */
void fsx_pick(struct fsx_op *o, bool align, loff_t *off, loff_t *len)
{
	loff_t bs = align ? o->x->blksize : 1;
	loff_t blocks = o->x->max_len / bs;

	*off = fsx_below(o, blocks) * bs;
	*len = (1 +
		fsx_below(
		    o, MIN(blocks - *off / bs, (loff_t)(FSX_WRITE_MAX / bs)))) *
	       bs;
	if (!align) {
		*off += fsx_below(o, bs);
		*len = 1 +
		       fsx_below(
			   o, MIN(o->x->max_len - *off, (loff_t)FSX_WRITE_MAX));
	}
}

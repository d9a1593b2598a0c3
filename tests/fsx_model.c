/*
 * tests/fsx_model.c: the model fsx's mutator keeps (tests/fsx.h): the
 * next version of a file made, published and finished around each
 * operation, the readers it waits for, the storer's store beside each
 * change (-k), the log of the last operations.
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

/*
 * -k: the storer's store beside the change of [@off, @off + @len) that
 * makes version @j of @f: below @lim (the smaller of the sizes before and
 * after) and outside the change, which leaves those bytes where they are
 * (collapse and insert publish everything from their offset on, swapext
 * the whole file); half of the time within a page of the change's edge,
 * where a page holds both. Written into version @j and noted in o->what.
 */
static void
store_beside(struct fsx_op *o, struct fsx_file *f, loff_t off, loff_t len)
{
	struct fsx_storer *s = &o->x->storer;
	unsigned long j = f->done + 1;
	loff_t lim = MIN(fsx_size(f), f->size[fsx_slot(j)]);
	loff_t lo = 0, hi = MIN(off, lim), pos, n;
	bool after = off + len < lim && (hi <= 0 || fsx_rand(o->rnd) % 2);
	size_t w = strlen(o->what);

	if (after)
		lo = off + len, hi = lim;
	if (hi <= lo)
		return;
	if (fsx_rand(o->rnd) % 2) {
		if (after)
			hi = MIN(hi, lo + (loff_t)PAGE_SIZE);
		else
			lo = MAX(lo, hi - (loff_t)PAGE_SIZE);
	}
	pos = lo + fsx_below(o, hi - lo);
	n = 1 + fsx_below(o, MIN((loff_t)FSX_STORE_MAX, hi - pos));
	for (loff_t i = 0; i < n; i++)
		s->buf[i] = (uint8_t)fsx_rand(o->rnd);
	memcpy(f->data[fsx_slot(j)] + pos, s->buf, n);
	s->f = f;
	s->off = pos;
	s->len = n;
	s->ver = j;
	snprintf(o->what + w,
		 sizeof(o->what) - w,
		 " + store [%lld, +%lld)",
		 (long long)pos,
		 (long long)n);
}

/* The change is in the model: publish it, then the call may run. */
void fsx_publish(struct fsx_op *o, struct fsx_file *f, loff_t off, loff_t len)
{
	struct fsx_storer *s = &o->x->storer;
	unsigned long j = f->done + 1, go = s->go;
	loff_t now = fsx_size(f), next = f->size[fsx_slot(j)];

	if (next < now) {
		__atomic_store_n(&f->floor, next, __ATOMIC_SEQ_CST);
		wait_readers(o, f, j, next);
	}
	if (o->x->keep && f == o->f) {
		s->ver = 0;
		store_beside(o, f, off, len);
	}
	__atomic_store_n(&f->hot_off, off, __ATOMIC_RELAXED);
	__atomic_store_n(&f->hot_len, len, __ATOMIC_RELAXED);
	__atomic_store_n(&f->started, j, __ATOMIC_SEQ_CST);
	if (f == o->f)
		fsx_note(o->x, o->what);
	if (o->x->keep && f == o->f && s->ver == j)
		__atomic_store_n(&s->go, go + 1, __ATOMIC_SEQ_CST);
}

/* Wait for the storer's job, if it has one: it cannot be in the next
 * operation's version. A storer that never ends it (a bus error) fails
 * the run. */
static void wait_storer(struct fsx_op *o)
{
	struct fsx_storer *s = &o->x->storer;
	uint64_t give_up = time_ns() + 10 * NSEC_PER_SEC;

	while (__atomic_load_n(&s->done, __ATOMIC_SEQ_CST) != s->go) {
		if (time_ns() > give_up) {
			fsx_fail(o->x,
				 "the storer holds on to its store for 10 s "
				 "(ended?)");
			return;
		}
		task_yield();
	}
}

void fsx_finish(struct fsx_op *o, struct fsx_file *f)
{
	unsigned long j = f->done + 1;

	if (o->x->keep && f == o->f) {
		__atomic_store_n(
		    &o->x->storer.returned, o->x->storer.go, __ATOMIC_SEQ_CST);
		wait_storer(o);
	}
	if (f->size[fsx_slot(j)] > fsx_size(f))
		f->grew_from = fsx_size(f);
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

/*
 * kernel/errseq.h: an error that many readers each see exactly once.
 *
 * An errseq_t is one 32-bit word: the last error's errno, a "seen" flag and
 * a counter. The producer records errors (errseq_set); every reader keeps
 * its own cursor, taken when it starts watching (errseq_sample), and asks
 * for what happened since (errseq_check_and_advance), which moves that
 * cursor and no other. Writeback errors use it: the mapping and the
 * superblock each hold one, and every open file has a cursor for both, so
 * fsync reports an error once to each file that was open when it struck,
 * and sync or drop_caches consume nothing.
 *
 *   errseq_set(&m->wb_err, -EIO);                       // writeback failed
 *   f->f_wb_err = errseq_sample(&m->wb_err);            // at open
 *   err = errseq_check_and_advance(&m->wb_err, &f->f_wb_err);  // fsync
 *
 * The counter only moves when an error is recorded after someone saw the
 * last one, so a storm of unseen errors costs no counter bits. Lock-free:
 * every update is one compare-and-swap.
 */
#pragma once

#include <stdint.h>

typedef uint32_t errseq_t;

/* Record @err (negative errno; 0 is ignored). Any context. */
void errseq_set(errseq_t *eseq, int err);

/* A cursor for a new reader: the current value if its error was seen
 * already, else 0, so that an error nobody saw yet is reported to it. */
errseq_t errseq_sample(const errseq_t *eseq);

/* The value now, as a cursor that reports only errors recorded later
 * (the caller's own call). */
errseq_t errseq_now(const errseq_t *eseq);

/* Return: the error recorded since @since (-errno), or 0. Moves nothing. */
int errseq_check(const errseq_t *eseq, errseq_t since);

/* Return: as errseq_check, and move *@since past it (marking it seen). */
int errseq_check_and_advance(errseq_t *eseq, errseq_t *since);

/*
 * kernel/errseq.c: errors seen once per reader (kernel/errseq.h).
 *
 * Layout of the word: bits 0..11 the errno (positive), bit 12 SEEN, bits
 * 13..31 a counter. Two values with the same counter and errno are the same
 * error whether SEEN is set or not; readers compare with SEEN masked.
 */
#include <kernel/compiler.h>
#include <kernel/errseq.h>

#define ERRSEQ_ERRNO_MASK 0xfffu
#define ERRSEQ_SEEN	  0x1000u
#define ERRSEQ_CTR_ONE	  0x2000u

void errseq_set(errseq_t *eseq, int err)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_ACQUIRE), new;

	if (err >= 0 || (unsigned int)-err > ERRSEQ_ERRNO_MASK)
		return;
	do {
		/* Unseen and the same errno: the same report, nothing new. */
		if (!(old & ERRSEQ_SEEN) &&
		    (old & ERRSEQ_ERRNO_MASK) == (unsigned int)-err)
			return;
		new = ((old & ~(ERRSEQ_ERRNO_MASK | ERRSEQ_SEEN)) +
		       ERRSEQ_CTR_ONE) |
		      (unsigned int)-err;
	} while (!__atomic_compare_exchange_n(
	    eseq, &old, new, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

errseq_t errseq_sample(const errseq_t *eseq)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_ACQUIRE);

	return old & ERRSEQ_SEEN ? old : 0;
}

errseq_t errseq_now(const errseq_t *eseq)
{
	return __atomic_load_n(eseq, __ATOMIC_ACQUIRE) | ERRSEQ_SEEN;
}

int errseq_check(const errseq_t *eseq, errseq_t since)
{
	errseq_t cur = __atomic_load_n(eseq, __ATOMIC_ACQUIRE);

	if ((cur | ERRSEQ_SEEN) == (since | ERRSEQ_SEEN))
		return 0;
	return -(int)(cur & ERRSEQ_ERRNO_MASK);
}

int errseq_check_and_advance(errseq_t *eseq, errseq_t *since)
{
	errseq_t old = __atomic_load_n(eseq, __ATOMIC_ACQUIRE);

	if ((old | ERRSEQ_SEEN) == (*since | ERRSEQ_SEEN))
		return 0;
	/* Mark it seen, so the next error bumps the counter; if another
	 * error came in meanwhile, report the older one now, the newer one
	 * on the next call (the cursor stops at what was reported). */
	if (!(old & ERRSEQ_SEEN))
		__atomic_compare_exchange_n(eseq,
					    &(errseq_t){ old },
					    old | ERRSEQ_SEEN,
					    false,
					    __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
	*since = old | ERRSEQ_SEEN;
	return -(int)(old & ERRSEQ_ERRNO_MASK);
}

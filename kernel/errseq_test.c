/*
 * kernel/errseq_test.c: suite errseq_cursor - the rules of kernel/errseq.h
 * on a word and a few cursors, as writeback errors use them: each reader
 * hears of each error once; checking moves only the checker's cursor; a
 * reader that starts after an error was heard does not hear it.
 */
#include <errno.h>
#include <kernel/errseq.h>
#include <kernel/ktest.h>

static void errseq_each_reader_once(struct ktest *t)
{
	errseq_t word = 0;
	errseq_t a = errseq_sample(&word), b = errseq_sample(&word);

	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), 0);
	errseq_set(&word, -EIO);
	KTEST_EXPECT_EQ(t, errseq_check(&word, a), -EIO); /* moves nothing */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), -EIO);
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), 0);
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &b), -EIO);
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &b), 0);
}

static void errseq_unseen_error_reaches_new_reader(struct ktest *t)
{
	errseq_t word = 0, late, later;

	errseq_set(&word, -EIO);
	late = errseq_sample(&word); /* nobody heard it: this one will */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &late), -EIO);
	later = errseq_sample(&word); /* heard: not news to a new reader */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &later), 0);
}

static void errseq_new_error_after_seen(struct ktest *t)
{
	errseq_t word = 0, a = 0;

	errseq_set(&word, -EIO);
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), -EIO);
	errseq_set(&word, -EIO); /* the same errno again: a new error */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), -EIO);
	errseq_set(&word, -ENOSPC);
	errseq_set(&word, -EIO); /* unseen: the last one is reported */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), -EIO);
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), 0);
}

static void errseq_now_sees_only_later_errors(struct ktest *t)
{
	errseq_t word = 0, call, a = 0;

	errseq_set(&word, -EIO); /* before the call, unseen */
	call = errseq_now(&word);
	KTEST_EXPECT_EQ(t, errseq_check(&word, call), 0);
	errseq_set(&word, -ENOSPC); /* during it */
	KTEST_EXPECT_EQ(t, errseq_check(&word, call), -ENOSPC);
	/* the call's check consumed nothing: a reader still hears it */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), -ENOSPC);
	errseq_set(&word, 0);	    /* not an error */
	errseq_set(&word, -100000); /* not an errno */
	KTEST_EXPECT_EQ(t, errseq_check_and_advance(&word, &a), 0);
}

static struct ktest_case errseq_cases[] = {
	KTEST_CASE(errseq_each_reader_once),
	KTEST_CASE(errseq_unseen_error_reaches_new_reader),
	KTEST_CASE(errseq_new_error_after_seen),
	KTEST_CASE(errseq_now_sees_only_later_errors),
	{},
};
KTEST_SUITE(errseq_cursor, errseq_cases);

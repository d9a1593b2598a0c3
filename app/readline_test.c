/*
 * app/readline_test.c: suite shell_readline - key sequences as a
 * terminal sends them produce the expected line.
 */
#include <errno.h>
#include <kernel/ktest.h>
#include <app/readline.h>

struct keys {
	const char *s;
	size_t pos;
};

static int next_key(void *ctx)
{
	struct keys *k = ctx;
	return k->s[k->pos] ? (unsigned char)k->s[k->pos++] : -1;
}

static void no_echo(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	(void)s;
	(void)n;
}

static struct readline rl; /* history persists across calls */

static int type_status(const char *input, char *buf, size_t len)
{
	struct keys k = { input, 0 };

	rl.getc = next_key;
	rl.echo = no_echo;
	rl.ctx = &k;
	return readline_read(&rl, buf, len);
}

static const char *type(const char *input, char *buf, size_t len)
{
	return type_status(input, buf, len) < 0 ? "<eof>" : buf;
}

static void plain_and_backspace(struct ktest *t)
{
	char buf[64];

	KTEST_EXPECT_STREQ(t, type("echo hi\r", buf, sizeof(buf)), "echo hi");
	KTEST_EXPECT_STREQ(t, type("ecx\x7fho\r", buf, sizeof(buf)), "echo");
	KTEST_EXPECT_STREQ(t, type("abc", buf, sizeof(buf)), "<eof>");
}

static void cursor_movement(struct ktest *t)
{
	char buf[64];

	/* Left twice, then insert */
	KTEST_EXPECT_STREQ(
	    t, type("word\x1b[D\x1b[DX\r", buf, sizeof(buf)), "woXrd");
	KTEST_EXPECT_STREQ(t,
			   type("bc\x01"
				"a\x05"
				"d\r",
				buf,
				sizeof(buf)),
			   "abcd");
	KTEST_EXPECT_STREQ(
	    t, type("abc\x1b[H\x1b[3~\r", buf, sizeof(buf)), "bc");
	KTEST_EXPECT_STREQ(t, type("junk\x15ok\r", buf, sizeof(buf)), "ok");
}

static void history_walks(struct ktest *t)
{
	char buf[64];

	rl.nhistory = 0;
	type("first\r", buf, sizeof(buf));
	type("second\r", buf, sizeof(buf));
	KTEST_EXPECT_STREQ(t, type("\x1b[A\r", buf, sizeof(buf)), "second");
	KTEST_EXPECT_STREQ(
	    t, type("\x1b[A\x1b[A\x1b[A\r", buf, sizeof(buf)), "first");
	KTEST_EXPECT_STREQ(
	    t, type("\x1b[A\x1b[Bnew\r", buf, sizeof(buf)), "new");
}

/* A line that does not fit is refused whole, never cut and run. */
static void long_line_is_refused(struct ktest *t)
{
	char buf[8];

	rl.nhistory = 0;
	KTEST_EXPECT_EQ(t, type_status("0123456\r", buf, sizeof(buf)), 7);
	KTEST_EXPECT_EQ(t, type_status("01234567\r", buf, sizeof(buf)), -E2BIG);
	KTEST_EXPECT_EQ(
	    t, type_status("0123456789\r", buf, sizeof(buf)), -E2BIG);
	/* Deleting a character afterwards does not make the line whole. */
	KTEST_EXPECT_EQ(
	    t, type_status("01234567\x7f\r", buf, sizeof(buf)), -E2BIG);
	/* Ctrl-U and Ctrl-C start over. */
	KTEST_EXPECT_STREQ(
	    t, type("0123456789\x15ok\r", buf, sizeof(buf)), "ok");
	KTEST_EXPECT_EQ(t, type_status("0123456789\x03", buf, sizeof(buf)), 0);
	/* Only the line that fitted and "ok" are in the history. */
	KTEST_EXPECT_EQ(t, rl.nhistory, 2);
}

static struct ktest_case readline_cases[] = {
	KTEST_CASE(plain_and_backspace),
	KTEST_CASE(cursor_movement),
	KTEST_CASE(history_walks),
	KTEST_CASE(long_line_is_refused),
	{},
};
KTEST_SUITE(shell_readline, readline_cases);

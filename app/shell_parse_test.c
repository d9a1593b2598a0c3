/*
 * app/shell_parse_test.c: suite shell_parse - command lines split into
 * commands and words as POSIX sh splits them (for the part of sh the shell
 * takes: blanks, ';', '...', "...", backslash, '>' and '>>'), and bad
 * quoting refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <kernel/ktest.h>
#include <app/shell_parse.h>

/*
 * Parse @line and render it as "[w1|w2][w3]": one bracket per command,
 * words between '|'. Return: the rendering in @buf, or "error: WHY".
 */
static const char *
render(const char *line, unsigned int flags, char *buf, size_t len)
{
	struct shell_words w;
	const char *why;
	char **argv;
	int pos = 0, argc;

	if (shell_parse(line, flags, &w, &why)) {
		snprintf(buf, len, "error: %s", why);
		return buf;
	}
	buf[0] = '\0';
	while ((argv = shell_words_next(&w, &pos, &argc))) {
		strlcat(buf, "[", len);
		for (int i = 0; i < argc; i++) {
			if (i)
				strlcat(buf, "|", len);
			strlcat(buf, argv[i], len);
		}
		strlcat(buf, "]", len);
	}
	shell_words_free(&w);
	return buf;
}

/* @line's redirections as "cmd:path" (">>" for append), one per command
 * that has one, or "error: WHY". */
static const char *redirects(const char *line, char *buf, size_t len)
{
	struct shell_words w;
	const char *why;
	int pos = 0, argc, cmd = 0;

	if (shell_parse(line, SHELL_PARSE_SH, &w, &why)) {
		snprintf(buf, len, "error: %s", why);
		return buf;
	}
	buf[0] = '\0';
	while (shell_words_next(&w, &pos, &argc)) {
		struct shell_redirect r = shell_words_redirect(&w, cmd);

		if (r.path) {
			char one[64];

			snprintf(one,
				 sizeof(one),
				 "%s%d:%s%s",
				 buf[0] ? " " : "",
				 cmd,
				 r.append ? ">>" : "",
				 r.path);
			strlcat(buf, one, len);
		}
		cmd++;
	}
	shell_words_free(&w);
	return buf;
}

/* '>' and '>>' as sh takes them: anywhere among a command's words, with
 * or without blanks, one per command, not inside quotes. */
static void redirections(struct ktest *t)
{
	char buf[128], words[128];

	KTEST_EXPECT_STREQ(t, redirects("echo hi > /x", buf, 128), "0:/x");
	KTEST_EXPECT_STREQ(
	    t, render("echo hi > /x", SHELL_PARSE_SH, words, 128), "[echo|hi]");
	KTEST_EXPECT_STREQ(t, redirects("echo a>f b", buf, 128), "0:f");
	KTEST_EXPECT_STREQ(
	    t, render("echo a>f b", SHELL_PARSE_SH, words, 128), "[echo|a|b]");
	KTEST_EXPECT_STREQ(t,
			   redirects("ls >> log; echo x; cat y >z", buf, 128),
			   "0:>>log 2:z");
	KTEST_EXPECT_STREQ(t, redirects(">made", buf, 128), "0:made");
	KTEST_EXPECT_STREQ(
	    t, render(">made; ls", SHELL_PARSE_SH, words, 128), "[][ls]");
	KTEST_EXPECT_STREQ(
	    t,
	    render("echo '>' \">\" \\>", SHELL_PARSE_SH, words, 128),
	    "[echo|>|>|>]");
	KTEST_EXPECT_STREQ(t, redirects("echo 'a>b'", buf, 128), "");
	KTEST_EXPECT_STREQ(t,
			   redirects("echo >", buf, 128),
			   "error: '>' with no file name after it");
	KTEST_EXPECT_STREQ(t,
			   redirects("echo > ; ls", buf, 128),
			   "error: '>' with no file name after it");
	KTEST_EXPECT_STREQ(t,
			   redirects("echo >a >b", buf, 128),
			   "error: two redirections of one command");
	/* Without SHELL_PARSE_REDIRECT (io's -c strings) '>' is a letter. */
	KTEST_EXPECT_STREQ(
	    t, render("pwrite >x", 0, words, 128), "[pwrite|>x]");
}

static void commands_and_words(struct ktest *t)
{
	char buf[128];

	KTEST_EXPECT_STREQ(
	    t, render("a b; c", SHELL_PARSE_SH, buf, 128), "[a|b][c]");
	KTEST_EXPECT_STREQ(
	    t, render("  a\tb  ", SHELL_PARSE_SH, buf, 128), "[a|b]");
	/* After a final ';' comes an empty command: the caller skips it. */
	KTEST_EXPECT_STREQ(
	    t, render("a;b ; ", SHELL_PARSE_SH, buf, 128), "[a][b][]");
	KTEST_EXPECT_STREQ(t, render("", SHELL_PARSE_SH, buf, 128), "[]");
	KTEST_EXPECT_STREQ(
	    t, render("a;b", SHELL_PARSE_SH, buf, 128), "[a][b]");
}

static void quotes_keep_separators(struct ktest *t)
{
	char buf[128];

	/* The -c string of io stays one word, ';' and all. */
	KTEST_EXPECT_STREQ(
	    t,
	    render("io -c \"pwrite 0 1; fsync\" f", SHELL_PARSE_SH, buf, 128),
	    "[io|-c|pwrite 0 1; fsync|f]");
	KTEST_EXPECT_STREQ(
	    t,
	    render("echo 'a; \"b\" \\c'; x", SHELL_PARSE_SH, buf, 128),
	    "[echo|a; \"b\" \\c][x]");
	/* Quotes anywhere in a word; "" is an empty word. */
	KTEST_EXPECT_STREQ(
	    t,
	    render("\"a\"'b'c \"\" x\"\"y", SHELL_PARSE_SH, buf, 128),
	    "[abc||xy]");
	/* In "...", backslash escapes only \" and \\. */
	KTEST_EXPECT_STREQ(
	    t,
	    render("\"a\\\"b\\\\c\\d\"", SHELL_PARSE_SH, buf, 128),
	    "[a\"b\\c\\d]");
	/* Outside quotes, backslash keeps the next character. */
	KTEST_EXPECT_STREQ(t,
			   render("a\\ b \\; c\\\"", SHELL_PARSE_SH, buf, 128),
			   "[a b|;|c\"]");
}

static void bad_quoting_is_refused(struct ktest *t)
{
	char buf[128];

	KTEST_EXPECT_STREQ(
	    t,
	    render("echo ok; echo \"abc", SHELL_PARSE_SH, buf, 128),
	    "error: unterminated \" quote");
	KTEST_EXPECT_STREQ(t,
			   render("echo 'it\"s", SHELL_PARSE_SH, buf, 128),
			   "error: unterminated ' quote");
	KTEST_EXPECT_STREQ(t,
			   render("echo a\\", SHELL_PARSE_SH, buf, 128),
			   "error: backslash at the end of the line");
	/* As in sh, a ';' needs a command before it. */
	KTEST_EXPECT_STREQ(t,
			   render("echo a;; b", SHELL_PARSE_SH, buf, 128),
			   "error: ';' with no command before it");
	KTEST_EXPECT_STREQ(t,
			   render(" ; b", SHELL_PARSE_SH, buf, 128),
			   "error: ';' with no command before it");
}

/* xfs_io splits a -c string at blanks and nothing else. */
static void blanks_only(struct ktest *t)
{
	char buf[128];

	KTEST_EXPECT_STREQ(t,
			   render("pwrite \"0\" 1;x  'y", 0, buf, 128),
			   "[pwrite|\"0\"|1;x|'y]");
}

/* No limit on words or length: every word comes back, in order. */
static void many_words_and_long_lines(struct ktest *t)
{
	enum { WORDS = 2000, LONG = 10000 };
	char *line = malloc(WORDS * 6 + LONG + 8);
	struct shell_words w;
	const char *why;
	char **argv, expect[8];
	int pos = 0, argc;
	size_t n = 0;

	KTEST_ASSERT_NOT_NULL(t, line);
	for (int i = 0; i < WORDS; i++)
		n += sprintf(line + n, "w%d ", i);
	memset(line + n, 'x', LONG);
	line[n + LONG] = '\0';
	KTEST_ASSERT_EQ(t, shell_parse(line, SHELL_PARSE_SH, &w, &why), 0);
	argv = shell_words_next(&w, &pos, &argc);
	KTEST_ASSERT_NOT_NULL(t, argv);
	KTEST_EXPECT_EQ(t, argc, WORDS + 1);
	for (int i = 0; i < WORDS && i < argc; i++) {
		snprintf(expect, sizeof(expect), "w%d", i);
		KTEST_EXPECT_STREQ(t, argv[i], expect);
	}
	KTEST_EXPECT_EQ(t, strlen(argv[WORDS]), LONG);
	KTEST_EXPECT_EQ(t, strspn(argv[WORDS], "x"), LONG);
	KTEST_EXPECT_NULL(t, shell_words_next(&w, &pos, &argc));
	shell_words_free(&w);
	free(line);
}

static struct ktest_case shell_parse_cases[] = {
	KTEST_CASE(commands_and_words),
	KTEST_CASE(redirections),
	KTEST_CASE(quotes_keep_separators),
	KTEST_CASE(bad_quoting_is_refused),
	KTEST_CASE(blanks_only),
	KTEST_CASE(many_words_and_long_lines),
	{},
};
KTEST_SUITE(shell_parse, shell_parse_cases);

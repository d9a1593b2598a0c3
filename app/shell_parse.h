/*
 * app/shell_parse.h: splitting a command line into commands and words.
 *
 * One parser for every command line the shell and its commands take apart,
 * so a line is either understood whole or refused whole:
 *
 *   struct shell_words w;
 *   const char *why;
 *   if (shell_parse(line, SHELL_PARSE_SH, &w, &why))
 *           printf("shell: %s\n", why);     // nothing was run
 *   for (char **argv = w.argv; ...)          // see shell_words_next()
 *   shell_words_free(&w);
 *
 * SHELL_PARSE_SH is the shell's own grammar, a small part of POSIX sh:
 * words end at blanks; ';' outside quotes ends a command; '...' keeps
 * everything literally; "..." keeps everything but \" and \\; outside
 * quotes a backslash keeps the next character. Quotes may sit anywhere in
 * a word ("a"'b'c is abc) and "" is an empty word. '>' FILE and '>>' FILE
 * outside quotes send a command's output to FILE (truncated, or appended
 * to), anywhere among its words ("echo a>f b" writes "a b"); a command may
 * be a redirection alone, which makes the file. An unterminated quote, a
 * backslash at the end of the line, a ';' with no command before it (";;",
 * a leading ';'), a '>' with no file name after it, or two redirections of
 * one command is an error; a line may end in ';'. With flags 0 the line is
 * split at blanks only (xfs_io's rule for a -c string).
 *
 * There is no limit on words or length beyond memory.
 */
#pragma once

#include <kernel/compiler.h>

#define SHELL_PARSE_COMMANDS (1u << 0) /* ';' separates commands */
#define SHELL_PARSE_QUOTES   (1u << 1) /* quotes and backslash */
#define SHELL_PARSE_REDIRECT (1u << 2) /* '>' and '>>' */
#define SHELL_PARSE_SH \
	(SHELL_PARSE_COMMANDS | SHELL_PARSE_QUOTES | SHELL_PARSE_REDIRECT)

/* Where a command's output goes: @path NULL for the console. */
struct shell_redirect {
	const char *path;
	bool append; /* '>>' */
};

struct shell_words {
	/*
	 * The words of each command followed by a NULL, command after
	 * command: "a b; c" is { "a", "b", NULL, "c", NULL }. So each
	 * command's words are an argv[] array ending in NULL.
	 */
	char **argv;
	int len;    /* entries in argv, NULLs included */
	char *text; /* the words' characters */
	/* One per command, in order (SHELL_PARSE_REDIRECT). */
	struct shell_redirect *redirect;
	int commands;
};

/*
 * shell_parse - split @line as @flags say.
 * Return: 0, or -EINVAL (bad quoting) / -ENOMEM with *@why set to a
 * sentence for the user; @w is then empty.
 */
int shell_parse(const char *line,
		unsigned int flags,
		struct shell_words *w,
		const char **why);
void shell_words_free(struct shell_words *w);

/*
 * shell_words_next - step to the next command: *@pos starts at 0.
 * Return: that command's argv (its argc in *@argc, 0 for the empty command
 * of an empty line or after a final ';'), or NULL after the last.
 */
char **shell_words_next(const struct shell_words *w, int *pos, int *argc);

/* The redirection of command number @cmd (0 first; path NULL if none). */
struct shell_redirect shell_words_redirect(const struct shell_words *w,
					   int cmd);

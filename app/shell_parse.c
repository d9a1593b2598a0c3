/*
 * app/shell_parse.c: the command-line parser (see shell_parse.h).
 *
 * One pass over the line. The words are copied, quotes removed, into one
 * buffer of strlen(line) + 1 bytes: a word never has more characters than
 * the text it came from, and its terminating NUL takes the place of the
 * blank, ';', '>' or end of line that ended it (a '>' before a word: the
 * '>' and the blank after it make room). argv grows as words come, the
 * redirections as commands end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <app/shell_parse.h>

struct parser {
	const char *s; /* next input character */
	char *out;     /* next output character in w->text */
	unsigned int flags;
	struct shell_words *w;
	int cap;	  /* entries allocated in w->argv */
	int redirect_cap; /* entries allocated in w->redirect */
	const char *why;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool ends_command(const struct parser *p, char c)
{
	return c == ';' && (p->flags & SHELL_PARSE_COMMANDS);
}

static bool is_redirect(const struct parser *p, char c)
{
	return c == '>' && (p->flags & SHELL_PARSE_REDIRECT);
}

/* The redirection slot of the command being parsed. */
static struct shell_redirect *this_redirect(struct parser *p)
{
	struct shell_words *w = p->w;
	struct shell_redirect *r;

	if (!(p->flags & SHELL_PARSE_REDIRECT))
		return NULL;
	if (w->commands == p->redirect_cap) {
		int cap = p->redirect_cap ? 2 * p->redirect_cap : 4;

		r = realloc(w->redirect, cap * sizeof(*r));
		if (!r) {
			p->why = "out of memory for the command line";
			return NULL;
		}
		memset(r + p->redirect_cap,
		       0,
		       (cap - p->redirect_cap) * sizeof(*r));
		w->redirect = r;
		p->redirect_cap = cap;
	}
	return &w->redirect[w->commands];
}

/* sh refuses a ';' with no command before it (";;", a leading ';'); a
 * redirection alone is a command. */
static bool command_has_words(struct parser *p)
{
	struct shell_words *w = p->w;

	if (w->len && w->argv[w->len - 1])
		return true;
	if (w->commands < p->redirect_cap && w->redirect[w->commands].path)
		return true;
	p->why = "';' with no command before it";
	return false;
}

static int push(struct parser *p, char *word)
{
	struct shell_words *w = p->w;

	if (!word && (p->flags & SHELL_PARSE_REDIRECT)) { /* a command ends */
		if (!this_redirect(p))
			return -ENOMEM;
		w->commands++;
	}

	if (w->len == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		char **argv = realloc(w->argv, cap * sizeof(*argv));

		if (!argv) {
			p->why = "out of memory for the command line";
			return -ENOMEM;
		}
		w->argv = argv;
		p->cap = cap;
	}
	w->argv[w->len++] = word;
	return 0;
}

/* Copy a quoted part, p->s just past the opening @quote. */
static int copy_quoted(struct parser *p, char quote)
{
	for (; *p->s != quote; p->s++) {
		if (!*p->s) {
			p->why = quote == '"' ? "unterminated \" quote"
					      : "unterminated ' quote";
			return -EINVAL;
		}
		if (quote == '"' && *p->s == '\\' &&
		    (p->s[1] == '"' || p->s[1] == '\\'))
			p->s++;
		*p->out++ = *p->s;
	}
	p->s++;
	return 0;
}

/* Copy one word, p->s on its first character, and NUL-terminate it. */
static int copy_word(struct parser *p)
{
	bool quotes = p->flags & SHELL_PARSE_QUOTES;
	int ret = 0;

	while (*p->s && !is_blank(*p->s) && !ends_command(p, *p->s) &&
	       !is_redirect(p, *p->s) && !ret) {
		char c = *p->s++;

		if (quotes && (c == '"' || c == '\'')) {
			ret = copy_quoted(p, c);
		} else if (quotes && c == '\\') {
			if (!*p->s) {
				p->why = "backslash at the end of the line";
				return -EINVAL;
			}
			*p->out++ = *p->s++;
		} else {
			*p->out++ = c;
		}
	}
	*p->out++ = '\0';
	return ret;
}

/* '>' or '>>' FILE, p->s on the first '>'. */
static int parse_redirect(struct parser *p)
{
	struct shell_redirect *r = this_redirect(p);
	bool append = p->s[1] == '>';
	char *path = p->out;
	int ret;

	if (!r)
		return -ENOMEM;
	p->s += append ? 2 : 1;
	while (is_blank(*p->s))
		p->s++;
	if (!*p->s || ends_command(p, *p->s) || is_redirect(p, *p->s)) {
		p->why = "'>' with no file name after it";
		return -EINVAL;
	}
	if (r->path) {
		p->why = "two redirections of one command";
		return -EINVAL;
	}
	ret = copy_word(p);
	if (!ret)
		*r = (struct shell_redirect){ path, append };
	return ret;
}

static int parse(struct parser *p)
{
	int ret;

	for (;;) {
		while (is_blank(*p->s))
			p->s++;
		if (!*p->s)
			return push(p, NULL);
		if (is_redirect(p, *p->s)) {
			ret = parse_redirect(p);
		} else if (ends_command(p, *p->s)) {
			p->s++;
			ret = command_has_words(p) ? push(p, NULL) : -EINVAL;
		} else {
			char *word = p->out;

			ret = copy_word(p);
			if (!ret)
				ret = push(p, word);
		}
		if (ret)
			return ret;
	}
}

int shell_parse(const char *line,
		unsigned int flags,
		struct shell_words *w,
		const char **why)
{
	struct parser p = { .s = line, .flags = flags, .w = w };
	int ret;

	*w = (struct shell_words){ 0 };
	w->text = malloc(strlen(line) + 1);
	if (!w->text) {
		*why = "out of memory for the command line";
		return -ENOMEM;
	}
	p.out = w->text;
	ret = parse(&p);
	if (ret) {
		shell_words_free(w);
		*why = p.why;
	}
	return ret;
}

void shell_words_free(struct shell_words *w)
{
	free(w->argv);
	free(w->text);
	free(w->redirect);
	*w = (struct shell_words){ 0 };
}

struct shell_redirect shell_words_redirect(const struct shell_words *w, int cmd)
{
	if (cmd < 0 || cmd >= w->commands)
		return (struct shell_redirect){ NULL, false };
	return w->redirect[cmd];
}

char **shell_words_next(const struct shell_words *w, int *pos, int *argc)
{
	char **argv;
	int n = 0;

	if (*pos >= w->len)
		return NULL;
	argv = w->argv + *pos;
	while (argv[n])
		n++;
	*pos += n + 1;
	*argc = n;
	return argv;
}

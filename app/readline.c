/*
 * app/readline.c: a small line editor (see readline.h).
 *
 * The line is redrawn from the cursor to the end after each edit; the
 * cursor is moved back with backspaces, which every terminal understands.
 */
#include <errno.h>
#include <string.h>
#include <app/readline.h>

#define KEY_CTRL(c) ((c)&0x1f)

enum key {
	KEY_LEFT = 0x100,
	KEY_RIGHT,
	KEY_UP,
	KEY_DOWN,
	KEY_HOME,
	KEY_END,
	KEY_DELETE,
};

struct line {
	char *buf;
	size_t len, cur, cap;
	int hist; /* history entry shown, nhistory = the line being typed */
	bool too_long; /* a key was refused: the line does not fit */
};

static void echo(struct readline *rl, const char *s, size_t n)
{
	if (n)
		rl->echo(rl->ctx, s, n);
}

static void move_left(struct readline *rl, size_t n)
{
	while (n--)
		echo(rl, "\b", 1);
}

/* Redraw from the cursor to the end, clearing @erase stale characters. */
static void redraw_tail(struct readline *rl, struct line *l, size_t erase)
{
	echo(rl, l->buf + l->cur, l->len - l->cur);
	for (size_t i = 0; i < erase; i++)
		echo(rl, " ", 1);
	move_left(rl, l->len - l->cur + erase);
}

/* Decode ESC [ X and ESC [ n ~ sequences. */
static int read_key(struct readline *rl)
{
	int c = rl->getc(rl->ctx), n = 0;

	if (c != 0x1b)
		return c;
	if ((c = rl->getc(rl->ctx)) != '[' && c != 'O')
		return c < 0 ? c : 0;
	for (;;) {
		c = rl->getc(rl->ctx);
		if (c >= '0' && c <= '9') {
			n = n * 10 + (c - '0');
			continue;
		}
		switch (c) {
		case 'A': return KEY_UP;
		case 'B': return KEY_DOWN;
		case 'C': return KEY_RIGHT;
		case 'D': return KEY_LEFT;
		case 'H': return KEY_HOME;
		case 'F': return KEY_END;
		case '~':
			return n == 3		  ? KEY_DELETE
			       : n == 1 || n == 7 ? KEY_HOME
			       : n == 4 || n == 8 ? KEY_END
						  : 0;
		default: return c < 0 ? c : 0;
		}
	}
}

static void insert_char(struct readline *rl, struct line *l, char c)
{
	if (l->len + 1 >= l->cap) {
		l->too_long = true;
		echo(rl, "\a", 1);
		return;
	}
	memmove(l->buf + l->cur + 1, l->buf + l->cur, l->len - l->cur);
	l->buf[l->cur] = c;
	l->len++;
	echo(rl, &c, 1);
	l->cur++;
	redraw_tail(rl, l, 0);
}

static void delete_at_cursor(struct readline *rl, struct line *l)
{
	if (l->cur == l->len)
		return;
	memmove(l->buf + l->cur, l->buf + l->cur + 1, l->len - l->cur - 1);
	l->len--;
	redraw_tail(rl, l, 1);
}

/* Replace the whole line with @s (history, Ctrl-U). */
static void replace_line(struct readline *rl, struct line *l, const char *s)
{
	size_t old = l->len, n = strnlen(s, l->cap - 1);

	move_left(rl, l->cur);
	memcpy(l->buf, s, n);
	l->len = l->cur = n;
	echo(rl, l->buf, n);
	for (size_t i = n; i < old; i++)
		echo(rl, " ", 1);
	move_left(rl, old > n ? old - n : 0);
}

static void history_step(struct readline *rl, struct line *l, int dir)
{
	int next = l->hist + dir;

	if (next < 0 || next > (int)rl->nhistory)
		return;
	l->hist = next;
	replace_line(rl, l, next == (int)rl->nhistory ? "" : rl->history[next]);
}

static void history_add(struct readline *rl, const char *s)
{
	if (!*s || (rl->nhistory && !strcmp(rl->history[rl->nhistory - 1], s)))
		return;
	if (rl->nhistory == READLINE_HISTORY) {
		memmove(rl->history[0],
			rl->history[1],
			sizeof(rl->history[0]) * (READLINE_HISTORY - 1));
		rl->nhistory--;
	}
	strncpy(rl->history[rl->nhistory], s, READLINE_MAX - 1);
	rl->history[rl->nhistory++][READLINE_MAX - 1] = '\0';
}

/* Apply one key; return true when the line is finished. */
static bool edit(struct readline *rl, struct line *l, int key)
{
	switch (key) {
	case '\r':
	case '\n': return true;
	case 0x7f:
	case '\b':
		if (l->cur) {
			l->cur--;
			echo(rl, "\b", 1);
			delete_at_cursor(rl, l);
		}
		break;
	case KEY_DELETE: delete_at_cursor(rl, l); break;
	case KEY_LEFT:
		if (l->cur) {
			l->cur--;
			echo(rl, "\b", 1);
		}
		break;
	case KEY_RIGHT:
		if (l->cur < l->len)
			echo(rl, l->buf + l->cur++, 1);
		break;
	case KEY_HOME:
	case KEY_CTRL('a'):
		move_left(rl, l->cur);
		l->cur = 0;
		break;
	case KEY_END:
	case KEY_CTRL('e'):
		echo(rl, l->buf + l->cur, l->len - l->cur);
		l->cur = l->len;
		break;
	case KEY_UP: history_step(rl, l, -1); break;
	case KEY_DOWN: history_step(rl, l, 1); break;
	case KEY_CTRL('u'):
		replace_line(rl, l, "");
		l->too_long = false;
		break;
	case KEY_CTRL('c'):
		echo(rl, "^C", 2);
		l->len = 0;
		l->too_long = false;
		return true;
	default:
		if (key >= ' ' && key < 0x7f)
			insert_char(rl, l, (char)key);
	}
	return false;
}

int readline_read(struct readline *rl, char *buf, size_t len)
{
	struct line l = { .buf = buf, .cap = len, .hist = (int)rl->nhistory };
	int key;

	if (len == 0)
		return -1;
	while ((key = read_key(rl)) >= 0) {
		if (edit(rl, &l, key)) {
			buf[l.len] = '\0';
			echo(rl, "\n", 1);
			if (l.too_long)
				return -E2BIG;
			history_add(rl, buf);
			return (int)l.len;
		}
	}
	buf[l.len] = '\0';
	return -1;
}

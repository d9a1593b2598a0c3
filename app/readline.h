/*
 * app/readline.h: line editing for the console shell.
 *
 * Keys: printable characters insert at the cursor; Backspace/Delete;
 * Left/Right, Home/End (also Ctrl-A/Ctrl-E); Up/Down walk the history;
 * Ctrl-U clears the line; Ctrl-C abandons it. Terminal escape sequences
 * (VT100/xterm) are decoded here. Input and echo go through callbacks so
 * the editor can be driven by a test as well as by the UART.
 */
#pragma once

#include <kernel/compiler.h>

#define READLINE_MAX	 1024
#define READLINE_HISTORY 16

struct readline {
	int (*getc)(void *ctx); /* next key byte, <0: end */
	void (*echo)(void *ctx, const char *s, size_t n);
	void *ctx;
	char history[READLINE_HISTORY][READLINE_MAX];
	unsigned int nhistory; /* entries stored, newest last */
};

/* Read one line into @buf (NUL-terminated). A key that would make the line
 * longer than @len - 1 is refused with a bell and the whole line with it.
 * Return: its length, -E2BIG for a line that did not fit (@buf holds its
 * start; it is not added to the history), or -1 when input ended before
 * a newline. */
int readline_read(struct readline *rl, char *buf, size_t len);

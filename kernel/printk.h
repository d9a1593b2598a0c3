/*
 * kernel/printk.h: the kernel log on the console.
 *
 * printk(level, fmt, ...) formats with newlib's vsnprintf and writes one
 * line prefixed with "[seconds.micros] " under the console lock, so lines
 * from different harts never interleave. Lines above the console level
 * (bootarg loglevel=N, `quiet` = warnings only) are dropped.
 * console_write() writes raw text (KTAP, the shell) under the same lock.
 * A printk or console_printf line longer than CONSOLE_LINE_MAX - 1 bytes is
 * cut, and its end says so: " [... N bytes cut]" and a newline.
 * Safe from any context, including interrupt handlers and panic.
 */
#pragma once

#include <stdarg.h>
#include <kernel/compiler.h>

#define CONSOLE_LINE_MAX 512

#define LOGLEVEL_EMERG	 0
#define LOGLEVEL_ERR	 3
#define LOGLEVEL_WARNING 4
#define LOGLEVEL_NOTICE	 5
#define LOGLEVEL_INFO	 6
#define LOGLEVEL_DEBUG	 7

__printf(2, 3) void printk(int level, const char *fmt, ...);
void vprintk(int level, const char *fmt, va_list ap);
void console_write(const char *s, size_t len);
__printf(1, 2) void console_printf(const char *fmt, ...);
void console_set_level(int level);
/* Take the console from whoever holds it: panic only. */
void console_force_unlock(void);
/* Raw character output, set by the console driver through
 * console_register, which first writes what was printed before it: the
 * first CONSOLE_EARLY_MAX bytes, then a line saying how many were lost.
 * console_unregister goes back to keeping output (tests). */
#define CONSOLE_EARLY_MAX 4096
typedef void (*console_putc_t)(char c);
extern console_putc_t console_putc;
void console_register(console_putc_t putc);
console_putc_t console_unregister(void);

#define pr_emerg(...)  printk(LOGLEVEL_EMERG, __VA_ARGS__)
#define pr_err(...)    printk(LOGLEVEL_ERR, __VA_ARGS__)
#define pr_warn(...)   printk(LOGLEVEL_WARNING, __VA_ARGS__)
#define pr_notice(...) printk(LOGLEVEL_NOTICE, __VA_ARGS__)
#define pr_info(...)   printk(LOGLEVEL_INFO, __VA_ARGS__)
#define pr_debug(...)  printk(LOGLEVEL_DEBUG, __VA_ARGS__)

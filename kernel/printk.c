/*
 * kernel/printk.c: formatted, line-atomic console output.
 *
 * Lock: console_lock (spinlock, irqsave) serialises whole lines. Under panic
 * the lock is broken so the report always gets out.
 */
#include <stdio.h>
#include <string.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/arch.h>
#include <kernel/time.h>
#include <kernel/init.h>
#include <kernel/bootargs.h>

static DEFINE_SPINLOCK(console_lock);
static int console_level = LOGLEVEL_INFO;

static void null_putc(char c)
{
	(void)c;
}

void (*console_putc)(char c) = null_putc;

static void emit(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			console_putc('\r');
		console_putc(s[i]);
	}
}

void console_write(const char *s, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	emit(s, len);
	spin_unlock_irqrestore(&console_lock, flags);
}

void console_printf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		console_write(buf, MIN((size_t)n, sizeof(buf) - 1));
}

void vprintk(int level, const char *fmt, va_list ap)
{
	char buf[512];
	uint64_t ns = time_ns();
	int n;

	if (level > console_level)
		return;
	n = snprintf(buf,
		     sizeof(buf),
		     "[%5llu.%06llu] ",
		     (unsigned long long)(ns / 1000000000),
		     (unsigned long long)(ns / 1000 % 1000000));
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (n >= (int)sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	console_write(buf, n);
}

void printk(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

void console_set_level(int level)
{
	console_level = level;
}

void console_force_unlock(void)
{
	__atomic_store_n(&console_lock.locked, 0, __ATOMIC_RELEASE);
	console_lock.owner = NULL;
}

static int printk_init(void)
{
	if (bootarg_present("quiet"))
		console_level = LOGLEVEL_WARNING;
	console_level = (int)bootarg_get_long("loglevel", console_level);
	return 0;
}
INIT_HOOK(printk, printk_init, INIT_LEVEL_EARLY);

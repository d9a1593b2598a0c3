/*
 * kernel/printk.c: formatted, line-atomic console output.
 *
 * Lock: console_lock (spinlock, irqsave) serialises whole lines and guards
 * the early buffer and console_putc. Under panic the lock is broken so the
 * report always gets out.
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

/*
 * Output before a console registers (an INIT_LEVEL_EARLY hook's warning,
 * say a malformed loglevel=) is kept here, under console_lock, and written
 * out first when one does (console_register); what does not fit is
 * counted and reported then.
 */
static char early_buf[CONSOLE_EARLY_MAX];
static size_t early_len, early_lost;

static void early_putc(char c)
{
	if (early_len < CONSOLE_EARLY_MAX)
		early_buf[early_len++] = c;
	else
		early_lost++;
}

console_putc_t console_putc = early_putc;

static void emit(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			console_putc('\r');
		console_putc(s[i]);
	}
}

void console_register(console_putc_t putc)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);

	console_putc = putc;
	for (size_t i = 0; i < early_len; i++)
		putc(early_buf[i]);
	if (early_lost) {
		char mark[64];
		int n = snprintf(mark,
				 sizeof(mark),
				 "[... %zu bytes of early output lost]\n",
				 early_lost);

		emit(mark, (size_t)n);
	}
	early_len = early_lost = 0;
	spin_unlock_irqrestore(&console_lock, flags);
}

console_putc_t console_unregister(void)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	console_putc_t was = console_putc;

	console_putc = early_putc;
	spin_unlock_irqrestore(&console_lock, flags);
	return was;
}

void console_write(const char *s, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	emit(s, len);
	spin_unlock_irqrestore(&console_lock, flags);
}

/*
 * A formatted line of @total bytes did not fit in @buf[@size]: end what was
 * kept with a mark that says how much is missing, so a cut line never
 * passes for a whole one. Return: the length now in @buf.
 */
static size_t mark_cut(char *buf, size_t size, size_t total)
{
	static const char fmt[] = " [... %zu bytes cut]\n";
	size_t room = snprintf(NULL, 0, fmt, total), kept = size - 1 - room;

	/* The count may have fewer digits than @total: keep one more byte. */
	room = snprintf(NULL, 0, fmt, total - kept);
	kept = size - 1 - room;
	return kept + snprintf(buf + kept, room + 1, fmt, total - kept);
}

void console_printf(const char *fmt, ...)
{
	char buf[CONSOLE_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = mark_cut(buf, sizeof(buf), n);
	if (n > 0)
		console_write(buf, n);
}

void vprintk(int level, const char *fmt, va_list ap)
{
	char buf[CONSOLE_LINE_MAX];
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
	if (n >= (int)sizeof(buf))
		n = mark_cut(buf, sizeof(buf), n);
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

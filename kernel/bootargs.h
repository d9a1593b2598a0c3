/*
 * kernel/bootargs.h: the kernel command line (/chosen/bootargs).
 *
 * Words are `key`, `key=value` or `key="value with spaces"`; everything
 * after a lone `--` is the shell's command line. Read-only after boot.
 */
#pragma once

#include <kernel/compiler.h>

/* Copy the value of `key=...` into buf; false if the key is absent or
 * its value does not fit (with a warning). */
bool bootarg_get(const char *key, char *buf, size_t len);
bool bootarg_present(const char *key);
long bootarg_get_long(const char *key, long fallback);
/* The text after ` -- `, or NULL. */
const char *bootarg_command(void);

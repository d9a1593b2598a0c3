/*
 * kernel/bootargs.c: look-ups in /chosen/bootargs.
 */
#include <stdlib.h>
#include <string.h>
#include <kernel/bootargs.h>
#include <kernel/platform.h>
#include <kernel/printk.h>

/* Find the start of word @key (`key` or `key=`), stopping at `--`. */
static const char *find_word(const char *key)
{
	size_t n = strlen(key);
	const char *p = platform.bootargs;

	while (p && *p) {
		p += strspn(p, " ");
		if (!strncmp(p, "--", 2) && (p[2] == ' ' || p[2] == '\0'))
			return NULL;
		if (!strncmp(p, key, n) &&
		    (p[n] == '=' || p[n] == ' ' || !p[n]))
			return p;
		if (*p == '\0')
			break;
		/* skip the word, honouring quotes */
		bool quoted = false;
		while (*p && (quoted || *p != ' ')) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
	}
	return NULL;
}

bool bootarg_present(const char *key)
{
	return find_word(key) != NULL;
}

bool bootarg_get(const char *key, char *buf, size_t len)
{
	const char *p = find_word(key);
	size_t i = 0;
	bool quoted = false;

	if (!p || p[strlen(key)] != '=' || len == 0)
		return false;
	p += strlen(key) + 1;
	for (; *p && (quoted || *p != ' '); p++) {
		if (*p == '"') {
			quoted = !quoted;
			continue;
		}
		if (i + 1 == len) {
			pr_warn(
			    "bootargs: ignoring %s: value longer than %zu\n",
			    key,
			    len - 1);
			return false;
		}
		buf[i++] = *p;
	}
	buf[i] = '\0';
	return true;
}

long bootarg_get_long(const char *key, long fallback)
{
	char buf[32], *end;
	long v;

	if (!bootarg_get(key, buf, sizeof(buf)))
		return fallback;
	v = strtol(buf, &end, 0);
	if (end == buf || *end) {
		pr_warn("bootargs: ignoring malformed %s=%s\n", key, buf);
		return fallback;
	}
	return v;
}

const char *bootarg_command(void)
{
	const char *p = platform.bootargs;

	while (p && (p = strstr(p, "--")) != NULL) {
		bool starts = p == platform.bootargs || p[-1] == ' ';
		if (starts && (p[2] == ' ' || p[2] == '\0'))
			return p[2] ? p + 3 : p + 2;
		p += 2;
	}
	return NULL;
}

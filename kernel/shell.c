/*
 * kernel/shell.c: command parsing and the built-in commands.
 *
 * A line is split at ';' into commands and each command into words
 * (double quotes group words). The interactive loop reads lines through
 * the line editor (kernel/readline.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/readline.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <drivers/uart_ns16550.h>
#include <mm/page_alloc.h>

#define MAX_ARGS 32

extern const struct shell_command __shell_commands_start[],
    __shell_commands_end[];
extern const struct shell_bench __shell_benches_start[], __shell_benches_end[];

static bool powering_off;

/* Split @s into words in place; return the count. */
static int split_words(char *s, char **argv, int max)
{
	int argc = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || argc == max)
			return argc;
		bool quoted = *s == '"';
		if (quoted)
			s++;
		argv[argc++] = s;
		while (*s && (quoted ? *s != '"' : (*s != ' ' && *s != '\t')))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static const struct shell_command *find_command(const char *name)
{
	for (const struct shell_command *c = __shell_commands_start;
	     c < __shell_commands_end;
	     c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int run_command(char *cmd)
{
	char *argv[MAX_ARGS + 1];
	int argc = split_words(cmd, argv, MAX_ARGS);
	const struct shell_command *c;

	if (argc == 0)
		return 0;
	argv[argc] = NULL;
	c = find_command(argv[0]);
	if (!c) {
		console_printf("%s: command not found (try 'help')\n", argv[0]);
		return 127;
	}
	return c->fn(argc, argv);
}

int shell_run_line(char *line)
{
	int status = 0;
	char *save, *cmd;

	for (cmd = strtok_r(line, ";", &save); cmd && !powering_off;
	     cmd = strtok_r(NULL, ";", &save))
		status = run_command(cmd);
	return status;
}

static int console_getc(void *ctx)
{
	(void)ctx;
	return uart_getc();
}

static void console_echo(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	console_write(s, n);
}

static struct readline console_rl = { .getc = console_getc,
				      .echo = console_echo };

int shell_main(const char *cmdline)
{
	char line[READLINE_MAX];
	int status = 0;

	if (cmdline) {
		/* The boot arguments are not limited to a typed line's size. */
		char *copy = strdup(cmdline);

		if (!copy) {
			console_printf("shell: no memory for the command\n");
			return 1;
		}
		status = shell_run_line(copy);
		free(copy);
		return status;
	}
	console_printf("whole shell: 'help' lists the commands\n");
	while (!powering_off) {
		console_printf("whole> ");
		if (readline_read(&console_rl, line, sizeof(line)) >= 0)
			status = shell_run_line(line);
	}
	return status;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (const struct shell_command *c = __shell_commands_start;
	     c < __shell_commands_end;
	     c++)
		console_printf("  %-28s %s\n", c->usage, c->help);
	return 0;
}
SHELL_COMMAND(help, cmd_help, "help", "list the commands");

static int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		console_printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	console_printf("\n");
	return 0;
}
SHELL_COMMAND(echo, cmd_echo, "echo WORD...", "print the words");

static int cmd_uptime(int argc, char **argv)
{
	uint64_t ns = time_ns();

	(void)argc;
	(void)argv;
	console_printf("up %llu.%03llu s\n",
		       (unsigned long long)(ns / NSEC_PER_SEC),
		       (unsigned long long)(ns / NSEC_PER_MSEC % 1000));
	return 0;
}
SHELL_COMMAND(uptime, cmd_uptime, "uptime", "time since boot");

static void ps_one(struct task *t, void *arg)
{
	static const char *const states[] = { "run", "sleep", "dead" };

	(void)arg;
	console_printf("%5d  %-5s %4d  %8llu  %s\n",
		       t->tid,
		       states[t->state],
		       t->on_cpu && t->cpu ? (int)t->cpu->id : -1,
		       (unsigned long long)(t->runtime_ns / NSEC_PER_MSEC),
		       t->name);
}

static int cmd_ps(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	console_printf("  TID  STATE  CPU  TIME(ms)  NAME\n");
	task_for_each(ps_one, NULL);
	return 0;
}
SHELL_COMMAND(ps, cmd_ps, "ps", "tasks, their state and the hart running them");

static int cmd_mem(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	console_printf("pages: %lu free of %lu (%lu KiB free)\n",
		       pages_free(),
		       pages_total(),
		       pages_free() * (PAGE_SIZE / 1024));
	return 0;
}
SHELL_COMMAND(mem, cmd_mem, "mem", "free and total memory pages");

static int cmd_test(int argc, char **argv)
{
	return ktest_run(argc > 1 ? argv[1] : "*") ? 1 : 0;
}
SHELL_COMMAND(test,
	      cmd_test,
	      "test [GLOB]",
	      "run the test suites matching GLOB");

static int cmd_poweroff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	powering_off = true;
	return 0;
}
static int cmd_bench(int argc, char **argv)
{
	const struct shell_bench *b;

	for (b = __shell_benches_start; argc > 1 && b < __shell_benches_end;
	     b++)
		if (!strcmp(b->name, argv[1]))
			return b->fn(argc - 1, argv + 1);
	for (b = __shell_benches_start; b < __shell_benches_end; b++)
		printf("usage: bench %s\n", b->usage);
	return 1;
}
SHELL_COMMAND(bench, cmd_bench, "bench NAME [ARGS]", "run a benchmark");

SHELL_COMMAND(poweroff, cmd_poweroff, "poweroff", "stop the machine");

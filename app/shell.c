/*
 * app/shell.c: command parsing and the built-in commands.
 *
 * A line is parsed whole first (app/shell_parse.c: ';', quotes,
 * backslash); a line that does not parse runs nothing. The interactive
 * loop reads lines through the line editor (app/readline.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <kernel/arch.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <app/readline.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <app/shell_parse.h>
#include <kernel/time.h>
#include <drivers/uart.h>
#include <mm/page_alloc.h>

extern const struct shell_command __shell_commands_start[],
    __shell_commands_end[];
extern const struct shell_bench __shell_benches_start[], __shell_benches_end[];

static bool powering_off;

static const struct shell_command *find_command(const char *name)
{
	for (const struct shell_command *c = __shell_commands_start;
	     c < __shell_commands_end;
	     c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int shell_usage(const char *name)
{
	const struct shell_command *c = find_command(name);

	console_printf("usage: %s\n", c ? c->usage : name);
	return 2;
}

/* Run one command; @argc > 0. */
static int run_command(int argc, char **argv)
{
	const struct shell_command *c = find_command(argv[0]);

	if (!c) {
		console_printf("%s: command not found (try 'help')\n", argv[0]);
		return 127;
	}
	return c->fn(argc, argv);
}

/*
 * Run one command with its output in @r's file: standard output (fd 1)
 * points there while it runs. Messages about the command itself (not
 * found, usage) and the kernel's log stay on the console.
 */
static int run_redirected(int argc, char **argv, struct shell_redirect r)
{
	int fd = open(r.path,
		      O_WRONLY | O_CREAT | (r.append ? O_APPEND : O_TRUNC),
		      0644),
	    saved, status = 0;

	if (fd < 0) {
		console_printf("shell: %s: %s\n", r.path, strerror(errno));
		return 1;
	}
	fflush(stdout);
	saved = dup(1);
	if (saved < 0 || dup2(fd, 1) < 0) {
		console_printf("shell: %s: %s\n", r.path, strerror(errno));
		status = 1;
	} else if (argc) {
		status = run_command(argc, argv);
		fflush(stdout);
	}
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	close(fd);
	return status;
}

int shell_run_line(const char *line)
{
	struct shell_words w;
	const char *why;
	char **argv;
	int status = 0, pos = 0, argc;

	if (shell_parse(line, SHELL_PARSE_SH, &w, &why)) {
		console_printf("shell: %s; nothing was run\n", why);
		return 2;
	}
	/* The empty command after a final ';' keeps the status, as in sh. */
	for (int cmd = 0;
	     !powering_off && (argv = shell_words_next(&w, &pos, &argc));
	     cmd++) {
		struct shell_redirect r = shell_words_redirect(&w, cmd);

		if (r.path)
			status = run_redirected(argc, argv, r);
		else if (argc)
			status = run_command(argc, argv);
		fflush(stdout);
	}
	shell_words_free(&w);
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

uint64_t shell_started_ns;

int shell_main(const char *cmdline)
{
	static char line[READLINE_MAX];
	int status = 0, len;

	shell_started_ns = time_counter_to_ns(arch_counter());
	if (cmdline)
		return shell_run_line(cmdline);
	console_printf("whole shell: 'help' lists the commands\n");
	while (!powering_off) {
		console_printf("whole> ");
		len = readline_read(&console_rl, line, sizeof(line));
		if (len == -E2BIG) {
			console_printf("shell: line longer than %d characters; "
				       "nothing was run\n",
				       READLINE_MAX - 1);
			status = 2;
		} else if (len >= 0) {
			status = shell_run_line(line);
		}
	}
	return status;
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 1)
		return shell_usage(argv[0]);
	for (const struct shell_command *c = __shell_commands_start;
	     c < __shell_commands_end;
	     c++)
		printf("  %-28s %s\n", c->usage, c->help);
	return 0;
}
SHELL_COMMAND(help, cmd_help, "help", "list the commands");

static int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("%s%s", i > 1 ? " " : "", argv[i]);
	printf("\n");
	return 0;
}
SHELL_COMMAND(echo, cmd_echo, "echo WORD...", "print the words");

static int cmd_uptime(int argc, char **argv)
{
	uint64_t ns = time_ns();

	if (argc > 1)
		return shell_usage(argv[0]);
	printf("up %llu.%03llu s\n",
	       (unsigned long long)(ns / NSEC_PER_SEC),
	       (unsigned long long)(ns / NSEC_PER_MSEC % 1000));
	return 0;
}
SHELL_COMMAND(uptime, cmd_uptime, "uptime", "time since boot");

static void ps_one(struct task *t, void *arg)
{
	static const char *const states[] = { "run", "sleep", "dead" };

	(void)arg;
	printf("%5d  %-5s %4d  %8llu  %s\n",
	       t->tid,
	       states[t->state],
	       t->on_cpu && t->cpu ? (int)t->cpu->id : -1,
	       (unsigned long long)(t->runtime_ns / NSEC_PER_MSEC),
	       t->name);
}

static int cmd_ps(int argc, char **argv)
{
	if (argc > 1)
		return shell_usage(argv[0]);
	printf("  TID  STATE  CPU  TIME(ms)  NAME\n");
	task_for_each(ps_one, NULL);
	return 0;
}
SHELL_COMMAND(ps, cmd_ps, "ps", "tasks, their state and the hart running them");

static int cmd_mem(int argc, char **argv)
{
	if (argc > 1)
		return shell_usage(argv[0]);
	printf("pages: %lu free of %lu (%lu KiB free)\n",
	       pages_free(),
	       pages_total(),
	       pages_free() * (PAGE_SIZE / 1024));
	return 0;
}
SHELL_COMMAND(mem, cmd_mem, "mem", "free and total memory pages");

static int cmd_test(int argc, char **argv)
{
	if (argc > 2)
		return shell_usage(argv[0]);
	return ktest_run(argc > 1 ? argv[1] : "*") ? 1 : 0;
}
SHELL_COMMAND(test,
	      cmd_test,
	      "test [GLOB]",
	      "run the test suites matching GLOB");

static int cmd_poweroff(int argc, char **argv)
{
	if (argc > 1)
		return shell_usage(argv[0]);
	powering_off = true;
	return 0;
}
int shell_bench_usage(const char *name)
{
	for (const struct shell_bench *b = __shell_benches_start;
	     b < __shell_benches_end;
	     b++)
		if (!strcmp(b->name, name))
			console_printf("usage: bench %s\n", b->usage);
	return 2;
}

SHELL_COMMAND(poweroff, cmd_poweroff, "poweroff", "stop the machine");

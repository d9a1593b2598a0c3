/*
 * kernel/shell.h: the serial-console shell, as the kernel and its programs
 * see it. The shell itself is a program (app/shell.c); this header is the
 * contract: kmain calls shell_main, and a command registers itself here
 * from app/ (or from the kernel: kernel/trace.c's `trace`), so the kernel
 * never includes a header of app/ (tools/test_layering.py).
 *
 * shell_main(NULL) reads commands interactively until `poweroff`;
 * shell_main("cmd; cmd") runs those commands without a prompt. Either way
 * the return value is the status of the last command (0 = success), which
 * becomes QEMU's exit code.
 *
 * A command line is parsed whole before anything runs (app/shell_parse.h:
 * ';', quotes, backslash, no limit on words or length); a line that does
 * not parse runs nothing and says why. A typed line holds READLINE_MAX - 1
 * characters; a longer one is refused whole.
 *
 * Commands register with SHELL_COMMAND(name, fn, "usage", "help text");
 * fn(argc, argv) returns 0 or a non-zero status. A command given words it
 * does not take says so (shell_usage) rather than ignoring them. Benchmarks
 * register with SHELL_BENCH(name, fn, "usage") and run as `bench NAME ARGS...`,
 * so each subsystem keeps its own (fn gets argv[0] == NAME).
 */
#pragma once

#include <stdint.h>
#include <kernel/compiler.h>

struct shell_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

#define SHELL_COMMAND(cname, cfn, cusage, chelp)                     \
	static const struct shell_command __shell_cmd_##cname __used \
	    __section(".shell_commands") = { #cname, cfn, cusage, chelp }

struct shell_bench {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	/* prints app/bench.h's JSON lines; run by plain `bench` */
	bool json;
	/* run by plain `bench` after every other: what it does slows what
	 * would come after it in the same boot (app/bench.c, run_all) */
	bool last;
};

/* One entry of .shell_benches; the three below name its two flags. */
#define __SHELL_BENCH(bname, bfn, busage, bjson, blast)              \
	static const struct shell_bench __shell_bench_##bname __used \
	    __section(                                               \
		".shell_benches") = { #bname, bfn, busage, bjson, blast }
#define SHELL_BENCH(bname, bfn, busage) \
	__SHELL_BENCH(bname, bfn, busage, false, false)
#define SHELL_BENCH_JSON(bname, bfn, busage) \
	__SHELL_BENCH(bname, bfn, busage, true, false)
#define SHELL_BENCH_JSON_LAST(bname, bfn, busage) \
	__SHELL_BENCH(bname, bfn, busage, true, true)

/* The time counter (rdtime) in ns when the shell started, the end of the
 * boot: since the machine started (QEMU virt's timer counts from its
 * start; time_ns()'s 0 is later, in kmain). */
extern uint64_t shell_started_ns;
int shell_main(const char *cmdline);
/* Run one command line (may hold several commands separated by ';').
 * Return: the last command's status, 2 if the line does not parse. */
int shell_run_line(const char *line);
/* Print "usage: " and command @name's usage line. Return: 2. */
int shell_usage(const char *name);
/* The same for benchmark @name ("usage: bench ..."). Return: 2. */
int shell_bench_usage(const char *name);

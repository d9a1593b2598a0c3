/*
 * app/bench.c: the JSON benchmark harness (app/bench.h) and the
 * `bench` shell command that runs benchmarks by name.
 *
 *   bench                  every JSON benchmark, in table order
 *   bench NAME...          the named JSON benchmarks
 *   bench -r N NAME...     N repetitions per figure instead of 5
 *   bench -l               list them all
 *   bench fs|blk [ARGS]    the older benchmarks with their own output
 *
 * Locking: none; bench_reps_now is written by the shell task only, before
 * the benchmarks it runs read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <app/bench.h>
#include <kernel/compiler.h>
#include <kernel/time.h>

extern const struct shell_bench __shell_benches_start[], __shell_benches_end[];

#define BENCH_DEFAULT_REPS 5

static int bench_reps_now = BENCH_DEFAULT_REPS;

int bench_reps(void)
{
	return bench_reps_now;
}

void bench_add(struct bench_samples *s, uint64_t v)
{
	if (s->n < BENCH_MAX_SAMPLES)
		s->v[s->n++] = v;
}

static void sort_samples(struct bench_samples *s)
{
	for (unsigned int i = 1; i < s->n; i++)
		for (unsigned int j = i; j > 0 && s->v[j - 1] > s->v[j]; j--) {
			uint64_t t = s->v[j];

			s->v[j] = s->v[j - 1];
			s->v[j - 1] = t;
		}
}

/* @v / 10^@decimals as a JSON number. */
static void put_fixed(char *out, size_t size, uint64_t v, int decimals)
{
	uint64_t scale = 1;

	for (int i = 0; i < decimals; i++)
		scale *= 10;
	if (!decimals)
		snprintf(out, size, "%llu", (unsigned long long)v);
	else
		snprintf(out,
			 size,
			 "%llu.%0*llu",
			 (unsigned long long)(v / scale),
			 decimals,
			 (unsigned long long)(v % scale));
}

static void put_mode(char *out, size_t size, const char *mode)
{
	if (mode)
		snprintf(out, size, "\"%s\"", mode);
	else
		snprintf(out, size, "null");
}

void bench_print(const char *bench,
		 const char *mode,
		 const char *params,
		 const char *metric,
		 const char *unit,
		 struct bench_samples *s,
		 int decimals)
{
	char med[32], lo[32], hi[32], m[40];

	if (!s->n) {
		bench_skip(bench, mode, "no sample");
		return;
	}
	sort_samples(s);
	put_fixed(med, sizeof(med), s->v[s->n / 2], decimals);
	put_fixed(lo, sizeof(lo), s->v[0], decimals);
	put_fixed(hi, sizeof(hi), s->v[s->n - 1], decimals);
	put_mode(m, sizeof(m), mode);
	printf("{\"bench\": \"%s\", \"mode\": %s, \"params\": {%s}, "
	       "\"metric\": \"%s\", \"unit\": \"%s\", \"median\": %s, "
	       "\"min\": %s, \"max\": %s, \"samples\": %u}\n",
	       bench,
	       m,
	       params ? params : "",
	       metric,
	       unit,
	       med,
	       lo,
	       hi,
	       s->n);
}

void bench_skip(const char *bench, const char *mode, const char *why)
{
	char m[40];

	put_mode(m, sizeof(m), mode);
	printf("{\"bench\": \"%s\", \"mode\": %s, \"skipped\": \"%s\"}\n",
	       bench,
	       m,
	       why);
}

uint64_t bench_rate(uint64_t count, uint64_t ns, int decimals)
{
	uint64_t scale = 1;

	for (int i = 0; i < decimals; i++)
		scale *= 10;
	/* count * scale * 1e9 / ns without overflow for count < 2^40 */
	return count * scale * (NSEC_PER_SEC / 1000) / MAX(ns / 1000, 1);
}

static const struct shell_bench *bench_find(const char *name)
{
	for (const struct shell_bench *b = __shell_benches_start;
	     b < __shell_benches_end;
	     b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

/* Plain `bench`'s order: the section's, but the ones marked last (and
 * the non-JSON ones, which it does not run) apart. @pass: 0 non-JSON, 1
 * JSON, 2 JSON marked last. */
static bool in_pass(const struct shell_bench *b, int pass)
{
	return pass == (b->json ? 1 + b->last : 0);
}

static int bench_list(void)
{
	for (int pass = 0; pass < 3; pass++)
		for (const struct shell_bench *b = __shell_benches_start;
		     b < __shell_benches_end;
		     b++)
			if (in_pass(b, pass))
				printf("usage: bench %s\n", b->usage);
	return 0;
}

static int run_json(const struct shell_bench *b)
{
	char *argv[] = { (char *)b->name, NULL };

	return b->fn(1, argv);
}

/*
 * Every JSON benchmark, those marked last after the others: under TCG
 * cached_hit_lock_acquisitions (a 64 MiB mapping faulted in and unmapped)
 * shrinks every hart's software TLB to its least, and the copies after
 * it ran 2.4-3.5 times slower until the tick's TLB sizing (kernel/timer.h)
 * grows it again, within ~64 ms of work (docs/benchmarks.md): it still
 * comes after the copy-bound ones, so none of them pays that.
 */
static int run_all(void)
{
	int status = 0;

	for (int pass = 1; pass < 3; pass++)
		for (const struct shell_bench *b = __shell_benches_start;
		     b < __shell_benches_end;
		     b++)
			if (in_pass(b, pass) && run_json(b))
				status = 1;
	return status;
}

/* -r N: repetitions. Return: words used (0 or 2), or -1 if bad. */
static int parse_reps(int argc, char **argv)
{
	char *end;
	long n;

	if (argc < 2 || strcmp(argv[1], "-r"))
		return 0;
	if (argc < 3)
		return -1;
	n = strtol(argv[2], &end, 10);
	if (*end || n < 1 || n > BENCH_MAX_SAMPLES)
		return -1;
	bench_reps_now = (int)n;
	return 2;
}

static int cmd_bench(int argc, char **argv)
{
	const struct shell_bench *b;
	int used, status = 0;

	bench_reps_now = BENCH_DEFAULT_REPS;
	used = parse_reps(argc, argv);
	if (used < 0) {
		printf("bench: -r takes a count from 1 to %d\n",
		       BENCH_MAX_SAMPLES);
		return 2;
	}
	argc -= used, argv += used;
	if (argc == 1)
		return run_all();
	if (!strcmp(argv[1], "-l"))
		return argc == 2 ? bench_list() : shell_usage("bench");
	b = bench_find(argv[1]);
	if (b && !b->json)
		return b->fn(argc - 1, argv + 1);
	for (int i = 1; i < argc; i++) { /* check every name first */
		b = bench_find(argv[i]);
		if (!b || !b->json) {
			printf("bench: %s: no such JSON benchmark (bench -l "
			       "lists them)\n",
			       argv[i]);
			return 2;
		}
	}
	for (int i = 1; i < argc; i++)
		if (run_json(bench_find(argv[i])))
			status = 1;
	return status;
}
SHELL_COMMAND(bench,
	      cmd_bench,
	      "bench [-r N] [NAME...] | -l | fs|blk [ARGS]",
	      "run benchmarks (JSON results; -l lists them)");

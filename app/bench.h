/*
 * app/bench.h: benchmarks that print their results as JSON, one object
 * per line, for tools/bench to collect (`bench [NAME...]` in the shell).
 *
 *   static int my_bench(int argc, char **argv) {
 *           struct bench_samples s = BENCH_SAMPLES_INIT;
 *           for (int r = 0; r < bench_reps(); r++) {
 *                   uint64_t t0 = time_ns();
 *                   ... the work, N operations ...
 *                   bench_add(&s, (time_ns() - t0) * 1000 / N);
 *           }
 *           bench_print("my_bench", NULL, "\"ops\": 1000", "ns_per_op",
 *                       "ns", &s, 3);
 *           return 0;
 *   }
 *   SHELL_BENCH_JSON(my_bench, my_bench, "my_bench  (what it measures)");
 *
 * Values are fixed point: the sample is the figure times 10^@decimals, so
 * integers carry 1.5 MB/s as 15 with one decimal. Time comes from time_ns()
 * (rdtime underneath). A benchmark that cannot run where it is (a device it
 * needs is missing) prints one `{"bench": ..., "skipped": "why"}` line.
 */
#pragma once

#include <stdint.h>
#include <kernel/shell.h>

#define BENCH_MAX_SAMPLES 32

struct bench_samples {
	unsigned int n;
	uint64_t v[BENCH_MAX_SAMPLES];
};

#define BENCH_SAMPLES_INIT \
	{                  \
		0,         \
		{          \
			0  \
		}          \
	}

/* Repetitions per figure (`bench -r N`, default 5). */
int bench_reps(void);
void bench_add(struct bench_samples *s, uint64_t v);
/* One JSON line: bench, mode (NULL: null), params (the inside of a JSON
 * object, or NULL), metric, unit and the median, min and max of @s. */
void bench_print(const char *bench,
		 const char *mode,
		 const char *params,
		 const char *metric,
		 const char *unit,
		 struct bench_samples *s,
		 int decimals);
void bench_skip(const char *bench, const char *mode, const char *why);

/* Rate in units per second, times 10^@decimals: @count units in @ns. */
uint64_t bench_rate(uint64_t count, uint64_t ns, int decimals);

/*
 * kernel/race.c: the hook table of kernel/race.h. Written only by tests,
 * read with one load at each race point.
 */
#include <kernel/race.h>

race_fn *race_hooks[NR_RACE_POINTS];

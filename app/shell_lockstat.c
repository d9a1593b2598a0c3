/*
 * app/shell_lockstat.c: `lockstat` - acquisitions and contention of the
 * file locks, summed over every inode (the class counters of
 * kernel/rwsem.c): invalidate_lock and i_rwsem, shared and exclusive.
 *
 *   lockstat        print the counters
 *   lockstat -z     print them, then start again from zero
 */
#include <stdio.h>
#include <string.h>
#include <kernel/shell.h>
#include <fs/vfs.h>
#include <mm/filemap.h>

static struct {
	const char *name;
	struct lock_class *class;
} const lockstat_classes[] = {
	{ "invalidate_lock", &invalidate_lock_class },
	{ "i_rwsem", &i_rwsem_class },
};

static unsigned long take(unsigned long *c, bool zero)
{
	return zero ? __atomic_exchange_n(c, 0, __ATOMIC_RELAXED)
		    : __atomic_load_n(c, __ATOMIC_RELAXED);
}

static int cmd_lockstat(int argc, char **argv)
{
	bool zero = argc == 2 && !strcmp(argv[1], "-z");

	if (argc > 2 || (argc == 2 && !zero)) {
		printf("usage: lockstat [-z]\n");
		return 2;
	}
	printf("%-16s %10s %10s %10s\n",
	       "lock",
	       "shared",
	       "exclusive",
	       "contended");
	for (size_t i = 0; i < ARRAY_SIZE(lockstat_classes); i++) {
		struct lock_stats *st = &lockstat_classes[i].class->stats;
		unsigned long sh = take(&st->shared, zero);
		unsigned long ex = take(&st->exclusive, zero);

		printf("%-16s %10lu %10lu %10lu\n",
		       lockstat_classes[i].name,
		       sh,
		       ex,
		       take(&st->contended, zero));
	}
	return 0;
}
SHELL_COMMAND(lockstat,
	      cmd_lockstat,
	      "lockstat [-z]",
	      "invalidate_lock and i_rwsem acquisitions; -z: then zero them");

/*
 * kernel/banner.c: the few lines that say what booted, once init is done.
 *
 * A bring-up engineer reading a serial log, or a student comparing two
 * runs, should learn from the banner alone which kernel ran (the git
 * version it was built from), on how many harts and how much memory,
 * with which disks and which root, and whether the fill paths take
 * invalidate_lock (fixed) or not (legacy). The last line, "whole: N harts,
 * ..., bootargs", is the one the host tools wait for before they talk to
 * the shell; it stays last.
 */
#include <kernel/banner.h>
#include <kernel/cpu.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <drivers/block.h>
#include <fs/vfs.h>
#include <mm/filemap.h>

#include "build/version.h"

static unsigned int harts_online(void)
{
	unsigned int n = 0;
	struct cpu *c;

	for_each_cpu (c)
		n += READ_ONCE(c->online);
	return n;
}

static void banner_disks(void)
{
	struct block_device *dev;
	unsigned int i;

	for (i = 0; (dev = blkdev_nth(i)); i++)
		pr_info("  disk %s: %llu MiB, %s%s, %s\n",
			dev->name,
			(unsigned long long)(dev->nr_sectors >> 11),
			dev->transport ? dev->transport : "no transport",
			dev->read_only ? ", read-only" : "",
			dev->features ? dev->features : "no features");
	if (i == 0)
		pr_info("  disks: none\n");
}

static void banner_root(void)
{
	struct super_block *sb = vfs_root_sb();

	if (!sb) {
		pr_info("  root: none mounted\n");
		return;
	}
	pr_info("  root: %s (%s), %lu-byte blocks, %s\n",
		sb->s_bdev->name,
		sb->s_type ? sb->s_type->name : "?",
		sb->s_blocksize,
		sb->s_rdonly ? "read-only" : "read-write");
}

void boot_banner(void)
{
	static const char *const modes[] = {
		[FILL_INVALIDATE_LOCK] =
		    "fixed (fill paths take invalidate_lock shared)",
		[FILL_NONE] =
		    "legacy (invalidate_lock=off: fill paths unlocked)",
		[FILL_I_RWSEM] = "fill_lock=i_rwsem (read() takes i_rwsem "
				 "shared, other fill paths unlocked)",
	};

	/* The production build (prod.ninja) says so; the test kernel's line
	 * stays as it was. */
	pr_info("whole %s (%s), %s%s\n",
		WHOLE_VERSION,
		WHOLE_DATE,
		ARCH_NAME,
		IS_ENABLED(CONFIG_LOCKDEP) ? ""
					   : ", production build (no lockdep)");
	pr_info("  harts: %u of %u online; memory: %llu MiB\n",
		harts_online(),
		ncpus,
		(unsigned long long)(platform.mem_size >> 20));
	banner_disks();
	banner_root();
	pr_info("  mode: %s\n", modes[filemap_fill_lock()]);
	pr_info("whole: %u harts, %llu MiB RAM, bootargs \"%s\"\n",
		ncpus,
		(unsigned long long)(platform.mem_size >> 20),
		platform.bootargs);
}

/*
 * app/block_shell.c: shell commands for disks.
 *
 *   disks             list disks: capacity, block size, limits, features,
 *                     and the driver's own lines (virtio-blk: watchdog)
 *   bench blk [vdX]   sequential read/write MB/s at queue depth 1 and 32,
 *                     4 KiB random-read IOPS at depth 1 and 32 (rdtime).
 *                     It WRITES over the first 64 MiB of the disk.
 *
 * The I/O itself is drivers/block_bench.c's blk_bench.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <drivers/block.h>
#include <drivers/block_bench.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>

#define BENCH_BYTES	(64u << 20)
#define BENCH_SEQ_IO	(128u << 10)
#define BENCH_RAND_IOS	4000u
#define BENCH_MAX_DEPTH 32

static int disks_cmd(int argc, char **argv)
{
	struct block_device *dev;

	if (argc > 1)
		return shell_usage(argv[0]);
	for (unsigned int i = 0; (dev = blkdev_nth(i)); i++) {
		printf("%s: %llu sectors (%llu MiB), block %u, max %u segs x "
		       "%u B, "
		       "%u sectors/request, features %s\n",
		       dev->name,
		       (unsigned long long)dev->nr_sectors,
		       (unsigned long long)(dev->nr_sectors >> 11),
		       dev->limits.logical_block_size,
		       dev->limits.max_segments,
		       dev->limits.max_segment_size,
		       dev->limits.max_sectors,
		       dev->features ? dev->features : "-");
		if (dev->ops->show)
			dev->ops->show(dev);
	}
	if (!blkdev_nth(0))
		printf("no disks\n");
	return 0;
}
SHELL_COMMAND(disks, disks_cmd, "disks", "list block devices");

static void bench_report(
    const char *what, int depth, uint64_t ns, uint64_t bytes, unsigned int nios)
{
	if (!ns) {
		printf("  %-10s qd%-2d  failed\n", what, depth);
		return;
	}
	printf("  %-10s qd%-2d  %6llu MB/s  %7llu IOPS  (%llu ms)\n",
	       what,
	       depth,
	       (unsigned long long)(bytes * 1000 / ns),
	       (unsigned long long)(nios * NSEC_PER_SEC / ns),
	       (unsigned long long)(ns / NSEC_PER_MSEC));
}

static int bench_blk(struct block_device *dev)
{
	uint64_t bytes = MIN(BENCH_BYTES, dev->nr_sectors << SECTOR_SHIFT);
	unsigned int seq = (unsigned int)(bytes / BENCH_SEQ_IO);
	uint8_t *buf = kmalloc(BENCH_MAX_DEPTH * BENCH_SEQ_IO, GFP_KERNEL);
	static const int depths[] = { 1, 32 };

	if (!buf || !seq)
		return 1;
	printf("bench blk %s: %llu MiB sequential in %u KiB requests, %u "
	       "random 4 KiB reads\n",
	       dev->name,
	       (unsigned long long)(bytes >> 20),
	       BENCH_SEQ_IO >> 10,
	       BENCH_RAND_IOS);
	for (size_t d = 0; d < ARRAY_SIZE(depths); d++) {
		uint64_t ns = blk_bench(
		    dev, BLK_OP_READ, buf, BENCH_SEQ_IO, seq, depths[d], 0);
		bench_report("seq read", depths[d], ns, bytes, seq);
		if (!dev->read_only) {
			ns = blk_bench(dev,
				       BLK_OP_WRITE,
				       buf,
				       BENCH_SEQ_IO,
				       seq,
				       depths[d],
				       0);
			bench_report("seq write", depths[d], ns, bytes, seq);
		}
		ns = blk_bench(dev,
			       BLK_OP_READ,
			       buf,
			       4096,
			       BENCH_RAND_IOS,
			       depths[d],
			       0x9e3779b97f4a7c15ULL);
		bench_report("rand read",
			     depths[d],
			     ns,
			     4096ULL * BENCH_RAND_IOS,
			     BENCH_RAND_IOS);
	}
	kfree(buf);
	return 0;
}

/* argv[0] is "blk" (kernel/shell.h's SHELL_BENCH). */
static int bench_blk_cmd(int argc, char **argv)
{
	struct block_device *dev;

	if (argc > 2)
		return shell_bench_usage(argv[0]);
	dev = argc > 1 ? blkdev_get(argv[1]) : blkdev_nth(0);
	if (!dev) {
		printf("bench: no such disk\n");
		return 1;
	}
	return bench_blk(dev);
}
SHELL_BENCH(blk, bench_blk_cmd, "blk [vdX]  (overwrites the first 64 MiB)");

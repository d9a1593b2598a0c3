/*
 * drivers/block_testutil.h: helpers shared by the block and virtio-blk
 * tests: which disk the boot gave them and the sector stamp that
 * tools/mkblkimg.py writes (LBA, "WHOLEBLK", tag, then a pattern).
 *
 * The boot says what the test disk is with bootargs:
 *   vblk.test=rw|ro|errors   (absent or another mode: the case fails)
 *   vblk.disk=vda            (default vda)
 */
#pragma once

#include <drivers/block.h>
#include <kernel/ktest.h>

/* The test disk if the boot's mode is @mode ("rw", "ro", "errors", or NULL
 * for any); otherwise fails the case and returns NULL. */
struct block_device *blk_test_disk(struct ktest *t, const char *mode);
void blk_stamp_sector(void *buf, uint64_t lba, uint32_t tag);
/* Return: true if @buf holds the stamp of @lba. */
bool blk_stamp_ok(const void *buf, uint64_t lba, uint32_t tag);
/* Check @n sectors from @lba, failing the case at the first bad one. */
bool blk_expect_stamps(struct ktest *t,
		       const void *buf,
		       uint64_t lba,
		       uint32_t n);
/* xorshift64 */
uint64_t blk_test_rand(uint64_t *state);

/*
 * drivers/block_testutil.c: see drivers/block_testutil.h. No locks, no
 * state: each caller passes its own random state.
 */
#include <string.h>
#include <drivers/block_testutil.h>
#include <kernel/bootargs.h>

struct block_device *blk_test_disk(struct ktest *t, const char *mode)
{
	char want[16] = "", name[8] = "vda";
	struct block_device *dev;

	/* A boot runs only the suites its disk suits (tools/boots.py): a
	 * missing or different disk is a misconfiguration, not a skip. */
	if (!bootarg_get("vblk.test", want, sizeof(want))) {
		ktest_fail(t,
			   __FILE__,
			   __LINE__,
			   "no test disk in this boot (bootarg vblk.test)");
		return NULL;
	}
	if (mode && strcmp(mode, want)) {
		ktest_fail(t,
			   __FILE__,
			   __LINE__,
			   "test disk mode is %s, this case needs %s",
			   want,
			   mode);
		return NULL;
	}
	bootarg_get("vblk.disk", name, sizeof(name));
	dev = blkdev_get(name);
	if (!dev)
		ktest_fail(t,
			   __FILE__,
			   __LINE__,
			   "bootarg vblk.test=%s but no disk %s",
			   want,
			   name);
	return dev;
}

void blk_stamp_sector(void *buf, uint64_t lba, uint32_t tag)
{
	uint8_t *b = buf;

	memcpy(b, &lba, 8);
	memcpy(b + 8, "WHOLEBLK", 8);
	memcpy(b + 16, &tag, 4);
	for (unsigned int i = 20; i < SECTOR_SIZE; i++)
		b[i] = (uint8_t)(lba * 7 + i + tag);
}

bool blk_stamp_ok(const void *buf, uint64_t lba, uint32_t tag)
{
	uint8_t want[SECTOR_SIZE];

	blk_stamp_sector(want, lba, tag);
	return !memcmp(buf, want, SECTOR_SIZE);
}

bool blk_expect_stamps(struct ktest *t,
		       const void *buf,
		       uint64_t lba,
		       uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *s =
		    (const uint8_t *)buf + (size_t)i * SECTOR_SIZE;
		if (!blk_stamp_ok(s, lba + i, 0)) {
			uint64_t says;
			memcpy(&says, s, 8);
			ktest_fail(
			    t,
			    __FILE__,
			    __LINE__,
			    "sector %llu has a wrong stamp (says LBA %llu)",
			    (unsigned long long)(lba + i),
			    (unsigned long long)says);
			return false;
		}
	}
	return true;
}

uint64_t blk_test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

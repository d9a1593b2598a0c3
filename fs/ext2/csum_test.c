/*
 * fs/ext2/csum_test.c: suite ext4_csum - CRC32C against the published
 * check values (RFC 3720's iSCSI vectors and the "123456789" check), in
 * ext4's chaining (the usual CRC is ~crc(~0, data)), and against the bitwise
 * definition at every length and alignment; and the checksums of
 * the mounted ext4 image's superblock and descriptors, which mke2fs wrote,
 * match, and stop matching when one byte changes.
 */
#include <string.h>
#include <fs/vfs.h>
#include "ext2.h"
#include "ext2_test.h"

static uint32_t crc32c(const void *buf, size_t len)
{
	return ~ext2_crc32c(~0u, buf, len);
}

static void crc32c_vectors(struct ktest *t)
{
	uint8_t buf[32];

	KTEST_EXPECT_EQ(t, crc32c("123456789", 9), 0xE3069283u);
	memset(buf, 0, sizeof(buf));
	KTEST_EXPECT_EQ(t, crc32c(buf, sizeof(buf)), 0x8A9136AAu);
	memset(buf, 0xff, sizeof(buf));
	KTEST_EXPECT_EQ(t, crc32c(buf, sizeof(buf)), 0x62A8AB43u);
	for (int i = 0; i < 32; i++)
		buf[i] = i;
	KTEST_EXPECT_EQ(t, crc32c(buf, sizeof(buf)), 0x46DD794Eu);
	for (int i = 0; i < 32; i++)
		buf[i] = 31 - i;
	KTEST_EXPECT_EQ(t, crc32c(buf, sizeof(buf)), 0x113FDB5Cu);
	/* chaining: two pieces give the CRC of the whole */
	KTEST_EXPECT_EQ(t,
			~ext2_crc32c(ext2_crc32c(~0u, "1234", 4), "56789", 5),
			0xE3069283u);
}

/* The CRC from its definition, a bit at a time: no table. */
static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? 0x82F63B78u : 0);
	}
	return crc;
}

/* Eight bytes a step and the bytes left over, at every alignment: each
 * length from 0 to 40 at each of 8 offsets, and a 4 KiB bitmap's worth,
 * as the bitwise definition gives them. */
static void crc32c_every_length_and_alignment(struct ktest *t)
{
	static uint8_t buf[4096 + 8];
	uint32_t x = 0x12345678u;
	int bad = 0;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 40; len++)
			bad += ext2_crc32c(0x9e3779b9u, buf + off, len) !=
			       crc32c_bitwise(0x9e3779b9u, buf + off, len);
	KTEST_EXPECT_EQ(t, bad, 0);
	KTEST_EXPECT_EQ(t,
			ext2_crc32c(~0u, buf + 3, 4096),
			crc32c_bitwise(~0u, buf + 3, 4096));
}

static void image_checksums_match(struct ktest *t)
{
	struct ext2_sb_info *sbi = ext2_test_sbi(t);
	struct ext2_super_block es = sbi->s_es;
	uint8_t gd[64];

	KTEST_ASSERT_TRUE(t, sbi->s_csum);
	KTEST_EXPECT_TRUE(t, ext2_sb_csum_ok(&es));
	es.s_volume_name[0] ^= 1;
	KTEST_EXPECT_FALSE(t, ext2_sb_csum_ok(&es));
	KTEST_ASSERT_EQ(t, sbi->s_desc_size, sizeof(gd));
	for (uint32_t g = 0; g < sbi->s_groups_count; g++)
		KTEST_EXPECT_TRUE(t, ext2_gd_csum_ok(sbi, g, ext2_gd(sbi, g)));
	memcpy(gd, ext2_gd(sbi, 0), sizeof(gd));
	KTEST_EXPECT_FALSE(t, ext2_gd_csum_ok(sbi, 1, gd)); /* another group */
	gd[0x3c] ^= 1; /* bg_reserved: covered too */
	KTEST_EXPECT_FALSE(t, ext2_gd_csum_ok(sbi, 0, gd));
}

static struct ktest_case ext4_csum_cases[] = {
	KTEST_CASE(crc32c_vectors),
	KTEST_CASE(crc32c_every_length_and_alignment),
	KTEST_CASE(image_checksums_match),
	{},
};
KTEST_SUITE(ext4_csum, ext4_csum_cases);

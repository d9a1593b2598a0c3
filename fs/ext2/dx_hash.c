/*
 * fs/ext2/dx_hash.c: the name hashes of hashed directories (dir_index).
 *
 * A directory's htree orders its leaves by a 32-bit hash of each name,
 * computed with the version its root names (dx_root_info.hash_version):
 * the "legacy" hash, half-MD4 (mke2fs's default) or TEA, each in a signed
 * and an unsigned variant - how the name's bytes above 0x7F entered the
 * hash on the machine that wrote it (the superblock's
 * EXT2_FLAGS_SIGNED_HASH or _UNSIGNED_HASH says which). Half-MD4 and TEA
 * are seeded with the superblock's s_hash_seed (a fixed default when it is
 * zero) and run over the name in 32- or 16-byte pieces, each packed into
 * 32-bit words padded with the name's length. The hash's low bit is not
 * part of it: an index entry uses that bit to say the hash goes on in the
 * next leaf. e2fsprogs' `debugfs dx_hash` computes the same values.
 *
 * Pure functions; no lock.
 */
#include <string.h>
#include "ext2.h"

static uint32_t rol32(uint32_t x, unsigned int s)
{
	return (x << s) | (x >> (32 - s));
}

/* The name's byte @c as the machine that wrote the tree read a char. */
static uint32_t name_byte(unsigned char c, bool is_signed)
{
	return is_signed ? (uint32_t)(int32_t)(signed char)c : c;
}

static uint32_t legacy_hash(const unsigned char *name, size_t len, bool sgn)
{
	uint32_t h0 = 0x12a3fe2d, h1 = 0x37abe8f9;

	while (len--) {
		uint32_t h = h1 + (h0 ^ (name_byte(*name++, sgn) * 7152373u));

		if (h & 0x80000000u)
			h -= 0x7fffffffu;
		h1 = h0;
		h0 = h;
	}
	return h0 << 1;
}

/* Pack up to @words * 4 bytes of the name into @out, big-end first within
 * a word, the rest filled with the length pattern. */
static void pack_name(
    const unsigned char *name, size_t len, uint32_t *out, int words, bool sgn)
{
	uint32_t pad = (uint32_t)len | ((uint32_t)len << 8);
	uint32_t val;

	pad |= pad << 16;
	val = pad;
	if (len > (size_t)words * 4)
		len = (size_t)words * 4;
	for (size_t i = 0; i < len; i++) {
		val = name_byte(name[i], sgn) + (val << 8);
		if (i % 4 == 3) {
			*out++ = val;
			val = pad;
			words--;
		}
	}
	if (--words >= 0)
		*out++ = val;
	while (--words >= 0)
		*out++ = pad;
}

static uint32_t md4_f(uint32_t x, uint32_t y, uint32_t z)
{
	return z ^ (x & (y ^ z));
}

static uint32_t md4_g(uint32_t x, uint32_t y, uint32_t z)
{
	return (x & y) + ((x ^ y) & z);
}

static uint32_t md4_h(uint32_t x, uint32_t y, uint32_t z)
{
	return x ^ y ^ z;
}

/* One round of MD4: 8 steps, step i updating a, d, c, b in turn (v[0],
 * v[3], v[2], v[1]) with word in[order[i]] plus @k, rotated by
 * shifts[i % 4]. */
static void md4_round(uint32_t v[4],
		      const uint32_t in[8],
		      const uint8_t order[8],
		      const uint8_t shifts[4],
		      uint32_t (*f)(uint32_t, uint32_t, uint32_t),
		      uint32_t k)
{
	for (int i = 0; i < 8; i++) {
		int j = (4 - i % 4) % 4;

		v[j] = rol32(
		    v[j] + f(v[(j + 1) % 4], v[(j + 2) % 4], v[(j + 3) % 4]) +
			in[order[i]] + k,
		    shifts[i % 4]);
	}
}

/* Three rounds of MD4 (of its four) over 8 words, folded into @buf. */
static void half_md4(uint32_t buf[4], const uint32_t in[8])
{
	static const uint8_t order1[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const uint8_t order2[8] = { 1, 3, 5, 7, 0, 2, 4, 6 };
	static const uint8_t order3[8] = { 3, 7, 2, 6, 1, 5, 0, 4 };
	static const uint8_t shift1[4] = { 3, 7, 11, 19 };
	static const uint8_t shift2[4] = { 3, 5, 9, 13 };
	static const uint8_t shift3[4] = { 3, 9, 11, 15 };
	uint32_t v[4] = { buf[0], buf[1], buf[2], buf[3] };

	md4_round(v, in, order1, shift1, md4_f, 0);
	md4_round(v, in, order2, shift2, md4_g, 013240474631u);
	md4_round(v, in, order3, shift3, md4_h, 015666365641u);
	for (int i = 0; i < 4; i++)
		buf[i] += v[i];
}

/* 16 rounds of TEA over 4 words, folded into buf[0..1]. */
static void tea(uint32_t buf[4], const uint32_t in[4])
{
	uint32_t sum = 0, b0 = buf[0], b1 = buf[1];

	for (int n = 0; n < 16; n++) {
		sum += 0x9E3779B9u;
		b0 += ((b1 << 4) + in[0]) ^ (b1 + sum) ^ ((b1 >> 5) + in[1]);
		b1 += ((b0 << 4) + in[2]) ^ (b0 + sum) ^ ((b0 >> 5) + in[3]);
	}
	buf[0] += b0;
	buf[1] += b1;
}

int ext2_dx_hash(const char *name,
		 size_t len,
		 unsigned int version,
		 const uint32_t seed[4],
		 uint32_t *hash)
{
	static const uint32_t default_seed[4] = {
		0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
	};
	const unsigned char *p = (const unsigned char *)name;
	bool sgn = version < EXT2_DX_LEGACY_UNSIGNED;
	uint32_t buf[4], in[8], h;

	memcpy(buf, default_seed, sizeof(buf));
	if (seed[0] | seed[1] | seed[2] | seed[3])
		memcpy(buf, seed, sizeof(buf));
	switch (version) {
	case EXT2_DX_LEGACY:
	case EXT2_DX_LEGACY_UNSIGNED: h = legacy_hash(p, len, sgn); break;
	case EXT2_DX_HALF_MD4:
	case EXT2_DX_HALF_MD4_UNSIGNED:
		for (size_t off = 0; off < len; off += 32) {
			pack_name(p + off, len - off, in, 8, sgn);
			half_md4(buf, in);
		}
		h = buf[1];
		break;
	case EXT2_DX_TEA:
	case EXT2_DX_TEA_UNSIGNED:
		for (size_t off = 0; off < len; off += 16) {
			pack_name(p + off, len - off, in, 4, sgn);
			tea(buf, in);
		}
		h = buf[0];
		break;
	default: return -1;
	}
	h &= ~1u;
	if (h == 0xfffffffeu) /* kept for the end of the tree */
		h = 0xfffffffcu;
	*hash = h;
	return 0;
}

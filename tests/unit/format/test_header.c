// SPDX-License-Identifier: MIT
/* Unit tests for format/header.c and format/error.c: file and block header
 * encodings against FORMAT.md §2/§3 byte offsets, every check, names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>
#include <xxhash.h>

#include "format/format_internal.h"
#include "tests/unit/format/fmt_test.h"

/* amb_checksum() is XXH3-64 of seed 0 (FORMAT.md §1) whichever copy of
 * XXH3 it runs (checksum_x86.c): libxxhash's answer for every length up
 * to three SIMD blocks' worth and then some, and for a large buffer. */
static void test_checksum(void **state)
{
	size_t n = (1u << 20) + 13, len;
	uint8_t *b = malloc(n);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[i] = (uint8_t)x;
	}
	assert_true(amb_checksum("", 0) == 0x2d06800538d394c2ull);
	for (len = 0; len <= 3000; len++)
		assert_true(amb_checksum(b + len % 7, len) == XXH3_64bits(b + len % 7, len));
	assert_true(amb_checksum(b, n) == XXH3_64bits(b, n));
#if AMB_CHECKSUM_AVX2
	if (__builtin_cpu_supports("avx2"))
		for (len = 0; len <= 3000; len += 97)
			assert_true(amb_checksum_avx2(b + 1, len) == XXH3_64bits(b + 1, len));
#endif
	free(b);
}

static void test_file_header(void **state)
{
	struct amb_file_header in = {
		.major = 1, .minor = 0, .producer_endian = AMB_ENDIAN_BIG,
		.producer_word_size = 4, .producer_machine = 183, .flags = 0,
		.uuid = { 0xaa, [15] = 0xbb }, .created_ns = 0x1122334455667788ull,
	}, out;
	uint8_t b[AMB_FILE_HDR_SIZE];
	char why[200];

	(void)state;
	amb_file_hdr_encode(&in, b);
	/* FORMAT.md §2 offsets */
	assert_memory_equal(b, "\x89" "AMBER\r\n", 8);
	assert_int_equal(amb_get_le16(b + 8), 1);
	assert_int_equal(amb_get_le32(b + 12), 64);
	assert_int_equal(b[16], 2);
	assert_int_equal(b[17], 4);
	assert_int_equal(amb_get_le16(b + 18), 183);
	assert_int_equal(b[24], 0xaa);
	assert_int_equal(b[39], 0xbb);
	assert_true(amb_get_le64(b + 40) == 0x1122334455667788ull);
	assert_true(amb_get_le64(b + 56) == amb_checksum(b, 56));

	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), 0);
	assert_int_equal(out.producer_endian, AMB_ENDIAN_BIG);
	assert_int_equal(out.producer_word_size, 4);
	assert_int_equal(out.producer_machine, 183);
	assert_int_equal(out.header_len, 64);
	assert_memory_equal(out.uuid, in.uuid, 16);
	assert_true(out.created_ns == in.created_ns);

	for (size_t n = 0; n < sizeof(b); n++)
		assert_int_equal(amb_file_hdr_decode(b, n, &out, why, sizeof(why)), -AMB_E_TRUNCATED);
	b[1] = 'a';
	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_MAGIC);
	assert_int_equal(amb_file_hdr_decode(b, 3, &out, why, sizeof(why)), -AMB_E_MAGIC);
	b[1] = 'A';
	b[8] = 2;
	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_VERSION);
	assert_string_equal(why, "file header: unsupported major version 2 (this reader knows 1)");
	b[8] = 1;
	b[33] ^= 1;
	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_HDR_CHECKSUM);
	b[33] ^= 1;
	amb_put_le32(b + 12, 60);
	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, NULL, 0), -AMB_E_CORRUPT);
	amb_put_le32(b + 12, 64);
	b[16] = 3;
	amb_put_le64(b + 56, amb_checksum(b, 56));
	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_CORRUPT);
}

/* A later minor's longer file header is accepted and skipped (§2, §8). */
static void test_file_header_longer(void **state)
{
	struct amb_file_header in = { .major = 1, .minor = 3, .producer_endian = 1,
				      .producer_word_size = 8 }, out;
	uint8_t b[128] = { 0 };

	(void)state;
	amb_file_hdr_encode(&in, b);
	amb_put_le32(b + 12, 128);
	memset(b + 56, 0x5a, 64);  /* new fields */
	amb_put_le64(b + 120, amb_checksum(b, 120));
	assert_int_equal(amb_file_hdr_decode(b, sizeof(b), &out, NULL, 0), 0);
	assert_int_equal(out.minor, 3);
	assert_int_equal(out.header_len, 128);
}

static void test_block_header(void **state)
{
	struct amb_block_hdr in = {
		.type = AMB_BLOCK_RING, .codec = AMB_CODEC_ZSTD, .stream = 5, .seq = 42,
		.raw_size = 1000, .stored_size = 300, .record_count = 17,
		.first_time = 10, .last_time = 20, .payload_checksum = 0xfeedull,
	}, out;
	uint8_t b[AMB_BLOCK_HDR_SIZE];
	char why[200];

	(void)state;
	amb_block_hdr_encode(&in, b);
	/* FORMAT.md §3 offsets */
	assert_int_equal(amb_get_le32(b), AMB_BLOCK_MAGIC);
	assert_memory_equal(b, "AMBK", 4);
	assert_int_equal(amb_get_le16(b + 4), 80);
	assert_int_equal(amb_get_le16(b + 6), 3);
	assert_int_equal(b[8], 1);
	assert_int_equal(amb_get_le32(b + 12), 5);
	assert_int_equal(amb_get_le64(b + 16), 42);
	assert_int_equal(amb_get_le64(b + 24), 1000);
	assert_int_equal(amb_get_le64(b + 32), 300);
	assert_int_equal(amb_get_le64(b + 40), 17);
	assert_int_equal(amb_get_le64(b + 64), 0xfeed);
	assert_true(amb_get_le64(b + 72) == amb_checksum(b, 72));

	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), 0);
	assert_int_equal(out.seq, 42);
	assert_int_equal(out.stored_size, 300);
	assert_int_equal(out.payload_checksum, 0xfeed);
	for (size_t n = 0; n < sizeof(b); n++)
		assert_int_equal(amb_block_hdr_decode(b, n, &out, why, sizeof(why)), -AMB_E_TRUNCATED);

	b[0] = 'X';
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_MAGIC);
	b[0] = 'A';
	b[50] ^= 4;
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_HDR_CHECKSUM);
	assert_non_null(strstr(why, "header checksum mismatch (stored 0x"));

	in.reserved = 1;
	amb_block_hdr_encode(&in, b);
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_RESERVED);
	in.reserved = 0;
	in.raw_size = AMB_BLOCK_RAW_MAX + 1ull;
	amb_block_hdr_encode(&in, b);
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_TOO_BIG);
	in.raw_size = 1;
	in.stored_size = UINT64_MAX;
	amb_block_hdr_encode(&in, b);
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_TOO_BIG);
	in.stored_size = 1;
	in.first_time = 30;
	amb_block_hdr_encode(&in, b);
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_CORRUPT);
	amb_put_le16(b + 4, 84);
	assert_int_equal(amb_block_hdr_decode(b, sizeof(b), &out, why, sizeof(why)), -AMB_E_CORRUPT);
}

static void test_index_entry(void **state)
{
	struct amb_block_info in = { 7, 1234, 99, 88, 3, 4, 5, 6, 11, 2, 1, 0 }, out;
	uint8_t b[AMB_INDEX_ENTRY_SIZE];

	(void)state;
	amb_index_entry_encode(&in, b);
	assert_int_equal(amb_get_le64(b), 1234);  /* offset first, §6 */
	assert_int_equal(amb_get_le64(b + 8), 7);
	amb_index_entry_decode(b, &out);
	assert_int_equal(out.seq, 7);
	assert_int_equal(out.offset, 1234);
	assert_int_equal(out.raw_size, 99);
	assert_int_equal(out.stored_size, 88);
	assert_int_equal(out.record_count, 3);
	assert_int_equal(out.first_time, 4);
	assert_int_equal(out.last_time, 5);
	assert_int_equal(out.stream, 6);
	assert_int_equal(out.type, 11);
	assert_int_equal(out.codec, 2);
	assert_int_equal(out.flags, 1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(amb_block_type_name(AMB_BLOCK_RING), "ring");
	assert_string_equal(amb_block_type_name(AMB_BLOCK_TRAILER), "trailer");
	assert_string_equal(amb_block_type_name(0), "unknown");
	assert_string_equal(amb_block_type_name(999), "unknown");
	for (int e = AMB_E_BASE; e < AMB_E_END; e++) {
		assert_non_null(amb_strerror(-e));
		assert_string_not_equal(amb_strerror(-e), amb_strerror(-(e == AMB_E_BASE ? e + 1 : e - 1)));
	}
	assert_string_equal(amb_strerror(-AMB_E_MAGIC), "not an .amber file (bad magic)");
	assert_string_equal(amb_strerror(-ENOSPC), strerror(ENOSPC));
	assert_string_equal(amb_strerror(0), "success");
	assert_non_null(amb_strerror(-AMB_E_END));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_file_header),
		cmocka_unit_test(test_file_header_longer),
		cmocka_unit_test(test_block_header),
		cmocka_unit_test(test_index_entry),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

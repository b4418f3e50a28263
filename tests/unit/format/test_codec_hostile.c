// SPDX-License-Identifier: MIT
/*
 * Unit tests for format/codec_sample_dec.c against codec 2 payloads written
 * by hand (FORMAT.md §4.1), as a hostile writer would: counts whose room
 * would wrap a product or a sum, a varint's 10th byte with more than bit
 * 63, a stream with a byte after its zstd frame.  Each is refused by name
 * and nothing is written past the output (the unit tests run under
 * AddressSanitizer).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <zstd.h>

#include "tests/unit/format/codec_test.h"
#include "tests/unit/format/fmt_test.h"
#include "format/format_internal.h"

static void put_leb128(struct amb_buf *b, uint64_t v)
{
	do {
		uint8_t x = (uint8_t)(v & 0x7f);

		v >>= 7;
		assert_int_equal(amb_buf_append(b, &(uint8_t){ (uint8_t)(x | (v ? 0x80 : 0)) }, 1), 0);
	} while (v);
}

/*
 * A codec 2 payload of @records little-endian samples of @st, whose number
 * columns hold the values @vals[k][0 .. @nvals[k]) (column k of the
 * FORMAT.md table, every stream stored as it is): what a hostile writer
 * can put there.  Its raw_checksum is 0: only a decoder that got that far
 * would look.
 */
static void hand_payload(struct amb_buf *out, uint64_t st, uint32_t records,
			 const uint64_t *const vals[AMB_SAMPLE_COLUMNS],
			 const size_t nvals[AMB_SAMPLE_COLUMNS])
{
	struct amb_buf s[AMB_SAMPLE_STREAMS];
	uint8_t hdr[64] = { 0 };

	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++)
		s[i] = (struct amb_buf)AMB_BUF_INIT;
	for (size_t k = 0; k < AMB_SAMPLE_COLUMNS; k++)
		for (size_t j = 0; j < nvals[k]; j++) {
			assert_int_equal(amb_buf_append(&s[2 * k], &(uint8_t){ (uint8_t)vals[k][j] }, 1), 0);
			put_leb128(&s[2 * k + 1], vals[k][j] >> 8);
		}
	amb_put_le16(hdr, 64);
	hdr[2] = 1;                      /* version */
	hdr[3] = AMB_ENDIAN_LITTLE;
	amb_put_le64(hdr + 8, st);
	amb_put_le32(hdr + 48, records);
	amb_put_le32(hdr + 52, AMB_SAMPLE_STREAMS);
	out->len = 0;
	assert_int_equal(amb_buf_append(out, hdr, sizeof(hdr)), 0);
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		put_leb128(out, s[i].len);
		if (s[i].len)
			put_leb128(out, s[i].len);
	}
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		assert_int_equal(amb_buf_append(out, s[i].data, s[i].len), 0);
		amb_buf_free(&s[i]);
	}
}

/*
 * Counts a hostile payload makes as large as a u64 goes, where the room a
 * sample needs is their product or sum: a branch stack of 2^64 / 24 + 1
 * entries (24 times that wraps to 8), a user stack copy of 2^64 - 8 bytes
 * (plus its dyn_size, 0).  Refused as longer than raw_size, never written
 * past the end of the output (the unit tests run under AddressSanitizer).
 */
static void test_hostile_counts(void **state)
{
	static const uint64_t head[] = { 1 }, branch[] = { 0x0aaaaaaaaaaaaaabull, 0, 0, 0, 0, 0, 0 },
			      stack[] = { 0xfffffffffffffff8ull, 0, 0 }, small[] = { 16, 0, 0 };
	const uint64_t *vals[AMB_SAMPLE_COLUMNS] = { 0 };
	size_t nvals[AMB_SAMPLE_COLUMNS] = { 0 };
	struct amb_sample_codec *dec = amb_sample_codec_new();
	struct amb_buf p = AMB_BUF_INIT;
	uint8_t *back = malloc(40);
	char why[256];

	(void)state;
	assert_non_null(dec);
	assert_non_null(back);
	vals[0] = head;
	nvals[0] = 1;
	vals[11] = branch;  /* fields */
	nvals[11] = 7;
	hand_payload(&p, S_BRANCH, 1, vals, nvals);
	why[0] = '\0';
	assert_int_equal(amb_sample_decode(dec, p.data, p.len, back, 40, why, sizeof(why)),
			 -AMB_E_DECOMPRESS);
	assert_non_null(strstr(why, "longer than raw_size"));

	vals[11] = NULL;
	nvals[11] = 0;
	vals[13] = stack;   /* stack_meta: size, dyn, tail */
	nvals[13] = 3;
	hand_payload(&p, S_STACK_USER, 1, vals, nvals);
	why[0] = '\0';
	assert_int_equal(amb_sample_decode(dec, p.data, p.len, back, 40, why, sizeof(why)),
			 -AMB_E_DECOMPRESS);
	assert_non_null(strstr(why, "longer than raw_size"));

	/* A 10th varint byte holds bit 63 only: the first stream's raw_len
	 * as 9 bytes of 0x80 and a 10th of 0x02 is refused, not read as 0. */
	{
		size_t at = amb_get_le16(p.data);
		struct amb_buf q = AMB_BUF_INIT;
		static const uint8_t overlong[10] = { 0x80, 0x80, 0x80, 0x80, 0x80,
						      0x80, 0x80, 0x80, 0x80, 0x02 };

		assert_int_equal(p.data[at], 1);  /* head's first stream: one byte */
		assert_int_equal(amb_buf_append(&q, p.data, at), 0);
		assert_int_equal(amb_buf_append(&q, overlong, sizeof(overlong)), 0);
		assert_int_equal(amb_buf_append(&q, p.data + at + 1, p.len - at - 1), 0);
		why[0] = '\0';
		assert_int_equal(amb_sample_decode(dec, q.data, q.len, back, 40, why, sizeof(why)),
				 -AMB_E_DECOMPRESS);
		assert_non_null(strstr(why, "stream directory ends early"));
		amb_buf_free(&q);
	}

	/* The same payloads with counts that fit decode (to what the
	 * checksum, 0 here, then refuses): the builder is right. */
	vals[13] = small;
	hand_payload(&p, S_STACK_USER, 1, vals, nvals);
	assert_int_equal(amb_sample_decode(dec, p.data, p.len, back, 40, why, sizeof(why)),
			 -AMB_E_PAYLOAD_CHECKSUM);

	free(back);
	amb_buf_free(&p);
	amb_sample_codec_free(dec);
}

/*
 * A stream is one zstd frame and nothing after it (FORMAT.md §4.1): a
 * frame followed by a stray byte is refused by name, as is a plain zstd
 * block's payload with one (§4).
 */
static void test_one_frame(void **state)
{
	struct amb_sample_codec *dec = amb_sample_codec_new();
	struct amb_buf p = AMB_BUF_INIT;
	uint8_t hdr[64] = { 0 }, text[300], frame[400];
	char why[256] = "";
	size_t n;

	(void)state;
	assert_non_null(dec);
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (uint8_t)('a' + i % 26);
	n = ZSTD_compress(frame, sizeof(frame) - 1, text, sizeof(text), 3);
	assert_false(ZSTD_isError(n));
	assert_true(n + 1 < sizeof(text));
	frame[n] = 0x5a;                 /* the stray byte */
	amb_put_le16(hdr, 64);
	hdr[2] = 1;
	hdr[3] = AMB_ENDIAN_LITTLE;
	amb_put_le32(hdr + 52, AMB_SAMPLE_STREAMS);
	assert_int_equal(amb_buf_append(&p, hdr, sizeof(hdr)), 0);
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		if (i == 2) {            /* verbatim's bytes */
			put_leb128(&p, sizeof(text));
			put_leb128(&p, n + 1);
		} else {
			put_leb128(&p, 0);
		}
	}
	assert_int_equal(amb_buf_append(&p, frame, n + 1), 0);
	assert_int_equal(amb_sample_decode(dec, p.data, p.len, NULL, 0, why, sizeof(why)),
			 -AMB_E_DECOMPRESS);
	assert_non_null(strstr(why, "stream 2 (verbatim) is not one whole zstd frame"));

	amb_buf_free(&p);
	amb_sample_codec_free(dec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_counts),
		cmocka_unit_test(test_one_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* Unit tests for format/salvage.c: intact blocks of a damaged, unclosed
 * file are copied verbatim into a new closed file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"

#define NBLOCKS 8

static size_t block_len(size_t i)
{
	return 100 + i * 71;
}

static void test_salvage(void **state)
{
	static const uint8_t uuid[16] = { 9, 9, 9 };
	char *dir = tmpdir_new();
	const char *in = tpath(dir, "in.amber"), *out = tpath(dir, "out.amber");
	struct amb_payload *p = amb_payload_new();
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer_stats st;
	struct amb_writer *w;
	struct amb_reader *r;
	uint64_t off2, size2;
	uint8_t buf[1000];
	uint8_t *b;
	size_t len, k;

	(void)state;
	o.uuid = uuid;
	o.producer_endian = AMB_ENDIAN_BIG;
	assert_int_equal(amb_writer_open(in, &o, &w), 0);
	for (size_t i = 0; i < NBLOCKS; i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, (uint32_t)i, i + 1, i, i + 3 };

		fill_block(buf, block_len(i), (uint32_t)i, true, d.type, d.record_count, true);
		assert_int_equal(amb_writer_append(w, &d, buf, block_len(i)), 0);
	}
	amb_writer_get_stats(w, &st);
	assert_int_equal(amb_writer_close(w), 0);

	/* Damage block 2's payload and tear the last block, as a crash would. */
	assert_int_equal(amb_reader_open(in, 0, &r), 0);
	off2 = amb_reader_block(r, 2)->offset;
	size2 = amb_reader_block(r, 2)->stored_size;
	amb_reader_close(r);
	b = slurp(in, &len);
	b[off2 + 80 + size2 / 2] ^= 0x10;
	assert_int_equal(spew(in, b, (size_t)st.file_bytes - 5), 0);
	free(b);

	assert_int_equal(amb_salvage(in, out), NBLOCKS - 2);
	assert_int_equal(amb_salvage(in, out), -EEXIST);
	assert_int_equal(amb_verify(out, NULL, NULL, NULL), 0);
	assert_int_equal(amb_reader_open(out, 0, &r), 0);
	assert_true(amb_reader_indexed(r));
	assert_int_equal(amb_reader_header(r)->producer_endian, AMB_ENDIAN_BIG);
	assert_memory_equal(amb_reader_header(r)->uuid, uuid, 16);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS - 2 + 2);
	k = 0;
	for (size_t i = 0; i < NBLOCKS - 1; i++) {
		const struct amb_block_info *bi;
		const void *data;
		size_t n;

		if (i == 2)
			continue;
		bi = amb_reader_block(r, k);
		assert_int_equal(bi->seq, k);
		assert_int_equal(bi->stream, i);
		assert_int_equal(bi->record_count, i + 1);
		assert_int_equal(bi->last_time, i + 3);
		assert_int_equal(bi->codec, AMB_CODEC_ZSTD);
		assert_int_equal(amb_reader_load(r, k, p, &data, &n), 0);
		fill_block(buf, block_len(i), (uint32_t)i, true, AMB_BLOCK_RING, i + 1, true);
		assert_int_equal(n, block_len(i));
		assert_memory_equal(data, buf, n);
		k++;
	}
	amb_reader_close(r);

	/* A file that is not .amber at all. */
	assert_int_equal(spew(tpath(dir, "junk"), "hello world, no amber here", 26), 0);
	assert_int_equal(amb_salvage(tpath(dir, "junk"), tpath(dir, "o2")), -AMB_E_MAGIC);
	amb_payload_free(p);
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_salvage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* Unit tests for format/verify.c: a clean file, every single-byte
 * corruption, lost blocks, unclosed files, an index that disagrees. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "format/format_internal.h"
#include "tests/unit/format/fmt_test.h"

static void make_file(const char *path, size_t nblocks, bool close_it)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	uint8_t buf[300];

	o.zstd_level = 3;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < nblocks; i++) {
		struct amb_block_desc d = { (uint16_t)(1 + i % 10), AMB_STREAM_NONE, i, i, i + 1 };
		size_t len = 10 + i * 53 % 290;

		if ((d.type == AMB_BLOCK_RING || d.type == AMB_BLOCK_SYNTH) && len < 8 * i)
			len = 8 * i;
		fill_block(buf, len, (uint32_t)i, i % 3 != 0, d.type, d.record_count, false);
		assert_int_equal(amb_writer_append(w, &d, buf, len), 0);
	}
	if (close_it) {
		assert_int_equal(amb_writer_close(w), 0);
	} else {
		/* An unclosed recording: what a killed recorder leaves. */
		struct amb_writer_stats st;

		assert_int_equal(amb_writer_flush(w), 0);
		amb_writer_get_stats(w, &st);
		assert_int_equal(amb_writer_close(w), 0);
		assert_int_equal(truncate(path, (off_t)st.file_bytes), 0);
	}
}

static void test_clean(void **state)
{
	char *dir = tmpdir_new();
	struct amb_verify_stats st;
	struct problems ps = { 0 };

	(void)state;
	make_file(tpath(dir, "c.amber"), 20, true);
	assert_int_equal(amb_verify(tpath(dir, "c.amber"), collect_problem, &ps, &st), 0);
	assert_int_equal(ps.n, 0);
	assert_int_equal(st.blocks_ok, 22);
	assert_int_equal(st.blocks_bad, 0);
	assert_true(st.has_trailer);
	assert_true(st.index_ok);
	assert_int_equal(st.tail_bytes, 0);
	assert_int_equal(amb_verify(tpath(dir, "c.amber"), NULL, NULL, NULL), 0);
	assert_int_equal(amb_verify(tpath(dir, "none"), NULL, NULL, NULL), -ENOENT);
	tmpdir_free(dir);
}

static void test_unclosed(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "u.amber");
	struct amb_verify_stats st;
	struct problems ps = { 0 };

	(void)state;
	make_file(path, 5, false);
	assert_int_equal(amb_verify(path, collect_problem, &ps, &st), 1);
	assert_int_equal(ps.first_err, -AMB_E_NO_TRAILER);
	assert_non_null(strstr(ps.first, "recording was not closed"));
	assert_false(st.has_trailer);
	assert_int_equal(st.blocks_ok, 5);

	/* Tail bytes after the last block are a second problem. */
	assert_int_equal(truncate(path, (off_t)file_size_of(path) + 7), 0);
	memset(&ps, 0, sizeof(ps));
	assert_int_equal(amb_verify(path, collect_problem, &ps, &st), 2);
	assert_int_equal(ps.first_err, -AMB_E_MAGIC);  /* zeros: no block there */
	assert_int_equal(st.tail_bytes, 7);
	tmpdir_free(dir);
}

/* Every byte is under a checksum, so flipping any one must be reported, and
 * no reader path may crash on the result. */
static void test_every_byte(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "b.amber"), *bad = tpath(dir, "bad.amber");
	struct amb_payload *p = amb_payload_new();
	uint8_t *b;
	size_t len;

	(void)state;
	make_file(path, 14, true);
	b = slurp(path, &len);
	assert_true(len > 1000 && len < 8192);
	for (size_t pos = 0; pos < len; pos++) {
		struct problems ps = { 0 };
		struct amb_reader *r;

		b[pos] ^= 0xff;
		assert_int_equal(spew(bad, b, len), 0);
		b[pos] ^= 0xff;
		if (amb_verify(bad, collect_problem, &ps, NULL) < 1 || ps.n < 1)
			fail_msg("flipping byte %zu of %zu went unreported", pos, len);
		for (unsigned flags = 0; flags <= AMB_READ_SCAN; flags += AMB_READ_SCAN) {
			if (amb_reader_open(bad, flags, &r))
				continue;
			for (size_t i = 0; i < amb_reader_block_count(r); i++) {
				const void *data;
				size_t n;

				amb_reader_load(r, i, p, &data, &n);
			}
			amb_reader_close(r);
		}
	}
	free(b);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* A block cut out of the middle: the scan goes on, the seq gap and the
 * stale index are reported. */
static void test_lost_block(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "g.amber");
	struct amb_verify_stats st;
	struct problems ps = { 0 };
	struct amb_reader *r;
	uint64_t a, e;
	uint8_t *b;
	size_t len;

	(void)state;
	make_file(path, 6, true);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	a = amb_reader_block(r, 2)->offset;
	e = amb_reader_block(r, 3)->offset;
	amb_reader_close(r);
	b = slurp(path, &len);
	memmove(b + a, b + e, len - e);
	assert_int_equal(spew(path, b, len - (e - a)), 0);
	assert_true(amb_verify(path, collect_problem, &ps, &st) >= 2);
	assert_non_null(strstr(ps.first, "seq 3, expected 2"));
	assert_true(st.has_trailer);
	assert_false(st.index_ok);
	free(b);
	tmpdir_free(dir);
}

/* An index with valid checksums that disagrees with a block. */
static void test_index_mismatch(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "m.amber");
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	struct amb_block_desc d = { AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0 };
	struct amb_verify_stats st;
	struct problems ps = { 0 };
	struct amb_block_hdr h;
	uint64_t ioff;
	uint8_t *b;
	size_t len;

	(void)state;
	o.zstd_level = 0;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	assert_int_equal(amb_writer_append(w, &d, "abc", 3), 0);
	assert_int_equal(amb_writer_append(w, &d, "defg", 4), 0);
	assert_int_equal(amb_writer_close(w), 0);
	b = slurp(path, &len);
	ioff = amb_get_le64(b + len - AMB_TRAILER_PAYLOAD);
	assert_int_equal(amb_block_hdr_decode(b + ioff, AMB_BLOCK_HDR_SIZE, &h, NULL, 0), 0);
	/* record_count of entry 1 */
	amb_put_le64(b + ioff + AMB_BLOCK_HDR_SIZE + AMB_INDEX_PREFIX + AMB_INDEX_ENTRY_SIZE + 40, 9);
	h.payload_checksum = amb_checksum(b + ioff + AMB_BLOCK_HDR_SIZE, (size_t)h.stored_size);
	amb_block_hdr_encode(&h, b + ioff);
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_verify(path, collect_problem, &ps, &st), 1);
	assert_int_equal(ps.first_err, -AMB_E_INDEX);
	assert_non_null(strstr(ps.first, "entry 1: record_count"));
	assert_false(st.index_ok);
	free(b);
	tmpdir_free(dir);
}

/*
 * A RING or SYNTH block whose checksums hold but whose payload does not
 * hold record_count whole perf records (a writer's mistake): one problem
 * each, naming the block, and the block still counts as read.
 */
static void test_record_count(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "r.amber");
	AMB_OPTS(amb_writer_opts, o);
	struct amb_verify_stats st;
	struct problems ps = { 0 };
	struct amb_writer *w;
	uint8_t buf[600];
	size_t len = 200;

	(void)state;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	fill_block(buf, len, 1, false, AMB_BLOCK_RING, 5, false);
	/* Says 6, holds 5. */
	assert_int_equal(amb_writer_append(w, &(struct amb_block_desc){ AMB_BLOCK_RING, 0, 6, 1, 2 },
					   buf, len), 0);
	/* 5 records and 4 bytes of a sixth. */
	assert_int_equal(amb_writer_append(w, &(struct amb_block_desc){ AMB_BLOCK_SYNTH,
									 AMB_STREAM_NONE, 5, 1, 2 },
					   buf, len + 4), 0);
	/* Right. */
	assert_int_equal(amb_writer_append(w, &(struct amb_block_desc){ AMB_BLOCK_RING, 1, 5, 1, 2 },
					   buf, len), 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_verify(path, collect_problem, &ps, &st), 2);
	assert_int_equal(ps.n, 2);
	assert_int_equal(ps.first_err, -AMB_E_CORRUPT);
	assert_non_null(strstr(ps.first, "block 0 at offset"));
	assert_non_null(strstr(ps.first, "record_count 6, but the payload holds 5 perf records"));
	assert_non_null(strstr(ps.last, "block 1 at offset"));
	assert_non_null(strstr(ps.last, "ends in 4 bytes that are no whole perf record"));
	assert_int_equal(st.blocks_ok, 5);
	assert_int_equal(st.blocks_bad, 0);
	tmpdir_free(dir);
}

static int stop_at_first(void *ctx, const struct amb_problem *pb)
{
	(void)pb;
	++*(int *)ctx;
	return 1;
}

static void test_stop(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "s.amber");
	int calls = 0;
	uint8_t *b;
	size_t len;

	(void)state;
	make_file(path, 6, true);
	b = slurp(path, &len);
	for (size_t i = AMB_FILE_HDR_SIZE + 100; i < len; i += 97)
		b[i] ^= 1;
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_verify(path, stop_at_first, &calls, NULL), 1);
	assert_int_equal(calls, 1);
	free(b);
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_unclosed),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_lost_block),
		cmocka_unit_test(test_index_mismatch),
		cmocka_unit_test(test_record_count),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

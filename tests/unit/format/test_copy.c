// SPDX-License-Identifier: MIT
/* Unit tests for format/copy.c: amb_copy_blocks() with its options (all
 * blocks, a chooser that leaves out and adds blocks, damaged blocks
 * skipped or fatal, invalid options) and amb_writer_opts_from(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"

#define NSRC 6

/* Blocks 0..5: META, then RING blocks of streams 0 and 1 alternating,
 * compressible, so that the copy has zstd payloads to carry over. */
static void write_source(const char *path)
{
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer *w;
	uint8_t buf[3000];

	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (uint32_t i = 0; i < NSRC; i++) {
		struct amb_block_desc d = { i ? AMB_BLOCK_RING : AMB_BLOCK_META,
					    i ? (i - 1) % 2 : AMB_STREAM_NONE, i, i, i };

		fill_block(buf, sizeof(buf), i, true, d.type, d.record_count, false);
		assert_int_equal(amb_writer_append(w, &d, buf, sizeof(buf)), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);
}

/* Copy @src to @dst with @opts; returns what amb_copy_blocks() did. */
static long copy(const char *src, const char *dst, const struct amb_copy_opts *opts)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_reader *r;
	struct amb_writer *w;
	long n;

	unlink(dst);
	assert_int_equal(amb_reader_open(src, 0, &r), 0);
	assert_int_equal(amb_writer_opts_from(&o, r), 0);
	assert_int_equal(amb_writer_open(dst, &o, &w), 0);
	n = amb_copy_blocks(r, w, opts);
	assert_int_equal(amb_writer_close(w), 0);
	amb_reader_close(r);
	return n;
}

/* Types of the data blocks of @path, in order, as a string of digits. */
static const char *types_of(const char *path)
{
	static char s[64];
	struct amb_reader *r;
	size_t k = 0;

	assert_int_equal(amb_verify(path, NULL, NULL, NULL), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	for (size_t i = 0; i < amb_reader_block_count(r) && k + 1 < sizeof(s); i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);

		if (bi->type != AMB_BLOCK_INDEX && bi->type != AMB_BLOCK_TRAILER)
			s[k++] = (char)('0' + bi->type % 10);
	}
	s[k] = 0;
	amb_reader_close(r);
	return s;
}

static void test_copy_all(void **state)
{
	char *dir = tmpdir_new();
	const char *src = tpath(dir, "src.amber"), *dst = tpath(dir, "dst.amber");
	AMB_OPTS(amb_copy_opts, co, .flags = AMB_COPY_DECODE);
	struct amb_reader *a, *b;

	(void)state;
	assert_non_null(dir);
	write_source(src);
	assert_int_equal(copy(src, dst, NULL), NSRC);
	assert_string_equal(types_of(dst), "133333");
	assert_int_equal(copy(src, dst, &co), NSRC);
	/* Same recording: the header fields came along. */
	assert_int_equal(amb_reader_open(src, 0, &a), 0);
	assert_int_equal(amb_reader_open(dst, 0, &b), 0);
	assert_memory_equal(amb_reader_header(a)->uuid, amb_reader_header(b)->uuid, 16);
	assert_int_equal(amb_reader_header(a)->created_ns, amb_reader_header(b)->created_ns);
	assert_int_equal(amb_reader_block(b, 1)->codec, AMB_CODEC_ZSTD);
	amb_reader_close(a);
	amb_reader_close(b);
	tmpdir_free(dir);
}

/* Leaves out stream 1, puts a SYNTH block where block 3 stood, and stops
 * with -EIO at block @stop_at (0: never). */
struct chooser {
	size_t stop_at;
	size_t asked;
};

static int choose(void *ctx, struct amb_writer *w, const struct amb_block_info *bi, size_t i)
{
	struct chooser *c = ctx;
	/* One record, 8 bytes: a bare header (§5.6). */
	static const uint8_t rec[8] = { 9, 0, 0, 0, 0, 0, 8, 0 };
	struct amb_block_desc d = { AMB_BLOCK_SYNTH, AMB_STREAM_NONE, 1, 0, 0 };

	c->asked++;
	if (c->stop_at && i == c->stop_at)
		return -EIO;
	if (i == 3) {
		assert_int_equal(amb_writer_append(w, &d, rec, sizeof(rec)), 0);
		return 0;
	}
	return bi->stream != 1;
}

static void test_chooser(void **state)
{
	char *dir = tmpdir_new();
	const char *src = tpath(dir, "src.amber"), *dst = tpath(dir, "dst.amber");
	struct chooser c = { 0 };
	AMB_OPTS(amb_copy_opts, co, .fn = choose, .ctx = &c);

	(void)state;
	assert_non_null(dir);
	write_source(src);
	/* Blocks 2 and 4 are stream 1; block 3 becomes a SYNTH block that is
	 * not counted as copied. */
	assert_int_equal(copy(src, dst, &co), 3);
	assert_int_equal(c.asked, NSRC);
	assert_string_equal(types_of(dst), "1343");
	c = (struct chooser){ .stop_at = 5 };
	assert_int_equal(copy(src, dst, &co), -EIO);
	assert_string_equal(types_of(dst), "134");
	tmpdir_free(dir);
}

/* A damaged payload stops the copy, or with AMB_COPY_SKIP_DAMAGED is left
 * out with a warning. */
static int warnings;

static void count_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
	warnings++;
}

static void test_damaged(void **state)
{
	char *dir = tmpdir_new();
	const char *src = tpath(dir, "src.amber"), *dst = tpath(dir, "dst.amber");
	AMB_OPTS(amb_copy_opts, skip, .flags = AMB_COPY_SKIP_DAMAGED);
	struct amb_reader *r;
	uint64_t off;
	uint8_t b;
	int fd;

	(void)state;
	assert_non_null(dir);
	write_source(src);
	assert_int_equal(amb_reader_open(src, 0, &r), 0);
	off = amb_reader_block(r, 2)->offset + AMB_BLOCK_HDR_SIZE + 10;
	amb_reader_close(r);
	fd = open(src, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, (off_t)off), 1);
	b ^= 0x10;
	assert_int_equal(pwrite(fd, &b, 1, (off_t)off), 1);
	close(fd);

	assert_int_equal(copy(src, dst, NULL), -AMB_E_PAYLOAD_CHECKSUM);
	amb_set_warn(count_warning, NULL);
	warnings = 0;
	assert_int_equal(copy(src, dst, &skip), NSRC - 1);
	assert_int_equal(warnings, 1);
	amb_set_warn(NULL, NULL);
	assert_string_equal(types_of(dst), "13333");
	tmpdir_free(dir);
}

/* Options this library cannot honour are refused before anything is
 * copied; a caller's struct that ends before fn is read without it. */
static void test_copy_opts(void **state)
{
	struct copy_opts_v2 {
		struct amb_copy_opts v1;
		uint32_t future;
	} o2;
	char *dir = tmpdir_new();
	const char *src = tpath(dir, "src.amber"), *dst = tpath(dir, "dst.amber");
	AMB_OPTS(amb_copy_opts, co, .flags = 1u << 7);
	struct amb_copy_opts old;

	(void)state;
	assert_non_null(dir);
	write_source(src);
	assert_int_equal(copy(src, dst, &co), -EINVAL);
	co.flags = 0;
	co.sz = 3;
	assert_int_equal(copy(src, dst, &co), -EINVAL);
	assert_string_equal(types_of(dst), "");

	memset(&o2, 0, sizeof(o2));
	o2.v1.sz = sizeof(o2);
	assert_int_equal(copy(src, dst, &o2.v1), NSRC);
	o2.future = 1;
	assert_int_equal(copy(src, dst, &o2.v1), -EINVAL);

	/* fn and ctx lie past sz: never called, so the bad pointer is fine. */
	memset(&old, 0xff, sizeof(old));
	old.sz = offsetof(struct amb_copy_opts, flags) + sizeof(old.flags);
	old.flags = AMB_COPY_DECODE;
	assert_int_equal(copy(src, dst, &old), NSRC);
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_all),
		cmocka_unit_test(test_chooser),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_copy_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

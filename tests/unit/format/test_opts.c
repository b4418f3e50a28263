// SPDX-License-Identifier: MIT
/* Unit tests for format/opts.c and the options structs that carry their
 * size (AMB_OPTS): callers built against an older header (a smaller sz)
 * get defaults for the fields they lack, callers built against a newer
 * one (a larger sz) are refused when they set a field this library does
 * not know, and a bad sz is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"
#include "format/format_internal.h"

/* The options struct of a caller built against a later header: one more
 * field after those this library knows. */
struct writer_opts_v2 {
	struct amb_writer_opts v1;
	uint64_t future;
};

static char last_warning[1024];

static void keep_warning(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

/* Write one compressible block with @opts and return the codec it got and
 * the file header's producer_endian. */
static int write_one(const char *path, const struct amb_writer_opts *opts, uint8_t *codec,
		     uint8_t *endian)
{
	struct amb_block_desc d = { AMB_BLOCK_RING, 0, 1, 0, 0 };
	struct amb_writer *w;
	struct amb_reader *r;
	uint8_t buf[4096];
	int err;

	err = amb_writer_open(path, opts, &w);
	if (err)
		return err;
	fill_payload(buf, sizeof(buf), 1, true);
	assert_int_equal(amb_writer_append(w, &d, buf, sizeof(buf)), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	*codec = amb_reader_block(r, 0)->codec;
	*endian = amb_reader_header(r)->producer_endian;
	amb_reader_close(r);
	unlink(path);
	return 0;
}

static void test_macro(void **state)
{
	AMB_OPTS(amb_writer_opts, o, .threads = 1, .max_queued = 5);
	AMB_OPTS(amb_copy_opts, c);

	(void)state;
	assert_int_equal(o.sz, sizeof(struct amb_writer_opts));
	assert_int_equal(o.threads, 1);
	assert_int_equal(o.max_queued, 5);
	assert_int_equal(o.zstd_level, 0);
	assert_null(o.uuid);
	assert_int_equal(c.sz, sizeof(struct amb_copy_opts));
	assert_int_equal(c.flags, 0);
	assert_null(c.fn);
	assert_true(amb_opts_valid(NULL, 8, "struct x"));
	assert_true(amb_opts_valid(&o, AMB_OPTS_KNOWN(amb_writer_opts), "struct amb_writer_opts"));
}

/* sz below the sz field, or far beyond any options struct, is refused
 * and no file is left behind. */
static void test_bad_size(void **state)
{
	static const size_t bad[] = { 0, 4, sizeof(size_t) - 1, 4097, SIZE_MAX };
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "bad.amber");
	struct amb_writer_opts o;
	struct amb_writer *w;

	(void)state;
	assert_non_null(dir);
	amb_set_warn(keep_warning, NULL);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(bad); i++) {
		memset(&o, 0, sizeof(o));
		o.sz = bad[i];
		last_warning[0] = 0;
		assert_int_equal(amb_writer_open(path, &o, &w), -EINVAL);
		assert_null(w);
		assert_int_equal(access(path, F_OK), -1);
		assert_non_null(strstr(last_warning, "struct amb_writer_opts: sz"));
	}
	amb_set_warn(NULL, NULL);
	tmpdir_free(dir);
}

/* An older caller's struct ends early: the fields past its sz are not
 * read (here they hold values that would be refused) and take defaults. */
static void test_older_caller(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "old.amber");
	struct amb_writer_opts o;
	uint8_t codec, endian;

	(void)state;
	assert_non_null(dir);
	memset(&o, 0xff, sizeof(o));
	/* Only zstd_level: 0 = store raw, as it says. */
	o.sz = offsetof(struct amb_writer_opts, zstd_level) + sizeof(o.zstd_level);
	o.zstd_level = 0;
	assert_int_equal(write_one(path, &o, &codec, &endian), 0);
	assert_int_equal(codec, AMB_CODEC_NONE);
	assert_int_equal(endian, amb_host_is_le() ? AMB_ENDIAN_LITTLE : AMB_ENDIAN_BIG);

	/* No field at all: the default level compresses. */
	o.sz = sizeof(size_t);
	assert_int_equal(write_one(path, &o, &codec, &endian), 0);
	assert_int_equal(codec, AMB_CODEC_ZSTD);

	/* As NULL does. */
	assert_int_equal(write_one(path, NULL, &codec, &endian), 0);
	assert_int_equal(codec, AMB_CODEC_ZSTD);

	/* Up to producer_endian: it is read (and checked). */
	memset(&o, 0, sizeof(o));
	o.sz = offsetof(struct amb_writer_opts, producer_endian) + 1;
	o.producer_endian = AMB_ENDIAN_BIG;
	assert_int_equal(write_one(path, &o, &codec, &endian), 0);
	assert_int_equal(endian, AMB_ENDIAN_BIG);
	assert_int_equal(codec, AMB_CODEC_NONE);
	o.producer_endian = 9;
	assert_int_equal(write_one(path, &o, &codec, &endian), -EINVAL);
	tmpdir_free(dir);
}

/* A newer caller's struct is longer: accepted while the fields this
 * library does not know are zero, refused when one is set. */
static void test_newer_caller(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "new.amber");
	struct writer_opts_v2 o2;
	uint8_t codec, endian;

	(void)state;
	assert_non_null(dir);
	memset(&o2, 0, sizeof(o2));
	o2.v1.sz = sizeof(o2);
	o2.v1.zstd_level = 1;
	assert_int_equal(write_one(path, &o2.v1, &codec, &endian), 0);
	assert_int_equal(codec, AMB_CODEC_ZSTD);

	amb_set_warn(keep_warning, NULL);
	o2.future = 1ull << 40;
	assert_int_equal(write_one(path, &o2.v1, &codec, &endian), -EINVAL);
	assert_int_equal(access(path, F_OK), -1);
	assert_non_null(strstr(last_warning, "is not zero"));
	amb_set_warn(NULL, NULL);
	tmpdir_free(dir);
}

/* amb_writer_opts_from() writes only within the caller's sz. */
static void test_opts_from(void **state)
{
	static const uint8_t uuid[16] = { 7, 7, 7, 7 };
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "src.amber");
	AMB_OPTS(amb_writer_opts, src, .uuid = uuid, .created_ns = 42, .producer_machine = 183,
		 .producer_endian = AMB_ENDIAN_BIG, .producer_word_size = 4);
	struct amb_writer_opts o;
	struct writer_opts_v2 o2;
	struct amb_writer *w;
	struct amb_reader *r;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(amb_writer_open(path, &src, &w), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.zstd_level = 5;
	assert_int_equal(amb_writer_opts_from(&o, r), 0);
	assert_int_equal(o.zstd_level, 5);
	assert_int_equal(o.producer_endian, AMB_ENDIAN_BIG);
	assert_int_equal(o.producer_word_size, 4);
	assert_int_equal(o.producer_machine, 183);
	assert_memory_equal(o.uuid, uuid, 16);
	assert_int_equal(o.created_ns, 42);

	/* A struct that ends after producer_machine keeps what follows. */
	memset(&o, 0xaa, sizeof(o));
	o.sz = offsetof(struct amb_writer_opts, producer_machine) + sizeof(o.producer_machine);
	assert_int_equal(amb_writer_opts_from(&o, r), 0);
	assert_int_equal(o.producer_machine, 183);
	assert_int_equal(o.created_ns, 0xaaaaaaaaaaaaaaaaull);

	assert_int_equal(amb_writer_opts_from(NULL, r), -EINVAL);
	o.sz = 2;
	assert_int_equal(amb_writer_opts_from(&o, r), -EINVAL);
	memset(&o2, 0, sizeof(o2));
	o2.v1.sz = sizeof(o2);
	o2.future = 1;
	assert_int_equal(amb_writer_opts_from(&o2.v1, r), -EINVAL);
	assert_int_equal(o2.v1.created_ns, 0);
	amb_reader_close(r);
	tmpdir_free(dir);
}

/* Flags words reject the bits they do not define. */
static void test_unknown_flags(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "f.amber");
	struct amb_writer *w;
	struct amb_reader *r;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(amb_writer_open(path, NULL, &w), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(path, 1u << 2, &r), -EINVAL);
	assert_null(r);
	assert_int_equal(amb_reader_open(path, AMB_READ_SCAN | AMB_READ_VERIFY, &r), 0);
	amb_reader_close(r);
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macro),
		cmocka_unit_test(test_bad_size),
		cmocka_unit_test(test_older_caller),
		cmocka_unit_test(test_newer_caller),
		cmocka_unit_test(test_opts_from),
		cmocka_unit_test(test_unknown_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

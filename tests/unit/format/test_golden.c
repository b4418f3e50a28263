// SPDX-License-Identifier: MIT
/*
 * Golden files (made by tests/tools/mkgolden): every valid file verifies
 * clean and decodes; every invalid file gives exactly the first problem
 * its .err names.  Run from the repository root, or set AMB_TESTDATA.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"
#include "common/util.h"

static const char *testdata(void)
{
	const char *d = getenv("AMB_TESTDATA");

	return d ? d : "testdata";
}

static const char *golden(const char *sub, const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s/%s", testdata(), sub, name);
	return buf;
}

static void test_invalid(void **state)
{
	DIR *dir;
	struct dirent *de;
	int checked = 0;

	(void)state;
	dir = opendir(golden("invalid", ""));
	if (!dir)
		fail_msg("no %s: run from the repository root or set AMB_TESTDATA", golden("invalid", ""));
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name), elen;
		struct problems ps = { 0 };
		char errpath[4096], amber[4096];
		struct amb_reader *r;
		char *want;
		int ret;

		if (n < 7 || strcmp(de->d_name + n - 6, ".amber") != 0)
			continue;
		snprintf(amber, sizeof(amber), "%s", golden("invalid", de->d_name));
		snprintf(errpath, sizeof(errpath), "%.*s.err", (int)(strlen(amber) - 6), amber);
		want = amb_read_file(errpath, 4096, &elen);
		if (!want)
			fail_msg("%s has no .err file", amber);
		if (elen && want[elen - 1] == '\n')
			want[elen - 1] = 0;

		ret = amb_verify(amber, collect_problem, &ps, NULL);
		if (ret < 1 || strcmp(ps.first, want) != 0)
			fail_msg("%s: verify returned %d, first problem\n  got:  %s\n  want: %s",
				 de->d_name, ret, ps.first, want);
		/* The reader refuses exactly the file header errors, with the
		 * same error code; everything else opens. */
		ret = amb_reader_open(amber, 0, &r);
		if (strncmp(want, "file header:", 12) == 0) {
			assert_int_equal(ret, ps.first_err);
		} else {
			assert_int_equal(ret, 0);
			amb_reader_close(r);
		}
		free(want);
		checked++;
	}
	closedir(dir);
	assert_true(checked >= 10);
}

static void verify_clean(const char *name, int problems)
{
	struct problems ps = { 0 };

	assert_int_equal(amb_verify(golden("valid", name), collect_problem, &ps, NULL), problems);
	assert_int_equal(ps.n, problems);
}

/* Decode every payload of all_types.amber with its §5 decoder. */
static void test_all_types(void **state)
{
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	unsigned seen = 0;

	(void)state;
	verify_clean("all_types.amber", 0);
	assert_int_equal(amb_reader_open(golden("valid", "all_types.amber"), 0, &r), 0);
	assert_true(amb_reader_indexed(r));
	for (size_t i = 0; i < amb_reader_block_count(r); i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		struct amb_cursor c;
		const void *data;
		uint64_t n = 0;
		size_t len;
		int ret = 0;

		assert_int_equal(amb_reader_load(r, i, p, &data, &len), 0);
		amb_cursor_init(&c, data, len);
		seen |= 1u << bi->type;
		switch (bi->type) {
		case AMB_BLOCK_META:
		case AMB_BLOCK_TRACEFS:
		case AMB_BLOCK_TOPOLOGY: {
			struct amb_kv kv;

			while ((ret = amb_kv_next(&c, &kv)) == 1)
				n++;
			break;
		}
		case AMB_BLOCK_EVENT_ATTR: {
			struct amb_event_entry e;

			while ((ret = amb_event_next(&c, &e)) == 1) {
				assert_int_equal(e.name_len, 9);
				n++;
			}
			break;
		}
		case AMB_BLOCK_BUILDID: {
			struct amb_buildid_entry e;

			while ((ret = amb_buildid_next(&c, &e)) == 1)
				n++;
			break;
		}
		case AMB_BLOCK_COUNTS: {
			struct amb_count_entry e;

			while ((ret = amb_count_next(&c, &e)) == 1)
				n++;
			break;
		}
		case AMB_BLOCK_FILE: {
			struct amb_file_entry e;

			assert_int_equal(amb_file_parse(data, len, &e), 0);
			assert_int_equal(e.data_len, e.file_size);
			n = 1;
			break;
		}
		case AMB_BLOCK_RING:
		case AMB_BLOCK_SYNTH:
			/* perf_event_header.size at offset 6, little-endian here */
			for (size_t off = 0; off + 8 <= len; off += amb_get_le16((const uint8_t *)data + off + 6))
				n++;
			break;
		case AMB_BLOCK_KSYMS:
			for (size_t k = 0; k < len; k++)
				n += ((const char *)data)[k] == '\n';
			break;
		default:
			n = bi->record_count;
		}
		assert_int_equal(ret, 0);
		assert_int_equal(n, bi->record_count);
	}
	/* every type 1..12 */
	assert_int_equal(seen, 0x1ffeu);
	amb_reader_close(r);
	amb_payload_free(p);
}

static void test_other_valid(void **state)
{
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	const uint8_t *rec;
	const void *data;
	size_t len;

	(void)state;
	verify_clean("minimal.amber", 0);
	verify_clean("bigendian.amber", 0);
	verify_clean("unclosed.amber", 1);

	assert_int_equal(amb_reader_open(golden("valid", "bigendian.amber"), 0, &r), 0);
	assert_int_equal(amb_reader_header(r)->producer_endian, AMB_ENDIAN_BIG);
	assert_int_equal(amb_reader_header(r)->producer_machine, 22);
	assert_int_equal(amb_reader_load(r, 1, p, &data, &len), 0);
	rec = data;
	/* PERF_RECORD_SAMPLE = 9 and size 32, both big-endian */
	assert_int_equal(rec[3], 9);
	assert_int_equal(rec[0], 0);
	assert_int_equal(rec[6] << 8 | rec[7], 32);
	amb_reader_close(r);

	assert_int_equal(amb_reader_open(golden("valid", "unclosed.amber"), 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_block_count(r), 3);
	assert_int_equal(amb_reader_problem_count(r), 1);
	amb_reader_close(r);
	amb_payload_free(p);
}

/* The sample codec goldens: RING blocks in codec 2 (FORMAT.md §4.1) that
 * decode to samples with call chains and a COMM record, in either order. */
static void test_sample_codec(void **state)
{
	static const char *const names[] = { "sample_codec.amber", "sample_codec_be.amber" };
	struct amb_payload *p = amb_payload_new();

	(void)state;
	for (int big = 0; big < 2; big++) {
		struct amb_reader *r;
		unsigned rings = 0;

		verify_clean(names[big], 0);
		assert_int_equal(amb_reader_open(golden("valid", names[big]), 0, &r), 0);
		for (size_t i = 0; i < amb_reader_block_count(r); i++) {
			const struct amb_block_info *bi = amb_reader_block(r, i);
			const uint8_t *rec;
			const void *data;
			uint64_t n = 0;
			size_t len, off;

			if (bi->type != AMB_BLOCK_RING)
				continue;
			rings++;
			assert_int_equal(bi->codec, AMB_CODEC_SAMPLE);
			assert_int_equal(amb_reader_load(r, i, p, &data, &len), 0);
			rec = data;
			for (off = 0; off + 8 <= len; n++) {
				size_t size = big ? (size_t)rec[off + 6] << 8 | rec[off + 7]
						  : amb_get_le16(rec + off + 6);

				assert_int_equal(rec[off + (big ? 3 : 0)], n == 31 ? 3 : 9);
				off += size;
			}
			assert_int_equal(off, len);
			assert_int_equal(n, bi->record_count);
		}
		assert_int_equal(rings, 2);
		amb_reader_close(r);
	}
	amb_payload_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_all_types),
		cmocka_unit_test(test_other_valid),
		cmocka_unit_test(test_sample_codec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

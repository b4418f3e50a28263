// SPDX-License-Identifier: MIT
/* Unit tests for format/payload.c: cursor bounds, and each encoding of
 * FORMAT.md §5 round-tripped, cut short at every length and over its caps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"

static void test_cursor(void **state)
{
	static const uint8_t b[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	struct amb_cursor c;
	const uint8_t *p;
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;
	uint8_t v8;

	(void)state;
	amb_cursor_init(&c, b, sizeof(b));
	assert_int_equal(amb_cursor_u8(&c, &v8), 0);
	assert_int_equal(v8, 1);
	assert_int_equal(amb_cursor_u16(&c, &v16), 0);
	assert_int_equal(v16, 0x0302);
	assert_int_equal(amb_cursor_u32(&c, &v32), 0);
	assert_int_equal(v32, 0x07060504);
	assert_int_equal(amb_cursor_left(&c), 8);
	assert_int_equal(amb_cursor_u64(&c, &v64), 0);
	assert_true(v64 == 0x0f0e0d0c0b0a0908ull);
	assert_int_equal(amb_cursor_u8(&c, &v8), -AMB_E_TRUNCATED);
	assert_int_equal(c.pos, 15);

	amb_cursor_init(&c, b, 3);
	assert_int_equal(amb_cursor_u32(&c, &v32), -AMB_E_TRUNCATED);
	assert_int_equal(amb_cursor_bytes(&c, 4, &p), -AMB_E_TRUNCATED);
	assert_int_equal(amb_cursor_bytes(&c, SIZE_MAX, &p), -AMB_E_TRUNCATED);
	assert_int_equal(c.pos, 0);
	assert_int_equal(amb_cursor_bytes(&c, 3, &p), 0);
	assert_ptr_equal(p, b);
	assert_int_equal(amb_cursor_left(&c), 0);
}

/* Decode every prefix of @b: each one ends cleanly or fails with an error,
 * never reads past the prefix (ASan checks that). */
typedef int (*next_fn)(struct amb_cursor *c, void *e);

static void every_prefix(const struct amb_buf *b, next_fn next, void *e, int full)
{
	for (size_t cut = 0; cut <= b->len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		struct amb_cursor c;
		int n = 0, ret;

		memcpy(copy, b->data, cut);
		amb_cursor_init(&c, copy, cut);
		while ((ret = next(&c, e)) == 1)
			n++;
		if (cut == b->len) {
			assert_int_equal(ret, 0);
			assert_int_equal(n, full);
		} else {
			assert_true(n < full || ret == 0);
		}
		free(copy);
	}
}

static int kv_next(struct amb_cursor *c, void *e)
{
	return amb_kv_next(c, e);
}

static void test_kv(void **state)
{
	struct amb_buf b = AMB_BUF_INIT;
	char bigkey[4098];
	struct amb_cursor c;
	struct amb_kv kv;

	(void)state;
	assert_int_equal(amb_kv_put_str(&b, "clock", "monotonic"), 0);
	assert_int_equal(amb_kv_put(&b, "empty", "", 0), 0);
	assert_int_equal(amb_kv_put(&b, "bin", "\0\1\2", 3), 0);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_kv_next(&c, &kv), 1);
	assert_int_equal(kv.key_len, 5);
	assert_memory_equal(kv.key, "clock", 5);
	assert_int_equal(kv.val_len, 9);
	assert_memory_equal(kv.val, "monotonic", 9);
	assert_int_equal(amb_kv_next(&c, &kv), 1);
	assert_int_equal(kv.val_len, 0);
	assert_int_equal(amb_kv_next(&c, &kv), 1);
	assert_memory_equal(kv.val, "\0\1\2", 3);
	assert_int_equal(amb_kv_next(&c, &kv), 0);
	every_prefix(&b, kv_next, &kv, 3);

	/* Caps: a key over 4096 bytes is refused both ways. */
	memset(bigkey, 'k', sizeof(bigkey) - 1);
	bigkey[sizeof(bigkey) - 1] = 0;
	assert_int_equal(amb_kv_put_str(&b, bigkey, "v"), -E2BIG);
	amb_buf_reset(&b);
	assert_int_equal(amb_buf_put_le32(&b, 4097), 0);
	assert_int_equal(amb_buf_append(&b, bigkey, 4097), 0);
	assert_int_equal(amb_buf_put_le32(&b, 0), 0);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_kv_next(&c, &kv), -AMB_E_TOO_BIG);
	assert_int_equal(c.pos, 0);
	/* value_len beyond the payload; NUL in a key */
	amb_buf_reset(&b);
	assert_int_equal(amb_kv_put_str(&b, "k", "value"), 0);
	amb_put_le32(b.data + 5, 6);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_kv_next(&c, &kv), -AMB_E_TRUNCATED);
	amb_put_le32(b.data + 5, 5);
	b.data[4] = 0;
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_kv_next(&c, &kv), -AMB_E_CORRUPT);
	amb_buf_free(&b);
}

static int event_next(struct amb_cursor *c, void *e)
{
	return amb_event_next(c, e);
}

static void test_event(void **state)
{
	uint8_t attr[136], ids[16];
	struct amb_event_entry in = {
		.attr = attr, .attr_size = sizeof(attr), .name = "cpu-clock", .name_len = 9,
		.leader = UINT32_MAX, .flags = AMB_EVENT_FALLBACK, .nr_ids = 2, .ids = ids,
	}, out;
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_cursor c;

	(void)state;
	fill_payload(attr, sizeof(attr), 1, false);
	amb_put_le64(ids, 77);
	amb_put_le64(ids + 8, 78);
	assert_int_equal(amb_event_put(&b, &in), 0);
	in.nr_ids = 0;
	in.leader = 0;
	in.attr_size = 0;
	assert_int_equal(amb_event_put(&b, &in), 0);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_event_next(&c, &out), 1);
	assert_int_equal(out.attr_size, sizeof(attr));
	assert_memory_equal(out.attr, attr, sizeof(attr));
	assert_int_equal(out.name_len, 9);
	assert_memory_equal(out.name, "cpu-clock", 9);
	assert_int_equal(out.leader, UINT32_MAX);
	assert_int_equal(out.flags, AMB_EVENT_FALLBACK);
	assert_int_equal(out.nr_ids, 2);
	assert_int_equal(amb_get_le64(out.ids + 8), 78);
	assert_int_equal(amb_event_next(&c, &out), 1);
	assert_int_equal(out.nr_ids, 0);
	assert_int_equal(out.leader, 0);
	assert_int_equal(amb_event_next(&c, &out), 0);
	every_prefix(&b, event_next, &out, 2);

	in.attr_size = 513;
	assert_int_equal(amb_event_put(&b, &in), -E2BIG);
	in.attr_size = 0;
	in.name_len = 1025;
	assert_int_equal(amb_event_put(&b, &in), -E2BIG);

	/* attr_size over the cap inside an otherwise well-formed entry */
	amb_put_le32(b.data + 4, 513);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_event_next(&c, &out), -AMB_E_TOO_BIG);
	/* A later minor's extra bytes at the end of an entry are skipped. */
	amb_buf_reset(&b);
	in.name_len = 1;
	in.name = "x";
	assert_int_equal(amb_event_put(&b, &in), 0);
	amb_put_le32(b.data, amb_get_le32(b.data) + 3);
	assert_int_equal(amb_buf_append(&b, "new", 3), 0);
	assert_int_equal(amb_event_put(&b, &in), 0);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_event_next(&c, &out), 1);
	assert_int_equal(amb_event_next(&c, &out), 1);
	assert_int_equal(out.name_len, 1);
	assert_int_equal(amb_event_next(&c, &out), 0);
	amb_buf_free(&b);
}

static int buildid_next(struct amb_cursor *c, void *e)
{
	return amb_buildid_next(c, e);
}

static void test_buildid(void **state)
{
	uint8_t id[20];
	struct amb_buildid_entry in = {
		.build_id = id, .build_id_len = 20, .kind = AMB_DSO_KERNEL,
		.path = "[kernel.kallsyms]", .path_len = 17,
	}, out;
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_cursor c;

	(void)state;
	fill_payload(id, sizeof(id), 2, false);
	assert_int_equal(amb_buildid_put(&b, &in), 0);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_buildid_next(&c, &out), 1);
	assert_int_equal(out.build_id_len, 20);
	assert_memory_equal(out.build_id, id, 20);
	assert_int_equal(out.kind, AMB_DSO_KERNEL);
	assert_int_equal(out.path_len, 17);
	assert_memory_equal(out.path, "[kernel.kallsyms]", 17);
	assert_int_equal(amb_buildid_next(&c, &out), 0);
	every_prefix(&b, buildid_next, &out, 1);

	b.data[6] = 1;  /* reserved */
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_buildid_next(&c, &out), -AMB_E_RESERVED);
	b.data[6] = 0;
	b.data[4] = 65;  /* build_id_len */
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_buildid_next(&c, &out), -AMB_E_TOO_BIG);
	in.build_id_len = 65;
	assert_int_equal(amb_buildid_put(&b, &in), -E2BIG);
	in.build_id_len = 20;
	in.path_len = 4097;
	assert_int_equal(amb_buildid_put(&b, &in), -E2BIG);
	amb_buf_free(&b);
}

static int count_next(struct amb_cursor *c, void *e)
{
	return amb_count_next(c, e);
}

static void test_count(void **state)
{
	struct amb_count_entry in = { 3, 1, UINT32_MAX, 99, 123456789, 1000, 900 }, out;
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_cursor c;

	(void)state;
	assert_int_equal(amb_count_put(&b, &in), 0);
	assert_int_equal(amb_count_put(&b, &in), 0);
	assert_int_equal(b.len, 2 * 48);
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_count_next(&c, &out), 1);
	assert_int_equal(out.event, 3);
	assert_int_equal(out.cpu, 1);
	assert_int_equal(out.tid, UINT32_MAX);
	assert_int_equal(out.id, 99);
	assert_int_equal(out.value, 123456789);
	assert_int_equal(out.time_enabled, 1000);
	assert_int_equal(out.time_running, 900);
	assert_int_equal(amb_count_next(&c, &out), 1);
	assert_int_equal(amb_count_next(&c, &out), 0);
	every_prefix(&b, count_next, &out, 2);
	amb_put_le32(b.data, 43);  /* entry_len below 44 */
	amb_cursor_init(&c, b.data, b.len);
	assert_int_equal(amb_count_next(&c, &out), -AMB_E_TRUNCATED);
	assert_int_equal(c.pos, 0);
	amb_buf_free(&b);
}

static void test_file(void **state)
{
	uint8_t id[20], data[100];
	struct amb_file_entry in = {
		.build_id = id, .build_id_len = 20, .kind = AMB_FILE_DEBUG,
		.name = "/usr/lib/debug/x.debug", .name_len = 22, .file_size = 1000,
		.part_offset = 900, .data_len = sizeof(data),
	}, out;
	struct amb_buf b = AMB_BUF_INIT;

	(void)state;
	fill_payload(id, sizeof(id), 3, false);
	fill_payload(data, sizeof(data), 4, false);
	assert_int_equal(amb_file_put_header(&b, &in), 0);
	assert_int_equal(amb_buf_append(&b, data, sizeof(data)), 0);
	assert_int_equal(amb_file_parse(b.data, b.len, &out), 0);
	assert_int_equal(out.kind, AMB_FILE_DEBUG);
	assert_memory_equal(out.build_id, id, 20);
	assert_int_equal(out.name_len, 22);
	assert_int_equal(out.file_size, 1000);
	assert_int_equal(out.part_offset, 900);
	assert_int_equal(out.data_len, sizeof(data));
	assert_memory_equal(out.data, data, sizeof(data));

	/* One byte more data than the file has room for. */
	assert_int_equal(amb_buf_append(&b, "x", 1), 0);
	assert_int_equal(amb_file_parse(b.data, b.len, &out), -AMB_E_CORRUPT);
	for (size_t cut = 0; cut < 4 + 4 + 20 + 4 + 22 + 16; cut++)
		assert_true(amb_file_parse(b.data, cut, &out) < 0);
	in.part_offset = UINT64_MAX - 10;
	assert_int_equal(amb_file_put_header(&b, &in), -EINVAL);
	in.part_offset = 0;
	in.build_id_len = 65;
	assert_int_equal(amb_file_put_header(&b, &in), -E2BIG);
	amb_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_buildid),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

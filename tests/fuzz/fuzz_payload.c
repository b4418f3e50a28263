// SPDX-License-Identifier: MIT
/*
 * fuzz_payload - the first byte picks a payload decoder of FORMAT.md §5
 * (key/value, EVENT_ATTR, BUILDID, COUNTS, FILE); the rest is its payload.
 * Every entry returned must lie inside the payload.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include <amber/format.h>

/* Pointers a decoder returns must stay inside [base, base + len). */
static void inside(const uint8_t *base, size_t len, const void *p, size_t n)
{
	const uint8_t *q = p;

	if (!n)
		return;
	assert(q >= base && q <= base + len && n <= (size_t)(base + len - q));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *pl;
	struct amb_cursor c;
	size_t len;

	if (size < 1)
		return 0;
	pl = data + 1;
	len = size - 1;
	amb_cursor_init(&c, pl, len);
	switch (data[0] % 5) {
	case 0: {
		struct amb_kv kv;

		while (amb_kv_next(&c, &kv) == 1) {
			inside(pl, len, kv.key, kv.key_len);
			inside(pl, len, kv.val, kv.val_len);
			assert(kv.key_len <= 4096);
		}
		break;
	}
	case 1: {
		struct amb_event_entry e;

		while (amb_event_next(&c, &e) == 1) {
			inside(pl, len, e.attr, e.attr_size);
			inside(pl, len, e.name, e.name_len);
			inside(pl, len, e.ids, 8 * (size_t)e.nr_ids);
			assert(e.attr_size <= 512 && e.name_len <= 1024);
		}
		break;
	}
	case 2: {
		struct amb_buildid_entry e;

		while (amb_buildid_next(&c, &e) == 1) {
			inside(pl, len, e.build_id, e.build_id_len);
			inside(pl, len, e.path, e.path_len);
			assert(e.build_id_len <= 64 && e.path_len <= 4096);
		}
		break;
	}
	case 3: {
		struct amb_count_entry e;

		while (amb_count_next(&c, &e) == 1)
			;
		break;
	}
	default: {
		struct amb_file_entry e;

		if (amb_file_parse(pl, len, &e) == 0) {
			inside(pl, len, e.build_id, e.build_id_len);
			inside(pl, len, e.name, e.name_len);
			inside(pl, len, e.data, (size_t)e.data_len);
			assert(e.part_offset + e.data_len <= e.file_size);
		}
		break;
	}
	}
	assert(c.pos <= c.len);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_roundtrip - the input describes blocks; write them with the writer,
 * read them back (indexed and scanning) and compare byte for byte.
 *
 * Input: byte 0 = options (bit 0: threads, bits 1-2: zstd level 0..3),
 * then repeated { u8 type, u8 stream, u16 len (little-endian), len bytes }.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>

#define MAX_BLOCKS 256

struct blk {
	const uint8_t *p;
	size_t len;
	uint16_t type;
	uint32_t stream;
};

static void check(const char *path, unsigned flags, const struct blk *b, size_t n)
{
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	int err = amb_reader_open(path, flags, &r);

	assert(err == 0 && p);
	assert(amb_reader_problem_count(r) == 0);
	assert(amb_reader_block_count(r) == n + 2);
	for (size_t i = 0; i < n; i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		const void *data;
		size_t len;

		assert(bi->type == b[i].type && bi->stream == b[i].stream && bi->seq == i);
		assert(bi->record_count == i && bi->first_time == i && bi->last_time == 2 * i);
		err = amb_reader_load(r, i, p, &data, &len);
		assert(err == 0 && len == b[i].len);
		assert(len == 0 || memcmp(data, b[i].p, len) == 0);
	}
	amb_reader_close(r);
	amb_payload_free(p);
}

/* Whether @len bytes at @p are exactly @count whole perf records, their
 * sizes little-endian (the writer's producer is this host): what verify
 * requires of a RING or SYNTH payload (FORMAT.md §3), counted here on its
 * own. */
static bool whole_records(const uint8_t *p, size_t len, uint64_t count)
{
	size_t pos = 0;
	uint64_t k = 0;

	while (len - pos >= 8) {
		size_t sz = amb_get_le16(p + pos + 6);

		if (sz < 8 || sz > len - pos)
			return false;
		pos += sz;
		k++;
	}
	return pos == len && k == count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static struct blk b[MAX_BLOCKS];
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	size_t n = 0, pos = 1;
	int err, bad = 0;

	if (size < 1)
		return 0;
	while (pos + 4 <= size && n < MAX_BLOCKS) {
		size_t len = amb_get_le16(data + pos + 2);

		/* Types the writer reserves for itself become META. */
		b[n].type = data[pos] % AMB_BLOCK_INDEX ? data[pos] % AMB_BLOCK_INDEX : 1;
		b[n].stream = data[pos + 1] == 0xff ? AMB_STREAM_NONE : data[pos + 1];
		pos += 4;
		len = AMB_MIN(len, size - pos);
		b[n].p = data + pos;
		b[n].len = len;
		pos += len;
		n++;
	}

	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/fuzz_roundtrip.%d.amber", getpid());
	unlink(path);
	o.threads = data[0] & 1;
	o.zstd_level = (data[0] >> 1) & 3;
	o.max_queued = 4096;
	err = amb_writer_open(path, &o, &w);
	assert(err == 0);
	for (size_t i = 0; i < n; i++) {
		struct amb_block_desc d = { b[i].type, b[i].stream, i, i, 2 * i };

		err = amb_writer_append(w, &d, b[i].p, b[i].len);
		assert(err == 0);
	}
	err = amb_writer_close(w);
	assert(err == 0);

	check(path, 0, b, n);
	check(path, AMB_READ_SCAN | AMB_READ_VERIFY, b, n);
	/* One problem for each RING or SYNTH block whose bytes are not its
	 * record_count (i) whole records, none else. */
	for (size_t i = 0; i < n; i++)
		if ((b[i].type == AMB_BLOCK_RING || b[i].type == AMB_BLOCK_SYNTH) &&
		    !whole_records(b[i].p, b[i].len, i))
			bad++;
	assert(amb_verify(path, NULL, NULL, NULL) == bad);
	unlink(path);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_codec - the sample codec's decoder (FORMAT.md §4.1) on hostile
 * payloads.  Input: u32 raw_size (little-endian, at most 1 MiB), then the
 * codec 2 payload.  Decoding must fail cleanly or succeed, never read or
 * write out of bounds; a success must give the same bytes twice (the
 * decoder keeps no state from one block to the next).  Seeds in
 * testdata/fuzz/fuzz_codec/ are payloads of synthetic records, some with
 * the streams stored raw so that mutations reach the columns.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "format/format_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct amb_sample_codec *c;
	static uint8_t *a, *b;
	size_t raw;

	if (size < 4)
		return 0;
	if (!c) {
		c = amb_sample_codec_new();
		a = malloc(1u << 20);
		b = malloc(1u << 20);
		assert(c && a && b);
	}
	raw = amb_get_le32(data) % ((1u << 20) + 1);
	if (amb_sample_decode(c, data + 4, size - 4, a, raw, NULL, 0) == 0) {
		assert(amb_sample_decode(c, data + 4, size - 4, b, raw, NULL, 0) == 0);
		assert(memcmp(a, b, raw) == 0);
	}
	return 0;
}

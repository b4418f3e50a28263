// SPDX-License-Identifier: MIT
/*
 * tests/tools/mkcodecseeds.c - write the seed corpora of the sample codec's
 * fuzz targets: DIR/fuzz_codec/NAME (u32 raw_size, then a codec 2 payload
 * of synthetic records, its streams stored raw or compressed) and
 * DIR/fuzz_codec_roundtrip/NAME (inputs of that target's format).
 *
 *   mkcodecseeds DIR      (normally: mkcodecseeds testdata/fuzz)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <amber/common.h>
#include "format/format_internal.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void put(struct amb_buf *b, uint64_t v, unsigned n, bool big)
{
	uint8_t x[8];

	for (unsigned i = 0; i < n; i++)
		x[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	if (amb_buf_append(b, x, n))
		exit(1);
}

static void end_record(struct amb_buf *b, size_t start, bool big)
{
	size_t n = b->len - start;

	b->data[start + (big ? 7 : 6)] = (uint8_t)n;
	b->data[start + (big ? 6 : 7)] = (uint8_t)(n >> 8);
}

/* Samples of IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN [REGS_USER
 * STACK_USER], and now and then another record. */
static void records(struct amb_buf *b, bool big, bool dwarf, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		size_t start = b->len;
		unsigned nr = dwarf ? 2 : 2 + k % 4;

		if (k % 9 == 8) {
			put(b, 3 + k % 5, 4, big);
			put(b, 0, 2, big);
			put(b, 0, 2, big);
			for (unsigned i = 0; i < 3; i++)
				put(b, rnd(), 8, big);
			end_record(b, start, big);
			continue;
		}
		put(b, 9, 4, big);
		put(b, k % 3 ? 2 : 1, 2, big);
		put(b, 0, 2, big);
		put(b, 7, 8, big);
		put(b, 0x401000 + 16 * (k % 5), 8, big);
		put(b, 100, 4, big);
		put(b, 100 + k % 2, 4, big);
		put(b, 1000000 + 250000 * k + rnd() % 2000, 8, big);
		put(b, k % 2, 4, big);
		put(b, 0, 4, big);
		put(b, 250000, 8, big);
		put(b, nr, 8, big);
		put(b, (uint64_t)-512, 8, big);
		for (unsigned i = 1; i < nr; i++)
			put(b, 0x401000 + 16 * (k % 5) + 64 * i, 8, big);
		if (dwarf) {
			put(b, 2, 8, big);
			for (unsigned i = 0; i < 4; i++)
				put(b, 0x7ffe0000 + rnd() % 256, 8, big);
			put(b, 64, 8, big);
			for (unsigned i = 0; i < 64; i++)
				put(b, i < 40 ? rnd() & 0xff : 0, 1, big);
			put(b, 40, 8, big);
		}
		end_record(b, start, big);
	}
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "mkcodecseeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const struct { const char *name; bool big, dwarf; int level; unsigned n; } seeds[] = {
		{ "fp_le_raw", false, false, 0, 40 },
		{ "fp_le_zstd", false, false, 3, 60 },
		{ "fp_be_raw", true, false, 0, 40 },
		{ "dwarf_le_raw", false, true, 0, 12 },
		{ "dwarf_be_zstd", true, true, 3, 12 },
	};
	struct amb_sample_codec *c = amb_sample_codec_new();
	char dir[4096];

	if (argc != 2 || !c) {
		fprintf(stderr, "usage: mkcodecseeds DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/fuzz_codec", argv[1]);
	mkdir(dir, 0755);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(seeds); i++) {
		struct amb_buf rec = AMB_BUF_INIT, out = AMB_BUF_INIT, seed = AMB_BUF_INIT;
		struct amb_sample_layout l = {
			.sample_type = 0x101a7 | 0x20 | (seeds[i].dwarf ? 0x3000 : 0),
			.regs_user = seeds[i].dwarf ? 0xf : 0,
			.byte_order = seeds[i].big ? AMB_ENDIAN_BIG : AMB_ENDIAN_LITTLE,
		};

		records(&rec, seeds[i].big, seeds[i].dwarf, seeds[i].n);
		if (amb_sample_encode(c, &l, seeds[i].level, rec.data, rec.len, &out) ||
		    amb_buf_put_le32(&seed, (uint32_t)rec.len) ||
		    amb_buf_append(&seed, out.data, out.len))
			return 1;
		write_file(dir, seeds[i].name, seed.data, seed.len);
		amb_buf_free(&rec);
		amb_buf_free(&out);
		amb_buf_free(&seed);
	}
	snprintf(dir, sizeof(dir), "%s/fuzz_codec_roundtrip", argv[1]);
	mkdir(dir, 0755);
	for (unsigned i = 0; i < 6; i++) {
		uint8_t in[512];
		char name[32];

		in[0] = (uint8_t)(i | (i & 1 ? 0x40 : 0) | (i & 2 ? 0x80 : 0));
		in[1] = (uint8_t)i;
		for (size_t k = 2; k < sizeof(in); k++)
			in[k] = (uint8_t)(k % 7 == 0 ? 250 : rnd());
		snprintf(name, sizeof(name), "layout_%u", i);
		write_file(dir, name, in, sizeof(in));
	}
	amb_sample_codec_free(c);
	return 0;
}

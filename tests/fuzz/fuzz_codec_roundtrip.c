// SPDX-License-Identifier: MIT
/*
 * fuzz_codec_roundtrip - records made from the input, encoded with the
 * sample codec and decoded, must come back to the byte (FORMAT.md §4.1).
 *
 * Input: byte 0 picks the layout (its sample_type, read_format, register
 * masks, hw_idx flag) and the byte order, byte 1 the zstd level (0..3);
 * then records follow, each led by one byte: below 200 a sample built
 * field by field to fit the layout, its values and counts taken from the
 * input; else a record of another type, or a sample the layout does not
 * fit, of bytes taken from the input.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "format/format_internal.h"

struct in {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct in *in, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

struct out {
	uint8_t *p;
	size_t len, cap;
	bool big;
};

static bool put(struct out *o, uint64_t v, unsigned n)
{
	if (o->len + n > o->cap)
		return false;
	for (unsigned i = 0; i < n; i++)
		o->p[o->len + (o->big ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
	o->len += n;
	return true;
}

static const uint64_t sample_types[] = {
	0x1a7 | 0x10000 | 0x20,      /* IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN */
	0x1ffffff,                   /* every field */
	0x3007 | 0x10000 | 0x20,     /* DWARF: + REGS_USER STACK_USER */
	0x2 | 0x4 | 0x400 | 0x10000, /* tracepoints: RAW */
	0x1 | 0x10 | 0x800,          /* IP READ BRANCH_STACK */
	0,
};

/* A sample of layout @l: fields in perf_event.h's order, values from @in. */
static bool sample(struct in *in, struct out *o, const struct amb_sample_layout *l)
{
	uint64_t st = l->sample_type, n, k;
	size_t start = o->len;
	bool ok = put(o, 9, 4) && put(o, take(in, 1) & 7, 2) && put(o, 0, 2);

#define U64() (ok = ok && put(o, take(in, 1) ? take(in, 8) : 0, 8))
#define SMALL(m) (take(in, 1) % (m))
	if (st & (1ull << 16)) U64();
	if (st & 1) U64();
	if (st & 2) U64();
	if (st & 4) U64();
	if (st & 8) U64();
	if (st & 64) U64();
	if (st & 512) U64();
	if (st & 128) U64();
	if (st & 256) U64();
	if (st & 16) {
		n = 1;
		if (l->read_format & 8) {
			n = SMALL(5);
			ok = ok && put(o, n, 8);
		}
		n = !!(l->read_format & 1) + !!(l->read_format & 2) +
		    n * (1 + !!(l->read_format & 4) + !!(l->read_format & 16));
		for (k = 0; k < n; k++)
			U64();
	}
	if (st & 32) {
		n = SMALL(12);
		ok = ok && put(o, n, 8);
		for (k = 0; k < n; k++)
			ok = ok && put(o, take(in, 1) % 3 == 0 ? (uint64_t)-512 : 0x400000 + take(in, 2), 8);
	}
	if (st & 1024) {
		n = SMALL(6) * 4 + 4;
		ok = ok && put(o, n, 4);
		for (k = 0; k < n; k++)
			ok = ok && put(o, take(in, 1), 1);
	}
	if (st & 2048) {
		n = SMALL(4);
		ok = ok && put(o, n, 8);
		if (l->flags & AMB_SAMPLE_BRANCH_HW_INDEX)
			U64();
		for (k = 0; k < 3 * n; k++)
			U64();
	}
	if (st & 4096) {
		n = SMALL(2);
		ok = ok && put(o, n, 8);
		for (k = 0; n && k < (uint64_t)__builtin_popcountll(l->regs_user); k++)
			U64();
	}
	if (st & 8192) {
		n = SMALL(3) * 64;
		ok = ok && put(o, n, 8);
		if (n) {
			uint64_t dyn = take(in, 1) % (n + 1);

			for (k = 0; k < n; k++)
				ok = ok && put(o, k < dyn || take(in, 1) > 250 ? take(in, 1) : 0, 1);
			ok = ok && put(o, dyn, 8);
		}
	}
	if (st & ((1ull << 14) | (1ull << 24))) U64();
	if (st & (1ull << 15)) U64();
	if (st & (1ull << 17)) U64();
	if (st & (1ull << 18)) {
		n = SMALL(2);
		ok = ok && put(o, n, 8);
		for (k = 0; n && k < (uint64_t)__builtin_popcountll(l->regs_intr); k++)
			U64();
	}
	if (st & (1ull << 19)) U64();
	if (st & (1ull << 21)) U64();
	if (st & (1ull << 22)) U64();
	if (st & (1ull << 23)) U64();
	if (st & (1ull << 20)) {
		n = SMALL(3) * 8;
		ok = ok && put(o, n, 8);
		for (k = 0; k < n; k++)
			ok = ok && put(o, take(in, 1), 1);
	}
#undef U64
#undef SMALL
	n = o->len - start;
	if (!ok || n > 0xffff) {
		o->len = start;
		return false;
	}
	o->p[start + (o->big ? 7 : 6)] = (uint8_t)n;
	o->p[start + (o->big ? 6 : 7)] = (uint8_t)(n >> 8);
	return true;
}

static bool other(struct in *in, struct out *o)
{
	uint32_t type = take(in, 1) % 4 == 0 ? 9 : (uint32_t)take(in, 4);
	size_t n = 8 + take(in, 1) % 64, start = o->len;
	bool ok = put(o, type, 4) && put(o, take(in, 2), 2) && put(o, n, 2);

	for (size_t k = 8; ok && k < n; k++)
		ok = put(o, take(in, 1), 1);
	if (!ok)
		o->len = start;
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct amb_sample_codec *enc, *dec;
	static uint8_t rec[1u << 20], back[1u << 20];
	struct amb_buf coded = AMB_BUF_INIT;
	struct in in = { data, size };
	struct out o = { rec, 0, sizeof(rec), false };
	struct amb_sample_layout l;
	unsigned sel;
	int level, err;

	if (size < 2)
		return 0;
	if (!enc) {
		enc = amb_sample_codec_new();
		dec = amb_sample_codec_new();
		assert(enc && dec);
	}
	sel = (unsigned)take(&in, 1);
	level = (int)(take(&in, 1) % 4);
	memset(&l, 0, sizeof(l));
	l.sample_type = sample_types[sel % AMB_ARRAY_SIZE(sample_types)];
	l.read_format = (l.sample_type & 16) ? (sel >> 3) % 32 : 0;
	l.regs_user = (l.sample_type & 4096) ? 0xf0f : 0;
	l.regs_intr = (l.sample_type & (1ull << 18)) ? 0x3 : 0;
	l.flags = (l.sample_type & 2048) && (sel & 0x80) ? AMB_SAMPLE_BRANCH_HW_INDEX : 0;
	o.big = sel & 0x40;
	l.byte_order = o.big ? AMB_ENDIAN_BIG : AMB_ENDIAN_LITTLE;
	while (in.left) {
		bool ok = take(&in, 1) < 200 ? sample(&in, &o, &l) : other(&in, &o);

		if (!ok)
			break;
	}
	err = amb_sample_encode(enc, &l, level, rec, o.len, &coded);
	assert(err == 0);
	err = amb_sample_decode(dec, coded.data, coded.len, back, o.len, NULL, 0);
	assert(err == 0);
	assert(memcmp(back, rec, o.len) == 0);
	amb_buf_free(&coded);
	return 0;
}

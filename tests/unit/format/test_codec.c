// SPDX-License-Identifier: MIT
/*
 * Unit tests for format/codec_sample.c, the sample codec (FORMAT.md §4.1),
 * and what uses it: records of every type and samples of every field in
 * both byte orders come back to the byte; worst cases (all-distinct and
 * huge chains, time going backwards, samples the layout does not fit,
 * unknown record types); damaged payloads are refused, never decoded
 * wrong; the writer, reader, verify, salvage and the recoding copy.
 * Payloads written by hand, as a hostile writer would: test_codec_hostile.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"
#include "format/format_internal.h"

#include "tests/unit/format/codec_test.h"

/* ---- building records in a producer's byte order -------------------------- */

struct rb {
	struct amb_buf b;
	bool big;
	size_t start;             /* of the record being built */
	uint64_t rng;
};

static void rb_bytes(struct rb *r, const void *p, size_t n)
{
	assert_int_equal(amb_buf_append(&r->b, p, n), 0);
}

static void rb_uint(struct rb *r, uint64_t v, unsigned width)
{
	uint8_t x[8];

	for (unsigned i = 0; i < width; i++)
		x[r->big ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
	rb_bytes(r, x, width);
}

static void rb_u64(struct rb *r, uint64_t v) { rb_uint(r, v, 8); }
static void rb_u32(struct rb *r, uint32_t v) { rb_uint(r, v, 4); }

static void rec_begin(struct rb *r, uint32_t type, uint16_t misc)
{
	r->start = r->b.len;
	rb_u32(r, type);
	rb_uint(r, misc, 2);
	rb_uint(r, 0, 2);   /* size, patched by rec_end() */
}

static void rec_end(struct rb *r)
{
	size_t size = r->b.len - r->start;
	uint8_t *p = r->b.data + r->start + 6;

	assert_true(size <= 0xffff);
	p[r->big ? 1 : 0] = (uint8_t)size;
	p[r->big ? 0 : 1] = (uint8_t)(size >> 8);
}

static uint64_t rnd(struct rb *r)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return r->rng;
}

static void rb_fill(struct rb *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rb_bytes(r, &(uint8_t){ (uint8_t)rnd(r) }, 1);
}

static struct amb_sample_layout layout(uint64_t st, uint64_t rf, uint64_t ru, uint64_t ri,
				       bool big, bool hw)
{
	struct amb_sample_layout l;

	memset(&l, 0, sizeof(l));
	l.sample_type = st;
	l.read_format = rf;
	l.regs_user = ru;
	l.regs_intr = ri;
	l.byte_order = big ? AMB_ENDIAN_BIG : AMB_ENDIAN_LITTLE;
	l.flags = hw ? AMB_SAMPLE_BRANCH_HW_INDEX : 0;
	return l;
}

/* Encode @r's records with @l, decode them, compare; the stats in *@st. */
static void roundtrip(const struct rb *r, const struct amb_sample_layout *l, int level,
		      struct amb_sample_stats *st)
{
	struct amb_sample_codec *enc = amb_sample_codec_new(), *dec = amb_sample_codec_new();
	struct amb_buf out = AMB_BUF_INIT;
	uint8_t *back = malloc(r->b.len + 1);
	char why[256] = "";
	int err;

	assert_non_null(enc);
	assert_non_null(dec);
	assert_non_null(back);
	assert_int_equal(amb_sample_encode(enc, l, level, r->b.data, r->b.len, &out), 0);
	err = amb_sample_decode(dec, out.data, out.len, back, r->b.len, why, sizeof(why));
	if (err)
		fail_msg("decode: %s (%s)", why, amb_strerror(err));
	assert_memory_equal(back, r->b.data, r->b.len);
	if (st)
		amb_sample_codec_stats(enc, st);
	/* The same codec decodes its own output too, block after block. */
	assert_int_equal(amb_sample_decode(enc, out.data, out.len, back, r->b.len, NULL, 0), 0);
	assert_memory_equal(back, r->b.data, r->b.len);
	free(back);
	amb_buf_free(&out);
	amb_sample_codec_free(enc);
	amb_sample_codec_free(dec);
}

/* ---- samples with every field -------------------------------------------------- */

#define ALL_FIELDS (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_STREAM_ID | \
		    S_CPU | S_PERIOD | S_READ | S_CALLCHAIN | S_RAW | S_BRANCH |          \
		    S_REGS_USER | S_STACK_USER | S_WEIGHT_STRUCT | S_DATA_SRC |             \
		    S_TRANSACTION | S_REGS_INTR | S_PHYS_ADDR | S_CGROUP | S_DATA_PAGE_SIZE | \
		    S_CODE_PAGE_SIZE | S_AUX)
#define REGS_USER 0xff0full   /* 12 registers */
#define REGS_INTR 0x7ull      /* 3 */

/* One sample of ALL_FIELDS, its variable parts chosen by @k. */
static void put_full_sample(struct rb *r, unsigned k, uint64_t rf, bool hw)
{
	uint64_t nr, i, n;

	rec_begin(r, 9, (uint16_t)(k % 3 == 0 ? 1 : 2));
	rb_u64(r, 40 + k % 2);                       /* identifier */
	rb_u64(r, 0x401000 + 16 * (k % 5));          /* ip */
	rb_u32(r, 100);                              /* pid */
	rb_u32(r, 100 + k % 3);                      /* tid */
	rb_u64(r, 1000000 + 250000 * k + rnd(r) % 3000);  /* time */
	rb_u64(r, rnd(r));                           /* addr */
	rb_u64(r, 40 + k % 2);                       /* id */
	rb_u64(r, 50);                               /* stream_id */
	rb_u32(r, k % 2);                            /* cpu */
	rb_u32(r, 0);                                /* res */
	rb_u64(r, 250000);                           /* period */
	n = 1;
	if (rf & RF_GROUP) {
		n = k % 4;
		rb_u64(r, n);
	}
	n = !!(rf & RF_ENABLED) + !!(rf & RF_RUNNING) +
	    n * (1 + !!(rf & RF_ID) + !!(rf & RF_LOST));
	for (i = 0; i < n; i++)
		rb_u64(r, 1000 * k + i);
	nr = k % 7;                                  /* callchain */
	rb_u64(r, nr);
	for (i = 0; i < nr; i++)
		rb_u64(r, i == 0 ? CTX_USER : 0x401000 + 16 * (k % 5) + 100 * i);
	n = (k % 4) * 4 + 4;                         /* raw: u32 size + data, padded */
	rb_u32(r, (uint32_t)n);
	rb_fill(r, n);
	nr = k % 3;                                  /* branch stack */
	rb_u64(r, nr);
	if (hw)
		rb_u64(r, (uint64_t)-1 + k);
	for (i = 0; i < nr; i++) {
		rb_u64(r, 0x401000 + i);
		rb_u64(r, 0x402000 + i);
		rb_u64(r, rnd(r) & 0xffff);
	}
	rb_u64(r, k % 5 ? 2 : 0);                    /* regs user: abi */
	if (k % 5)
		for (i = 0; i < 12; i++)
			rb_u64(r, i == 7 ? 0x7ffe0000 - 16 * k : rnd(r) % 1000);
	n = k % 4 == 0 ? 0 : 256;                    /* stack user */
	rb_u64(r, n);
	if (n) {
		uint64_t dyn = k % 4 == 1 ? 256 : 100;
		uint8_t z[256] = { 0 };

		rb_fill(r, dyn);
		if (k % 4 == 3)
			rb_fill(r, n - dyn);         /* a tail that is not zero */
		else
			rb_bytes(r, z, n - dyn);
		rb_u64(r, dyn);
	}
	rb_u64(r, k * 3);                            /* weight */
	rb_u64(r, 0x6900142);                        /* data_src */
	rb_u64(r, 0);                                /* transaction */
	rb_u64(r, k % 2 ? 2 : 0);                    /* regs intr */
	if (k % 2)
		for (i = 0; i < 3; i++)
			rb_u64(r, rnd(r));
	rb_u64(r, 0x1000000 + k);                    /* phys_addr */
	rb_u64(r, 1);                                /* cgroup */
	rb_u64(r, 4096);                             /* data_page_size */
	rb_u64(r, 4096);                             /* code_page_size */
	n = (k % 3) * 8;                             /* aux */
	rb_u64(r, n);
	rb_fill(r, n);
	rec_end(r);
}

static void test_every_field(void **state)
{
	const uint64_t rfs[] = { RF_ENABLED | RF_RUNNING | RF_ID,
				 RF_GROUP | RF_ENABLED | RF_RUNNING | RF_ID | RF_LOST, 0 };

	(void)state;
	for (int big = 0; big < 2; big++) {
		for (size_t f = 0; f < AMB_ARRAY_SIZE(rfs); f++) {
			for (int hw = 0; hw < 2; hw++) {
				struct rb r = { .big = big, .rng = 12345 };
				struct amb_sample_layout l = layout(ALL_FIELDS, rfs[f], REGS_USER,
								    REGS_INTR, big, hw);
				struct amb_sample_stats st;

				for (unsigned k = 0; k < 300; k++)
					put_full_sample(&r, k, rfs[f], hw);
				roundtrip(&r, &l, 3, &st);
				assert_int_equal(st.samples, 300);
				assert_int_equal(st.verbatim, 0);
				/* Level 0: the streams stored as they are. */
				roundtrip(&r, &l, 0, NULL);
				amb_buf_free(&r.b);
			}
		}
	}
}

/* The weight field of PERF_SAMPLE_WEIGHT alone is one u64 too. */
static void test_few_fields(void **state)
{
	const uint64_t types[] = { 0, S_IP, S_TID, S_TIME | S_WEIGHT, S_IP | S_CALLCHAIN,
				   S_IDENTIFIER | S_TID | S_TIME | S_CPU | S_PERIOD | S_CALLCHAIN };

	(void)state;
	for (int big = 0; big < 2; big++) {
		for (size_t t = 0; t < AMB_ARRAY_SIZE(types); t++) {
			struct rb r = { .big = big, .rng = 7 };
			struct amb_sample_layout l = layout(types[t], 0, 0, 0, big, false);
			struct amb_sample_stats st;

			for (unsigned k = 0; k < 50; k++) {
				rec_begin(&r, 9, 2);
				if (types[t] & S_IDENTIFIER)
					rb_u64(&r, 9);
				if (types[t] & S_IP)
					rb_u64(&r, 0x400000 + k);
				if (types[t] & S_TID)
					rb_u64(&r, 0x0000006400000064ull);
				if (types[t] & S_TIME)
					rb_u64(&r, 1000 * k);
				if (types[t] & S_CPU)
					rb_u64(&r, 1);
				if (types[t] & S_PERIOD)
					rb_u64(&r, 1);
				if (types[t] & S_CALLCHAIN) {
					rb_u64(&r, 2);
					rb_u64(&r, CTX_USER);
					rb_u64(&r, 0x400000 + k);
				}
				if (types[t] & S_WEIGHT)
					rb_u64(&r, k);
				rec_end(&r);
			}
			roundtrip(&r, &l, 3, &st);
			assert_int_equal(st.samples, 50);
			amb_buf_free(&r.b);
		}
	}
}

/* ---- other records and worst cases ------------------------------------------------ */

/* A record of @type with a body of @n bytes and a sample_id trailer. */
static void put_other(struct rb *r, uint32_t type, size_t n)
{
	rec_begin(r, type, 0);
	rb_fill(r, n);
	rb_u64(r, 0x0000006400000064ull);
	rb_u64(r, 5000);
	rec_end(r);
}

static void put_fp_sample(struct rb *r, uint64_t time, uint32_t tid, const uint64_t *chain,
			  uint64_t nr)
{
	rec_begin(r, 9, 2);
	rb_u64(r, 7);
	rb_u64(r, nr > 1 ? chain[1] : 0x400000);
	rb_u32(r, 100);
	rb_u32(r, tid);
	rb_u64(r, time);
	rb_u64(r, 1);
	rb_u64(r, 250000);
	rb_u64(r, nr);
	for (uint64_t i = 0; i < nr; i++)
		rb_u64(r, chain[i]);
	rec_end(r);
}

#define FP_TYPE (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD | S_CALLCHAIN)

/*
 * The decoder says which samples share a chain (amb_sample_codec_chains()):
 * samples with one index have the same callchain bytes, samples with
 * different chains have different indexes (amber's encoder never makes a
 * chain twice), and records without a modelled chain have UINT32_MAX.
 */
static void test_chain_ids(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		struct rb r = { .big = big, .rng = 777 };
		struct amb_sample_layout l = layout(FP_TYPE, 0, 0, 0, big, false);
		struct amb_sample_codec *enc = amb_sample_codec_new(), *dec = amb_sample_codec_new();
		struct amb_buf out = AMB_BUF_INIT;
		uint64_t chains[24][6];
		unsigned lens[24], used[24] = { 0 };
		uint32_t id_of[24];
		const uint32_t *ids;
		size_t nr, at, rec = 0, n = 0;
		uint8_t *back;

		assert_non_null(enc);
		assert_non_null(dec);
		/* Chains that share prefixes and leaves, some only a marker. */
		for (unsigned c = 0; c < 24; c++) {
			lens[c] = 1 + c % 6;
			chains[c][0] = c % 4 ? CTX_USER : CTX_KERNEL;
			for (unsigned i = 1; i < lens[c]; i++)
				chains[c][i] = 0x401000 + 0x10 * ((c + i) % 5) + 0x1000 * i;
		}
		for (unsigned k = 0; k < 600; k++) {
			unsigned c = (unsigned)(rnd(&r) % 24);

			if (k % 50 == 7)
				put_other(&r, 3, 16);
			put_fp_sample(&r, 1000 * k, 100 + k % 3, chains[c], lens[c]);
		}
		rec_begin(&r, 9, 1);          /* a sample that misfits: verbatim */
		rb_u64(&r, 7);
		rec_end(&r);
		back = malloc(r.b.len);
		assert_non_null(back);
		assert_null(amb_sample_codec_chains(dec, &nr));
		assert_int_equal(nr, 0);
		assert_int_equal(amb_sample_encode(enc, &l, 3, r.b.data, r.b.len, &out), 0);
		assert_int_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len, NULL, 0), 0);
		ids = amb_sample_codec_chains(dec, &nr);
		assert_non_null(ids);

		for (at = 0; at < r.b.len; rec++) {
			const uint8_t *p = r.b.data + at;
			uint16_t size = big ? (uint16_t)(p[6] << 8 | p[7]) : (uint16_t)(p[7] << 8 | p[6]);
			bool sample = p[big ? 3 : 0] == 9 && size > 56;

			assert_true(rec < nr);
			if (!sample) {
				assert_int_equal(ids[rec], UINT32_MAX);
			} else {
				unsigned c;

				/* Which chain this sample was given: the bytes
				 * after the nr word say. */
				for (c = 0; c < 24; c++) {
					struct rb one = { .big = big };

					put_fp_sample(&one, 0, 0, chains[c], lens[c]);
					if (one.b.len == size &&
					    !memcmp(one.b.data + 56, p + 56, size - 56u)) {
						amb_buf_free(&one.b);
						break;
					}
					amb_buf_free(&one.b);
				}
				assert_true(c < 24);
				assert_int_not_equal(ids[rec], UINT32_MAX);
				if (used[c])
					assert_int_equal(ids[rec], id_of[c]);
				for (unsigned o = 0; o < 24; o++)
					if (o != c && used[o])
						assert_int_not_equal(ids[rec], id_of[o]);
				used[c] = 1;
				id_of[c] = ids[rec];
				n++;
			}
			at += size;
		}
		assert_int_equal(rec, nr);
		assert_int_equal(n, 600);

		/* A failed decode forgets them. */
		assert_int_not_equal(amb_sample_decode(dec, out.data, out.len - 1, back, r.b.len,
						       NULL, 0), 0);
		assert_null(amb_sample_codec_chains(dec, &nr));
		free(back);
		amb_buf_free(&out);
		amb_buf_free(&r.b);
		amb_sample_codec_free(enc);
		amb_sample_codec_free(dec);
	}
}

static void test_record_types(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		struct rb r = { .big = big, .rng = 99 };
		struct amb_sample_layout l = layout(FP_TYPE, 0, 0, 0, big, false);
		uint64_t chain[3] = { CTX_USER, 0x401234, 0x400100 };
		struct amb_sample_stats st;
		unsigned others = 0;

		/* Every kernel record type, perf's user types, unknown ones. */
		for (uint32_t type = 1; type <= 21; type++) {
			if (type == 9)
				continue;
			put_other(&r, type, 8 * (type % 5));
			put_fp_sample(&r, 1000 * type, 100, chain, 3);
			others++;
		}
		for (uint32_t type = 64; type < 84; type++, others++)
			put_other(&r, type, 24);
		put_other(&r, 0x7fffffff, 0);
		put_other(&r, 0xffffffff, 40);
		rec_begin(&r, 3, 0);          /* a record that is only a header */
		rec_end(&r);
		others += 3;
		roundtrip(&r, &l, 3, &st);
		assert_int_equal(st.samples, 20);
		assert_int_equal(st.verbatim, others);
		amb_buf_free(&r.b);
	}
}

/* Samples the layout does not fit pass as they are. */
static void test_misfit_samples(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		struct rb r = { .big = big, .rng = 5 };
		struct amb_sample_layout l = layout(FP_TYPE, 0, 0, 0, big, false);
		uint64_t chain[2] = { CTX_KERNEL, 0xffffffff81000000ull };
		struct amb_sample_stats st;

		put_fp_sample(&r, 10, 1, chain, 2);
		rec_begin(&r, 9, 1);          /* too short */
		rb_u64(&r, 7);
		rec_end(&r);
		put_fp_sample(&r, 20, 1, chain, 2);
		rb_u64(&r, 0);                /* one word too many */
		rec_end(&r);
		rec_begin(&r, 9, 1);          /* nr beyond the record */
		rb_u64(&r, 7);
		rb_u64(&r, 1);
		rb_u64(&r, 1);
		rb_u64(&r, 1);
		rb_u64(&r, 1);
		rb_u64(&r, 1);
		rb_u64(&r, 1000);
		rec_end(&r);
		roundtrip(&r, &l, 3, &st);
		assert_int_equal(st.samples, 1);
		assert_int_equal(st.verbatim, 3);
		amb_buf_free(&r.b);
	}
}

static void test_worst_cases(void **state)
{
	static uint64_t chain[8100];

	(void)state;
	for (int big = 0; big < 2; big++) {
		struct rb r = { .big = big, .rng = 31 };
		struct amb_sample_layout l = layout(FP_TYPE, 0, 0, 0, big, false);
		struct amb_sample_stats st;
		uint64_t t = 1000000000ull;
		unsigned n = 0;

		/* All distinct chains, with random entries (the escape code). */
		for (unsigned k = 0; k < 2000; k++, n++) {
			for (unsigned i = 0; i < 6; i++)
				chain[i] = i == 0 ? CTX_USER : rnd(&r);
			put_fp_sample(&r, t += 250000, 100 + k % 50, chain, 6);
		}
		/* Time going backwards, and far, and repeating. */
		for (unsigned k = 0; k < 200; k++, n++) {
			chain[0] = CTX_KERNEL;
			chain[1] = 0xffffffff81000000ull + k;
			t = k % 3 == 0 ? t - 5000000 : k % 3 == 1 ? t + (1ull << 62) : t;
			put_fp_sample(&r, t, 7, chain, 2);
		}
		/* Huge chains: as long as a record holds, and marker only. */
		for (unsigned i = 0; i < 8100; i++)
			chain[i] = i % 100 == 0 ? CTX_KERNEL - i / 100 : 0xffffffff81000000ull + 8 * i;
		for (unsigned k = 0; k < 3; k++, n++)
			put_fp_sample(&r, t += 10, 7, chain, 8100 - k);
		for (unsigned i = 0; i < 10; i++)
			chain[i] = CTX_USER;
		put_fp_sample(&r, t, 7, chain, 10);
		put_fp_sample(&r, t, 7, chain, 0);
		put_fp_sample(&r, t, 7, chain, 1);
		n += 3;
		/* A chain that is the start of an earlier one (an inner node). */
		for (unsigned i = 0; i < 5; i++)
			chain[i] = i == 0 ? CTX_USER : 0x500000 + i;
		put_fp_sample(&r, t, 8, chain, 5);
		chain[1] = 0x500004;
		chain[2] = 0x500003;
		put_fp_sample(&r, t, 8, chain, 3);
		n += 2;
		roundtrip(&r, &l, 3, &st);
		assert_int_equal(st.samples, n);
		amb_buf_free(&r.b);
	}
}

/* Many more recent chains than the recent list holds, referred to by index. */
static void test_many_chains(void **state)
{
	struct rb r = { .big = false, .rng = 3 };
	struct amb_sample_layout l = layout(FP_TYPE, 0, 0, 0, false, false);
	uint64_t chain[3] = { CTX_USER, 0, 0x400000 };
	struct amb_sample_stats st;

	(void)state;
	for (unsigned k = 0; k < 20000; k++) {
		chain[1] = 0x401000 + 4 * ((k * 7919u) % 1500);
		put_fp_sample(&r, 1000 * k, 1, chain, 3);
	}
	roundtrip(&r, &l, 1, &st);
	assert_int_equal(st.samples, 20000);
	assert_true(st.chains_new <= 1500);
	amb_buf_free(&r.b);
}

/* ---- damaged payloads ---------------------------------------------------------------- */

/* Every truncation and every single-byte change of a payload is refused
 * or, where the change is one the checksum cannot see (none should be),
 * decodes to exactly the original. */
static void test_damage(void **state)
{
	struct amb_sample_codec *enc = amb_sample_codec_new(), *dec = amb_sample_codec_new();
	struct rb r = { .big = false, .rng = 77 };
	struct amb_sample_layout l = layout(ALL_FIELDS, RF_GROUP | RF_ID, REGS_USER, REGS_INTR,
					    false, true);
	struct amb_buf out = AMB_BUF_INIT;
	uint8_t *back;
	unsigned refused = 0;

	(void)state;
	for (unsigned k = 0; k < 40; k++)
		put_full_sample(&r, k, RF_GROUP | RF_ID, true);
	put_other(&r, 4, 16);
	back = malloc(r.b.len + 100);
	assert_int_equal(amb_sample_encode(enc, &l, 3, r.b.data, r.b.len, &out), 0);
	for (size_t n = 0; n < out.len; n++)
		assert_int_not_equal(amb_sample_decode(dec, out.data, n, back, r.b.len, NULL, 0), 0);
	for (size_t i = 0; i < out.len; i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			int err;

			out.data[i] ^= (uint8_t)(1u << bit);
			err = amb_sample_decode(dec, out.data, out.len, back, r.b.len, NULL, 0);
			out.data[i] ^= (uint8_t)(1u << bit);
			if (err)
				refused++;
			else
				assert_memory_equal(back, r.b.data, r.b.len);
		}
	}
	assert_true(refused > 0);
	/* The wrong raw_size is refused too. */
	assert_int_not_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len - 1, NULL, 0), 0);
	assert_int_not_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len + 8, NULL, 0), 0);
	free(back);
	amb_buf_free(&out);
	amb_buf_free(&r.b);
	amb_sample_codec_free(enc);
	amb_sample_codec_free(dec);
}

/* The LEB128 number at *@p, which it passes. */
static uint64_t leb128(const uint8_t **p)
{
	uint64_t v = 0;

	for (unsigned shift = 0;; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
}

/* The place of stream @k in a payload encoded at level 0, where every
 * stream is stored as it is but for all-zero ones (stored length 0): its
 * offset, and its length in *@len. */
static size_t stream_at(const struct amb_buf *out, size_t k, size_t *len)
{
	const uint8_t *p = out->data + amb_get_le16(out->data);
	uint64_t raw[AMB_SAMPLE_STREAMS], stored[AMB_SAMPLE_STREAMS];
	size_t at;

	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		raw[i] = leb128(&p);
		stored[i] = raw[i] ? leb128(&p) : 0;
	}
	at = (size_t)(p - out->data);
	for (size_t i = 0; i < k; i++)
		at += (size_t)stored[i];
	assert_int_equal(stored[k], raw[k]);
	*len = (size_t)raw[k];
	return at;
}

/*
 * A number column's second stream must end a varint exactly where its
 * first stream runs out of bytes (FORMAT.md §4.1): the decoder checks it
 * once, before it reads a value, and relies on it for every value after.
 * Two varints run into one, or a last varint left open, are refused by
 * name, before any record is written.
 */
static void test_column_counts(void **state)
{
	struct amb_sample_codec *enc = amb_sample_codec_new(), *dec = amb_sample_codec_new();
	struct rb r = { .big = false, .rng = 5 };
	struct amb_sample_layout l = layout(ALL_FIELDS, RF_GROUP | RF_ID, REGS_USER, REGS_INTR,
					    false, true);
	struct amb_buf out = AMB_BUF_INIT;
	uint8_t *back;
	char why[256];
	size_t at, len, mid;

	(void)state;
	for (unsigned k = 0; k < 30; k++)
		put_full_sample(&r, k, RF_GROUP | RF_ID, true);
	back = malloc(r.b.len);
	assert_non_null(back);
	assert_int_equal(amb_sample_encode(enc, &l, 0, r.b.data, r.b.len, &out), 0);
	assert_int_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len, NULL, 0), 0);

	/* Stream 9: the varints of column 4, time (one per sample). */
	at = stream_at(&out, 9, &len);
	assert_true(len >= 30);
	out.data[at + len - 1] |= 0x80;
	why[0] = '\0';
	assert_int_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len, why, sizeof(why)),
			 -AMB_E_DECOMPRESS);
	assert_non_null(strstr(why, "column time: 30 values in its first stream"));
	out.data[at + len - 1] &= 0x7f;

	/* A varint in the middle continued into the next one: one value short. */
	for (mid = at; mid < at + len - 1 && out.data[mid] >= 0x80; mid++)
		;
	assert_true(mid < at + len - 1);
	out.data[mid] |= 0x80;
	why[0] = '\0';
	assert_int_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len, why, sizeof(why)),
			 -AMB_E_DECOMPRESS);
	assert_non_null(strstr(why, "column time: 30 values in its first stream"));
	out.data[mid] &= 0x7f;
	assert_int_equal(amb_sample_decode(dec, out.data, out.len, back, r.b.len, NULL, 0), 0);
	assert_memory_equal(back, r.b.data, r.b.len);

	free(back);
	amb_buf_free(&out);
	amb_buf_free(&r.b);
	amb_sample_codec_free(enc);
	amb_sample_codec_free(dec);
}

/* Whole records only: the encoder refuses a torn one. */
static void test_encode_refuses(void **state)
{
	struct amb_sample_codec *enc = amb_sample_codec_new();
	struct rb r = { .big = false, .rng = 1 };
	struct amb_sample_layout l = layout(FP_TYPE, 0, 0, 0, false, false);
	uint64_t chain[2] = { CTX_USER, 0x400000 };
	struct amb_buf out = AMB_BUF_INIT;

	(void)state;
	put_fp_sample(&r, 1, 1, chain, 2);
	assert_int_equal(amb_sample_encode(enc, &l, 3, r.b.data, r.b.len - 1, &out), -EINVAL);
	assert_int_equal(amb_sample_encode(enc, &l, 3, r.b.data, 5, &out), -EINVAL);
	rec_begin(&r, 3, 0);  /* size 8, then patched to 4 */
	rec_end(&r);
	r.b.data[r.b.len - 2] = 4;
	assert_int_equal(amb_sample_encode(enc, &l, 3, r.b.data, r.b.len, &out), -EINVAL);
	amb_buf_free(&out);
	amb_buf_free(&r.b);
	amb_sample_codec_free(enc);
}

/* ---- the layout from an attr ---------------------------------------------------------- */

static void put_attr_u64(uint8_t *a, size_t off, uint64_t v, bool big)
{
	for (unsigned i = 0; i < 8; i++)
		a[off + (big ? 7 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void test_layout_from_attr(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		uint8_t attr[136] = { 0 };
		struct amb_sample_layout l;
		uint8_t endian = big ? AMB_ENDIAN_BIG : AMB_ENDIAN_LITTLE;

		put_attr_u64(attr, 24, S_IP | S_READ | S_BRANCH | S_REGS_USER | S_REGS_INTR, big);
		put_attr_u64(attr, 32, RF_GROUP | RF_ID, big);
		put_attr_u64(attr, 72, 1ull << 17, big);   /* PERF_SAMPLE_BRANCH_HW_INDEX */
		put_attr_u64(attr, 80, 0xff, big);
		put_attr_u64(attr, 96, 0x3, big);
		assert_int_equal(amb_sample_layout_from_attr(&l, attr, sizeof(attr), endian), 0);
		assert_int_equal(l.sample_type, S_IP | S_READ | S_BRANCH | S_REGS_USER | S_REGS_INTR);
		assert_int_equal(l.read_format, RF_GROUP | RF_ID);
		assert_int_equal(l.regs_user, 0xff);
		assert_int_equal(l.regs_intr, 0x3);
		assert_int_equal(l.flags, AMB_SAMPLE_BRANCH_HW_INDEX);
		assert_int_equal(l.byte_order, endian);
		/* An attr of the first ABI version has no register masks. */
		assert_int_equal(amb_sample_layout_from_attr(&l, attr, 64, endian), 0);
		assert_int_equal(l.regs_user, 0);
		assert_int_equal(l.flags, 0);
		/* Masks of fields not sampled are not kept. */
		put_attr_u64(attr, 24, S_IP, big);
		assert_int_equal(amb_sample_layout_from_attr(&l, attr, sizeof(attr), endian), 0);
		assert_int_equal(l.read_format, 0);
		assert_int_equal(l.regs_user, 0);
		/* Bits the codec does not know. */
		put_attr_u64(attr, 24, S_IP | (1ull << 40), big);
		assert_int_equal(amb_sample_layout_from_attr(&l, attr, sizeof(attr), endian), -ENOTSUP);
		put_attr_u64(attr, 24, S_READ, big);
		put_attr_u64(attr, 32, 1ull << 9, big);
		assert_int_equal(amb_sample_layout_from_attr(&l, attr, sizeof(attr), endian), -ENOTSUP);
		assert_int_equal(amb_sample_layout_from_attr(&l, attr, sizeof(attr), 3), -EINVAL);
	}
}

/* ---- the codec in files ------------------------------------------------------------------ */

static void event_block(struct amb_buf *b, uint64_t sample_type, bool big)
{
	uint8_t attr[136] = { 0 }, ids[8];
	struct amb_event_entry ev = {
		.attr = attr, .attr_size = sizeof(attr), .name = "cpu-clock", .name_len = 9,
		.leader = UINT32_MAX, .nr_ids = 1, .ids = ids,
	};

	put_attr_u64(attr, 24, sample_type, big);
	amb_put_le64(ids, 7);
	amb_buf_reset(b);
	assert_int_equal(amb_event_put(b, &ev), 0);
}

static void fp_ring(struct rb *r, unsigned n, uint64_t t0)
{
	uint64_t chain[4] = { CTX_USER, 0, 0x400500, 0x400100 };

	amb_buf_reset(&r->b);
	for (unsigned k = 0; k < n; k++) {
		chain[1] = 0x401000 + 4 * (k % 13);
		put_fp_sample(r, t0 + 250000 * k, 100 + k % 2, chain, 4);
	}
}

static int load_block(struct amb_reader *rd, size_t i, struct amb_payload *p, struct amb_buf *into)
{
	const void *data;
	size_t len;
	int err = amb_reader_load(rd, i, p, &data, &len);

	if (!err) {
		amb_buf_reset(into);
		assert_int_equal(amb_buf_append(into, data, len), 0);
	}
	return err;
}

/*
 * A sample payload whose records are of the other byte order than the
 * file's producer_endian would be read wrong once decoded: the reader
 * refuses it by name, before decoding (FORMAT.md §4.1).  The block is
 * copied with only that byte changed and its payload checksum made anew.
 */
static void test_byte_order(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "le.amber"), *bad = tpath(dir, "be.amber");
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 3, .ring_codec = AMB_CODEC_SAMPLE);
	struct amb_block_desc d = { AMB_BLOCK_RING, 0, 50, 0, 0 };
	struct amb_block_desc ed = { AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0 };
	struct amb_payload *p = amb_payload_new();
	struct rb r = { .big = false, .rng = 4 };
	struct amb_buf ev = AMB_BUF_INIT, copy = AMB_BUF_INIT;
	struct amb_writer *w;
	struct amb_reader *rd;
	const void *data;
	size_t len;

	(void)state;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	event_block(&ev, FP_TYPE, false);
	assert_int_equal(amb_writer_append(w, &ed, ev.data, ev.len), 0);
	fp_ring(&r, 50, 1000);
	assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &rd), 0);
	assert_int_equal(amb_writer_open(bad, &o, &w), 0);
	for (size_t i = 0; i < 2; i++) {
		struct amb_block_info info;

		assert_int_equal(amb_reader_load_stored(rd, i, p, &data, &len, &info), 0);
		amb_buf_reset(&copy);
		assert_int_equal(amb_buf_append(&copy, data, len), 0);
		if (info.codec == AMB_CODEC_SAMPLE) {
			assert_int_equal(copy.data[3], AMB_ENDIAN_LITTLE);
			copy.data[3] = AMB_ENDIAN_BIG;
			info.payload_checksum = amb_checksum(copy.data, copy.len);
		}
		assert_int_equal(amb_writer_append_stored(w, &info, copy.data, copy.len), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);
	amb_reader_close(rd);

	assert_int_equal(amb_reader_open(bad, 0, &rd), 0);
	assert_int_equal(amb_reader_block(rd, 1)->codec, AMB_CODEC_SAMPLE);
	assert_int_equal(amb_reader_load(rd, 1, p, &data, &len), -AMB_E_DECOMPRESS);
	assert_non_null(strstr(amb_payload_errmsg(p), "byte order 2, the file's producer_endian is 1"));
	assert_int_equal(amb_reader_load(rd, 0, p, &data, &len), 0);
	amb_reader_close(rd);

	/* The same block copied as it is but for a record_count one too
	 * many: it decodes, and verify counts its 50 records against 51. */
	{
		struct problems ps = { 0 };
		struct amb_block_info info;

		assert_int_equal(amb_reader_open(path, 0, &rd), 0);
		unlink(bad);
		assert_int_equal(amb_writer_open(bad, &o, &w), 0);
		for (size_t i = 0; i < 2; i++) {
			assert_int_equal(amb_reader_load_stored(rd, i, p, &data, &len, &info), 0);
			if (info.codec == AMB_CODEC_SAMPLE)
				info.record_count++;
			assert_int_equal(amb_writer_append_stored(w, &info, data, len), 0);
		}
		assert_int_equal(amb_writer_close(w), 0);
		amb_reader_close(rd);
		assert_int_equal(amb_verify(bad, collect_problem, &ps, NULL), 1);
		assert_non_null(strstr(ps.first, "record_count 51, but the payload holds 50 perf records"));
	}

	amb_buf_free(&ev);
	amb_buf_free(&copy);
	amb_buf_free(&r.b);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* The writer: codec 2 once it knows the layout (learnt in append order,
 * however many threads encode), zstd before and for blocks without
 * samples, raw at level 0; the reader gives back the records; the file is
 * the same whatever the number of threads. */
static void test_writer(void **state)
{
	static const uint8_t uuid[16] = { 9 };
	static const int nthreads[] = { 0, 1, 4 };
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "w.amber");

	(void)state;
	for (int big = 0; big < 2; big++) {
		uint8_t *first = NULL;
		size_t first_len = 0;

		for (size_t ti = 0; ti < AMB_ARRAY_SIZE(nthreads); ti++) {
			AMB_OPTS(amb_writer_opts, o, .zstd_level = 3, .ring_codec = AMB_CODEC_SAMPLE,
				 .threads = nthreads[ti], .uuid = uuid, .created_ns = 1,
				 .producer_endian = big ? AMB_ENDIAN_BIG : AMB_ENDIAN_LITTLE);
			struct amb_block_desc d = { AMB_BLOCK_RING, 0, 0, 0, 0 };
			struct rb r = { .big = big, .rng = 4 }, others = { .big = big, .rng = 5 };
			struct amb_payload *p = amb_payload_new();
			struct amb_buf ev = AMB_BUF_INIT, got = AMB_BUF_INIT;
			struct amb_writer *w;
			struct amb_reader *rd;
			struct amb_block_desc ed = { AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0 };

			unlink(path);
			assert_int_equal(amb_writer_open(path, &o, &w), 0);
			fp_ring(&r, 200, 1000);
			d.record_count = 200;
			assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0); /* no layout yet */
			event_block(&ev, FP_TYPE, big);
			assert_int_equal(amb_writer_append(w, &ed, ev.data, ev.len), 0);
			assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0);
			for (uint32_t t = 1; t < 8; t++)
				put_other(&others, t, 64);
			d.record_count = 7;
			assert_int_equal(amb_writer_append(w, &d, others.b.data, others.b.len), 0);
			d.record_count = 200;
			assert_int_equal(amb_writer_close(w), 0);

			assert_int_equal(amb_reader_open(path, AMB_READ_VERIFY, &rd), 0);
			assert_int_equal(amb_reader_problem_count(rd), 0);
			assert_int_equal(amb_reader_block(rd, 0)->codec, AMB_CODEC_ZSTD);
			assert_int_equal(amb_reader_block(rd, 2)->codec, AMB_CODEC_SAMPLE);
			assert_int_equal(amb_reader_block(rd, 3)->codec, AMB_CODEC_ZSTD);
			assert_int_equal(load_block(rd, 2, p, &got), 0);
			assert_int_equal(got.len, r.b.len);
			assert_memory_equal(got.data, r.b.data, r.b.len);
			/* The codec block tells its records' chains; zstd's do not. */
			{
				size_t nr;

				assert_non_null(amb_payload_chains(p, &nr));
				assert_int_equal(nr, 200);
				assert_int_equal(load_block(rd, 0, p, &got), 0);
				assert_null(amb_payload_chains(p, &nr));
				assert_int_equal(nr, 0);
			}
			/* Much smaller than zstd of the same records. */
			assert_true(amb_reader_block(rd, 2)->stored_size * 2 <
				    amb_reader_block(rd, 0)->stored_size);
			amb_reader_close(rd);
			assert_int_equal(amb_verify(path, NULL, NULL, NULL), 0);
			{
				size_t len;
				uint8_t *file = slurp(path, &len);

				assert_non_null(file);
				if (!first) {
					first = file;
					first_len = len;
				} else {
					assert_int_equal(len, first_len);
					assert_memory_equal(file, first, len);
					free(file);
				}
			}

			/* Level 0 stores everything raw. */
			unlink(path);
			o.zstd_level = 0;
			assert_int_equal(amb_writer_open(path, &o, &w), 0);
			assert_int_equal(amb_writer_append(w, &ed, ev.data, ev.len), 0);
			assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0);
			assert_int_equal(amb_writer_close(w), 0);
			assert_int_equal(amb_reader_open(path, 0, &rd), 0);
			assert_int_equal(amb_reader_block(rd, 1)->codec, AMB_CODEC_NONE);
			amb_reader_close(rd);

			amb_buf_free(&ev);
			amb_buf_free(&got);
			amb_buf_free(&r.b);
			amb_buf_free(&others.b);
			amb_payload_free(p);
		}
		free(first);
	}
	tmpdir_free(dir);
}

static void test_writer_opts(void **state)
{
	char *dir = tmpdir_new();
	struct amb_writer *w;

	(void)state;
	for (unsigned c = 0; c < 6; c++) {
		AMB_OPTS(amb_writer_opts, o, .ring_codec = c);
		const char *path = tpath(dir, "o.amber");
		int err = amb_writer_open(path, &o, &w);

		if (c <= AMB_CODEC_SAMPLE) {
			assert_int_equal(err, 0);
			assert_int_equal(amb_writer_close(w), 0);
			unlink(path);
		} else {
			assert_int_equal(err, -EINVAL);
		}
	}
	tmpdir_free(dir);
}

/* A codec 2 payload damaged inside (its block checksum made to match):
 * the reader refuses it with a message, verify counts it, salvage drops
 * it, the other blocks stay. */
static void test_damaged_block(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "d.amber"), *saved = tpath(dir, "s.amber");
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 3, .ring_codec = AMB_CODEC_SAMPLE);
	struct amb_block_desc d = { AMB_BLOCK_RING, 0, 300, 0, 0 };
	struct amb_block_desc ed = { AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0 };
	struct rb r = { .big = false, .rng = 4 };
	struct amb_buf ev = AMB_BUF_INIT, got = AMB_BUF_INIT;
	struct amb_payload *p = amb_payload_new();
	struct amb_verify_stats vs;
	const struct amb_block_info *bi;
	struct amb_reader *rd;
	struct amb_writer *w;
	size_t len;
	uint8_t *img;
	int fd;

	(void)state;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	event_block(&ev, FP_TYPE, false);
	assert_int_equal(amb_writer_append(w, &ed, ev.data, ev.len), 0);
	fp_ring(&r, 300, 1000);
	assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0);
	d.stream = 1;
	assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &rd), 0);
	bi = amb_reader_block(rd, 1);
	assert_int_equal(bi->codec, AMB_CODEC_SAMPLE);
	img = (uint8_t *)amb_read_file(path, 1u << 20, &len);
	assert_non_null(img);
	/* The time column's bytes: past the header and the directory. */
	img[bi->offset + AMB_BLOCK_HDR_SIZE + bi->stored_size - 3] ^= 0x20;
	amb_put_le64(img + bi->offset + 64,
		     amb_checksum(img + bi->offset + AMB_BLOCK_HDR_SIZE, (size_t)bi->stored_size));
	amb_put_le64(img + bi->offset + 72, amb_checksum(img + bi->offset, 72));
	amb_reader_close(rd);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, len), (ssize_t)len);
	close(fd);
	free(img);

	assert_int_equal(amb_reader_open(path, 0, &rd), 0);
	assert_true(load_block(rd, 1, p, &got) < 0);
	assert_non_null(strstr(amb_payload_errmsg(p), "block 1 at offset"));
	assert_int_equal(load_block(rd, 2, p, &got), 0);
	assert_memory_equal(got.data, r.b.data, r.b.len);
	amb_reader_close(rd);
	assert_int_equal(amb_verify(path, NULL, NULL, &vs), 1);
	assert_int_equal(vs.blocks_bad, 1);
	assert_int_equal(amb_salvage(path, saved), 2);
	assert_int_equal(amb_verify(saved, NULL, NULL, NULL), 0);

	amb_buf_free(&ev);
	amb_buf_free(&got);
	amb_buf_free(&r.b);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* The recoding copy: every block anew, RING blocks of a stream joined, the
 * records of each stream the same, in order. */
static void test_copy_recode(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "in.amber"), *out = tpath(dir, "out.amber");
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 3);
	AMB_OPTS(amb_copy_opts, co, .flags = AMB_COPY_RECODE, .ring_join = 40000);
	struct amb_block_desc ed = { AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0 };
	struct amb_buf ev = AMB_BUF_INIT, want[2] = { AMB_BUF_INIT, AMB_BUF_INIT };
	struct amb_buf got[2] = { AMB_BUF_INIT, AMB_BUF_INIT }, b = AMB_BUF_INIT;
	struct amb_payload *p = amb_payload_new();
	struct rb r = { .big = false, .rng = 8 };
	uint64_t count[2] = { 0, 0 }, t1[2] = { 0, 0 };
	struct amb_reader *rd;
	struct amb_writer *w;
	size_t rings = 0;

	(void)state;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	event_block(&ev, FP_TYPE, false);
	assert_int_equal(amb_writer_append(w, &ed, ev.data, ev.len), 0);
	for (unsigned k = 0; k < 12; k++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, k % 2, 30, 1000 + 100000000ull * k,
					    1000 + 100000000ull * k + 29 * 250000 };

		fp_ring(&r, 30, d.first_time);
		assert_int_equal(amb_writer_append(w, &d, r.b.data, r.b.len), 0);
		assert_int_equal(amb_buf_append(&want[k % 2], r.b.data, r.b.len), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &rd), 0);
	amb_writer_opts_from(&o, rd);
	o.ring_codec = AMB_CODEC_SAMPLE;
	assert_int_equal(amb_writer_open(out, &o, &w), 0);
	assert_int_equal(amb_copy_blocks(rd, w, &co), 13);
	assert_int_equal(amb_writer_close(w), 0);
	amb_reader_close(rd);

	assert_int_equal(amb_reader_open(out, AMB_READ_VERIFY, &rd), 0);
	assert_int_equal(amb_reader_problem_count(rd), 0);
	for (size_t i = 0; i < amb_reader_block_count(rd); i++) {
		const struct amb_block_info *bi = amb_reader_block(rd, i);

		if (bi->type != AMB_BLOCK_RING)
			continue;
		rings++;
		assert_true(bi->raw_size <= 40000);
		assert_int_equal(bi->codec, AMB_CODEC_SAMPLE);
		assert_int_equal(load_block(rd, i, p, &b), 0);
		assert_int_equal(amb_buf_append(&got[bi->stream], b.data, b.len), 0);
		count[bi->stream] += bi->record_count;
		assert_true(bi->first_time > t1[bi->stream]);
		t1[bi->stream] = bi->last_time;
	}
	assert_true(rings < 12);
	for (int s = 0; s < 2; s++) {
		assert_int_equal(count[s], 180);
		assert_int_equal(got[s].len, want[s].len);
		assert_memory_equal(got[s].data, want[s].data, want[s].len);
	}
	amb_reader_close(rd);
	for (int s = 0; s < 2; s++) {
		amb_buf_free(&want[s]);
		amb_buf_free(&got[s]);
	}
	amb_buf_free(&b);
	amb_buf_free(&ev);
	amb_buf_free(&r.b);
	amb_payload_free(p);
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_few_fields),
		cmocka_unit_test(test_chain_ids),
		cmocka_unit_test(test_record_types),
		cmocka_unit_test(test_misfit_samples),
		cmocka_unit_test(test_worst_cases),
		cmocka_unit_test(test_many_chains),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_column_counts),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_layout_from_attr),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_byte_order),
		cmocka_unit_test(test_writer_opts),
		cmocka_unit_test(test_damaged_block),
		cmocka_unit_test(test_copy_recode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

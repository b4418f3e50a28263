// SPDX-License-Identifier: MIT
/*
 * Unit tests for common/perf_sample.c: the layout of an event's records,
 * walking a sample with every field in both byte orders, rewriting it in
 * host order, truncation at every byte (on exact-size copies, so that
 * ASan sees any read past the record), counts that claim more than the
 * record holds, and the sample_id_all trailer.
 */
#include <byteswap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/perf_sample.h"

#define ALL_FIXED (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |          \
		   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define ALL_FIELDS (ALL_FIXED | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |               \
		    PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |   \
		    PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |   \
		    PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |                      \
		    PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |                           \
		    PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)
#define READ_FMT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED)

/* A record under construction in either byte order, remembering where
 * each part ends so that a test knows which part a cut falls in. */
struct rec {
	uint8_t b[1024];
	size_t len;
	bool swap;
	struct {
		enum amb_perf_field f;
		size_t end;
	} parts[64];
	size_t nr_parts;
};

static void put64(struct rec *r, uint64_t v)
{
	if (r->swap)
		v = bswap_64(v);
	memcpy(r->b + r->len, &v, 8);
	r->len += 8;
}

static void put32(struct rec *r, uint32_t v)
{
	if (r->swap)
		v = bswap_32(v);
	memcpy(r->b + r->len, &v, 4);
	r->len += 4;
}

static void put_bytes(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

/* The part @f ends here. */
static void part(struct rec *r, enum amb_perf_field f)
{
	r->parts[r->nr_parts].f = f;
	r->parts[r->nr_parts].end = r->len;
	r->nr_parts++;
}

static void begin(struct rec *r, bool swap)
{
	memset(r, 0, sizeof(*r));
	r->swap = swap;
	r->len = sizeof(struct perf_event_header);
}

/* Store header.size (and type SAMPLE) in the record's byte order. */
static void set_header(struct rec *r, uint32_t type, size_t size)
{
	struct perf_event_header h = { type, 0, (uint16_t)size };

	if (r->swap) {
		h.type = bswap_32(h.type);
		h.size = bswap_16(h.size);
	}
	memcpy(r->b, &h, sizeof(h));
}

static const uint8_t raw_data[12] = "tracepoint!";
static const uint8_t stack_data[16] = "0123456789abcde";
static const uint8_t aux_data[5] = "auxd";

static void attr_all(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = ALL_FIELDS;
	a->read_format = READ_FMT;
	a->sample_regs_user = 0x7;       /* 3 registers */
	a->sample_regs_intr = 0x300;     /* 2 registers */
	a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
}

/* A sample with every field of ALL_FIELDS, values derived from @k. */
static void build_all(struct rec *r, bool swap, uint64_t k)
{
	begin(r, swap);
	put64(r, 100 + k);                           part(r, AMB_PERF_F_IDENTIFIER);
	put64(r, 0xffffffff81000000ull + k);         part(r, AMB_PERF_F_IP);
	put32(r, 7);
	put32(r, 8);                                 part(r, AMB_PERF_F_TID);
	put64(r, 1000000 + k);                       part(r, AMB_PERF_F_TIME);
	put64(r, 0xdead0000 + k);                    part(r, AMB_PERF_F_ADDR);
	put64(r, 100 + k);                           part(r, AMB_PERF_F_ID);
	put64(r, 200 + k);                           part(r, AMB_PERF_F_STREAM_ID);
	put32(r, 3);
	put32(r, 0);                                 part(r, AMB_PERF_F_CPU);
	put64(r, 4000);                              part(r, AMB_PERF_F_PERIOD);
	/* GROUP|ID|TOTAL_TIME_ENABLED: nr, time_enabled, then value, id each. */
	put64(r, 2);
	put64(r, 555);
	put64(r, 11);
	put64(r, 12);
	put64(r, 21);
	put64(r, 22);                                part(r, AMB_PERF_F_READ);
	put64(r, 3);                                 part(r, AMB_PERF_F_CALLCHAIN_NR);
	put64(r, PERF_CONTEXT_KERNEL);
	put64(r, 0xffffffff81000010ull);
	put64(r, 0xffffffff81000020ull);             part(r, AMB_PERF_F_CALLCHAIN);
	put32(r, sizeof(raw_data));                  part(r, AMB_PERF_F_RAW_SIZE);
	put_bytes(r, raw_data, sizeof(raw_data));    part(r, AMB_PERF_F_RAW);
	put64(r, 2);                                 part(r, AMB_PERF_F_BRANCH_NR);
	put64(r, 9);                                 part(r, AMB_PERF_F_BRANCH_HW_IDX);
	for (uint64_t i = 0; i < 2; i++) {
		put64(r, 0x1000 + i);
		put64(r, 0x2000 + i);
		put64(r, 0x30 + i);
	}
	part(r, AMB_PERF_F_BRANCHES);
	put64(r, PERF_SAMPLE_REGS_ABI_64);
	put64(r, 0xa1);
	put64(r, 0xa2);
	put64(r, 0xa3);                              part(r, AMB_PERF_F_REGS_USER);
	put64(r, sizeof(stack_data));                part(r, AMB_PERF_F_STACK_SIZE);
	put_bytes(r, stack_data, sizeof(stack_data)); part(r, AMB_PERF_F_STACK);
	put64(r, 8);                                 part(r, AMB_PERF_F_STACK_DYN_SIZE);
	put64(r, 77);                                part(r, AMB_PERF_F_WEIGHT);
	put64(r, 0x5a);                              part(r, AMB_PERF_F_DATA_SRC);
	put64(r, 0x7a);                              part(r, AMB_PERF_F_TRANSACTION);
	put64(r, PERF_SAMPLE_REGS_ABI_64);
	put64(r, 0xb1);
	put64(r, 0xb2);                              part(r, AMB_PERF_F_REGS_INTR);
	put64(r, 0x123000);                          part(r, AMB_PERF_F_PHYS_ADDR);
	put64(r, 42);                                part(r, AMB_PERF_F_CGROUP);
	put64(r, 4096);                              part(r, AMB_PERF_F_DATA_PAGE_SIZE);
	put64(r, 2 << 20);                           part(r, AMB_PERF_F_CODE_PAGE_SIZE);
	put64(r, sizeof(aux_data));                  part(r, AMB_PERF_F_AUX_SIZE);
	put_bytes(r, aux_data, sizeof(aux_data));    part(r, AMB_PERF_F_AUX);
	set_header(r, PERF_RECORD_SAMPLE, r->len);
}

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, 8);
	return v;
}

/* What build_all(k) holds, checked on a walk's result; @b is the record in
 * host order (after amb_perf_sample_to_host, or built so). */
static void check_all(const struct amb_perf_sample *s, const uint8_t *b, uint64_t k)
{
	assert_true(s->id == 100 + k);
	assert_true(s->ip == 0xffffffff81000000ull + k);
	assert_int_equal(s->pid, 7);
	assert_int_equal(s->tid, 8);
	assert_true(s->time == 1000000 + k);
	assert_true(s->addr == 0xdead0000 + k);
	assert_true(s->stream_id == 200 + k);
	assert_int_equal(s->cpu, 3);
	assert_int_equal(s->cpu_res, 0);
	assert_true(s->period == 4000);
	assert_int_equal(s->nr_read, 6);
	assert_int_equal(s->read % 8, 0);
	assert_true(u64_at(b, s->read) == 2 && u64_at(b, s->read + 8) == 555);
	assert_true(u64_at(b, s->read + 40) == 22);
	assert_int_equal(s->nr_callchain, 3);
	assert_int_equal(s->callchain % 8, 0);
	assert_true(u64_at(b, s->callchain) == PERF_CONTEXT_KERNEL);
	assert_true(u64_at(b, s->callchain + 16) == 0xffffffff81000020ull);
	assert_int_equal(s->raw_size, sizeof(raw_data));
	assert_memory_equal(b + s->raw, raw_data, sizeof(raw_data));
	assert_int_equal(s->nr_branches, 2);
	assert_true(s->branch_hw_idx == 9);
	assert_int_equal(s->branches % 8, 0);
	assert_true(u64_at(b, s->branches + 24) == 0x1001);
	assert_true(u64_at(b, s->branches + 40) == 0x31);
	assert_true(s->user_abi == PERF_SAMPLE_REGS_ABI_64);
	assert_true(u64_at(b, s->user_regs) == 0xa1 && u64_at(b, s->user_regs + 16) == 0xa3);
	assert_int_equal(s->stack_size, sizeof(stack_data));
	assert_memory_equal(b + s->stack, stack_data, sizeof(stack_data));
	assert_int_equal(s->stack_dyn_size, 8);
	assert_true(s->weight == 77);
	assert_true(s->data_src == 0x5a);
	assert_true(s->transaction == 0x7a);
	assert_true(s->intr_abi == PERF_SAMPLE_REGS_ABI_64);
	assert_true(u64_at(b, s->intr_regs + 8) == 0xb2);
	assert_true(s->phys_addr == 0x123000);
	assert_true(s->cgroup == 42);
	assert_true(s->data_page_size == 4096);
	assert_true(s->code_page_size == 2 << 20);
	assert_int_equal(s->aux_size, sizeof(aux_data));
	assert_memory_equal(b + s->aux, aux_data, sizeof(aux_data));
	assert_true(s->claimed == 0);
}

static void test_layout(void **state)
{
	struct perf_event_attr a = { 0 };
	struct amb_perf_layout l;

	(void)state;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_regs_user = 0xff00ff;
	a.sample_regs_intr = 0x3;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	amb_perf_layout_init(&l, &a);
	assert_int_equal(l.fixed_size, 56);
	assert_int_equal(l.id_off, 8);
	assert_int_equal(l.tid_off, 24);
	assert_int_equal(l.time_off, 32);
	assert_int_equal(l.cpu_off, 40);
	assert_int_equal(l.nr_regs_user, 16);
	assert_int_equal(l.nr_regs_intr, 2);
	assert_true(l.branch_hw_index);
	/* Trailer TID, TIME, CPU, IDENTIFIER. */
	assert_int_equal(l.trailer_size, 32);
	assert_int_equal(l.trailer_time_off, 8);
	assert_int_equal(l.trailer_id_off, 24);

	/* ID alone: after IP, TID, TIME and ADDR in a sample; after TID and
	 * TIME in a trailer. */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
	a.branch_sample_type = 0;
	amb_perf_layout_init(&l, &a);
	assert_int_equal(l.id_off, 40);
	assert_int_equal(l.fixed_size, 56);
	assert_int_equal(l.trailer_size, 32);
	assert_int_equal(l.trailer_id_off, 16);
	assert_int_equal(l.cpu_off, -1);
	assert_false(l.branch_hw_index);

	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	amb_perf_layout_init(&l, &a);
	assert_int_equal(l.id_off, -1);
	assert_int_equal(l.time_off, -1);
	assert_int_equal(l.tid_off, -1);
	assert_int_equal(l.trailer_size, 0);
	assert_int_equal(l.trailer_time_off, -1);
	assert_int_equal(l.trailer_id_off, -1);
	assert_int_equal(l.fixed_size, 16);
}

/* Every field in both byte orders; the reading walk leaves the record as
 * it was, the rewriting one turns the other order into this host's. */
static void test_every_field(void **state)
{
	static struct rec native, other;
	struct perf_event_attr a;
	struct amb_perf_layout l;
	struct amb_perf_sample s;
	uint8_t copy[sizeof(other.b)];

	(void)state;
	attr_all(&a);
	amb_perf_layout_init(&l, &a);
	build_all(&native, false, 1);
	build_all(&other, true, 1);
	assert_int_equal(native.len, other.len);
	/* A part per field, but STACK_DYN, a value no cut can produce. */
	assert_int_equal(native.nr_parts, AMB_PERF_F_AUX - 1);

	assert_int_equal(amb_perf_sample_walk(&l, native.b, native.len, false, &s), AMB_PERF_F_NONE);
	check_all(&s, native.b, 1);
	assert_true(amb_perf_walked(AMB_PERF_F_NONE, AMB_PERF_F_AUX));
	memcpy(copy, native.b, native.len);
	assert_int_equal(amb_perf_sample_to_host(&l, copy, native.len, false, &s), 0);
	assert_memory_equal(copy, native.b, native.len);
	check_all(&s, copy, 1);

	/* The other order: the values read are the same; the bytes stay. */
	memcpy(copy, other.b, other.len);
	assert_int_equal(amb_perf_sample_walk(&l, other.b, other.len, true, &s), AMB_PERF_F_NONE);
	assert_true(s.ip == 0xffffffff81000001ull && s.tid == 8 && s.nr_callchain == 3);
	assert_memory_equal(copy, other.b, other.len);
	/* Rewritten, the body is byte for byte the native one. */
	assert_int_equal(amb_perf_sample_to_host(&l, copy, other.len, true, &s), AMB_PERF_F_NONE);
	assert_memory_equal(copy + 8, native.b + 8, native.len - 8);
	check_all(&s, copy, 1);
}

/* Fields a sample does not carry stay zero; REGS_ABI_NONE has no registers. */
static void test_absent_fields(void **state)
{
	static struct rec r;
	struct perf_event_attr a = { 0 };
	struct amb_perf_layout l;
	struct amb_perf_sample s;

	(void)state;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = 0xff;
	amb_perf_layout_init(&l, &a);
	for (int swap = 0; swap < 2; swap++) {
		begin(&r, swap);
		put64(&r, 0x401000);
		put64(&r, PERF_SAMPLE_REGS_ABI_NONE);  /* a kernel thread: no registers */
		put64(&r, 0);                          /* no stack copy, no dyn_size */
		set_header(&r, PERF_RECORD_SAMPLE, r.len);
		assert_int_equal(amb_perf_sample_walk(&l, r.b, r.len, swap, &s), AMB_PERF_F_NONE);
		assert_true(s.ip == 0x401000);
		assert_true(s.user_abi == 0);
		assert_int_equal(s.user_regs, 0);
		assert_int_equal(s.stack, 0);
		assert_int_equal(s.stack_size, 0);
		assert_true(s.id == 0 && s.time == 0 && s.pid == 0 && s.nr_callchain == 0);
		assert_int_equal(s.callchain, 0);
		assert_int_equal(s.raw, 0);
		assert_int_equal(s.aux, 0);
	}
	/* No sample_type bit at all: nothing to walk, whatever the size. */
	a.sample_type = 0;
	amb_perf_layout_init(&l, &a);
	assert_int_equal(amb_perf_sample_walk(&l, r.b, 8, false, &s), AMB_PERF_F_NONE);
}

/* The part the byte at @cut (the record cut to @cut bytes) falls in. */
static enum amb_perf_field part_at(const struct rec *r, size_t cut)
{
	for (size_t i = 0; i < r->nr_parts; i++)
		if (r->parts[i].end > cut)
			return r->parts[i].f;
	return AMB_PERF_F_NONE;
}

/*
 * Cut at every byte: the walk names the part the cut falls in, reports the
 * parts before it and nothing after, and never reads past the cut (each cut
 * is an exact-size heap copy: ASan would see the read).
 */
static void test_truncation(void **state)
{
	static struct rec r;
	struct perf_event_attr a;
	struct amb_perf_layout l;

	(void)state;
	attr_all(&a);
	amb_perf_layout_init(&l, &a);
	for (int swap = 0; swap < 2; swap++) {
		build_all(&r, swap, 5);
		for (size_t cut = 0; cut < r.len; cut++) {
			uint8_t *b = malloc(cut ? cut : 1);
			struct amb_perf_sample s;
			enum amb_perf_field f, want = part_at(&r, cut);

			assert_non_null(b);
			memcpy(b, r.b, cut);
			f = amb_perf_sample_walk(&l, b, cut, swap, &s);
			assert_int_equal(f, want);
			assert_int_not_equal(f, AMB_PERF_F_NONE);
			assert_true(amb_perf_walked(f, AMB_PERF_F_IP) == (want > AMB_PERF_F_IP));
			assert_false(amb_perf_walked(f, want));
			/* What came before the cut is there, what follows is not. */
			assert_true(s.ip == (want > AMB_PERF_F_IP ? 0xffffffff81000005ull : 0));
			assert_true(s.period == (want > AMB_PERF_F_PERIOD ? 4000 : 0));
			assert_true(s.nr_callchain == (want > AMB_PERF_F_CALLCHAIN ? 3 : 0));
			assert_true((s.callchain != 0) == (want > AMB_PERF_F_CALLCHAIN));
			assert_true((s.branches != 0) == (want > AMB_PERF_F_BRANCHES));
			assert_true((s.stack != 0) == (want > AMB_PERF_F_STACK));
			assert_true(s.code_page_size == (want > AMB_PERF_F_CODE_PAGE_SIZE ? 2 << 20 : 0));
			assert_int_equal(s.aux, 0);
			if (want == AMB_PERF_F_CALLCHAIN)
				assert_true(s.claimed == 3);
			if (want == AMB_PERF_F_RAW)
				assert_true(s.claimed == sizeof(raw_data));
			if (want == AMB_PERF_F_AUX)
				assert_true(s.claimed == sizeof(aux_data));
			/* Rewriting stops at the same place. */
			f = amb_perf_sample_to_host(&l, b, cut, swap, &s);
			assert_int_equal(f, want);
			free(b);
		}
	}
}

static enum amb_perf_field walk_one(uint64_t st, uint64_t read_format, struct rec *r,
				    struct amb_perf_sample *s)
{
	struct perf_event_attr a = { 0 };
	struct amb_perf_layout l;

	a.sample_type = st;
	a.read_format = read_format;
	a.sample_regs_user = UINT64_MAX;
	amb_perf_layout_init(&l, &a);
	set_header(r, PERF_RECORD_SAMPLE, r->len);
	return amb_perf_sample_walk(&l, r->b, r->len, r->swap, s);
}

/* Counts and sizes that claim more than the record holds, or that would
 * misalign what follows. */
static void test_hostile_counts(void **state)
{
	static struct rec r;
	struct amb_perf_sample s;

	(void)state;
	begin(&r, false);
	put64(&r, UINT64_MAX / 4);
	put64(&r, 1);
	assert_int_equal(walk_one(PERF_SAMPLE_CALLCHAIN, 0, &r, &s), AMB_PERF_F_CALLCHAIN);
	assert_true(s.claimed == UINT64_MAX / 4);
	assert_int_equal(s.nr_callchain, 0);

	begin(&r, true);
	put32(&r, 0xfffffff0);
	put32(&r, 0);
	assert_int_equal(walk_one(PERF_SAMPLE_RAW, 0, &r, &s), AMB_PERF_F_RAW);
	assert_true(s.claimed == 0xfffffff0);
	begin(&r, false);
	put32(&r, 3);                         /* fits, but not padded to u64 */
	put32(&r, 0);
	assert_int_equal(walk_one(PERF_SAMPLE_RAW, 0, &r, &s), AMB_PERF_F_RAW);

	begin(&r, false);
	put64(&r, 0x5555555555555556ull);     /* nr * 24 wraps around 64 bits */
	put64(&r, 0);
	assert_int_equal(walk_one(PERF_SAMPLE_BRANCH_STACK, 0, &r, &s), AMB_PERF_F_BRANCHES);
	assert_true(s.claimed == 0x5555555555555556ull);

	begin(&r, false);
	put64(&r, UINT64_MAX - 3);
	assert_int_equal(walk_one(PERF_SAMPLE_STACK_USER, 0, &r, &s), AMB_PERF_F_STACK);
	begin(&r, false);
	put64(&r, 12);                        /* not a multiple of 8 */
	put64(&r, 0);
	put64(&r, 0);
	assert_int_equal(walk_one(PERF_SAMPLE_STACK_USER, 0, &r, &s), AMB_PERF_F_STACK);
	begin(&r, false);
	put64(&r, 8);
	put64(&r, 0);
	put64(&r, 9);                         /* dyn_size > size */
	assert_int_equal(walk_one(PERF_SAMPLE_STACK_USER, 0, &r, &s), AMB_PERF_F_STACK_DYN);
	assert_true(s.stack_size == 8 && s.stack_dyn_size == 9 && s.claimed == 9);

	begin(&r, false);
	put64(&r, UINT64_MAX / 2);            /* group nr */
	put64(&r, 1);
	assert_int_equal(walk_one(PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID, &r, &s),
			 AMB_PERF_F_READ);
	begin(&r, false);
	put64(&r, 1);                         /* one value, but ID and LOST wanted */
	assert_int_equal(walk_one(PERF_SAMPLE_READ, PERF_FORMAT_ID | PERF_FORMAT_LOST, &r, &s),
			 AMB_PERF_F_READ);

	begin(&r, false);
	put64(&r, PERF_SAMPLE_REGS_ABI_64);   /* 64 registers asked for, one there */
	put64(&r, 1);
	assert_int_equal(walk_one(PERF_SAMPLE_REGS_USER, 0, &r, &s), AMB_PERF_F_REGS_USER);
	assert_true(s.claimed == 64);

	begin(&r, false);
	put64(&r, 9);
	put_bytes(&r, "12345678", 8);
	assert_int_equal(walk_one(PERF_SAMPLE_AUX, 0, &r, &s), AMB_PERF_F_AUX);
	assert_true(s.claimed == 9);
}

static void test_read_words(void **state)
{
	uint64_t b[8] = { 2 };

	(void)state;
	assert_int_equal(amb_perf_read_words(0, b, 8, false), 1);
	assert_int_equal(amb_perf_read_words(0, b, 7, false), 0);
	assert_int_equal(amb_perf_read_words(PERF_FORMAT_ID | PERF_FORMAT_LOST |
					     PERF_FORMAT_TOTAL_TIME_ENABLED |
					     PERF_FORMAT_TOTAL_TIME_RUNNING, b, 64, false), 5);
	/* GROUP: nr 2, one time, then value and id each: 1 + 1 + 4. */
	assert_int_equal(amb_perf_read_words(PERF_FORMAT_GROUP | PERF_FORMAT_ID |
					     PERF_FORMAT_TOTAL_TIME_RUNNING, b, 64, false), 6);
	assert_int_equal(amb_perf_read_words(PERF_FORMAT_GROUP | PERF_FORMAT_ID |
					     PERF_FORMAT_TOTAL_TIME_RUNNING, b, 40, false), 0);
	assert_int_equal(amb_perf_read_words(PERF_FORMAT_GROUP, b, 0, false), 0);
	b[0] = bswap_64(2);
	assert_int_equal(amb_perf_read_words(PERF_FORMAT_GROUP, b, 64, true), 3);
}

static void test_sample_id(void **state)
{
	static struct rec r, native;
	struct perf_event_attr a = { 0 };
	struct amb_perf_sample_id id = { 0 }, got;
	struct amb_perf_layout l;
	uint8_t trailer[48];

	(void)state;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	amb_perf_layout_init(&l, &a);
	assert_int_equal(l.trailer_size, 48);
	id.pid = 10;
	id.tid = 11;
	id.time = 12345;
	id.id = 77;
	id.stream_id = 78;
	id.cpu = 2;
	id.off = 999;                        /* ignored by the writer */
	assert_int_equal(amb_perf_sample_id_write(&l, &id, trailer), 48);

	for (int swap = 0; swap < 2; swap++) {
		/* A LOST record: id, lost, then the trailer. */
		begin(&r, swap);
		put64(&r, 5);
		put64(&r, 6);
		put32(&r, 10);
		put32(&r, 11);
		put64(&r, 12345);
		put64(&r, 77);
		put64(&r, 78);
		put32(&r, 2);
		put32(&r, 0);
		put64(&r, 77);
		set_header(&r, PERF_RECORD_LOST, r.len);
		if (!swap) {
			native = r;
			assert_memory_equal(r.b + 24, trailer, 48);
		}
		assert_int_equal(amb_perf_sample_id_walk(&l, r.b, r.len, swap, &got), 0);
		assert_int_equal(got.off, 24);
		assert_int_equal(got.pid, 10);
		assert_int_equal(got.tid, 11);
		assert_true(got.time == 12345 && got.id == 77 && got.stream_id == 78);
		assert_int_equal(got.cpu, 2);
		assert_int_equal(amb_perf_sample_id_to_host(&l, r.b, r.len, swap, &got), 0);
		assert_memory_equal(r.b + 24, native.b + 24, 48);
		/* The id is where the layout says, from the trailer's start. */
		assert_true(u64_at(r.b, got.off + (size_t)l.trailer_id_off) == 77);
		assert_true(u64_at(r.b, got.off + (size_t)l.trailer_time_off) == 12345);
		/* Shorter than the trailer: nothing read. */
		for (size_t cut = 0; cut < 8 + 48; cut++) {
			uint8_t *b = malloc(cut ? cut : 1);

			assert_non_null(b);
			memcpy(b, r.b, cut);
			assert_int_equal(amb_perf_sample_id_walk(&l, b, cut, swap, &got),
					 AMB_PERF_F_SAMPLE_ID);
			assert_int_equal(got.off, 0);
			free(b);
		}
	}
}

static void test_field_names(void **state)
{
	(void)state;
	for (int f = 0; f < AMB_PERF_F_MAX; f++) {
		assert_non_null(amb_perf_field_name((enum amb_perf_field)f));
		assert_string_not_equal(amb_perf_field_name((enum amb_perf_field)f), "?");
	}
	assert_string_equal(amb_perf_field_name(AMB_PERF_F_CALLCHAIN_NR), "callchain nr");
	assert_string_equal(amb_perf_field_name(AMB_PERF_F_STACK_SIZE), "user stack size");
	assert_string_equal(amb_perf_field_name(AMB_PERF_F_MAX), "?");
	assert_string_equal(amb_perf_field_name((enum amb_perf_field)-1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_absent_fields),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_hostile_counts),
		cmocka_unit_test(test_read_words),
		cmocka_unit_test(test_sample_id),
		cmocka_unit_test(test_field_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/perf_record.c: every record type, every sample_type
 * bit, records of the other byte order, truncated and hostile records, and
 * perf_event_attr conversion.
 */
#include <byteswap.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/replay/replay.h"
#include "analyze/replay/perf_record.h"
#include <amber/common.h>
#include "tests/unit/analyze/synth.h"

/* Every sample_type bit the parser decodes. */
static const uint64_t all_bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
	PERF_SAMPLE_PERIOD, PERF_SAMPLE_READ, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
	PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER,
	PERF_SAMPLE_WEIGHT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION,
	PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_CGROUP,
	PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_AUX,
};

static const uint8_t raw_bytes[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
static const uint8_t stack_bytes[16] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
					  0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf };
static const uint64_t chain[4] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
				   PERF_CONTEXT_USER, 0x401234 };

static struct ana_event ev_a, ev_b;

static const struct ana_event *lookup(void *ctx, uint64_t id)
{
	(void)ctx;
	if (id == 100 || id == 101)
		return &ev_a;
	if (id == 200)
		return &ev_b;
	return NULL;
}

static void set_attr(struct ana_event *e, uint64_t st, uint64_t read_format)
{
	memset(&e->attr, 0, sizeof(e->attr));
	e->attr.size = sizeof(e->attr);
	e->attr.sample_type = st;
	e->attr.read_format = read_format;
	e->attr.sample_id_all = 1;
	e->attr.sample_period = 4000;
	e->attr.sample_regs_user = 0x7;      /* 3 registers */
	e->attr.sample_regs_intr = 0x30;     /* 2 registers */
	e->attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
}

/* Write a sample holding every field @st asks for, with known values. */
static size_t build_sample(struct syn_rec *s, const struct perf_event_attr *a, uint64_t id)
{
	uint64_t st = a->sample_type;

	syn_begin(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	if (st & PERF_SAMPLE_IDENTIFIER)
		syn_u64(s, id);
	if (st & PERF_SAMPLE_IP)
		syn_u64(s, 0xffffffff81000010ull);
	if (st & PERF_SAMPLE_TID) {
		syn_u32(s, 1234);
		syn_u32(s, 1235);
	}
	if (st & PERF_SAMPLE_TIME)
		syn_u64(s, 987654321012ull);
	if (st & PERF_SAMPLE_ADDR)
		syn_u64(s, 0x7fff0000);
	if (st & PERF_SAMPLE_ID)
		syn_u64(s, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		syn_u64(s, 77);
	if (st & PERF_SAMPLE_CPU) {
		syn_u32(s, 3);
		syn_u32(s, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		syn_u64(s, 250000);
	if (st & PERF_SAMPLE_READ) {
		/* GROUP | ID with two members, TOTAL_TIME_ENABLED. */
		syn_u64(s, 2);
		syn_u64(s, 5000);
		syn_u64(s, 11);
		syn_u64(s, 100);
		syn_u64(s, 22);
		syn_u64(s, 101);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		syn_u64(s, 4);
		for (int i = 0; i < 4; i++)
			syn_u64(s, chain[i]);
	}
	if (st & PERF_SAMPLE_RAW) {
		syn_u32(s, sizeof(raw_bytes));
		syn_raw(s, raw_bytes, sizeof(raw_bytes));
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		syn_u64(s, 2);
		syn_u64(s, 1);               /* hw_idx */
		for (uint64_t i = 0; i < 6; i++)
			syn_u64(s, 0x1000 + i);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		syn_u64(s, PERF_SAMPLE_REGS_ABI_64);
		syn_u64(s, 0x10);
		syn_u64(s, 0x20);
		syn_u64(s, 0x30);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		syn_u64(s, sizeof(stack_bytes));
		syn_raw(s, stack_bytes, sizeof(stack_bytes));
		syn_u64(s, 8);
	}
	if (st & PERF_SAMPLE_WEIGHT)
		syn_u64(s, 42);
	if (st & PERF_SAMPLE_DATA_SRC)
		syn_u64(s, 0x5080021);
	if (st & PERF_SAMPLE_TRANSACTION)
		syn_u64(s, 9);
	if (st & PERF_SAMPLE_REGS_INTR) {
		syn_u64(s, PERF_SAMPLE_REGS_ABI_64);
		syn_u64(s, 0xaa);
		syn_u64(s, 0xbb);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		syn_u64(s, 0x12345000);
	if (st & PERF_SAMPLE_CGROUP)
		syn_u64(s, 555);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		syn_u64(s, 4096);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		syn_u64(s, 2 << 20);
	if (st & PERF_SAMPLE_AUX) {
		syn_u64(s, 8);
		syn_raw(s, "auxdata!", 8);
	}
	return syn_end(s);
}

static void check_sample(const struct ana_record *rec, uint64_t st, uint64_t id)
{
	const struct ana_sample *s = &rec->u.sample;

	assert_int_equal(rec->type, PERF_RECORD_SAMPLE);
	assert_int_equal(s->cpumode, PERF_RECORD_MISC_KERNEL);
	if (st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)) {
		assert_true(s->id == id);
		assert_ptr_equal(rec->evt, &ev_a);
	}
	if (st & PERF_SAMPLE_IP)
		assert_true(s->ip == 0xffffffff81000010ull);
	if (st & PERF_SAMPLE_TID) {
		assert_int_equal(s->pid, 1234);
		assert_int_equal(rec->tid, 1235);
	} else {
		assert_int_equal(rec->pid, UINT32_MAX);
	}
	if (st & PERF_SAMPLE_TIME)
		assert_true(rec->time == 987654321012ull);
	if (st & PERF_SAMPLE_ADDR)
		assert_true(s->addr == 0x7fff0000);
	if (st & PERF_SAMPLE_STREAM_ID)
		assert_int_equal(s->stream_id, 77);
	if (st & PERF_SAMPLE_CPU)
		assert_int_equal(rec->cpu, 3);
	if (st & PERF_SAMPLE_PERIOD)
		assert_int_equal(s->period, 250000);
	else	/* perf record -c: the attr's period */
		assert_int_equal(s->period, 4000);
	if (st & PERF_SAMPLE_READ) {
		assert_int_equal(s->nr_read, 6);
		assert_int_equal(s->read[0], 2);
		assert_int_equal(s->read[5], 101);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		assert_int_equal(s->nr_callchain, 4);
		assert_memory_equal(s->callchain, chain, sizeof(chain));
	}
	if (st & PERF_SAMPLE_RAW) {
		assert_int_equal(s->raw_size, sizeof(raw_bytes));
		assert_memory_equal(s->raw, raw_bytes, sizeof(raw_bytes));
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		assert_int_equal(s->nr_branches, 2);
		assert_int_equal(s->branch_hw_idx, 1);
		assert_int_equal(s->branches[0].from, 0x1000);
		assert_int_equal(s->branches[1].flags, 0x1005);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		assert_int_equal(s->user_abi, PERF_SAMPLE_REGS_ABI_64);
		assert_int_equal(s->user_regs_mask, 0x7);
		assert_int_equal(s->user_regs[0], 0x10);
		assert_int_equal(s->user_regs[2], 0x30);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		assert_int_equal(s->user_stack_size, sizeof(stack_bytes));
		assert_memory_equal(s->user_stack, stack_bytes, sizeof(stack_bytes));
		assert_int_equal(s->user_stack_dyn_size, 8);
	}
	if (st & PERF_SAMPLE_WEIGHT)
		assert_int_equal(s->weight, 42);
	if (st & PERF_SAMPLE_DATA_SRC)
		assert_int_equal(s->data_src, 0x5080021);
	if (st & PERF_SAMPLE_TRANSACTION)
		assert_int_equal(s->transaction, 9);
	if (st & PERF_SAMPLE_REGS_INTR) {
		assert_int_equal(s->intr_abi, PERF_SAMPLE_REGS_ABI_64);
		assert_int_equal(s->intr_regs[1], 0xbb);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		assert_int_equal(s->phys_addr, 0x12345000);
	if (st & PERF_SAMPLE_CGROUP)
		assert_int_equal(s->cgroup, 555);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		assert_int_equal(s->data_page_size, 4096);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		assert_int_equal(s->code_page_size, 2 << 20);
	if (st & PERF_SAMPLE_AUX) {
		assert_int_equal(s->aux_size, 8);
		assert_memory_equal(s->aux, "auxdata!", 8);
	}
}

/* Parse @n bytes placed at the very end of a heap block, so that ASan sees
 * any read past them. */
static int parse_exact(struct ana_parser *p, const void *data, size_t n, struct ana_record *rec)
{
	uint8_t *copy = malloc(n ? n : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, data, n);
	ret = ana_parse_record(p, copy, n, rec);
	free(copy);
	return ret;
}

static void run_sample(uint64_t st, bool swap)
{
	static struct syn_rec s;
	struct ana_parser *p;
	struct ana_record rec;
	size_t n;

	set_attr(&ev_a, st, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED);
	p = ana_parser_new(swap, lookup, NULL, &ev_a);
	assert_non_null(p);
	s.swap = swap;
	n = build_sample(&s, &ev_a.attr, 100);
	assert_int_equal(parse_exact(p, s.b, n, &rec), (int)n);
	check_sample(&rec, st, 100);
	ana_parser_free(p);
}

static void test_sample_each_bit(void **state)
{
	(void)state;
	for (int swap = 0; swap < 2; swap++) {
		uint64_t every = 0;

		for (size_t i = 0; i < AMB_ARRAY_SIZE(all_bits); i++) {
			run_sample(all_bits[i], swap);
			run_sample(all_bits[i] | PERF_SAMPLE_IDENTIFIER, swap);
			every |= all_bits[i];
		}
		run_sample(every, swap);
		run_sample(every & ~(uint64_t)PERF_SAMPLE_IDENTIFIER, swap);
	}
}

static void test_sample_combinations(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	/* A fixed pseudo-random walk through subsets of the supported bits. */
	for (int i = 0; i < 3000; i++) {
		uint64_t st = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (size_t b = 0; b < AMB_ARRAY_SIZE(all_bits); b++)
			if (x >> b & 1)
				st |= all_bits[b];
		run_sample(st, i & 1);
	}
}

/* Both byte orders decode to identical records. */
static void test_swapped_identical(void **state)
{
	static struct syn_rec s1, s2;
	struct ana_parser *p1, *p2;
	struct ana_record r1, r2;
	uint64_t st = 0;

	(void)state;
	for (size_t b = 0; b < AMB_ARRAY_SIZE(all_bits); b++)
		st |= all_bits[b];
	set_attr(&ev_a, st, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED);
	p1 = ana_parser_new(false, lookup, NULL, &ev_a);
	p2 = ana_parser_new(true, lookup, NULL, &ev_a);
	s1.swap = false;
	s2.swap = true;
	build_sample(&s1, &ev_a.attr, 101);
	build_sample(&s2, &ev_a.attr, 101);
	assert_int_equal(memcmp(s1.b, s2.b, s1.len) != 0, 1);
	assert_int_equal(ana_parse_record(p1, s1.b, s1.len, &r1), (int)s1.len);
	assert_int_equal(ana_parse_record(p2, s2.b, s2.len, &r2), (int)s2.len);
	/* The decoded copies are byte-identical; so are the field values. */
	assert_memory_equal(r1.bytes, r2.bytes, s1.len);
	assert_true(r1.u.sample.ip == r2.u.sample.ip);
	assert_true(r1.time == r2.time);
	assert_int_equal(r1.u.sample.raw_size, r2.u.sample.raw_size);
	ana_parser_free(p1);
	ana_parser_free(p2);
}

#define TRAILER (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static void parse_one(struct ana_parser *p, struct syn_rec *s, size_t n, struct ana_record *rec)
{
	assert_int_equal(parse_exact(p, s->b, n, rec), (int)n);
}

static void check_trailer(const struct ana_record *rec, uint32_t pid, uint32_t tid, uint64_t t)
{
	assert_int_equal(rec->pid, pid);
	assert_int_equal(rec->tid, tid);
	assert_true(rec->time == t);
	assert_int_equal(rec->cpu, 2);
	assert_int_equal(rec->id, 100);
	assert_ptr_equal(rec->evt, &ev_a);
}

static void test_other_records(void **state)
{
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static struct syn_rec s;
	struct ana_record rec;

	(void)state;
	for (int swap = 0; swap < 2; swap++) {
		struct ana_parser *p;
		size_t n;

		set_attr(&ev_a, TRAILER | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 0);
		p = ana_parser_new(swap, lookup, NULL, &ev_a);
		s.swap = swap;

		n = syn_comm(&s, TRAILER, 10, 11, "worker", true, 5000, 100, 2);
		parse_one(p, &s, n, &rec);
		assert_int_equal(rec.type, PERF_RECORD_COMM);
		assert_string_equal(rec.u.comm.comm, "worker");
		assert_true(rec.u.comm.exec);
		check_trailer(&rec, 10, 11, 5000);

		n = syn_fork(&s, PERF_RECORD_FORK, TRAILER, 20, 10, 21, 11, 6000, 100, 2);
		parse_one(p, &s, n, &rec);
		assert_int_equal(rec.u.fork.ppid, 10);
		assert_int_equal(rec.u.fork.ptid, 11);
		assert_true(rec.u.fork.time == 6000);
		check_trailer(&rec, 20, 21, 6000);

		n = syn_fork(&s, PERF_RECORD_EXIT, TRAILER, 20, 10, 21, 11, 7000, 100, 2);
		parse_one(p, &s, n, &rec);
		assert_int_equal(rec.type, PERF_RECORD_EXIT);
		assert_string_equal(ana_record_type_name(rec.type), "EXIT");

		n = syn_mmap2(&s, TRAILER, 30, 31, 0x400000, 0x2000, 0x1000, bid, 20,
			      "/usr/bin/true", 8000, 100, 2);
		parse_one(p, &s, n, &rec);
		assert_int_equal(rec.u.mmap.build_id_size, 20);
		assert_memory_equal(rec.u.mmap.build_id, bid, 20);
		assert_true(rec.u.mmap.addr == 0x400000 && rec.u.mmap.len == 0x2000 &&
			    rec.u.mmap.pgoff == 0x1000);
		assert_int_equal(rec.u.mmap.prot, 5);
		assert_int_equal(rec.u.mmap.flags, 2);
		assert_string_equal(rec.u.mmap.filename, "/usr/bin/true");
		check_trailer(&rec, 30, 31, 8000);

		n = syn_mmap2(&s, TRAILER, 30, 31, 0x400000, 0x2000, 0, NULL, 0,
			      "/lib/libc.so.6", 8001, 100, 2);
		parse_one(p, &s, n, &rec);
		assert_int_equal(rec.u.mmap.build_id_size, 0);
		assert_int_equal(rec.u.mmap.maj, 8);
		assert_int_equal(rec.u.mmap.min, 1);
		assert_int_equal(rec.u.mmap.ino, 123456);
		assert_int_equal(rec.u.mmap.ino_generation, 7);
		assert_string_equal(rec.u.mmap.filename, "/lib/libc.so.6");

		syn_begin(&s, PERF_RECORD_MMAP, 0);
		syn_u32(&s, 40);
		syn_u32(&s, 41);
		syn_u64(&s, 0x1000);
		syn_u64(&s, 0x3000);
		syn_u64(&s, 0);
		syn_str(&s, "//anon");
		syn_sample_id(&s, TRAILER, 40, 41, 9000, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_string_equal(rec.u.mmap.filename, "//anon");
		assert_true(rec.u.mmap.len == 0x3000);
		check_trailer(&rec, 40, 41, 9000);

		syn_begin(&s, PERF_RECORD_LOST, 0);
		syn_u64(&s, 100);
		syn_u64(&s, 17);
		syn_sample_id(&s, TRAILER, 1, 1, 9100, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_int_equal(rec.u.lost.id, 100);
		assert_int_equal(rec.u.lost.lost, 17);

		syn_begin(&s, PERF_RECORD_LOST_SAMPLES, 0);
		syn_u64(&s, 33);
		syn_sample_id(&s, TRAILER, 1, 1, 9200, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_int_equal(rec.u.lost_samples.lost, 33);
		assert_true(rec.time == 9200);

		for (uint32_t t = PERF_RECORD_THROTTLE; t <= PERF_RECORD_UNTHROTTLE; t++) {
			syn_begin(&s, t, 0);
			syn_u64(&s, 9300);
			syn_u64(&s, 100);
			syn_u64(&s, 100);
			syn_sample_id(&s, TRAILER, 1, 1, 9300, 100, 2);
			parse_one(p, &s, syn_end(&s), &rec);
			assert_int_equal(rec.type, t);
			assert_true(rec.u.throttle.time == 9300 && rec.u.throttle.id == 100);
		}

		syn_begin(&s, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
		syn_u32(&s, 50);
		syn_u32(&s, 51);
		syn_sample_id(&s, TRAILER, 1, 2, 9400, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_int_equal(rec.u.switch_cpu.next_prev_pid, 50);
		assert_int_equal(rec.u.switch_cpu.next_prev_tid, 51);
		assert_int_equal(rec.misc, PERF_RECORD_MISC_SWITCH_OUT);
		check_trailer(&rec, 1, 2, 9400);

		syn_begin(&s, PERF_RECORD_SWITCH, 0);
		syn_sample_id(&s, TRAILER, 3, 4, 9500, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		check_trailer(&rec, 3, 4, 9500);

		syn_begin(&s, PERF_RECORD_KSYMBOL, 0);
		syn_u64(&s, 0xffffffffc0001000ull);
		syn_u32(&s, 256);
		syn_u16(&s, PERF_RECORD_KSYMBOL_TYPE_BPF);
		syn_u16(&s, 0);
		syn_str(&s, "bpf_prog_1234");
		syn_sample_id(&s, TRAILER, 0, 0, 9600, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_true(rec.u.ksymbol.addr == 0xffffffffc0001000ull);
		assert_int_equal(rec.u.ksymbol.len, 256);
		assert_int_equal(rec.u.ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
		assert_string_equal(rec.u.ksymbol.name, "bpf_prog_1234");

		syn_begin(&s, PERF_RECORD_CGROUP, 0);
		syn_u64(&s, 99);
		syn_str(&s, "/system.slice");
		syn_sample_id(&s, TRAILER, 0, 0, 9700, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_int_equal(rec.u.cgroup.id, 99);
		assert_string_equal(rec.u.cgroup.path, "/system.slice");

		syn_begin(&s, PERF_RECORD_AUX, 0);
		syn_u64(&s, 4096);
		syn_u64(&s, 512);
		syn_u64(&s, PERF_AUX_FLAG_TRUNCATED);
		syn_sample_id(&s, TRAILER, 0, 0, 9800, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_true(rec.u.aux.offset == 4096 && rec.u.aux.size == 512);
		assert_int_equal(rec.u.aux.flags, PERF_AUX_FLAG_TRUNCATED);

		syn_begin(&s, PERF_RECORD_ITRACE_START, 0);
		syn_u32(&s, 60);
		syn_u32(&s, 61);
		syn_sample_id(&s, TRAILER, 60, 61, 9900, 100, 2);
		parse_one(p, &s, syn_end(&s), &rec);
		assert_int_equal(rec.u.task.tid, 61);

		ana_parser_free(p);
	}
}

/* Two events share the identifier layout but differ in the rest; ids that
 * match no event decode with the first event's layout and evt == NULL. */
static void test_event_lookup(void **state)
{
	static struct syn_rec s;
	struct ana_parser *p;
	struct ana_record rec;
	size_t n;

	(void)state;
	set_attr(&ev_a, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID, 0);
	set_attr(&ev_b, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_RAW, 0);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	s.swap = false;
	n = build_sample(&s, &ev_b.attr, 200);
	assert_int_equal(ana_parse_record(p, s.b, n, &rec), (int)n);
	assert_ptr_equal(rec.evt, &ev_b);
	assert_ptr_equal(rec.u.sample.evt, &ev_b);
	assert_int_equal(rec.u.sample.raw_size, sizeof(raw_bytes));
	assert_int_equal(rec.pid, 1234);

	n = build_sample(&s, &ev_a.attr, 999);
	assert_int_equal(ana_parse_record(p, s.b, n, &rec), (int)n);
	assert_null(rec.evt);
	assert_true(rec.u.sample.ip == 0xffffffff81000010ull);
	ana_parser_free(p);

	/* PERF_SAMPLE_ID without IDENTIFIER: found after IP, TID and TIME. */
	set_attr(&ev_a, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID, 0);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	n = build_sample(&s, &ev_a.attr, 101);
	assert_int_equal(ana_parse_record(p, s.b, n, &rec), (int)n);
	assert_ptr_equal(rec.evt, &ev_a);
	n = syn_comm(&s, ev_a.attr.sample_type, 1, 1, "x", false, 5, 101, 0);
	assert_int_equal(ana_parse_record(p, s.b, n, &rec), (int)n);
	assert_ptr_equal(rec.evt, &ev_a);
	assert_int_equal(rec.id, 101);
	assert_false(rec.u.comm.exec);
	ana_parser_free(p);

	/* No event at all: records still parse; samples carry no fields. */
	p = ana_parser_new(false, NULL, NULL, NULL);
	n = syn_comm(&s, 0, 7, 8, "solo", false, 0, 0, 0);
	assert_int_equal(ana_parse_record(p, s.b, n, &rec), (int)n);
	assert_string_equal(rec.u.comm.comm, "solo");
	assert_int_equal(rec.pid, 7);
	assert_int_equal(rec.cpu, UINT32_MAX);
	ana_parser_free(p);
}

/* @got (a borrowing parser's) decodes the same as @want (a copying one's). */
static void check_same_record(const struct ana_record *got, const struct ana_record *want)
{
	const struct ana_sample *g = &got->u.sample, *w = &want->u.sample;

	assert_int_equal(got->type, want->type);
	assert_int_equal(got->misc, want->misc);
	assert_int_equal(got->size, want->size);
	assert_int_equal(got->stream, want->stream);
	assert_int_equal(got->synthesized, want->synthesized);
	assert_true(got->time == want->time);
	assert_int_equal(got->pid, want->pid);
	assert_int_equal(got->tid, want->tid);
	assert_int_equal(got->cpu, want->cpu);
	assert_true(got->id == want->id);
	assert_ptr_equal(got->evt, want->evt);
	assert_memory_equal(got->bytes, want->bytes, want->size);
	if (want->type == PERF_RECORD_COMM) {
		assert_string_equal(got->u.comm.comm, want->u.comm.comm);
		return;
	}
	assert_ptr_equal(g->evt, w->evt);
	assert_true(g->id == w->id && g->ip == w->ip && g->time == w->time);
	assert_true(g->addr == w->addr && g->period == w->period);
	assert_true(g->pid == w->pid && g->tid == w->tid && g->cpu == w->cpu);
	assert_true(g->nr_callchain == w->nr_callchain);
	assert_int_equal(!g->callchain, !w->callchain);
	if (w->callchain)
		assert_memory_equal(g->callchain, w->callchain, w->nr_callchain * 8);
	assert_int_equal(g->raw_size, w->raw_size);
	assert_int_equal(!g->raw, !w->raw);
	if (w->raw)
		assert_memory_equal(g->raw, w->raw, w->raw_size);
	assert_true(g->user_abi == w->user_abi && g->user_regs_mask == w->user_regs_mask);
	assert_int_equal(!g->user_regs, !w->user_regs);
	assert_true(g->user_stack_size == w->user_stack_size);
	assert_true(g->user_stack_dyn_size == w->user_stack_dyn_size);
	assert_int_equal(!g->user_stack, !w->user_stack);
	assert_true(g->weight == w->weight && g->data_src == w->data_src);
	assert_true(g->nr_branches == w->nr_branches && g->branch_hw_idx == w->branch_hw_idx);
	assert_int_equal(!g->branches, !w->branches);
	assert_int_equal(g->cpumode, w->cpumode);
	assert_true(g->stream_id == w->stream_id && g->transaction == w->transaction);
	assert_true(g->phys_addr == w->phys_addr && g->cgroup == w->cgroup);
	assert_true(g->data_page_size == w->data_page_size);
	assert_true(g->code_page_size == w->code_page_size);
	assert_true(g->nr_read == w->nr_read);
	assert_int_equal(!g->read, !w->read);
	assert_true(g->intr_abi == w->intr_abi && g->intr_regs_mask == w->intr_regs_mask);
	assert_int_equal(!g->intr_regs, !w->intr_regs);
	assert_true(g->aux_size == w->aux_size);
	assert_int_equal(!g->aux, !w->aux);
}

/*
 * A borrowing parser, fed one record buffer after another into the same
 * struct, decodes each as a copying one does into a fresh struct: samples
 * of the common layouts (read in place, only their own fields written)
 * between other records, samples of a full layout, and one that fails.
 */
static void test_borrow(void **state)
{
	static struct syn_rec s;
	const uint64_t common = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				PERF_SAMPLE_CALLCHAIN;
	uint64_t full = 0, *buf;
	struct ana_parser *pb, *pc;
	struct ana_record got, want;
	size_t n;
	int ret;

	(void)state;
	for (size_t b = 0; b < AMB_ARRAY_SIZE(all_bits); b++)
		full |= all_bits[b];
	set_attr(&ev_a, common, 0);
	set_attr(&ev_b, full, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED);
	pb = ana_parser_new(false, lookup, NULL, &ev_a);
	pc = ana_parser_new(false, lookup, NULL, &ev_a);
	assert_non_null(pb);
	assert_non_null(pc);
	ana_parser_set_borrow(pb, true);
	buf = malloc(sizeof(s.b));
	assert_non_null(buf);
	memset(&got, 0xa5, sizeof(got));
	s.swap = false;
	for (int i = 0; i < 12; i++) {
		switch (i % 6) {
		case 0:
		case 2:
			n = build_sample(&s, &ev_a.attr, 100);
			/* Another ip and callchain length each time. */
			memcpy(s.b + 16, &i, sizeof(i));
			if (i % 6 == 2) {
				uint64_t nr = 2;

				memcpy(s.b + 56, &nr, 8);
			}
			break;
		case 1:
			n = syn_comm(&s, common, 1, 2, "name", true, 5, 100, 1);
			break;
		case 3:
			n = build_sample(&s, &ev_b.attr, 200);
			break;
		case 4: {
			uint64_t nr = 1000;

			n = build_sample(&s, &ev_a.attr, 100);
			memcpy(s.b + 56, &nr, 8);
			break;
		}
		default:
			n = build_sample(&s, &ev_a.attr, 101);
			/* No callchain at all: the record ends at its nr. */
			n -= 4 * 8;
			memset(s.b + 56, 0, 8);
			amb_put_le16(s.b + 6, (uint16_t)n);
			break;
		}
		memcpy(buf, s.b, n);
		memset(&want, 0, sizeof(want));
		ret = ana_parse_record(pc, (const uint8_t *)buf, n, &want);
		assert_int_equal(ana_parse_record(pb, (const uint8_t *)buf, n, &got), ret);
		if (ret < 0)
			continue;
		assert_int_equal(ret, (int)n);
		check_same_record(&got, &want);
		/* Samples of this host's order are read where they are. */
		assert_ptr_equal(got.bytes, (const uint8_t *)buf);
	}
	free(buf);
	ana_parser_free(pb);
	ana_parser_free(pc);
}

/* Every prefix of a record is TRUNCATED; every smaller header.size of a
 * sample with every field is CORRUPT; smaller sizes of other records give an
 * error or a consistent decode, never a read outside the record. */
static void test_truncated(void **state)
{
	static struct syn_rec s;
	struct ana_record rec;
	uint64_t st = 0;

	(void)state;
	for (size_t b = 0; b < AMB_ARRAY_SIZE(all_bits); b++)
		st |= all_bits[b];
	for (int swap = 0; swap < 2; swap++) {
		struct ana_parser *p;
		size_t n;

		set_attr(&ev_a, st, PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			 PERF_FORMAT_TOTAL_TIME_ENABLED);
		p = ana_parser_new(swap, lookup, NULL, &ev_a);
		s.swap = swap;
		n = build_sample(&s, &ev_a.attr, 100);
		for (size_t len = 0; len < n; len++)
			assert_int_equal(parse_exact(p, s.b, len, &rec), -AMB_E_TRUNCATED);
		for (size_t size = 0; size < n; size++) {
			uint16_t v = (uint16_t)(swap ? bswap_16((uint16_t)size) : size);
			int ret;

			memcpy(s.b + 6, &v, 2);
			ret = parse_exact(p, s.b, AMB_MAX(size, 8), &rec);
			assert_int_equal(ret, -AMB_E_CORRUPT);
			assert_true(ana_parser_errmsg(p)[0] != '\0');
		}

		n = syn_mmap2(&s, TRAILER, 30, 31, 0x400000, 0x2000, 0, NULL, 0,
			      "/a/rather/long/path/name/of/a/library.so", 8001, 100, 2);
		for (size_t size = 0; size < n; size++) {
			uint16_t v = (uint16_t)(swap ? bswap_16((uint16_t)size) : size);
			int ret;

			memcpy(s.b + 6, &v, 2);
			ret = parse_exact(p, s.b, AMB_MAX(size, 8), &rec);
			assert_true(ret == (int)size || ret == -AMB_E_CORRUPT);
			if (ret > 0)
				assert_true(strlen(rec.u.mmap.filename) <
					    size - (size_t)(rec.u.mmap.filename -
							    (const char *)rec.bytes));
		}
		ana_parser_free(p);
	}
}

static void expect_corrupt(struct ana_parser *p, struct syn_rec *s, const char *what)
{
	struct ana_record rec;
	size_t n = syn_end(s);

	assert_int_equal(parse_exact(p, s->b, n, &rec), -AMB_E_CORRUPT);
	assert_non_null(strstr(ana_parser_errmsg(p), what));
}

/* Counts that claim more than the record holds. */
static void test_hostile_counts(void **state)
{
	static struct syn_rec s;
	struct ana_parser *p;
	struct ana_record rec;

	(void)state;
	s.swap = false;
	set_attr(&ev_a, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 0);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u64(&s, 1);
	syn_u64(&s, UINT64_MAX / 4);
	syn_u64(&s, 2);
	expect_corrupt(p, &s, "callchain nr");
	ana_parser_free(p);

	set_attr(&ev_a, PERF_SAMPLE_RAW, 0);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u32(&s, 0xfffffff0);
	syn_u32(&s, 0);
	expect_corrupt(p, &s, "raw size");
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u32(&s, 3);                      /* raw data not padded to u64 */
	syn_u32(&s, 0);
	expect_corrupt(p, &s, "raw size");
	ana_parser_free(p);

	set_attr(&ev_a, PERF_SAMPLE_BRANCH_STACK, 0);
	ev_a.attr.branch_sample_type = 0;
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u64(&s, 0x5555555555555556ull);  /* nr * 24 wraps around 64 bits */
	syn_u64(&s, 0);
	expect_corrupt(p, &s, "branch nr");
	ana_parser_free(p);

	set_attr(&ev_a, PERF_SAMPLE_STACK_USER, 0);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u64(&s, UINT64_MAX - 3);
	expect_corrupt(p, &s, "user stack size");
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u64(&s, 8);
	syn_u64(&s, 0);
	syn_u64(&s, 9);                      /* dyn_size > size */
	expect_corrupt(p, &s, "dyn_size");
	ana_parser_free(p);

	set_attr(&ev_a, PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u64(&s, UINT64_MAX / 2);
	syn_u64(&s, 1);
	expect_corrupt(p, &s, "read values");
	ana_parser_free(p);

	set_attr(&ev_a, PERF_SAMPLE_REGS_USER, 0);
	ev_a.attr.sample_regs_user = UINT64_MAX;
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_u64(&s, PERF_SAMPLE_REGS_ABI_64);
	syn_u64(&s, 1);
	expect_corrupt(p, &s, "user regs");
	ana_parser_free(p);

	set_attr(&ev_a, TRAILER, 0);
	p = ana_parser_new(false, lookup, NULL, &ev_a);
	syn_begin(&s, PERF_RECORD_COMM, 0);
	syn_u32(&s, 1);
	syn_u32(&s, 1);
	syn_raw(&s, "abcdefgh", 8);          /* no NUL before the trailer */
	syn_sample_id(&s, TRAILER, 1, 1, 1, 100, 0);
	expect_corrupt(p, &s, "comm");
	syn_begin(&s, PERF_RECORD_LOST, 0);
	syn_u64(&s, 1);                      /* shorter than its trailer */
	expect_corrupt(p, &s, "trailer");
	syn_begin(&s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	syn_u32(&s, 1);
	syn_u32(&s, 1);
	syn_u64(&s, 0);
	syn_u64(&s, 0);
	syn_u64(&s, 0);
	syn_raw(&s, "\x40\0\0\0", 4);        /* build_id_size 64 > 20 */
	syn_raw(&s, "01234567890123456789", 20);
	syn_u32(&s, 0);
	syn_u32(&s, 0);
	syn_str(&s, "f");
	syn_sample_id(&s, TRAILER, 1, 1, 1, 100, 0);
	expect_corrupt(p, &s, "build-id size");
	syn_begin(&s, PERF_RECORD_SAMPLE, 0);
	syn_end(&s);
	s.b[s.swap ? 7 : 6] = 4;             /* header.size 4 < 8 */
	assert_int_equal(parse_exact(p, s.b, 8, &rec), -AMB_E_CORRUPT);
	assert_non_null(strstr(ana_parser_errmsg(p), "less than its header"));
	ana_parser_free(p);
}

/* Write @v of @width bytes at @off of @b in the other byte order. */
static void put_swapped(uint8_t *b, size_t off, unsigned width, uint64_t v)
{
	if (width == 8) {
		uint64_t x = bswap_64(v);
		memcpy(b + off, &x, 8);
	} else if (width == 4) {
		uint32_t x = bswap_32((uint32_t)v);
		memcpy(b + off, &x, 4);
	} else {
		uint16_t x = bswap_16((uint16_t)v);
		memcpy(b + off, &x, 2);
	}
}

static void test_attr_to_host(void **state)
{
	struct perf_event_attr a, out;
	uint8_t img[sizeof(a)];

	(void)state;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 4000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	a.read_format = PERF_FORMAT_ID;
	a.wakeup_events = 16;
	a.bp_type = 3;
	a.config1 = 0x1111;
	a.config2 = 0x2222;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	a.sample_regs_user = 0xff0fff;
	a.sample_stack_user = 8192;
	a.clockid = 1;
	a.sample_regs_intr = 0x3;
	a.aux_watermark = 4096;
	a.sample_max_stack = 127;
	a.aux_sample_size = 64;
	a.sig_data = 0xabcdef;

	/* Same order: a copy. */
	memcpy(img, &a, sizeof(a));
	ana_attr_to_host(&out, img, sizeof(img), false);
	assert_memory_equal(&out, &a, sizeof(a));

	/*
	 * Other order: the image a big-endian producer writes on a little-endian
	 * host (and vice versa), built from the ABI rather than from the code
	 * under test: every field byte-reversed; the flags (disabled = bit 0,
	 * sample_id_all = bit 18) allocated from the most significant bit of
	 * each byte.
	 */
	memset(img, 0, sizeof(img));
	put_swapped(img, 0, 4, a.type);
	put_swapped(img, 4, 4, a.size);
	put_swapped(img, 8, 8, a.config);
	put_swapped(img, 16, 8, a.sample_period);
	put_swapped(img, 24, 8, a.sample_type);
	put_swapped(img, 32, 8, a.read_format);
	img[40] = 0x80;                      /* disabled */
	img[42] = 0x20;                      /* sample_id_all, bit 18 */
	put_swapped(img, 48, 4, a.wakeup_events);
	put_swapped(img, 52, 4, a.bp_type);
	put_swapped(img, 56, 8, a.config1);
	put_swapped(img, 64, 8, a.config2);
	put_swapped(img, 72, 8, a.branch_sample_type);
	put_swapped(img, 80, 8, a.sample_regs_user);
	put_swapped(img, 88, 4, a.sample_stack_user);
	put_swapped(img, 92, 4, (uint32_t)a.clockid);
	put_swapped(img, 96, 8, a.sample_regs_intr);
	put_swapped(img, 104, 4, a.aux_watermark);
	put_swapped(img, 108, 2, a.sample_max_stack);
	put_swapped(img, 112, 4, a.aux_sample_size);
	put_swapped(img, 120, 8, a.sig_data);
	ana_attr_to_host(&out, img, sizeof(img), true);
	if (amb_host_is_le()) {
		a.disabled = 1;
		a.sample_id_all = 1;
		assert_memory_equal(&out, &a, sizeof(a));
	} else {
		assert_true(out.sample_type == a.sample_type);
	}

	/* A VER0 attr: later fields are zero, the stored size is kept. */
	ana_attr_to_host(&out, img, PERF_ATTR_SIZE_VER0, true);
	assert_true(out.sample_type == a.sample_type);
	assert_int_equal(out.size, sizeof(a));
	assert_int_equal(out.branch_sample_type, 0);
	assert_int_equal(out.sig_data, 0);
	assert_int_equal(out.bp_type, 3);
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(ana_record_type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	assert_string_equal(ana_record_type_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(ana_record_type_name(PERF_RECORD_SWITCH_CPU_WIDE), "SWITCH_CPU_WIDE");
	assert_string_equal(ana_record_type_name(0), "UNKNOWN");
	assert_string_equal(ana_record_type_name(12345), "UNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_each_bit),
		cmocka_unit_test(test_sample_combinations),
		cmocka_unit_test(test_swapped_identical),
		cmocka_unit_test(test_other_records),
		cmocka_unit_test(test_event_lookup),
		cmocka_unit_test(test_borrow),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_hostile_counts),
		cmocka_unit_test(test_attr_to_host),
		cmocka_unit_test(test_type_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/resolve/datasrc.c: perf_mem_data_src values as
 * the kernel encodes them, decoded field by field and described as perf
 * describes them.  The values are built with the kernel's own macros
 * (PERF_MEM_S() of <linux/perf_event.h>, the encodings of
 * arch/x86/events/intel/ds.c pebs_data_source[] and precise store data,
 * AMD IBS's remote levels with hops, POWER's remote core): a decoder that
 * misplaces a field cannot pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/resolve/datasrc.h"

#define P(a, b) PERF_MEM_S(a, b)
#define OP_LH (P(OP, LOAD) | P(LVL, HIT))
/* The kernel's LEVEL(x) and REM of arch/x86/events/intel/ds.c. */
#define LEVEL(n) ((uint64_t)(n) << PERF_MEM_LVLNUM_SHIFT)
#define REM P(REMOTE, REMOTE)
#define HOPS(n) ((uint64_t)(n) << PERF_MEM_HOPS_SHIFT)
/* The level numbers newer than this build's headers may know. */
#define LN_L1 0x01
#define LN_L3 0x03
#define LN_L2_MHB 0x05
#define LN_CXL 0x09
#define LN_RAM 0x0d
#define LN_PMEM 0x0e
#define LN_NA 0x0f

struct expect {
	uint64_t v;
	const char *op, *level, *snoop, *tlb, *lock, *blk;
};

static void check(const struct expect *e)
{
	struct ana_datasrc d;
	char buf[128];

	ana_datasrc_decode(e->v, &d);
	assert_string_equal(ana_datasrc_op(&d, buf, sizeof(buf)), e->op);
	assert_string_equal(ana_datasrc_level(&d, buf, sizeof(buf)), e->level);
	assert_string_equal(ana_datasrc_snoop(&d, buf, sizeof(buf)), e->snoop);
	assert_string_equal(ana_datasrc_tlb(&d, buf, sizeof(buf)), e->tlb);
	assert_string_equal(ana_datasrc_lock(&d, buf, sizeof(buf)), e->lock);
	assert_string_equal(ana_datasrc_blk(&d, buf, sizeof(buf)), e->blk);
}

/* Every field at its own bits: decode puts each back where it came from. */
static void test_fields(void **state)
{
	uint64_t v = P(OP, EXEC) | P(LVL, UNC) | P(SNOOP, HITM) | P(LOCK, LOCKED) | P(TLB, OS) |
		     LEVEL(LN_PMEM) | REM | P(SNOOPX, PEER) | P(BLK, ADDR) | HOPS(4);
	struct ana_datasrc d;

	(void)state;
	ana_datasrc_decode(v, &d);
	assert_int_equal(d.op, PERF_MEM_OP_EXEC);
	assert_int_equal(d.lvl, PERF_MEM_LVL_UNC);
	assert_int_equal(d.snoop, PERF_MEM_SNOOP_HITM);
	assert_int_equal(d.lock, PERF_MEM_LOCK_LOCKED);
	assert_int_equal(d.dtlb, PERF_MEM_TLB_OS);
	assert_int_equal(d.lvl_num, LN_PMEM);
	assert_int_equal(d.remote, 1);
	assert_int_equal(d.snoopx, PERF_MEM_SNOOPX_PEER);
	assert_int_equal(d.blk, PERF_MEM_BLK_ADDR);
	assert_int_equal(d.hops, 4);
	/* Reserved bits above hops change nothing. */
	ana_datasrc_decode(v | 0xffffc00000000000ull, &d);
	assert_int_equal(d.hops, 4);
	assert_int_equal(d.op, PERF_MEM_OP_EXEC);
	/* All ones: each field holds just its own width. */
	ana_datasrc_decode(UINT64_MAX, &d);
	assert_int_equal(d.op, 0x1f);
	assert_int_equal(d.lvl, 0x3fff);
	assert_int_equal(d.snoop, 0x1f);
	assert_int_equal(d.lock, 0x3);
	assert_int_equal(d.dtlb, 0x7f);
	assert_int_equal(d.lvl_num, 0xf);
	assert_int_equal(d.remote, 1);
	assert_int_equal(d.snoopx, 0x3);
	assert_int_equal(d.blk, 0x7);
	assert_int_equal(d.hops, 0x7);
}

/* Intel PEBS load latency (pebs_data_source[], load_latency_data()). */
static void test_intel_loads(void **state)
{
	const uint64_t tlb_hit = P(TLB, HIT) | P(TLB, L1) | P(TLB, L2);
	const uint64_t tlb_miss = P(TLB, MISS) | P(TLB, L2);
	const struct expect cases[] = {
		/* 0x00: unknown L3 */
		{ P(OP, LOAD) | P(LVL, MISS) | LEVEL(LN_L3) | P(SNOOP, NA) | tlb_hit,
		  "LOAD", "L3 miss", "N/A", "L1 or L2 hit", "No", "N/A" },
		/* 0x01: L1 local */
		{ OP_LH | P(LVL, L1) | LEVEL(LN_L1) | P(SNOOP, NONE) | tlb_hit,
		  "LOAD", "L1 hit", "None", "L1 or L2 hit", "No", "N/A" },
		/* 0x07: L3 hit, snoop hitm and forward */
		{ OP_LH | P(LVL, L3) | LEVEL(LN_L3) | P(SNOOP, HITM) | P(SNOOPX, FWD) | tlb_miss,
		  "LOAD", "L3 hit", "HitM or Fwd", "L2 miss", "No", "N/A" },
		/* 0x08: L3 miss, snoop hit in a remote cache */
		{ OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(LN_L3) | P(SNOOP, HIT) | tlb_hit,
		  "LOAD", "Remote L3 hit", "Hit", "L1 or L2 hit", "No", "N/A" },
		/* 0x0b: remote DRAM, shared */
		{ OP_LH | P(LVL, REM_RAM1) | REM | LEVEL(LN_RAM) | P(SNOOP, HIT) | tlb_hit |
		  P(LOCK, LOCKED),
		  "LOAD", "Remote RAM hit", "Hit", "L1 or L2 hit", "Yes", "N/A" },
		/* 0x0c: local DRAM, exclusive */
		{ OP_LH | P(LVL, LOC_RAM) | LEVEL(LN_RAM) | P(SNOOP, NONE) | P(SNOOP, MISS),
		  "LOAD", "RAM hit", "None or Miss", "N/A", "No", "N/A" },
		/* Kernels before lvl_num: the level from the bit mask alone. */
		{ OP_LH | P(LVL, REM_RAM1) | P(SNOOP, HIT),
		  "LOAD", "Remote RAM (1 hop) hit", "Hit", "N/A", "No", "N/A" },
		{ OP_LH | P(LVL, LOC_RAM) | P(SNOOP, HIT),
		  "LOAD", "Local RAM hit", "Hit", "N/A", "No", "N/A" },
		{ P(OP, LOAD) | P(LVL, MISS) | P(LVL, L2) | P(LVL, L3),
		  "LOAD", "L2 or L3 miss", "N/A", "N/A", "No", "N/A" },
		/* Lion Cove's L2 miss handling buffer; the data could not be
		 * forwarded, and the address conflicted. */
		{ OP_LH | LEVEL(LN_L2_MHB) | P(SNOOP, NONE) | P(BLK, DATA) | P(BLK, ADDR),
		  "LOAD", "L2 MHB hit", "None", "N/A", "No", "Data Addr" },
		{ OP_LH | P(LVL, LFB) | LEVEL(0x0c) | P(SNOOP, NONE) | P(BLK, DATA),
		  "LOAD", "LFB/MAB hit", "None", "N/A", "No", "Data" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i]);
}

/* Intel precise stores (precise_store_data()): the L1 hit bit, the TLB. */
static void test_intel_stores(void **state)
{
	const struct expect cases[] = {
		{ P(OP, STORE) | P(SNOOP, NA) | P(LVL, HIT) | P(LVL, L1) | P(TLB, HIT) | P(TLB, L1) |
		  P(TLB, L2), "STORE", "L1 hit", "N/A", "L1 or L2 hit", "No", "N/A" },
		{ P(OP, STORE) | P(SNOOP, NA) | P(LVL, MISS) | P(LVL, L1) | P(TLB, MISS) | P(TLB, L1) |
		  P(TLB, L2) | P(LOCK, LOCKED), "STORE", "L1 miss", "N/A", "L1 or L2 miss", "Yes", "N/A" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i]);
}

/* Remote with hops (AMD IBS, POWER), and levels of newer kernels. */
static void test_remote_hops(void **state)
{
	const struct expect cases[] = {
		/* AMD IBS: DRAM of another node of the socket, of another socket */
		{ OP_LH | P(LVL, REM_RAM1) | REM | LEVEL(LN_RAM) | HOPS(PERF_MEM_HOPS_1),
		  "LOAD", "Remote node, same socket RAM hit", "N/A", "N/A", "No", "N/A" },
		{ OP_LH | P(LVL, REM_RAM2) | REM | LEVEL(LN_RAM) | HOPS(PERF_MEM_HOPS_2),
		  "LOAD", "Remote socket, same board RAM hit", "N/A", "N/A", "No", "N/A" },
		{ OP_LH | REM | LEVEL(LN_RAM) | HOPS(PERF_MEM_HOPS_3),
		  "LOAD", "Remote board RAM hit", "N/A", "N/A", "No", "N/A" },
		/* POWER10: another core's L2, same node */
		{ OP_LH | REM | LEVEL(0x02) | HOPS(PERF_MEM_HOPS_0) | P(SNOOPX, PEER),
		  "LOAD", "Remote core, same node L2 hit", "Peer", "N/A", "No", "N/A" },
		/* A level that is neither hit nor miss, and remote without hops */
		{ P(OP, LOAD) | REM | LEVEL(LN_CXL),
		  "LOAD", "Remote CXL", "N/A", "N/A", "No", "N/A" },
		{ P(OP, PFETCH) | LEVEL(LN_PMEM) | P(LVL, MISS),
		  "PFETCH", "PMEM miss", "N/A", "N/A", "No", "N/A" },
		/* No name: level 6, hops 6 */
		{ P(OP, LOAD) | LEVEL(6) | HOPS(6), "LOAD", "6 hops Unknown level 6", "N/A", "N/A",
		  "No", "N/A" },
		/* lvl_num N/A: the bits decide */
		{ OP_LH | P(LVL, L2) | LEVEL(LN_NA), "LOAD", "L2 hit", "N/A", "N/A", "No", "N/A" },
		/* TLB: the walker and the OS */
		{ P(OP, EXEC) | P(TLB, MISS) | P(TLB, WK), "EXEC", "N/A", "N/A", "Walker miss", "No",
		  "N/A" },
		{ P(OP, LOAD) | P(TLB, OS) | P(TLB, WK), "LOAD", "N/A", "N/A", "Walker or Fault", "No",
		  "N/A" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i]);
}

/* What PMUs without a data source record: PERF_MEM_NA, with the lvl_num
 * N/A the kernel adds (perf_prepare_sample()), and zero. */
static void test_not_available(void **state)
{
	const uint64_t na = P(OP, NA) | P(LVL, NA) | P(SNOOP, NA) | P(LOCK, NA) | P(TLB, NA);
	const struct expect cases[] = {
		{ na, "N/A", "N/A", "N/A", "N/A", "N/A", "N/A" },
		{ na | LEVEL(LN_NA), "N/A", "N/A", "N/A", "N/A", "N/A", "N/A" },
		{ 0, "No", "N/A", "N/A", "N/A", "No", "N/A" },
	};
	char buf[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i]);
	assert_int_equal(na | LEVEL(LN_NA), 0x1e05080021ull);
	assert_false(ana_datasrc_known(0));
	assert_false(ana_datasrc_known(na));
	assert_false(ana_datasrc_known(na | LEVEL(LN_NA)));
	assert_true(ana_datasrc_known(OP_LH | P(LVL, L1)));
	assert_true(ana_datasrc_known(na | REM));
	/* perf script's text, BLK with its two spaces */
	assert_string_equal(ana_datasrc_describe(0x1e05080021ull, buf, sizeof(buf)),
			    "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A");
	assert_string_equal(ana_datasrc_describe(OP_LH | P(LVL, L1) | LEVEL(LN_L1) |
						 P(SNOOP, NONE) | P(TLB, HIT) | P(TLB, L1) |
						 P(TLB, L2), buf, sizeof(buf)),
			    "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	/* Truncation keeps the buffer terminated. */
	assert_string_equal(ana_datasrc_describe(0x1e05080021ull, buf, 8), "|OP N/A");
}

/* WEIGHT is the value; WEIGHT_STRUCT's latency is its low 32 bits. */
static void test_weight(void **state)
{
	struct ana_event evt;
	struct ana_sample s;
	uint64_t w;
	uint32_t ins;

	(void)state;
	memset(&evt, 0, sizeof(evt));
	memset(&s, 0, sizeof(s));
	s.evt = &evt;
	s.weight = 0x0005000700000123ull;
	assert_false(ana_sample_weight(&s, &w, &ins));
	assert_int_equal(w, 0);
	evt.attr.sample_type = PERF_SAMPLE_WEIGHT;
	assert_true(ana_sample_weight(&s, &w, &ins));
	assert_int_equal(w, 0x0005000700000123ull);
	assert_int_equal(ins, 0);
	evt.attr.sample_type = PERF_SAMPLE_WEIGHT_STRUCT;
	assert_true(ana_sample_weight(&s, &w, &ins));
	assert_int_equal(w, 0x123);
	assert_int_equal(ins, 7);
	assert_true(ana_sample_weight(&s, &w, NULL));
	s.evt = NULL;
	assert_false(ana_sample_weight(&s, &w, NULL));
}

/* perf's page size names (get_page_size_name()). */
static void test_page_size(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(ana_page_size_name(0, buf, sizeof(buf)), "N/A");
	assert_string_equal(ana_page_size_name(4096, buf, sizeof(buf)), "4K");
	assert_string_equal(ana_page_size_name(2u << 20, buf, sizeof(buf)), "2M");
	/* perf divides while the quotient is above one: 1 GiB is "1024M". */
	assert_string_equal(ana_page_size_name(1u << 30, buf, sizeof(buf)), "1024M");
	assert_string_equal(ana_page_size_name(16ull << 30, buf, sizeof(buf)), "16G");
	assert_string_equal(ana_page_size_name(1024, buf, sizeof(buf)), "1024B");
	assert_string_equal(ana_page_size_name(2048, buf, sizeof(buf)), "2K");
	assert_string_equal(ana_page_size_name(65536, buf, sizeof(buf)), "64K");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_intel_loads),
		cmocka_unit_test(test_intel_stores),
		cmocka_unit_test(test_remote_hops),
		cmocka_unit_test(test_not_available),
		cmocka_unit_test(test_weight),
		cmocka_unit_test(test_page_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

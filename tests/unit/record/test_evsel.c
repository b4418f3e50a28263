// SPDX-License-Identifier: MIT
/* Unit tests for record/evsel.c: the perf_event_attr settings every event
 * shares, and rec_evlist_open()'s refusal of shapes it cannot hold (no
 * kernel involved: these fail before any perf_event_open). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "record/evsel.h"

static void test_attr_apply(void **state)
{
	struct rec_sampling s = { .freq = 999, .callgraph = REC_CG_DWARF, .stack_size = 8192,
				  .inherit = true, .wakeup_bytes = 4096 };
	struct rec_event ev;
	struct perf_event_attr a;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, true);
	a = ev.attr;
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.sample_type, rec_sample_type(&s));
	assert_true(a.sample_type & PERF_SAMPLE_IDENTIFIER);
	assert_true(a.sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(a.freq, 1);
	assert_int_equal(a.sample_freq, 999);
	assert_int_equal(a.sample_stack_user, 8192);
	assert_int_equal(a.exclude_callchain_user, 1);
	assert_true(a.sample_regs_user != 0);
	assert_int_equal(a.sample_id_all, 1);
	assert_int_equal(a.use_clockid, 1);
	assert_int_equal(a.clockid, CLOCK_MONOTONIC);
	assert_int_equal(a.inherit, 1);
	assert_int_equal(a.watermark, 1);
	assert_int_equal(a.wakeup_watermark, 4096);
	assert_int_equal(a.mmap2, 1);
	assert_int_equal(a.comm, 1);
	assert_int_equal(a.task, 1);
	assert_int_equal(a.context_switch, 0);

	/* --switch-events: context-switch records, on the first event only. */
	s.switch_events = true;
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, true);
	assert_int_equal(ev.attr.context_switch, 1);
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, false);
	assert_int_equal(ev.attr.context_switch, 0);
	s.switch_events = false;

	/* Tracepoints sample every hit; only the first event tracks tasks. */
	memset(&ev, 0, sizeof(ev));
	ev.tracepoint = true;
	s.period = 10000;
	rec_attr_apply(&ev, &s, false);
	assert_int_equal(ev.attr.freq, 0);
	assert_int_equal(ev.attr.sample_period, 1);
	assert_int_equal(ev.attr.mmap2, 0);
	assert_int_equal(ev.attr.comm, 0);
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, false);
	assert_int_equal(ev.attr.freq, 0);
	assert_int_equal(ev.attr.sample_period, 10000);

	/* An event's own period= or freq= (PMU terms) wins over -c and -F. */
	memset(&ev, 0, sizeof(ev));
	ev.freq = 99;
	rec_attr_apply(&ev, &s, false);
	assert_int_equal(ev.attr.freq, 1);
	assert_int_equal(ev.attr.sample_freq, 99);
	memset(&ev, 0, sizeof(ev));
	ev.period = 12345;
	s.period = 0;
	rec_attr_apply(&ev, &s, false);
	assert_int_equal(ev.attr.freq, 0);
	assert_int_equal(ev.attr.sample_period, 12345);
}

/* fds/ids are sized events x CPUs x threads: a product that overflows
 * size_t must be refused, not turned into a small allocation. */
static void test_open_too_many(void **state)
{
	struct rec_event_list events = { .n = SIZE_MAX / 4 + 2 };
	int cpus[4] = { 0, 1, 2, 3 };
	struct rec_target t = { .kind = REC_TARGET_SYSTEM, .cpus = cpus, .nr_cpus = 4 };
	struct rec_sampling s = { .freq = 1000 };
	struct rec_evlist el;
	char err[256] = "";

	(void)state;
	assert_int_equal(rec_evlist_open(&el, &events, &s, &t, 8, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "too many"));
	rec_evlist_close(&el);
}

static void test_open_nothing(void **state)
{
	struct rec_event_list events = { 0 };
	int cpus[1] = { 0 };
	struct rec_target t = { .kind = REC_TARGET_SYSTEM, .cpus = cpus, .nr_cpus = 1 };
	struct rec_sampling s = { .freq = 1000 };
	struct rec_evlist el;
	char err[256] = "";

	(void)state;
	assert_int_equal(rec_evlist_open(&el, &events, &s, &t, 8, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nothing to open"));
	rec_evlist_close(&el);
}

/* -d, --phys-data, --data-page-size and -W as perf record sets them
 * (tools/perf/util/evsel.c evsel__config()): -d is ADDR and DATA_SRC
 * with mmap_data on the tracking event, -W is WEIGHT_STRUCT on x86 and
 * WEIGHT elsewhere. */
static void test_memory_bits(void **state)
{
	struct rec_sampling s = { .freq = 4000 };
	struct rec_event ev;
	uint64_t st;

	(void)state;
	st = rec_sample_type(&s);
	assert_false(st & (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
			   PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_WEIGHT |
			   PERF_SAMPLE_WEIGHT_STRUCT));
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, true);
	assert_int_equal(ev.attr.mmap_data, 0);

	s.data = true;
	st = rec_sample_type(&s);
	assert_true((st & (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC)) ==
		    (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC));
	assert_false(st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PHYS_ADDR));
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, true);
	assert_int_equal(ev.attr.mmap_data, 1);
	memset(&ev, 0, sizeof(ev));
	rec_attr_apply(&ev, &s, false);
	assert_int_equal(ev.attr.mmap_data, 0);

	s.phys_data = s.data_page_size = s.weight = true;
	st = rec_sample_type(&s);
	assert_true(st & PERF_SAMPLE_PHYS_ADDR);
	assert_true(st & PERF_SAMPLE_DATA_PAGE_SIZE);
	assert_true(st & PERF_SAMPLE_WEIGHT);
	assert_false(st & PERF_SAMPLE_WEIGHT_STRUCT);
	s.weight_struct = true;
	st = rec_sample_type(&s);
	assert_true(st & PERF_SAMPLE_WEIGHT_STRUCT);
	assert_false(st & PERF_SAMPLE_WEIGHT);
#if defined(__x86_64__)
	/* Linux 5.12 and later take it; this test machine runs a newer one. */
	assert_true(rec_weight_struct());
#else
	assert_false(rec_weight_struct());
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attr_apply),
		cmocka_unit_test(test_memory_bits),
		cmocka_unit_test(test_open_too_many),
		cmocka_unit_test(test_open_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* Unit tests for common/perf_stat.c and perf_stat_print.c, from synthetic group
 * reads: scaling by time_enabled/time_running, <not counted>,
 * <not supported>, the unreliable-estimate mark and the warning naming the
 * group to shrink, the derived figures (also of the hardware events this
 * test machine may lack), -r means and deviations, per-CPU/node/thread
 * lines, and the text, CSV and JSON shapes. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amber/common.h>
#include "common/perf_stat.h"

#define HW(x) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##x
#define SW(x) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##x
#define MS 1000000ull

static char warned[4096];

static void catch_warn(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(warned + strlen(warned), sizeof(warned) - strlen(warned), "%s\n", msg);
}

/* The table printed as @po says, into a malloc'ed string. */
static char *print(struct amb_stat *st, const struct amb_stat_print_opts *po)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	assert_int_equal(amb_stat_print(st, f, po), 0);
	fclose(f);
	return s;
}

static const struct amb_stat_line *line_of(const struct amb_stat_line *v, size_t n, uint32_t e,
					   int64_t unit)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].event == e && v[i].unit == unit)
			return &v[i];
	fail_msg("no line for event %u unit %lld", e, (long long)unit);
	return NULL;
}

static void test_scale(void **state)
{
	struct amb_stat_count c = { 1000, 10 * MS, 10 * MS };

	(void)state;
	assert_int_equal(amb_stat_scale(&c), 1000);
	assert_int_equal(amb_stat_state_of(&c, 1), AMB_STAT_EXACT);
	c.run = 4 * MS;     /* ran 40%: 1000 / 0.4 */
	assert_int_equal(amb_stat_scale(&c), 2500);
	assert_int_equal(amb_stat_state_of(&c, 1), AMB_STAT_SCALED);
	c.run = 0;
	assert_int_equal(amb_stat_scale(&c), 0);
	assert_int_equal(amb_stat_state_of(&c, 1), AMB_STAT_NOT_COUNTED);
	/* Under 1 ms of running time a multiplexed estimate is unreliable... */
	c.run = MS / 2;
	assert_int_equal(amb_stat_scale(&c), 20000);
	assert_int_equal(amb_stat_state_of(&c, 1), AMB_STAT_UNRELIABLE);
	/* ... per run: two runs of 0.6 ms each are still unreliable. */
	c.run = 12 * MS / 10;
	c.ena = 20 * MS;
	assert_int_equal(amb_stat_state_of(&c, 2), AMB_STAT_UNRELIABLE);
	assert_int_equal(amb_stat_state_of(&c, 1), AMB_STAT_SCALED);
	/* But a short exact count is exact, however short. */
	c.ena = c.run = 1000;
	assert_int_equal(amb_stat_state_of(&c, 1), AMB_STAT_EXACT);
	/* No overflow where val * ena does not fit 64 bits. */
	c = (struct amb_stat_count){ UINT64_MAX / 2, 4000000000ull, 2000000000ull };
	assert_true(amb_stat_scale(&c) == UINT64_MAX - 1);
	c.val = UINT64_MAX;
	assert_true(amb_stat_scale(&c) == UINT64_MAX);
}

/* perf stat's default set on a machine with a PMU, one group read. */
static void test_derived(void **state)
{
	const struct amb_stat_event ev[] = {
		{ "task-clock", SW(TASK_CLOCK), -1, NULL },
		{ "context-switches", SW(CONTEXT_SWITCHES), -1, NULL },
		{ "page-faults", SW(PAGE_FAULTS), -1, NULL },
		{ "cycles", HW(CPU_CYCLES), 3, NULL },
		{ "instructions", HW(INSTRUCTIONS), 3, NULL },
		{ "branches", HW(BRANCH_INSTRUCTIONS), 3, NULL },
		{ "branch-misses", HW(BRANCH_MISSES), 3, NULL },
		{ "cache-misses", HW(CACHE_MISSES), -1, NULL },
	};
	const uint64_t vals[] = { 200 * MS, 10, 5000, 600000000, 1200000000, 300000000, 3000000, 7 };
	struct amb_stat_line *v;
	struct amb_stat *st;
	size_t n;

	(void)state;
	assert_int_equal(amb_stat_new(ev, AMB_ARRAY_SIZE(ev), AMB_STAT_AGGR_GLOBAL, &st), 0);
	for (uint32_t e = 0; e < AMB_ARRAY_SIZE(ev); e++) {
		struct amb_stat_count c = { vals[e], 200 * MS, 200 * MS };

		assert_int_equal(amb_stat_add(st, e, UINT32_MAX, 42, &c), 0);
	}
	amb_stat_end_run(st, 400 * MS);
	assert_int_equal(amb_stat_lines(st, &v, &n), 0);
	assert_int_equal(n, AMB_ARRAY_SIZE(ev));
	/* 200 ms of CPU in 400 ms of wall time. */
	assert_string_equal(v[0].metric_unit, "CPUs utilized");
	assert_true(fabs(v[0].metric - 0.5) < 1e-9);
	/* 10 switches in 0.2 s of CPU: 50 /sec; 5000 faults: 25 K/sec. */
	assert_string_equal(v[1].metric_unit, "/sec");
	assert_true(fabs(v[1].metric - 50) < 1e-9);
	assert_string_equal(v[2].metric_unit, "K/sec");
	assert_true(fabs(v[2].metric - 25) < 1e-9);
	/* 600M cycles in 0.2 s: 3 GHz; IPC 2; 1.5 G/sec branches, 1% missed. */
	assert_string_equal(v[3].metric_unit, "GHz");
	assert_true(fabs(v[3].metric - 3) < 1e-9);
	assert_string_equal(v[4].metric_unit, "insn per cycle");
	assert_true(fabs(v[4].metric - 2) < 1e-9);
	assert_string_equal(v[5].metric_unit, "G/sec");
	assert_true(fabs(v[5].metric - 1.5) < 1e-9);
	assert_string_equal(v[6].metric_unit, "of all branches");
	assert_true(v[6].metric_pct && fabs(v[6].metric - 1) < 1e-9);
	/* cache-misses without cache-references: no figure, as in perf. */
	assert_false(v[7].has_metric);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(v[i].state, AMB_STAT_EXACT);
		assert_true(v[i].share == 100.0);
	}
	free(v);
	amb_stat_free(st);
}

/* A VM: hardware events not supported, a group that never ran, a
 * multiplexed member; what each line says, and no figure from missing
 * inputs. */
static void test_states(void **state)
{
	const struct amb_stat_event ev[] = {
		{ "task-clock", SW(TASK_CLOCK), -1, NULL },
		{ "cycles", HW(CPU_CYCLES), -1, "no hardware PMU" },
		{ "instructions", HW(INSTRUCTIONS), 2, NULL },
		{ "branches", HW(BRANCH_INSTRUCTIONS), 2, NULL },
		{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, 0, -1, NULL },
		{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, -1, NULL },
	};
	struct amb_stat_count clk = { 30 * MS, 30 * MS, 30 * MS };
	struct amb_stat_count never = { 0, 30 * MS, 0 };
	struct amb_stat_count loads = { 1000000, 30 * MS, 15 * MS };   /* ran half */
	struct amb_stat_count misses = { 1000, 30 * MS, MS / 4 };     /* 0.25 ms */
	struct amb_stat_print_opts po = { .format = AMB_STAT_TEXT, .title = "'x'", .footer = true,
					  .user_s = -1, .sys_s = -1 };
	struct amb_stat_line *v;
	struct amb_stat *st;
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(amb_stat_new(ev, AMB_ARRAY_SIZE(ev), AMB_STAT_AGGR_GLOBAL, &st), 0);
	assert_int_equal(amb_stat_add(st, 0, UINT32_MAX, 1, &clk), 0);
	assert_int_equal(amb_stat_add(st, 2, UINT32_MAX, 1, &never), 0);
	assert_int_equal(amb_stat_add(st, 3, UINT32_MAX, 1, &never), 0);
	assert_int_equal(amb_stat_add(st, 4, UINT32_MAX, 1, &loads), 0);
	assert_int_equal(amb_stat_add(st, 5, UINT32_MAX, 1, &misses), 0);
	assert_int_equal(amb_stat_add(st, 9, UINT32_MAX, 1, &misses), -EINVAL);
	amb_stat_end_run(st, 60 * MS);
	assert_int_equal(amb_stat_lines(st, &v, &n), 0);
	assert_int_equal(n, 6);
	assert_int_equal(v[1].state, AMB_STAT_NOT_SUPPORTED);
	assert_int_equal(v[2].state, AMB_STAT_NOT_COUNTED);
	assert_false(v[2].has_metric);
	assert_int_equal(v[3].state, AMB_STAT_NOT_COUNTED);
	assert_int_equal(v[4].state, AMB_STAT_SCALED);
	assert_true(v[4].value == 2000000);
	assert_true(fabs(v[4].share - 50) < 1e-9);
	assert_int_equal(v[5].state, AMB_STAT_UNRELIABLE);
	assert_true(v[5].value == 120000);
	/* 120000 of 2000000 loads missed: 6%. */
	assert_string_equal(v[5].metric_unit, "of all L1-dcache accesses");
	assert_true(fabs(v[5].metric - 6) < 1e-9);
	free(v);

	out = print(st, &po);
	assert_non_null(strstr(out, " Performance counter stats for 'x':"));
	assert_non_null(strstr(out, "   <not supported>      cycles"));
	assert_non_null(strstr(out, "     <not counted>      instructions"));
	assert_non_null(strstr(out, "             30.00 msec task-clock"));
	assert_non_null(strstr(out, "#    0.500 CPUs utilized"));
	assert_non_null(strstr(out, "           2000000      L1-dcache-loads"));
	assert_non_null(strstr(out, "( 50.00%)"));
	assert_non_null(strstr(out, "#    6.00% of all L1-dcache accesses"));
	assert_non_null(strstr(out, "(  0.83%)  <unreliable estimate>"));
	assert_non_null(strstr(out, "       0.060000000 seconds time elapsed"));
	assert_null(strstr(out, "seconds user"));
	free(out);

	warned[0] = 0;
	amb_set_warn(catch_warn, NULL);
	amb_stat_warn_unreliable(st);
	amb_set_warn(NULL, NULL);
	assert_non_null(strstr(warned, "'L1-dcache-load-misses' ran 0.250 ms of 30.000 ms"));
	assert_non_null(strstr(warned, "count fewer events at once (5 share the counters)"));
	assert_null(strstr(warned, "L1-dcache-loads'"));
	amb_stat_free(st);
}

/* An unreliable member of a group: the warning names the group. */
static void test_unreliable_group(void **state)
{
	const struct amb_stat_event ev[] = {
		{ "cycles", HW(CPU_CYCLES), 0, NULL },
		{ "instructions", HW(INSTRUCTIONS), 0, NULL },
		{ "branch-misses", HW(BRANCH_MISSES), 0, NULL },
		{ "page-faults", SW(PAGE_FAULTS), -1, NULL },
	};
	struct amb_stat_count c = { 5000, 8 * MS, MS / 2 };
	struct amb_stat *st;

	(void)state;
	assert_int_equal(amb_stat_new(ev, AMB_ARRAY_SIZE(ev), AMB_STAT_AGGR_GLOBAL, &st), 0);
	for (uint32_t e = 0; e < 3; e++)
		assert_int_equal(amb_stat_add(st, e, 0, UINT32_MAX, &c), 0);
	amb_stat_end_run(st, 10 * MS);
	warned[0] = 0;
	amb_set_warn(catch_warn, NULL);
	amb_stat_warn_unreliable(st);
	amb_set_warn(NULL, NULL);
	assert_non_null(strstr(warned, "'instructions' ran 0.500 ms of 8.000 ms enabled (6.25%)"));
	assert_non_null(strstr(warned, "shrink group {cycles,instructions,branch-misses}"));
	amb_stat_free(st);
}

/* -r: the mean of the scaled counts and perf's relative deviation of the
 * mean; the elapsed time with its own. */
static void test_repeat(void **state)
{
	const struct amb_stat_event ev[] = {
		{ "task-clock", SW(TASK_CLOCK), -1, NULL },
		{ "page-faults", SW(PAGE_FAULTS), -1, NULL },
	};
	const uint64_t faults[] = { 100, 110, 120 };
	struct amb_stat_print_opts po = { .format = AMB_STAT_TEXT, .title = "'w'", .runs_asked = 3,
					  .footer = true, .user_s = 1, .sys_s = 1 };
	struct amb_stat_line *v;
	struct amb_stat *st;
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(amb_stat_new(ev, 2, AMB_STAT_AGGR_GLOBAL, &st), 0);
	for (int r = 0; r < 3; r++) {
		struct amb_stat_count clk = { 10 * MS, 10 * MS, 10 * MS };
		struct amb_stat_count pf = { faults[r], 10 * MS, 10 * MS };

		assert_int_equal(amb_stat_add(st, 0, UINT32_MAX, 7, &clk), 0);
		assert_int_equal(amb_stat_add(st, 1, UINT32_MAX, 7, &pf), 0);
		amb_stat_end_run(st, (uint64_t)(20 + 2 * r) * MS);
	}
	assert_int_equal(amb_stat_runs(st), 3);
	assert_true(fabs(amb_stat_elapsed_ns(st) - 22 * MS) < 1);
	assert_int_equal(amb_stat_lines(st, &v, &n), 0);
	/* mean 110, sample stddev 10, of the mean 10/sqrt(3): 5.2486%. */
	assert_true(fabs(v[1].value - 110) < 1e-9);
	assert_true(fabs(v[1].rsd - 100.0 * 10 / sqrt(3) / 110) < 1e-9);
	assert_true(v[0].rsd == 0);
	/* The raw sums cover the three runs. */
	assert_int_equal(v[1].sum.val, 330);
	free(v);
	out = print(st, &po);
	assert_non_null(strstr(out, "for 'w' (3 runs):"));
	assert_non_null(strstr(out, "               110      page-faults"));
	assert_non_null(strstr(out, "( +-  5.25% )"));
	assert_non_null(strstr(out, "0.02200 +- 0.00115 seconds time elapsed  ( +-  5.25% )"));
	/* No user/sys with several runs, as perf. */
	assert_null(strstr(out, "seconds user"));
	free(out);
	amb_stat_reset(st);
	assert_int_equal(amb_stat_runs(st), 0);
	amb_stat_free(st);
}

/* System-wide counters summed per CPU and per node; CSV and JSON keys. */
static void test_aggregation(void **state)
{
	const struct amb_stat_event ev[] = {
		{ "cpu-clock", SW(CPU_CLOCK), -1, NULL },
		{ "cycles", HW(CPU_CYCLES), -1, "no hardware PMU" },
	};
	struct amb_stat_print_opts po = { .format = AMB_STAT_CSV, .sep = ";", .interval = true,
					  .time_s = 1.5 };
	struct amb_stat_line *v;
	struct amb_stat *node, *cpu;
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(amb_stat_new(ev, 2, AMB_STAT_AGGR_NODE, &node), 0);
	assert_int_equal(amb_stat_new(ev, 2, AMB_STAT_AGGR_CPU, &cpu), 0);
	for (uint32_t c = 0; c < 4; c++) {
		struct amb_stat_count clk = { 100 * MS, 100 * MS, 100 * MS };

		assert_int_equal(amb_stat_set_node(node, c, c / 2), 0);
		assert_int_equal(amb_stat_add(node, 0, c, UINT32_MAX, &clk), 0);
		assert_int_equal(amb_stat_add(cpu, 0, c, UINT32_MAX, &clk), 0);
	}
	/* A second read of the same counters in the window (an interval
	 * summed into a total) adds counts, not counters. */
	for (uint32_t c = 0; c < 4; c++) {
		struct amb_stat_count zero = { 0, 0, 0 };

		assert_int_equal(amb_stat_add(node, 0, c, UINT32_MAX, &zero), 0);
	}
	amb_stat_end_run(node, 100 * MS);
	amb_stat_end_run(cpu, 100 * MS);
	assert_int_equal(amb_stat_lines(node, &v, &n), 0);
	/* Two nodes, each with its cpu-clock and the unsupported cycles. */
	assert_int_equal(n, 4);
	assert_int_equal(line_of(v, n, 0, 1)->nr, 2);
	assert_true(fabs(line_of(v, n, 0, 1)->metric - 2) < 1e-9);
	assert_int_equal(line_of(v, n, 1, 0)->state, AMB_STAT_NOT_SUPPORTED);
	free(v);
	out = print(node, &po);
	assert_string_equal(out,
		"1.500000000;N0;2;200.00;msec;cpu-clock;200000000;100.00;2.000;CPUs utilized;\n"
		"1.500000000;N0;2;<not supported>;;cycles;0;100.00;;;\n"
		"1.500000000;N1;2;200.00;msec;cpu-clock;200000000;100.00;2.000;CPUs utilized;\n"
		"1.500000000;N1;2;<not supported>;;cycles;0;100.00;;;\n");
	free(out);
	po.format = AMB_STAT_JSON;
	po.interval = false;
	out = print(cpu, &po);
	assert_non_null(strstr(out,
		"{\"cpu\" : \"3\", \"counter-value\" : \"100.000000\", \"unit\" : \"msec\", "
		"\"event\" : \"cpu-clock\", \"event-runtime\" : 100000000, \"pcnt-running\" : 100.00, "
		"\"metric-value\" : 1.000000, \"metric-unit\" : \"CPUs utilized\"}\n"));
	assert_non_null(strstr(out, "{\"cpu\" : \"0\", \"counter-value\" : \"<not supported>\""));
	free(out);
	amb_stat_free(node);
	amb_stat_free(cpu);
}

static void test_threads(void **state)
{
	const struct amb_stat_event ev[] = { { "task-clock", SW(TASK_CLOCK), -1, NULL } };
	struct amb_stat_count c = { 5 * MS, 5 * MS, 5 * MS };
	struct amb_stat_print_opts po = { .format = AMB_STAT_JSON };
	struct amb_stat *st;
	char *out;

	(void)state;
	assert_int_equal(amb_stat_new(ev, 1, AMB_STAT_AGGR_THREAD, &st), 0);
	assert_int_equal(amb_stat_set_comm(st, 11, "wor\"ker"), 0);
	assert_int_equal(amb_stat_add(st, 0, UINT32_MAX, 11, &c), 0);
	assert_int_equal(amb_stat_add(st, 0, UINT32_MAX, 12, &c), 0);
	amb_stat_end_run(st, 10 * MS);
	out = print(st, &po);
	assert_non_null(strstr(out, "{\"thread\" : \"wor\\\"ker-11\", "));
	assert_non_null(strstr(out, "{\"thread\" : \"?-12\", "));
	free(out);
	amb_stat_free(st);
}

/* A task's counter opened once per CPU (the sampling recorder's): each
 * CPU's time_enabled is the task's time anywhere, so the readings are
 * summed unscaled unless the counter really was multiplexed. */
static void test_task_cpus(void **state)
{
	const struct amb_stat_event ev[] = { { "cpu-clock", SW(CPU_CLOCK), -1, NULL },
					     { "cycles", HW(CPU_CYCLES), -1, NULL } };
	/* One thread, 178 ms on CPU 0 and 89 ms on CPU 1: enabled 267 ms on each. */
	const struct amb_stat_count one[] = { { 178 * MS, 267 * MS, 178 * MS },
					      { 89 * MS, 267 * MS, 89 * MS } };
	/* Two inherited threads at once, one per CPU. */
	const struct amb_stat_count two[] = { { 85 * MS, 86 * MS, 85 * MS },
					      { 86 * MS, 86 * MS, 86 * MS } };
	/* Multiplexed half the time on the one CPU the task used. */
	const struct amb_stat_count mux[] = { { 1000, 10 * MS, 5 * MS }, { 0, 10 * MS, 0 } };
	const uint32_t cpus[] = { 0, 1 };
	struct amb_stat_line *v;
	struct amb_stat *st, *per_cpu;
	size_t n;

	(void)state;
	assert_int_equal(amb_stat_new(ev, 2, AMB_STAT_AGGR_GLOBAL, &st), 0);
	assert_int_equal(amb_stat_add_task_cpus(st, 0, 7, cpus, one, 2), 0);
	amb_stat_end_run(st, 300 * MS);
	assert_int_equal(amb_stat_lines(st, &v, &n), 0);
	assert_true(v[0].value == 267 * MS);
	assert_int_equal(v[0].state, AMB_STAT_EXACT);
	free(v);
	amb_stat_reset(st);
	assert_int_equal(amb_stat_add_task_cpus(st, 0, 7, cpus, two, 2), 0);
	assert_int_equal(amb_stat_add_task_cpus(st, 1, 7, cpus, mux, 2), 0);
	amb_stat_end_run(st, 90 * MS);
	assert_int_equal(amb_stat_lines(st, &v, &n), 0);
	assert_true(v[0].value == 171 * MS);
	assert_int_equal(v[0].state, AMB_STAT_EXACT);
	assert_int_equal(v[1].state, AMB_STAT_SCALED);
	assert_true(v[1].value == 2000);
	free(v);
	amb_stat_free(st);
	/* Per CPU, each reading is that CPU's, exact. */
	assert_int_equal(amb_stat_new(ev, 2, AMB_STAT_AGGR_CPU, &per_cpu), 0);
	assert_int_equal(amb_stat_add_task_cpus(per_cpu, 0, 7, cpus, one, 2), 0);
	amb_stat_end_run(per_cpu, 300 * MS);
	assert_int_equal(amb_stat_lines(per_cpu, &v, &n), 0);
	assert_true(line_of(v, n, 0, 0)->value == 178 * MS);
	assert_true(line_of(v, n, 0, 1)->value == 89 * MS);
	assert_int_equal(line_of(v, n, 0, 1)->state, AMB_STAT_EXACT);
	free(v);
	amb_stat_free(per_cpu);
}

/* Nothing read at all (a command that failed to start): every event is
 * listed, <not counted>, and no division by zero anywhere. */
static void test_empty(void **state)
{
	const struct amb_stat_event ev[] = {
		{ "task-clock", SW(TASK_CLOCK), -1, NULL },
		{ "instructions", HW(INSTRUCTIONS), -1, NULL },
	};
	struct amb_stat_print_opts po = { .format = AMB_STAT_TEXT, .title = "'y'", .footer = true,
					  .user_s = 0, .sys_s = 0 };
	struct amb_stat *st;
	enum amb_stat_aggr a;
	char *out;

	(void)state;
	assert_int_equal(amb_stat_new(ev, 0, AMB_STAT_AGGR_GLOBAL, &st), -EINVAL);
	assert_int_equal(amb_stat_new(ev, 2, AMB_STAT_AGGR_GLOBAL, &st), 0);
	out = print(st, &po);
	assert_non_null(strstr(out, "     <not counted> msec task-clock"));
	assert_non_null(strstr(out, "     <not counted>      instructions"));
	assert_non_null(strstr(out, "seconds user"));
	free(out);
	amb_stat_free(st);
	assert_int_equal(amb_stat_aggr_parse("node", &a), 0);
	assert_int_equal(a, AMB_STAT_AGGR_NODE);
	assert_string_equal(amb_stat_aggr_name(AMB_STAT_AGGR_THREAD), "thread");
	assert_int_equal(amb_stat_aggr_parse("socket", &a), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_derived),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_unreliable_group),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_aggregation),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_task_cpus),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

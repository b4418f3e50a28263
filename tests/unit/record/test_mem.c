// SPDX-License-Identifier: MIT
/*
 * Unit tests for record/mem.c, `amber-rec mem`: on fake sysfs PMU trees of
 * an Intel core, an Intel core with mem-loads-aux, a hybrid Intel part, an
 * AMD machine with IBS and an Arm machine with SPE, the preset finds the
 * PMU, writes perf mem record's events, and the attrs those events are
 * opened with are the ones perf opens:
 *
 *   tools/perf/arch/x86/util/mem-events.c   "%s/mem-loads,ldlat=%u/P",
 *       "%s/mem-stores/P", "{%s/mem-loads-aux/,%s/mem-loads,ldlat=%u/}:P"
 *       (MEM_LOADS_AUX 0x8203), AMD "ibs_op//"
 *   tools/perf/arch/arm64/util/mem-events.c "%s/ts_enable=1,pa_enable=1,
 *       load_filter=1,store_filter=1,min_latency=%u/" (and the load or
 *       store only ones)
 *   tools/perf/util/mem-events.c             perf_mem_events__loads_ldlat = 30
 *   tools/perf/builtin-mem.c                 -W for loads, -d, --phys-data
 *   tools/perf/util/evsel.c                  -d: ADDR, DATA_SRC, mmap_data;
 *       --phys-data: PHYS_ADDR; -W: WEIGHT_STRUCT on x86; P: precise_ip 3
 *
 * with the kernel's sysfs event aliases (arch/x86/events/intel/core.c:
 * mem-loads "event=0xcd,umask=0x1,ldlat=3", mem-stores
 * "event=0xd0,umask=0x82", mem-loads-aux "event=0x03,umask=0x82") and
 * format fields (ldlat config1:0-15; drivers/perf/arm_spe_pmu.c:
 * ts_enable config:0, pa_enable config:1, load_filter config:33,
 * store_filter config:34, min_latency config2:0-11).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <amber/common.h>
#include "record/events/events.h"
#include "record/events/pmu.h"
#include "record/evsel.h"
#include "record/mem.h"
#include "record/options.h"
#include "tests/unit/record/events_util.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void intel_core(const char *pmu, unsigned type, bool aux)
{
	char rel[128], t[16];

	fake_mkdir(pmu);
	snprintf(rel, sizeof(rel), "%s/type", pmu);
	snprintf(t, sizeof(t), "%u\n", type);
	fake_write(rel, t);
	snprintf(rel, sizeof(rel), "%s/format", pmu);
	fake_mkdir(rel);
	snprintf(rel, sizeof(rel), "%s/format/event", pmu);
	fake_write(rel, "config:0-7\n");
	snprintf(rel, sizeof(rel), "%s/format/umask", pmu);
	fake_write(rel, "config:8-15\n");
	snprintf(rel, sizeof(rel), "%s/format/ldlat", pmu);
	fake_write(rel, "config1:0-15\n");
	snprintf(rel, sizeof(rel), "%s/format/cmask", pmu);
	fake_write(rel, "config:24-31\n");
	snprintf(rel, sizeof(rel), "%s/events", pmu);
	fake_mkdir(rel);
	snprintf(rel, sizeof(rel), "%s/events/mem-loads", pmu);
	fake_write(rel, "event=0xcd,umask=0x1,ldlat=3\n");
	snprintf(rel, sizeof(rel), "%s/events/mem-stores", pmu);
	fake_write(rel, "event=0xd0,umask=0x82\n");
	snprintf(rel, sizeof(rel), "%s/events/cpu-cycles", pmu);
	fake_write(rel, "event=0x3c\n");
	if (aux) {
		snprintf(rel, sizeof(rel), "%s/events/mem-loads-aux", pmu);
		fake_write(rel, "event=0x03,umask=0x82\n");
	}
}

static void arm_spe(void)
{
	fake_mkdir("arm_spe_0");
	fake_write("arm_spe_0/type", "8\n");
	fake_mkdir("arm_spe_0/format");
	fake_write("arm_spe_0/format/ts_enable", "config:0\n");
	fake_write("arm_spe_0/format/pa_enable", "config:1\n");
	fake_write("arm_spe_0/format/pct_enable", "config:2\n");
	fake_write("arm_spe_0/format/jitter", "config:16\n");
	fake_write("arm_spe_0/format/branch_filter", "config:32\n");
	fake_write("arm_spe_0/format/load_filter", "config:33\n");
	fake_write("arm_spe_0/format/store_filter", "config:34\n");
	fake_write("arm_spe_0/format/event_filter", "config1:0-63\n");
	fake_write("arm_spe_0/format/min_latency", "config2:0-11\n");
	fake_mkdir("arm_spe_0/events");
}

/* A fresh fake tree made by @fill, used as the PMU root. */
static void use_tree(void (*fill)(void))
{
	assert_int_equal(fake_root_make("/tmp/amber-test-mem-XXXXXX"), 0);
	fake_mkdir("software");
	fake_write("software/type", "1\n");
	fake_mkdir("tracepoint");
	fake_write("tracepoint/type", "2\n");
	if (fill)
		fill();
	assert_int_equal(rec_pmu_set_root(fake_root), 0);
}

static void drop_tree(void)
{
	rec_pmu_set_root(NULL);
	assert_int_equal(fake_root_remove(), 0);
}

static void fill_intel(void) { intel_core("cpu", 4, false); }
static void fill_intel_aux(void) { intel_core("cpu", 4, true); }
static void fill_hybrid(void) { intel_core("cpu_core", 4, false); intel_core("cpu_atom", 10, false); }
static void fill_arm(void) { arm_spe(); }
static void fill_amd(void)
{
	fake_mkdir("cpu");
	fake_write("cpu/type", "4\n");
	fake_mkdir("cpu/events");
	fake_mkdir("ibs_op");
	fake_write("ibs_op/type", "11\n");
	fake_mkdir("ibs_op/format");
	fake_write("ibs_op/format/cnt_ctl", "config:19\n");
}

/*
 * What amber-rec would open for `amber-rec mem ARGS -- true`: the
 * rewritten command line parsed as amber-rec parses it, every -e spec
 * parsed, and the sampling settings amber_rec.c's setup_sampling() makes
 * of the options applied as rec_evlist_open() applies them.
 */
struct opened {
	struct rec_mem_cmdline cl;
	struct rec_opts opts;
	struct rec_event_list events;
	struct rec_sampling s;
};

static void open_preset(struct opened *op, const char *const *args)
{
	static char *argv[32];
	struct rec_mem_probe probe;
	char err[1024];
	int argc = 0, rc;

	memset(op, 0, sizeof(*op));
	argv[argc++] = (char *)"amber-rec";
	argv[argc++] = (char *)"mem";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	assert_int_equal(rec_mem_probe(&probe), 0);
	rc = rec_mem_cmdline(argc, argv, &probe, &op->cl, stdout);
	assert_int_equal(rc, -1);
	assert_int_equal(rec_opts_parse(&op->opts, op->cl.argc, op->cl.argv, err, sizeof(err)), 0);
	for (size_t i = 0; i < op->opts.nr_event_specs; i++)
		if (rec_events_parse(&op->events, op->opts.event_specs[i], err, sizeof(err)))
			fail_msg("'%s': %s", op->opts.event_specs[i], err);
	op->s.freq = op->opts.freq;
	op->s.period = op->opts.period;
	op->s.data = op->opts.data;
	op->s.phys_data = op->opts.phys_data;
	op->s.data_page_size = op->opts.data_page_size;
	op->s.weight = op->opts.weight;
	op->s.weight_struct = op->opts.weight && rec_weight_struct();
	op->s.inherit = true;
	op->s.enable_on_exec = true;
	for (size_t i = 0; i < op->events.n; i++)
		rec_attr_apply(&op->events.v[i], &op->s, i == 0);
}

static void close_preset(struct opened *op)
{
	rec_events_free(&op->events);
	rec_opts_free(&op->opts);
	rec_mem_cmdline_free(&op->cl);
}

/* What perf mem record's -d and -W (loads) ask of every event. */
static void check_memory_sampling(const struct perf_event_attr *a, bool weight, bool phys)
{
	uint64_t w = rec_weight_struct() ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT;

	assert_true(a->sample_type & PERF_SAMPLE_ADDR);
	assert_true(a->sample_type & PERF_SAMPLE_DATA_SRC);
	assert_int_equal(!!(a->sample_type & w), weight);
	assert_int_equal(!!(a->sample_type & PERF_SAMPLE_PHYS_ADDR), phys);
	assert_int_equal(a->freq, 1);
	assert_int_equal(a->sample_freq, 4000);
}

static void test_intel(void **state)
{
	struct opened op;

	(void)state;
	use_tree(fill_intel);
	open_preset(&op, ARGS("-p", "-o", "mem.amber", "--", "true"));
	/* perf mem record: -W -d --phys-data -e loads -e stores, then the rest. */
	assert_int_equal(op.cl.argc, 12);
	assert_string_equal(op.cl.argv[1], "-W");
	assert_string_equal(op.cl.argv[2], "-d");
	assert_string_equal(op.cl.argv[3], "--phys-data");
	assert_string_equal(op.cl.argv[5], "cpu/mem-loads,ldlat=30/P");
	assert_string_equal(op.cl.argv[7], "cpu/mem-stores/P");
	assert_string_equal(op.cl.argv[8], "-o");
	assert_string_equal(op.cl.argv[9], "mem.amber");
	assert_string_equal(op.cl.argv[11], "true");
	assert_string_equal(op.opts.output, "mem.amber");
	assert_int_equal(op.opts.nr_pids, 0);     /* -p is --phys-data here */
	assert_int_equal(op.events.n, 2);

	/* cpu/mem-loads,ldlat=30/P */
	assert_int_equal(op.events.v[0].attr.type, 4);
	assert_int_equal(op.events.v[0].attr.config, 0x1cd);
	assert_int_equal(op.events.v[0].attr.config1, 30);
	assert_int_equal(op.events.v[0].attr.precise_ip, 3);
	assert_true(op.events.v[0].precise_max);
	assert_int_equal(op.events.v[0].attr.mmap_data, 1);
	assert_int_equal(op.events.v[0].attr.exclude_kernel, 0);
	check_memory_sampling(&op.events.v[0].attr, true, true);
	/* cpu/mem-stores/P */
	assert_int_equal(op.events.v[1].attr.type, 4);
	assert_int_equal(op.events.v[1].attr.config, 0x82d0);
	assert_int_equal(op.events.v[1].attr.config1, 0);
	assert_int_equal(op.events.v[1].attr.precise_ip, 3);
	assert_int_equal(op.events.v[1].attr.mmap_data, 0);
	check_memory_sampling(&op.events.v[1].attr, true, true);
	close_preset(&op);
	/* P is a modifier of its own, not a 'p' count. */
	parse_fails("cpu/mem-stores/Pq", -EINVAL, "invalid modifier 'q' (valid: u k h G H I D p P)");

	/* Loads only, another threshold, user space only; --pid attaches. */
	open_preset(&op, ARGS("-t", "load", "--ldlat", "50", "-U", "--pid", "1"));
	assert_int_equal(op.events.n, 1);
	assert_int_equal(op.events.v[0].attr.config1, 50);
	assert_int_equal(op.events.v[0].attr.exclude_kernel, 1);
	assert_int_equal(op.events.v[0].attr.exclude_user, 0);
	assert_int_equal(op.opts.nr_pids, 1);
	check_memory_sampling(&op.events.v[0].attr, true, false);
	close_preset(&op);

	/* Stores only: no weight (perf adds -W for loads). */
	open_preset(&op, ARGS("--type=store", "-K", "-a", "--duration", "1"));
	assert_int_equal(op.events.n, 1);
	assert_int_equal(op.events.v[0].attr.config, 0x82d0);
	assert_int_equal(op.events.v[0].attr.exclude_user, 1);
	assert_int_equal(op.events.v[0].attr.exclude_kernel, 0);
	assert_true(op.opts.system_wide);
	check_memory_sampling(&op.events.v[0].attr, false, false);
	close_preset(&op);

	/* perf's event names select too. */
	open_preset(&op, ARGS("-e", "ldlat-stores", "--data-page-size", "true"));
	assert_int_equal(op.events.n, 1);
	assert_true(op.opts.data_page_size);
	assert_true(op.events.v[0].attr.sample_type & PERF_SAMPLE_DATA_PAGE_SIZE);
	close_preset(&op);
	drop_tree();
}

/* Sapphire Rapids and later: the loads need mem-loads-aux as the leader. */
static void test_intel_aux(void **state)
{
	struct opened op;

	(void)state;
	use_tree(fill_intel_aux);
	open_preset(&op, ARGS("true"));
	assert_string_equal(op.opts.event_specs[0], "{cpu/mem-loads-aux/,cpu/mem-loads,ldlat=30/}:P");
	assert_int_equal(op.events.n, 3);
	assert_int_equal(op.events.v[0].attr.config, 0x8203);
	assert_int_equal(op.events.v[0].leader, 0);
	assert_int_equal(op.events.v[0].attr.precise_ip, 3);
	assert_int_equal(op.events.v[1].attr.config, 0x1cd);
	assert_int_equal(op.events.v[1].attr.config1, 30);
	assert_int_equal(op.events.v[1].leader, 0);
	assert_int_equal(op.events.v[1].attr.precise_ip, 3);
	assert_int_equal(op.events.v[2].attr.config, 0x82d0);
	assert_int_equal(op.events.v[2].leader, -1);
	close_preset(&op);
	drop_tree();
}

/* Hybrid parts: each core PMU gets its events, as perf does. */
static void test_hybrid(void **state)
{
	struct opened op;

	(void)state;
	use_tree(fill_hybrid);
	open_preset(&op, ARGS("true"));
	assert_int_equal(op.events.n, 4);
	assert_int_equal(op.events.v[0].attr.type, 10);   /* cpu_atom sorts first */
	assert_int_equal(op.events.v[0].attr.config, 0x1cd);
	assert_int_equal(op.events.v[1].attr.type, 10);
	assert_int_equal(op.events.v[2].attr.type, 4);
	assert_int_equal(op.events.v[3].attr.config, 0x82d0);
	close_preset(&op);
	drop_tree();
}

static void test_amd(void **state)
{
	struct opened op;

	(void)state;
	use_tree(fill_amd);
	open_preset(&op, ARGS("-p", "true"));
	assert_string_equal(op.opts.event_specs[0], "ibs_op//");
	assert_int_equal(op.events.n, 1);
	assert_int_equal(op.events.v[0].attr.type, 11);
	assert_int_equal(op.events.v[0].attr.config, 0);
	assert_int_equal(op.events.v[0].attr.precise_ip, 0);
	check_memory_sampling(&op.events.v[0].attr, true, true);
	close_preset(&op);
	drop_tree();
}

/* Arm SPE: the attr perf would open, and a refusal, since its samples come
 * in an AUX area trace. */
static void test_arm_spe(void **state)
{
	static const struct {
		const char *type;
		uint64_t config, config2;
	} cases[] = {
		{ "load,store", 0x600000003ull, 30 },
		{ "load", 0x200000003ull, 30 },
		{ "store", 0x400000003ull, 0 },
	};
	char err[256];

	(void)state;
	use_tree(fill_arm);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(cases); i++) {
		struct rec_mem_opts o = { .ldlat = REC_MEM_DEFAULT_LDLAT };
		struct rec_mem_probe probe;
		struct rec_mem_events ev;
		struct rec_event_list l;

		o.load = strstr(cases[i].type, "load") != NULL;
		o.store = strstr(cases[i].type, "store") != NULL;
		assert_int_equal(rec_mem_probe(&probe), 0);
		assert_int_equal(probe.n, 1);
		assert_int_equal(probe.pmu[0].kind, REC_MEM_ARM_SPE);
		assert_int_equal(rec_mem_events_build(&probe, &o, &ev, err, sizeof(err)), 0);
		assert_true(ev.aux);
		parse_ok(&l, ev.spec[0], 1);
		assert_int_equal(l.v[0].attr.type, 8);
		assert_int_equal(l.v[0].attr.config, cases[i].config);
		assert_int_equal(l.v[0].attr.config2, cases[i].config2);
		rec_events_free(&l);
	}
	{
		static char *argv[] = { (char *)"amber-rec", (char *)"mem", (char *)"true", NULL };
		struct rec_mem_cmdline cl;
		struct rec_mem_probe probe;

		assert_int_equal(rec_mem_probe(&probe), 0);
		assert_int_equal(rec_mem_cmdline(3, argv, &probe, &cl, stdout), 125);
		assert_null(cl.argv);
	}
	drop_tree();
}

/* No PMU: the message names what each vendor's path would need, and the
 * page-fault alternative. */
static void test_none(void **state)
{
	static char *argv[] = { (char *)"amber-rec", (char *)"mem", (char *)"true", NULL };
	struct rec_mem_opts o = { .ldlat = REC_MEM_DEFAULT_LDLAT };
	struct rec_mem_probe probe;
	struct rec_mem_events ev;
	struct rec_mem_cmdline cl;
	char err[1024];

	(void)state;
	use_tree(NULL);
	assert_int_equal(rec_mem_probe(&probe), 0);
	assert_int_equal(probe.n, 0);
	assert_int_equal(rec_mem_events_build(&probe, &o, &ev, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "mem-loads"));
	assert_non_null(strstr(err, "ibs_op"));
	assert_non_null(strstr(err, "arm_spe"));
	assert_non_null(strstr(err, "-e page-faults -c 1 -d --phys-data"));
	assert_int_equal(rec_mem_cmdline(3, argv, &probe, &cl, stdout), 125);
	drop_tree();

	/* A core PMU without memory events is no memory PMU. */
	use_tree(fill_amd);
	rec_pmu_set_root(fake_root);
	assert_int_equal(rec_mem_probe(&probe), 0);
	assert_int_equal(probe.n, 1);
	assert_int_equal(probe.pmu[0].kind, REC_MEM_AMD_IBS);
	drop_tree();
}

/* Bad mem options and --help, -e list. */
static void test_cmdline(void **state)
{
	static const char *const bad[][4] = {
		{ "-t", "loads" }, { "--ldlat", "0" }, { "--ldlat=70000" }, { "-e", "cycles" },
		{ "-U", "-K" }, { "--type" },
	};
	struct rec_mem_probe probe;
	struct rec_mem_cmdline cl;

	(void)state;
	use_tree(fill_intel);
	assert_int_equal(rec_mem_probe(&probe), 0);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(bad); i++) {
		char *argv[8] = { (char *)"amber-rec", (char *)"mem" };
		int argc = 2;

		for (size_t k = 0; k < 4 && bad[i][k]; k++)
			argv[argc++] = (char *)bad[i][k];
		argv[argc++] = (char *)"true";
		assert_int_equal(rec_mem_cmdline(argc, argv, &probe, &cl, stdout), 125);
	}
	{
		char *argv[] = { (char *)"amber-rec", (char *)"mem", (char *)"-e", (char *)"list", NULL };
		char buf[1024] = "";
		FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

		assert_non_null(f);
		assert_int_equal(rec_mem_cmdline(4, argv, &probe, &cl, f), 0);
		fclose(f);
		assert_non_null(strstr(buf, "ldlat-loads   cpu/mem-loads,ldlat=30/P : available"));
		assert_non_null(strstr(buf, "ldlat-stores  cpu/mem-stores/P : available"));
	}
	drop_tree();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_intel_aux),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_arm_spe),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

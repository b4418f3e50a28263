// SPDX-License-Identifier: MIT
/* Unit tests for record/options.c: defaults, every option, the command
 * after the options, and clear errors for bad values and bad mixes, for
 * amber-rec and amber-rec stat. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record/embed_files.h"
#include "record/ksyms_trim.h"
#include "record/options.h"
#include "record/sched_events.h"

/* Parse a NULL-terminated argument list (argv[0] is added).  o->argv
 * points into the static array until the next call. */
static int parse(struct rec_opts *o, char *err, const char *const *args)
{
	static char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"amber-rec";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return rec_opts_parse(o, argc, argv, err, 256);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_defaults(void **state)
{
	struct rec_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, ARGS("--", "ls", "-l")), 0);
	assert_string_equal(o.output, "trace.amber");
	assert_int_equal(o.freq, 4000);
	assert_int_equal(o.period, 0);
	assert_int_equal(o.callgraph, REC_CG_NONE);
	assert_int_equal(o.zstd_level, AMB_DEFAULT_ZSTD_LEVEL);
	assert_int_equal(o.flush_ms, 1000);
	assert_int_equal(o.nr_event_specs, 0);
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[0], "ls");
	assert_string_equal(o.argv[1], "-l");
	assert_int_equal(rec_opts_default_pages(&o, 2, 4096), 256);
	rec_opts_free(&o);

	/* options of the command stay the command's, even without "--" */
	assert_int_equal(parse(&o, err, ARGS("-g", "sh", "-c", "true")), 0);
	assert_int_equal(o.argc, 3);
	assert_string_equal(o.argv[1], "-c");
	assert_int_equal(o.callgraph, REC_CG_FP);
	assert_int_equal(rec_opts_default_pages(&o, 2, 4096), 512);
	rec_opts_free(&o);
}

static void test_all_options(void **state)
{
	struct rec_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, ARGS("-e", "cycles", "-e", "sched:sched_switch",
					     "-o", "x.amber", "-F", "999", "-c", "10000",
					     "--call-graph", "dwarf,8192", "-d", "--branch",
					     "-m", "64", "-z", "0", "--flush-interval", "250",
					     "--sync", "--duration", "1.5", "-a", "-C", "0-1")), 0);
	assert_int_equal(o.nr_event_specs, 2);
	assert_string_equal(o.event_specs[1], "sched:sched_switch");
	assert_string_equal(o.output, "x.amber");
	assert_int_equal(o.freq, 999);
	assert_int_equal(o.period, 10000);
	assert_int_equal(o.callgraph, REC_CG_DWARF);
	assert_int_equal(o.stack_size, 8192);
	assert_true(o.data);
	assert_true(o.branch);
	assert_int_equal(o.mmap_pages, 64);
	assert_int_equal(o.zstd_level, 0);
	assert_int_equal(o.flush_ms, 250);
	assert_true(o.sync);
	assert_true(o.duration > 1.49 && o.duration < 1.51);
	assert_true(o.system_wide);
	assert_string_equal(o.cpulist, "0-1");
	assert_int_equal(o.argc, 0);
	rec_opts_free(&o);

	assert_int_equal(parse(&o, err, ARGS("--call-graph", "dwarf", "-p", "12,34")), 0);
	assert_int_equal(o.stack_size, REC_DEFAULT_STACK_SIZE);
	/* 4 kHz of 33 KiB for 100 ms: 13.5 MB, so 16 MiB */
	assert_int_equal(rec_opts_default_pages(&o, 2, 4096), 4096);
	/* the same in 64 KiB pages */
	assert_int_equal(rec_opts_default_pages(&o, 2, 65536), 256);
	/* 64 CPUs share 256 MiB: 4 MiB each, but never below 8 MiB */
	assert_int_equal(rec_opts_default_pages(&o, 64, 4096), 2048);
	o.freq = 10000;
	assert_int_equal(rec_opts_default_pages(&o, 2, 4096), 8192);
	o.freq = 100000; /* capped at 32 MiB per CPU */
	assert_int_equal(rec_opts_default_pages(&o, 2, 4096), 8192);
	o.freq = 999;
	o.stack_size = 8192;
	assert_int_equal(rec_opts_default_pages(&o, 2, 4096), 2048);
	assert_int_equal(o.nr_pids, 2);
	assert_int_equal(o.pids[0], 12);
	assert_int_equal(o.pids[1], 34);
	rec_opts_free(&o);

	assert_int_equal(parse(&o, err, ARGS("--list-events", "sched:*")), 0);
	assert_true(o.list_events);
	assert_string_equal(o.list_pattern, "sched:*");
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("--list-events")), 0);
	assert_null(o.list_pattern);
	rec_opts_free(&o);
}

/* perf record's memory options, and how many values an option takes
 * (what amber-rec mem passes on). */
static void test_memory_options(void **state)
{
	struct rec_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, ARGS("-d", "--phys-data", "--data-page-size", "-W",
					     "true")), 0);
	assert_true(o.data);
	assert_true(o.phys_data);
	assert_true(o.data_page_size);
	assert_true(o.weight);
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("--weight", "-dW", "true")), 0);
	assert_true(o.weight && o.data && !o.phys_data && !o.data_page_size);
	rec_opts_free(&o);

	assert_int_equal(rec_opts_arg_count("-o"), 1);
	assert_int_equal(rec_opts_arg_count("-ofile"), 0);
	assert_int_equal(rec_opts_arg_count("--output"), 1);
	assert_int_equal(rec_opts_arg_count("--output=x"), 0);
	assert_int_equal(rec_opts_arg_count("-ag"), 0);
	assert_int_equal(rec_opts_arg_count("-aC"), 1);
	assert_int_equal(rec_opts_arg_count("-aC0"), 0);
	assert_int_equal(rec_opts_arg_count("--embed"), 0);   /* optional value */
	assert_int_equal(rec_opts_arg_count("--call-graph"), 1);
	assert_int_equal(rec_opts_arg_count("--pid"), 1);
	assert_int_equal(rec_opts_arg_count("--nosuch"), 0);
	assert_int_equal(rec_opts_arg_count("-x"), 0);
	assert_int_equal(rec_opts_arg_count("ls"), 0);
	assert_int_equal(rec_opts_arg_count("--"), 0);
	assert_int_equal(rec_opts_arg_count("-"), 0);
	assert_int_equal(rec_opts_arg_count(NULL), 0);
}

/* Each bad command line fails with a message naming the problem. */
static void test_errors(void **state)
{
	const struct {
		const char *const *args;
		const char *msg;  /* NULL: must parse */
	} cases[] = {
		{ ARGS("-F", "0", "ls"), "invalid frequency '0'" },
		{ ARGS("-F", "12x", "ls"), "invalid frequency" },
		{ ARGS("-c", "-5", "ls"), "invalid sample period" },
		{ ARGS("-m", "3", "ls"), "power of two" },
		{ ARGS("-z", "23", "ls"), "invalid zstd level" },
		{ ARGS("--call-graph", "lbr", "ls"), "invalid --call-graph 'lbr'" },
		{ ARGS("--call-graph", "dwarf,100", "ls"), "invalid --call-graph" },
		{ ARGS("--call-graph", "dwarf,70000", "ls"), "invalid --call-graph" },
		{ ARGS("--duration", "-1", "-a"), "invalid --duration" },
		{ ARGS("-p", "abc"), "invalid process list 'abc'" },
		{ ARGS("-p", "1", "ls"), "give no command" },
		{ ARGS("-p", "1", "-t", "2"), "either -p or -t" },
		{ ARGS("-F", "100"), "nothing to record" },
		{ ARGS("--bogus", "ls"), "unknown option '--bogus'" },
		{ ARGS("ls", "-o"), NULL }, /* -o belongs to ls: fine */
		{ ARGS("-o"), "needs an argument" },
		/* in a cluster, optind still points at the cluster's start */
		{ ARGS("-xa", "ls"), "unknown option '-x'" },
		{ ARGS("-ae"), "option '-e' needs an argument" },
		{ ARGS("-a", "--output"), "option '--output' needs an argument" },
	};

	(void)state;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(cases); i++) {
		struct rec_opts o;
		char err[256] = "";
		int ret = parse(&o, err, cases[i].args);

		if (!cases[i].msg) {
			assert_int_equal(ret, 0);
		} else {
			if (ret != -EINVAL || !strstr(err, cases[i].msg))
				fail_msg("case %zu: ret %d, message '%s', want '%s'", i, ret, err,
					 cases[i].msg);
		}
		rec_opts_free(&o);
	}
}

/* Sizes and times as perf's --switch-output, --max-size take them. */
static void test_sizes_and_times(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rec_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rec_parse_size("4096B", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rec_parse_size("64K", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(rec_parse_size("10M", &v), 0);
	assert_int_equal(v, 10u << 20);
	assert_int_equal(rec_parse_size("2g", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(rec_parse_size("3MB", &v), 0);
	assert_int_equal(v, 3u << 20);
	assert_int_equal(rec_parse_size("0", &v), -EINVAL);
	assert_int_equal(rec_parse_size("-1M", &v), -EINVAL);
	assert_int_equal(rec_parse_size("1X", &v), -EINVAL);
	assert_int_equal(rec_parse_size("1MX", &v), -EINVAL);
	assert_int_equal(rec_parse_size("", &v), -EINVAL);
	assert_int_equal(rec_parse_size("99999999999999999999", &v), -EINVAL);
	assert_int_equal(rec_parse_size("17179869184G", &v), -EINVAL);

	assert_int_equal(rec_parse_duration("30s", &v), 0);
	assert_int_equal(v, 30000000000ull);
	assert_int_equal(rec_parse_duration("1.5m", &v), 0);
	assert_int_equal(v, 90000000000ull);
	assert_int_equal(rec_parse_duration("2h", &v), 0);
	assert_int_equal(v, 7200000000000ull);
	assert_int_equal(rec_parse_duration("1d", &v), 0);
	assert_int_equal(v, 86400000000000ull);
	assert_int_equal(rec_parse_duration("250ms", &v), 0);
	assert_int_equal(v, 250000000ull);
	assert_int_equal(rec_parse_duration("30", &v), -EINVAL);  /* a unit is needed */
	assert_int_equal(rec_parse_duration("10M", &v), -EINVAL); /* a size */
	assert_int_equal(rec_parse_duration("0s", &v), -EINVAL);
	assert_int_equal(rec_parse_duration("-1s", &v), -EINVAL);
}

static void test_production_options(void **state)
{
	struct rec_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, ARGS("-a", "--switch-output")), 0);
	assert_true(o.switch_signal);
	assert_true(rec_opts_rotating(&o));
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("-a", "--switch-output=10m", "--switch-max-files",
					     "4", "--max-size", "1G")), 0);
	assert_false(o.switch_signal);
	assert_int_equal(o.switch_ns, 600000000000ull);
	assert_int_equal(o.switch_max_files, 4);
	assert_int_equal(o.max_size, 1ull << 30);
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("-a", "--switch-output=100M")), 0);
	assert_int_equal(o.switch_size, 100u << 20);
	assert_int_equal(o.switch_ns, 0);
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("-a", "--flight-recorder=30s")), 0);
	assert_int_equal(o.flight_ns, 30000000000ull);
	assert_string_equal(o.flight_spec, "30s");
	rec_opts_free(&o);
	/* perf's --overwrite: the flight recorder with its default size */
	assert_int_equal(parse(&o, err, ARGS("-a", "--overwrite")), 0);
	assert_int_equal(o.flight_bytes, REC_DEFAULT_FLIGHT_BYTES);
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("-a")), 0);
	assert_false(rec_opts_rotating(&o));
	rec_opts_free(&o);

	/* --filter belongs to the -e before it */
	assert_int_equal(parse(&o, err, ARGS("-e", "cpu-clock", "-e", "sched:sched_switch",
					     "--filter", "prev_pid == 1", "-e", "sched:sched_wakeup",
					     "--filter", "pid > 10", "-a")), 0);
	assert_int_equal(o.nr_filters, 2);
	assert_int_equal(o.filters[0].spec, 1);
	assert_string_equal(o.filters[0].expr, "prev_pid == 1");
	assert_int_equal(o.filters[1].spec, 2);
	rec_opts_free(&o);

	assert_int_equal(parse(&o, err, ARGS("-G", "system.slice/foo.service")), 0);
	assert_string_equal(o.cgroup, "system.slice/foo.service");
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("--uid", "daemon")), 0);
	assert_string_equal(o.uid, "daemon");
	rec_opts_free(&o);
}

static void test_production_errors(void **state)
{
	const struct {
		const char *const *args;
		const char *msg;
	} cases[] = {
		{ ARGS("-a", "--switch-output=5x"), "invalid --switch-output '5x'" },
		{ ARGS("-a", "--switch-output=50ms"), "at least 100ms" },
		{ ARGS("-a", "--switch-output=1K"), "at least 64K" },
		{ ARGS("-a", "--switch-max-files", "0", "--switch-output"), "invalid --switch-max-files" },
		{ ARGS("-a", "--switch-max-files", "3"), "needs --switch-output" },
		{ ARGS("-a", "--max-size", "lots"), "invalid --max-size 'lots'" },
		{ ARGS("-a", "--flight-recorder=1K"), "keep at least 1M" },
		{ ARGS("-a", "--flight-recorder=500ms"), "keep at least 1s" },
		{ ARGS("-a", "--flight-recorder=2s", "--switch-output=1M"), "takes no size or time" },
		{ ARGS("-a", "--flight-recorder", "--max-size", "1G"), "--max-size bounds files" },
		{ ARGS("-a", "--embed", "--switch-output"), "--embed is for one file" },
		{ ARGS("-a", "--max-size", "1G", "-o", "-"), "write files named after it" },
		{ ARGS("--filter", "x == 1", "-a"), "follows the -e tracepoint" },
		{ ARGS("-u", "root", "-a"), "-u records the running processes" },
		{ ARGS("-u", "root", "ls"), "-u records the running processes" },
		{ ARGS("-G", "x", "-p", "1"), "give no -p or -t" },
		{ ARGS("-G", ""), "-G needs a cgroup" },
	};

	(void)state;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(cases); i++) {
		struct rec_opts o;
		char err[256] = "";
		int ret = parse(&o, err, cases[i].args);

		if (ret != -EINVAL || !strstr(err, cases[i].msg))
			fail_msg("case %zu: ret %d, message '%s', want '%s'", i, ret, err,
				 cases[i].msg);
		rec_opts_free(&o);
	}
}

/* amber-rec stat: perf stat's options; argv[0] is "stat". */
static int parse_stat(struct rec_stat_opts *o, char *err, const char *const *args)
{
	static char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"stat";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return rec_stat_opts_parse(o, argc, argv, err, 256);
}

static void test_stat_options(void **state)
{
	struct rec_stat_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse_stat(&o, err, ARGS("--", "true")), 0);
	assert_int_equal(o.repeat, 1);
	assert_int_equal(o.interval_ms, 0);
	assert_null(o.rec.output);
	assert_null(o.sep);
	assert_false(o.json);
	assert_int_equal(o.aggr, AMB_STAT_AGGR_GLOBAL);
	assert_int_equal(o.rec.argc, 1);
	rec_stat_opts_free(&o);

	assert_int_equal(parse_stat(&o, err, ARGS("-e", "task-clock", "--event", "{cycles,instructions}",
						  "-I", "100", "-r", "5", "-x", ";", "-o", "c.amber",
						  "-a", "-C", "0-1", "--per-node", "-v", "sleep", "1")), 0);
	assert_int_equal(o.rec.nr_event_specs, 2);
	assert_string_equal(o.rec.event_specs[1], "{cycles,instructions}");
	assert_int_equal(o.interval_ms, 100);
	assert_int_equal(o.repeat, 5);
	assert_string_equal(o.sep, ";");
	assert_string_equal(o.rec.output, "c.amber");
	assert_true(o.rec.system_wide);
	assert_string_equal(o.rec.cpulist, "0-1");
	assert_int_equal(o.aggr, AMB_STAT_AGGR_NODE);
	assert_true(o.verbose);
	assert_string_equal(o.rec.argv[0], "sleep");
	rec_stat_opts_free(&o);

	assert_int_equal(parse_stat(&o, err, ARGS("-p", "12", "--per-thread", "--json")), 0);
	assert_int_equal(o.aggr, AMB_STAT_AGGR_THREAD);
	assert_true(o.json);
	rec_stat_opts_free(&o);
	assert_int_equal(parse_stat(&o, err, ARGS("-a", "--no-aggr")), 0);
	assert_int_equal(o.aggr, AMB_STAT_AGGR_CPU);
	rec_stat_opts_free(&o);
}

static void test_stat_errors(void **state)
{
	const struct {
		const char *const *args;
		const char *msg;
	} cases[] = {
		{ ARGS("-I", "0", "true"), "invalid -I '0': the interval is in milliseconds, 10 to" },
		{ ARGS("-I", "9", "true"), "invalid -I '9'" },
		{ ARGS("-I", "1e3", "true"), "invalid -I '1e3'" },
		{ ARGS("-r", "0", "true"), "invalid -r '0': the number of runs is 1 to 1000000" },
		{ ARGS("-r", "-2", "true"), "invalid -r '-2'" },
		{ ARGS("-x", "", "true"), "-x needs a separator" },
		{ ARGS("-x", ",", "--json", "true"), "-x and --json are two output formats" },
		{ ARGS("-e", "task-clock"), "nothing to count" },
		{ ARGS("-p", "1", "true"), "give no command, -a or -C" },
		{ ARGS("-p", "1", "-t", "2"), "either -p or -t" },
		{ ARGS("-r", "3", "-a"), "-r repeats a command" },
		{ ARGS("--per-thread", "true"), "--per-thread needs -p or -t" },
		{ ARGS("--per-thread", "-a"), "--per-thread needs -p or -t" },
		{ ARGS("-A", "true"), "-A/--per-cpu needs -a or -C" },
		{ ARGS("--per-node", "-p", "1"), "--per-node needs -a or -C" },
		{ ARGS("-A", "--per-node", "-a"), "use one of -A/--per-cpu, --per-thread and --per-node" },
		{ ARGS("-F", "99", "true"), "unknown option '-F'" },
		{ ARGS("-o"), "needs an argument" },
	};

	(void)state;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(cases); i++) {
		struct rec_stat_opts o;
		char err[256] = "";
		int ret = parse_stat(&o, err, cases[i].args);

		if (ret != -EINVAL || !strstr(err, cases[i].msg))
			fail_msg("case %zu: ret %d, message '%s', want '%s'", i, ret, err, cases[i].msg);
		rec_stat_opts_free(&o);
	}
}

/* --off-cpu and the sched preset add the scheduler's events (sched.c). */
static void test_sched(void **state)
{
	struct rec_opts o;
	char err[256];

	(void)state;
	/* A profile of a command gets them after its default event, and
	 * context-switch records for the switch-ins. */
	assert_int_equal(parse(&o, err, ARGS("--off-cpu", "-g", "ls")), 0);
	assert_true(o.off_cpu);
	assert_int_equal(rec_sched_apply(&o), 0);
	assert_int_equal(o.nr_event_specs, 5);
	assert_string_equal(o.event_specs[0], REC_DEFAULT_EVENT);
	assert_string_equal(o.event_specs[1], "sched:sched_switch");
	assert_string_equal(o.event_specs[4], "sched:sched_migrate_task");
	assert_true(o.switch_events);
	assert_false(o.system_wide);
	assert_int_equal(o.mmap_pages, REC_SCHED_PAGES);
	rec_opts_free(&o);

	/* -e's events stay, nothing twice; system-wide needs no records; a
	 * DWARF ring keeps its own size; -m is kept. */
	assert_int_equal(parse(&o, err, ARGS("--off-cpu", "-a", "-e", "cpu-clock", "-e",
					     "sched:sched_waking", "--call-graph", "dwarf")), 0);
	assert_int_equal(rec_sched_apply(&o), 0);
	assert_int_equal(o.nr_event_specs, 5);
	assert_string_equal(o.event_specs[0], "cpu-clock");
	assert_string_equal(o.event_specs[1], "sched:sched_waking");
	assert_false(o.switch_events);
	assert_int_equal(o.mmap_pages, 0);
	rec_opts_free(&o);

	/* The sched preset: scheduler events only, system-wide by default,
	 * even without a command (perf sched record does the same). */
	assert_int_equal(parse(&o, err, ARGS("--sched", "--duration", "1")), 0);
	assert_int_equal(rec_sched_apply(&o), 0);
	assert_int_equal(o.nr_event_specs, 4);
	assert_true(o.system_wide);
	assert_false(o.switch_events);
	rec_opts_free(&o);
	assert_int_equal(parse(&o, err, ARGS("--sched", "-p", "1", "-m", "64")), 0);
	assert_int_equal(rec_sched_apply(&o), 0);
	assert_false(o.system_wide);
	assert_true(o.switch_events);
	assert_int_equal(o.mmap_pages, 64);
	rec_opts_free(&o);

	/* --switch-events alone: rec_sched_apply() adds no event. */
	assert_int_equal(parse(&o, err, ARGS("--switch-events", "ls")), 0);
	assert_true(o.switch_events);
	assert_int_equal(rec_sched_apply(&o), 0);
	assert_int_equal(o.nr_event_specs, 0);
	rec_opts_free(&o);
	/* Without --sched there is still nothing to record. */
	assert_int_equal(parse(&o, err, ARGS("--off-cpu")), -EINVAL);
	rec_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_memory_options),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sizes_and_times),
		cmocka_unit_test(test_production_options),
		cmocka_unit_test(test_production_errors),
		cmocka_unit_test(test_stat_options),
		cmocka_unit_test(test_stat_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

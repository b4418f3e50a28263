// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_stat.c - `amber-analyze stat FILE`: the counts a
 * recording holds as perf stat's table, printed by the code `amber-rec
 * stat` printed them with (common/perf_stat.h): the intervals of a -I
 * recording, the mean and deviation of -r runs, or a sampling recording's
 * final counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/perf_stat.h"
#include "common/util.h"

static const char usage[] =
	"usage: amber-analyze stat [OPTIONS] [FILE]\n"
	"\n"
	"Print the counts FILE holds as perf stat's table: what amber-rec stat -o\n"
	"recorded (its intervals, or the mean of its runs), or the final counts of a\n"
	"sampling recording.  Counts are per CPU or thread in the file, so they can be\n"
	"summed another way than when recorded.\n"
	"\n"
	"  -A, --per-cpu     a line per CPU (counts recorded with -a or -C)\n"
	"      --per-node    a line per NUMA node (counts recorded with -a or -C)\n"
	"      --per-thread  a line per thread (counts recorded with -p or -t)\n"
	"      --global      one line per event (whatever the recording chose)\n"
	"      --total       each run's total instead of its -I intervals\n"
	"  -x SEP            CSV with separator SEP (perf stat -x's columns)\n"
	"  -j, --json        one JSON object per line (perf stat -j's keys)\n"
	"  -h, --help        this help\n"
	"\n"
	"exit status: 0 success; 1 the file holds no counts; 2 usage error or the\n"
	"file cannot be opened.\n";

enum {
	OPT_PER_NODE = 0x100,
	OPT_PER_THREAD,
	OPT_GLOBAL,
	OPT_TOTAL,
};

struct stat_args {
	bool aggr_set;
	enum amb_stat_aggr aggr;
	bool total;
	struct amb_stat_print_opts po;
};

static int stat_option(void *ctx, int c, const char *arg)
{
	struct stat_args *a = ctx;
	enum amb_stat_aggr want;

	switch (c) {
	case 'A':
		want = AMB_STAT_AGGR_CPU;
		break;
	case OPT_PER_NODE:
		want = AMB_STAT_AGGR_NODE;
		break;
	case OPT_PER_THREAD:
		want = AMB_STAT_AGGR_THREAD;
		break;
	case OPT_GLOBAL:
		want = AMB_STAT_AGGR_GLOBAL;
		break;
	case OPT_TOTAL:
		a->total = true;
		return 0;
	case 'x':
		if (!*arg)
			return -EINVAL;
		a->po.format = AMB_STAT_CSV;
		a->po.sep = arg;
		return 0;
	case 'j':
		a->po.format = AMB_STAT_JSON;
		return 0;
	default:
		return 1;
	}
	if (a->aggr_set && a->aggr != want) {
		amb_errmsg_set("use one of --per-cpu, --per-node, --per-thread and --global");
		return -EINVAL;
	}
	a->aggr_set = true;
	a->aggr = want;
	return 0;
}

/* Can the entries of @s be summed as @aggr asks?  Per CPU and per node
 * need CPUs in the entries, per thread threads. */
static bool aggr_fits(const struct ana_session *s, enum amb_stat_aggr aggr)
{
	for (size_t i = 0; i < ana_session_counts_count(s); i++) {
		const struct ana_counts *c = ana_session_counts(s, i);

		for (size_t k = 0; k < c->n; k++) {
			if ((aggr == AMB_STAT_AGGR_CPU || aggr == AMB_STAT_AGGR_NODE) &&
			    c->v[k].cpu == UINT32_MAX)
				return false;
			if (aggr == AMB_STAT_AGGR_THREAD && c->v[k].tid == UINT32_MAX)
				return false;
		}
	}
	return true;
}

static uint64_t meta_u64(const struct ana_session *s, const char *key, bool *have)
{
	const char *v = ana_session_meta(s, key);
	char *end;
	unsigned long long n;

	*have = false;
	if (!v || !*v)
		return 0;
	n = strtoull(v, &end, 10);
	*have = !*end;
	return *have ? (uint64_t)n : 0;
}

/* The runs' -I intervals, each block one interval, times from the run's start. */
static int print_intervals(const struct ana_session *s, struct stat_args *a,
			   enum amb_stat_aggr aggr)
{
	struct amb_stat *st;
	uint32_t run = 0;
	uint64_t run_start = 0;
	int err = ana_counts_table_new(s, aggr, &st);

	if (err)
		return err;
	a->po.interval = true;
	if (a->po.format == AMB_STAT_TEXT)
		amb_stat_print_interval_header(stdout, aggr);
	for (size_t i = 0; i < ana_session_counts_count(s) && !err; i++) {
		const struct ana_counts *c = ana_session_counts(s, i);

		if (i == 0 || c->run != run) {
			run = c->run;
			run_start = c->first_time;
		}
		err = ana_counts_add(s, st, c);
		if (err)
			break;
		amb_stat_end_run(st, c->last_time - AMB_MIN(c->first_time, c->last_time));
		a->po.time_s = c->last_time > run_start ? (double)(c->last_time - run_start) / 1e9
							: 0.0;
		err = amb_stat_print(st, stdout, &a->po);
		amb_stat_reset(st);
	}
	amb_stat_free(st);
	return err;
}

static int print_totals(const struct ana_session *s, struct stat_args *a,
			enum amb_stat_aggr aggr, const char *path)
{
	struct amb_stat *st;
	char title[4096];
	const char *t = ana_session_meta(s, "stat.title");
	bool hu, hs;
	uint64_t user = meta_u64(s, "stat.user_ns", &hu), sys = meta_u64(s, "stat.sys_ns", &hs);
	int err = ana_counts_totals(s, aggr, &st);

	if (err)
		return err;
	if (!t) {
		/* A sampling recording: its command, or the file. */
		t = ana_session_meta(s, "target");
		snprintf(title, sizeof(title), "'%s'", t ? t : path);
		t = title;
	}
	a->po.title = t;
	a->po.runs_asked = amb_stat_runs(st);
	a->po.footer = true;
	a->po.user_s = hu && hs && amb_stat_runs(st) == 1 ? (double)user / 1e9 : -1;
	a->po.sys_s = hu && hs && amb_stat_runs(st) == 1 ? (double)sys / 1e9 : -1;
	err = amb_stat_print(st, stdout, &a->po);
	amb_stat_warn_unreliable(st);
	amb_stat_free(st);
	return err;
}

int ana_cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "per-cpu", no_argument, NULL, 'A' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-node", no_argument, NULL, OPT_PER_NODE },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "global", no_argument, NULL, OPT_GLOBAL },
		{ "total", no_argument, NULL, OPT_TOTAL },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "stat", usage, "Ax:j", opts, 1, 1, true };
	struct stat_args a = { .po = { .format = AMB_STAT_TEXT } };
	struct ana_session *s = NULL;
	const char *path = NULL, *v;
	enum amb_stat_aggr aggr = AMB_STAT_AGGR_GLOBAL;
	bool have;
	int rc, err;

	rc = ana_cmd_parse(&desc, argc, argv, NULL, stat_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		return rc;
	amb_errmsg_clear();
	err = ana_session_open(path, &s);
	if (err) {
		/* The reader's detail (a perf.data, a FIFO ...) when it left one. */
		ana_cmd_fail("stat", path, err);
		return 2;
	}
	rc = 1;
	if (!ana_session_counts_count(s)) {
		ana_cmd_error("stat", "%s holds no counts (amber-rec stat -o FILE keeps them)", path);
		goto out;
	}
	if (a.aggr_set)
		aggr = a.aggr;
	else if ((v = ana_session_meta(s, "stat.aggr")) && amb_stat_aggr_parse(v, &aggr))
		aggr = AMB_STAT_AGGR_GLOBAL;
	if (!aggr_fits(s, aggr)) {
		ana_cmd_error("stat", "%s: the counts were recorded per %s: they cannot be summed %s",
			      path, aggr == AMB_STAT_AGGR_THREAD ? "CPU" : "thread",
			      aggr == AMB_STAT_AGGR_THREAD ? "per thread (record with -p or -t)"
							   : "per CPU or node (record with -a or -C)");
		goto out;
	}
	if (meta_u64(s, "stat.interval_ms", &have) && have && !a.total)
		err = print_intervals(s, &a, aggr);
	else
		err = print_totals(s, &a, aggr, path);
	fflush(stdout);
	if (err) {
		ana_cmd_fail("stat", path, err);
		goto out;
	}
	rc = 0;
out:
	ana_session_close(s);
	return rc;
}

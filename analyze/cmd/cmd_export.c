// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_export.c - `amber-analyze export --format FORMAT [-o OUT]
 * [filters] FILE`: the samples written for pprof, speedscope, Chrome's
 * trace viewers or as perf script text (view/export*.c); with --off-cpu or
 * --wall-clock, the time of the scheduler model (view/offcpu.h) instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

static const char usage[] =
"usage: amber-analyze export --format FORMAT [OPTIONS] [FILE]\n"
"\n"
"Write the samples in a format other tools read.\n"
"\n"
"  -f, --format FORMAT    pprof        profile.proto, gzip-compressed (go tool pprof,\n"
"                                      Pyroscope, Parca, Grafana ...)\n"
"                         speedscope   speedscope's JSON: a profile per thread\n"
"                         chrome       Chrome trace-event JSON (Perfetto UI,\n"
"                                      chrome://tracing, speedscope)\n"
"                         perf-script  text exactly as `perf script` prints it\n"
"  -o, --output FILE      write to FILE (default: standard output)\n"
"      --no-inline        no inlined functions as frames (perf-script: --inline adds them)\n"
"      --inline           inlined functions in perf-script's callchains\n"
"      --off-cpu          time off CPU (ns) by the stack at switch-out, a value\n"
"                         type per thread state (pprof) or per thread (speedscope);\n"
"                         needs a recording made with --off-cpu or sched\n"
"      --wall-clock       on-CPU samples in ns and off-CPU time together: where\n"
"                         each thread's wall-clock time went (pprof, speedscope)\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs\n"
"      --dso/--sym LIST   only samples whose ip is in these\n"
"      --time RANGES      START,END with times as script prints them (309.76,\n"
"                         309.8), +SECONDS from the start (+0.1,+0.5) or\n"
"                         HH:MM:SS[.frac]; ranges separated by spaces; or\n"
"                         percentages of the span: 10%/2 (the 2nd tenth),\n"
"                         0%-10%,90%-100%\n"
"  -e, --event NAME       only this event\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --no-demangle      C++ and Rust symbols as the ELF spells them\n"
"  -j, --jobs N           N threads: main + N-1 decoding (default: one per CPU)\n";

enum { O_NO_INLINE = 256, O_INLINE, O_OFF_CPU, O_WALL };

struct export_args {
	bool have_format;
	enum ana_export_format format;
	const char *out;
	int inline_frames;      /* -1: the format's default */
	enum ana_offcpu_mode time;  /* --off-cpu, --wall-clock */
};

static int export_option(void *ctx, int c, const char *arg)
{
	struct export_args *a = ctx;

	switch (c) {
	case 'f':
		a->have_format = true;
		return ana_export_format_parse(arg, &a->format);
	case 'o': a->out = arg; return 0;
	case O_NO_INLINE: a->inline_frames = 0; return 0;
	case O_INLINE: a->inline_frames = 1; return 0;
	case O_OFF_CPU: a->time = ANA_OFFCPU_WAITS; return 0;
	case O_WALL: a->time = ANA_OFFCPU_WALL; return 0;
	default: return 1;
	}
}

int ana_cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "inline", no_argument, NULL, O_INLINE },
		{ "off-cpu", no_argument, NULL, O_OFF_CPU },
		{ "wall-clock", no_argument, NULL, O_WALL },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "export", usage, "f:o:", opts, 1, 1, true };
	struct export_args a = { false, ANA_EXPORT_PPROF, NULL, -1, ANA_OFFCPU_NONE };
	struct ana_pipeline_opts po;
	struct ana_pipeline *p = NULL;
	struct ana_offcpu *oc = NULL;
	struct ana_export_opts eo = { 0 };
	const char *path = NULL, *base;
	struct ana_output out = { 0 };
	int rc, err;

	ana_pipeline_opts_init(&po);
	rc = ana_cmd_parse(&desc, argc, argv, &po, export_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		goto done;
	rc = 2;
	if (!a.have_format) {
		ana_cmd_error("export", "no --format: give pprof, speedscope, chrome or perf-script");
		goto done;
	}
	if (a.time && a.format != ANA_EXPORT_PPROF && a.format != ANA_EXPORT_SPEEDSCOPE) {
		ana_cmd_error("export", "--%s: off-CPU time exports as pprof or speedscope",
			      a.time == ANA_OFFCPU_WALL ? "wall-clock" : "off-cpu");
		goto done;
	}
	rc = 1;
	if (a.time) {
		amb_errmsg_clear();
		err = ana_offcpu_open(path, &po, a.time, &oc);
		if (err) {
			ana_cmd_fail("export", path, err);
			goto done;
		}
		eo.offcpu = oc;
	} else {
		po.tracepoints = a.format == ANA_EXPORT_PERF_SCRIPT || a.format == ANA_EXPORT_CHROME;
		if (ana_cmd_open("export", path, &po, &p))
			goto done;
	}
	amb_errmsg_clear();
	err = ana_output_open(&out, a.out);
	if (err) {
		ana_cmd_fail("export", ana_output_name(a.out), err);
		goto done;
	}
	base = strrchr(path, '/');
	eo.name = base ? base + 1 : path;
	/* perf script shows no inlined functions unless asked (--inline). */
	eo.inline_frames = a.inline_frames >= 0 ? a.inline_frames : a.format != ANA_EXPORT_PERF_SCRIPT;
	amb_errmsg_clear();
	err = ana_export(oc ? ana_offcpu_pipeline(oc) : p, a.format, out.f, &eo);
	err = ana_output_close(&out, err);
	if (err) {
		ana_cmd_fail("export", ana_output_name(a.out), err);
		goto done;
	}
	rc = 0;
done:
	ana_output_close(&out, -ECANCELED);
	ana_pipeline_close(p);
	ana_offcpu_close(oc);
	ana_pipeline_opts_free(&po);
	return rc;
}

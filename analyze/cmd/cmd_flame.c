// SPDX-License-Identifier: MIT
/*
 * analyze/flame.c - `amber-analyze flame`: a recording's stacks as an
 * interactive SVG flame graph (flame_svg.h), or as folded stacks for
 * other tools.
 *
 * --reverse reverses every stack, as FlameGraph's --reverse and perf's
 * caller/callee switch do: leaf functions become the roots (the frames
 * just above "all") and their callers stack up above them, so the widest
 * bottom frames are where time is spent, whoever called them.  The graph
 * is still drawn bottom-up.
 *
 * --off-cpu and --wall-clock draw time instead of samples (view/offcpu.h):
 * the off-CPU waits under the stack their thread blocked in, ending in a
 * frame that names its state, and for the wall clock the on-CPU samples
 * beside them, each thread its own tower.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

static const char usage[] =
"usage: amber-analyze flame [OPTIONS] [FILE]\n"
"\n"
"A flame graph of the recording's stacks: an interactive SVG (click to zoom,\n"
"Ctrl-F to search), or folded stacks with --folded.\n"
"\n"
"  -o, --output FILE       write to FILE (default: standard output); an existing\n"
"                           file is replaced whole, a symbolic link is refused\n"
"      --folded            folded stacks, 'outer;...;leaf COUNT' a line\n"
"      --reverse           reverse stacks: leaf functions are the roots\n"
"      --weight KIND       samples (default) or period\n"
"      --title TEXT        the graph's title\n"
"      --width PX          image width (default 1200)\n"
"      --minwidth PX       leave out frames narrower than PX (default 0.1)\n"
"      --no-comm           no command name as the outermost frame\n"
"      --no-inline         no frames for inlined functions\n"
"      --off-cpu           time off CPU (ns) by the stack at switch-out, each\n"
"                          stack ending in [off-cpu STATE]; needs a recording\n"
"                          made with amber-rec --off-cpu\n"
"      --wall-clock        where each thread's wall-clock time went: on-CPU\n"
"                          samples (cpu-clock, weighted by period, scaled to the\n"
"                          thread's time between switches) and off-CPU time,\n"
"                          under a comm-TID frame per thread\n"
"  -e, --event NAME        the samples of this event (default: the first event\n"
"                          sampled, which the subtitle names)\n"
FLAME_FILTER_HELP
"      --symfs DIR         look for files under DIR\n"
"      --no-debuginfod     never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --no-demangle       C++ and Rust symbols as the ELF spells them\n"
"  -j, --jobs N            N threads: main + N-1 decoding (default: one per CPU)\n";

struct flame_args {
	const char *path, *output;
	bool folded, reverse, period, no_comm, no_inline;
	enum ana_offcpu_mode time;         /* --off-cpu, --wall-clock */
	struct ana_fsvg_opts svg;          /* --title, --width, --minwidth */
	struct ana_pipeline_opts sample;   /* filters, -e, --symfs, --no-debuginfod */
};

enum { O_FOLDED = 256, O_REVERSE, O_WEIGHT, O_NO_COMM, O_NO_INLINE, O_OFF_CPU, O_WALL };

static int flame_option(void *ctx, int c, const char *arg)
{
	struct flame_args *a = ctx;

	switch (c) {
	case 'o': a->output = arg; return 0;
	case O_FOLDED: a->folded = true; return 0;
	case O_REVERSE: a->reverse = true; return 0;
	case O_WEIGHT:
		if (!strcmp(arg, "period"))
			a->period = true;
		else if (!strcmp(arg, "samples"))
			a->period = false;
		else
			return amb_errmsg_set("neither samples nor period"), -EINVAL;
		return 0;
	case O_NO_COMM: a->no_comm = true; return 0;
	case O_NO_INLINE: a->no_inline = true; return 0;
	case O_OFF_CPU: a->time = ANA_OFFCPU_WAITS; return 0;
	case O_WALL: a->time = ANA_OFFCPU_WALL; return 0;
	default: return ana_fsvg_option(&a->svg, c, arg);
	}
}

int ana_cmd_flame(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "folded", no_argument, NULL, O_FOLDED },
		{ "reverse", no_argument, NULL, O_REVERSE },
		{ "weight", required_argument, NULL, O_WEIGHT },
		{ "no-comm", no_argument, NULL, O_NO_COMM },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "off-cpu", no_argument, NULL, O_OFF_CPU },
		{ "wall-clock", no_argument, NULL, O_WALL },
		ANA_FSVG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "flame", usage, "o:", opts, 1, 1, true };
	struct flame_args a = { .svg.min_width = ANA_FSVG_MIN_WIDTH_DEFAULT };
	struct ana_flame_load_opts lo = { 0 };
	struct ana_flame_load_stats st;
	struct ana_stk_tree *t = NULL;
	struct ana_output o = { 0 };
	FILE *f = NULL;
	char subtitle[1024];
	int err, rc;

	ana_pipeline_opts_init(&a.sample);
	rc = ana_cmd_parse(&desc, argc, argv, &a.sample, flame_option, &a, &a.path);
	if (rc != ANA_CMD_GO_ON)
		goto out;
	/* One graph, one event: stacks of different events do not add up.
	 * The scheduler's views choose their own events (view/offcpu.c). */
	a.sample.one_event = !a.time;
	rc = 1;
	t = ana_stk_tree_new();
	if (!t) {
		ana_cmd_error("flame", "%s", strerror(errno));
		goto out;
	}
	lo = (struct ana_flame_load_opts){
		.sample = &a.sample, .key = ANA_FLAME_KEY_STACK, .period = a.period,
		.reverse = a.reverse, .comm = !a.no_comm, .inline_frames = !a.no_inline,
		.time = a.time, .thread = a.time == ANA_OFFCPU_WALL && !a.no_comm,
	};
	err = ana_flame_load(a.path, t, 0, &lo, &st);
	if (err) {
		ana_cmd_fail("flame", a.path, err);
		goto out;
	}
	err = ana_stk_tree_sort(t);
	if (err) {
		ana_cmd_error("flame", "%s", strerror(-err));
		goto out;
	}
	amb_errmsg_clear();
	err = ana_output_open(&o, a.output);
	if (err) {
		ana_cmd_fail("flame", a.output, err);
		goto out;
	}
	f = o.f;
	if (a.folded) {
		/* Folded stacks have no header: a choice made for the user is
		 * said on stderr. */
		if (!a.time && !a.sample.event && st.sampled_events > 1) {
			fputs("amber-analyze: flame: the samples of ", stderr);
			amb_fput_text(stderr, st.event);
			fprintf(stderr, ", the first of %u events sampled (--event NAME for "
				"another)\n", st.sampled_events);
		}
		err = ana_stk_tree_write_folded(t, 0, f);
	} else {
		struct ana_fsvg_opts so = a.svg;

		if (!so.title)
			so.title = a.time == ANA_OFFCPU_WAITS ? "Off-CPU Time Flame Graph" :
				   a.time == ANA_OFFCPU_WALL ? "Wall-Clock Time Flame Graph" :
				   a.reverse ? "Flame Graph (reversed: leaves at the root)" :
					       "Flame Graph";
		so.subtitle = subtitle;
		so.unit = a.time ? "ns" : a.period ? "period" : "samples";
		if (a.time)
			snprintf(subtitle, sizeof(subtitle), "%s: %.3f s off CPU in %" PRIu64
				 " waits, %.3f s on CPU in %" PRIu64 " samples", a.path,
				 (double)st.time.wait_ns / 1e9, st.time.waits,
				 (double)st.time.on_cpu_ns / 1e9, st.time.on_cpu);
		else	/* Which event, when there was a choice. */
			snprintf(subtitle, sizeof(subtitle), "%s: %" PRIu64 " of %" PRIu64
				 " samples%s%s%s", a.path, st.added, st.event_samples,
				 *st.event ? " of " : "", st.event,
				 !a.sample.event && st.sampled_events > 1 ?
					 " (the first event sampled: --event for another)" : "");
		err = ana_fsvg_write(f, t, &so);
	}
	err = ana_output_close(&o, err);
	if (err) {
		ana_cmd_error("flame", "writing %s: %s", ana_output_name(a.output), strerror(-err));
		goto out;
	}
	rc = 0;
out:
	ana_output_close(&o, -ECANCELED);
	ana_stk_tree_free(t);
	ana_pipeline_opts_free(&a.sample);
	return rc;
}

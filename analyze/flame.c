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
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/flame_load.h"
#include "analyze/flame_svg.h"
#include "analyze/report_common.h"
#include "analyze/stacks.h"
#include "common/common.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: amber-analyze flame [OPTIONS] FILE\n"
"\n"
"A flame graph of the recording's stacks: an interactive SVG (click to zoom,\n"
"Ctrl-F to search), or folded stacks with --folded.\n"
"\n"
"  -o, --output FILE       write to FILE (default: standard output)\n"
"      --folded            folded stacks, 'outer;...;leaf COUNT' a line\n"
"      --reverse           reverse stacks: leaf functions are the roots\n"
"      --weight KIND       samples (default) or period\n"
"      --title TEXT        the graph's title\n"
"      --width PX          image width (default 1200)\n"
"      --minwidth PX       leave out frames narrower than PX (default 0.1)\n"
"      --no-comm           no command name as the outermost frame\n"
"      --no-inline         no frames for inlined functions\n"
"  -e, --event NAME        only samples of this event\n"
FLAME_FILTER_HELP
"      --symfs DIR         look for files under DIR\n"
"      --no-debuginfod     never ask debuginfod (DEBUGINFOD_URLS) for files\n");
}

struct flame_args {
	const char *path, *output;
	bool folded, reverse, period, no_comm, no_inline;
	struct fsvg_opts svg;           /* --title, --width, --minwidth */
	struct ana_sample_opts sample;  /* filters, -e, --symfs, --no-debuginfod */
};

/* Returns 0, 1 after --help, -EINVAL after printing what was wrong. */
static int parse_args(struct flame_args *a, int argc, char **argv)
{
	enum { O_FOLDED = 256, O_REVERSE, O_WEIGHT, O_NO_COMM, O_NO_INLINE };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "folded", no_argument, NULL, O_FOLDED },
		{ "reverse", no_argument, NULL, O_REVERSE },
		{ "weight", required_argument, NULL, O_WEIGHT },
		{ "no-comm", no_argument, NULL, O_NO_COMM },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "help", no_argument, NULL, 'h' },
		FSVG_OPTIONS,
		ANA_SAMPLE_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:e:h", opts, NULL)) != -1) {
		err = 0;
		switch (c) {
		case 'o': a->output = optarg; break;
		case O_FOLDED: a->folded = true; break;
		case O_REVERSE: a->reverse = true; break;
		case O_WEIGHT:
			if (!strcmp(optarg, "period"))
				a->period = true;
			else if (!strcmp(optarg, "samples"))
				a->period = false;
			else
				err = -EINVAL;
			break;
		case O_NO_COMM: a->no_comm = true; break;
		case O_NO_INLINE: a->no_inline = true; break;
		case 'h': usage(stdout); return 1;
		default:
			err = fsvg_option(&a->svg, c, optarg);
			if (err > 0)
				err = ana_sample_option(&a->sample, c, optarg);
			if (err > 0) {
				usage(stderr);
				return -EINVAL;
			}
			break;
		}
		if (err) {
			fprintf(stderr, "amber-analyze: error: flame: bad option argument '%s': %s\n",
				optarg, strerror(-err));
			return err;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return -EINVAL;
	}
	a->path = argv[optind];
	return 0;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_args a = { .svg.min_width = FSVG_MIN_WIDTH_DEFAULT };
	struct flame_load_opts lo = { 0 };
	struct flame_load_stats st;
	struct stk_tree *t = NULL;
	FILE *f = NULL;
	char subtitle[256];
	int err, rc = 2;

	ana_sample_opts_init(&a.sample);
	err = parse_args(&a, argc, argv);
	if (err) {
		rc = err > 0 ? 0 : 2;
		goto out;
	}
	rc = 1;
	t = stk_tree_new();
	if (!t) {
		fprintf(stderr, "amber-analyze: error: flame: %s\n", strerror(errno));
		goto out;
	}
	lo = (struct flame_load_opts){
		.sample = &a.sample, .key = FLAME_KEY_STACK, .period = a.period,
		.reverse = a.reverse, .comm = !a.no_comm, .inline_frames = !a.no_inline,
	};
	err = flame_load(a.path, t, 0, &lo, &st);
	if (err) {
		fprintf(stderr, "amber-analyze: error: flame: %s: %s\n", a.path,
			err == -ENOENT && a.sample.event ? "no such event" : amb_strerror(err));
		goto out;
	}
	err = stk_tree_sort(t);
	if (err) {
		fprintf(stderr, "amber-analyze: error: flame: %s\n", strerror(-err));
		goto out;
	}
	f = ana_output_open(a.output);
	if (!f) {
		fprintf(stderr, "amber-analyze: error: flame: cannot create %s: %s\n", a.output,
			strerror(errno));
		goto out;
	}
	if (a.folded) {
		err = stk_tree_write_folded(t, 0, f);
	} else {
		struct fsvg_opts so = a.svg;

		if (!so.title)
			so.title = a.reverse ? "Flame Graph (reversed: leaves at the root)" :
					       "Flame Graph";
		so.subtitle = subtitle;
		so.unit = a.period ? "period" : "samples";
		snprintf(subtitle, sizeof(subtitle), "%s: %" PRIu64 " of %" PRIu64 " samples",
			 a.path, st.added, st.samples);
		err = fsvg_write(f, t, &so);
	}
	err = ana_output_close(f, err);
	f = NULL;
	if (err) {
		fprintf(stderr, "amber-analyze: error: flame: writing %s: %s\n",
			ana_output_name(a.output), strerror(-err));
		goto out;
	}
	rc = 0;
out:
	ana_output_close(f, 0);
	stk_tree_free(t);
	ana_sample_opts_free(&a.sample);
	return rc;
}

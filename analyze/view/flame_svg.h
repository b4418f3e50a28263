/* SPDX-License-Identifier: MIT */
/*
 * analyze/flame_svg.h - an interactive flame graph as one self-contained
 * SVG file (inline <style> and <script>, nothing loaded from anywhere).
 *
 * Layout: the root ("all") at the bottom, each frame above its caller,
 * width proportional to its total weight, children in name order from the
 * left, a frame's self weight the uncovered space to the right of its
 * children.  Interaction (the script): click a frame to zoom to it (its
 * callers stay visible, at full width); click the root or "Reset zoom" to
 * reset; "Search", Ctrl-F or F3 asks for a JavaScript regular expression
 * (an invalid one is matched as a plain substring) and paints matching
 * frames magenta, with the matched share of all weight (overlaps counted
 * once) printed at the top right; "Reset search" clears it.  Hovering a
 * frame shows its tooltip (<title>: name, then weight and share) and the
 * same in the status line at the bottom.
 *
 * Palette (fill colours; the shade within a range is a hash of the name,
 * so a function keeps its colour from one graph to the next):
 *   user code       red       rgb(200-255,  50-110,  50-110)
 *   kernel          orange    rgb(225-255, 135-190,   0-50)
 *   inlined         aqua      rgb( 50-110, 190-230, 190-230)
 *   unknown         grey      rgb(160-200, same, same)
 *   root, commands  slate     rgb(185-215, 190-220, 210-230)
 *   search match    magenta   rgb(230, 0, 230)
 * Differential graphs colour by the change of a frame's total instead:
 * red grew, blue shrank, full intensity for the largest significant
 * change in the graph; a frame whose change is not significant (its
 * Holm-adjusted p-value at or above alpha, see struct ana_fsvg_opts) is
 * grey with an outline, and a legend below the frames says so.
 */
#ifndef AMB_ANALYZE_FLAME_SVG_H
#define AMB_ANALYZE_FLAME_SVG_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "analyze/view/stacks.h"

struct ana_fsvg_opts {
	const char *title;       /* NULL: "Flame Graph" */
	const char *subtitle;    /* NULL: none */
	const char *unit;        /* what weights count, e.g. "samples"; NULL: "samples" */
	unsigned width;          /* image width in px; 0: 1200 */
	double min_width;        /* frames narrower (px) are left out; < 0: keep all */
	unsigned slot;           /* widths come from this slot of the tree */
	/* Differential graph: colour by the change from @base_slot to
	 * @new_slot, of the share of each slot's total, or of the count
	 * (scaled by the larger total) when @absolute. */
	bool diff;
	unsigned base_slot, new_slot;
	bool absolute;
	/* The significance of each node's change (indexed as the tree's
	 * nodes): its Holm-adjusted p-value, tested over @nr_tests frames;
	 * below @alpha it is coloured.  NULL: every change is. */
	const double *p_holm;
	double alpha;
	size_t nr_tests;
};

/* What flame and diff draw unless --minwidth says otherwise (px). */
#define ANA_FSVG_MIN_WIDTH_DEFAULT 0.1

/* ---- options the SVG commands share -------------------------------------- */

/* getopt_long values of ANA_FSVG_OPTIONS: above those of ANA_SAMPLE_OPTIONS. */
enum fsvg_opt {
	ANA_FSVG_OPT_TITLE = 0x1100,
	ANA_FSVG_OPT_WIDTH,
	ANA_FSVG_OPT_MINWIDTH,
};

/*
 * getopt_long entries of --title, --width and --minwidth, for every command
 * that draws an SVG (flame, diff --flame).  Values its own switch does not
 * know go to ana_fsvg_option() (and then to ana_sample_option()).
 */
#define ANA_FSVG_OPTIONS                                                        \
	{ "title", required_argument, NULL, ANA_FSVG_OPT_TITLE },               \
	{ "width", required_argument, NULL, ANA_FSVG_OPT_WIDTH },               \
	{ "minwidth", required_argument, NULL, ANA_FSVG_OPT_MINWIDTH }

/*
 * Apply the option getopt_long returned as @c, with @arg (optarg), to the
 * title, width or min_width of @o.  Returns 0; 1 when @c is none of
 * ANA_FSVG_OPTIONS; -EINVAL for a width outside [100, 100000] px or a
 * negative (or unparsable) min width.  @arg must outlive @o.
 */
int ana_fsvg_option(struct ana_fsvg_opts *o, int c, const char *arg);

/*
 * Write @t, sorted with ana_stk_tree_sort(), to @f as an SVG document.  Names
 * are escaped for XML: markup characters become entities, control
 * characters and bytes that are not UTF-8 become '?'.  Returns 0, -EINVAL
 * for a bad slot, -ENOMEM, or when a write fails the cause it left in
 * errno (-ENOSPC ...), -EIO when it left none; the document is then cut.
 */
int ana_fsvg_write(FILE *f, const struct ana_stk_tree *t, const struct ana_fsvg_opts *o);

/*
 * Write @s to @f escaped as XML character data (see ana_fsvg_write), at most
 * @max_chars characters (0: all); ".." ends a cut name.  Returns 0 or -EIO.
 */
int ana_fsvg_put_escaped(FILE *f, const char *s, size_t max_chars);

#endif /* AMB_ANALYZE_FLAME_SVG_H */

// SPDX-License-Identifier: MIT
/*
 * analyze/diff.c - `amber-analyze diff BASE NEW`: what changed between two
 * recordings, symbol by symbol, and whether the change is more than
 * sampling noise.
 *
 * Both recordings go into one stack tree (stacks.h), BASE in slot 0 and
 * NEW in slot 1, keyed by names only: [DSO short name, symbol] by default,
 * so that symbols match across machines, address-space layouts and
 * rebuilds of a binary (a rebuilt binary has another build-id but the
 * same name).  Every row is tested (stats.h):
 *  - by default on its share of each recording's samples (two-proportion
 *    z-test): did the function take a larger part of the run?
 *  - with --absolute on its sample counts (conditional binomial test of two
 *    Poisson rates), for runs of a fixed amount of work: did the function
 *    take more samples?  The test assumes equal sampling rates and
 *    exposures (same frequency, same work), so a function that doubled
 *    does not make the others look smaller.
 * P-values are adjusted with Holm-Bonferroni for the number of rows; rows
 * whose adjusted p-value is not below --alpha are noise, hidden unless
 * --all (then marked '~').
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

#define SLOT_BASE 0
#define SLOT_NEW 1

struct diff_args {
	const char *base, *new_path, *output;
	enum ana_flame_key key;
	bool all, json, absolute, flame, negate, force;
	char *events[2];                 /* --event BASE=NEW, or NAME for both */
	double alpha;
	struct ana_fsvg_opts svg;           /* --title, --width, --minwidth */
	struct ana_pipeline_opts sample; /* filters, -e, --symfs, --no-debuginfod */
};

/* One symbol (or source line) of either recording. */
struct diff_row {
	uint32_t node;               /* its node in the tree */
	const char *dso, *name;      /* dso NULL unless --sort dso,sym */
	uint64_t base, new_n;        /* samples */
	double base_pct, new_pct;
	double delta;                /* points, or samples with --absolute */
	double ratio;                /* new / base (shares or counts); INFINITY */
	double p, p_holm;
	bool significant;
};

struct diff {
	struct diff_args *a;
	struct ana_stk_tree *t;
	struct diff_row *rows;
	size_t nr_rows;
	uint64_t base_total, new_total;
	struct ana_flame_load_stats st[2];
};

/* ---- rows ------------------------------------------------------------------ */

static int collect_rows(struct diff *d)
{
	uint32_t depth = d->a->key == ANA_FLAME_KEY_DSO_SYM ? 2 : 1;
	size_t nr = ana_stk_tree_count(d->t), i;
	double *p;
	int err;

	d->rows = calloc(nr, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct ana_stk_node *n = ana_stk_tree_node(d->t, (uint32_t)i);
		struct diff_row *r;

		if (n->depth != depth)
			continue;
		r = &d->rows[d->nr_rows++];
		r->node = (uint32_t)i;
		r->name = n->name;
		if (depth == 2)
			r->dso = ana_stk_tree_node(d->t, n->parent)->name;
		r->base = n->total[SLOT_BASE];
		r->new_n = n->total[SLOT_NEW];
		r->base_pct = d->base_total ? 100.0 * (double)r->base / (double)d->base_total : 0;
		r->new_pct = d->new_total ? 100.0 * (double)r->new_n / (double)d->new_total : 0;
		if (d->a->absolute) {
			r->delta = (double)r->new_n - (double)r->base;
			r->ratio = r->base ? (double)r->new_n / (double)r->base : INFINITY;
			r->p = ana_stats_poisson_rate_test(r->base, r->new_n, 1.0);
		} else {
			r->delta = r->new_pct - r->base_pct;
			r->ratio = r->base_pct > 0 ? r->new_pct / r->base_pct : INFINITY;
			r->p = ana_stats_two_prop_test(r->base, d->base_total, r->new_n, d->new_total,
						   NULL);
		}
	}
	p = malloc((d->nr_rows ? d->nr_rows : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < d->nr_rows; i++)
		p[i] = d->rows[i].p;
	err = ana_stats_holm(p, p, d->nr_rows);
	for (i = 0; !err && i < d->nr_rows; i++) {
		d->rows[i].p_holm = p[i];
		d->rows[i].significant = p[i] < d->a->alpha;
	}
	free(p);
	return err;
}

static int row_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	if (x->dso && y->dso && (c = strcmp(x->dso, y->dso)))
		return c;
	return strcmp(x->name, y->name);
}

/* ---- output ---------------------------------------------------------------- */

static void print_json(struct diff *d, struct ana_out *o)
{
	const char *key = d->a->key == ANA_FLAME_KEY_SRCLINE ? "srcline" : "sym";
	bool first = true;

	ana_out_no_cut(o);
	ana_out_printf(o, "{\"base\":{\"path\":");
	ana_out_json(o, d->a->base);
	ana_out_printf(o, ",\"event\":");
	ana_out_json(o, d->st[SLOT_BASE].event);
	ana_out_printf(o, ",\"samples\":%" PRIu64 "},\"new\":{\"path\":", d->base_total);
	ana_out_json(o, d->a->new_path);
	ana_out_printf(o, ",\"event\":");
	ana_out_json(o, d->st[SLOT_NEW].event);
	ana_out_printf(o, ",\"samples\":%" PRIu64 "},\"mode\":\"%s\",\"test\":\"%s\","
		       "\"correction\":\"holm\",\"alpha\":%g,\"rows\":[", d->new_total,
		       d->a->absolute ? "absolute" : "share",
		       d->a->absolute ? "conditional-binomial" : "two-proportion-z", d->a->alpha);
	for (size_t i = 0; i < d->nr_rows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (!r->significant && !d->a->all)
			continue;
		ana_out_printf(o, "%s{", first ? "" : ",");
		first = false;
		if (r->dso) {
			ana_out_printf(o, "\"dso\":");
			ana_out_json(o, r->dso);
			ana_out_printf(o, ",");
		}
		ana_out_printf(o, "\"%s\":", key);
		ana_out_json(o, r->name);
		ana_out_printf(o, ",\"base_samples\":%" PRIu64 ",\"new_samples\":%" PRIu64
			       ",\"base_pct\":%.4f,\"new_pct\":%.4f,\"delta\":%.4f,\"ratio\":",
			       r->base, r->new_n, r->base_pct, r->new_pct, r->delta);
		if (isinf(r->ratio))
			ana_out_printf(o, "null");
		else
			ana_out_printf(o, "%.4f", r->ratio);
		ana_out_printf(o, ",\"p\":%.6g,\"p_holm\":%.6g,\"significant\":%s}", r->p,
			       r->p_holm, r->significant ? "true" : "false");
	}
	ana_out_printf(o, "]}\n");
}

/* A p-value for the table: what underflowed to 0 is below the smallest double. */
static const char *fmt_p(double p, char *buf, size_t len)
{
	if (p == 0)
		snprintf(buf, len, "<1e-307");
	else
		snprintf(buf, len, "%.2g", p);
	return buf;
}

/* " of EVENT", and whether it was chosen for the user. */
static void print_event(struct diff *d, struct ana_out *o, unsigned slot)
{
	if (!*d->st[slot].event)
		return;
	ana_out_str(o, " of ");
	ana_out_text(o, d->st[slot].event);
	if (!d->a->events[slot] && d->st[slot].sampled_events > 1)
		ana_out_str(o, ", the first event sampled: --event for another");
}

static void print_table(struct diff *d, struct ana_out *o)
{
	size_t i, shown = 0, sig = 0, dso_w = 13;
	char ratio[32], p[32], p_holm[32], dso[256];

	for (i = 0; i < d->nr_rows; i++) {
		sig += d->rows[i].significant;
		if (d->rows[i].dso)
			dso_w = AMB_MAX(dso_w, AMB_MIN(strlen(amb_text_escape(dso, sizeof(dso),
									     d->rows[i].dso)), 40));
	}
	ana_out_printf(o, "# base: ");
	ana_out_text(o, d->a->base);
	ana_out_printf(o, " (%" PRIu64 " samples", d->base_total);
	print_event(d, o, SLOT_BASE);
	ana_out_printf(o, ")\n# new:  ");
	ana_out_text(o, d->a->new_path);
	ana_out_printf(o, " (%" PRIu64 " samples", d->new_total);
	print_event(d, o, SLOT_NEW);
	ana_out_printf(o, ")\n");
	ana_out_printf(o, "# test: %s, Holm-Bonferroni over %zu rows, alpha %g\n",
		       d->a->absolute ? "sample counts, conditional binomial (equal rates and durations)" :
				       "shares, two-proportion z-test",
		       d->nr_rows, d->a->alpha);
	ana_out_printf(o, "# %zu of %zu rows changed significantly%s\n#\n", sig, d->nr_rows,
		       d->a->all ? "; '~' marks noise" : sig < d->nr_rows ? "; --all shows the rest" : "");
	ana_out_printf(o, "#    Base%%     New%%  %9s    Ratio   Base-N    New-N   p-value    p-Holm  ",
		       d->a->absolute ? "Delta-N" : "Delta");
	if (d->a->key == ANA_FLAME_KEY_DSO_SYM)
		ana_out_printf(o, "%-*s  ", (int)dso_w, "Shared Object");
	ana_out_printf(o, "%s\n#\n", d->a->key == ANA_FLAME_KEY_SRCLINE ? "Source:Line" : "Symbol");
	for (i = 0; i < d->nr_rows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (!r->significant && !d->a->all)
			continue;
		shown++;
		if (isinf(r->ratio))
			snprintf(ratio, sizeof(ratio), "new");
		else
			snprintf(ratio, sizeof(ratio), "%.2fx", r->ratio);
		ana_out_printf(o, "%c %7.2f%%  %7.2f%%  ", r->significant ? ' ' : '~', r->base_pct,
			       r->new_pct);
		if (d->a->absolute)
			ana_out_printf(o, "%+9.0f", r->delta);
		else
			ana_out_printf(o, "%+9.2f", r->delta);
		ana_out_printf(o, "  %7s  %7" PRIu64 "  %7" PRIu64 "  %8s  %8s  ", ratio, r->base,
			       r->new_n, fmt_p(r->p, p, sizeof(p)), fmt_p(r->p_holm, p_holm, sizeof(p_holm)));
		if (r->dso)
			ana_out_printf(o, "%-*s  ", (int)dso_w, amb_text_escape(dso, sizeof(dso), r->dso));
		ana_out_text(o, r->name);
		ana_out_char(o, '\n');
	}
	if (!shown)
		ana_out_printf(o, "# no significant difference\n");
}

/* ---- options ------------------------------------------------------------------ */

static const char usage[] =
"usage: amber-analyze diff [OPTIONS] [BASE NEW]\n"
"\n"
"Symbols whose share of the samples changed from BASE to NEW, largest change\n"
"first, each with a significance test (Holm-Bonferroni corrected p-values).\n"
"Symbols are matched by shared object name and symbol name, never by address.\n"
"\n"
"  -s, --sort KEYS         dso,sym (default), sym or srcline\n"
"      --absolute          compare sample counts, not shares (runs of fixed\n"
"                          work at the same frequency); exact test on counts\n"
"      --all               show noise rows too, marked '~'\n"
"      --alpha P           significance level (default 0.05)\n"
"      --json              JSON instead of text\n"
"      --flame             a differential flame graph (SVG) instead: widths from\n"
"                          NEW, red grew, blue shrank, grey frames did not\n"
"                          change significantly\n"
"      --negate            with --flame: widths from BASE (colours unchanged)\n"
"  -o, --output FILE       write to FILE (default: standard output); an existing\n"
"                           file is replaced whole, a symbolic link is refused\n"
"      --title TEXT        --flame: the graph's title\n"
"      --width PX          --flame: image width (default 1200)\n"
"      --minwidth PX       --flame: leave out frames narrower than PX (0.1)\n"
"  -e, --event NAME        the samples of this event in both (default: the first\n"
"                          event sampled of each); BASE=NEW names one of each\n"
"      --force             compare unlike events (what --event BASE=NEW says)\n"
FLAME_FILTER_HELP
"      --symfs DIR         look for files under DIR\n"
"      --no-debuginfod     never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --no-demangle       C++ and Rust symbols as the ELF spells them\n"
"  -j, --jobs N            N threads: main + N-1 decoding (default: one per CPU)\n";

static int parse_sort(struct diff_args *a, const char *arg)
{
	if (!strcmp(arg, "dso,sym"))
		a->key = ANA_FLAME_KEY_DSO_SYM;
	else if (!strcmp(arg, "sym"))
		a->key = ANA_FLAME_KEY_SYM;
	else if (!strcmp(arg, "srcline"))
		a->key = ANA_FLAME_KEY_SRCLINE;
	else
		return amb_errmsg_set("diff sorts by dso,sym, sym or srcline"), -EINVAL;
	return 0;
}

enum { O_ABSOLUTE = 256, O_ALL, O_ALPHA, O_JSON, O_FLAME, O_NEGATE, O_FORCE };

static int diff_option(void *ctx, int c, const char *arg)
{
	struct diff_args *a = ctx;
	char *end;

	switch (c) {
	case 's': return parse_sort(a, arg);
	case O_ABSOLUTE: a->absolute = true; return 0;
	case O_ALL: a->all = true; return 0;
	case O_ALPHA:
		a->alpha = strtod(arg, &end);
		if (end == arg || *end || !(a->alpha > 0 && a->alpha < 1))
			return amb_errmsg_set("not a significance level between 0 and 1"), -EINVAL;
		return 0;
	case O_JSON: a->json = true; return 0;
	case O_FLAME: a->flame = true; return 0;
	case O_NEGATE: a->negate = true; return 0;
	case O_FORCE: a->force = true; return 0;
	case 'o': a->output = arg; return 0;
	default: return ana_fsvg_option(&a->svg, c, arg);
	}
}

/* Returns ANA_CMD_GO_ON or the exit status. */
static int parse_args(struct diff_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "absolute", no_argument, NULL, O_ABSOLUTE },
		{ "all", no_argument, NULL, O_ALL },
		{ "alpha", required_argument, NULL, O_ALPHA },
		{ "json", no_argument, NULL, O_JSON },
		{ "flame", no_argument, NULL, O_FLAME },
		{ "negate", no_argument, NULL, O_NEGATE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "output", required_argument, NULL, 'o' },
		ANA_FSVG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "diff", usage, "s:o:", opts, 2, 2, true };
	const char *files[2] = { NULL, NULL };
	int rc = ana_cmd_parse(&desc, argc, argv, &a->sample, diff_option, a, files);

	if (rc != ANA_CMD_GO_ON)
		return rc;
	if (a->negate && !a->flame) {
		ana_cmd_error("diff", "--negate needs --flame");
		return 2;
	}
	/* --event BASE=NEW: one event of each; NAME: the same in both. */
	if (a->sample.event) {
		const char *eq = strchr(a->sample.event, '=');

		a->events[SLOT_BASE] = eq ? strndup(a->sample.event, (size_t)(eq - a->sample.event))
					  : strdup(a->sample.event);
		a->events[SLOT_NEW] = strdup(eq ? eq + 1 : a->sample.event);
		if (!a->events[SLOT_BASE] || !a->events[SLOT_NEW]) {
			ana_cmd_error("diff", "%s", strerror(ENOMEM));
			return 1;
		}
		if (eq)
			a->force = true;
	}
	a->sample.one_event = true;
	a->base = files[0];
	a->new_path = files[1];
	return ANA_CMD_GO_ON;
}

/* ---- command ------------------------------------------------------------------ */

static int load_both(struct diff *d)
{
	const char *paths[2] = { d->a->base, d->a->new_path };
	struct ana_flame_load_opts lo = {
		.sample = &d->a->sample, .key = d->a->flame ? ANA_FLAME_KEY_STACK : d->a->key,
		.comm = true, .inline_frames = true,
	};
	int err;

	for (unsigned slot = 0; slot < 2; slot++) {
		d->a->sample.event = d->a->events[slot];
		err = ana_flame_load(paths[slot], d->t, slot, &lo, &d->st[slot]);
		if (err)
			return ana_cmd_fail("diff", paths[slot], err);
	}
	d->a->sample.event = NULL;
	/* Shares of cpu-clock against shares of page-faults mean nothing. */
	if (strcmp(d->st[SLOT_BASE].event, d->st[SLOT_NEW].event) && !d->a->force) {
		ana_cmd_error("diff", "%s samples %s, %s samples %s: unlike events do not compare "
			      "(--event %s=%s compares them anyway, --event NAME picks one in both)",
			      d->a->base, *d->st[SLOT_BASE].event ? d->st[SLOT_BASE].event : "no event",
			      d->a->new_path, *d->st[SLOT_NEW].event ? d->st[SLOT_NEW].event : "no event",
			      d->st[SLOT_BASE].event, d->st[SLOT_NEW].event);
		return 2;
	}
	d->base_total = ana_stk_tree_node(d->t, ANA_STK_ROOT)->total[SLOT_BASE];
	d->new_total = ana_stk_tree_node(d->t, ANA_STK_ROOT)->total[SLOT_NEW];
	return 0;
}

/*
 * The significance of every frame's change, as the rows' (collect_rows):
 * its p-value adjusted with Holm-Bonferroni over the frames of either
 * recording, into *@out (indexed by node; 1 for the root), the number of
 * frames tested in *@nr.  Returns 0 or -ENOMEM.
 */
static int frame_pvalues(struct diff *d, double **out, size_t *nr)
{
	size_t n = ana_stk_tree_count(d->t), k = 0, i;
	double *p = malloc(n * sizeof(*p)), *tested = malloc(n * sizeof(*tested));
	int err;

	if (!p || !tested) {
		free(p);
		free(tested);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct ana_stk_node *nd = ana_stk_tree_node(d->t, (uint32_t)i);
		uint64_t b = nd->total[SLOT_BASE], v = nd->total[SLOT_NEW];

		p[i] = 1;
		if (i == ANA_STK_ROOT || !(b + v))
			continue;
		p[i] = d->a->absolute ? ana_stats_poisson_rate_test(b, v, 1.0)
				      : ana_stats_two_prop_test(b, d->base_total, v, d->new_total, NULL);
		tested[k++] = p[i];
	}
	err = ana_stats_holm(tested, tested, k);
	for (i = 0, k = 0; !err && i < n; i++) {
		const struct ana_stk_node *nd = ana_stk_tree_node(d->t, (uint32_t)i);

		if (i != ANA_STK_ROOT && nd->total[SLOT_BASE] + nd->total[SLOT_NEW])
			p[i] = tested[k++];
	}
	free(tested);
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	*nr = k;
	return 0;
}

static int write_flame(struct diff *d, FILE *f)
{
	struct ana_fsvg_opts so = d->a->svg;
	char subtitle[1024];
	double *p = NULL;
	int err;

	if (!so.title)
		so.title = "Differential Flame Graph";
	so.subtitle = subtitle;
	so.unit = "samples";
	so.slot = d->a->negate ? SLOT_BASE : SLOT_NEW;
	so.diff = true;
	so.base_slot = SLOT_BASE;
	so.new_slot = SLOT_NEW;
	so.absolute = d->a->absolute;
	so.alpha = d->a->alpha;
	err = frame_pvalues(d, &p, &so.nr_tests);
	if (err)
		return err;
	so.p_holm = p;

	snprintf(subtitle, sizeof(subtitle),
		 "widths: %s (%s); red: grew, blue: shrank from %s to %s (%s of %s%s%s)",
		 d->a->negate ? "base" : "new", d->a->negate ? d->a->base : d->a->new_path,
		 d->a->base, d->a->new_path, d->a->absolute ? "sample counts" : "shares",
		 d->st[SLOT_BASE].event, strcmp(d->st[SLOT_BASE].event, d->st[SLOT_NEW].event) ?
		 " and " : "", strcmp(d->st[SLOT_BASE].event, d->st[SLOT_NEW].event) ?
		 d->st[SLOT_NEW].event : "");
	err = ana_fsvg_write(f, d->t, &so);
	free(p);
	return err;
}

int ana_cmd_diff(int argc, char **argv)
{
	struct diff_args a = {
		.key = ANA_FLAME_KEY_DSO_SYM, .alpha = 0.05, .svg.min_width = ANA_FSVG_MIN_WIDTH_DEFAULT,
	};
	struct diff d = { .a = &a };
	struct ana_out out;
	struct ana_output o = { 0 };
	FILE *f = NULL;
	int err, rc;

	ana_pipeline_opts_init(&a.sample);
	rc = parse_args(&a, argc, argv);
	if (rc != ANA_CMD_GO_ON)
		goto out;
	rc = 1;
	d.t = ana_stk_tree_new();
	if (!d.t) {
		ana_cmd_error("diff", "%s", strerror(errno));
		goto out;
	}
	rc = load_both(&d);
	if (rc)
		goto out;
	rc = 1;
	if (!d.base_total || !d.new_total)
		amb_warn("diff: %s has no samples to compare",
			 d.base_total ? a.new_path : a.base);
	err = a.flame ? ana_stk_tree_sort(d.t) : collect_rows(&d);
	if (err) {
		ana_cmd_error("diff", "%s", strerror(-err));
		goto out;
	}
	amb_errmsg_clear();
	err = ana_output_open(&o, a.output);
	if (err) {
		ana_cmd_fail("diff", a.output, err);
		goto out;
	}
	f = o.f;
	if (a.flame) {
		err = write_flame(&d, f);
	} else {
		qsort(d.rows, d.nr_rows, sizeof(*d.rows), row_cmp);
		ana_out_init(&out, f);
		if (a.json)
			print_json(&d, &out);
		else
			print_table(&d, &out);
		err = ana_out_finish(&out);
	}
	err = ana_output_close(&o, err);
	if (err) {
		ana_cmd_error("diff", "writing %s: %s", ana_output_name(a.output), strerror(-err));
		goto out;
	}
	rc = 0;
out:
	ana_output_close(&o, -ECANCELED);
	free(d.rows);
	free(a.events[0]);
	free(a.events[1]);
	ana_stk_tree_free(d.t);
	ana_pipeline_opts_free(&a.sample);
	return rc;
}

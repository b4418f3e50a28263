// SPDX-License-Identifier: MIT
/*
 * common/perf_stat_print.c - the table of perf_stat.h in perf stat's three
 * shapes: the text table (tools/perf/util/stat-display.c's columns: value, unit,
 * event, '#' and the derived figure, noise with -r), CSV with -x (perf's
 * columns: value, unit, event, [noise,] run time, running share, metric
 * value, metric unit, then amber's own: the unreliable mark) and one JSON
 * object per line with perf's keys.
 *
 * Where perf prints the running share only for multiplexed counters,
 * every counted line shows it here, and an estimate from under
 * AMB_STAT_RELIABLE_NS of running time is marked.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "common/perf_stat.h"
#include "common/util.h"

#define LINE_MAX_LEN 2048

struct line_buf {
	char s[LINE_MAX_LEN];
	size_t n;
};

AMB_PRINTF(2, 3)
static void lb_printf(struct line_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->n >= sizeof(b->s) - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n = AMB_MIN(b->n + (size_t)r, sizeof(b->s) - 1);
}

/* Write @b without trailing blanks, and a newline. */
static void lb_flush(struct line_buf *b, FILE *f)
{
	while (b->n && b->s[b->n - 1] == ' ')
		b->n--;
	fwrite(b->s, 1, b->n, f);
	fputc('\n', f);
	b->n = 0;
}

static bool is_clock(const struct amb_stat_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_TASK_CLOCK || e->config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool counted(const struct amb_stat_line *l)
{
	return l->state != AMB_STAT_NOT_COUNTED && l->state != AMB_STAT_NOT_SUPPORTED;
}

static const char *state_text(const struct amb_stat_line *l)
{
	return l->state == AMB_STAT_NOT_SUPPORTED ? "<not supported>" : "<not counted>";
}

/* The count as perf prints it: clocks in msec, others as integers (exact
 * for a single run, the rounded mean for several). */
static void value_text(const struct amb_stat *st, const struct amb_stat_line *l, char *buf,
		       size_t len)
{
	if (!counted(l))
		snprintf(buf, len, "%s", state_text(l));
	else if (is_clock(amb_stat_event(st, l->event)))
		snprintf(buf, len, "%.2f", l->value / 1e6);
	else if (amb_stat_runs(st) <= 1)
		snprintf(buf, len, "%" PRIu64, amb_stat_scale(&l->sum));
	else
		snprintf(buf, len, "%.0f", l->value);
}

static const char *unit_of(const struct amb_stat *st, const struct amb_stat_line *l)
{
	return is_clock(amb_stat_event(st, l->event)) ? "msec" : "";
}

/* "comm-tid" of a thread unit. */
void amb_stat_value_text(const struct amb_stat *st, const struct amb_stat_line *l, char *buf,
			 size_t len)
{
	const char *unit = unit_of(st, l);

	value_text(st, l, buf, len);
	if (counted(l) && *unit) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " %s", unit);
	}
}

static void thread_name(const struct amb_stat *st, int64_t tid, char *buf, size_t len)
{
	const char *comm = tid >= 0 ? amb_stat_comm(st, (uint32_t)tid) : NULL;

	snprintf(buf, len, "%s-%" PRId64, comm ? comm : "?", tid);
}

static void interval_text(double t, char *buf, size_t len)
{
	uint64_t ns = t > 0 ? (uint64_t)(t * 1e9 + 0.5) : 0;

	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

static unsigned runs_of(const struct amb_stat *st)
{
	return amb_stat_runs(st) ? amb_stat_runs(st) : 1;
}

/* ---- text -------------------------------------------------------------------- */

static void text_prefix(const struct amb_stat *st, const struct amb_stat_line *l,
			const struct amb_stat_print_opts *po, struct line_buf *b, enum amb_stat_aggr aggr)
{
	char buf[128];

	if (po->interval) {
		interval_text(po->time_s, buf, sizeof(buf));
		lb_printf(b, "%16s ", buf);
	}
	switch (aggr) {
	case AMB_STAT_AGGR_CPU:
		if (l->unit < 0)
			lb_printf(b, "CPU%-7s ", "any");
		else
			lb_printf(b, "CPU%-7" PRId64 " ", l->unit);
		break;
	case AMB_STAT_AGGR_NODE:
		lb_printf(b, "N%-6" PRId64 " %4u ", l->unit, l->nr);
		break;
	case AMB_STAT_AGGR_THREAD:
		thread_name(st, l->unit, buf, sizeof(buf));
		lb_printf(b, "%25s ", buf);
		break;
	case AMB_STAT_AGGR_GLOBAL:
		break;
	}
}

static void text_line(const struct amb_stat *st, const struct amb_stat_line *l,
		      const struct amb_stat_print_opts *po, enum amb_stat_aggr aggr, FILE *f)
{
	struct line_buf b = { .n = 0 };
	char val[64];

	text_prefix(st, l, po, &b, aggr);
	value_text(st, l, val, sizeof(val));
	lb_printf(&b, "%18s %-4s %-32s", val, unit_of(st, l), amb_stat_event(st, l->event)->name);
	if (l->has_metric && l->metric_pct)
		lb_printf(&b, " # %7.2f%% %-23s", l->metric, l->metric_unit);
	else if (l->has_metric)
		lb_printf(&b, " # %8.3f %-23s", l->metric, l->metric_unit);
	else
		lb_printf(&b, "%35s", "");
	if (counted(l)) {
		if (amb_stat_runs(st) > 1)
			lb_printf(&b, "  ( +-%6.2f%% )", l->rsd);
		lb_printf(&b, "  (%6.2f%%)", l->share);
		if (l->state == AMB_STAT_UNRELIABLE)
			lb_printf(&b, "  <unreliable estimate>");
	}
	lb_flush(&b, f);
}

/* Digits after the point that show @sd's first two significant ones. */
static int precision_of(double sd)
{
	int p = sd > 0 ? (int)-floor(log10(sd)) + 2 : 3;

	return p < 3 ? 3 : p > 9 ? 9 : p;
}

static void text_footer(const struct amb_stat *st, const struct amb_stat_print_opts *po, FILE *f)
{
	double el = amb_stat_elapsed_ns(st) / 1e9;

	fputc('\n', f);
	if (amb_stat_runs(st) > 1) {
		double sd = amb_stat_elapsed_stddev_ns(st) / 1e9;
		int p = precision_of(sd);

		fprintf(f, "%18.*f +- %.*f seconds time elapsed  ( +-%6.2f%% )\n", p, el, p, sd,
			el > 0 ? 100.0 * sd / el : 0.0);
	} else {
		fprintf(f, "%18.9f seconds time elapsed\n", el);
		if (po->user_s >= 0 && po->sys_s >= 0)
			fprintf(f, "\n%18.9f seconds user\n%18.9f seconds sys\n", po->user_s, po->sys_s);
	}
	fputc('\n', f);
}

void amb_stat_print_interval_header(FILE *f, enum amb_stat_aggr aggr)
{
	switch (aggr) {
	case AMB_STAT_AGGR_CPU:
		fprintf(f, "#           time CPU                     counts unit events\n");
		break;
	case AMB_STAT_AGGR_NODE:
		fprintf(f, "#           time node  counters             counts unit events\n");
		break;
	case AMB_STAT_AGGR_THREAD:
		fprintf(f, "#           time                  comm-tid             counts unit events\n");
		break;
	case AMB_STAT_AGGR_GLOBAL:
		fprintf(f, "#           time             counts unit events\n");
		break;
	}
}

/* ---- CSV ---------------------------------------------------------------------- */

static void csv_line(const struct amb_stat *st, const struct amb_stat_line *l,
		     const struct amb_stat_print_opts *po, enum amb_stat_aggr aggr, FILE *f)
{
	const char *sep = po->sep && *po->sep ? po->sep : ",";
	struct line_buf b = { .n = 0 };
	char buf[128];

	if (po->interval) {
		interval_text(po->time_s, buf, sizeof(buf));
		lb_printf(&b, "%s%s", buf, sep);
	}
	switch (aggr) {
	case AMB_STAT_AGGR_CPU:
		if (l->unit < 0)
			lb_printf(&b, "CPUany%s", sep);
		else
			lb_printf(&b, "CPU%" PRId64 "%s", l->unit, sep);
		break;
	case AMB_STAT_AGGR_NODE:
		lb_printf(&b, "N%" PRId64 "%s%u%s", l->unit, sep, l->nr, sep);
		break;
	case AMB_STAT_AGGR_THREAD:
		thread_name(st, l->unit, buf, sizeof(buf));
		lb_printf(&b, "%s%s", buf, sep);
		break;
	case AMB_STAT_AGGR_GLOBAL:
		break;
	}
	value_text(st, l, buf, sizeof(buf));
	lb_printf(&b, "%s%s%s%s%s%s", buf, sep, unit_of(st, l), sep,
		  amb_stat_event(st, l->event)->name, sep);
	if (amb_stat_runs(st) > 1)
		lb_printf(&b, "%.2f%%%s", l->rsd, sep);
	lb_printf(&b, "%" PRIu64 "%s%.2f%s", l->sum.run / runs_of(st), sep, l->share, sep);
	if (l->has_metric)
		lb_printf(&b, l->metric_pct ? "%.2f%s%s%s" : "%.3f%s%s%s", l->metric, sep,
			  l->metric_unit, sep);
	else
		lb_printf(&b, "%s%s", sep, sep);
	lb_printf(&b, "%s", l->state == AMB_STAT_UNRELIABLE ? "unreliable" : "");
	fwrite(b.s, 1, b.n, f);
	fputc('\n', f);
}

/* ---- JSON --------------------------------------------------------------------- */

static void json_line(const struct amb_stat *st, const struct amb_stat_line *l,
		      const struct amb_stat_print_opts *po, enum amb_stat_aggr aggr, FILE *f)
{
	const struct amb_stat_event *e = amb_stat_event(st, l->event);
	char buf[128];

	fputc('{', f);
	if (po->interval) {
		interval_text(po->time_s, buf, sizeof(buf));
		fprintf(f, "\"interval\" : %s, ", buf);
	}
	switch (aggr) {
	case AMB_STAT_AGGR_CPU:
		fprintf(f, "\"cpu\" : \"%" PRId64 "\", ", l->unit);
		break;
	case AMB_STAT_AGGR_NODE:
		fprintf(f, "\"node\" : \"N%" PRId64 "\", \"aggregate-number\" : %u, ", l->unit, l->nr);
		break;
	case AMB_STAT_AGGR_THREAD:
		thread_name(st, l->unit, buf, sizeof(buf));
		fprintf(f, "\"thread\" : ");
		amb_json_str(f, buf);
		fprintf(f, ", ");
		break;
	case AMB_STAT_AGGR_GLOBAL:
		break;
	}
	if (!counted(l))
		fprintf(f, "\"counter-value\" : \"%s\", ", state_text(l));
	else if (is_clock(e))
		fprintf(f, "\"counter-value\" : \"%f\", ", l->value / 1e6);
	else if (amb_stat_runs(st) <= 1)
		fprintf(f, "\"counter-value\" : \"%" PRIu64 ".000000\", ", amb_stat_scale(&l->sum));
	else
		fprintf(f, "\"counter-value\" : \"%f\", ", l->value);
	fprintf(f, "\"unit\" : \"%s\", \"event\" : ", unit_of(st, l));
	amb_json_str(f, e->name);
	if (amb_stat_runs(st) > 1)
		fprintf(f, ", \"variance\" : %.2f", l->rsd);
	fprintf(f, ", \"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f, ",
		l->sum.run / runs_of(st), l->share);
	if (l->has_metric) {
		fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : ", l->metric);
		amb_json_str(f, l->metric_unit);
	} else {
		fprintf(f, "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"");
	}
	if (l->state == AMB_STAT_UNRELIABLE)
		fprintf(f, ", \"unreliable\" : true");
	fprintf(f, "}\n");
}

/* ---- the table ------------------------------------------------------------------ */

int amb_stat_print(const struct amb_stat *st, FILE *f, const struct amb_stat_print_opts *po)
{
	struct amb_stat_line *v;
	enum amb_stat_aggr aggr = amb_stat_aggr(st);
	size_t n;
	int err = amb_stat_lines(st, &v, &n);

	if (err)
		return err;
	if (po->format == AMB_STAT_TEXT && po->title) {
		fprintf(f, "\n Performance counter stats for %s", po->title);
		if (po->runs_asked > 1)
			fprintf(f, " (%u runs)", po->runs_asked);
		fprintf(f, ":\n\n");
	}
	for (size_t i = 0; i < n; i++) {
		switch (po->format) {
		case AMB_STAT_TEXT:
			text_line(st, &v[i], po, aggr, f);
			break;
		case AMB_STAT_CSV:
			csv_line(st, &v[i], po, aggr, f);
			break;
		case AMB_STAT_JSON:
			json_line(st, &v[i], po, aggr, f);
			break;
		}
	}
	if (po->format == AMB_STAT_TEXT && po->footer)
		text_footer(st, po, f);
	free(v);
	return ferror(f) ? -EIO : 0;
}

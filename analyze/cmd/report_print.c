// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/report_print.c - the output of `amber-analyze report`: the header,
 * each event's table sorted by overhead (self or children), the call graph
 * under each entry, and the same as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/report.h"
#include "analyze/cmd/report_memkeys.h"
#include "common/perf_stat.h"
#include "common/util.h"

static uint64_t entry_weight(const struct report *r, const struct hist_entry *e)
{
	return r->children ? e->children : e->period;
}

static const struct report *sort_ctx;

static int entry_cmp(const void *a, const void *b)
{
	const struct hist_entry *x = *(struct hist_entry *const *)a;
	const struct hist_entry *y = *(struct hist_entry *const *)b;
	uint64_t wx = entry_weight(sort_ctx, x), wy = entry_weight(sort_ctx, y);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->key, y->key);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* The @i-th value of @key into @buf, as it was recorded (for JSON). */
static const char *key_value(const char *key, size_t i, char *buf, size_t len)
{
	const char *p = key, *end;

	while (i--) {
		p = strchr(p, KEY_SEP);
		if (!p)
			return "";
		p++;
	}
	end = strchr(p, KEY_SEP);
	snprintf(buf, len, "%.*s", (int)(end ? end - p : (ptrdiff_t)strlen(p)), p);
	return buf;
}

/* The @i-th value of @key into @buf, escaped for text (common/util.h). */
static const char *key_text(const char *key, size_t i, char *buf, size_t len)
{
	char raw[4096];

	return amb_text_escape(buf, len, key_value(key, i, raw, sizeof(raw)));
}

/* The text entry @e shows for its @k-th key: as stored, but for the memory
 * keys that show a total (report_memkeys.c).  @escaped: for text output. */
static const char *entry_text(const struct report *r, const struct hist_entry *e, size_t k,
			      bool escaped, char *buf, size_t len)
{
	if (escaped)
		key_text(e->key, k, buf, len);
	else
		key_value(e->key, k, buf, len);
	if (r->keys[k].kind == SK_MEM)
		ana_report_memkey_show(&r->keys[k], e->samples, buf, len);
	return buf;
}

static int cg_cmp(const void *a, const void *b)
{
	const struct cg_node *x = *(struct cg_node *const *)a, *y = *(struct cg_node *const *)b;

	return x->period == y->period ? 0 : x->period > y->period ? -1 : 1;
}

/* Print the children of a node, perf's graph style, percentages of @total. */
static void cg_print(struct ana_out *o, struct cg_node *first, uint64_t total, double limit,
		     char *prefix, size_t plen, unsigned depth)
{
	struct cg_node *v[256], *n;
	size_t nr = 0, i;

	for (n = first; n && nr < AMB_ARRAY_SIZE(v); n = n->next)
		if (pct(n->period, total) >= limit)
			v[nr++] = n;
	qsort(v, nr, sizeof(*v), cg_cmp);
	for (i = 0; i < nr; i++) {
		bool last = i + 1 == nr;
		size_t add;

		n = v[i];
		if (nr == 1 && depth > 0) {
			/* A single path continues straight down. */
			ana_out_printf(o, "%.*s", (int)plen, prefix);
			ana_out_text(o, n->name);
			ana_out_char(o, '\n');
			add = 0;
		} else {
			char p[32];
			int w = snprintf(p, sizeof(p), "%.2f%%", pct(n->period, total));

			ana_out_printf(o, "%.*s%s--%s--", (int)plen, prefix, last ? " " : "|", p);
			ana_out_text(o, n->name);
			ana_out_char(o, '\n');
			add = (size_t)w + 5;
		}
		if (plen + add + 2 < 1024 && depth < 200) {
			if (add) {
				memset(prefix + plen, ' ', add);
				prefix[plen] = last ? ' ' : '|';
			}
			cg_print(o, n->child, total, limit, prefix, plen + add, depth + 1);
		}
		if (add && !last)
			ana_out_printf(o, "%.*s|\n", (int)plen, prefix);
	}
}

static void print_callgraph(struct report *r, struct ana_out *o, struct hist_entry *e,
			    uint64_t total)
{
	char prefix[1024];

	memset(prefix, ' ', 12);
	ana_out_printf(o, "            |\n");
	if (e->cg && !e->cg->next && pct(e->cg->period, total) >= r->cg_limit) {
		/* The entry's own frame heads the graph, as perf's "---name". */
		ana_out_printf(o, "            ---");
		ana_out_text(o, e->cg->name);
		ana_out_char(o, '\n');
		memset(prefix, ' ', 15);
		cg_print(o, e->cg->child, total, r->cg_limit, prefix, 15, 1);
	} else {
		cg_print(o, e->cg, total, r->cg_limit, prefix, 12, 0);
	}
	ana_out_printf(o, "\n");
}

/* The recording's stored counts (FORMAT.md §5.4), summed per event as
 * amber-analyze stat sums them: ", NAME VALUE (SHARE% running)" or JSON
 * objects. */
static void print_counts(struct report *r, struct ana_out *o)
{
	struct amb_stat_line *v = NULL;
	struct amb_stat *st;
	size_t n = 0;

	if (ana_counts_totals(r->s, AMB_STAT_AGGR_GLOBAL, &st))
		st = NULL;
	if (st && amb_stat_lines(st, &v, &n))
		n = 0;
	if (r->json)
		ana_out_printf(o, ",\"counts\":[");
	else if (n)
		ana_out_printf(o, "# counts:");
	for (size_t i = 0; i < n; i++) {
		const char *name = amb_stat_event(st, v[i].event)->name;
		bool counted = v[i].state != AMB_STAT_NOT_COUNTED &&
			       v[i].state != AMB_STAT_NOT_SUPPORTED;
		char val[64];

		if (r->json) {
			ana_out_printf(o, "%s{\"event\":", i ? "," : "");
			ana_out_json(o, name);
			ana_out_printf(o, ",\"count\":%.0f,\"enabled_ns\":%" PRIu64 ",\"running_ns\":%"
				       PRIu64 "}", v[i].value, v[i].sum.ena, v[i].sum.run);
			continue;
		}
		amb_stat_value_text(st, &v[i], val, sizeof(val));
		ana_out_printf(o, "%s %s %s", i ? "," : "", name, val);
		if (counted)
			ana_out_printf(o, " (%.2f%% running%s)", v[i].share,
				       v[i].state == AMB_STAT_UNRELIABLE ? ", unreliable" : "");
	}
	if (r->json)
		ana_out_printf(o, "]");
	else if (n)
		ana_out_printf(o, "\n");
	free(v);
	amb_stat_free(st);
}

void ana_report_print_header(struct report *r, struct ana_out *o)
{
	struct ana_session_stats st;
	const char *v;
	uint64_t lost;
	size_t i;

	ana_session_get_stats(r->s, &st);
	lost = st.lost_samples + st.lost;
	if (r->json) {
		ana_out_printf(o, "{\"header\":{");
		ana_out_printf(o, "\"host\":");
		ana_out_json(o, (v = ana_session_meta(r->s, "hostname")) ? v : "");
		ana_out_printf(o, ",\"kernel\":");
		ana_out_json(o, (v = ana_session_meta(r->s, "uname.release")) ? v : "");
		ana_out_printf(o, ",\"command\":");
		ana_out_json(o, (v = ana_session_meta(r->s, "cmdline")) ? v : "");
		ana_out_printf(o, ",\"duration_s\":%.6f,\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
			       ",\"filtered\":%" PRIu64 "}",
			       st.last_time > st.first_time ?
				       (double)(st.last_time - st.first_time) / 1e9 : 0.0,
			       st.samples, lost, r->filtered);
		print_counts(r, o);
		return;
	}
	ana_out_printf(o, "# ========\n# host: ");
	ana_out_text(o, (v = ana_session_meta(r->s, "hostname")) ? v : "?");
	ana_out_printf(o, "\n# kernel: ");
	ana_out_text(o, (v = ana_session_meta(r->s, "uname.release")) ? v : "?");
	ana_out_printf(o, "\n# command: ");
	ana_out_text(o, (v = ana_session_meta(r->s, "cmdline")) ? v : "?");
	ana_out_char(o, '\n');
	ana_out_printf(o, "# duration: %.3f s\n",
		       st.last_time > st.first_time ? (double)(st.last_time - st.first_time) / 1e9 : 0.0);
	ana_out_printf(o, "# samples: %" PRIu64 ", lost: %" PRIu64 " (%.2f%%)\n", st.samples, lost,
		       pct(lost, st.samples + lost));
	ana_out_printf(o, "# events:");
	for (i = 0; i < ana_session_event_count(r->s); i++) {
		ana_out_str(o, i ? ", " : " ");
		ana_out_text(o, ana_session_event(r->s, i)->name);
	}
	ana_out_printf(o, "\n");
	print_counts(r, o);
	ana_out_printf(o, "# ========\n#\n");
}

void ana_report_print_hist(struct report *r, struct ana_out *o, struct hist *h, bool *first_json)
{
	struct hist_entry **v;
	size_t nr = 0, i, k, width[16] = { 0 };
	uint64_t total = h->period;
	char buf[4096];

	if (!h->samples)
		return;
	v = malloc(h->nr * sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < h->nr; i++) {
		struct hist_entry *e = h->entries[i];

		if (pct(entry_weight(r, e), total) >= r->percent_limit && entry_weight(r, e))
			v[nr++] = e;
	}
	sort_ctx = r;
	qsort(v, nr, sizeof(*v), entry_cmp);
	if (r->json) {
		ana_out_printf(o, "%s{\"event\":", *first_json ? "" : ",");
		*first_json = false;
		ana_out_json(o, h->evt ? h->evt->name : "[unknown]");
		ana_out_printf(o, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"entries\":[",
			       h->samples, h->period);
		for (i = 0; i < nr; i++) {
			ana_out_printf(o, "%s{\"overhead\":%.4f,", i ? "," : "",
				       pct(entry_weight(r, v[i]), total));
			if (r->children)
				ana_out_printf(o, "\"self\":%.4f,", pct(v[i]->period, total));
			ana_out_printf(o, "\"samples\":%" PRIu64 ",\"period\":%" PRIu64, v[i]->samples,
				       v[i]->period);
			for (k = 0; k < r->nr_keys; k++) {
				ana_out_printf(o, ",");
				ana_out_json(o, r->keys[k].kind == SK_FIELD ? r->keys[k].name :
						r->keys[k].kind == SK_MEM ? ana_report_memkey_opt(&r->keys[k]) :
						ana_report_sort_names[r->keys[k].kind].opt);
				ana_out_printf(o, ":");
				ana_out_json(o, entry_text(r, v[i], k, false, buf, sizeof(buf)));
			}
			ana_out_printf(o, "}");
		}
		ana_out_printf(o, "]}");
		free(v);
		return;
	}
	for (k = 0; k < r->nr_keys; k++) {
		width[k] = strlen(amb_text_escape(buf, sizeof(buf), r->keys[k].name));
		for (i = 0; i < nr && i < 10000; i++)
			width[k] = AMB_MAX(width[k], strlen(entry_text(r, v[i], k, true, buf, sizeof(buf))));
		width[k] = AMB_MIN(width[k], 60);
	}
	ana_out_printf(o, "# Samples: %" PRIu64 " of event '", h->samples);
	ana_out_text(o, h->evt ? h->evt->name : "[unknown]");
	ana_out_printf(o, "'\n# Event count (approx.): %" PRIu64 "\n#\n", h->period);
	ana_out_printf(o, "# %s", r->children ? "Children      Self" : "Overhead");
	ana_out_printf(o, "  %10s  %14s", "Samples", "Period");
	for (k = 0; k < r->nr_keys; k++)
		ana_out_printf(o, "  %-*s", k + 1 < r->nr_keys ? (int)width[k] : 0,
			       amb_text_escape(buf, sizeof(buf), r->keys[k].name));
	ana_out_printf(o, "\n# %s  %10s  %14s", r->children ? "........  ........" : "........",
		       "..........", "..............");
	for (k = 0; k < r->nr_keys; k++) {
		memset(buf, '.', width[k]);
		buf[width[k]] = '\0';
		ana_out_printf(o, "  %s", buf);
	}
	ana_out_printf(o, "\n#\n");
	for (i = 0; i < nr; i++) {
		if (r->children)
			ana_out_printf(o, "  %7.2f%%  %7.2f%%", pct(v[i]->children, total),
				       pct(v[i]->period, total));
		else
			ana_out_printf(o, "  %7.2f%%", pct(v[i]->period, total));
		ana_out_printf(o, "  %10" PRIu64 "  %14" PRIu64, v[i]->samples, v[i]->period);
		for (k = 0; k < r->nr_keys; k++) {
			entry_text(r, v[i], k, true, buf, sizeof(buf));
			if (k + 1 < r->nr_keys)
				ana_out_printf(o, "  %-*.*s", (int)width[k], (int)width[k], buf);
			else
				ana_out_printf(o, "  %s", buf);
		}
		ana_out_printf(o, "\n");
		if (r->callgraph && v[i]->cg)
			print_callgraph(r, o, v[i], total);
	}
	ana_out_printf(o, "\n");
	free(v);
}

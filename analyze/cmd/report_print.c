// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/report_print.c - the output of `amber-analyze report`: the header,
 * each event's table sorted by overhead (self or children), the call graph
 * under each entry, and the same as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	/*
	 * perf's --children with call graphs: of two entries of one thread
	 * with equal children, the caller comes first, the one whose graph
	 * is deeper in caller order (it goes down to the leaves), shallower
	 * in callee order (it goes up to the outermost caller).
	 */
	if (sort_ctx->children && sort_ctx->callgraph && x->tid == y->tid &&
	    x->cg_depth != y->cg_depth)
		return (x->cg_depth > y->cg_depth) == sort_ctx->caller ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->key, y->key);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/*
 * The @i-th value of @key: its first byte, with *@end past its last and
 * *@hidden at the mark of its hidden part (report.h), or *@end when it has
 * none.  NULL when @key has fewer values.
 */
static const char *key_span(const char *key, size_t i, const char **end, const char **hidden)
{
	const char *p = key;

	while (i--) {
		p = strchr(p, KEY_SEP);
		if (!p)
			return NULL;
		p++;
	}
	*end = strchr(p, KEY_SEP);
	if (!*end)
		*end = p + strlen(p);
	*hidden = memchr(p, KEY_HIDDEN, (size_t)(*end - p));
	if (!*hidden)
		*hidden = *end;
	return p;
}

/* The @i-th value of @key into @buf, as it was recorded (for JSON), its
 * hidden part left out. */
static const char *key_value(const char *key, size_t i, char *buf, size_t len)
{
	const char *end, *hidden, *p = key_span(key, i, &end, &hidden);

	if (!p)
		return "";
	snprintf(buf, len, "%.*s", (int)(hidden - p), p);
	return buf;
}

/* The ELF's name that the @i-th value of @key holds hidden into @buf, or
 * NULL when it holds none. */
static const char *key_hidden(const char *key, size_t i, char *buf, size_t len)
{
	const char *end, *hidden, *p = key_span(key, i, &end, &hidden);

	if (!p || hidden == end)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(end - hidden - 1), hidden + 1);
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

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return x->order == y->order ? 0 : x->order > y->order ? -1 : 1;
}

/*
 * Print the children of a node, perf's graph style, percentages of @total.
 * A child goes straight on below its parent, without a percentage, when
 * every path through the parent goes on to it (perf keeps such frames in
 * one node); else it is a branch "--N%--", after a "|" line, as perf draws
 * a node's children.  @depth 0: the entry's own branches, under the
 * "|" line print_callgraph() drew.
 */
static void cg_print(struct ana_out *o, struct cg_node *first, uint64_t total, double limit,
		     char *prefix, size_t plen, unsigned depth)
{
	struct cg_node *v[256], *n;
	size_t nr = 0, nr_all = 0, i;

	for (n = first; n; n = n->next) {
		nr_all++;
		if (pct(n->period, total) >= limit && nr < AMB_ARRAY_SIZE(v))
			v[nr++] = n;
	}
	qsort(v, nr, sizeof(*v), cg_cmp);
	for (i = 0; i < nr; i++) {
		bool last = i + 1 == nr;
		size_t add;

		n = v[i];
		if (depth > 0 && nr_all == 1 && n->parent && n->period == n->parent->period) {
			ana_out_printf(o, "%.*s", (int)plen, prefix);
			ana_out_text(o, n->name);
			ana_out_char(o, '\n');
			add = 0;
		} else {
			if (i == 0 && depth > 0)
				ana_out_printf(o, "%.*s|\n", (int)plen, prefix);
			ana_out_printf(o, "%.*s%s--%.2f%%--", (int)plen, prefix, last ? " " : "|",
				       pct(n->period, total));
			ana_out_text(o, n->name);
			ana_out_char(o, '\n');
			/* What follows lines up 11 columns on, as perf's, whatever
			 * the width of the percentage. */
			add = 11;
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

/* How many of the nodes from @first on reach @limit; the last into *@shown. */
static size_t cg_shown(struct cg_node *first, uint64_t total, double limit,
		       struct cg_node **shown)
{
	size_t nr = 0;

	for (; first; first = first->next) {
		if (pct(first->period, total) >= limit) {
			*shown = first;
			nr++;
		}
	}
	return nr;
}

/*
 * The call graph under entry @e, as perf's: when one path leaves the top
 * with all of the entry's period, it is drawn "---name" without a
 * percentage; else each path from the top is a branch.  A graph with
 * nothing over the limit is left out whole.
 */
static void print_callgraph(struct report *r, struct ana_out *o, struct hist_entry *e,
			    uint64_t total)
{
	struct cg_node *shown = NULL, *n;
	size_t nr = cg_shown(e->cg, total, r->cg_limit, &shown);
	bool one = nr == 1 && shown->period == (r->children ? e->children : e->period);
	char prefix[1024];

	if (!nr)
		return;
	memset(prefix, ' ', sizeof(prefix));
	if (one && r->sort && !r->fields && !strncmp(r->sort, "sym", 3)) {
		/*
		 * perf's --sort sym... (without -F) leaves out that first
		 * frame, the entry's own symbol: the path goes on from the
		 * frame that always follows it, or branches at once, or, if
		 * nothing follows over the limit, there is no graph.
		 */
		n = shown->child;
		if (!n || n->next || n->period != shown->period) {
			if (!cg_shown(n, total, r->cg_limit, &shown))
				return;
			ana_out_printf(o, "            |\n");
			cg_print(o, n, total, r->cg_limit, prefix, 12, 0);
			ana_out_printf(o, "\n");
			return;
		}
		shown = n;
	}
	ana_out_printf(o, "            |\n");
	if (one) {
		ana_out_printf(o, "            ---");
		ana_out_text(o, shown->name);
		ana_out_char(o, '\n');
		cg_print(o, shown->child, total, r->cg_limit, prefix, 15, 1);
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

/* "# KEY : VALUE" for META @key, when recorded. */
static void header_meta(struct report *r, struct ana_out *o, const char *label, const char *key)
{
	const char *v = ana_session_meta(r->s, key);

	if (!v)
		return;
	ana_out_printf(o, "# %s : ", label);
	ana_out_text(o, v);
	ana_out_char(o, '\n');
}

/* "# LINE" for each line of @b. */
static void header_lines(struct ana_out *o, const struct amb_buf *b)
{
	const char *p = (const char *)b->data, *end = p ? p + b->len : p;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		ana_out_str(o, "# ");
		ana_out_text(o, line);
		ana_out_char(o, '\n');
		p += n + 1;
	}
}

/* --header: what perf report --header shows, from the recording's META,
 * EVENT_ATTR and TOPOLOGY blocks. */
static void print_full_header(struct report *r, struct ana_out *o)
{
	const struct amb_file_header *fh = amb_reader_header(ana_session_reader(r->s));
	struct amb_buf b = AMB_BUF_INIT;
	time_t secs = (time_t)(fh->created_ns / 1000000000u);
	struct tm tm;
	char when[64] = "?";

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y UTC", &tm);
	ana_out_printf(o, "# ========\n# captured on : %s\n", when);
	header_meta(r, o, "hostname", "hostname");
	header_meta(r, o, "os release", "uname.release");
	header_meta(r, o, "amber version", "amber.version");
	header_meta(r, o, "perf version", "perf.version");
	header_meta(r, o, "arch", "uname.machine");
	header_meta(r, o, "nrcpus online", "cpus.online");
	header_meta(r, o, "cpudesc", "cpu.model");
	header_meta(r, o, "cpuid", "cpu.cpuid");
	header_meta(r, o, "cmdline", "cmdline");
	header_meta(r, o, "target", "target");
	for (size_t i = 0; i < ana_session_event_count(r->s); i++) {
		const struct ana_event *e = ana_session_event(r->s, i);

		b.len = 0;
		ana_out_str(o, "# event : name = ");
		ana_out_text(o, e->name);
		ana_out_printf(o, ", type = %u, config = 0x%llx, %s = %llu, sample_type = ",
			       e->attr.type, (unsigned long long)e->attr.config,
			       e->attr.freq ? "sample_freq" : "sample_period",
			       (unsigned long long)e->attr.sample_period);
		if (!ana_describe_sample_type(e->attr.sample_type, &b))
			ana_out_write(o, (const char *)b.data, b.len);
		ana_out_printf(o, ", ids = %u\n", e->nr_ids);
	}
	b.len = 0;
	if (ana_describe_topology(r->s, &b) > 0)
		header_lines(o, &b);
	header_meta(r, o, "clock", "clock");
	header_meta(r, o, "lost records", "lost.records");
	header_meta(r, o, "lost samples", "lost.samples");
	amb_buf_free(&b);
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
	if (r->header)
		print_full_header(r, o);
	else
		ana_out_printf(o, "# ========\n");
	ana_out_printf(o, "# host: ");
	ana_out_text(o, (v = ana_session_meta(r->s, "hostname")) ? v : "?");
	ana_out_printf(o, "\n# kernel: ");
	ana_out_text(o, (v = ana_session_meta(r->s, "uname.release")) ? v : "?");
	ana_out_printf(o, "\n# command: ");
	ana_out_text(o, (v = ana_session_meta(r->s, "cmdline")) ? v : "?");
	ana_out_char(o, '\n');
	/* --header-only reads no sample: the counts come from a run. */
	if (!r->header_only) {
		ana_out_printf(o, "# duration: %.3f s\n", st.last_time > st.first_time ?
			       (double)(st.last_time - st.first_time) / 1e9 : 0.0);
		ana_out_printf(o, "# samples: %" PRIu64 ", lost: %" PRIu64 " (%.2f%%)\n",
			       st.samples, lost, pct(lost, st.samples + lost));
	}
	ana_out_printf(o, "# events:");
	for (i = 0; i < ana_session_event_count(r->s); i++) {
		ana_out_str(o, i ? ", " : " ");
		ana_out_text(o, ana_session_event(r->s, i)->name);
	}
	ana_out_printf(o, "\n");
	print_counts(r, o);
	ana_out_printf(o, "# ========\n#\n");
}

/* The weight an entry is sorted and limited by. */
static uint64_t shown_weight(const struct report *r, const struct hist_entry *e)
{
	return entry_weight(r, e);
}

/* The value of key @k of @e for JSON: the symbol without perf's "[.] ",
 * with its ELF name as "mangled" when it shows another. */
static void json_key(struct report *r, struct ana_out *o, const struct hist_entry *e, size_t k,
		     char *buf, size_t len)
{
	const char *v = entry_text(r, e, k, false, buf, len);
	char mangled[4096];

	ana_out_printf(o, ",");
	ana_out_json(o, r->keys[k].kind == SK_FIELD ? r->keys[k].name :
			r->keys[k].kind == SK_MEM ? ana_report_memkey_opt(&r->keys[k]) :
			ana_report_sort_names[r->keys[k].kind].opt);
	ana_out_printf(o, ":");
	if (r->keys[k].kind == SK_SYM && strlen(v) >= 4 && v[0] == '[' && v[2] == ']') {
		ana_out_json(o, v + 4);
		if (key_hidden(e->key, k, mangled, sizeof(mangled))) {
			ana_out_printf(o, ",\"mangled\":");
			ana_out_json(o, mangled);
		}
		ana_out_printf(o, ",\"kernel\":%s", v[1] == 'k' ? "true" : "false");
	} else if (r->keys[k].kind == SK_SYM_SIZE) {
		ana_out_printf(o, "%s", v);
	} else {
		ana_out_json(o, v);
	}
}

static void print_json(struct report *r, struct ana_out *o, struct hist *h,
		       struct hist_entry **v, size_t nr, bool *first_json)
{
	char buf[4096];

	ana_out_printf(o, "%s{\"event\":", *first_json ? "" : ",");
	*first_json = false;
	ana_out_json(o, h->evt ? h->evt->name : "[unknown]");
	ana_out_printf(o, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"total_samples\":%"
		       PRIu64 ",\"total_period\":%" PRIu64 ",\"entries\":[", h->samples, h->period,
		       h->total_samples, h->total);
	for (size_t i = 0; i < nr; i++) {
		ana_out_printf(o, "%s{\"overhead\":%.4f,", i ? "," : "",
			       pct(entry_weight(r, v[i]), h->total));
		if (r->children)
			ana_out_printf(o, "\"self\":%.4f,", pct(v[i]->period, h->total));
		ana_out_printf(o, "\"samples\":%" PRIu64 ",\"period\":%" PRIu64, v[i]->samples,
			       v[i]->period);
		for (size_t k = 0; k < r->nr_keys; k++)
			json_key(r, o, v[i], k, buf, sizeof(buf));
		ana_out_printf(o, "}");
	}
	ana_out_printf(o, "]}");
}

/* ---- --hierarchy ---------------------------------------------------------- */

/* The length of the first @level + 1 values of @key, separators included. */
static size_t key_prefix(const char *key, size_t level)
{
	const char *p = key;

	for (size_t i = 0; i <= level; i++) {
		const char *sep = strchr(p, KEY_SEP);

		if (!sep)
			return strlen(key);
		p = sep + 1;
	}
	return (size_t)(p - key);
}

static void hier_free(struct hier_node *n)
{
	while (n) {
		struct hier_node *next = n->next;

		hier_free(n->child);
		free(n);
		n = next;
	}
}

/* Add @e under *@list at @level and below. */
static int hier_add(struct hier_node **list, const struct hist_entry *e, size_t level,
		    size_t nr_keys)
{
	for (; level < nr_keys; level++) {
		size_t len = key_prefix(e->key, level);
		struct hier_node *n;

		for (n = *list; n && !(n->len == len && !memcmp(n->key, e->key, len)); n = n->next)
			;
		if (!n) {
			n = calloc(1, sizeof(*n));
			if (!n)
				return -ENOMEM;
			n->key = e->key;
			n->len = len;
			n->next = *list;
			*list = n;
		}
		n->period += e->period;
		n->samples += e->samples;
		n->weight += e->period;
		list = &n->child;
	}
	return 0;
}

static int hier_cmp(const void *a, const void *b)
{
	const struct hier_node *x = *(struct hier_node *const *)a, *y = *(struct hier_node *const *)b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->key, y->key) < 0 ? -1 : 1;
}

/* Print @list at @level, heaviest first, perf's --hierarchy layout. */
static void hier_print(struct report *r, struct ana_out *o, struct hist *h, struct hier_node *list,
		       size_t level)
{
	struct hier_node **v, *n;
	size_t nr = 0, i;
	char buf[4096];

	for (n = list; n; n = n->next)
		nr++;
	v = malloc((nr ? nr : 1) * sizeof(*v));
	if (!v)
		return;
	for (nr = 0, n = list; n; n = n->next)
		v[nr++] = n;
	qsort(v, nr, sizeof(*v), hier_cmp);
	for (i = 0; i < nr; i++) {
		n = v[i];
		if (pct(n->weight, h->total) < r->percent_limit)
			continue;
		ana_out_printf(o, "%*s%9.2f%%        ", (int)(3 * level), "", pct(n->weight, h->total));
		ana_out_str(o, key_text(n->key, level, buf, sizeof(buf)));
		ana_out_char(o, '\n');
		hier_print(r, o, h, n->child, level + 1);
	}
	free(v);
}

static void print_hierarchy(struct report *r, struct ana_out *o, struct hist *h,
			    struct hist_entry **v, size_t nr)
{
	struct hier_node *root = NULL;
	char buf[4096];
	size_t i, k;

	for (i = 0; i < nr; i++)
		if (hier_add(&root, v[i], 0, r->nr_keys))
			break;
	/* perf's layout: each level indented by three more columns. */
	ana_out_printf(o, "#       Overhead  ");
	for (k = 0; k < r->nr_keys; k++)
		ana_out_printf(o, "%s%s", k ? " / " : "",
			       amb_text_escape(buf, sizeof(buf), r->keys[k].name));
	ana_out_printf(o, "\n# ..............  ........................................\n#\n");
	if (i == nr)
		hier_print(r, o, h, root, 0);
	hier_free(root);
	ana_out_printf(o, "\n");
}

/* ---- the table ------------------------------------------------------------- */

void ana_report_print_hist(struct report *r, struct ana_out *o, struct hist *h, bool *first_json)
{
	struct hist_entry **v;
	size_t nr = 0, i, k, col, width[16] = { 0 };
	uint64_t total = h->total;
	char buf[4096];

	if (!h->samples)
		return;
	v = malloc(h->nr * sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < h->nr; i++) {
		struct hist_entry *e = h->entries[i];

		if (pct(shown_weight(r, e), total) >= r->percent_limit && shown_weight(r, e))
			v[nr++] = e;
	}
	sort_ctx = r;
	qsort(v, nr, sizeof(*v), entry_cmp);
	if (r->json) {
		print_json(r, o, h, v, nr, first_json);
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
	ana_out_printf(o, "'");
	if (h->total_samples != h->samples)
		ana_out_printf(o, " (of %" PRIu64 "; shares are of all: --percentage relative "
			       "for shares of these)", h->total_samples);
	ana_out_printf(o, "\n# Event count (approx.): %" PRIu64 "\n#\n", h->period);
	if (r->hierarchy) {
		print_hierarchy(r, o, h, v, nr);
		free(v);
		return;
	}
	/* The columns perf calls overhead_children, overhead, sample, period,
	 * then the keys; "# " starts the header lines, two spaces every
	 * column of the rows. */
	col = 0;
	if (r->columns & COL_CHILDREN)
		ana_out_printf(o, "%s%8s", col++ ? "  " : "# ", "Children");
	if (r->columns & COL_OVERHEAD)
		ana_out_printf(o, "%s%8s", col++ ? "  " : "# ", r->children ? "Self" : "Overhead");
	if (r->columns & COL_SAMPLES)
		ana_out_printf(o, "%s%10s", col++ ? "  " : "# ", "Samples");
	if (r->columns & COL_PERIOD)
		ana_out_printf(o, "%s%14s", col++ ? "  " : "# ", "Period");
	for (k = 0; k < r->nr_keys; k++)
		ana_out_printf(o, "%s%-*s", col++ ? "  " : "# ", k + 1 < r->nr_keys ? (int)width[k] : 0,
			       amb_text_escape(buf, sizeof(buf), r->keys[k].name));
	col = 0;
	ana_out_char(o, '\n');
	if (r->columns & COL_CHILDREN)
		ana_out_printf(o, "%s........", col++ ? "  " : "# ");
	if (r->columns & COL_OVERHEAD)
		ana_out_printf(o, "%s........", col++ ? "  " : "# ");
	if (r->columns & COL_SAMPLES)
		ana_out_printf(o, "%s..........", col++ ? "  " : "# ");
	if (r->columns & COL_PERIOD)
		ana_out_printf(o, "%s..............", col++ ? "  " : "# ");
	for (k = 0; k < r->nr_keys; k++) {
		memset(buf, '.', width[k]);
		buf[width[k]] = '\0';
		ana_out_printf(o, "%s%s", col++ ? "  " : "# ", buf);
	}
	ana_out_printf(o, "\n#\n");
	for (i = 0; i < nr; i++) {
		if (r->columns & COL_CHILDREN)
			ana_out_printf(o, "  %7.2f%%", pct(v[i]->children, total));
		if (r->columns & COL_OVERHEAD)
			ana_out_printf(o, "  %7.2f%%", pct(v[i]->period, total));
		if (r->columns & COL_SAMPLES)
			ana_out_printf(o, "  %10" PRIu64, v[i]->samples);
		if (r->columns & COL_PERIOD)
			ana_out_printf(o, "  %14" PRIu64, v[i]->period);
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

/* ---- -T ---------------------------------------------------------------------- */

static int thread_cmp(const void *a, const void *b)
{
	const struct thread_total *x = *(struct thread_total *const *)a;
	const struct thread_total *y = *(struct thread_total *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void ana_report_print_threads(struct report *r, struct ana_out *o)
{
	struct amb_hashmap_slot *slot;
	struct thread_total **v;
	size_t n = 0, i, e;
	bool first;

	amb_hashmap_for_each(&r->threads_map, slot)
		n++;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return;
	n = 0;
	amb_hashmap_for_each(&r->threads_map, slot)
		v[n++] = slot->value;
	qsort(v, n, sizeof(*v), thread_cmp);
	if (r->json) {
		ana_out_printf(o, ",\"threads\":[");
		for (i = 0; i < n; i++) {
			ana_out_printf(o, "%s{\"pid\":%u,\"tid\":%u,\"comm\":", i ? "," : "", v[i]->pid,
				       v[i]->tid);
			ana_out_json(o, v[i]->comm);
			ana_out_printf(o, ",\"period\":{");
			for (e = 0, first = true; e < r->nr_hists; e++) {
				if (!r->hists[e].samples)
					continue;
				if (!first)
					ana_out_char(o, ',');
				first = false;
				ana_out_json(o, r->hists[e].evt ? r->hists[e].evt->name : "[unknown]");
				ana_out_printf(o, ":%" PRIu64, v[i]->period[e]);
			}
			ana_out_printf(o, "}}");
		}
		ana_out_printf(o, "]");
		free(v);
		return;
	}
	/* perf report -T: a line per thread, a column per event. */
	ana_out_printf(o, "#\n# Threads: the period of their samples per event\n#\n#     PID      TID");
	for (e = 0; e < r->nr_hists; e++) {
		if (!r->hists[e].samples)
			continue;
		ana_out_str(o, "  ");
		ana_out_text_right(o, r->hists[e].evt ? r->hists[e].evt->name : "[unknown]", 16);
	}
	ana_out_printf(o, "  Command\n");
	for (i = 0; i < n; i++) {
		ana_out_printf(o, "  %7u  %7u", v[i]->pid, v[i]->tid);
		for (e = 0; e < r->nr_hists; e++)
			if (r->hists[e].samples)
				ana_out_printf(o, "  %16" PRIu64, v[i]->period[e]);
		ana_out_str(o, "  ");
		ana_out_text(o, v[i]->comm);
		ana_out_char(o, '\n');
	}
	free(v);
}

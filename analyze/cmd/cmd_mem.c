// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_mem.c - `amber-analyze mem`: the memory report a NUMA
 * tuner wants from a recording of data addresses (amber-rec -d, amber-rec
 * mem): per memory node, samples, share, weights (average and a high
 * percentile) and how many came from CPUs of the same node; which CPU
 * nodes accessed which memory nodes; the data source levels; and the data
 * objects most accessed, each with where it lives and the code that
 * touched it.
 *
 * Nodes come from the recording's topology only (resolve/hwtopo.h): the
 * node whose recorded physical range holds a sample's physical address,
 * "unknown" when it has none (the page was not there when sampled) or one
 * no range holds.  Percentiles are exact: the weights are kept as a count
 * per distinct value.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/cmd/cmd.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

#define DEFAULT_TOP   10u
#define DEFAULT_CODE  3u
#define DEFAULT_PCT   95.0

/* Samples and their weights. */
struct wstat {
	uint64_t samples;
	uint64_t weighted;           /* samples with a weight */
	uint64_t weight_sum;
	struct amb_hashmap counts;   /* weight -> number of samples (as a pointer) */
};

/* Code that touched an object: a symbol of a DSO (interned names). */
struct code {
	const char *sym, *dso;
	uint64_t samples;
};

struct object {
	const char *name, *dso;      /* interned */
	struct wstat w;
	uint64_t *nodes;             /* samples per memory node + 1 (0: unknown) */
	struct code **code;
	size_t nr_code, cap_code;
	struct amb_hashmap by_code;  /* (sym, dso) -> struct code */
};

struct level {
	const char *name;            /* interned */
	struct wstat w;
};

struct mem {
	/* options */
	unsigned top, code;
	double pct;
	bool json;
	struct ana_pipeline_opts opts;
	/* the recording */
	struct ana_pipeline *p;
	struct ana_session *s;
	struct ana_hwtopo *topo;
	bool have_addr, have_phys, have_src, have_weight;
	bool src_known;              /* some sample's data source says something */
	size_t nr_nodes;             /* of the topology; rows are +1 for unknown */
	/* totals */
	uint64_t samples, skipped;
	struct wstat *by_node;       /* [node + 1] */
	uint64_t (*locality)[3];     /* [node + 1]: local, remote, CPU node unknown */
	uint64_t *matrix;            /* [cpu node + 1][mem node + 1] */
	struct level **levels;
	size_t nr_levels, cap_levels;
	struct amb_hashmap by_level;
	struct object **objects;
	size_t nr_objects, cap_objects;
	struct amb_hashmap by_object;
	struct ana_intern strings;
	struct ana_progress progress;
	int err;
};

/* ---- weights ------------------------------------------------------------ */

static int wstat_add(struct wstat *w, bool has_weight, uint64_t weight)
{
	uint64_t h = amb_hash_u64(weight);
	uintptr_t n;

	w->samples++;
	if (!has_weight)
		return 0;
	w->weighted++;
	w->weight_sum += weight;
	n = (uintptr_t)amb_hashmap_find_u64(&w->counts, h, weight);
	return amb_hashmap_put_u64(&w->counts, h, weight, (void *)(n + 1), NULL);
}

static void wstat_free(struct wstat *w)
{
	amb_hashmap_free(&w->counts);
}

struct wcount {
	uint64_t weight, n;
};

static int wcount_cmp(const void *a, const void *b)
{
	const struct wcount *x = a, *y = b;

	return x->weight < y->weight ? -1 : x->weight > y->weight;
}

/* The @pct-th percentile of @w's weights by the nearest rank: the least
 * weight that at least @pct% of the weighted samples do not exceed. */
static uint64_t wstat_percentile(const struct wstat *w, double pct)
{
	struct amb_hashmap_slot *slot;
	struct wcount *v;
	uint64_t rank, seen = 0, res = 0;
	size_t n = 0;

	if (!w->weighted)
		return 0;
	v = malloc(amb_hashmap_count(&w->counts) * sizeof(*v));
	if (!v)
		return 0;
	amb_hashmap_for_each(&w->counts, slot)
		v[n++] = (struct wcount){ slot->key, (uintptr_t)slot->value };
	qsort(v, n, sizeof(*v), wcount_cmp);
	rank = (uint64_t)ceil(pct / 100.0 * (double)w->weighted);
	if (!rank)
		rank = 1;
	for (size_t i = 0; i < n; i++) {
		seen += v[i].n;
		res = v[i].weight;
		if (seen >= rank)
			break;
	}
	free(v);
	return res;
}

/* ---- tables ----------------------------------------------------------- */

static bool level_eq(uint64_t stored, const void *key)
{
	return ((const struct level *)(uintptr_t)stored)->name == key;
}

static struct level *level_get(struct mem *m, const char *text)
{
	const char *name = ana_intern(&m->strings, text);
	uint64_t h = amb_hash_u64((uintptr_t)name);
	struct level *l;

	if (!name)
		return NULL;
	l = amb_hashmap_find(&m->by_level, h, level_eq, name);
	if (l)
		return l;
	if (amb_ensure_cap((void **)&m->levels, &m->cap_levels, sizeof(*m->levels),
			   m->nr_levels + 1))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->name = name;
	if (amb_hashmap_add(&m->by_level, h, (uintptr_t)l, l)) {
		free(l);
		return NULL;
	}
	m->levels[m->nr_levels++] = l;
	return l;
}

/* A pair of interned names, looked up. */
struct pair {
	const char *a, *b;
};

static uint64_t pair_hash(const char *a, const char *b)
{
	uintptr_t k[2] = { (uintptr_t)a, (uintptr_t)b };

	return XXH3_64bits(k, sizeof(k));
}

static bool object_eq(uint64_t stored, const void *key)
{
	const struct object *o = (const struct object *)(uintptr_t)stored;
	const struct pair *p = key;

	return o->name == p->a && o->dso == p->b;
}

static bool code_eq(uint64_t stored, const void *key)
{
	const struct code *c = (const struct code *)(uintptr_t)stored;
	const struct pair *p = key;

	return c->sym == p->a && c->dso == p->b;
}

static struct object *object_get(struct mem *m, const char *name, const char *dso)
{
	struct pair k = { ana_intern(&m->strings, name), ana_intern(&m->strings, dso) };
	uint64_t h = pair_hash(k.a, k.b);
	struct object *o;

	if (!k.a || !k.b)
		return NULL;
	o = amb_hashmap_find(&m->by_object, h, object_eq, &k);
	if (o)
		return o;
	if (amb_ensure_cap((void **)&m->objects, &m->cap_objects, sizeof(*m->objects),
			   m->nr_objects + 1))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->name = k.a;
	o->dso = k.b;
	o->nodes = calloc(m->nr_nodes + 1, sizeof(*o->nodes));
	if (!o->nodes || amb_hashmap_add(&m->by_object, h, (uintptr_t)o, o)) {
		free(o->nodes);
		free(o);
		return NULL;
	}
	m->objects[m->nr_objects++] = o;
	return o;
}

static int object_code(struct mem *m, struct object *o, const char *sym, const char *dso)
{
	struct pair k = { ana_intern(&m->strings, sym), ana_intern(&m->strings, dso) };
	uint64_t h = pair_hash(k.a, k.b);
	struct code *c;

	if (!k.a || !k.b)
		return -ENOMEM;
	c = amb_hashmap_find(&o->by_code, h, code_eq, &k);
	if (!c) {
		if (amb_ensure_cap((void **)&o->code, &o->cap_code, sizeof(*o->code), o->nr_code + 1))
			return -ENOMEM;
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		c->sym = k.a;
		c->dso = k.b;
		if (amb_hashmap_add(&o->by_code, h, (uintptr_t)c, c)) {
			free(c);
			return -ENOMEM;
		}
		o->code[o->nr_code++] = c;
	}
	c->samples++;
	return 0;
}

/* ---- samples ------------------------------------------------------------ */

static bool has(const struct ana_sample *smp, uint64_t bits)
{
	return smp->evt && (smp->evt->attr.sample_type & bits);
}

static int process_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct mem *m = ctx;
	uint64_t weight = 0;
	bool weighted = ana_sample_weight(smp, &weight, NULL);
	int mem_node = -1, cpu_node = -1, err;

	if (!has(smp, PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC)) {
		m->skipped++;
		return 0;
	}
	m->samples++;
	if (m->have_phys) {
		if (has(smp, PERF_SAMPLE_PHYS_ADDR))
			mem_node = ana_hwtopo_node_of_phys(m->topo, smp->phys_addr);
		if (has(smp, PERF_SAMPLE_CPU))
			cpu_node = ana_hwtopo_node_of_cpu(m->topo, smp->cpu);
		if (mem_node >= (int)m->nr_nodes)
			mem_node = -1;
		if (cpu_node >= (int)m->nr_nodes)
			cpu_node = -1;
		err = wstat_add(&m->by_node[mem_node + 1], weighted, weight);
		if (err)
			return err;
		m->locality[mem_node + 1][cpu_node < 0 ? 2 : cpu_node != mem_node] += mem_node >= 0;
		m->matrix[(size_t)(cpu_node + 1) * (m->nr_nodes + 1) + (size_t)(mem_node + 1)]++;
	}
	{
		struct ana_datasrc d;
		struct level *l;
		char text[96];

		ana_datasrc_decode(smp->data_src, &d);
		m->src_known |= has(smp, PERF_SAMPLE_DATA_SRC) && ana_datasrc_known(smp->data_src);
		l = level_get(m, has(smp, PERF_SAMPLE_DATA_SRC) ?
				 ana_datasrc_level(&d, text, sizeof(text)) : "N/A");
		if (!l)
			return -ENOMEM;
		err = wstat_add(&l->w, weighted, weight);
		if (err)
			return err;
	}
	if (has(smp, PERF_SAMPLE_ADDR)) {
		struct ana_dobj obj;
		struct ana_loc loc;
		struct object *o;
		char name[256], sym[128];

		ana_dobj_resolve(ana_pipeline_dsos(m->p), t, smp->addr, &obj);
		o = object_get(m, ana_dobj_name(&obj, name, sizeof(name)), ana_dobj_dso_name(&obj));
		if (!o)
			return -ENOMEM;
		err = wstat_add(&o->w, weighted, weight);
		if (err)
			return err;
		o->nodes[mem_node + 1]++;
		ana_machine_resolve(ana_pipeline_machine(m->p), t, smp->cpumode, smp->ip, smp->ip, 0,
				    &loc);
		err = object_code(m, o, ana_loc_sym_name(&loc, sym, sizeof(sym)), ana_loc_dso_name(&loc));
		if (err)
			return err;
	}
	return 0;
}

/* ---- output ----------------------------------------------------------------- */

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static int object_cmp(const void *a, const void *b)
{
	const struct object *x = *(struct object *const *)a, *y = *(struct object *const *)b;
	int c;

	if (x->w.samples != y->w.samples)
		return x->w.samples > y->w.samples ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->dso, y->dso);
}

static int level_cmp(const void *a, const void *b)
{
	const struct level *x = *(struct level *const *)a, *y = *(struct level *const *)b;

	if (x->w.samples != y->w.samples)
		return x->w.samples > y->w.samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int code_cmp(const void *a, const void *b)
{
	const struct code *x = *(struct code *const *)a, *y = *(struct code *const *)b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = strcmp(x->sym, y->sym);
	return c ? c : strcmp(x->dso, y->dso);
}

/* "  123.4       567" or "-" columns: the average and percentile weight. */
static void text_weights(struct mem *m, struct ana_out *o, const struct wstat *w)
{
	if (!m->have_weight || !w->weighted) {
		ana_out_printf(o, "  %11s  %11s", "-", "-");
		return;
	}
	ana_out_printf(o, "  %11.1f  %11" PRIu64, (double)w->weight_sum / (double)w->weighted,
		       wstat_percentile(w, m->pct));
}

static void json_weights(struct mem *m, struct ana_out *o, const struct wstat *w)
{
	if (!m->have_weight || !w->weighted) {
		ana_out_printf(o, ",\"avg_weight\":null,\"pct_weight\":null");
		return;
	}
	ana_out_printf(o, ",\"avg_weight\":%.3f,\"pct_weight\":%" PRIu64,
		       (double)w->weight_sum / (double)w->weighted, wstat_percentile(w, m->pct));
}

static const char *node_label(int node, char *buf, size_t len)
{
	if (node < 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d", node);
	return buf;
}

static const char no_phys_note[] =
	"per-node attribution needs physical addresses: record with --phys-data "
	"(amber-rec -d --phys-data, or amber-rec mem -p)";

static void print_text(struct mem *m, struct ana_out *o, const char *path)
{
	char a[32], b[32], pct_head[24];
	size_t top = AMB_MIN((size_t)m->top, m->nr_objects);

	snprintf(pct_head, sizeof(pct_head), "p%g weight", m->pct);
	ana_out_printf(o, "# memory samples: %" PRIu64, m->samples);
	if (m->skipped)
		ana_out_printf(o, " (and %" PRIu64 " samples of events without data addresses)",
			       m->skipped);
	ana_out_printf(o, "\n# recorded: %s data addresses, %s physical addresses, %s, %s weights\n",
		       m->have_addr ? "with" : "no", m->have_phys ? "with" : "no",
		       !m->have_src ? "no data source" : m->src_known ? "with data source"
		       : "data source N/A (the event's PMU gives none)",
		       m->have_weight ? "with" : "no");
	ana_out_printf(o, "# machine: %zu NUMA node%s, %zu CPUs (as recorded)\n#\n",
		       m->nr_nodes, m->nr_nodes == 1 ? "" : "s", m->topo->nr_cpus);
	(void)path;
	if (!m->have_phys) {
		ana_out_printf(o, "# %s\n#\n", no_phys_note);
	} else {
		ana_out_printf(o, "# Per memory node: the node whose recorded physical range holds the "
			       "address\n#\n");
		ana_out_printf(o, "# %-8s %10s %8s %10s %10s %10s  %11s  %11s\n", "Node", "Samples",
			       "Share", "Local", "Remote", "CPU ?", "Avg weight", pct_head);
		for (size_t i = 1; i <= m->nr_nodes + 1; i++) {
			size_t n = i % (m->nr_nodes + 1);  /* the nodes, then unknown */
			const struct wstat *w = &m->by_node[n];

			if (!n && !w->samples)
				continue;
			ana_out_printf(o, "  %-8s %10" PRIu64 " %7.2f%%", node_label((int)n - 1, a, sizeof(a)),
				       w->samples, pct(w->samples, m->samples));
			if (n)
				ana_out_printf(o, " %10" PRIu64 " %10" PRIu64 " %10" PRIu64,
					       m->locality[n][0], m->locality[n][1], m->locality[n][2]);
			else
				ana_out_printf(o, " %10s %10s %10s", "-", "-", "-");
			text_weights(m, o, w);
			ana_out_char(o, '\n');
		}
		ana_out_printf(o, "#\n# Local: from a CPU of the same node; CPU ?: from a CPU of no "
			       "recorded node.  unknown:\n# no physical address (the page was not there "
			       "when sampled), or one in no\n# recorded range.\n#\n");
		ana_out_printf(o, "# Samples by CPU node (rows) and memory node (columns)\n#\n# %-8s",
			       "CPU node");
		for (size_t c = 1; c <= m->nr_nodes + 1; c++)
			ana_out_printf(o, " %10s", node_label((int)(c % (m->nr_nodes + 1)) - 1, a,
							     sizeof(a)));
		ana_out_char(o, '\n');
		for (size_t r = 1; r <= m->nr_nodes + 1; r++) {
			size_t rn = r % (m->nr_nodes + 1);
			uint64_t any = 0;

			for (size_t c = 0; c <= m->nr_nodes; c++)
				any |= m->matrix[rn * (m->nr_nodes + 1) + c];
			if (!rn && !any)
				continue;
			ana_out_printf(o, "  %-8s", node_label((int)rn - 1, b, sizeof(b)));
			for (size_t c = 1; c <= m->nr_nodes + 1; c++)
				ana_out_printf(o, " %10" PRIu64,
					       m->matrix[rn * (m->nr_nodes + 1) + c % (m->nr_nodes + 1)]);
			ana_out_char(o, '\n');
		}
		ana_out_printf(o, "#\n");
	}
	ana_out_printf(o, "# Per data source level\n#\n# %-32s %10s %8s  %11s  %11s\n", "Level",
		       "Samples", "Share", "Avg weight", pct_head);
	for (size_t i = 0; i < m->nr_levels; i++) {
		ana_out_printf(o, "  %-32s %10" PRIu64 " %7.2f%%", m->levels[i]->name,
			       m->levels[i]->w.samples, pct(m->levels[i]->w.samples, m->samples));
		text_weights(m, o, &m->levels[i]->w);
		ana_out_char(o, '\n');
	}
	ana_out_printf(o, "#\n# Top data objects, with the code that touched them\n#\n"
		       "# %10s %8s  ", "Samples", "Share");
	if (m->have_phys)
		ana_out_printf(o, "%-40s  Memory nodes\n", "Object (mapping)");
	else
		ana_out_printf(o, "Object (mapping)\n");
	for (size_t i = 0; i < top; i++) {
		const struct object *ob = m->objects[i];
		char what[512], esc[1024];

		/* Recorded names, escaped for text output (common/util.h). */
		snprintf(what, sizeof(what), "%s (%s)", ob->name, ob->dso);
		ana_out_printf(o, "  %10" PRIu64 " %7.2f%%  %-*s", ob->w.samples,
			       pct(ob->w.samples, m->samples), m->have_phys ? 40 : 0,
			       amb_text_escape(esc, sizeof(esc), what));
		if (m->have_phys) {
			const char *sep = "  ";

			for (size_t k = 1; k <= m->nr_nodes + 1; k++) {
				size_t nk = k % (m->nr_nodes + 1);

				if (!ob->nodes[nk])
					continue;
				ana_out_printf(o, "%s%s %.1f%%", sep, node_label((int)nk - 1, a, sizeof(a)),
					       pct(ob->nodes[nk], ob->w.samples));
				sep = ", ";
			}
		}
		ana_out_char(o, '\n');
		for (size_t k = 0; k < AMB_MIN((size_t)m->code, ob->nr_code); k++) {
			ana_out_printf(o, "  %10" PRIu64 " %7.2f%%      ", ob->code[k]->samples,
				       pct(ob->code[k]->samples, ob->w.samples));
			ana_out_text(o, ob->code[k]->sym);
			ana_out_str(o, " (");
			ana_out_text(o, ob->code[k]->dso);
			ana_out_str(o, ")\n");
		}
	}
	if (m->nr_objects > top)
		ana_out_printf(o, "#\n# %zu more objects (--top N shows more)\n", m->nr_objects - top);
}

static void print_json(struct mem *m, struct ana_out *o)
{
	size_t top = AMB_MIN((size_t)m->top, m->nr_objects);

	ana_out_printf(o, "{\"header\":{\"samples\":%" PRIu64 ",\"skipped\":%" PRIu64
		       ",\"data_addresses\":%s,\"physical_addresses\":%s,\"data_source\":%s,"
		       "\"weights\":%s,\"nodes\":%zu,\"cpus\":%zu,\"percentile\":%g}",
		       m->samples, m->skipped, m->have_addr ? "true" : "false",
		       m->have_phys ? "true" : "false", m->src_known ? "true" : "false",
		       m->have_weight ? "true" : "false", m->nr_nodes, m->topo->nr_cpus, m->pct);
	if (!m->have_phys) {
		ana_out_printf(o, ",\"nodes\":null,\"matrix\":null,\"note\":");
		ana_out_json(o, no_phys_note);
	} else {
		ana_out_printf(o, ",\"nodes\":[");
		for (size_t i = 1; i <= m->nr_nodes + 1; i++) {
			size_t n = i % (m->nr_nodes + 1);
			const struct wstat *w = &m->by_node[n];

			if (!n && !w->samples)
				continue;
			ana_out_printf(o, "%s{\"node\":", i > 1 ? "," : "");
			if (n)
				ana_out_printf(o, "%zu", n - 1);
			else
				ana_out_printf(o, "null");
			ana_out_printf(o, ",\"samples\":%" PRIu64 ",\"share\":%.4f", w->samples,
				       pct(w->samples, m->samples));
			if (n)
				ana_out_printf(o, ",\"local\":%" PRIu64 ",\"remote\":%" PRIu64
					       ",\"cpu_unknown\":%" PRIu64, m->locality[n][0],
					       m->locality[n][1], m->locality[n][2]);
			json_weights(m, o, w);
			ana_out_char(o, '}');
		}
		ana_out_printf(o, "],\"matrix\":[");
		for (size_t r = 0, first = 1; r <= m->nr_nodes; r++) {
			for (size_t c = 0; c <= m->nr_nodes; c++) {
				uint64_t v = m->matrix[r * (m->nr_nodes + 1) + c];

				if (!v)
					continue;
				ana_out_printf(o, "%s{\"cpu_node\":", first ? "" : ",");
				first = 0;
				if (r)
					ana_out_printf(o, "%zu", r - 1);
				else
					ana_out_printf(o, "null");
				ana_out_printf(o, ",\"mem_node\":");
				if (c)
					ana_out_printf(o, "%zu", c - 1);
				else
					ana_out_printf(o, "null");
				ana_out_printf(o, ",\"samples\":%" PRIu64 "}", v);
			}
		}
		ana_out_char(o, ']');
	}
	ana_out_printf(o, ",\"levels\":[");
	for (size_t i = 0; i < m->nr_levels; i++) {
		ana_out_printf(o, "%s{\"level\":", i ? "," : "");
		ana_out_json(o, m->levels[i]->name);
		ana_out_printf(o, ",\"samples\":%" PRIu64 ",\"share\":%.4f", m->levels[i]->w.samples,
			       pct(m->levels[i]->w.samples, m->samples));
		json_weights(m, o, &m->levels[i]->w);
		ana_out_char(o, '}');
	}
	ana_out_printf(o, "],\"objects\":[");
	for (size_t i = 0; i < top; i++) {
		const struct object *ob = m->objects[i];
		const char *sep = "";

		ana_out_printf(o, "%s{\"object\":", i ? "," : "");
		ana_out_json(o, ob->name);
		ana_out_printf(o, ",\"mapping\":");
		ana_out_json(o, ob->dso);
		ana_out_printf(o, ",\"samples\":%" PRIu64 ",\"share\":%.4f", ob->w.samples,
			       pct(ob->w.samples, m->samples));
		json_weights(m, o, &ob->w);
		if (m->have_phys) {
			ana_out_printf(o, ",\"nodes\":[");
			for (size_t k = 1; k <= m->nr_nodes + 1; k++) {
				size_t nk = k % (m->nr_nodes + 1);

				if (!ob->nodes[nk])
					continue;
				ana_out_printf(o, "%s{\"node\":", sep);
				sep = ",";
				if (nk)
					ana_out_printf(o, "%zu", nk - 1);
				else
					ana_out_printf(o, "null");
				ana_out_printf(o, ",\"samples\":%" PRIu64 "}", ob->nodes[nk]);
			}
			ana_out_char(o, ']');
		}
		ana_out_printf(o, ",\"code\":[");
		for (size_t k = 0; k < AMB_MIN((size_t)m->code, ob->nr_code); k++) {
			ana_out_printf(o, "%s{\"sym\":", k ? "," : "");
			ana_out_json(o, ob->code[k]->sym);
			ana_out_printf(o, ",\"dso\":");
			ana_out_json(o, ob->code[k]->dso);
			ana_out_printf(o, ",\"samples\":%" PRIu64 "}", ob->code[k]->samples);
		}
		ana_out_printf(o, "]}");
	}
	ana_out_printf(o, "]}\n");
}

/* ---- the command ------------------------------------------------------------ */

static const char usage[] =
"usage: amber-analyze mem [OPTIONS] [FILE]\n"
"\n"
"The memory accesses of a recording with data addresses (amber-rec -d, amber-rec\n"
"mem): per NUMA node of the memory (with --phys-data: samples, share, weights,\n"
"local and remote accesses), CPU node against memory node, per data source\n"
"level, and the most accessed data objects with the code that touched them.\n"
"Nodes are the recording's own (its topology), never this machine's.\n"
"\n"
"      --top N            data objects to show (default 10)\n"
"      --code N           code locations per object (default 3)\n"
"      --percentile P     the weight percentile shown beside the average (default 95)\n"
"      --json             JSON instead of text\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs\n"
"      --dso/--sym LIST   only samples whose ip is in these\n"
"      --time START,END   seconds from the first sample, or HH:MM:SS[.frac]\n"
"  -e, --event NAME       only this event\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --no-demangle      C++ and Rust symbols as the ELF spells them\n"
"  -j, --jobs N           N threads: main + N-1 decoding (default: one per CPU)\n";

enum { O_TOP = 256, O_CODE, O_PCT, O_JSON };

static int parse_count(const char *arg, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (end == arg || *end || *arg == '-' || v > 1000000)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int mem_option(void *ctx, int c, const char *arg)
{
	struct mem *m = ctx;
	char *end;

	switch (c) {
	case O_TOP: return parse_count(arg, &m->top);
	case O_CODE: return parse_count(arg, &m->code);
	case O_PCT:
		m->pct = strtod(arg, &end);
		return end == arg || *end || !(m->pct > 0) || m->pct > 100 ? -EINVAL : 0;
	case O_JSON: m->json = true; return 0;
	default: return 1;
	}
}

/* What the events of the recording (or the one -e names) record. */
static void scan_events(struct mem *m)
{
	for (size_t i = 0; i < ana_session_event_count(m->s); i++) {
		const struct ana_event *e = ana_session_event(m->s, i);
		uint64_t st = e->attr.sample_type;

		if (m->opts.event && strcmp(e->name, m->opts.event))
			continue;
		m->have_addr |= !!(st & PERF_SAMPLE_ADDR);
		m->have_phys |= !!(st & PERF_SAMPLE_PHYS_ADDR);
		m->have_src |= !!(st & PERF_SAMPLE_DATA_SRC);
		m->have_weight |= !!(st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
	}
}

static int prepare(struct mem *m, const char *path)
{
	size_t n;

	if (ana_hwtopo_load(m->s, &m->topo))
		return -ENOMEM;
	if (m->topo->bad_keys)
		amb_warn("%s: %zu TOPOLOGY values do not parse and are left out", path,
			 m->topo->bad_keys);
	m->nr_nodes = m->topo->nr_nodes;
	if (m->have_phys && !ana_hwtopo_has_ranges(m->topo))
		amb_warn("%s records no physical ranges of its NUMA nodes (TOPOLOGY node.N.ranges): "
			 "every address's node is unknown", path);
	n = m->nr_nodes + 1;
	m->by_node = calloc(n, sizeof(*m->by_node));
	m->locality = calloc(n, sizeof(*m->locality));
	m->matrix = calloc(n * n, sizeof(*m->matrix));
	return m->by_node && m->locality && m->matrix ? 0 : -ENOMEM;
}

static void tick(void *ctx, uint64_t records)
{
	ana_progress_show(ctx, records);
}

static void mem_free(struct mem *m)
{
	for (size_t i = 0; m->by_node && i <= m->nr_nodes; i++)
		wstat_free(&m->by_node[i]);
	free(m->by_node);
	free(m->locality);
	free(m->matrix);
	for (size_t i = 0; i < m->nr_levels; i++) {
		wstat_free(&m->levels[i]->w);
		free(m->levels[i]);
	}
	free(m->levels);
	amb_hashmap_free(&m->by_level);
	for (size_t i = 0; i < m->nr_objects; i++) {
		struct object *o = m->objects[i];

		for (size_t k = 0; k < o->nr_code; k++)
			free(o->code[k]);
		free(o->code);
		amb_hashmap_free(&o->by_code);
		wstat_free(&o->w);
		free(o->nodes);
		free(o);
	}
	free(m->objects);
	amb_hashmap_free(&m->by_object);
	ana_intern_free(&m->strings);
	ana_hwtopo_free(m->topo);
	ana_pipeline_close(m->p);
	ana_pipeline_opts_free(&m->opts);
}

int ana_cmd_mem(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, O_TOP },
		{ "code", required_argument, NULL, O_CODE },
		{ "percentile", required_argument, NULL, O_PCT },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "mem", usage, "", opts, 1, 1, true };
	struct mem m = { .top = DEFAULT_TOP, .code = DEFAULT_CODE, .pct = DEFAULT_PCT };
	const char *path = NULL;
	struct ana_out out;
	int err, rc;

	ana_pipeline_opts_init(&m.opts);
	rc = ana_cmd_parse(&desc, argc, argv, &m.opts, mem_option, &m, &path);
	if (rc != ANA_CMD_GO_ON)
		goto out;
	rc = 1;
	if (ana_cmd_open("mem", path, &m.opts, &m.p))
		goto out;
	m.s = ana_pipeline_session(m.p);
	scan_events(&m);
	if (!m.have_addr && !m.have_phys && !m.have_src) {
		ana_cmd_error("mem", "%s%s%s%s has no memory samples (no data addresses, physical "
			      "addresses or data sources): record with -d (amber-rec -d, or "
			      "amber-rec mem)", m.opts.event ? "event '" : "",
			      m.opts.event ? m.opts.event : "", m.opts.event ? "' of " : "", path);
		goto out;
	}
	err = prepare(&m, path);
	if (err) {
		ana_cmd_fail("mem", path, err);
		goto out;
	}
	ana_progress_init(&m.progress, "mem");
	ana_pipeline_set_progress(m.p, tick, &m.progress);
	err = ana_pipeline_run(m.p, process_sample, NULL, &m);
	ana_progress_done(&m.progress);
	if (err < 0) {
		ana_cmd_fail("mem", path, err);
		goto out;
	}
	/* qsort() takes no NULL array, not even an empty one. */
	if (m.nr_objects)
		qsort(m.objects, m.nr_objects, sizeof(*m.objects), object_cmp);
	if (m.nr_levels)
		qsort(m.levels, m.nr_levels, sizeof(*m.levels), level_cmp);
	for (size_t i = 0; i < m.nr_objects; i++)
		if (m.objects[i]->nr_code)
			qsort(m.objects[i]->code, m.objects[i]->nr_code,
			      sizeof(*m.objects[i]->code), code_cmp);
	ana_out_init(&out, stdout);
	if (m.json) {
		ana_out_no_cut(&out);
		print_json(&m, &out);
	} else {
		print_text(&m, &out, path);
	}
	err = ana_out_finish(&out);
	if (err) {
		ana_cmd_error("mem", "writing the output: %s", strerror(-err));
		goto out;
	}
	rc = 0;
out:
	mem_free(&m);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_topology.c - `amber-analyze topology`: the machine a
 * recording was made on, from its TOPOLOGY block (docs/FORMAT.md §5.7,
 * resolve/hwtopo.h): packages with their dies, cores and CPUs; NUMA nodes
 * with their CPUs, memory, physical ranges and huge pages; the distances
 * between nodes; and the caches, one line per kind.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

static const char usage[] =
"usage: amber-analyze topology [OPTIONS] [FILE]\n"
"\n"
"The machine the recording was made on: packages, dies, cores and CPUs; NUMA\n"
"nodes with their CPUs, memory, physical ranges and huge pages; the distances\n"
"between nodes; the caches.\n"
"\n"
"      --json             JSON instead of text\n";

enum { O_JSON = 256 };

/* A list of CPU numbers: a bitmap as large as the highest + 1. */
struct cpuset {
	uint64_t *bits;
	size_t nbits;
};

static int cpuset_add(struct cpuset *s, size_t cpu)
{
	if (cpu >= s->nbits) {
		size_t words = (cpu + 64) / 64, old = s->nbits / 64;
		uint64_t *b = realloc(s->bits, words * sizeof(*b));

		if (!b)
			return -ENOMEM;
		memset(b + old, 0, (words - old) * sizeof(*b));
		s->bits = b;
		s->nbits = words * 64;
	}
	s->bits[cpu / 64] |= 1ull << (cpu % 64);
	return 0;
}

static bool cpuset_has(const struct cpuset *s, size_t cpu)
{
	return cpu < s->nbits && (s->bits[cpu / 64] >> (cpu % 64) & 1);
}

/* "0-3,8,10-11" into @buf (truncated with "..." when it does not fit). */
static const char *cpuset_text(const struct cpuset *s, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nbits; i++) {
		size_t j = i;
		int n;

		if (!cpuset_has(s, i))
			continue;
		while (cpuset_has(s, j + 1))
			j++;
		n = j > i ? snprintf(buf + pos, len - pos, "%s%zu-%zu", pos ? "," : "", i, j)
			  : snprintf(buf + pos, len - pos, "%s%zu", pos ? "," : "", i);
		if (n < 0 || (size_t)n >= len - pos) {
			if (len > 4)
				snprintf(buf + len - 4, 4, "...");
			return buf;
		}
		pos += (size_t)n;
		i = j;
	}
	return buf;
}

/* Distinct non-negative ids, counted. */
static size_t count_distinct(const int *v, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (v[i] < 0)
			continue;
		for (k = 0; k < i && v[k] != v[i]; k++)
			;
		d += k == i;
	}
	return d;
}

struct pkg {
	int id;
	size_t dies, cores, nr_cpus;
	struct cpuset cpus;
};

/* The packages of the recorded CPUs, by package id (-1 last). */
static int packages(const struct ana_hwtopo *t, struct pkg **out, size_t *nr)
{
	struct pkg *v = NULL;
	size_t n = 0, cap = 0;
	int *dies = NULL, *cores = NULL;
	int err = 0;

	dies = malloc((t->nr_cpus + 1) * sizeof(*dies));
	cores = malloc((t->nr_cpus + 1) * sizeof(*cores));
	if (!dies || !cores) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < t->nr_cpus && !err; c++) {
		size_t k;

		if (!t->cpus[c].present)
			continue;
		for (k = 0; k < n && v[k].id != t->cpus[c].package; k++)
			;
		if (k == n) {
			if (amb_ensure_cap((void **)&v, &cap, sizeof(*v), n + 1)) {
				err = -ENOMEM;
				break;
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n++].id = t->cpus[c].package;
		}
		v[k].nr_cpus++;
		err = cpuset_add(&v[k].cpus, c);
	}
	for (size_t k = 0; k < n && !err; k++) {
		size_t m = 0;

		for (size_t c = 0; c < t->nr_cpus; c++) {
			if (!t->cpus[c].present || t->cpus[c].package != v[k].id)
				continue;
			dies[m] = t->cpus[c].die;
			/* A core is a (die, core) pair: core ids repeat across dies. */
			cores[m++] = t->cpus[c].core < 0 ? -1 :
				     (t->cpus[c].die < 0 ? 0 : t->cpus[c].die) * 65536 + t->cpus[c].core;
		}
		v[k].dies = count_distinct(dies, m);
		v[k].cores = count_distinct(cores, m);
	}
out:
	free(dies);
	free(cores);
	if (err) {
		for (size_t k = 0; k < n; k++)
			free(v[k].cpus.bits);
		free(v);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

/* A cache kind: caches with the same level, type, size, line and ways. */
struct cache_kind {
	const struct ana_hwtopo_cache *first;
	size_t instances;           /* distinct shared_cpus lists */
	const char **shared;        /* those lists */
};

static bool same_kind(const struct ana_hwtopo_cache *a, const struct ana_hwtopo_cache *b)
{
	return a->level == b->level && !strcmp(a->type, b->type) && a->size == b->size &&
	       a->line == b->line && a->ways == b->ways;
}

static int cache_kinds(const struct ana_hwtopo *t, struct cache_kind **out, size_t *nr)
{
	struct cache_kind *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < t->nr_caches; i++) {
		const struct ana_hwtopo_cache *c = &t->caches[i];
		const char *sh = c->shared_cpus ? c->shared_cpus : "";
		size_t k, s;

		for (k = 0; k < n && !same_kind(v[k].first, c); k++)
			;
		if (k == n) {
			if (amb_ensure_cap((void **)&v, &cap, sizeof(*v), n + 1))
				goto nomem;
			v[n++] = (struct cache_kind){ c, 0, NULL };
		}
		for (s = 0; s < v[k].instances && strcmp(v[k].shared[s], sh); s++)
			;
		if (s == v[k].instances) {
			const char **g = realloc(v[k].shared, (s + 1) * sizeof(*g));

			if (!g)
				goto nomem;
			g[s] = sh;
			v[k].shared = g;
			v[k].instances++;
		}
	}
	*out = v;
	*nr = n;
	return 0;
nomem:
	for (size_t k = 0; k < n; k++)
		free(v[k].shared);
	free(v);
	return -ENOMEM;
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	size_t i = 0;

	while (v >= 1024 && i + 1 < AMB_ARRAY_SIZE(unit)) {
		v /= 1024;
		i++;
	}
	if (i)
		snprintf(buf, len, "%.1f %s", v, unit[i]);
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
}

static void print_text(struct ana_out *o, const struct ana_session *s,
		       const struct ana_hwtopo *t, const struct pkg *pk, size_t nr_pk,
		       const struct cache_kind *ck, size_t nr_ck)
{
	const char *v;
	char a[4096], esc[8192];
	size_t online = 0, cpus = 0, nodes = 0;

	for (size_t c = 0; c < t->nr_cpus; c++) {
		cpus += t->cpus[c].present;
		online += t->cpus[c].present && t->cpus[c].online != 0;
	}
	for (size_t n = 0; n < t->nr_nodes; n++)
		nodes += t->nodes[n].present;
	ana_out_printf(o, "# host: ");
	ana_out_text(o, (v = ana_session_meta(s, "hostname")) ? v : "?");
	ana_out_printf(o, ", kernel ");
	ana_out_text(o, (v = ana_session_meta(s, "uname.release")) ? v : "?");
	ana_out_printf(o, " (as recorded)\n# %zu CPUs (%zu online), %zu package%s, %zu NUMA node%s",
		       cpus, online, nr_pk, nr_pk == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s");
	if (t->block_size) {
		human_bytes(t->block_size, a, sizeof(a));
		ana_out_printf(o, ", memory blocks of %s", a);
	}
	ana_out_printf(o, "\n");
	if (!cpus && !nodes) {
		ana_out_printf(o, "# the recording has no topology\n");
		return;
	}
	ana_out_printf(o, "#\n# Packages\n#\n# %-8s %5s %6s %6s  %s\n", "Package", "Dies", "Cores",
		       "CPUs", "CPU list");
	for (size_t k = 0; k < nr_pk; k++) {
		char id[16];

		snprintf(id, sizeof(id), "%d", pk[k].id);
		ana_out_printf(o, "  %-8s %5zu %6zu %6zu  %s\n", pk[k].id < 0 ? "?" : id, pk[k].dies,
			       pk[k].cores, pk[k].nr_cpus, cpuset_text(&pk[k].cpus, a, sizeof(a)));
	}
	ana_out_printf(o, "#\n# NUMA nodes\n#\n# %-5s %-16s %12s %12s  %s\n", "Node", "CPUs",
		       "Memory", "Ranges span", "Huge pages (total/free)");
	for (size_t n = 0; n < t->nr_nodes; n++) {
		const struct ana_hwtopo_node *nd = &t->nodes[n];
		char mem[32] = "-", span[32] = "-";

		if (!nd->present)
			continue;
		if (nd->have_mem_total)
			human_bytes(nd->mem_total, mem, sizeof(mem));
		if (nd->nr_ranges)
			human_bytes(nd->range_bytes, span, sizeof(span));
		ana_out_printf(o, "  %-5zu %-16s %12s %12s ", n,
			       amb_text_escape(esc, sizeof(esc), nd->cpus ? nd->cpus : "-"), mem, span);
		for (size_t h = 0; h < nd->nr_hp; h++) {
			char total[24] = "?", free_[24] = "?";

			if (nd->hp[h].have_total)
				snprintf(total, sizeof(total), "%" PRIu64, nd->hp[h].total);
			if (nd->hp[h].have_free)
				snprintf(free_, sizeof(free_), "%" PRIu64, nd->hp[h].free);
			ana_out_printf(o, " %" PRIu64 "kB: %s/%s", nd->hp[h].size_kb, total, free_);
		}
		if (!nd->nr_hp)
			ana_out_printf(o, " -");
		ana_out_char(o, '\n');
	}
	if (t->nr_nodes) {
		bool any = false;

		for (size_t n = 0; n < t->nr_nodes; n++)
			any |= t->nodes[n].nr_distance > 0;
		if (any) {
			ana_out_printf(o, "#\n# Distances\n#\n# %-5s", "Node");
			for (size_t m = 0; m < t->nr_nodes; m++)
				ana_out_printf(o, " %5zu", m);
			ana_out_char(o, '\n');
			for (size_t n = 0; n < t->nr_nodes; n++) {
				if (!t->nodes[n].present)
					continue;
				ana_out_printf(o, "  %-5zu", n);
				for (size_t m = 0; m < t->nr_nodes; m++) {
					if (m < t->nodes[n].nr_distance)
						ana_out_printf(o, " %5" PRIu32, t->nodes[n].distance[m]);
					else
						ana_out_printf(o, " %5s", "-");
				}
				ana_out_char(o, '\n');
			}
		}
	}
	if (t->nr_ranges) {
		ana_out_printf(o, "#\n# Physical memory ranges\n#\n# %-7s %-39s %s\n", "Node", "Range",
			       "Size");
		for (size_t i = 0; i < t->nr_ranges; i++) {
			char id[16], range[64];

			snprintf(id, sizeof(id), "%d", t->ranges[i].node);
			snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, t->ranges[i].start,
				 t->ranges[i].end);
			human_bytes(t->ranges[i].end - t->ranges[i].start, a, 64);
			ana_out_printf(o, "  %-7s %-39s %s\n",
				       t->ranges[i].node < 0 ? "several" : id, range, a);
		}
	}
	if (nr_ck) {
		ana_out_printf(o, "#\n# Caches\n#\n# %-5s %-12s %10s %5s %5s %10s  %s\n", "Level",
			       "Type", "Size", "Line", "Ways", "Instances", "Shared by CPUs");
		for (size_t k = 0; k < nr_ck; k++) {
			const struct ana_hwtopo_cache *c = ck[k].first;
			char lvl[16], size[32] = "-";

			snprintf(lvl, sizeof(lvl), "L%d", c->level);
			if (c->size)
				human_bytes(c->size, size, sizeof(size));
			ana_out_printf(o, "  %-5s %-12s %10s %5u %5u %10zu  ", c->level < 0 ? "?" : lvl,
				       amb_text_escape(esc, sizeof(esc), *c->type ? c->type : "?"), size,
				       c->line, c->ways, ck[k].instances);
			for (size_t i = 0; i < ck[k].instances && i < 8; i++) {
				ana_out_str(o, i ? " | " : "");
				ana_out_text(o, *ck[k].shared[i] ? ck[k].shared[i] : "?");
			}
			if (ck[k].instances > 8)
				ana_out_str(o, " | ...");
			ana_out_char(o, '\n');
		}
	}
}

static void json_opt_int(struct ana_out *o, const char *key, int v)
{
	if (v < 0)
		ana_out_printf(o, ",\"%s\":null", key);
	else
		ana_out_printf(o, ",\"%s\":%d", key, v);
}

static void print_json(struct ana_out *o, const struct ana_session *s,
		       const struct ana_hwtopo *t, const struct pkg *pk, size_t nr_pk,
		       const struct cache_kind *ck, size_t nr_ck)
{
	const char *v, *sep = "";
	char a[4096];

	ana_out_printf(o, "{\"host\":");
	ana_out_json(o, (v = ana_session_meta(s, "hostname")) ? v : "");
	ana_out_printf(o, ",\"kernel\":");
	ana_out_json(o, (v = ana_session_meta(s, "uname.release")) ? v : "");
	ana_out_printf(o, ",\"memory_block_size\":%" PRIu64 ",\"cpus\":[", t->block_size);
	for (size_t c = 0; c < t->nr_cpus; c++) {
		if (!t->cpus[c].present)
			continue;
		ana_out_printf(o, "%s{\"cpu\":%zu", sep, c);
		sep = ",";
		json_opt_int(o, "core", t->cpus[c].core);
		json_opt_int(o, "die", t->cpus[c].die);
		json_opt_int(o, "package", t->cpus[c].package);
		json_opt_int(o, "node", t->cpus[c].node);
		ana_out_printf(o, ",\"online\":%s}", t->cpus[c].online < 0 ? "null" :
			       t->cpus[c].online ? "true" : "false");
	}
	ana_out_printf(o, "],\"packages\":[");
	for (size_t k = 0; k < nr_pk; k++) {
		ana_out_printf(o, "%s{\"package\":", k ? "," : "");
		if (pk[k].id < 0)
			ana_out_printf(o, "null");
		else
			ana_out_printf(o, "%d", pk[k].id);
		ana_out_printf(o, ",\"dies\":%zu,\"cores\":%zu,\"nr_cpus\":%zu,\"cpus\":", pk[k].dies,
			       pk[k].cores, pk[k].nr_cpus);
		ana_out_json(o, cpuset_text(&pk[k].cpus, a, sizeof(a)));
		ana_out_char(o, '}');
	}
	ana_out_printf(o, "],\"nodes\":[");
	sep = "";
	for (size_t n = 0; n < t->nr_nodes; n++) {
		const struct ana_hwtopo_node *nd = &t->nodes[n];
		const char *rs = "";

		if (!nd->present)
			continue;
		ana_out_printf(o, "%s{\"node\":%zu,\"cpus\":", sep, n);
		sep = ",";
		if (nd->cpus)
			ana_out_json(o, nd->cpus);
		else
			ana_out_printf(o, "null");
		ana_out_printf(o, ",\"nr_cpus\":%u,\"mem_total\":", nd->nr_cpus);
		if (nd->have_mem_total)
			ana_out_printf(o, "%" PRIu64, nd->mem_total);
		else
			ana_out_printf(o, "null");
		ana_out_printf(o, ",\"distance\":[");
		for (size_t m = 0; m < nd->nr_distance; m++)
			ana_out_printf(o, "%s%" PRIu32, m ? "," : "", nd->distance[m]);
		ana_out_printf(o, "],\"ranges\":[");
		for (size_t i = 0; i < t->nr_ranges; i++) {
			if (t->ranges[i].node != (int)n)
				continue;
			ana_out_printf(o, "%s{\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\"}", rs,
				       t->ranges[i].start, t->ranges[i].end);
			rs = ",";
		}
		ana_out_printf(o, "],\"hugepages\":[");
		for (size_t h = 0; h < nd->nr_hp; h++) {
			ana_out_printf(o, "%s{\"size_kb\":%" PRIu64, h ? "," : "", nd->hp[h].size_kb);
			if (nd->hp[h].have_total)
				ana_out_printf(o, ",\"total\":%" PRIu64, nd->hp[h].total);
			if (nd->hp[h].have_free)
				ana_out_printf(o, ",\"free\":%" PRIu64, nd->hp[h].free);
			ana_out_char(o, '}');
		}
		ana_out_printf(o, "]}");
	}
	ana_out_printf(o, "],\"caches\":[");
	for (size_t k = 0; k < nr_ck; k++) {
		const struct ana_hwtopo_cache *c = ck[k].first;

		ana_out_printf(o, "%s{", k ? "," : "");
		ana_out_printf(o, "\"level\":");
		if (c->level < 0)
			ana_out_printf(o, "null");
		else
			ana_out_printf(o, "%d", c->level);
		ana_out_printf(o, ",\"type\":");
		ana_out_json(o, c->type);
		ana_out_printf(o, ",\"size\":%" PRIu64 ",\"line\":%u,\"ways\":%u,\"instances\":%zu,"
			       "\"shared_cpus\":[", c->size, c->line, c->ways, ck[k].instances);
		for (size_t i = 0; i < ck[k].instances; i++) {
			ana_out_str(o, i ? "," : "");
			ana_out_json(o, ck[k].shared[i]);
		}
		ana_out_printf(o, "]}");
	}
	ana_out_printf(o, "]}\n");
}

static int topology_option(void *ctx, int c, const char *arg)
{
	(void)arg;
	if (c != O_JSON)
		return 1;
	*(bool *)ctx = true;
	return 0;
}

int ana_cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "topology", usage, "", opts, 1, 1, true };
	struct ana_session *s = NULL;
	struct ana_hwtopo *t = NULL;
	struct pkg *pk = NULL;
	struct cache_kind *ck = NULL;
	size_t nr_pk = 0, nr_ck = 0;
	const char *path = NULL;
	struct ana_out out;
	bool json = false;
	int err, rc;

	rc = ana_cmd_parse(&desc, argc, argv, NULL, topology_option, &json, &path);
	if (rc != ANA_CMD_GO_ON)
		return rc;
	rc = 1;
	err = ana_session_open(path, &s);
	if (err) {
		ana_cmd_fail("topology", path, err);
		goto out;
	}
	err = ana_hwtopo_load(s, &t);
	if (!err)
		err = packages(t, &pk, &nr_pk);
	if (!err)
		err = cache_kinds(t, &ck, &nr_ck);
	if (err) {
		ana_cmd_fail("topology", path, err);
		goto out;
	}
	if (t->bad_keys)
		amb_warn("%s: %zu TOPOLOGY values do not parse and are left out", path, t->bad_keys);
	ana_out_init(&out, stdout);
	if (json) {
		ana_out_no_cut(&out);
		print_json(&out, s, t, pk, nr_pk, ck, nr_ck);
	} else {
		print_text(&out, s, t, pk, nr_pk, ck, nr_ck);
	}
	err = ana_out_finish(&out);
	if (err) {
		ana_cmd_error("topology", "writing the output: %s", strerror(-err));
		goto out;
	}
	rc = 0;
out:
	for (size_t k = 0; k < nr_pk; k++)
		free(pk[k].cpus.bits);
	free(pk);
	for (size_t k = 0; k < nr_ck; k++)
		free(ck[k].shared);
	free(ck);
	ana_hwtopo_free(t);
	ana_session_close(s);
	return rc;
}

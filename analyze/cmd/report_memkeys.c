// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/report_memkeys.c - report's memory sort keys: perf mem
 * report's (tools/perf/util/sort.c: mem, snoop, tlb, locked, blocked,
 * dso_daddr, symbol_daddr, data_page_size, local_weight, weight,
 * phys_daddr) and the NUMA ones, node and remote.
 *
 * Values are the texts of resolve/datasrc.c and resolve/dataobj.c.  Two
 * choices differ from perf: symbol_daddr groups by data object (the
 * symbol, or the mapping: [heap], [stack], //anon), where perf groups by
 * address and shows symbol+offset; and node and remote, which perf does
 * not have, place the physical address with the recording's own topology
 * (resolve/hwtopo.c), never with this machine's, and show "unknown" for
 * an address no recorded range holds.  As in perf, local_weight and weight
 * group samples of equal weight; weight shows the entry's total.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/report_memkeys.h"
#include "common/util.h"
#include <amber/common.h>

enum memkey {
	MK_MEM, MK_SNOOP, MK_TLB, MK_LOCKED, MK_BLOCKED, MK_DSO_DADDR, MK_SYMBOL_DADDR,
	MK_DATA_PAGE_SIZE, MK_LOCAL_WEIGHT, MK_WEIGHT, MK_PHYS_DADDR, MK_NODE, MK_REMOTE,
};

/* The options that record what the keys need: -d, -W, --phys-data and
 * --data-page-size, with the commands that give them. */
#define HINT_D     "-d (amber-rec -d, or amber-rec mem)"
#define HINT_W     "-W (amber-rec -d -W, or amber-rec mem)"
#define HINT_PHYS  "--phys-data (amber-rec -d --phys-data, or amber-rec mem -p)"
#define HINT_PSIZE "--data-page-size (amber-rec -d --data-page-size, or amber-rec mem " \
		   "--data-page-size)"
#define WEIGHTS    (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)

static const struct memkey_def {
	const char *opt, *header;
	uint64_t needs;          /* sample_type bits, any of them */
	const char *what;        /* what they are, for the error */
	const char *hint;        /* how to record them */
} memkeys[] = {
	[MK_MEM] = { "mem", "Memory access", PERF_SAMPLE_DATA_SRC, "data sources", HINT_D },
	[MK_SNOOP] = { "snoop", "Snoop", PERF_SAMPLE_DATA_SRC, "data sources", HINT_D },
	[MK_TLB] = { "tlb", "TLB access", PERF_SAMPLE_DATA_SRC, "data sources", HINT_D },
	[MK_LOCKED] = { "locked", "Locked", PERF_SAMPLE_DATA_SRC, "data sources", HINT_D },
	[MK_BLOCKED] = { "blocked", "Blocked", PERF_SAMPLE_DATA_SRC, "data sources", HINT_D },
	[MK_DSO_DADDR] = { "dso_daddr", "Data Object", PERF_SAMPLE_ADDR, "data addresses", HINT_D },
	[MK_SYMBOL_DADDR] = { "symbol_daddr", "Data Symbol", PERF_SAMPLE_ADDR, "data addresses",
			      HINT_D },
	[MK_DATA_PAGE_SIZE] = { "data_page_size", "Data Page Size", PERF_SAMPLE_DATA_PAGE_SIZE,
				"data page sizes", HINT_PSIZE },
	[MK_LOCAL_WEIGHT] = { "local_weight", "Local Weight", WEIGHTS, "weights", HINT_W },
	[MK_WEIGHT] = { "weight", "Weight", WEIGHTS, "weights", HINT_W },
	[MK_PHYS_DADDR] = { "phys_daddr", "Data Physical Address", PERF_SAMPLE_PHYS_ADDR,
			    "physical addresses", HINT_PHYS },
	[MK_NODE] = { "node", "Node", PERF_SAMPLE_PHYS_ADDR, "physical addresses", HINT_PHYS },
	[MK_REMOTE] = { "remote", "Remote", PERF_SAMPLE_PHYS_ADDR, "physical addresses",
			HINT_PHYS },
};

/* What the memory keys keep while the report runs. */
struct ana_report_mem {
	struct ana_hwtopo *topo;     /* for node and remote, else NULL */
	struct ana_dso_table *dsos;  /* the pipeline's, for the data objects */
};

bool ana_report_memkey_parse(struct sort_key *k, const char *name)
{
	for (size_t i = 0; i < AMB_ARRAY_SIZE(memkeys); i++) {
		if (strcasecmp(name, memkeys[i].opt))
			continue;
		k->kind = SK_MEM;
		k->mem = (int)i;
		k->name = memkeys[i].header;
		return true;
	}
	return false;
}

const char *ana_report_memkey_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < AMB_ARRAY_SIZE(memkeys) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", memkeys[i].opt);
	return buf;
}

bool ana_report_memkey_has_identity(const struct sort_key *k)
{
	return k->mem != MK_DSO_DADDR && k->mem != MK_SYMBOL_DADDR;
}

const char *ana_report_memkey_opt(const struct sort_key *k)
{
	return memkeys[k->mem].opt;
}

/* Whether an event @r reports records any of @bits. */
static bool events_have(const struct report *r, uint64_t bits)
{
	for (size_t i = 0; i < ana_session_event_count(r->s); i++) {
		const struct ana_event *e = ana_session_event(r->s, i);

		if ((!r->opts.event || !strcmp(e->name, r->opts.event)) &&
		    (e->attr.sample_type & bits))
			return true;
	}
	return false;
}

int ana_report_memkeys_open(struct report *r, const char *path)
{
	bool need_topo = false;

	for (size_t i = 0; i < r->nr_keys; i++) {
		const struct memkey_def *d;

		if (r->keys[i].kind != SK_MEM)
			continue;
		d = &memkeys[r->keys[i].mem];
		if (!events_have(r, d->needs)) {
			if (r->opts.event)
				ana_cmd_error("report", "sort key '%s' needs the samples' %s, and event "
					      "'%s' of %s has none: record with %s", d->opt, d->what,
					      r->opts.event, path, d->hint);
			else
				ana_cmd_error("report", "sort key '%s' needs the samples' %s, and no "
					      "event of %s has them: record with %s", d->opt, d->what,
					      path, d->hint);
			return 1;
		}
		need_topo |= r->keys[i].mem == MK_NODE || r->keys[i].mem == MK_REMOTE;
	}
	r->mem = calloc(1, sizeof(*r->mem));
	if (!r->mem)
		return ana_cmd_fail("report", path, -ENOMEM);
	r->mem->dsos = ana_pipeline_dsos(r->p);
	if (!need_topo)
		return 0;
	if (ana_hwtopo_load(r->s, &r->mem->topo))
		return ana_cmd_fail("report", path, -ENOMEM);
	if (r->mem->topo->bad_keys)
		amb_warn("%s: %zu TOPOLOGY values do not parse and are left out", path,
			 r->mem->topo->bad_keys);
	if (!ana_hwtopo_has_ranges(r->mem->topo))
		amb_warn("%s records no physical ranges of its NUMA nodes (TOPOLOGY node.N.ranges): "
			 "every address's node is unknown", path);
	return 0;
}

void ana_report_memkeys_free(struct report *r)
{
	if (!r->mem)
		return;
	ana_hwtopo_free(r->mem->topo);
	free(r->mem);
	r->mem = NULL;
}

static bool has(const struct ana_sample *smp, uint64_t bits)
{
	return smp->evt && (smp->evt->attr.sample_type & bits);
}

/* The node of @smp's physical address, -1 when unknown. */
static int node_of(const struct report *r, const struct ana_sample *smp)
{
	if (!r->mem->topo || !has(smp, PERF_SAMPLE_PHYS_ADDR))
		return -1;
	return ana_hwtopo_node_of_phys(r->mem->topo, smp->phys_addr);
}

/* 1 remote, 0 local, -1 unknown: the memory's node against the CPU's. */
static int remote_of(const struct report *r, const struct ana_sample *smp)
{
	int mem = node_of(r, smp), cpu;

	if (mem < 0 || !has(smp, PERF_SAMPLE_CPU))
		return -1;
	cpu = ana_hwtopo_node_of_cpu(r->mem->topo, smp->cpu);
	return cpu < 0 ? -1 : mem != cpu;
}

/* Append @s (which does not hold the separator) and the separator. */
static int put(struct amb_buf *b, const char *s)
{
	return amb_buf_printf(b, "%s%c", s, KEY_SEP) ? -ENOMEM : 0;
}

int ana_report_memkey_value(struct report *r, const struct sort_key *k,
			    const struct ana_sample *smp, struct ana_thread *t)
{
	struct amb_buf *b = &r->key;
	struct ana_datasrc d;
	struct ana_dobj obj;
	char buf[128];
	uint64_t w;
	int n;

	ana_datasrc_decode(smp->data_src, &d);
	switch ((enum memkey)k->mem) {
	case MK_MEM:
	case MK_SNOOP:
	case MK_TLB:
	case MK_LOCKED:
	case MK_BLOCKED:
		if (!has(smp, PERF_SAMPLE_DATA_SRC))
			return put(b, "N/A");
		return put(b, k->mem == MK_MEM ? ana_datasrc_level(&d, buf, sizeof(buf))
			   : k->mem == MK_SNOOP ? ana_datasrc_snoop(&d, buf, sizeof(buf))
			   : k->mem == MK_TLB ? ana_datasrc_tlb(&d, buf, sizeof(buf))
			   : k->mem == MK_LOCKED ? ana_datasrc_lock(&d, buf, sizeof(buf))
			   : ana_datasrc_blk(&d, buf, sizeof(buf)));
	case MK_DSO_DADDR:
	case MK_SYMBOL_DADDR: {
		const char *name;

		if (!has(smp, PERF_SAMPLE_ADDR))
			return put(b, "[unknown]");
		ana_dobj_resolve(r->mem->dsos, t, smp->addr, &obj);
		name = k->mem == MK_DSO_DADDR ? ana_dobj_dso_name(&obj)
		       : ana_dobj_name(&obj, buf, sizeof(buf));
		if (k->mem == MK_SYMBOL_DADDR &&
		    amb_buf_append(b, obj.kind == ANA_DOBJ_KERNEL ? "[k] " : "[.] ", 4))
			return -ENOMEM;
		/* Names from the files, kept escaped should they hold the
		 * separator (as report_keys.c keeps them). */
		if (memchr(name, KEY_SEP, strlen(name)))
			return amb_buf_put_text(b, name, strlen(name)) ||
			       amb_buf_append(b, (char[]){ KEY_SEP }, 1) ? -ENOMEM : 0;
		return put(b, name);
	}
	case MK_DATA_PAGE_SIZE:
		return put(b, has(smp, PERF_SAMPLE_DATA_PAGE_SIZE)
			   ? ana_page_size_name(smp->data_page_size, buf, sizeof(buf)) : "N/A");
	case MK_LOCAL_WEIGHT:
	case MK_WEIGHT:
		ana_sample_weight(smp, &w, NULL);
		return amb_buf_printf(b, "%" PRIu64 "%c", w, KEY_SEP) ? -ENOMEM : 0;
	case MK_PHYS_DADDR:
		return amb_buf_printf(b, "0x%016" PRIx64 "%c",
				      has(smp, PERF_SAMPLE_PHYS_ADDR) ? smp->phys_addr : 0,
				      KEY_SEP) ? -ENOMEM : 0;
	case MK_NODE:
		n = node_of(r, smp);
		if (n < 0)
			return put(b, "unknown");
		return amb_buf_printf(b, "%d%c", n, KEY_SEP) ? -ENOMEM : 0;
	case MK_REMOTE:
		n = remote_of(r, smp);
		return put(b, n < 0 ? "unknown" : n ? "remote" : "local");
	}
	return 0;
}

void ana_report_memkey_identity(const struct report *r, const struct sort_key *k,
				const struct ana_sample *smp, uint64_t id[2])
{
	uint64_t w;

	id[1] = (uint64_t)k->mem;
	switch ((enum memkey)k->mem) {
	case MK_MEM:
	case MK_SNOOP:
	case MK_TLB:
	case MK_LOCKED:
	case MK_BLOCKED:
		/* The text is a function of the value; none without the field. */
		id[0] = has(smp, PERF_SAMPLE_DATA_SRC) ? smp->data_src : UINT64_MAX;
		id[1] |= has(smp, PERF_SAMPLE_DATA_SRC) ? 0 : 1ull << 32;
		return;
	case MK_DATA_PAGE_SIZE:
		id[0] = has(smp, PERF_SAMPLE_DATA_PAGE_SIZE) ? smp->data_page_size : 0;
		return;
	case MK_LOCAL_WEIGHT:
	case MK_WEIGHT:
		ana_sample_weight(smp, &w, NULL);
		id[0] = w;
		return;
	case MK_PHYS_DADDR:
		id[0] = has(smp, PERF_SAMPLE_PHYS_ADDR) ? smp->phys_addr : 0;
		return;
	case MK_NODE:
		id[0] = (uint64_t)(int64_t)node_of(r, smp);
		return;
	case MK_REMOTE:
		id[0] = (uint64_t)(int64_t)remote_of(r, smp);
		return;
	case MK_DSO_DADDR:
	case MK_SYMBOL_DADDR:
		break;
	}
	/* Keys without an identity turn fast keys off (report_keys.c). */
	id[0] = 0;
}

void ana_report_memkey_show(const struct sort_key *k, uint64_t samples, char *buf, size_t len)
{
	uint64_t w;
	char *end;

	if (k->mem != MK_WEIGHT)
		return;
	w = strtoull(buf, &end, 10);
	if (end != buf && !*end)
		snprintf(buf, len, "%" PRIu64, w * samples);
}

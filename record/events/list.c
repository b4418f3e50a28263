// SPDX-License-Identifier: MIT
/*
 * record/events/list.c - the listing of --list-events: every name -e
 * takes, grouped by kind as `perf list` does, each probed to say whether
 * it opens here (probe.c).
 */
#include <amber/common.h>
#include "record/events/events_internal.h"
#include "record/events/pfm.h"
#include "record/events/pmu.h"
#include "record/events/probe.h"
#include "record/events/tracefs.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool list_match(const char *pattern, const char *a, const char *b)
{
	return !pattern || !fnmatch(pattern, a, 0) || (b && !fnmatch(pattern, b, 0));
}

static void list_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
}

static void list_aliases(FILE *out, const char *pattern, bool verbose, const struct rec_ev_alias *t,
			 size_t n, uint32_t type, const char *kind)
{
	struct perf_event_attr a;
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		if (!list_match(pattern, t[i].name, t[i].alias))
			continue;
		if (t[i].alias)
			snprintf(buf, sizeof(buf), "%s OR %s", t[i].name, t[i].alias);
		else
			snprintf(buf, sizeof(buf), "%s", t[i].name);
		list_attr(&a, type, t[i].config);
		rec_probe_list_line(out, buf, kind, &a, false, t[i].desc, verbose);
	}
}

static const char *const cache_descs[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1 data cache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1 instruction cache",
	[PERF_COUNT_HW_CACHE_LL] = "last-level cache",
	[PERF_COUNT_HW_CACHE_DTLB] = "data TLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "instruction TLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch prediction unit",
	[PERF_COUNT_HW_CACHE_NODE] = "local memory node",
};

static void list_cache(FILE *out, const char *pattern, bool verbose)
{
	struct perf_event_attr a;
	char name[64], desc[128];

	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				if (!(rec_ev_cache_valid_ops[c] & (1u << o)))
					continue;
				rec_ev_cache_canonical(name, sizeof(name), c, o, r);
				if (!list_match(pattern, name, NULL))
					continue;
				snprintf(desc, sizeof(desc), "%s %s %s", cache_descs[c],
					 rec_ev_cache_ops[o][0], r == PERF_COUNT_HW_CACHE_RESULT_MISS
					 ? "misses" : "accesses");
				list_attr(&a, PERF_TYPE_HW_CACHE,
					  (uint64_t)c | (uint64_t)o << 8 | (uint64_t)r << 16);
				rec_probe_list_line(out, name, "Hardware cache event", &a, false, desc,
						    verbose);
			}
}

struct list_ctx {
	FILE *out;
	const char *pattern;
	bool verbose;
	const char *root;
};

static int list_tracepoint(void *ctx, const char *sys, const char *event)
{
	struct list_ctx *lc = ctx;
	char name[512], id[PATH_MAX];

	if ((size_t)snprintf(name, sizeof(name), "%s:%s", sys, event) >= sizeof(name))
		return 0;
	if (!list_match(lc->pattern, name, NULL))
		return 0;
	/* Without an id perf_event_open cannot name it (ftrace internals). */
	if ((size_t)snprintf(id, sizeof(id), "%s/events/%s/%s/id", lc->root, sys, event) >=
		    sizeof(id) ||
	    access(id, F_OK))
		return 0;
	fprintf(lc->out, "  %-50s [Tracepoint event]\n", name);
	return 0;
}

/* A PMU event is listed as the parser reads it, and probed as parsed: what
 * the listing says opens is what -e opens. */
static int list_pmu_event(void *ctx, const char *pmu, const char *event)
{
	struct list_ctx *lc = ctx;
	struct rec_event_list l = { 0 };
	struct rec_pmu *p = NULL;
	char name[512], err[256], *terms = NULL;

	if ((size_t)snprintf(name, sizeof(name), "%s/%s/", pmu, event) >= sizeof(name))
		return 0;
	if (!list_match(lc->pattern, name, NULL))
		return 0;
	if (lc->verbose && !rec_pmu_open(pmu, &p))
		terms = rec_pmu_event_terms(p, event);
	if (rec_events_parse(&l, name, err, sizeof(err)) || l.n != 1)
		fprintf(lc->out, "  %-50s [Kernel PMU event; unavailable: %s]\n", name, err);
	else
		rec_probe_list_line(lc->out, name, "Kernel PMU event", &l.v[0].attr, true, terms,
				    lc->verbose);
	rec_events_free(&l);
	free(terms);
	rec_pmu_free(p);
	return 0;
}

int rec_events_list(FILE *out, const char *pattern, bool verbose)
{
	struct list_ctx lc = { out, pattern, verbose, NULL };
	int ret;

	fprintf(out, "\nList of pre-defined events (to be used in -e):\n\n");
	list_aliases(out, pattern, verbose, rec_ev_hw_events, rec_ev_hw_events_n,
		     PERF_TYPE_HARDWARE, "Hardware event");
	list_aliases(out, pattern, verbose, rec_ev_sw_events, rec_ev_sw_events_n,
		     PERF_TYPE_SOFTWARE, "Software event");
	list_cache(out, pattern, verbose);
	if (list_match(pattern, "rNNN", NULL)) {
		if (rec_probe_have_cpu_pmu())
			fprintf(out, "  %-50s [Raw hardware event descriptor]\n", "rNNN");
		else
			fprintf(out, "  %-50s [Raw hardware event descriptor; unavailable: "
				"no hardware PMU on this machine]\n", "rNNN");
		if (verbose)
			fprintf(out, "%8s%s\n", "", "a raw PMU event: NNN is its config in hex");
	}
	ret = rec_pmu_for_each_event(list_pmu_event, &lc);
	if (ret < 0)
		return ret;
	ret = rec_pfm_list(out, pattern, verbose);
	if (ret < 0)
		return ret;
	lc.root = rec_tracefs_root();
	if (!lc.root)
		return ferror(out) ? -EIO : 0;
	ret = rec_tracefs_for_each_event(list_tracepoint, &lc);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}

// SPDX-License-Identifier: MIT
/*
 * common/perf_stat.c - the counting model of perf_stat.h: scaling, states,
 * lines per unit (CPU, thread, node), repeat statistics and perf stat's
 * derived figures.  The output is perf_stat_print.c's.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "common/hashmap.h"
#include "common/perf_stat.h"
#include "common/util.h"

/* An event at one unit. */
struct stat_cell {
	struct amb_stat_count cur;  /* the current window */
	uint32_t cur_nr;
	bool cur_seen;
	unsigned n;                 /* runs it was read in */
	double mean, m2;            /* of the scaled value (Welford) */
	struct amb_stat_count sum;  /* over the runs */
	uint32_t nr;
};

struct stat_unit {
	int64_t key;                /* CPU, tid, node; -1 for the whole */
	struct stat_cell *cells;    /* one per event */
};

struct stat_comm {
	uint32_t tid;
	char *comm;
};

/* A counter that added to the current window (its reads counted once). */
struct stat_source {
	uint32_t event, cpu, tid;
};

struct amb_stat {
	struct amb_stat_event *ev;
	size_t nr_ev;
	enum amb_stat_aggr aggr;
	struct stat_unit *units;
	size_t nr_units, cap_units;
	struct amb_hashmap by_unit;   /* key -> index + 1 */
	int32_t *node_of;             /* CPU -> node, -1 unknown */
	size_t nr_node_of;
	struct stat_comm *comms;
	size_t nr_comms, cap_comms;
	struct amb_hashmap by_tid;    /* tid -> index + 1 */
	struct stat_source *src;      /* of the current window */
	size_t nr_src, cap_src;
	struct amb_hashmap by_src;    /* -> index + 1 */
	unsigned runs;
	double el_mean, el_m2;
};

uint64_t amb_stat_scale(const struct amb_stat_count *c)
{
	if (!c->run)
		return 0;
	if (c->run >= c->ena)
		return c->val;
#ifdef __SIZEOF_INT128__
	{
		/* Exact where the kernel's quot/rem formula still overflows. */
		unsigned __int128 r = (unsigned __int128)c->val * c->ena / c->run;

		return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
	}
#else
	{
		long double r = (long double)c->val * (long double)c->ena / (long double)c->run;

		return r >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)r;
	}
#endif
}

enum amb_stat_state amb_stat_state_of(const struct amb_stat_count *c, unsigned runs)
{
	if (!c->run)
		return AMB_STAT_NOT_COUNTED;
	if (c->run >= c->ena)
		return AMB_STAT_EXACT;
	if (c->run / (runs ? runs : 1) < AMB_STAT_RELIABLE_NS)
		return AMB_STAT_UNRELIABLE;
	return AMB_STAT_SCALED;
}

static const char *const aggr_names[] = {
	[AMB_STAT_AGGR_GLOBAL] = "global",
	[AMB_STAT_AGGR_CPU] = "cpu",
	[AMB_STAT_AGGR_THREAD] = "thread",
	[AMB_STAT_AGGR_NODE] = "node",
};

const char *amb_stat_aggr_name(enum amb_stat_aggr a)
{
	return (unsigned)a < AMB_ARRAY_SIZE(aggr_names) ? aggr_names[a] : "global";
}

int amb_stat_aggr_parse(const char *s, enum amb_stat_aggr *a)
{
	for (size_t i = 0; i < AMB_ARRAY_SIZE(aggr_names); i++) {
		if (!strcmp(s, aggr_names[i])) {
			*a = (enum amb_stat_aggr)i;
			return 0;
		}
	}
	return -EINVAL;
}

void amb_stat_free(struct amb_stat *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_ev; i++) {
		free((char *)st->ev[i].name);
		free((char *)st->ev[i].unsupported);
	}
	free(st->ev);
	for (size_t i = 0; i < st->nr_units; i++)
		free(st->units[i].cells);
	free(st->units);
	amb_hashmap_free(&st->by_unit);
	free(st->node_of);
	for (size_t i = 0; i < st->nr_comms; i++)
		free(st->comms[i].comm);
	free(st->comms);
	amb_hashmap_free(&st->by_tid);
	free(st->src);
	amb_hashmap_free(&st->by_src);
	free(st);
}

int amb_stat_new(const struct amb_stat_event *ev, size_t n, enum amb_stat_aggr aggr,
		 struct amb_stat **out)
{
	struct amb_stat *st;

	*out = NULL;
	if (!n || n > UINT32_MAX || (unsigned)aggr >= AMB_ARRAY_SIZE(aggr_names))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (ev[i].leader >= 0 && (size_t)ev[i].leader >= n)
			return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->aggr = aggr;
	st->ev = calloc(n, sizeof(*st->ev));
	if (!st->ev)
		goto nomem;
	st->nr_ev = n;
	for (size_t i = 0; i < n; i++) {
		st->ev[i] = ev[i];
		st->ev[i].name = strdup(ev[i].name ? ev[i].name : "?");
		st->ev[i].unsupported = ev[i].unsupported ? strdup(ev[i].unsupported) : NULL;
		if (!st->ev[i].name || (ev[i].unsupported && !st->ev[i].unsupported))
			goto nomem;
	}
	*out = st;
	return 0;
nomem:
	amb_stat_free(st);
	return -ENOMEM;
}

int amb_stat_set_node(struct amb_stat *st, uint32_t cpu, uint32_t node)
{
	/* CPU numbers come from files: a table sized by the largest is capped. */
	if (cpu >= (1u << 20) || node > INT32_MAX)
		return -EINVAL;
	if (cpu >= st->nr_node_of) {
		size_t n = (size_t)cpu + 1;
		int32_t *v = realloc(st->node_of, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = st->nr_node_of; i < n; i++)
			v[i] = -1;
		st->node_of = v;
		st->nr_node_of = n;
	}
	st->node_of[cpu] = (int32_t)node;
	return 0;
}

static struct stat_comm *comm_find(const struct amb_stat *st, uint32_t tid)
{
	uintptr_t i = (uintptr_t)amb_hashmap_find_u64(&st->by_tid, amb_hash_u64(tid), tid);

	return i ? &st->comms[i - 1] : NULL;
}

int amb_stat_set_comm(struct amb_stat *st, uint32_t tid, const char *comm)
{
	struct stat_comm *c = comm_find(st, tid);
	char *dup = strdup(comm);

	if (!dup)
		return -ENOMEM;
	if (c) {
		free(c->comm);
		c->comm = dup;
		return 0;
	}
	if (amb_ensure_cap((void **)&st->comms, &st->cap_comms, sizeof(*st->comms),
			   st->nr_comms + 1) ||
	    amb_hashmap_add(&st->by_tid, amb_hash_u64(tid), tid,
			    (void *)(uintptr_t)(st->nr_comms + 1))) {
		free(dup);
		return -ENOMEM;
	}
	st->comms[st->nr_comms++] = (struct stat_comm){ tid, dup };
	return 0;
}

const char *amb_stat_comm(const struct amb_stat *st, uint32_t tid)
{
	struct stat_comm *c = comm_find(st, tid);

	return c ? c->comm : NULL;
}

static int64_t unit_key(const struct amb_stat *st, uint32_t cpu, uint32_t tid)
{
	switch (st->aggr) {
	case AMB_STAT_AGGR_CPU:
		return cpu == UINT32_MAX ? -1 : (int64_t)cpu;
	case AMB_STAT_AGGR_THREAD:
		return tid == UINT32_MAX ? -1 : (int64_t)tid;
	case AMB_STAT_AGGR_NODE:
		return cpu < st->nr_node_of ? st->node_of[cpu] : -1;
	case AMB_STAT_AGGR_GLOBAL:
		break;
	}
	return -1;
}

static struct stat_unit *unit_get(struct amb_stat *st, int64_t key)
{
	uint64_t h = amb_hash_u64((uint64_t)key);
	uintptr_t i = (uintptr_t)amb_hashmap_find_u64(&st->by_unit, h, (uint64_t)key);
	struct stat_unit *u;

	if (i)
		return &st->units[i - 1];
	if (amb_ensure_cap((void **)&st->units, &st->cap_units, sizeof(*st->units),
			   st->nr_units + 1))
		return NULL;
	u = &st->units[st->nr_units];
	u->key = key;
	u->cells = calloc(st->nr_ev, sizeof(*u->cells));
	if (!u->cells)
		return NULL;
	if (amb_hashmap_add(&st->by_unit, h, (uint64_t)key, (void *)(uintptr_t)(st->nr_units + 1))) {
		free(u->cells);
		return NULL;
	}
	st->nr_units++;
	return u;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void count_add(struct amb_stat_count *to, const struct amb_stat_count *c)
{
	to->val = add_sat(to->val, c->val);
	to->ena = add_sat(to->ena, c->ena);
	to->run = add_sat(to->run, c->run);
}

struct src_key {
	const struct amb_stat *st;
	struct stat_source s;
};

static bool src_eq(uint64_t stored, const void *key)
{
	const struct src_key *k = key;
	const struct stat_source *s = &k->st->src[stored - 1];

	return s->event == k->s.event && s->cpu == k->s.cpu && s->tid == k->s.tid;
}

/* Is (@event, @cpu, @tid) new in the current window?  1 yes, 0 no,
 * -ENOMEM.  Several reads of one counter (intervals summed) are one
 * counter of the line. */
static int source_new(struct amb_stat *st, uint32_t event, uint32_t cpu, uint32_t tid)
{
	struct src_key k = { st, { event, cpu, tid } };
	uint64_t h = amb_hash_u64(((uint64_t)cpu << 32 | tid) ^ amb_hash_u64(event));

	if (amb_hashmap_find(&st->by_src, h, src_eq, &k))
		return 0;
	if (amb_ensure_cap((void **)&st->src, &st->cap_src, sizeof(*st->src), st->nr_src + 1))
		return -ENOMEM;
	st->src[st->nr_src] = k.s;
	if (amb_hashmap_add(&st->by_src, h, st->nr_src + 1, (void *)(uintptr_t)(st->nr_src + 1)))
		return -ENOMEM;
	st->nr_src++;
	return 1;
}

int amb_stat_add(struct amb_stat *st, uint32_t event, uint32_t cpu, uint32_t tid,
		 const struct amb_stat_count *c)
{
	struct stat_unit *u;
	struct stat_cell *cell;
	int fresh;

	if (event >= st->nr_ev)
		return -EINVAL;
	u = unit_get(st, unit_key(st, cpu, tid));
	if (!u)
		return -ENOMEM;
	fresh = source_new(st, event, cpu, tid);
	if (fresh < 0)
		return fresh;
	cell = &u->cells[event];
	count_add(&cell->cur, c);
	cell->cur_nr += (uint32_t)fresh;
	cell->cur_seen = true;
	return 0;
}

int amb_stat_add_task_cpus(struct amb_stat *st, uint32_t event, uint32_t tid, const uint32_t *cpu,
			   const struct amb_stat_count *c, size_t n)
{
	struct amb_stat_count sum = { 0, 0, 0 };
	int err = 0;

	if (st->aggr == AMB_STAT_AGGR_CPU || st->aggr == AMB_STAT_AGGR_NODE) {
		for (size_t i = 0; i < n && !err; i++) {
			struct amb_stat_count exact = { c[i].val, c[i].run, c[i].run };

			err = amb_stat_add(st, event, cpu[i], tid, &exact);
		}
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		sum.val = add_sat(sum.val, c[i].val);
		sum.run = add_sat(sum.run, c[i].run);
		sum.ena = AMB_MAX(sum.ena, c[i].ena);
	}
	/* With inherited threads running at once the task is on several
	 * CPUs at a time: the time counted is then the task's time. */
	sum.ena = AMB_MAX(sum.ena, sum.run);
	return n ? amb_stat_add(st, event, UINT32_MAX, tid, &sum) : 0;
}

/* One more sample @x of a mean and its sum of squared deviations. */
static void welford(unsigned n, double *mean, double *m2, double x)
{
	double d = x - *mean;

	*mean += d / n;
	*m2 += d * (x - *mean);
}

void amb_stat_end_run(struct amb_stat *st, uint64_t elapsed_ns)
{
	st->nr_src = 0;
	amb_hashmap_clear(&st->by_src);
	st->runs++;
	welford(st->runs, &st->el_mean, &st->el_m2, (double)elapsed_ns);
	for (size_t u = 0; u < st->nr_units; u++) {
		for (size_t e = 0; e < st->nr_ev; e++) {
			struct stat_cell *c = &st->units[u].cells[e];

			if (!c->cur_seen)
				continue;
			c->n++;
			welford(c->n, &c->mean, &c->m2, (double)amb_stat_scale(&c->cur));
			count_add(&c->sum, &c->cur);
			c->nr = AMB_MAX(c->nr, c->cur_nr);
			memset(&c->cur, 0, sizeof(c->cur));
			c->cur_nr = 0;
			c->cur_seen = false;
		}
	}
}

void amb_stat_reset(struct amb_stat *st)
{
	st->nr_src = 0;
	amb_hashmap_clear(&st->by_src);
	st->runs = 0;
	st->el_mean = st->el_m2 = 0;
	for (size_t u = 0; u < st->nr_units; u++)
		memset(st->units[u].cells, 0, st->nr_ev * sizeof(*st->units[u].cells));
}

unsigned amb_stat_runs(const struct amb_stat *st)
{
	return st->runs;
}

double amb_stat_elapsed_ns(const struct amb_stat *st)
{
	return st->el_mean;
}

/* perf's stddev_stats(): the standard deviation of the mean. */
static double stddev_of_mean(unsigned n, double m2)
{
	return n < 2 ? 0.0 : sqrt(m2 / (n - 1) / n);
}

double amb_stat_elapsed_stddev_ns(const struct amb_stat *st)
{
	return stddev_of_mean(st->runs, st->el_m2);
}

const struct amb_stat_event *amb_stat_event(const struct amb_stat *st, uint32_t i)
{
	return i < st->nr_ev ? &st->ev[i] : NULL;
}

enum amb_stat_aggr amb_stat_aggr(const struct amb_stat *st)
{
	return st->aggr;
}

size_t amb_stat_event_count(const struct amb_stat *st)
{
	return st->nr_ev;
}

/* ---- lines and derived figures --------------------------------------------- */

static bool is_clock(const struct amb_stat_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_TASK_CLOCK || e->config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool is_hw(const struct amb_stat_event *e, uint64_t config)
{
	return e->type == PERF_TYPE_HARDWARE && e->config == config;
}

static bool usable(const struct amb_stat_line *l)
{
	return l->state != AMB_STAT_NOT_COUNTED && l->state != AMB_STAT_NOT_SUPPORTED;
}

/* The value of the first usable line among @v[0..n) whose event @want
 * accepts, or -1. */
static double find_value(const struct amb_stat *st, const struct amb_stat_line *v, size_t n,
			 bool (*want)(const struct amb_stat_event *, const void *), const void *arg)
{
	for (size_t i = 0; i < n; i++)
		if (usable(&v[i]) && want(&st->ev[v[i].event], arg))
			return v[i].value;
	return -1;
}

static bool want_clock(const struct amb_stat_event *e, const void *arg)
{
	(void)arg;
	return is_clock(e);
}

static bool want_hw(const struct amb_stat_event *e, const void *arg)
{
	return is_hw(e, *(const uint64_t *)arg);
}

static bool want_cache(const struct amb_stat_event *e, const void *arg)
{
	return e->type == PERF_TYPE_HW_CACHE && e->config == *(const uint64_t *)arg;
}

static void set_metric(struct amb_stat_line *l, double v, const char *unit, bool pct)
{
	l->has_metric = true;
	l->metric = v;
	l->metric_unit = unit;
	l->metric_pct = pct;
}

/* perf's per-second rate: events per second of the unit's clock time. */
static void set_rate(struct amb_stat_line *l, double runtime_ns)
{
	double r = 1e9 * l->value / runtime_ns;

	if (r > 1e9)
		set_metric(l, r / 1e9, "G/sec", false);
	else if (r > 1e6)
		set_metric(l, r / 1e6, "M/sec", false);
	else if (r > 1e3)
		set_metric(l, r / 1e3, "K/sec", false);
	else
		set_metric(l, r, "/sec", false);
}

static const char *cache_accesses_unit(uint64_t cache)
{
	switch (cache) {
	case PERF_COUNT_HW_CACHE_L1D: return "of all L1-dcache accesses";
	case PERF_COUNT_HW_CACHE_L1I: return "of all L1-icache accesses";
	case PERF_COUNT_HW_CACHE_LL: return "of all LL-cache accesses";
	case PERF_COUNT_HW_CACHE_DTLB: return "of all dTLB cache accesses";
	case PERF_COUNT_HW_CACHE_ITLB: return "of all iTLB cache accesses";
	case PERF_COUNT_HW_CACHE_BPU: return "of all branch cache accesses";
	case PERF_COUNT_HW_CACHE_NODE: return "of all node cache accesses";
	default: return "of all accesses";
	}
}

/* The figure perf stat prints after @l's '#', from the other lines of its
 * unit @v[0..n) (perf's stat-shadow.c, for the generic events): a ratio
 * whose input is missing is left out, as perf does, rather than replaced
 * by a rate. */
static void derive(const struct amb_stat *st, struct amb_stat_line *l,
		   const struct amb_stat_line *v, size_t n)
{
	const struct amb_stat_event *e = &st->ev[l->event];
	double runtime = find_value(st, v, n, want_clock, NULL), other;
	uint64_t key;

	if (!usable(l))
		return;
	if (is_clock(e)) {
		if (st->el_mean > 0)
			set_metric(l, l->value / st->el_mean, "CPUs utilized", false);
		return;
	}
	if (e->type == PERF_TYPE_HARDWARE) {
		switch (e->config) {
		case PERF_COUNT_HW_CPU_CYCLES:
			if (runtime > 0)
				set_metric(l, l->value / runtime, "GHz", false);
			return;
		case PERF_COUNT_HW_INSTRUCTIONS:
			key = PERF_COUNT_HW_CPU_CYCLES;
			if ((other = find_value(st, v, n, want_hw, &key)) > 0)
				set_metric(l, l->value / other, "insn per cycle", false);
			return;
		case PERF_COUNT_HW_BRANCH_MISSES:
			key = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
			if ((other = find_value(st, v, n, want_hw, &key)) > 0)
				set_metric(l, 100.0 * l->value / other, "of all branches", true);
			return;
		case PERF_COUNT_HW_CACHE_MISSES:
			key = PERF_COUNT_HW_CACHE_REFERENCES;
			if ((other = find_value(st, v, n, want_hw, &key)) > 0)
				set_metric(l, 100.0 * l->value / other, "of all cache refs", true);
			return;
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
			key = PERF_COUNT_HW_CPU_CYCLES;
			if ((other = find_value(st, v, n, want_hw, &key)) > 0)
				set_metric(l, 100.0 * l->value / other,
					   e->config == PERF_COUNT_HW_STALLED_CYCLES_FRONTEND
					   ? "frontend cycles idle" : "backend cycles idle", true);
			return;
		default:
			break;
		}
	}
	if (e->type == PERF_TYPE_HW_CACHE &&
	    (e->config >> 16 & 0xff) == PERF_COUNT_HW_CACHE_RESULT_MISS) {
		key = (e->config & 0xffff) | (uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16;
		if ((other = find_value(st, v, n, want_cache, &key)) > 0)
			set_metric(l, 100.0 * l->value / other, cache_accesses_unit(e->config & 0xff),
				   true);
		return;
	}
	if (runtime > 0)
		set_rate(l, runtime);
}

static int unit_cmp(const void *a, const void *b)
{
	const struct stat_unit *x = *(const struct stat_unit *const *)a;
	const struct stat_unit *y = *(const struct stat_unit *const *)b;

	return (x->key > y->key) - (x->key < y->key);
}

int amb_stat_lines(const struct amb_stat *st, struct amb_stat_line **out, size_t *n)
{
	struct stat_unit global = { -1, NULL }, **units;
	struct stat_unit *only = &global;
	struct amb_stat_line *v;
	size_t nu = st->nr_units, nl = 0;

	*out = NULL;
	*n = 0;
	/* A table with nothing read still lists its events, perf's way. */
	if (!nu) {
		global.cells = calloc(st->nr_ev, sizeof(*global.cells));
		if (!global.cells)
			return -ENOMEM;
		nu = 1;
	}
	units = malloc(nu * sizeof(*units));
	v = calloc(nu * st->nr_ev + 1, sizeof(*v));
	if (!units || !v) {
		free(units);
		free(v);
		free(global.cells);
		return -ENOMEM;
	}
	for (size_t u = 0; u < nu; u++)
		units[u] = st->nr_units ? &st->units[u] : only;
	qsort(units, nu, sizeof(*units), unit_cmp);
	for (size_t u = 0; u < nu; u++) {
		size_t first = nl;

		for (size_t e = 0; e < st->nr_ev; e++) {
			const struct stat_cell *c = &units[u]->cells[e];
			struct amb_stat_line *l = &v[nl];

			if (!st->ev[e].unsupported && !c->n && st->aggr != AMB_STAT_AGGR_GLOBAL)
				continue;
			memset(l, 0, sizeof(*l));
			l->event = (uint32_t)e;
			l->unit = units[u]->key;
			l->nr = c->nr;
			l->sum = c->sum;
			l->value = c->mean;
			if (st->ev[e].unsupported)
				l->state = AMB_STAT_NOT_SUPPORTED;
			else if (!c->n)
				l->state = AMB_STAT_NOT_COUNTED;
			else
				l->state = amb_stat_state_of(&c->sum, c->n);
			l->share = c->sum.ena ? 100.0 * (double)AMB_MIN(c->sum.run, c->sum.ena) /
						(double)c->sum.ena : 100.0;
			if (c->n > 1 && c->mean > 0)
				l->rsd = 100.0 * stddev_of_mean(c->n, c->m2) / c->mean;
			nl++;
		}
		for (size_t i = first; i < nl; i++) {
			derive(st, &v[i], &v[first], nl - first);
			/* perf prints the unit's counter count for every line. */
			for (size_t k = first; k < nl && v[i].state == AMB_STAT_NOT_SUPPORTED; k++)
				v[i].nr = AMB_MAX(v[i].nr, v[k].nr);
		}
	}
	free(units);
	free(global.cells);
	*out = v;
	*n = nl;
	return 0;
}

/* ---- unreliable estimates ---------------------------------------------------- */

/* "{a,b,c}" for the group of event @e into @buf. */
static void group_text(const struct amb_stat *st, size_t e, char *buf, size_t len)
{
	size_t off = 0;
	int32_t leader = st->ev[e].leader;

	off += (size_t)snprintf(buf, len, "{");
	for (size_t i = 0; i < st->nr_ev && off < len; i++)
		if (st->ev[i].leader == leader)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off > 1 ? "," : "",
						st->ev[i].name);
	if (off < len)
		snprintf(buf + off, len - off, "}");
}

void amb_stat_warn_unreliable(const struct amb_stat *st)
{
	struct amb_stat_line *v;
	size_t n, opened = 0;

	if (amb_stat_lines(st, &v, &n))
		return;
	for (size_t e = 0; e < st->nr_ev; e++)
		opened += !st->ev[e].unsupported;
	for (size_t e = 0; e < st->nr_ev; e++) {
		const struct amb_stat_line *worst = NULL;
		char advice[512];

		for (size_t i = 0; i < n; i++)
			if (v[i].event == e && v[i].state == AMB_STAT_UNRELIABLE &&
			    (!worst || v[i].sum.run < worst->sum.run))
				worst = &v[i];
		if (!worst)
			continue;
		if (st->ev[e].leader >= 0) {
			char group[400];

			group_text(st, e, group, sizeof(group));
			snprintf(advice, sizeof(advice), "shrink group %s so that it fits the PMU's "
				 "counters, or split it", group);
		} else {
			snprintf(advice, sizeof(advice), "count fewer events at once (%zu share the "
				 "counters), or put the ones to compare in a {group}", opened);
		}
		amb_warn("'%s' ran %.3f ms of %.3f ms enabled (%.2f%%)%s: a multiplexed estimate "
			 "from under %.0f ms of running time is unreliable; %s", st->ev[e].name,
			 (double)worst->sum.run / 1e6 / (st->runs ? st->runs : 1),
			 (double)worst->sum.ena / 1e6 / (st->runs ? st->runs : 1), worst->share,
			 st->runs > 1 ? " per run" : "", AMB_STAT_RELIABLE_NS / 1e6, advice);
	}
	free(v);
}

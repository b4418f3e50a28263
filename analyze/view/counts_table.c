// SPDX-License-Identifier: MIT
/*
 * analyze/view/counts_table.c - COUNTS blocks into the tables of
 * common/perf_stat.h.
 * A block is a window (an -I interval, a run, or a sampling recording's
 * end); its stream is the run of `amber-rec stat -r` (FORMAT.md §5.4).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "analyze/view/counts_table.h"

static uint64_t meta_u64(const struct ana_session *s, const char *key)
{
	const char *v = ana_session_meta(s, key);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return 0;
	n = strtoull(v, &end, 10);
	return *end ? 0 : (uint64_t)n;
}

/* The node of every CPU the TOPOLOGY names (cpu.N.node). */
static int set_nodes(const struct ana_session *s, struct amb_stat *st)
{
	char key[64];
	int err = 0;

	/* CPUs are numbered densely enough: stop after a long gap. */
	for (uint32_t cpu = 0, miss = 0; miss < 256 && cpu < (1u << 20) && !err; cpu++) {
		const char *v;
		char *end;
		unsigned long node;

		snprintf(key, sizeof(key), "cpu.%u.node", cpu);
		v = ana_session_topology(s, key);
		if (!v) {
			miss++;
			continue;
		}
		miss = 0;
		node = strtoul(v, &end, 10);
		if (*end || end == v || node > INT32_MAX)
			continue;
		err = amb_stat_set_node(st, cpu, (uint32_t)node);
	}
	return err;
}

static int set_comms(const struct ana_session *s, struct amb_stat *st)
{
	int err = 0;

	for (size_t i = 0; i < ana_session_meta_count(s) && !err; i++) {
		const char *val, *key = ana_session_meta_at(s, i, &val);
		char *end;
		unsigned long tid;

		if (strncmp(key, "stat.comm.", 10))
			continue;
		tid = strtoul(key + 10, &end, 10);
		if (*end || end == key + 10 || tid > UINT32_MAX)
			continue;
		err = amb_stat_set_comm(st, (uint32_t)tid, val);
	}
	return err;
}

int ana_counts_table_new(const struct ana_session *s, enum amb_stat_aggr aggr,
			 struct amb_stat **out)
{
	size_t n = ana_session_event_count(s);
	struct amb_stat_event *ev;
	int err;

	*out = NULL;
	if (!n)
		return -ENODATA;
	ev = calloc(n, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct ana_event *e = ana_session_event(s, i);
		char key[64];

		ev[i].name = e->name;
		ev[i].type = e->attr.type;
		ev[i].config = e->attr.config;
		/* A leader index from the file is checked: the table refuses
		 * one out of range. */
		ev[i].leader = e->leader < n ? (int32_t)e->leader : -1;
		if (e->flags & AMB_EVENT_UNSUPPORTED) {
			snprintf(key, sizeof(key), "stat.event.%zu.unsupported", i);
			ev[i].unsupported = ana_session_meta(s, key);
			if (!ev[i].unsupported)
				ev[i].unsupported = "not supported on the recording machine";
		}
	}
	err = amb_stat_new(ev, n, aggr, out);
	free(ev);
	if (!err && aggr == AMB_STAT_AGGR_NODE)
		err = set_nodes(s, *out);
	if (!err && aggr == AMB_STAT_AGGR_THREAD)
		err = set_comms(s, *out);
	if (err) {
		amb_stat_free(*out);
		*out = NULL;
	}
	return err;
}

static int cmp_task_cpu(const void *a, const void *b)
{
	const struct amb_count_entry *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* The entries of one task's counter opened on every CPU (the sampling
 * recorder's) go through amb_stat_add_task_cpus() together; @tid_any is
 * the thread to use for entries that name none. */
static int add_task_cpus(struct amb_stat *st, const struct ana_counts *c, size_t nev,
			 bool tid_any)
{
	struct amb_count_entry *v = malloc(c->n * sizeof(*v));
	struct amb_stat_count *cnt = malloc(c->n * sizeof(*cnt));
	uint32_t *cpu = malloc(c->n * sizeof(*cpu));
	size_t n = 0;
	int err = 0;

	if (!v || !cnt || !cpu) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].cpu == UINT32_MAX || c->v[i].event >= nev ||
		    (c->v[i].tid == UINT32_MAX && !tid_any))
			continue;
		v[n] = c->v[i];
		if (v[n].tid == UINT32_MAX)
			v[n].tid = 0;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_task_cpu);
	for (size_t i = 0; i < n && !err;) {
		size_t k = 0;

		do {
			cnt[k] = (struct amb_stat_count){ v[i + k].value, v[i + k].time_enabled,
							  v[i + k].time_running };
			cpu[k] = v[i + k].cpu;
			k++;
		} while (i + k < n && v[i + k].event == v[i].event && v[i + k].tid == v[i].tid);
		err = amb_stat_add_task_cpus(st, v[i].event, v[i].tid, cpu, cnt, k);
		i += k;
	}
out:
	free(v);
	free(cnt);
	free(cpu);
	return err;
}

/*
 * Whether the per-CPU entries without a thread are task counters: the
 * sampling recorder of amber 0.1 wrote a command's counters (opened per
 * CPU with pid = the command) without the thread; its META target then
 * reads "command ...", where a system-wide recording's reads
 * "system-wide" and a counting one has stat.title.
 */
static bool cpu_entries_are_tasks(const struct ana_session *s)
{
	const char *target = ana_session_meta(s, "target");

	return !ana_session_meta(s, "stat.title") && target &&
	       strncmp(target, "system-wide", 11) != 0;
}

int ana_counts_add(const struct ana_session *s, struct amb_stat *st, const struct ana_counts *c)
{
	size_t nev = amb_stat_event_count(st);
	bool task_cpus = false, tid_any = cpu_entries_are_tasks(s);

	for (size_t i = 0; i < c->n; i++) {
		const struct amb_count_entry *e = &c->v[i];
		struct amb_stat_count v = { e->value, e->time_enabled, e->time_running };
		int err;

		if (e->event >= nev)
			continue;
		if (e->cpu != UINT32_MAX && (e->tid != UINT32_MAX || tid_any)) {
			task_cpus = true;
			continue;
		}
		err = amb_stat_add(st, e->event, e->cpu, e->tid, &v);
		if (err)
			return err;
	}
	return task_cpus ? add_task_cpus(st, c, nev, tid_any) : 0;
}

uint64_t ana_counts_run_ns(const struct ana_session *s, uint32_t run)
{
	uint64_t first = UINT64_MAX, last = 0, start, end;

	for (size_t i = 0; i < ana_session_counts_count(s); i++) {
		const struct ana_counts *c = ana_session_counts(s, i);

		if (c->run != run || !c->first_time)
			continue;
		first = AMB_MIN(first, c->first_time);
		last = AMB_MAX(last, AMB_MAX(c->first_time, c->last_time));
	}
	if (first != UINT64_MAX)
		return last - first;
	start = meta_u64(s, "time.start_ns");
	end = meta_u64(s, "time.end_ns");
	return end > start && start ? end - start : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int ana_counts_totals(const struct ana_session *s, enum amb_stat_aggr aggr,
		      struct amb_stat **out)
{
	size_t n = ana_session_counts_count(s), nruns = 0;
	uint32_t *runs;
	int err;

	*out = NULL;
	if (!n)
		return -ENODATA;
	runs = malloc(n * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		runs[i] = ana_session_counts(s, i)->run;
	qsort(runs, n, sizeof(*runs), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!nruns || runs[nruns - 1] != runs[i])
			runs[nruns++] = runs[i];
	err = ana_counts_table_new(s, aggr, out);
	for (size_t r = 0; r < nruns && !err; r++) {
		for (size_t i = 0; i < n && !err; i++)
			if (ana_session_counts(s, i)->run == runs[r])
				err = ana_counts_add(s, *out, ana_session_counts(s, i));
		amb_stat_end_run(*out, ana_counts_run_ns(s, runs[r]));
	}
	free(runs);
	if (err) {
		amb_stat_free(*out);
		*out = NULL;
	}
	return err;
}

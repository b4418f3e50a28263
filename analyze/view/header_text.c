// SPDX-License-Identifier: MIT
/*
 * analyze/view/header_text.c - a recording's event sample types and topology
 * as header text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/view/header_text.h"
#include "common/util.h"

int ana_describe_sample_type(uint64_t st, struct amb_buf *out)
{
	static const struct { uint64_t bit; const char *name; } bits[] = {
		{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_IP, "IP" },
		{ PERF_SAMPLE_TID, "TID" }, { PERF_SAMPLE_TIME, "TIME" },
		{ PERF_SAMPLE_ADDR, "ADDR" }, { PERF_SAMPLE_ID, "ID" },
		{ PERF_SAMPLE_STREAM_ID, "STREAM_ID" }, { PERF_SAMPLE_CPU, "CPU" },
		{ PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_READ, "READ" },
		{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PERF_SAMPLE_RAW, "RAW" },
		{ PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
		{ PERF_SAMPLE_REGS_USER, "REGS_USER" }, { PERF_SAMPLE_STACK_USER, "STACK_USER" },
		{ PERF_SAMPLE_WEIGHT, "WEIGHT" }, { PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
		{ PERF_SAMPLE_TRANSACTION, "TRANSACTION" }, { PERF_SAMPLE_REGS_INTR, "REGS_INTR" },
		{ PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { PERF_SAMPLE_AUX, "AUX" },
		{ PERF_SAMPLE_CGROUP, "CGROUP" }, { PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
		{ PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
		{ PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	};
	const char *sep = "";

	for (size_t i = 0; i < AMB_ARRAY_SIZE(bits); i++) {
		if (st & bits[i].bit) {
			if (amb_buf_printf(out, "%s%s", sep, bits[i].name))
				return -ENOMEM;
			sep = "|";
			st &= ~bits[i].bit;
		}
	}
	if (st && amb_buf_printf(out, "%s0x%" PRIx64, sep, st))
		return -ENOMEM;
	return 0;
}

/* The CPUs the topology names at most; keys are looked up one by one. */
#define TOPO_CPUS 4096
#define TOPO_NODES 1024

/* TOPOLOGY value of "@prefix.@n.@key" as a number, or -1. */
static long long topo_num(const struct ana_session *s, const char *prefix, int n, const char *key)
{
	char k[96], *end;
	const char *v;
	long long x;

	snprintf(k, sizeof(k), "%s.%d.%s", prefix, n, key);
	v = ana_session_topology(s, k);
	if (!v)
		return -1;
	x = strtoll(v, &end, 10);
	return end == v || x < 0 ? -1 : x;
}

/* Number of distinct values among @v[0..n). */
static size_t distinct(const uint64_t *v, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < i && v[j] != v[i]; j++)
			;
		d += j == i;
	}
	return d;
}

static int describe_cpus(const struct ana_session *s, struct amb_buf *out)
{
	uint64_t *pkg = malloc(TOPO_CPUS * 3 * sizeof(*pkg)), *die, *core;
	size_t n = 0, offline = 0, packages, dies, cores;
	int err = 0;

	if (!pkg)
		return -ENOMEM;
	die = pkg + TOPO_CPUS;
	core = die + TOPO_CPUS;
	for (int cpu = 0; cpu < TOPO_CPUS; cpu++) {
		long long p = topo_num(s, "cpu", cpu, "package");

		if (p < 0)
			continue;
		if (topo_num(s, "cpu", cpu, "online") == 0) {
			offline++;
			continue;
		}
		/* Identities that stay distinct across packages and dies (the
		 * numbers come from the file: unsigned, masked). */
		pkg[n] = (uint64_t)p;
		die[n] = ((uint64_t)p & 0xfffff) << 20 |
			 ((uint64_t)AMB_MAX(topo_num(s, "cpu", cpu, "die"), 0) & 0xfffff);
		core[n] = die[n] << 24 |
			  ((uint64_t)AMB_MAX(topo_num(s, "cpu", cpu, "core"), 0) & 0xffffff);
		n++;
	}
	if (!n && !offline)
		goto out;
	packages = distinct(pkg, n);
	dies = distinct(die, n);
	cores = distinct(core, n);
	err = amb_buf_printf(out, "cpus: %zu online in %zu package%s, %zu die%s, %zu core%s "
			     "(%zu thread%s per core)", n, packages, packages == 1 ? "" : "s", dies,
			     dies == 1 ? "" : "s", cores, cores == 1 ? "" : "s",
			     cores ? n / cores : 0, cores && n / cores == 1 ? "" : "s");
	if (!err && offline)
		err = amb_buf_printf(out, ", %zu offline", offline);
	if (!err)
		err = amb_buf_printf(out, "\n");
	err = err ? -ENOMEM : 1;
out:
	free(pkg);
	return err;
}

static int describe_nodes(const struct ana_session *s, struct amb_buf *out)
{
	int nodes = 0;

	for (int n = 0; n < TOPO_NODES; n++) {
		char k[64];
		const char *cpus;
		long long mem;

		snprintf(k, sizeof(k), "node.%d.cpus", n);
		cpus = ana_session_topology(s, k);
		if (!cpus)
			continue;
		mem = topo_num(s, "node", n, "mem_total");
		if (amb_buf_printf(out, "%snode %d: cpus %s", nodes ? "; " : "numa: ", n, cpus) ||
		    (mem >= 0 && amb_buf_printf(out, ", %.1f GiB", (double)mem / (1u << 30))))
			return -ENOMEM;
		nodes++;
	}
	if (nodes && amb_buf_printf(out, "\n"))
		return -ENOMEM;
	return nodes ? 1 : 0;
}

/* The caches of the first CPU that has any: "caches of cpu 0: L1d 48K,
 * L1i 32K, L2 2048K". */
static int describe_caches(const struct ana_session *s, struct amb_buf *out)
{
	for (int cpu = 0; cpu < TOPO_CPUS; cpu++) {
		int any = 0;

		for (int idx = 0; idx < 16; idx++) {
			char k[96];
			const char *type, *size;
			long long level;

			snprintf(k, sizeof(k), "cache.%d.%d.type", cpu, idx);
			type = ana_session_topology(s, k);
			snprintf(k, sizeof(k), "cache.%d.%d.size", cpu, idx);
			size = ana_session_topology(s, k);
			snprintf(k, sizeof(k), "cache.%d", cpu);
			level = topo_num(s, k, idx, "level");
			if (!type || !size || level < 0)
				continue;
			if ((!any && amb_buf_printf(out, "caches of cpu %d:", cpu)) ||
			    amb_buf_printf(out, "%s L%lld%s %s", any ? "," : "", level,
					   !strcmp(type, "Data") ? "d" :
					   !strcmp(type, "Instruction") ? "i" : "", size))
				return -ENOMEM;
			any++;
		}
		if (any)
			return amb_buf_printf(out, "\n") ? -ENOMEM : 1;
	}
	return 0;
}

int ana_describe_topology(const struct ana_session *s, struct amb_buf *out)
{
	int n = 0, err;

	err = describe_cpus(s, out);
	if (err < 0)
		return err;
	n += err;
	err = describe_nodes(s, out);
	if (err < 0)
		return err;
	n += err;
	err = describe_caches(s, out);
	if (err < 0)
		return err;
	return n + err;
}

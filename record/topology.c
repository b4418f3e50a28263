// SPDX-License-Identifier: MIT
/*
 * record/topology.c - the TOPOLOGY key/values (FORMAT.md §5.7): which core,
 * package, die and NUMA node each CPU belongs to, node distances, memory
 * and physical ranges, the memory block size and huge pages per node, and
 * CPU caches.  libnuma gives distances and sizes; sysfs gives everything
 * else.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "record/topology.h"

#define SYS_CPU  "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"
#define SYS_MEM  "/sys/devices/system/memory"
#define MAX_NODES 1024

/* Put the first line of sysfs file @path as the value of @key; a missing
 * file is skipped. */
static int put_file(struct amb_buf *b, const char *key, const char *path)
{
	char *s = amb_read_file(path, 4096, NULL);
	int err;

	if (!s)
		return 0;
	s[strcspn(s, "\n")] = '\0';
	err = amb_kv_put_str(b, key, s);
	free(s);
	return err;
}

static int put_fmt(struct amb_buf *b, const char *key, const char *fmt, ...) AMB_PRINTF(3, 4);
static int put_fmt(struct amb_buf *b, const char *key, const char *fmt, ...)
{
	char v[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return amb_kv_put_str(b, key, v);
}

/* The node a CPU or memory block directory links to ("nodeN"), or -1. */
static int dir_node(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int node = -1;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9') {
			node = atoi(de->d_name + 4);
			break;
		}
	closedir(d);
	return node;
}

static int put_cpu(struct amb_buf *b, int cpu)
{
	static const struct { const char *key, *file; } topo[] = {
		{ "core", "core_id" }, { "package", "physical_package_id" }, { "die", "die_id" },
	};
	char key[96], path[192];
	int err = 0;

	for (size_t i = 0; i < AMB_ARRAY_SIZE(topo) && !err; i++) {
		snprintf(key, sizeof(key), "cpu.%d.%s", cpu, topo[i].key);
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, topo[i].file);
		err = put_file(b, key, path);
	}
	snprintf(path, sizeof(path), SYS_CPU "/cpu%d", cpu);
	snprintf(key, sizeof(key), "cpu.%d.node", cpu);
	if (!err)
		err = put_fmt(b, key, "%d", AMB_MAX(dir_node(path), 0));
	snprintf(key, sizeof(key), "cpu.%d.online", cpu);
	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/online", cpu);
	/* cpu0 often has no "online" file: it cannot be offlined. */
	if (!err)
		err = access(path, R_OK) ? amb_kv_put_str(b, key, "1") : put_file(b, key, path);

	for (int idx = 0; !err; idx++) {
		static const char *const fields[] = { "level", "type", "size", "ways", "shared_cpus" };
		static const char *const files[] = { "level", "type", "size",
						     "ways_of_associativity", "shared_cpu_list" };
		char dir[160];

		snprintf(dir, sizeof(dir), SYS_CPU "/cpu%d/cache/index%d", cpu, idx);
		if (access(dir, F_OK))
			break;
		for (size_t f = 0; f < AMB_ARRAY_SIZE(fields) && !err; f++) {
			snprintf(key, sizeof(key), "cache.%d.%d.%s", cpu, idx, fields[f]);
			snprintf(path, sizeof(path), "%s/%s", dir, files[f]);
			err = put_file(b, key, path);
		}
		snprintf(key, sizeof(key), "cache.%d.%d.line", cpu, idx);
		snprintf(path, sizeof(path), "%s/coherency_line_size", dir);
		if (!err)
			err = put_file(b, key, path);
	}
	return err;
}

/* Physical ranges of every node from the memory blocks in sysfs, merged
 * where contiguous: "start-end,..." in hex, end exclusive. */
static int collect_ranges(struct amb_buf *ranges, int nr_nodes)
{
	char *s = amb_read_file(SYS_MEM "/block_size_bytes", 64, NULL);
	uint64_t bsz = s ? strtoull(s, NULL, 16) : 0;
	uint64_t *last_end = calloc((size_t)nr_nodes, sizeof(*last_end));
	long max_block = -1;
	DIR *d;
	struct dirent *de;
	int err = 0;

	free(s);
	if (!last_end)
		return -ENOMEM;
	if (!bsz || !(d = opendir(SYS_MEM))) {
		free(last_end);
		return -ENOENT;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "memory", 6) && de->d_name[6] >= '0' && de->d_name[6] <= '9')
			max_block = AMB_MAX(max_block, atol(de->d_name + 6));
	closedir(d);
	/* Walk blocks in address order so that ranges come out merged. */
	for (long i = 0; i <= max_block && !err; i++) {
		char dir[96];
		uint64_t start = (uint64_t)i * bsz;
		int node;

		snprintf(dir, sizeof(dir), SYS_MEM "/memory%ld", i);
		node = dir_node(dir);
		if (node < 0 || node >= nr_nodes)
			continue;
		if (last_end[node] == start && ranges[node].len) {
			/* extend: rewrite the end of the last range */
			char *dash = memrchr(ranges[node].data, '-', ranges[node].len);

			assert(dash);
			ranges[node].len = (size_t)(dash - (char *)ranges[node].data) + 1;
			err = amb_buf_printf(&ranges[node], "%" PRIx64, start + bsz);
		} else {
			err = amb_buf_printf(&ranges[node], "%s%" PRIx64 "-%" PRIx64,
					     ranges[node].len ? "," : "", start, start + bsz);
		}
		last_end[node] = start + bsz;
	}
	free(last_end);
	return err;
}

/* Fallback when there are no memory blocks: zone spans of /proc/zoneinfo.
 * Returns 0 or -ENOMEM. */
static int zoneinfo_ranges(struct amb_buf *ranges, int nr_nodes)
{
	char *z = amb_read_file("/proc/zoneinfo", 16u << 20, NULL);
	long psz = sysconf(_SC_PAGESIZE);
	int node = -1, err = 0;
	uint64_t spanned = 0;

	for (char *save = NULL, *l = z ? strtok_r(z, "\n", &save) : NULL; l && !err;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;

		if (sscanf(l, "Node %d,", &node) == 1)
			spanned = 0;
		else if (sscanf(l, " spanned %llu", &v) == 1)
			spanned = v;
		else if (sscanf(l, " start_pfn: %llu", &v) == 1 && spanned &&
			 node >= 0 && node < nr_nodes)
			err = amb_buf_printf(&ranges[node], "%s%llx-%llx", ranges[node].len ? "," : "",
					     v * (uint64_t)psz, (v + spanned) * (uint64_t)psz);
	}
	free(z);
	return err;
}

/* node.N.hugepages.SIZEkB.total and .free: the huge pages of each size the
 * node holds, from its hugepages/hugepages-SIZEkB directories. */
static int put_hugepages(struct amb_buf *b, int n)
{
	char dir[96];
	DIR *d;
	struct dirent *de;
	int err = 0;

	snprintf(dir, sizeof(dir), SYS_NODE "/node%d/hugepages", n);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		static const char *const what[][2] = { { "total", "nr_hugepages" },
						       { "free", "free_hugepages" } };
		unsigned long kb;
		char key[96], path[384], tail;

		if (sscanf(de->d_name, "hugepages-%lukB%c", &kb, &tail) != 1)
			continue;
		for (size_t i = 0; i < AMB_ARRAY_SIZE(what) && !err; i++) {
			snprintf(key, sizeof(key), "node.%d.hugepages.%lukB.%s", n, kb, what[i][0]);
			snprintf(path, sizeof(path), "%s/%s/%s", dir, de->d_name, what[i][1]);
			err = put_file(b, key, path);
		}
	}
	closedir(d);
	return err;
}

static int put_nodes(struct amb_buf *b)
{
	bool have_numa = numa_available() >= 0;
	int nr_nodes = have_numa ? numa_max_node() + 1 : 1;
	struct amb_buf *ranges;
	char key[64], path[128];
	int err = 0;

	if (nr_nodes <= 0 || nr_nodes > MAX_NODES)
		nr_nodes = 1;
	ranges = calloc((size_t)nr_nodes, sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;
	err = collect_ranges(ranges, nr_nodes);
	if (err == -ENOENT)
		err = zoneinfo_ranges(ranges, nr_nodes);

	for (int n = 0; n < nr_nodes && !err; n++) {
		snprintf(path, sizeof(path), SYS_NODE "/node%d", n);
		if (access(path, F_OK))
			continue;
		snprintf(key, sizeof(key), "node.%d.cpus", n);
		snprintf(path, sizeof(path), SYS_NODE "/node%d/cpulist", n);
		err = put_file(b, key, path);
		if (!err && have_numa) {
			struct amb_buf dist = AMB_BUF_INIT;
			long long total = numa_node_size64(n, NULL);

			snprintf(key, sizeof(key), "node.%d.mem_total", n);
			if (total > 0)
				err = put_fmt(b, key, "%lld", total);
			for (int m = 0; m < nr_nodes && !err; m++)
				err = amb_buf_printf(&dist, "%s%d", m ? " " : "", numa_distance(n, m));
			snprintf(key, sizeof(key), "node.%d.distance", n);
			if (!err)
				err = amb_kv_put(b, key, dist.data, dist.len);
			amb_buf_free(&dist);
		}
		snprintf(key, sizeof(key), "node.%d.ranges", n);
		if (!err && ranges[n].len)
			err = amb_kv_put(b, key, ranges[n].data, ranges[n].len);
		if (!err)
			err = put_hugepages(b, n);
	}
	for (int n = 0; n < nr_nodes; n++)
		amb_buf_free(&ranges[n]);
	free(ranges);
	return err;
}

int rec_topology_build(struct amb_buf *b)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int err = 0;

	char *bsz = amb_read_file(SYS_MEM "/block_size_bytes", 64, NULL);

	for (int cpu = 0; cpu < ncpu && !err; cpu++)
		err = put_cpu(b, cpu);
	if (!err)
		err = put_nodes(b);
	/* The granule of node.N.ranges: memory is hot-plugged, and moves
	 * between nodes, a block at a time. */
	if (!err && bsz && strtoull(bsz, NULL, 16))
		err = put_fmt(b, "memory.block_size", "%llu", strtoull(bsz, NULL, 16));
	free(bsz);
	return err;
}

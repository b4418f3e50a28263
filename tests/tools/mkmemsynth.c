// SPDX-License-Identifier: MIT
/*
 * tests/tools/mkmemsynth.c - write a deterministic recording of memory
 * samples on a machine of two or four NUMA nodes, for the node, remote
 * and mem tests (tests/cli/test_mem.sh).
 *
 * usage: mkmemsynth [--nodes 2|4] [--no-phys] OUT
 *
 * The machine: two CPUs per node (node n has CPUs 2n and 2n+1), distances
 * 10 and 21, physical ranges (2 nodes: node 0 [0, 4G), node 1 [4G, 8G);
 * 4 nodes: 1 GiB each below 4G, then 1 GiB each again from 4G for nodes
 * 0, 1 and 3, node 2 having none there - a hole at [6G, 7G)).
 * The events: "cpu/mem-loads,ldlat=30/P" with ADDR, WEIGHT, DATA_SRC and
 * (without --no-phys) PHYS_ADDR; and cpu-clock, which records none of
 * them.  Process 100 maps [heap] at 0x1000000 (1 MiB); each CPU c runs
 * thread 100 + c, and every memory sample's data address is in the heap.
 *
 * Samples of each CPU, in this order:
 *   2 nodes: 10 * (n + 1) into each node n; then 3 with no physical
 *            address (0) and 2 at 12G, in no range;
 *   4 nodes: 5 into each node (alternating its two ranges where it has
 *            two), then 1 at 6.5G, in the hole.
 * A sample into node n weighs 100 * (n + 1), but the first sample CPU 0
 * takes into each node weighs 10000; a sample of no node weighs 5.  Its
 * data source: local RAM (snoop hit) from a CPU of the node, remote RAM
 * one hop away ("Remote node, same socket RAM hit") from another; an L1
 * hit for a sample of no node.  Each CPU also takes 2 cpu-clock samples.
 * So, 2 nodes: node 0 has 40 samples (20 local), node 1 80 (40 local),
 * unknown 20; 4 nodes: 40 per node (10 local), unknown 8.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include <amber/format.h>
#include "tests/unit/analyze/synth.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | \
	    PERF_SAMPLE_DATA_SRC)
#define ST_CLOCK (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define ST_ID (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

#define T0 2000000000000ull
#define ID_MEM0 101           /* mem-loads ids, one per CPU */
#define ID_CLOCK0 201
#define PID 100
#define HEAP 0x1000000ull
#define GIB (1ull << 30)

#define P(a, b) PERF_MEM_S(a, b)
#define LEVEL(n) ((uint64_t)(n) << PERF_MEM_LVLNUM_SHIFT)
#define DS_LOCAL (P(OP, LOAD) | P(LVL, HIT) | P(LVL, LOC_RAM) | LEVEL(0x0d) | P(SNOOP, HIT))
#define DS_REMOTE (P(OP, LOAD) | P(LVL, HIT) | P(LVL, REM_RAM1) | LEVEL(0x0d) | \
		   P(REMOTE, REMOTE) | ((uint64_t)PERF_MEM_HOPS_1 << PERF_MEM_HOPS_SHIFT) | \
		   P(SNOOP, HIT))
#define DS_L1 (P(OP, LOAD) | P(LVL, HIT) | P(LVL, L1) | LEVEL(0x01) | P(SNOOP, NONE))

static unsigned nodes = 2;
static bool phys = true;

static int append(struct amb_writer *w, uint16_t type, uint32_t stream, uint64_t count,
		  uint64_t t0, uint64_t t1, struct amb_buf *b)
{
	struct amb_block_desc d = { type, stream, count, t0, t1 };
	int err = amb_writer_append(w, &d, b->data, b->len);

	amb_buf_reset(b);
	return err;
}

static int add(struct amb_buf *b, const struct syn_rec *s, uint64_t *count)
{
	(*count)++;
	return amb_buf_append(b, s->b, s->len);
}

/* The key/value pairs of @b, for the block's record count. */
static uint64_t kv_count(const struct amb_buf *b)
{
	struct amb_cursor c;
	struct amb_kv kv;
	uint64_t n = 0;

	amb_cursor_init(&c, b->data, b->len);
	while (amb_kv_next(&c, &kv) == 1)
		n++;
	return n;
}

static int put(struct amb_buf *b, const char *key, const char *fmt, ...) AMB_PRINTF(3, 4);
static int put(struct amb_buf *b, const char *key, const char *fmt, ...)
{
	char v[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return amb_kv_put_str(b, key, v);
}

static int topology(struct amb_buf *b)
{
	char key[64], dist[64];
	int err = 0;

	for (unsigned c = 0; c < 2 * nodes && !err; c++) {
		snprintf(key, sizeof(key), "cpu.%u.core", c);
		err = put(b, key, "%u", c % 2);
		snprintf(key, sizeof(key), "cpu.%u.package", c);
		err = err ? err : put(b, key, "%u", c / 2);
		snprintf(key, sizeof(key), "cpu.%u.die", c);
		err = err ? err : put(b, key, "0");
		snprintf(key, sizeof(key), "cpu.%u.node", c);
		err = err ? err : put(b, key, "%u", c / 2);
		snprintf(key, sizeof(key), "cpu.%u.online", c);
		err = err ? err : put(b, key, "1");
	}
	for (unsigned n = 0; n < nodes && !err; n++) {
		size_t len = 0;

		snprintf(key, sizeof(key), "node.%u.cpus", n);
		err = put(b, key, "%u-%u", 2 * n, 2 * n + 1);
		snprintf(key, sizeof(key), "node.%u.mem_total", n);
		err = err ? err : put(b, key, "%llu", nodes == 2 ? 4 * GIB : (n == 2 ? 1 : 2) * GIB);
		snprintf(key, sizeof(key), "node.%u.ranges", n);
		if (nodes == 2)
			err = err ? err : put(b, key, "%llx-%llx", n * 4 * GIB, (n + 1) * 4 * GIB);
		else if (n == 2)
			err = err ? err : put(b, key, "%llx-%llx", 2 * GIB, 3 * GIB);
		else
			err = err ? err : put(b, key, "%llx-%llx,%llx-%llx", n * GIB, (n + 1) * GIB,
					      (4 + n) * GIB, (5 + n) * GIB);
		for (unsigned m = 0; m < nodes; m++)
			len += (size_t)snprintf(dist + len, sizeof(dist) - len, "%s%u", m ? " " : "",
						m == n ? 10 : 21);
		snprintf(key, sizeof(key), "node.%u.distance", n);
		err = err ? err : amb_kv_put_str(b, key, dist);
		snprintf(key, sizeof(key), "node.%u.hugepages.2048kB.total", n);
		err = err ? err : put(b, key, "%u", 8 * (n + 1));
		snprintf(key, sizeof(key), "node.%u.hugepages.2048kB.free", n);
		err = err ? err : put(b, key, "%u", n);
	}
	if (!err)
		err = put(b, "memory.block_size", "%llu", 128ull << 20);
	for (unsigned c = 0; c < 2 * nodes && !err; c++) {
		snprintf(key, sizeof(key), "cache.%u.0.level", c);
		err = put(b, key, "1");
		snprintf(key, sizeof(key), "cache.%u.0.type", c);
		err = err ? err : put(b, key, "Data");
		snprintf(key, sizeof(key), "cache.%u.0.size", c);
		err = err ? err : put(b, key, "32K");
		snprintf(key, sizeof(key), "cache.%u.0.shared_cpus", c);
		err = err ? err : put(b, key, "%u", c);
		snprintf(key, sizeof(key), "cache.%u.1.level", c);
		err = err ? err : put(b, key, "3");
		snprintf(key, sizeof(key), "cache.%u.1.type", c);
		err = err ? err : put(b, key, "Unified");
		snprintf(key, sizeof(key), "cache.%u.1.size", c);
		err = err ? err : put(b, key, "16M");
		snprintf(key, sizeof(key), "cache.%u.1.shared_cpus", c);
		err = err ? err : put(b, key, "%u-%u", c / 2 * 2, c / 2 * 2 + 1);
	}
	return err;
}

/* The physical address of the @i-th sample a CPU takes into node @n. */
static uint64_t phys_in(unsigned n, unsigned i)
{
	uint64_t off = 0x1000ull * (i + 1) + 0x40;

	if (nodes == 2)
		return n * 4 * GIB + off;
	if (n == 2 || i % 2 == 0)
		return n * GIB + off;
	return (4 + n) * GIB + off;
}

static void mem_sample(struct syn_rec *s, unsigned cpu, uint64_t t, uint64_t addr,
		       uint64_t weight, uint64_t data_src, uint64_t pa)
{
	syn_begin(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	syn_u64(s, ID_MEM0 + cpu);
	syn_u64(s, 0x401000u + cpu);
	syn_u32(s, PID);
	syn_u32(s, PID + cpu);
	syn_u64(s, t);
	syn_u64(s, addr);
	syn_u32(s, cpu);
	syn_u32(s, 0);
	syn_u64(s, 30);
	syn_u64(s, weight);
	syn_u64(s, data_src);
	if (phys)
		syn_u64(s, pa);
	syn_end(s);
}

static int ring(struct amb_writer *w, struct amb_buf *b, struct syn_rec *s, unsigned cpu)
{
	uint64_t n = 0, t = T0 + 1000 + cpu * 10, first = t, addr = HEAP + 0x100;
	unsigned cpu_node = cpu / 2;
	int err = 0;

	for (unsigned node = 0; node < nodes && !err; node++) {
		unsigned count = nodes == 2 ? 10 * (node + 1) : 5;

		for (unsigned i = 0; i < count && !err; i++) {
			uint64_t weight = cpu == 0 && i == 0 ? 10000 : 100 * (node + 1);

			t += 1000;
			mem_sample(s, cpu, t, addr, weight, node == cpu_node ? DS_LOCAL : DS_REMOTE,
				   phys_in(node, i));
			addr += 64;
			err = add(b, s, &n);
		}
	}
	for (unsigned i = 0; i < (nodes == 2 ? 5u : 1u) && !err; i++) {
		t += 1000;
		mem_sample(s, cpu, t, addr, 5, DS_L1,
			   nodes == 4 ? 6 * GIB + GIB / 2 : i < 3 ? 0 : 12 * GIB + i * 0x1000);
		err = add(b, s, &n);
	}
	for (unsigned i = 0; i < 2 && !err; i++) {
		t += 1000;
		syn_simple_sample(s, ST_CLOCK, ID_CLOCK0 + cpu, 0x401800u, PID, PID + cpu, t, cpu,
				  1000000);
		err = add(b, s, &n);
	}
	if (err)
		return err;
	return append(w, AMB_BLOCK_RING, cpu, n, first, t, b);
}

static int event(struct amb_buf *b, const char *name, uint32_t type, uint64_t config,
		 uint64_t config1, uint64_t st, uint64_t id0, bool first)
{
	struct perf_event_attr a;
	struct amb_event_entry e;
	uint8_t ids[8 * 8];

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.sample_type = st;
	a.sample_period = 30;
	a.precise_ip = type == 4 ? 3 : 0;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.mmap_data = first;
	for (unsigned c = 0; c < 2 * nodes; c++)
		amb_put_le64(ids + 8 * c, id0 + c);
	e = (struct amb_event_entry){ (const uint8_t *)&a, sizeof(a), name, (uint32_t)strlen(name),
				      UINT32_MAX, 0, 2 * nodes, ids };
	return amb_event_put(b, &e);
}

int main(int argc, char **argv)
{
	static const uint8_t uuid[16] = { 0x6d, 0x65, 0x6d, 0x73, 0x79, 0x6e, 0x74, 0x68,
					  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_writer *w = NULL;
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	const char *out = NULL;
	struct syn_rec *s;
	uint64_t n = 0, st;
	int err = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
			nodes = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-phys"))
			phys = false;
		else if (!out && argv[i][0] != '-')
			out = argv[i];
		else
			out = NULL, i = argc;
	}
	if (!out || (nodes != 2 && nodes != 4)) {
		fprintf(stderr, "usage: mkmemsynth [--nodes 2|4] [--no-phys] OUT\n");
		return 2;
	}
	st = ST | (phys ? PERF_SAMPLE_PHYS_ADDR : 0);
	s = calloc(1, sizeof(*s));
	if (!s)
		return 1;
	o.threads = 0;
	o.uuid = uuid;
	o.created_ns = 1767225600ull * 1000000000ull;  /* 2026-01-01 00:00:00 UTC */
	err = amb_writer_open(out, &o, &w);
	if (err)
		goto out;

	err = amb_kv_put_str(&b, "amber.version", "mkmemsynth");
	if (!err)
		err = amb_kv_put_str(&b, "hostname", nodes == 2 ? "synth-2node" : "synth-4node");
	if (!err)
		err = amb_kv_put_str(&b, "clock", "monotonic");
	if (!err)
		err = amb_kv_put_str(&b, "cmdline", "mkmemsynth");
	if (err || (err = append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 4, 0, 0, &b)))
		goto out;
	err = event(&b, "cpu/mem-loads,ldlat=30/P", 4, 0x1cd, 30, st, ID_MEM0, true);
	if (!err)
		err = event(&b, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, ST_CLOCK,
			    ID_CLOCK0, false);
	if (err || (err = append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 2, 0, 0, &b)))
		goto out;
	err = topology(&b);
	if (err || (err = append(w, AMB_BLOCK_TOPOLOGY, AMB_STREAM_NONE, kv_count(&b), 0, 0, &b)))
		goto out;

	/* The process, its threads and its heap. */
	syn_comm(s, ST_ID, PID, PID, "numa-synth", false, T0, ID_MEM0, 0);
	err = add(&b, s, &n);
	for (unsigned c = 1; c < 2 * nodes && !err; c++) {
		syn_fork(s, PERF_RECORD_FORK, ST_ID, PID, PID, PID + c, PID, T0, ID_MEM0, 0);
		err = add(&b, s, &n);
	}
	syn_begin(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	syn_u32(s, PID);
	syn_u32(s, PID);
	syn_u64(s, HEAP);
	syn_u64(s, 1u << 20);
	syn_u64(s, HEAP >> 12);
	syn_u32(s, 0);
	syn_u32(s, 0);
	syn_u64(s, 0);
	syn_u64(s, 0);
	syn_u32(s, 3);                /* PROT_READ | PROT_WRITE */
	syn_u32(s, 2);                /* MAP_PRIVATE */
	syn_str(s, "[heap]");
	syn_sample_id(s, ST_ID, PID, PID, T0, ID_MEM0, 0);
	syn_end(s);
	if (!err)
		err = add(&b, s, &n);
	if (err || (err = append(w, AMB_BLOCK_SYNTH, AMB_STREAM_NONE, n, T0, T0, &b)))
		goto out;
	for (unsigned c = 0; c < 2 * nodes && !err; c++)
		err = ring(w, &b, s, c);
out:
	if (w) {
		int cerr = amb_writer_close(w);

		err = err ? err : cerr;
	}
	amb_buf_free(&b);
	free(s);
	if (err) {
		fprintf(stderr, "mkmemsynth: error: %s: %s\n", out, amb_strerror(err));
		return 1;
	}
	return 0;
}

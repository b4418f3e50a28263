// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/resolve/hwtopo.c: the TOPOLOGY keys of two- and
 * four-node machines as amber-rec writes them (record/topology.c), node
 * attribution of physical addresses at every edge of their ranges, the
 * CPU -> node map, and what a damaged topology gives: values that do not
 * parse are left out and counted, and an address several nodes claim, or
 * none does, has no node.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/resolve/hwtopo.h"

static struct ana_hwtopo *build(const char *const (*kv)[2], size_t n)
{
	struct ana_hwtopo *t = ana_hwtopo_new();

	assert_non_null(t);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ana_hwtopo_add(t, kv[i][0], kv[i][1]), 0);
	assert_int_equal(ana_hwtopo_finish(t), 0);
	return t;
}

#define BUILD(kv) build(kv, sizeof(kv) / sizeof(kv[0]))

static void test_two_nodes(void **state)
{
	static const char *const kv[][2] = {
		{ "cpu.0.core", "0" }, { "cpu.0.package", "0" }, { "cpu.0.die", "0" },
		{ "cpu.0.node", "0" }, { "cpu.0.online", "1" },
		{ "cpu.1.core", "1" }, { "cpu.1.package", "0" }, { "cpu.1.node", "0" },
		{ "cpu.2.core", "0" }, { "cpu.2.package", "1" }, { "cpu.2.die", "-1" },
		{ "cpu.2.node", "1" }, { "cpu.3.node", "1" }, { "cpu.3.online", "0" },
		{ "node.0.cpus", "0-1" }, { "node.0.mem_total", "4294967296" },
		{ "node.0.ranges", "0-80000000,100000000-180000000" },
		{ "node.0.distance", "10 21" },
		{ "node.0.hugepages.2048kB.total", "16" }, { "node.0.hugepages.2048kB.free", "4" },
		{ "node.0.hugepages.1048576kB.total", "1" },
		{ "node.1.cpus", "2-3" }, { "node.1.mem_total", "2147483648" },
		{ "node.1.ranges", "180000000-200000000" }, { "node.1.distance", "21 10" },
		{ "memory.block_size", "134217728" },
		{ "cache.0.0.level", "1" }, { "cache.0.0.type", "Data" }, { "cache.0.0.size", "48K" },
		{ "cache.0.0.line", "64" }, { "cache.0.0.ways", "12" },
		{ "cache.0.0.shared_cpus", "0" }, { "cache.0.3.level", "3" },
		{ "cache.0.3.size", "32M" }, { "cache.0.3.type", "Unified" },
		{ "other.key", "x" }, { "cpu.0.unknown_field", "zz" },
	};
	struct ana_hwtopo *t;

	(void)state;
	t = BUILD(kv);
	assert_int_equal(t->bad_keys, 0);
	assert_int_equal(t->nr_cpus, 4);
	assert_int_equal(t->cpus[0].core, 0);
	assert_int_equal(t->cpus[1].core, 1);
	assert_int_equal(t->cpus[2].package, 1);
	assert_int_equal(t->cpus[2].die, -1);
	assert_int_equal(t->cpus[3].online, 0);
	assert_int_equal(t->cpus[3].core, -1);
	assert_int_equal(t->cpus[1].online, -1);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 0), 0);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 1), 0);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 2), 1);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 3), 1);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 4), -1);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, UINT32_MAX), -1);

	assert_int_equal(t->nr_nodes, 2);
	assert_string_equal(t->nodes[0].cpus, "0-1");
	assert_int_equal(t->nodes[0].nr_cpus, 2);
	assert_int_equal(t->nodes[0].mem_total, 4294967296ull);
	assert_int_equal(t->nodes[0].nr_distance, 2);
	assert_int_equal(t->nodes[0].distance[1], 21);
	assert_int_equal(t->nodes[1].distance[1], 10);
	assert_int_equal(t->nodes[0].nr_ranges, 2);
	assert_int_equal(t->nodes[0].range_bytes, 0x100000000ull);
	assert_int_equal(t->nodes[0].nr_hp, 2);
	assert_int_equal(t->nodes[0].hp[0].size_kb, 2048);
	assert_int_equal(t->nodes[0].hp[0].total, 16);
	assert_int_equal(t->nodes[0].hp[0].free, 4);
	assert_true(t->nodes[0].hp[1].have_total && !t->nodes[0].hp[1].have_free);
	assert_int_equal(t->block_size, 134217728);
	assert_int_equal(t->nr_caches, 2);
	assert_int_equal(t->caches[0].size, 48 * 1024);
	assert_int_equal(t->caches[0].ways, 12);
	assert_string_equal(t->caches[0].type, "Data");
	assert_string_equal(t->caches[0].shared_cpus, "0");
	assert_int_equal(t->caches[1].index, 3);
	assert_int_equal(t->caches[1].size, 32u << 20);
	assert_null(t->caches[1].shared_cpus);

	/* node 1's range follows node 0's second one: merged, but not across
	 * nodes. */
	assert_true(ana_hwtopo_has_ranges(t));
	assert_int_equal(t->nr_ranges, 3);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0), -1);      /* no address */
	assert_int_equal(ana_hwtopo_node_of_phys(t, 1), 0);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x7fffffff), 0);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x80000000), -1); /* the hole */
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0xffffffff), -1);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x100000000ull), 0);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x17fffffffull), 0);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x180000000ull), 1);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x1ffffffffull), 1);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x200000000ull), -1); /* past the end */
	assert_int_equal(ana_hwtopo_node_of_phys(t, UINT64_MAX), -1);
	ana_hwtopo_free(t);
}

/* Four nodes, their ranges interleaved the way memory blocks are. */
static void test_four_nodes(void **state)
{
	static const char *const kv[][2] = {
		{ "node.0.ranges", "0-40000000,100000000-140000000" },
		{ "node.1.ranges", "40000000-80000000,140000000-180000000" },
		{ "node.2.ranges", "80000000-c0000000" },
		{ "node.3.ranges", "c0000000-100000000,180000000-1c0000000" },
		{ "node.3.distance", "31 21 21 10" }, { "node.3.cpus", "6-7" },
		{ "cpu.6.node", "3" }, { "cpu.7.node", "3" }, { "cpu.0.node", "0" },
	};
	static const struct { uint64_t phys; int node; } at[] = {
		{ 0x1000, 0 }, { 0x3fffffff, 0 }, { 0x40000000, 1 }, { 0x7fffffff, 1 },
		{ 0x80000000, 2 }, { 0xbfffffff, 2 }, { 0xc0000000, 3 }, { 0xffffffff, 3 },
		{ 0x100000000ull, 0 }, { 0x13fffffffull, 0 }, { 0x140000000ull, 1 },
		{ 0x17fffffffull, 1 }, { 0x180000000ull, 3 }, { 0x1bfffffffull, 3 },
		{ 0x1c0000000ull, -1 }, { 0x7000000000ull, -1 },
	};
	struct ana_hwtopo *t;

	(void)state;
	t = BUILD(kv);
	assert_int_equal(t->nr_nodes, 4);
	assert_int_equal(t->nr_ranges, 7);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (ana_hwtopo_node_of_phys(t, at[i].phys) != at[i].node)
			fail_msg("0x%llx: node %d, want %d", (unsigned long long)at[i].phys,
				 ana_hwtopo_node_of_phys(t, at[i].phys), at[i].node);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 7), 3);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 3), -1);   /* not recorded */
	assert_int_equal(t->nodes[3].nr_cpus, 2);
	assert_int_equal(t->nodes[3].nr_distance, 4);
	ana_hwtopo_free(t);
}

/* What two nodes claim is neither's; a range of one node that others
 * overlap keeps the rest. */
static void test_overlaps(void **state)
{
	static const char *const kv[][2] = {
		{ "node.0.ranges", "1000-5000" },
		{ "node.1.ranges", "3000-8000" },
		{ "node.2.ranges", "2000-2800,20000-30000" },
		{ "node.3.ranges", "24000-25000" },
		/* the same node twice: still its own */
		{ "node.4.ranges", "40000-48000,44000-50000" },
	};
	static const struct { uint64_t phys; int node; } at[] = {
		{ 0x1000, 0 }, { 0x1fff, 0 }, { 0x2000, -1 }, { 0x27ff, -1 }, { 0x2800, 0 },
		{ 0x2fff, 0 }, { 0x3000, -1 }, { 0x4fff, -1 }, { 0x5000, 1 }, { 0x7fff, 1 },
		{ 0x8000, -1 }, { 0x20000, 2 }, { 0x23fff, 2 }, { 0x24000, -1 }, { 0x24fff, -1 },
		{ 0x25000, 2 }, { 0x2ffff, 2 }, { 0x40000, 4 }, { 0x46000, 4 }, { 0x4ffff, 4 },
		{ 0x50000, -1 },
	};
	struct ana_hwtopo *t;

	(void)state;
	t = BUILD(kv);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (ana_hwtopo_node_of_phys(t, at[i].phys) != at[i].node)
			fail_msg("0x%llx: node %d, want %d", (unsigned long long)at[i].phys,
				 ana_hwtopo_node_of_phys(t, at[i].phys), at[i].node);
	/* The list stays sorted and disjoint. */
	for (size_t i = 1; i < t->nr_ranges; i++)
		assert_true(t->ranges[i - 1].end <= t->ranges[i].start);
	ana_hwtopo_free(t);
}

/* Values that do not parse are counted and left out, whole. */
static void test_bad_values(void **state)
{
	static const char *const kv[][2] = {
		{ "cpu.0.node", "x" }, { "cpu.1.node", "-2" }, { "cpu.2.online", "2" },
		{ "cpu.65536.node", "0" }, { "cpu.01.node", "0" }, { "cpu..node", "0" },
		{ "cpu.3node", "0" }, { "node.0.ranges", "1000-2000,3000" },
		{ "node.0.ranges", "1000-2000," }, { "node.1.ranges", "5000-4000" },
		{ "node.1.ranges", "zz-30000" }, { "node.4096.ranges", "0-1000" },
		{ "node.2.distance", "10  20" }, { "node.2.distance", "" },
		{ "node.2.distance", "10 x" }, { "node.2.mem_total", "-1" },
		{ "node.2.mem_total", "99999999999999999999999" }, { "node.2.cpus", "0-" },
		{ "node.2.hugepages.0kB.total", "1" }, { "node.2.hugepages.2048kB.used", "1" },
		{ "node.2.hugepages.2048kB.total", "1x" }, { "cache.0.0.size", "K" },
		{ "cache.0.64.level", "1" }, { "cache.0.0.level", "one" },
		{ "cache.0.0.type", "a type name far too long" }, { "memory.block_size", "0x10" },
		/* and good ones among them */
		{ "node.3.ranges", "10000-20000" }, { "cpu.5.node", "3" },
		{ "node.2.cpus", "" },
	};
	struct ana_hwtopo *t;

	(void)state;
	t = BUILD(kv);
	assert_int_equal(t->bad_keys, 26);
	assert_int_equal(t->nr_ranges, 1);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x1000), -1);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x10000), 3);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 5), 3);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 0), -1);
	assert_int_equal(t->nodes[2].nr_distance, 0);
	assert_false(t->nodes[2].have_mem_total);
	assert_int_equal(t->nodes[2].nr_cpus, 0);
	assert_int_equal(t->nodes[2].nr_hp, 0);
	assert_int_equal(t->block_size, 0);
	ana_hwtopo_free(t);

	/* Nothing recorded: no node for anything. */
	t = ana_hwtopo_new();
	assert_non_null(t);
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x1000), -1);   /* not finished */
	assert_int_equal(ana_hwtopo_finish(t), 0);
	assert_false(ana_hwtopo_has_ranges(t));
	assert_int_equal(ana_hwtopo_node_of_phys(t, 0x1000), -1);
	assert_int_equal(ana_hwtopo_node_of_cpu(t, 0), -1);
	assert_int_equal(ana_hwtopo_add(t, "cpu.0.node", "0"), -EINVAL);  /* finished */
	ana_hwtopo_free(t);
	ana_hwtopo_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_nodes),
		cmocka_unit_test(test_four_nodes),
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/hwtopo.h - the recorded machine (hwtopo.c): its CPUs,
 * NUMA nodes, physical memory ranges, distances, huge pages and caches, as
 * the TOPOLOGY block describes them (docs/FORMAT.md §5.7), and the
 * questions the kernel does not answer in a sample: which node backs a
 * physical address, which node a CPU belongs to.
 *
 * Attribution uses what the recording says of the machine it was made on,
 * never the analysing machine; an address no recorded range holds, or one
 * that two nodes' ranges both claim (a damaged file), has no node.
 */
#ifndef AMB_ANALYZE_HWTOPO_H
#define AMB_ANALYZE_HWTOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay/replay.h"

/* Limits on what a file may ask for; keys beyond them are left out. */
#define ANA_HWTOPO_MAX_CPUS     65536u
#define ANA_HWTOPO_MAX_NODES    4096u
#define ANA_HWTOPO_MAX_RANGES   (1u << 18)   /* all nodes together */
#define ANA_HWTOPO_MAX_CACHES   (1u << 18)
#define ANA_HWTOPO_MAX_HP_SIZES 16u          /* huge page sizes per node */

/* One CPU: cpu.N.* keys.  Fields the recording lacks are -1. */
struct ana_hwtopo_cpu {
	bool present;          /* some cpu.N key was recorded */
	int core, package, die, node;
	int online;            /* 1, 0, or -1 */
};

/* Huge pages of one size on a node: node.N.hugepages.SIZEkB.* keys. */
struct ana_hwtopo_hugepages {
	uint64_t size_kb;
	uint64_t total, free;
	bool have_total, have_free;
};

/* One NUMA node: node.N.* keys. */
struct ana_hwtopo_node {
	bool present;
	char *cpus;            /* node.N.cpus as recorded (a CPU list), or NULL */
	unsigned nr_cpus;      /* CPUs in that list */
	uint64_t mem_total;    /* bytes; have_mem_total says whether recorded */
	bool have_mem_total;
	uint32_t *distance;    /* node.N.distance: to nodes 0..nr_distance-1 */
	size_t nr_distance;
	struct ana_hwtopo_hugepages hp[ANA_HWTOPO_MAX_HP_SIZES];
	size_t nr_hp;
	uint64_t range_bytes;  /* what its recorded ranges span */
	size_t nr_ranges;      /* ranges recorded for it (before merging) */
};

/* A physical range [start, end) and the node it belongs to, or -1 when
 * the ranges of several nodes claim it. */
struct ana_hwtopo_range {
	uint64_t start, end;
	int node;
};

/* One cache of one CPU: cache.CPU.INDEX.* keys. */
struct ana_hwtopo_cache {
	uint32_t cpu, index;
	int level;             /* -1 when not recorded */
	char type[16];         /* "Data", "Instruction", "Unified", or "" */
	uint64_t size;         /* bytes, 0 when not recorded */
	unsigned line, ways;   /* 0 when not recorded */
	char *shared_cpus;     /* as recorded, or NULL */
};

/* The recorded machine.  Arrays are indexed by CPU and node number. */
struct ana_hwtopo {
	struct ana_hwtopo_cpu *cpus;
	size_t nr_cpus;                  /* highest CPU recorded + 1 */
	struct ana_hwtopo_node *nodes;
	size_t nr_nodes;                 /* highest node recorded + 1 */
	struct ana_hwtopo_range *ranges; /* sorted, disjoint (after finish) */
	size_t nr_ranges;
	struct ana_hwtopo_cache *caches; /* in the order recorded */
	size_t nr_caches;
	uint64_t block_size;             /* memory.block_size, 0 if not recorded */
	size_t bad_keys;                 /* keys whose value did not parse */
	/* internal */
	size_t cap_cpus, cap_nodes, cap_ranges, cap_caches;
	bool finished;
};

/* An empty topology, to fill with ana_hwtopo_add() and close with
 * ana_hwtopo_finish().  NULL with errno ENOMEM. */
struct ana_hwtopo *ana_hwtopo_new(void);

/*
 * Take one TOPOLOGY key/value (FORMAT.md §5.7) into @t.  Keys it does not
 * know are ignored; a value that does not parse, or a CPU, node or count
 * beyond the limits above, is counted in t->bad_keys and left out.
 * Returns 0, or -ENOMEM.  Not after ana_hwtopo_finish().
 */
int ana_hwtopo_add(struct ana_hwtopo *t, const char *key, const char *val);

/*
 * Make the ranges of all nodes one sorted list of disjoint ranges, where
 * what several nodes claim belongs to none (node -1).  Returns 0 or
 * -ENOMEM.
 */
int ana_hwtopo_finish(struct ana_hwtopo *t);

/*
 * The topology of recording @s: every TOPOLOGY key, finished.  *@out is
 * the caller's (ana_hwtopo_free()).  A recording without a TOPOLOGY block
 * gives an empty one.  Returns 0 or -ENOMEM; t->bad_keys counts values
 * left out (the caller may warn).
 */
int ana_hwtopo_load(const struct ana_session *s, struct ana_hwtopo **out);

/* Free @t and everything it holds (NULL-safe). */
void ana_hwtopo_free(struct ana_hwtopo *t);

/* The node whose recorded physical range holds @phys, or -1: 0 (no
 * physical address), in no range, or in a range several nodes claim. */
int ana_hwtopo_node_of_phys(const struct ana_hwtopo *t, uint64_t phys);

/* The node of CPU @cpu (cpu.N.node), or -1 when not recorded. */
int ana_hwtopo_node_of_cpu(const struct ana_hwtopo *t, uint32_t cpu);

/* Whether any node has a recorded physical range. */
bool ana_hwtopo_has_ranges(const struct ana_hwtopo *t);

#endif /* AMB_ANALYZE_HWTOPO_H */

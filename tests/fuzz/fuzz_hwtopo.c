// SPDX-License-Identifier: MIT
/*
 * fuzz_hwtopo - the input is a recording's TOPOLOGY keys, one "key=value"
 * a line (analyze/resolve/hwtopo.c), and its first eight bytes are also a
 * perf_mem_data_src value (analyze/resolve/datasrc.c).  Whatever the keys
 * hold, the merged ranges are sorted, disjoint and not empty, each of one
 * node the topology has or of none; a physical address has the node of the
 * range that holds it, and none outside every range; CPUs have nodes the
 * topology could hold.  Every description of the value is terminated and
 * within its buffer.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"

static void check_phys(const struct ana_hwtopo *t, uint64_t phys)
{
	int want = -1, got = ana_hwtopo_node_of_phys(t, phys);

	for (size_t i = 0; phys && i < t->nr_ranges; i++)
		if (t->ranges[i].start <= phys && phys < t->ranges[i].end)
			want = t->ranges[i].node;
	assert(got == want);
}

static void check_datasrc(uint64_t v)
{
	struct ana_datasrc d;
	char buf[48], big[256];

	ana_datasrc_decode(v, &d);
	assert(d.op < 32 && d.lvl < 16384 && d.snoop < 32 && d.lock < 4 && d.dtlb < 128 &&
	       d.lvl_num < 16 && d.remote < 2 && d.snoopx < 4 && d.blk < 8 && d.hops < 8);
	/* Small buffers truncate, terminated. */
	assert(strlen(ana_datasrc_level(&d, buf, sizeof(buf))) < sizeof(buf));
	assert(strlen(ana_datasrc_snoop(&d, buf, sizeof(buf))) < sizeof(buf));
	assert(strlen(ana_datasrc_tlb(&d, buf, sizeof(buf))) < sizeof(buf));
	assert(strlen(ana_datasrc_blk(&d, buf, sizeof(buf))) < sizeof(buf));
	assert(strlen(ana_datasrc_describe(v, big, sizeof(big))) < sizeof(big));
	assert(strlen(ana_datasrc_describe(v, buf, 5)) < 5);
	(void)ana_datasrc_known(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_hwtopo *t;
	char *text;
	uint64_t v = 0;

	memcpy(&v, data, size < 8 ? size : 8);
	check_datasrc(v);
	if (size > 1 << 20)
		return 0;
	text = malloc(size + 1);
	t = ana_hwtopo_new();
	if (!text || !t) {
		free(text);
		ana_hwtopo_free(t);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		if (ana_hwtopo_add(t, line, eq + 1))
			goto out;
	}
	if (ana_hwtopo_finish(t))
		goto out;
	for (size_t i = 0; i < t->nr_ranges; i++) {
		const struct ana_hwtopo_range *r = &t->ranges[i];

		assert(r->start < r->end);
		assert(r->node == -1 || (r->node >= 0 && (size_t)r->node < t->nr_nodes));
		assert(!i || t->ranges[i - 1].end <= r->start);
		/* Adjacent ranges of one node are merged. */
		assert(!i || t->ranges[i - 1].end != r->start || t->ranges[i - 1].node != r->node);
		check_phys(t, r->start);
		check_phys(t, r->end - 1);
		check_phys(t, r->end);
		if (r->start)
			check_phys(t, r->start - 1);
	}
	check_phys(t, 0);
	check_phys(t, v);
	check_phys(t, UINT64_MAX);
	for (size_t c = 0; c < t->nr_cpus; c++) {
		int n = ana_hwtopo_node_of_cpu(t, (uint32_t)c);

		assert(n >= -1 && n < (int)ANA_HWTOPO_MAX_NODES);
	}
	for (size_t n = 0; n < t->nr_nodes; n++) {
		assert(t->nodes[n].nr_distance <= ANA_HWTOPO_MAX_NODES);
		assert(t->nodes[n].nr_hp <= ANA_HWTOPO_MAX_HP_SIZES);
	}
out:
	ana_hwtopo_free(t);
	free(text);
	return 0;
}

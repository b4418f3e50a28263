// SPDX-License-Identifier: MIT
/*
 * Fuzz a whole replay: an input file opened as a recording, its small
 * blocks loaded (META, EVENT_ATTR, BUILDID, TRACEFS, KSYMS), every record
 * merged, parsed and applied to the thread/address-space model, every
 * sample's stack walked and symbolized, tracepoint payloads formatted,
 * embedded files indexed, each data address resolved to its data object
 * and each physical address and CPU to the recorded NUMA node: the
 * pipeline report, script and mem run on a file from another machine.
 *
 * Symbol files are looked for only under an empty --symfs root, with HOME
 * pointing at an empty directory and no debuginfod, so that the names a
 * crafted file carries never reach real files of this machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/replay/replay.h"
#include "analyze/replay/perf_record.h"
#include "analyze/resolve/resolve.h"
#include <amber/common.h>
#include "tests/fuzz/fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);


int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch_init("session", "in.amber", 1);
	return 0;
}

struct replay {
	struct ana_pipeline *p;
	struct ana_hwtopo *topo;
	struct amb_buf line;
	unsigned frames;
};

static int on_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct replay *rp = ctx;
	char buf[64];

	(void)depth;
	rp->frames += ana_loc_sym_name(loc, buf, sizeof(buf)) != NULL;
	rp->frames += ana_loc_dso_name(loc) != NULL;
	return 0;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct replay *rp = ctx;
	struct ana_tp *tp = ana_pipeline_tp(rp->p);

	ana_pipeline_walk(rp->p, t, s, ANA_SYM_SRCLINE | ANA_SYM_INLINE, 64, on_frame, rp);
	if (s->evt && (s->evt->attr.sample_type & PERF_SAMPLE_ADDR)) {
		struct ana_dobj obj;
		char buf[64];

		ana_dobj_resolve(ana_pipeline_dsos(rp->p), t, s->addr, &obj);
		rp->frames += ana_dobj_name(&obj, buf, sizeof(buf)) != NULL;
		rp->frames += ana_dobj_dso_name(&obj) != NULL;
	}
	if (rp->topo) {
		int n = ana_hwtopo_node_of_phys(rp->topo, s->phys_addr);
		int c = ana_hwtopo_node_of_cpu(rp->topo, s->cpu);

		if (n < -1 || c < -1)
			abort();
	}
	if (tp && s->raw_size) {
		amb_buf_reset(&rp->line);
		ana_tp_format(tp, s->raw, s->raw_size, &rp->line);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_pipeline_opts o;
	struct replay rp = { 0 };
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);

	ana_pipeline_opts_init(&o);
	o.dso = (struct ana_dso_opts){ .symfs = root, .home = root, .debug_dir = root,
				       .no_debuginfod = true };
	o.tracepoints = true;
	if (!ana_pipeline_open(path, &o, &rp.p) &&
	    !ana_hwtopo_load(ana_pipeline_session(rp.p), &rp.topo))
		ana_pipeline_run(rp.p, on_sample, NULL, &rp);
	ana_hwtopo_free(rp.topo);
	ana_pipeline_close(rp.p);
	ana_pipeline_opts_free(&o);
	amb_buf_free(&rp.line);
	unlink(path);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz the scheduler model (analyze/resolve/sched.c) and the off-CPU view
 * (analyze/view/offcpu.c) on an input file opened as a recording: the
 * sched_switch, sched_waking and migrate payloads read through field
 * handles, context-switch and exit records, the samples kept per thread
 * and walked after their record is gone, the scheduler frames trimmed off
 * an off-CPU stack, and the wall-clock view's on-CPU samples.
 *
 * Symbol files are looked for only under an empty --symfs root, as in
 * fuzz_session.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/view.h"
#include <amber/common.h>
#include "tests/fuzz/fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);


int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch_init("sched", "in.amber", 1);
	return 0;
}

struct walk {
	struct ana_pipeline *p;
	unsigned frames;
	uint64_t ns;
};

static int on_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct walk *w = ctx;
	char buf[64];

	(void)depth;
	w->frames += ana_loc_sym_name(loc, buf, sizeof(buf)) != NULL;
	return 0;
}

static int on_wait(void *ctx, const struct ana_sched_wait *wt)
{
	struct walk *w = ctx;

	if (wt->start > wt->end)
		abort();
	w->ns += wt->end - wt->start;
	if (wt->out)
		ana_pipeline_walk(w->p, wt->t, wt->out, 0, 32, on_frame, w);
	if (wt->wake && wt->waker)
		ana_pipeline_walk(w->p, wt->waker, wt->wake, 0, 32, on_frame, w);
	return 0;
}

static int on_run(void *ctx, const struct ana_sched_run *r)
{
	struct walk *w = ctx;

	if (r->start > r->end)
		abort();
	w->ns += r->end - r->start;
	return 0;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct walk *w = ctx;

	ana_pipeline_walk(w->p, t, s, 0, 32, on_frame, w);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_sched_ops ops = { on_wait, on_run, on_sample };
	struct ana_pipeline_opts o;
	struct ana_offcpu *oc;
	struct ana_sched *s;
	struct walk w = { 0 };
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);

	ana_pipeline_opts_init(&o);
	o.dso = (struct ana_dso_opts){ .symfs = root, .home = root, .debug_dir = root,
				       .no_debuginfod = true };
	if (!ana_sched_open(path, &o, ANA_SCHED_KEEP_WAKERS, &s)) {
		w.p = ana_sched_pipeline(s);
		ana_sched_run(s, &ops, &w);
		ana_sched_close(s);
	}
	if (!ana_offcpu_open(path, &o, ANA_OFFCPU_WALL, &oc) ||
	    !ana_offcpu_open(path, &o, ANA_OFFCPU_WAITS, &oc)) {
		w.p = ana_offcpu_pipeline(oc);
		ana_offcpu_run(oc, on_sample, &w);
		ana_offcpu_close(oc);
	}
	ana_pipeline_opts_free(&o);
	unlink(path);
	return 0;
}

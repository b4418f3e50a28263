/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/export.h - a recording's samples written in the formats
 * other tools read (`amber-analyze export`): pprof (export_pprof.c),
 * speedscope JSON (export_speedscope.c), Chrome trace-event JSON
 * (export_chrome.c) and perf script text (export_perfscript.c).  Each
 * writer runs the pipeline it is given once (ana_pipeline_run) and writes
 * to a stream; the frames of a sample come from export_stack.c.
 *
 * Weights: every writer keeps the sample count and the period of each
 * sampled event (cpu-clock and task-clock periods are nanoseconds of CPU
 * time).  Off-CPU time (export --off-cpu, --wall-clock: view/offcpu.h)
 * comes as samples of one synthetic event per thread state, weighted in
 * nanoseconds: pprof makes each a value type beside a total ("off-cpu"
 * or "wall"), speedscope weighs each thread's profile in nanoseconds.
 */
#ifndef AMB_ANALYZE_EXPORT_H
#define AMB_ANALYZE_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/offcpu.h"

enum ana_export_format {
	ANA_EXPORT_PPROF = 0,
	ANA_EXPORT_SPEEDSCOPE,
	ANA_EXPORT_CHROME,
	ANA_EXPORT_PERF_SCRIPT,
};

/* The format named @name ("pprof", "speedscope", "chrome", "perf-script");
 * 0 and *@f set, or -EINVAL. */
int ana_export_format_parse(const char *name, enum ana_export_format *f);

struct ana_export_opts {
	bool inline_frames;     /* inlined functions as frames (pprof: as lines) */
	const char *name;       /* the recording's name in the output (file name) */
	/*
	 * When set (pprof and speedscope only), the samples are those of
	 * ana_offcpu_run() on it instead of the pipeline's: off-CPU waits, or
	 * the wall clock, weighted in nanoseconds; the pipeline given must be
	 * ana_offcpu_pipeline() of it.  Borrowed.
	 */
	struct ana_offcpu *offcpu;
};

/*
 * Hand the samples an export of @p with @o writes to @fn: those of
 * ana_pipeline_run() (@other gets the other records), or with o->offcpu
 * those of ana_offcpu_run() (@other unused).  Returns what they return.
 */
int ana_export_run(struct ana_pipeline *p, const struct ana_export_opts *o, ana_sample_fn fn,
		   ana_record_fn other, void *ctx);

/* True when the weight (period) of a sample of event @e counts
 * nanoseconds: cpu-clock and task-clock, and off-CPU time (@o->offcpu). */
bool ana_export_weight_is_ns(const struct ana_export_opts *o, const struct ana_event *e);

/*
 * Run @p (opened by the caller with its filters; with
 * ANA_EXPORT_PERF_SCRIPT or ANA_EXPORT_CHROME it should have the
 * tracepoint decoder, opts.tracepoints) and write its samples to @out in
 * format @f.  Returns 0, -ENOMEM, an error of the run, or the negative
 * errno of a failed write (-ENOSPC ...), with a detail in amb_errmsg()
 * where there is one.  @out is not closed.
 */
int ana_export(struct ana_pipeline *p, enum ana_export_format f, FILE *out,
	       const struct ana_export_opts *o);

/* The writers ana_export() calls, with the same contract. */
int ana_export_pprof(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o);
int ana_export_speedscope(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o);
int ana_export_chrome(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o);
int ana_export_perf_script(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o);

#endif /* AMB_ANALYZE_EXPORT_H */

/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/pipeline.h - one recording opened for analysis, with
 * everything that decodes it: the session (replay/), the DSO table with
 * the recording's embedded files, the machine model, the DWARF unwinder
 * and, when asked for, the tracepoint decoder.  Its loop keeps the machine
 * current itself and hands each sample that passes the filters to the
 * command, with its thread; the command walks its stack when it needs it.
 *
 * Every command that reads samples (report, script, flame, diff, buildids,
 * archive, and those to come) is then only option parsing, aggregation
 * and output:
 *
 *	ana_pipeline_opts_init(&o);  ... options fill o ...
 *	err = ana_pipeline_open(path, &o, &p);
 *	err = ana_pipeline_run(p, on_sample, NULL, ctx);
 *	... ana_pipeline_walk(p, s, t, want, 0, on_frame, ctx) in on_sample ...
 *	ana_pipeline_close(p);
 *	ana_pipeline_opts_free(&o);
 */
#ifndef AMB_ANALYZE_PIPELINE_H
#define AMB_ANALYZE_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/dso.h"
#include "analyze/resolve/embedded.h"
#include "analyze/resolve/fieldfilter.h"
#include "analyze/resolve/filter.h"
#include "analyze/resolve/machine.h"
#include "analyze/resolve/stackwalk.h"
#include "analyze/resolve/tracepoint.h"

/* What selects and decodes the samples of a recording: the options every
 * sample command takes (cmd.h's ANA_SAMPLE_OPTIONS) and what the command
 * itself needs. */
struct ana_pipeline_opts {
	struct ana_filter filter;       /* --pid --tid --comm --cpu --dso --sym --time */
	struct ana_field_filter ff;     /* --field-filter */
	struct ana_dso_opts dso;        /* --symfs, --no-debuginfod */
	const char *event;              /* -e: only this event's samples; NULL: all */
	bool one_event;                 /* no -e: the first sampling event only
					 * (ana_pipeline_event() says which) */
	bool tracepoints;               /* the command formats tracepoint payloads */
	bool host_files_only;           /* never use the recording's embedded ELF
					 * files (archive looks for what to add) */
	unsigned jobs;                  /* -j: decoding threads, 0: one per CPU */
};

/* Defaults: no filter, every event, the usual ELF search. */
void ana_pipeline_opts_init(struct ana_pipeline_opts *o);
/* Free what the options allocated (their strings point into argv). */
void ana_pipeline_opts_free(struct ana_pipeline_opts *o);

struct ana_pipeline;

/*
 * Open the recording @path for analysis with @o (borrowed: it must outlive
 * the pipeline; the pipeline keeps its own copy of the filters' state, so
 * one @o may serve several pipelines in turn, relative and percentage
 * --time ranges resolved against each recording's own span).  Returns 0 with *@out set, or an
 * error with *@out NULL and its detail in amb_errmsg():
 *   an error of ana_session_open() (the file cannot be read as a recording);
 *   -ENODATA: a wall-clock --time, and the recording has no clock reference;
 *   (a --time range outside the recording is warned about, not an error);
 *   -ENOENT: @o->event names no event of the recording (the detail lists them);
 *   -ENOMEM.
 * Free with ana_pipeline_close() (NULL accepted).
 */
int ana_pipeline_open(const char *path, struct ana_pipeline_opts *o, struct ana_pipeline **out);
void ana_pipeline_close(struct ana_pipeline *p);

/*
 * A sample handed to a command: @s is valid during the call only; @t is its
 * thread in the machine (valid as long as the pipeline).  Return 0 to go
 * on, nonzero to stop the run (returned by ana_pipeline_run()).
 */
typedef int (*ana_sample_fn)(void *ctx, const struct ana_sample *s, struct ana_thread *t);

/*
 * Replay the recording (ana_session_for_each): every record that is not a
 * sample updates the machine and is then handed to @other (may be NULL);
 * every sample of the chosen event that passes the filters is handed to
 * @fn (may be NULL).  The filters apply in this order: --time, the event
 * (-e; a sample of another event is skipped, not counted as filtered),
 * --pid/--tid/--comm/--cpu, --field-filter, and --dso/--sym on the
 * sample's first frame.  Returns 0, the first nonzero value of a callback,
 * or -ENOMEM.
 */
int ana_pipeline_run(struct ana_pipeline *p, ana_sample_fn fn, ana_record_fn other, void *ctx);

/* Records a run reads between two calls of its progress callback. */
#define ANA_PIPELINE_PROGRESS_EVERY (1u << 18)

/* Call @fn(@ctx, @records) each time a run has read another
 * ANA_PIPELINE_PROGRESS_EVERY records, @records those read so far (a
 * progress line). */
void ana_pipeline_set_progress(struct ana_pipeline *p, void (*fn)(void *ctx, uint64_t records),
			       void *ctx);

struct ana_pipeline_stats {
	uint64_t samples;    /* sample records read */
	uint64_t filtered;   /* of those, left out by a filter (not by -e) */
	uint64_t passed;     /* handed to the command */
};
/* Counts of the last ana_pipeline_run(). */
void ana_pipeline_get_stats(const struct ana_pipeline *p, struct ana_pipeline_stats *st);

/* The period of the samples of @evt (NULL: of no event) the last run read
 * within --time, before the other filters, and their number in *@samples
 * (may be NULL): what perf's "--percentage absolute" shares are of. */
uint64_t ana_pipeline_event_period(const struct ana_pipeline *p, const struct ana_event *evt,
				   uint64_t *samples);

/*
 * Walk the stack of sample @s of thread @t, as ana_stack_walk() does with
 * the pipeline's machine and unwinder (@want: ANA_SYM_SRCLINE |
 * ANA_SYM_INLINE or 0; @max_depth 0: the whole stack).  Returns the number
 * of frames delivered.
 */
unsigned ana_pipeline_walk(struct ana_pipeline *p, struct ana_thread *t,
			   const struct ana_sample *s, unsigned want, unsigned max_depth,
			   ana_frame_fn fn, void *ctx);

/*
 * True when the first frame of sample @s of thread @t, walked on @p,
 * passes the --dso and --sym of filter @f (a sample without frames
 * passes: the caller decides what to make of it).
 */
bool ana_pipeline_first_frame_passes(struct ana_pipeline *p, const struct ana_filter *f,
				     struct ana_thread *t, const struct ana_sample *s);

/* ana_stack_key() for @s of @t: equal keys (with equal callchains and
 * cpumodes) mean equal walks; 0 means the sample is unwound. */
uint64_t ana_pipeline_stack_key(const struct ana_pipeline *p, const struct ana_thread *t,
				const struct ana_sample *s);

/*
 * The event whose samples the pipeline hands over: -e's, or with
 * @o->one_event the recording's first event sampled (with a period or a
 * frequency, in the order recorded); NULL when every event's are, or the
 * recording has no sampled event.
 */
const struct ana_event *ana_pipeline_event(const struct ana_pipeline *p);

/* The filters as this recording resolved them (--time in its perf clock),
 * for a command that filters records the pipeline does not (script's task
 * and mmap records). */
const struct ana_filter *ana_pipeline_filter(const struct ana_pipeline *p);

/* The parts, owned by the pipeline. */
struct ana_session *ana_pipeline_session(const struct ana_pipeline *p);
struct ana_machine *ana_pipeline_machine(const struct ana_pipeline *p);
struct ana_dso_table *ana_pipeline_dsos(const struct ana_pipeline *p);
struct ana_embed *ana_pipeline_embed(const struct ana_pipeline *p);
struct ana_unwinder *ana_pipeline_unwinder(const struct ana_pipeline *p);
/*
 * The tracepoint decoder: made when @o->tracepoints or a --field-filter
 * asked for it, else NULL.  Kernel function pointers in payloads (%ps) are
 * named from the recorded kernel symbols unless the table was trimmed
 * (FORMAT.md §5.8), where only hex is honest.
 */
struct ana_tp *ana_pipeline_tp(const struct ana_pipeline *p);

#endif /* AMB_ANALYZE_PIPELINE_H */

/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/filter.h - sample filters (filter.c): --pid --tid --comm --cpu
 * --dso --sym --time, as the pipeline applies them.
 */
#ifndef AMB_ANALYZE_FILTER_H
#define AMB_ANALYZE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/machine.h"

enum ana_filter_kind {
	ANA_FILTER_PID, ANA_FILTER_TID, ANA_FILTER_COMM, ANA_FILTER_CPU,
	ANA_FILTER_DSO, ANA_FILTER_SYM, ANA_FILTER_TIME,
};

#define ANA_FILTER_CPUS 4096
#define ANA_TIME_RANGES_MAX 32

/* One end of a --time range as written (ana_filter_set). */
enum ana_time_kind {
	ANA_TIME_OPEN = 0,    /* empty: the recording's start or end */
	ANA_TIME_ABS,         /* a perf timestamp, as script prints it: @ns */
	ANA_TIME_REL,         /* "+SECONDS": @ns from the recording's start */
	ANA_TIME_CLOCK,       /* "HH:MM:SS[.frac]", local time: @sec of the day */
	ANA_TIME_PCT,         /* "P%": @pct of the recording's span */
};

struct ana_time_end {
	enum ana_time_kind kind;
	uint64_t ns;
	double sec, pct;
};

/* A range [start, end], both ends included, and how it was written. */
struct ana_time_range {
	struct ana_time_end start, end;
	char text[48];
};

struct ana_filter {
	uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	char **comms, **dsos, **syms;   /* NULL-terminated lists */
	uint64_t *cpus;                 /* bitmap of ANA_FILTER_CPUS, or NULL */
	/* --time: the ranges as written, and once ana_filter_prepare() has
	 * seen the recording, as perf clock nanoseconds.  A sample passes
	 * when one range holds its time. */
	char *time_spec;                /* as given, for messages; NULL: no --time */
	struct ana_time_range time[ANA_TIME_RANGES_MAX];
	size_t nr_time;
	uint64_t t_start[ANA_TIME_RANGES_MAX], t_end[ANA_TIME_RANGES_MAX];
	bool time_ready;                /* t_start/t_end hold the ranges */
};

/* An empty filter: everything passes.  ana_filter_free() frees what
 * ana_filter_set() added and leaves @f empty again. */
void ana_filter_init(struct ana_filter *f);
void ana_filter_free(struct ana_filter *f);

/*
 * Add the filter @kind from its option argument: comma-separated lists, a
 * CPU list for ANA_FILTER_CPU, --time ranges for ANA_FILTER_TIME (below).
 * Returns 0, -EINVAL for a malformed argument (the detail in amb_errmsg()),
 * -E2BIG for more than ANA_TIME_RANGES_MAX ranges, -ENOMEM.
 *
 * --time takes perf's forms: "START,END" (either may be empty), several
 * such ranges separated by spaces; or percentages of the recording's time
 * span, "P%/N" (the N-th slice of P%) or "A%-B%", several separated by
 * commas.  A time is a perf timestamp as script prints it (309.762212),
 * "+SECONDS" from the recording's start (its first RING record), or a
 * wall-clock "HH:MM:SS[.frac]" (local time, on the day of the recording).
 */
int ana_filter_set(struct ana_filter *f, enum ana_filter_kind kind, const char *arg);

/*
 * Resolve --time for the recording @s: its span is the first and last
 * timestamp of its RING blocks, its clock reference (META clock.ref.*)
 * converts wall-clock times.  A range that lies outside the span is warned
 * about (amb_warn).  Returns 0, or -ENODATA for a wall-clock time and a
 * recording without a clock reference (the detail in amb_errmsg()).
 */
int ana_filter_prepare(struct ana_filter *f, struct ana_session *s);

/*
 * ana_filter_prepare() with the span [@first, @last] given (0, 0: none
 * known) and the clock reference @perf_ns/@real_ns (@have_clock false:
 * none).  For tests.
 */
int ana_filter_prepare_span(struct ana_filter *f, uint64_t first, uint64_t last,
			    bool have_clock, int64_t perf_ns, int64_t real_ns);

/* True when a sample at @time passes --time. */
bool ana_filter_time(const struct ana_filter *f, uint64_t time);

/* True when the sample passes --pid --tid --comm --cpu. */
bool ana_filter_thread(const struct ana_filter *f, const struct ana_sample *s,
		       const struct ana_thread *t);

/* True when @f has a --pid, --tid, --comm or --cpu filter: without one
 * every sample passes ana_filter_thread(). */
static inline bool ana_filter_thread_active(const struct ana_filter *f)
{
	return f->nr_pids || f->nr_tids || f->comms || f->cpus;
}
/* True when the frame @loc named @sym passes --dso and --sym. */
bool ana_filter_frame(const struct ana_filter *f, const struct ana_loc *loc, const char *sym);

#endif /* AMB_ANALYZE_FILTER_H */

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

struct ana_filter {
	uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	char **comms, **dsos, **syms;   /* NULL-terminated lists */
	uint64_t *cpus;                 /* bitmap of ANA_FILTER_CPUS, or NULL */
	char *time_spec;                /* --time as given, until prepared */
	bool time_rel;                  /* START,END are seconds from the first sample */
	double rel_start, rel_end;      /* relative: seconds (end < 0: open) */
	uint64_t t_start, t_end;        /* absolute perf clock (0 / UINT64_MAX: open) */
	uint64_t first_time;            /* first sample's time, 0 until seen */
};

/* An empty filter: everything passes.  ana_filter_free() frees what
 * ana_filter_set() added and leaves @f empty again. */
void ana_filter_init(struct ana_filter *f);
void ana_filter_free(struct ana_filter *f);

/*
 * Add the filter @kind from its option argument: comma-separated lists, a
 * CPU list for ANA_FILTER_CPU, "START,END" for ANA_FILTER_TIME (either
 * may be empty).  Returns 0, -EINVAL for a malformed argument, -ENOMEM.
 */
int ana_filter_set(struct ana_filter *f, enum ana_filter_kind kind, const char *arg);

/*
 * Convert a wall-clock --time (HH:MM:SS[.frac], local time, on the day the
 * recording was made) to the perf clock with the META keys
 * clock.ref.perf_ns and clock.ref.realtime_ns.  Returns 0, -EINVAL for a
 * malformed time, -ENODATA when the recording lacks the clock keys.
 */
int ana_filter_prepare(struct ana_filter *f, struct ana_session *s);

/* True when a sample at @time passes --time (the first call sees the first
 * sample: relative times count from it). */
bool ana_filter_time(struct ana_filter *f, uint64_t time);

/* True when the sample passes --pid --tid --comm --cpu. */
bool ana_filter_thread(const struct ana_filter *f, const struct ana_sample *s,
		       const struct ana_thread *t);
/* True when the frame @loc named @sym passes --dso and --sym. */
bool ana_filter_frame(const struct ana_filter *f, const struct ana_loc *loc, const char *sym);

#endif /* AMB_ANALYZE_FILTER_H */

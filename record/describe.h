/* SPDX-License-Identifier: MIT */
/*
 * record/describe.h - the blocks that describe a recording (describe.c):
 * what one file holds before its first RING block - META, EVENT_ATTR,
 * TOPOLOGY, KSYMS, SYNTH, BUILDID, TRACEFS (FORMAT.md §9) - and after its
 * last - COUNTS and the final META keys.  Every file amber-rec writes,
 * the one of a plain recording and each of a rotating one, is described
 * by these two calls, so that each analyzes alone.
 */
#ifndef AMB_REC_DESCRIBE_H
#define AMB_REC_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/common.h>
#include <amber/format.h>
#include "record/events/events.h"
#include "record/evsel.h"
#include "record/options.h"
#include "record/stage.h"
#include "record/target.h"

/* What describing a recording reads; all borrowed from the session. */
struct rec_describe {
	int argc;                  /* amber-rec's own command line (META cmdline) */
	char **argv;
	const struct rec_opts *opts;
	const struct rec_event_list *events;
	const struct rec_target *target;
	const struct rec_evlist *evlist;
	unsigned ring_pages;
	bool tracepoints;          /* some event is a tracepoint: TRACEFS formats */
	const char *const *filters;  /* per event: its --filter, or NULL; or NULL */
	bool kallsyms_explained;   /* hidden kernel addresses were said already */
};

/* The machine at one instant: its kernel symbols, and SYNTH records and
 * build-ids of the kernel and of the target's processes. */
struct rec_snapshot {
	uint64_t time;             /* perf clock; the SYNTH records' TIME */
	char *kallsyms;            /* /proc/kallsyms text, or NULL */
	size_t kallsyms_len;
	struct amb_buf synth;      /* SYNTH payload */
	uint64_t nr_synth;
	struct amb_buf buildids;   /* BUILDID payload */
	uint64_t nr_buildids;
};

/*
 * Take a snapshot at @time: /proc/kallsyms, and COMM, FORK and MMAP2 of
 * the kernel and of the target's processes as they are now - every
 * process for a system-wide recording; for -p, -t and a command, the
 * target processes and (with @descendants) every process they started
 * since, which a file begun in the middle of a recording must name too.
 * A command's first snapshot has no process: exec reports it.  With
 * @warn, a kernel symbol table that cannot be read is reported through
 * amb_warn().  Returns 0 or -ENOMEM / -E2BIG; free @snap with
 * rec_snapshot_free() either way.
 */
int rec_snapshot_take(const struct rec_describe *d, uint64_t time, bool descendants, bool warn,
		      struct rec_snapshot *snap);

/* Free what @snap holds and zero it (NULL-safe). */
void rec_snapshot_free(struct rec_snapshot *snap);

/*
 * Append the prologue of a file to @w: META (the start keys, then
 * @meta_extra's key/values when not NULL), EVENT_ATTR, TOPOLOGY, KSYMS and
 * SYNTH and BUILDID from @snap, TRACEFS.  @start_ns is time.start_ns.
 * Returns 0 or the writer's error (-ENOMEM).
 */
int rec_describe_start(const struct rec_describe *d, struct amb_writer *w,
		       const struct rec_snapshot *snap, uint64_t start_ns,
		       const struct amb_buf *meta_extra);

/* What the end of a file says (rec_describe_end). */
struct rec_file_end {
	uint64_t run_ns, end_ns;   /* the file's window: COUNTS, time.end_ns */
	const struct rec_counters *c;   /* lost and throttle records in the file */
	bool have_status;          /* exit_status from @wstatus */
	int wstatus;
	bool counts;               /* write a COUNTS block */
	uint64_t (*counts_base)[3]; /* NULL: the counters' totals; else each fd's
				     * value, enabled and running at the window's
				     * start, replaced by those at its end */
	const struct amb_buf *meta_extra;  /* more final META key/values, or NULL */
};

/* Append COUNTS (as @e asks) and the final META keys to @w.  Returns 0 or
 * the writer's error. */
int rec_describe_end(const struct rec_describe *d, struct amb_writer *w,
		     const struct rec_file_end *e);

/* The number of key/value pairs in META/TOPOLOGY payload @b. */
uint64_t rec_kv_count(const struct amb_buf *b);

#endif /* AMB_REC_DESCRIBE_H */

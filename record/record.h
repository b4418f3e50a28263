/* SPDX-License-Identifier: MIT */
/*
 * record/record.h - internal interfaces of amber-rec.
 *
 * events.c   turns perf-style event specs into perf_event_attr templates;
 * tracefs.c  finds (and if needed mounts) tracefs and reads its files;
 * the rest (main.c, ring.c, synth.c, meta.c, topology.c, ...) opens the
 * events, drains the rings and writes the .amber file through format/.
 *
 * record/ includes format/ and common/, never analyze/ (Makefile header).
 */
#ifndef AMB_RECORD_H
#define AMB_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * One event to open, as parsed from -e (after glob expansion).  events.c
 * fills attr.type, attr.config, config1/config2, bp_*, the exclude_* bits
 * and precise_ip from the name and its modifiers; the sampling settings
 * (sample_type, period/freq, callchains, ...) are applied later by the
 * caller.
 */
struct rec_event {
	struct perf_event_attr attr;
	char *name;          /* canonical name, e.g. "cpu-clock:u", "sched:sched_switch" */
	int leader;          /* index of the group leader in the list; own index if leader; -1 if not grouped */
	bool tracepoint;
	char *tp_system;     /* tracepoints: "sched" */
	char *tp_event;      /* tracepoints: "sched_switch" */
	bool fallback;       /* opened in place of an unavailable event */
	bool user_modifiers; /* the spec had explicit :u/:k modifiers */
};

struct rec_event_list {
	struct rec_event *v;
	size_t n;
};

/*
 * Parse an -e argument (perf syntax: "a,b", "{a,b}", "name:ukp", "rNNNN",
 * "sys:name", "sys:*", libpfm4 names such as "INST_RETIRED.ANY") and append
 * its events to @l.  On error returns a negative errno and writes a message
 * for the user into @err (for an unknown name it lists the nearest known
 * names): -ENOENT unknown event, -EINVAL bad syntax, -ENOMEM.
 */
int rec_events_parse(struct rec_event_list *l, const char *spec, char *err, size_t errlen);

/* Replace the event at @i by cpu-clock with the same modifiers, marking it
 * as a fallback (for "cycles" on machines without a PMU). Returns 0 or -errno. */
int rec_events_fallback_cpu_clock(struct rec_event_list *l, size_t i);

/* Free the names and the array; @l is left empty. */
void rec_events_free(struct rec_event_list *l);

/*
 * Print to @out every event this machine can open (probing each with
 * perf_event_open), grouped by kind as `perf list` does, filtered by the
 * glob @pattern (NULL = all).  Returns 0 or -errno.
 */
int rec_events_list(FILE *out, const char *pattern);

/*
 * The tracefs mount point ("/sys/kernel/tracing" or the debugfs one),
 * mounting tracefs when it is missing and we may (root).  Returns NULL with
 * errno set when tracefs is unavailable.  The string is static.
 */
const char *rec_tracefs_root(void);

/* Read tracefs file @rel (e.g. "events/sched/sched_switch/format") into a
 * heap string (caller frees).  NULL with errno set on failure. */
char *rec_tracefs_read(const char *rel, size_t *len);

/* ---- additions by the events/tracefs helper (events.c, pfm.c, tracefs.c) -- */

/*
 * Use @path as the tracefs root instead of probing and mounting: tests and
 * fuzzers point it at a fake tree, or at "" for "no tracefs here".  NULL
 * restores probing.  @path is copied.  Returns 0 or -ENOMEM/-ENAMETOOLONG.
 */
int rec_tracefs_set_root(const char *path);

/*
 * Call @fn(@ctx, system, event) for every tracepoint directory under
 * events/, systems and events in sorted order.  A non-zero return from @fn
 * stops the walk and is returned.  Returns 0, the callback's value, or
 * -errno (-ENOENT when tracefs is unavailable).
 */
int rec_tracefs_for_each_event(int (*fn)(void *ctx, const char *sys, const char *event),
			       void *ctx);

/*
 * Encode the libpfm4 event @name (with libpfm4's own modifiers, e.g.
 * "perf::PERF_COUNT_HW_CPU_CYCLES:u") into @attr's type, config, config1,
 * config2, exclude_* and precise_ip fields; other fields are untouched.
 * Initialises libpfm4 on first use.  Returns 0, -ENOENT when libpfm4 does
 * not know the name (or is unusable here), -EINVAL for bad attributes.
 */
int rec_pfm_encode(const char *name, struct perf_event_attr *attr);

/*
 * Print the events of the model-specific PMUs libpfm4 detected on this
 * machine (not its generic "perf" tables) as "pmu::event" lines matching
 * the glob @pattern (NULL = all).  Returns the number printed or -errno.
 */
int rec_pfm_list(FILE *out, const char *pattern);

#endif /* AMB_RECORD_H */

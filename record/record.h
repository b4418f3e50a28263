/* SPDX-License-Identifier: MIT */
/*
 * record/record.h - internal interfaces of amber-rec.
 *
 * events.c   turns perf-style event specs into perf_event_attr templates
 *            (events_pmu.c the pmu/terms/ ones; events_internal.h);
 * tracefs.c  finds (and if needed mounts) tracefs and reads its files;
 * pmu.c      reads the PMUs of /sys/bus/event_source/devices (pmu/terms/);
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
	uint64_t period;     /* period= term: this event's -c; 0: the command line's */
	uint64_t freq;       /* freq= term: this event's -F; 0: the command line's */
};

struct rec_event_list {
	struct rec_event *v;
	size_t n, cap;       /* events, and room for them in @v */
};

/*
 * Parse an -e argument (perf syntax: "a,b", "{a,b}", "name:ukp", "rNNNN",
 * "sys:name", "sys:*", libpfm4 names such as "INST_RETIRED.ANY", PMU
 * events "pmu/term=value,.../mods" read through pmu.c) and append
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
 * glob @pattern (NULL = all).  The events of the sysfs PMUs are listed as
 * "pmu/event/" without a probe (many only count).  Returns 0 or -errno.
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

/* ---- pmu.c: the PMUs of /sys/bus/event_source/devices ----------------------- */

/*
 * Read PMUs from @path (a directory of PMU directories) instead of
 * /sys/bus/event_source/devices: tests and fuzzers point it at a fake
 * tree, "" means no PMUs at all, NULL restores the default.  @path is
 * copied.  Returns 0 or -ENAMETOOLONG.
 */
int rec_pmu_set_root(const char *path);

/* The directory PMUs are read from (static string; "" when none). */
const char *rec_pmu_root(void);

/* One PMU's type, format names and event names, read once. */
struct rec_pmu;

/*
 * Read PMU @name (a directory of the root): its type file and the names
 * under format/ and events/ (sorted; events without the .scale, .unit,
 * .per-pkg and .snapshot files).  On success *@out is the caller's, to
 * free with rec_pmu_free().  Returns 0, -ENOENT when there is no such
 * PMU (or @name is not a plain directory name), -EINVAL for a malformed
 * type file, -ENOMEM, or -errno of a directory that cannot be read.
 */
int rec_pmu_open(const char *name, struct rec_pmu **out);

/* Free @pmu (NULL-safe). */
void rec_pmu_free(struct rec_pmu *pmu);

/* The perf_event_attr.type of @pmu's events. */
uint32_t rec_pmu_type(const struct rec_pmu *pmu);

/* The names of format/ and events/, by index < the count (borrowed from
 * @pmu, valid until rec_pmu_free()). */
size_t rec_pmu_nr_formats(const struct rec_pmu *pmu);
const char *rec_pmu_format_name(const struct rec_pmu *pmu, size_t i);
size_t rec_pmu_nr_events(const struct rec_pmu *pmu);
const char *rec_pmu_event_name(const struct rec_pmu *pmu, size_t i);

/* Where a format term's value goes: bits @mask of attr word @word. */
struct rec_pmu_field {
	unsigned word;             /* 0 config, 1 config1, 2 config2 */
	uint64_t mask;             /* the field's bits in that word */
	unsigned width;            /* bits in @mask: the value's width */
};

/*
 * Decode format text @text ("config:0-7", "config1:0-3,8,32-35") into @f.
 * Returns 0, or -EINVAL when it names another word or a bit range that is
 * empty, reversed or beyond bit 63.
 */
int rec_pmu_format_parse(const char *text, struct rec_pmu_field *f);

/*
 * Read and decode format/@name of @pmu into @f.  Returns 0, -ENOENT when
 * @pmu has no such format, -EINVAL when the file is malformed, or -errno
 * when it cannot be read.
 */
int rec_pmu_format(const struct rec_pmu *pmu, const char *name, struct rec_pmu_field *f);

/*
 * Put @value into field @f of @attr: its low bit into the field's lowest
 * bit and so on upwards; the field's other bits are cleared, the rest of
 * the word is kept.  Returns 0, or -ERANGE (@attr untouched) when @value
 * has bits set at or above f->width.
 */
int rec_pmu_field_set(const struct rec_pmu_field *f, uint64_t value, struct perf_event_attr *attr);

/*
 * The terms of event @name of @pmu (events/NAME, the name matched
 * ignoring case as perf does), e.g. "event=0xcd,umask=0x1", as a heap
 * string without trailing white space (caller frees).  NULL with errno
 * ENOENT when @pmu has no such event, other errno when it cannot be read.
 */
char *rec_pmu_event_terms(const struct rec_pmu *pmu, const char *name);

/*
 * Call @fn(@ctx, name) for every entry of the PMU root, in sorted order.
 * A non-zero return from @fn stops the walk and is returned.  Returns 0
 * (also when the root does not exist), the callback's value, or -errno.
 */
int rec_pmu_for_each(int (*fn)(void *ctx, const char *pmu), void *ctx);

/*
 * Call @fn(@ctx, pmu, event) for every event under every PMU's events/
 * (not the .scale/.unit/.per-pkg/.snapshot files), PMUs and events in
 * sorted order; unreadable PMUs are skipped.  Returns as
 * rec_pmu_for_each().
 */
int rec_pmu_for_each_event(int (*fn)(void *ctx, const char *pmu, const char *event), void *ctx);

#endif /* AMB_RECORD_H */

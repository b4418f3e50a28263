/* SPDX-License-Identifier: MIT */
/*
 * record/events/events.h - the events of -e (events.c, names.c, list.c):
 * perf-style specs into perf_event_attr templates, the fallback for a
 * missing PMU, and the listing of --list-events.  The rest of the
 * recorder sees the parser only through this header.
 */
#ifndef AMB_REC_EVENTS_H
#define AMB_REC_EVENTS_H

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
	bool implicit;       /* from a default set, not named by the user: the
			      * recorder may replace it (cycles by cpu-clock) */
	bool user_modifiers; /* the spec had explicit :u/:k modifiers */
	bool precise_max;    /* P modifier: precise_ip 3, lowered until it opens */
	uint64_t period;     /* period= term: this event's -c; 0: the command line's */
	uint64_t freq;       /* freq= term: this event's -F; 0: the command line's */
	char *glob;          /* the tracepoint glob ("sched:*") it came from, or NULL */
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
 * names): -ENOENT unknown event (also a tracepoint glob that matches no
 * tracepoint with an id, which is all perf_event_open can open),
 * -EINVAL bad syntax, -ENOMEM.  Events of a glob carry it in @glob.
 */
int rec_events_parse(struct rec_event_list *l, const char *spec, char *err, size_t errlen);

/* Replace the event at @i by cpu-clock with the same modifiers, marking it
 * as a fallback (for "cycles" on machines without a PMU). Returns 0 or -errno. */
int rec_events_fallback_cpu_clock(struct rec_event_list *l, size_t i);

/*
 * Take the event at @i out of @l, renumbering the group leaders after it.
 * Returns 0, or -EINVAL when @i is out of range or leads other events of
 * a group (those would lose their leader).
 */
int rec_events_remove(struct rec_event_list *l, size_t i);

/* Free the names and the array; @l is left empty. */
void rec_events_free(struct rec_event_list *l);

/*
 * Print to @out every event name -e takes, grouped by kind as `perf list`
 * does, filtered by the glob @pattern (NULL = all): each is probed with
 * perf_event_open and one that does not open here says why
 * ("unavailable: no hardware PMU on this machine"); a PMU event that only
 * counts says so.  libpfm4's names come with the unit masks of events
 * that need one.  @verbose adds each event's description.  Returns 0 or
 * -errno.
 */
int rec_events_list(FILE *out, const char *pattern, bool verbose);

#endif /* AMB_REC_EVENTS_H */

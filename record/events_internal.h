/* SPDX-License-Identifier: MIT */
/*
 * record/events_internal.h - what the -e parser's files share: events.c
 * (the grammar, generic names, tracepoints, libpfm4, listing) and
 * events_pmu.c (pmu/terms/ events).
 */
#ifndef AMB_REC_EVENTS_INTERNAL_H
#define AMB_REC_EVENTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/common.h>
#include "record/record.h"

/* The EVENT_ATTR name field holds up to 1024 bytes (docs/FORMAT.md §7). */
#define EV_TERM_MAX 512
/* Names longer than this are never suggested (edit distance rows). */
#define EV_DIST_MAX_LEN 96

/* perf's event modifiers (":ukp"), as parsed. */
struct ev_mods {
	bool u, k, h, guest, host, idle, pinned;
	unsigned precise;
};

/* One rec_events_parse() call. */
struct ev_parser {
	struct rec_event_list *l;
	const char *spec;
	char *err;
	size_t errlen;
	int leader;            /* group leader index while inside { }, else -1 */
	size_t group_start;    /* first member index of the current group */
};

/* Write the message for the user into p->err; returns @ret. */
AMB_PRINTF(3, 4)
int ev_fail(struct ev_parser *p, int ret, const char *fmt, ...);

/* Append an event named @name (@len bytes) with ":@mods" when @modlen, in
 * the current group.  NULL when out of memory (the list is unchanged). */
struct rec_event *ev_add(struct ev_parser *p, const char *name, size_t len,
			 const char *mods, size_t modlen);

/* Parse modifier letters @s (@n bytes) of event @what into @m.  Returns 0
 * or -EINVAL through ev_fail(). */
int mods_parse(struct ev_parser *p, const char *s, size_t n, const char *what,
	       struct ev_mods *m);

/* Apply @m to @e's attr (perf's rules: first of u/k/h excludes the other
 * levels, p raises precise_ip). */
void mods_apply(const struct ev_mods *m, struct rec_event *e);

/* Resolve a generic hardware, software, cache or raw name: 1 with
 * type/config/spelling filled, 0 if @s is none of these, or -EINVAL
 * (through ev_fail) for a cache operation the cache does not have. */
int builtin_find(struct ev_parser *p, const char *s, size_t len, uint32_t *type,
		 uint64_t *config, const char **spelling);

/* Levenshtein distance of @a (@la bytes) and @b (@lb bytes), both at most
 * EV_DIST_MAX_LEN long. */
unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb);

/* "pmu/terms/mods" (or "cycles/terms/"): @t (@len bytes, trimmed) holds at
 * least one '/'.  Appends its event; returns 0, -ENOENT for an unknown PMU
 * or term, -EINVAL for bad syntax or values, other -errno for unreadable
 * sysfs files, -ENOMEM; messages through ev_fail(). */
int ev_pmu_parse(struct ev_parser *p, const char *t, size_t len);

#endif /* AMB_REC_EVENTS_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * record/events/events_internal.h - what the files of the -e parser share:
 * events.c (the grammar, the event list, modifiers, tracepoints, libpfm4)
 * lends events_pmu.c (pmu/terms/ events) the state of one parse and the
 * modifiers; names.c (generic, cache and raw names, suggestions for an
 * unknown one) lends both its look-ups, and list.c (the listing of
 * --list-events) its tables.
 */
#ifndef AMB_REC_EVENTS_INTERNAL_H
#define AMB_REC_EVENTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/common.h>
#include "record/events/events.h"

/* The EVENT_ATTR name field holds up to 1024 bytes (docs/FORMAT.md §7). */
#define REC_EV_TERM_MAX 512
/* Names longer than this are never suggested (edit distance rows). */
#define REC_EV_DIST_MAX_LEN 96

/* perf's event modifiers (":ukp"), as parsed. */
struct rec_ev_mods {
	bool u, k, h, guest, host, idle, pinned;
	bool precise_max;      /* P: the highest precise_ip that opens */
	unsigned precise;
};

/* One rec_events_parse() call. */
struct rec_ev_parser {
	struct rec_event_list *l;
	const char *spec;
	char *err;
	size_t errlen;
	int leader;            /* group leader index while inside { }, else -1 */
	size_t group_start;    /* first member index of the current group */
};

/* ---- events.c ---- */

/* Write the message for the user into p->err (printf-style @fmt);
 * returns @ret, so that a parser can `return rec_ev_fail(p, -EINVAL, ...)`. */
AMB_PRINTF(3, 4)
int rec_ev_fail(struct rec_ev_parser *p, int ret, const char *fmt, ...);

/* Append an event named @name (@len bytes) with ":@mods" when @modlen, in
 * the current group.  NULL when out of memory (the list is unchanged). */
struct rec_event *rec_ev_add(struct rec_ev_parser *p, const char *name, size_t len,
			     const char *mods, size_t modlen);

/* Parse modifier letters @s (@n bytes) of event @what into @m.  Returns 0
 * or -EINVAL through rec_ev_fail(). */
int rec_ev_mods_parse(struct rec_ev_parser *p, const char *s, size_t n, const char *what,
		      struct rec_ev_mods *m);

/* Apply @m to @e's attr (perf's rules: first of u/k/h excludes the other
 * levels, p raises precise_ip). */
void rec_ev_mods_apply(const struct rec_ev_mods *m, struct rec_event *e);

/* ---- names.c ---- */

/* A generic hardware or software event: perf's name, its second spelling
 * and its config. */
struct rec_ev_alias {
	const char *name;
	const char *alias; /* NULL when perf knows no second spelling */
	uint64_t config;
	const char *desc;  /* for --list-events -v */
};

/* perf's generic hardware (PERF_TYPE_HARDWARE) and software
 * (PERF_TYPE_SOFTWARE) events, rec_ev_hw_events_n and rec_ev_sw_events_n
 * of them, in perf's order.  Static data, owned by names.c. */
extern const struct rec_ev_alias rec_ev_hw_events[];
extern const size_t rec_ev_hw_events_n;
extern const struct rec_ev_alias rec_ev_sw_events[];
extern const size_t rec_ev_sw_events_n;

/* The spellings of each generic cache operation: [0] the form used before
 * "-misses" ("load"), [1] the plural for accesses ("loads"), then the
 * other ones perf accepts; NULL after the last. */
extern const char *const rec_ev_cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5];

/* Per generic cache, a bit (1u << PERF_COUNT_HW_CACHE_OP_*) for each
 * operation it supports (perf's evsel__is_cache_op_valid). */
extern const unsigned rec_ev_cache_valid_ops[PERF_COUNT_HW_CACHE_MAX];

/* Write perf's canonical spelling of cache event @cache/@op/@res
 * ("L1-dcache-loads", "L1-dcache-load-misses") into @buf (@size bytes,
 * truncated if need be).  All three must be in range. */
void rec_ev_cache_canonical(char *buf, size_t size, int cache, int op, int res);

/* Resolve a generic hardware, software, cache or raw name: 1 with
 * type/config/spelling filled, 0 if @s is none of these, or -EINVAL
 * (through rec_ev_fail) for a cache operation the cache does not have. */
int rec_ev_builtin_find(struct rec_ev_parser *p, const char *s, size_t len, uint32_t *type,
			uint64_t *config, const char **spelling);

/* Levenshtein distance of @a (@la bytes) and @b (@lb bytes), both at most
 * REC_EV_DIST_MAX_LEN long. */
unsigned rec_ev_edit_distance(const char *a, size_t la, const char *b, size_t lb);

/* Fail the parse for the unknown name @name (@len bytes): -ENOENT through
 * rec_ev_fail(), the message listing the nearest known names (generic,
 * cache and, when tracefs is there, tracepoints), or saying that tracefs
 * is missing when @tp_syntax (the name was written as sys:event). */
int rec_ev_unknown(struct rec_ev_parser *p, const char *name, size_t len, bool tp_syntax);

#endif /* AMB_REC_EVENTS_INTERNAL_H */

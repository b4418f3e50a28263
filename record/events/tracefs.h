/* SPDX-License-Identifier: MIT */
/*
 * record/events/tracefs.h - tracefs (tracefs.c): finding (and if need be
 * mounting) it, reading its files and listing its tracepoints.
 */
#ifndef AMB_REC_TRACEFS_H
#define AMB_REC_TRACEFS_H

#include <stddef.h>

/*
 * The tracefs mount point ("/sys/kernel/tracing" or the debugfs one),
 * mounting tracefs when it is missing and we may (root).  Returns NULL with
 * errno set when tracefs is unavailable.  The string is static.
 */
const char *rec_tracefs_root(void);

/* Read tracefs file @rel (e.g. "events/sched/sched_switch/format") into a
 * heap string (caller frees).  NULL with errno set on failure. */
char *rec_tracefs_read(const char *rel, size_t *len);

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

#endif /* AMB_REC_TRACEFS_H */

/* SPDX-License-Identifier: MIT */
/*
 * record/counts.h - the final COUNTS block (counts.c, FORMAT.md §5.4).
 */
#ifndef AMB_REC_COUNTS_H
#define AMB_REC_COUNTS_H

#include <amber/common.h>
#include "record/evsel.h"
#include "record/target.h"

/*
 * read() every fd of @el and append COUNTS entries to @b.  With @base (one
 * entry per fd of @el, in its [event][cpu][thread] order: value,
 * time_enabled, time_running at the start of the window, zero at first)
 * the entries hold what was counted since, and @base is set to the new
 * readings: the windows of consecutive files add up (FORMAT.md §5.4).
 * Returns the number of entries or -ENOMEM; unreadable fds are skipped
 * with a warning.
 */
int rec_counts_build(const struct rec_evlist *el, const struct rec_target *t,
		     uint64_t (*base)[3], struct amb_buf *b);

#endif /* AMB_REC_COUNTS_H */

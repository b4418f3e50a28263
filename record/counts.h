/* SPDX-License-Identifier: MIT */
/*
 * record/counts.h - the final COUNTS block (counts.c, FORMAT.md §5.4).
 */
#ifndef AMB_REC_COUNTS_H
#define AMB_REC_COUNTS_H

#include <amber/common.h>
#include "record/evsel.h"
#include "record/target.h"

/* read() every fd of @el and append COUNTS entries to @b.  Returns the
 * number of entries or -ENOMEM; unreadable fds are skipped with a warning. */
int rec_counts_build(const struct rec_evlist *el, const struct rec_target *t, struct amb_buf *b);

#endif /* AMB_REC_COUNTS_H */

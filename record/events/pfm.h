/* SPDX-License-Identifier: MIT */
/*
 * record/events/pfm.h - libpfm4 event names (pfm.c).
 */
#ifndef AMB_REC_PFM_H
#define AMB_REC_PFM_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Encode the libpfm4 event @name (with libpfm4's unit masks and
 * modifiers, e.g. "icl::MEM_LOAD_RETIRED:L1_HIT:u",
 * "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS") into @attr's type, config,
 * config1, config2, exclude_* and precise_ip fields; other fields are
 * untouched.  Initialises libpfm4 on first use.  Returns 0; -ENOENT when
 * libpfm4 knows no such event (or is unusable here); -EINVAL when it
 * knows the event but not the rest (a missing or unknown unit mask, a bad
 * modifier), with libpfm4's reason and, for a unit mask, the event's
 * unit masks in @why (may be NULL); -ENOMEM.
 */
int rec_pfm_encode(const char *name, struct perf_event_attr *attr, char *why, size_t whylen);

/*
 * Print the events of the PMUs libpfm4 detected on this machine (its
 * generic "perf" table too) as --list-events lines "pmu::event" matching
 * the glob @pattern (NULL = all), each probed (rec_probe_list_line()).
 * An event that needs a unit mask is listed once per unit mask that
 * encodes alone ("icl::MEM_LOAD_RETIRED:L1_HIT").  @verbose adds the
 * descriptions.  Returns the number printed or -errno.
 */
int rec_pfm_list(FILE *out, const char *pattern, bool verbose);

#endif /* AMB_REC_PFM_H */

/* SPDX-License-Identifier: MIT */
/*
 * record/events/pfm.h - libpfm4 event names (pfm.c).
 */
#ifndef AMB_REC_PFM_H
#define AMB_REC_PFM_H

#include <linux/perf_event.h>
#include <stdio.h>

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

#endif /* AMB_REC_PFM_H */

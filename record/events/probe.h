/* SPDX-License-Identifier: MIT */
/*
 * record/events/probe.h - can this machine open an event, and if not, why
 * (probe.c): the answer --list-events prints beside every name, and the
 * reason amber-rec gives when it cannot open an event.
 */
#ifndef AMB_REC_PROBE_H
#define AMB_REC_PROBE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Open the type, config and exclude bits of @a for counting on this
 * thread (disabled), and close it again.  When the kernel refuses counting
 * user and kernel for permissions, user space alone is tried: the
 * question is whether the event can be opened at all.  Returns 0 or
 * -errno of perf_event_open.
 */
int rec_probe_open(const struct perf_event_attr *a);

/*
 * True when @err (a positive errno of perf_event_open) means that this
 * machine cannot count the event: no PMU for it, no such event, or a
 * feature its PMU lacks; false for a refused permission, bad attributes
 * or a lack of resources.
 */
bool rec_probe_unsupported(int err);

/*
 * Why perf_event_open refused @a with @err (positive errno), for the user,
 * into @buf: a short phrase ("no hardware PMU on this machine"), and with
 * @detail what it means and what to do.
 */
void rec_probe_why(const struct perf_event_attr *a, int err, bool detail, char *buf, size_t len);

/* True when the kernel lists a CPU PMU, the one that takes hardware
 * events (x86 "cpu", arm "armv8_pmuv3_0", ...). */
bool rec_probe_have_cpu_pmu(void);

/*
 * Print one --list-events line: "  NAME  [KIND]", with "; unavailable:
 * WHY" when @attr (NULL: not probed) does not open here, or "; counts
 * only" when @sampling asks to check that it can be sampled and it cannot
 * (amber-rec stat counts it, amber-rec does not record it); with
 * @verbose, @desc (may be NULL) on the lines below.
 */
void rec_probe_list_line(FILE *out, const char *name, const char *kind,
			 const struct perf_event_attr *attr, bool sampling, const char *desc,
			 bool verbose);

#endif /* AMB_REC_PROBE_H */

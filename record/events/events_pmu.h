/* SPDX-License-Identifier: MIT */
/*
 * record/events/events_pmu.h - perf's "pmu/terms/mods" events for the -e
 * parser (events_pmu.c), with the PMUs pmu.c reads.
 */
#ifndef AMB_REC_EVENTS_PMU_H
#define AMB_REC_EVENTS_PMU_H

#include <stddef.h>

#include "record/events/events_internal.h"

/* "pmu/terms/mods" (or "cycles/terms/"): @t (@len bytes, trimmed) holds at
 * least one '/'.  Appends its event to p->l; returns 0, -ENOENT for an
 * unknown PMU or term, -EINVAL for bad syntax or values, other -errno for
 * unreadable sysfs files, -ENOMEM; messages through rec_ev_fail(). */
int rec_ev_pmu_parse(struct rec_ev_parser *p, const char *t, size_t len);

#endif /* AMB_REC_EVENTS_PMU_H */

/* SPDX-License-Identifier: MIT */
/*
 * record/tp_filter.h - tracepoint filters (--filter, tp_filter.c): set on every
 * descriptor of their events with PERF_EVENT_IOC_SET_FILTER, and when the
 * kernel refuses one, its own words on why.
 */
#ifndef AMB_REC_TP_FILTER_H
#define AMB_REC_TP_FILTER_H

#include <stddef.h>

#include "record/evsel.h"

/*
 * Set filter @expr on every open descriptor of event @e of @el, which
 * must be a tracepoint.  Returns 0, or -EINVAL (not a tracepoint, or the
 * kernel refused the filter) or another -errno of the ioctl, with a
 * message in @err that quotes the kernel's parse error when tracefs can
 * say it (the event's "filter" file, when no filter is set there; it is
 * cleared again afterwards).
 */
int rec_filter_set(struct rec_evlist *el, size_t e, const char *expr, char *err, size_t errlen);

/*
 * Parse error text of tracefs filter file @text (what the kernel shows
 * after a refused filter: the filter, a caret line, "parse_error: ...")
 * into @out: the reason, then the filter and the caret under the error on
 * two lines indented by four ("Field not found\n    x == 1\n    ^").
 * Returns 0, or -ENOENT when @text holds no parse error.
 */
int rec_filter_parse_error(const char *text, char *out, size_t outlen);

#endif /* AMB_REC_TP_FILTER_H */

/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/header_text.h - what a recording says of itself, as text for
 * headers (info, report --header): sample_type bits by name and the
 * recorded topology summed up (header_text.c).
 */
#ifndef AMB_ANALYZE_HEADER_TEXT_H
#define AMB_ANALYZE_HEADER_TEXT_H

#include <stdint.h>

#include "analyze/replay/replay.h"
#include <amber/common.h>

/* Append "IP|TID|TIME|..." for @sample_type to @out (unknown bits in
 * hex).  Returns 0 or -ENOMEM. */
int ana_describe_sample_type(uint64_t sample_type, struct amb_buf *out);

/*
 * Append the TOPOLOGY block (FORMAT.md §5.7) of @s summed up, a line each
 * ending in '\n', to @out: CPUs with their packages, dies, cores and
 * threads per core; NUMA nodes with their CPUs and memory; the caches of
 * the first CPU.  Values come from the file: print them escaped.  Returns
 * the number of lines (0: no topology recorded) or -ENOMEM.
 */
int ana_describe_topology(const struct ana_session *s, struct amb_buf *out);

#endif /* AMB_ANALYZE_HEADER_TEXT_H */

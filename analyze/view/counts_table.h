/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/counts_table.h - a recording's stored counts (its COUNTS
 * blocks, FORMAT.md §5.4) as the tables of common/perf_stat.h
 * (counts_table.c): the table
 * `amber-analyze stat` prints, made by the code `amber-rec stat` prints
 * with, and the totals `info` and `report` show.
 */
#ifndef AMB_ANALYZE_VIEW_COUNTS_TABLE_H
#define AMB_ANALYZE_VIEW_COUNTS_TABLE_H

#include "analyze/replay/replay.h"
#include "common/perf_stat.h"

/*
 * An empty table of @s's events summed as @aggr says: the node of each
 * CPU from the TOPOLOGY (cpu.N.node), thread names from the META keys
 * stat.comm.TID, and the events that could not be opened when recording
 * (AMB_EVENT_UNSUPPORTED) with the reason recorded in
 * stat.event.N.unsupported.  Free *@out with amb_stat_free().  Returns
 * 0, -ENODATA when @s has no events, -ENOMEM.
 */
int ana_counts_table_new(const struct ana_session *s, enum amb_stat_aggr aggr,
			 struct amb_stat **out);

/* Add the entries of block @c of @s to @st's current window; an entry
 * naming no event of the table is skipped.  A task's counter opened on
 * every CPU (a sampling recording's) is summed by
 * amb_stat_add_task_cpus().  Returns 0 or -ENOMEM. */
int ana_counts_add(const struct ana_session *s, struct amb_stat *st, const struct ana_counts *c);

/*
 * The window of the blocks of run @run: from the first block's start to
 * the last one's end, or the recording's time.start_ns..time.end_ns when
 * the blocks carry no times (older files).  0 when unknown.
 */
uint64_t ana_counts_run_ns(const struct ana_session *s, uint32_t run);

/*
 * The totals of @s: each run's blocks summed into one window of the
 * table (so that it prints the mean over the runs), with its wall time
 * ana_counts_run_ns().  Returns 0, -ENODATA when @s holds no counts,
 * -ENOMEM.
 */
int ana_counts_totals(const struct ana_session *s, enum amb_stat_aggr aggr,
		      struct amb_stat **out);

#endif /* AMB_ANALYZE_VIEW_COUNTS_TABLE_H */

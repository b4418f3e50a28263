/* SPDX-License-Identifier: MIT */
/*
 * record/counting.h - events opened for counting, the acquisition half of
 * `amber-rec stat` (counting.c): each group opened with its leader
 * disabled and read with PERF_FORMAT_GROUP in one read(2), on every CPU
 * (-a, -C) or on every thread of the target (a command, -p, -t).
 */
#ifndef AMB_REC_COUNTING_H
#define AMB_REC_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/perf_stat.h"
#include "record/events/events.h"
#include "record/target.h"

/*
 * The open events: a grid of cells, one per CPU for system-wide targets
 * (thread -1) or one per thread for task targets (CPU -1), and for each
 * event and cell an fd and its last reading.
 */
struct rec_counting {
	struct rec_event_list *events;
	size_t nr_cells;
	int *cpu;                     /* [cell]: the CPU, or -1 (any) */
	pid_t *tid;                   /* [cell]: the thread, or -1 (every thread) */
	int *fds;                     /* [event][cell], -1 when not open there */
	uint64_t *ids;                /* [event][cell]: PERF_EVENT_IOC_ID */
	struct amb_stat_count *now;   /* [event][cell]: the last rec_counting_read() */
	bool *have;                   /* [event][cell]: now[] holds a reading */
	int *lead;                    /* [event]: the event that leads its group as
				       * opened (the first member that opened), -1 when
				       * it did not open */
	char **unsupported;           /* [event]: why it cannot be counted here, or NULL */
	int *unsupported_err;         /* [event]: the errno of that */
};

/* Index of event @e at cell @cell in the [event][cell] arrays. */
static inline size_t rec_counting_at(const struct rec_counting *c, size_t e, size_t cell)
{
	return e * c->nr_cells + cell;
}

/*
 * Open @events (parsed, groups marked by their leader index) for counting
 * on @t: per CPU for SYSTEM targets, per thread otherwise (inherited into
 * children, the leader enabled at exec for a command).  An event the
 * machine cannot count (rec_probe_unsupported()) is left out and its
 * reason kept in unsupported[]; the rest of its group is opened as a
 * group without it, the first member that opens leading.  Any other
 * refusal is an error: -errno with a message naming the event, its group
 * and the reason in @err.  @c is to be closed with rec_counting_close()
 * also after an error.
 */
int rec_counting_open(struct rec_counting *c, struct rec_event_list *events,
		      const struct rec_target *t, char *err, size_t errlen);

/* PERF_EVENT_IOC_ENABLE / _DISABLE on every group leader (a refused
 * ioctl is reported through amb_warn()). */
void rec_counting_enable(struct rec_counting *c, bool on);

/*
 * Read every group with one read(2) of its leader into now[] and have[]
 * (cumulative values since the events were opened).  A group that cannot
 * be read is reported through amb_warn() once and left without readings.
 * Returns the number of groups read.
 */
size_t rec_counting_read(struct rec_counting *c);

/* Close every fd and free the arrays (NULL-safe, also half-opened). */
void rec_counting_close(struct rec_counting *c);

#endif /* AMB_REC_COUNTING_H */

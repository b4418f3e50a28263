/* SPDX-License-Identifier: MIT */
/*
 * record/drain.h - the drain thread (drain.c): every ring into its stage,
 * full or old enough stages to the writer as RING blocks.
 */
#ifndef AMB_REC_DRAIN_H
#define AMB_REC_DRAIN_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/format.h>
#include "common/perf_sample.h"
#include "record/ring.h"
#include "record/stage.h"

/* The drain thread and the stages it fills, one per ring. */
struct rec_drain {
	struct rec_ring *rings;
	size_t nr_rings;
	struct amb_writer *w;
	struct amb_perf_layout layout;  /* of the first event, which all share */
	size_t block_bytes;        /* hand a stage over at this size ... */
	unsigned flush_ms;         /* ... or after this long */
	size_t max_queued;         /* the writer's queue limit, for queue_full */
	struct rec_stage *stages;  /* one per ring */
	pthread_t thread;
	bool running;
	atomic_bool stop;
	atomic_int error;          /* first writer error, 0 */
	atomic_ulong queue_full;   /* appends made while the writer queue was full */
};

/*
 * Start draining @rings (@n, borrowed) into @w on a new thread; @attr is
 * the first event's (every event shares its sample layout).  A stage is
 * handed over at @block_bytes or after @flush_ms; @max_queued is the
 * writer's queue limit, to count the appends that had to wait.  Returns 0
 * or -errno (-ENOMEM, pthread_create's); free @d with rec_drain_free()
 * either way.
 */
int rec_drain_start(struct rec_drain *d, struct rec_ring *rings, size_t n,
		    struct amb_writer *w, const struct perf_event_attr *attr,
		    size_t block_bytes, unsigned flush_ms, size_t max_queued);

/* Stop the thread, drain once more and hand every stage to the writer
 * (a writer error lands in d->error).  Does nothing when not running. */
void rec_drain_stop(struct rec_drain *d);

/* The counters of every stage, summed into @c. */
void rec_drain_totals(const struct rec_drain *d, struct rec_counters *c);

/* One drain pass over every ring; flush stages that are due.  Used by the
 * thread and by tests.  Returns 0 or the writer's error. */
int rec_drain_pass(struct rec_drain *d, bool flush_all, uint64_t now_ms, uint64_t *last_flush_ms);

/* Stop the thread if it runs and free the stages (NULL-safe). */
void rec_drain_free(struct rec_drain *d);

#endif /* AMB_REC_DRAIN_H */

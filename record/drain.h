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

/*
 * Where RING blocks go when they are not simply appended to a writer: the
 * files of a rotating recording, the flight recorder's memory (rotate.c).
 * Called on the drain thread.
 */
struct rec_sink {
	/* Take over block @d of @len bytes at @data (malloc'ed; freed by the
	 * sink, also on error); @c counts what it holds.  0 or -errno. */
	int (*append)(void *ctx, const struct amb_block_desc *d, void *data, size_t len,
		      const struct rec_counters *c);
	/* Whether a block of @len raw bytes may go in now (a disk budget).
	 * NULL: always.  A refused block stays staged and draining pauses
	 * until rec_drain_cut() gives a sink with room. */
	bool (*room)(void *ctx, size_t len);
	void *ctx;
};

/* The drain thread and the stages it fills, one per ring. */
struct rec_drain {
	struct rec_ring *rings;
	size_t nr_rings;
	struct amb_writer *w;      /* the sink when sink.append is NULL */
	struct rec_sink sink;
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
	/* Switching sinks (rec_drain_cut), and what the sink in use got. */
	struct rec_counters sent;  /* drain thread: what the current sink received */
	atomic_bool side_on;       /* set: copy the state records handed over into side[] */
	struct rec_records *side;  /* one per ring */
	atomic_bool held;          /* a stage found no room: draining is paused */
	pthread_mutex_t lock;      /* protects the cut_* fields */
	pthread_cond_t cond;
	bool sync_ready;           /* lock and cond initialised */
	bool cut_pending, cut_done;
	struct rec_sink cut_next;
	struct rec_counters cut_sent;
	int wake_fd;               /* eventfd that wakes the thread for a cut; -1 */
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

/* Send RING blocks to @sink from now on instead of d->w. */
void rec_drain_set_sink(struct rec_drain *d, const struct rec_sink *sink);

/*
 * Switch to @next at one instant, on the drain thread (or here when it does
 * not run): every record already in the rings goes to the current sink -
 * except what it has no room for, which stays staged and goes to @next -
 * and every later one to @next, so no record is lost or repeated.  The
 * state records copied aside since d->side_on was set (copies of records
 * the old sink got) go first into @next's blocks, and side_on is cleared.
 * *@sent gets what the old sink received since the previous cut.  Waits
 * for the drain thread.  Returns 0 or the first error (-ENOMEM, a sink's).
 */
int rec_drain_cut(struct rec_drain *d, const struct rec_sink *next, struct rec_counters *sent);

/* The counters of every stage, summed into @c. */
void rec_drain_totals(const struct rec_drain *d, struct rec_counters *c);

/* One drain pass over every ring; flush stages that are due.  Used by the
 * thread and by tests.  Returns 0 or the writer's error. */
int rec_drain_pass(struct rec_drain *d, bool flush_all, uint64_t now_ms, uint64_t *last_flush_ms);

/* Stop the thread if it runs and free the stages (NULL-safe). */
void rec_drain_free(struct rec_drain *d);

#endif /* AMB_REC_DRAIN_H */

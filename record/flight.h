/* SPDX-License-Identifier: MIT */
/*
 * record/flight.h - the flight recorder's memory (flight.c): the newest
 * RING blocks, up to a size or a time span, and the state records (COMM,
 * FORK, MMAP2, ...) of every block it let go since its base snapshot, so
 * that what it keeps can still be named.
 */
#ifndef AMB_REC_FLIGHT_H
#define AMB_REC_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include <amber/format.h>
#include "common/perf_sample.h"
#include "record/stage.h"

/* A RING block held in memory, raw. */
struct rec_flight_block {
	struct amb_block_desc d;
	void *data;                /* malloc'ed */
	size_t len;
	struct rec_counters c;     /* what it holds */
};

/* The state records of one stream (CPU), oldest first. */
struct rec_flight_state {
	uint32_t stream;
	struct rec_records r;
};

struct rec_flight;

/*
 * An empty flight recorder memory keeping blocks of @max_bytes raw bytes
 * in all (0: no size limit), or spanning @max_ns (0: no time limit) from
 * the oldest block's end to the newest block's end, on the perf clock.
 * Records are laid out as @l (borrowed).  NULL when out of memory.  Safe
 * to use from two threads (a lock inside).
 */
struct rec_flight *rec_flight_new(const struct amb_perf_layout *l, uint64_t max_bytes,
				  uint64_t max_ns);

/* Free @f and all it holds (NULL-safe). */
void rec_flight_free(struct rec_flight *f);

/*
 * Take over block @d (@len bytes at @data, malloc'ed; freed here also on
 * error), counted as @c, then let go of the oldest blocks while the limit
 * is passed (never the one just added), keeping their state records at or
 * after the base time.  The signature of rec_sink.append.  Returns 0 or
 * -ENOMEM.
 */
int rec_flight_add(void *f, const struct amb_block_desc *d, void *data, size_t len,
		   const struct rec_counters *c);

/* From now on keep state records at or after @t only, and forget those
 * before (a newer snapshot describes what they did). */
void rec_flight_set_base(struct rec_flight *f, uint64_t t);

/* The smallest first_time of the blocks held; 0 when none is. */
uint64_t rec_flight_first_time(struct rec_flight *f);

/* Raw bytes of the blocks, and of the state records, held. */
void rec_flight_usage(struct rec_flight *f, uint64_t *block_bytes, uint64_t *state_bytes);

/* What rec_flight_take() hands over. */
struct rec_flight_take {
	struct rec_flight_state *state;   /* copies: the state before the blocks */
	size_t nr_state;
	struct rec_flight_block *blocks;  /* in the order they came */
	size_t nr_blocks;
	struct rec_counters c;            /* of the blocks */
	struct rec_counters dropped;      /* of the blocks let go since the last take */
};

/*
 * Hand every block held, and a copy of the state records, over to @out,
 * and keep the blocks' state records as if they had been let go: the next
 * take holds what came after these blocks, named as well.  Returns 0 or
 * -ENOMEM (@out then empty, @f holding its blocks, perhaps some state
 * records twice).  Free @out with rec_flight_take_free().
 */
int rec_flight_take(struct rec_flight *f, struct rec_flight_take *out);

/* Free what @t holds and zero it (NULL-safe). */
void rec_flight_take_free(struct rec_flight_take *t);

#endif /* AMB_REC_FLIGHT_H */

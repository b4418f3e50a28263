/* SPDX-License-Identifier: MIT */
/*
 * analyze/replay/session_pool.h - the block pool of session_pool.c, what
 * session.c's merge uses to have RING blocks decoded by worker threads
 * (ana_session_set_jobs()): it schedules the jobs, one per RING block, and
 * hands each decoded block over in a slot the merge gives back when it has
 * parsed the block's records.
 */
#ifndef AMB_ANALYZE_SESSION_POOL_H
#define AMB_ANALYZE_SESSION_POOL_H

#include <stddef.h>
#include <stdint.h>

#include <amber/format.h>

struct block_pool;

/* A decoded block, or why it did not load. */
struct block_slot {
	struct block_slot *next;       /* in the free list */
	struct amb_payload *pl;
	const void *data;
	size_t len;
	int err;                       /* the load's error; its message in pl */
};

/* The number of jobs (the caller's thread and the decoding workers) for
 * @asked, what ana_session_set_jobs() was given: one per online CPU for 0. */
unsigned ana_block_pool_jobs(unsigned asked);

/*
 * Start @nthreads workers over the RING blocks of @r's @nstreams streams
 * @streams (sorted ids), scheduled on first_time, each stream's in file
 * order.  Each stream's jobs, in file order, are in
 * ana_block_pool_stream_jobs() from @first[i], @count[i] of them (@first
 * and @count have @nstreams entries).  @r must outlive the pool.
 * Returns the pool, or NULL without memory or threads (then the caller's
 * thread decodes alone).  Free with ana_block_pool_free().
 */
struct block_pool *ana_block_pool_new(struct amb_reader *r, const uint32_t *streams,
				      size_t nstreams, unsigned nthreads, size_t *first,
				      size_t *count);

/* Stop the workers and free @bp with its slots (NULL accepted); the slots
 * taken must have been given back. */
void ana_block_pool_free(struct block_pool *bp);

/* The jobs of every stream in file order, indexes of jobs (see
 * ana_block_pool_new()); owned by @bp. */
const size_t *ana_block_pool_stream_jobs(const struct block_pool *bp);

/* The reader's index of the block of job @k. */
size_t ana_block_pool_block(const struct block_pool *bp, size_t k);

/* The slot of job @k, which the caller's thread needs now: decoded by a
 * worker (this thread decodes later jobs meanwhile, or waits), or loaded
 * here; taken once, given back with ana_block_pool_put().  NULL without
 * memory. */
struct block_slot *ana_block_pool_take(struct block_pool *bp, size_t k);

/* Give back a slot ana_block_pool_take() returned (NULL accepted). */
void ana_block_pool_put(struct block_pool *bp, struct block_slot *sl);

#endif /* AMB_ANALYZE_SESSION_POOL_H */

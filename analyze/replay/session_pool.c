// SPDX-License-Identifier: MIT
/*
 * analyze/replay/session_pool.c - the parallel decoding of a session's
 * RING blocks (session_pool.h): worker threads load and decode blocks
 * ahead of session.c's merge, in about the order it will need them, into
 * slots it takes and gives back, at most four per worker decoding or
 * waiting.  The merge's own thread decodes too: a block no worker has
 * started when the merge needs it (so that a full pool never stalls the
 * merge), and later blocks while the one it needs is still being decoded
 * (so that when decoding is the slower half, both threads share it).  The
 * merge parses and delivers the records: their order and every warning
 * are those of the single-threaded run.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/replay/session_pool.h"
#include <amber/common.h>

enum { JOB_WAITING, JOB_RUNNING, JOB_DONE, JOB_TAKEN };

struct block_job {
	size_t block;                  /* reader index of a RING block */
	int state;
	struct block_slot *slot;       /* when JOB_DONE */
};

/*
 * The RING blocks of a recording in the order the merge will about need
 * them, the workers that decode them ahead, and the slots they decode
 * into.  @lock guards everything but the workers' own loads.
 */
struct block_pool {
	struct amb_reader *r;
	pthread_mutex_t lock;
	pthread_cond_t done;           /* a job is done */
	pthread_cond_t work;           /* room ahead, or stop */
	struct block_job *jobs;
	size_t nr_jobs, next;          /* next: the first job no worker started */
	unsigned ahead, max_ahead;     /* jobs workers started, not yet taken */
	struct block_slot *free;
	size_t *stream_jobs;           /* each stream's jobs in file order */
	bool stop;
	pthread_t *threads;
	unsigned nr_threads;
};

static void slot_free(struct block_slot *sl)
{
	if (sl) {
		amb_payload_free(sl->pl);
		free(sl);
	}
}

/* A free slot, or a new one; NULL without memory.  Under the lock. */
static struct block_slot *slot_get(struct block_pool *bp)
{
	struct block_slot *sl = bp->free;

	if (sl) {
		bp->free = sl->next;
		return sl;
	}
	sl = calloc(1, sizeof(*sl));
	if (sl && !(sl->pl = amb_payload_new())) {
		free(sl);
		sl = NULL;
	}
	return sl;
}

/*
 * Drop the decoded block at [@p, @p + @len) from this core's caches, and
 * from every other's, once the merge has parsed it.  A worker decodes a
 * later block into the same buffer: lines another core still holds cost
 * that worker a probe of the other core each, and where the two cores
 * share no cache (cores of different core complexes, as the vCPUs of
 * cloud hosts often are) that doubled its decoding time (one -j 2 worker
 * on 111 blocks of 1 MiB: 55 ms with the lines dropped, 130-150 ms
 * without; report -j 2 on 1.16M samples 73 ms against 99, median of 25).
 * Where the cores share their caches the flush costs the merge about 3%
 * (both threads on one CPU: 98.5 ms against 95.5).  Only x86 has an
 * instruction for it that every process may use; elsewhere nothing is
 * done.
 */
static void drop_lines(const void *p, size_t len)
{
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
	const uintptr_t line = 64, end = (uintptr_t)p + len;

	for (uintptr_t a = (uintptr_t)p & ~(line - 1); a < end; a += line)
		__builtin_ia32_clflush((const void *)a);
#else
	(void)p;
	(void)len;
#endif
}

void ana_block_pool_put(struct block_pool *bp, struct block_slot *sl)
{
	if (!sl)
		return;
	if (!sl->err && sl->data)
		drop_lines(sl->data, sl->len);
	pthread_mutex_lock(&bp->lock);
	sl->next = bp->free;
	bp->free = sl;
	pthread_mutex_unlock(&bp->lock);
}

/* Load job @j into @sl, the job running meanwhile.  Called under the lock,
 * let go while the block loads (one reader serves every thread). */
static void job_load(struct block_pool *bp, struct block_job *j, struct block_slot *sl)
{
	j->state = JOB_RUNNING;
	pthread_mutex_unlock(&bp->lock);
	sl->err = amb_reader_load(bp->r, j->block, sl->pl, &sl->data, &sl->len);
	pthread_mutex_lock(&bp->lock);
}

/* Move bp->next past the jobs started already (the caller's thread loads
 * jobs too).  Under the lock. */
static void skip_started(struct block_pool *bp)
{
	while (bp->next < bp->nr_jobs && bp->jobs[bp->next].state != JOB_WAITING)
		bp->next++;
}

/*
 * Decode job bp->next, which is waiting, into a new slot for the merge to
 * take; false without memory for a slot.  Under the lock (job_load()).
 */
static bool run_next(struct block_pool *bp)
{
	struct block_slot *sl = slot_get(bp);
	struct block_job *j;

	if (!sl)
		return false;
	j = &bp->jobs[bp->next++];
	bp->ahead++;
	job_load(bp, j, sl);
	j->slot = sl;
	j->state = JOB_DONE;
	pthread_cond_broadcast(&bp->done);
	return true;
}

static void *pool_worker(void *arg)
{
	struct block_pool *bp = arg;

	pthread_mutex_lock(&bp->lock);
	for (;;) {
		skip_started(bp);
		if (bp->stop || bp->next == bp->nr_jobs)
			break;
		if (bp->ahead >= bp->max_ahead) {
			pthread_cond_wait(&bp->work, &bp->lock);
			continue;
		}
		if (!run_next(bp))
			break;  /* no memory: the caller's thread loads what is left */
	}
	pthread_mutex_unlock(&bp->lock);
	return NULL;
}

/*
 * The slot of job @k, which the caller's thread needs now: decoded by a
 * worker (while one is at it, this thread decodes later blocks, room
 * ahead permitting, and waits only when there is none), or loaded here
 * when no worker has started it, so that a full pool never stalls the
 * merge.  NULL without memory.
 */
struct block_slot *ana_block_pool_take(struct block_pool *bp, size_t k)
{
	struct block_job *j = &bp->jobs[k];
	struct block_slot *sl;

	pthread_mutex_lock(&bp->lock);
	while (j->state == JOB_RUNNING) {
		/* Rather than wait for a worker, decode a later block: when
		 * decoding is the slower half, both threads share it. */
		skip_started(bp);
		if (bp->next < bp->nr_jobs && bp->ahead < bp->max_ahead && run_next(bp))
			continue;
		pthread_cond_wait(&bp->done, &bp->lock);
	}
	if (j->state == JOB_DONE) {
		sl = j->slot;
		bp->ahead--;
		pthread_cond_broadcast(&bp->work);
	} else {
		sl = slot_get(bp);
		if (sl)
			job_load(bp, j, sl);
	}
	j->state = JOB_TAKEN;
	j->slot = NULL;
	pthread_mutex_unlock(&bp->lock);
	return sl;
}

void ana_block_pool_free(struct block_pool *bp)
{
	struct block_slot *sl, *next;

	if (!bp)
		return;
	if (bp->nr_threads) {
		pthread_mutex_lock(&bp->lock);
		bp->stop = true;
		pthread_cond_broadcast(&bp->work);
		pthread_mutex_unlock(&bp->lock);
		for (unsigned i = 0; i < bp->nr_threads; i++)
			pthread_join(bp->threads[i], NULL);
	}
	for (size_t k = 0; k < bp->nr_jobs; k++)
		if (bp->jobs[k].state == JOB_DONE)
			slot_free(bp->jobs[k].slot);
	for (sl = bp->free; sl; sl = next) {
		next = sl->next;
		slot_free(sl);
	}
	pthread_cond_destroy(&bp->done);
	pthread_cond_destroy(&bp->work);
	pthread_mutex_destroy(&bp->lock);
	free(bp->threads);
	free(bp->jobs);
	free(bp->stream_jobs);
	free(bp);
}

/* The number of decoding threads asked for, or one per online CPU. */
unsigned ana_block_pool_jobs(unsigned asked)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (asked)
		return asked;
	return n > 1 ? (unsigned)AMB_MIN(n, 256) : 1;
}

/* The index of stream @id in the @n sorted ids @streams (it is there). */
static size_t stream_index(const uint32_t *streams, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;

		if (streams[mid] <= id)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Start @nthreads workers over the RING blocks of @r's @nstreams streams
 * @streams (sorted ids).  The schedule merges the streams' block lists on
 * first_time, keeping each stream's file order: a block is needed about
 * when the merge reaches the time its stream's previous block ended.
 * Each stream's jobs, in file order, are in bp->stream_jobs from
 * *@first[i], *@count[i] of them.  Returns the pool, or NULL without
 * memory or threads (then the caller's thread decodes alone).
 */
struct block_pool *ana_block_pool_new(struct amb_reader *r, const uint32_t *streams,
				      size_t nstreams, unsigned nthreads, size_t *first,
				      size_t *count)
{
	const struct amb_block_filter f = { AMB_BLOCK_RING, -1, 0, 0 };
	struct block_pool *bp = calloc(1, sizeof(*bp));
	size_t i, n = 0, *head = NULL, *blocks = NULL;

	if (!bp)
		return NULL;
	bp->r = r;
	pthread_mutex_init(&bp->lock, NULL);
	pthread_cond_init(&bp->done, NULL);
	pthread_cond_init(&bp->work, NULL);
	amb_reader_for_each_block(r, &f, i)
		n++;
	bp->jobs = calloc(n ? n : 1, sizeof(*bp->jobs));
	bp->stream_jobs = calloc(n ? n : 1, sizeof(*bp->stream_jobs));
	blocks = calloc(n ? n : 1, sizeof(*blocks));
	head = calloc(nstreams ? nstreams : 1, sizeof(*head));
	bp->threads = calloc(nthreads, sizeof(*bp->threads));
	if (!bp->jobs || !bp->stream_jobs || !blocks || !head || !bp->threads)
		goto fail;

	/* Each stream's blocks, grouped by stream in file order. */
	memset(count, 0, nstreams * sizeof(*count));
	amb_reader_for_each_block(r, &f, i)
		count[stream_index(streams, nstreams, amb_reader_block(r, i)->stream)]++;
	for (i = 0; i < nstreams; i++)
		first[i] = head[i] = i ? first[i - 1] + count[i - 1] : 0;
	amb_reader_for_each_block(r, &f, i)
		blocks[head[stream_index(streams, nstreams, amb_reader_block(r, i)->stream)]++] = i;
	/* Merge them on first_time; ties keep stream order. */
	for (i = 0; i < nstreams; i++)
		head[i] = first[i];
	for (bp->nr_jobs = 0; bp->nr_jobs < n; bp->nr_jobs++) {
		size_t best = SIZE_MAX;

		for (i = 0; i < nstreams; i++) {
			if (head[i] == first[i] + count[i])
				continue;
			if (best == SIZE_MAX ||
			    amb_reader_block(r, blocks[head[i]])->first_time <
			    amb_reader_block(r, blocks[head[best]])->first_time)
				best = i;
		}
		bp->stream_jobs[head[best]] = bp->nr_jobs;
		bp->jobs[bp->nr_jobs].block = blocks[head[best]++];
	}
	free(blocks);
	free(head);
	blocks = head = NULL;

	/* Four blocks per worker decoding or decoded ahead of the merge, no
	 * more: the merge takes the streams' blocks in about first_time
	 * order, not exactly, and with fewer the decoding threads idle while
	 * the merge still reads blocks it took (-j 2, the merge helping: on
	 * 8.1M samples 0.33 s with three, 0.31 with four; on 1.9M 0.083 and
	 * 0.080; each slot another 2 MiB resident). */
	bp->max_ahead = 4 * nthreads;
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&bp->threads[i], NULL, pool_worker, bp))
			break;
		bp->nr_threads++;
	}
	if (bp->nr_threads)
		return bp;
fail:
	free(blocks);
	free(head);
	ana_block_pool_free(bp);
	return NULL;
}

size_t ana_block_pool_block(const struct block_pool *bp, size_t k)
{
	return bp->jobs[k].block;
}

const size_t *ana_block_pool_stream_jobs(const struct block_pool *bp)
{
	return bp->stream_jobs;
}

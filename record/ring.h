/* SPDX-License-Identifier: MIT */
/*
 * record/ring.h - one CPU's perf ring buffer (ring.c): mapping it and
 * copying whole records out of it into a stage.
 */
#ifndef AMB_REC_RING_H
#define AMB_REC_RING_H

#include <stddef.h>
#include <stdint.h>

struct rec_stage;

/* One CPU's perf ring: metadata page followed by 2^n data pages. */
struct rec_ring {
	int fd;
	int cpu;
	void *base;                /* mmap: metadata page + data */
	size_t map_len;
	const uint8_t *data;       /* data area */
	uint64_t size;             /* data area bytes, power of two */
};

/* Map @pages data pages (power of two) of @fd, the ring of @cpu, into @r.
 * Returns 0, -EINVAL for a page count that is no power of two, or -errno
 * of mmap(). */
int rec_ring_mmap(struct rec_ring *r, int fd, int cpu, unsigned pages);

/* Unmap @r (NULL-safe, and safe on a ring never mapped); @fd stays open. */
void rec_ring_unmap(struct rec_ring *r);

/*
 * Copy the whole records in ring data @data (@size bytes, a power of two)
 * between @tail and @head (free-running positions) into @st, handling the
 * wrap at the end of the ring.  Stops early, after the record that fills
 * the stage to st->block_bytes, or when memory runs out.  Returns the new
 * tail: @head or less; a malformed record header (size 0 or beyond head)
 * drops the rest, counted in st->bad, and returns @head.  Pure: no kernel
 * involved.
 */
uint64_t rec_ring_copy(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head,
		       struct rec_stage *st);

/* Read data_head (acquire), copy, publish data_tail (release).  Returns
 * the bytes consumed; the ring may hold more when the stage became full. */
uint64_t rec_ring_drain(struct rec_ring *r, struct rec_stage *st);

#endif /* AMB_REC_RING_H */

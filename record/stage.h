/* SPDX-License-Identifier: MIT */
/*
 * record/stage.h - one CPU's records waiting to become a RING block
 * (stage.c), and the counters kept on the way.
 */
#ifndef AMB_REC_STAGE_H
#define AMB_REC_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/perf_sample.h"

/* What the stages saw, summed over a recording for its summary and META. */
struct rec_counters {
	uint64_t records, samples;
	uint64_t lost_records;     /* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_samples;     /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t throttle, unthrottle;
	uint64_t bytes;
	uint64_t bad;              /* malformed ring content dropped */
	uint64_t stack_zeroed;     /* stale stack-copy bytes written as zeros */
};

/* Records of one CPU waiting to become a RING block. */
struct rec_stage {
	struct amb_buf buf;
	const struct amb_perf_layout *layout;  /* every event's (FORMAT.md §5.6) */
	uint64_t nr_records;       /* in buf */
	uint64_t first_time, last_time;
	size_t block_bytes;        /* full at this size: ring copies stop; 0 = never */
	struct rec_counters c;     /* running totals, never reset */
	struct rec_counters c_taken; /* c when the stage was last handed over */
};

/*
 * Append one whole record (@len == header.size bytes, already checked) and
 * account it.  In a sample's PERF_SAMPLE_STACK_USER copy the bytes past
 * dyn_size are whatever the ring held before (the kernel skips them): they
 * are stored as zeros, which leaks nothing of earlier samples and costs
 * next to nothing compressed.  Returns 0 or -ENOMEM.
 */
int rec_stage_add(struct rec_stage *st, const void *rec, size_t len);

/* Take the staged bytes (caller frees) and fill @d for a RING block of
 * @cpu; the stage starts empty.  NULL when nothing is staged. */
void *rec_stage_take(struct rec_stage *st, uint32_t cpu, struct amb_block_desc *d, size_t *len);

/* Free the staged bytes (NULL-safe); the counters stay. */
void rec_stage_free(struct rec_stage *st);

/* The counters of what @st staged since the last call (what a block taken
 * now holds), into @delta. */
void rec_stage_counted(struct rec_stage *st, struct rec_counters *delta);

/* @dst += @src, field by field. */
void rec_counters_add(struct rec_counters *dst, const struct rec_counters *src);

/* Whole records of one CPU set aside (copies), with their count and time
 * range, as a RING block describes them. */
struct rec_records {
	struct amb_buf buf;
	uint64_t nr;
	uint64_t first_time, last_time;  /* 0 when none carries a time */
};

/* Free @r's bytes and empty it (NULL-safe). */
void rec_records_free(struct rec_records *r);

/*
 * Whether a record of kernel @type changes what a reader knows of tasks
 * and address spaces, which a recording that starts later must still see:
 * MMAP, MMAP2, COMM, FORK, EXIT, NAMESPACES, KSYMBOL, BPF_EVENT, CGROUP,
 * TEXT_POKE.
 */
bool rec_record_is_state(uint32_t type);

/*
 * Append to @out a copy of each such state record among the whole records
 * @data (@len bytes of this host, laid out as @l) whose sample_id_all time
 * is @min_time or later (a record without one is kept).  Returns the
 * number of records copied, or -ENOMEM (@out then holds those before).
 */
long rec_records_copy_state(const struct amb_perf_layout *l, const void *data, size_t len,
			    uint64_t min_time, struct rec_records *out);

/* Put @r's records before what @st holds, in the block @st becomes but not
 * in its counters (they are copies of records counted before); @r is left
 * empty.  Returns 0 or -ENOMEM (nothing changed). */
int rec_stage_prepend(struct rec_stage *st, struct rec_records *r);

#endif /* AMB_REC_STAGE_H */

// SPDX-License-Identifier: MIT
/*
 * record/stage.c - per-CPU staging of raw perf records before they become a
 * RING block: record count, first/last time and the kernel's loss and
 * throttle records.  Bodies are not otherwise parsed (FORMAT.md §5.6),
 * except that a sample is walked to its user stack copy, whose unwritten
 * tail is stored as zeros.  rec_sample_walk() is that walk; the kernel
 * symbol trim (ksyms_trim.c) uses it too, after the recording.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/rec_internal.h"

void rec_layout_init(struct rec_layout *l, uint64_t st)
{
	static const uint64_t fixed_after_time = PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	int off = 8; /* struct perf_event_header */
	uint32_t after = 0;

	memset(l, 0, sizeof(*l));
	l->sample_type = st;
	l->regs_user = -1;

	/* Sample layout: IDENTIFIER, IP, TID, TIME, ... (perf_event.h order). */
	l->sample_time_off = -1;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PERF_SAMPLE_IP)
		off += 8;
	if (st & PERF_SAMPLE_TID)
		off += 8;
	if (st & PERF_SAMPLE_TIME)
		l->sample_time_off = off;
	/* ... ADDR, ID, STREAM_ID, CPU, PERIOD: one u64 each. */
	l->fixed_size = (uint32_t)off + 8u * (uint32_t)__builtin_popcountll(st & fixed_after_time);

	/* sample_id trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
	if (st & PERF_SAMPLE_ID)
		after += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		after += 8;
	if (st & PERF_SAMPLE_CPU)
		after += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		after += 8;
	l->trailer_time_off = (st & PERF_SAMPLE_TIME) ? (int)(after + 8) : -1;
	l->trailer_size = after + ((st & PERF_SAMPLE_TIME) ? 8 : 0) +
			  ((st & PERF_SAMPLE_TID) ? 8 : 0);
}

void rec_layout_init_attr(struct rec_layout *l, const struct perf_event_attr *a)
{
	rec_layout_init(l, a->sample_type);
	l->regs_user = __builtin_popcountll(a->sample_regs_user);
	l->branch_hw_index = !!(a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
}

static void note_time(struct rec_stage *st, uint64_t t)
{
	if (!t)
		return;
	if (!st->first_time || t < st->first_time)
		st->first_time = t;
	if (t > st->last_time)
		st->last_time = t;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v)); /* producer byte order: this host's */
	return v;
}

int rec_sample_walk(const struct rec_layout *l, const uint8_t *p, size_t len,
		    struct rec_sample_parts *out)
{
	uint64_t st = l->sample_type;
	size_t off = sizeof(struct perf_event_header);
	uint64_t n;

	memset(out, 0, sizeof(*out));
	if (l->fixed_size > len)
		return -EINVAL;
	/* Fixed fields: IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD. */
	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PERF_SAMPLE_IP) {
		out->ip = off;
		off += 8;
	}
	off += (st & PERF_SAMPLE_TID ? 8 : 0) + (st & PERF_SAMPLE_TIME ? 8 : 0);
	if (st & PERF_SAMPLE_ADDR)
		out->addr = off;
	off = l->fixed_size;
	if (st & PERF_SAMPLE_READ)
		return -EINVAL;  /* the recorder never asks for it: its size is not followed */

	/* Then CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER. */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (off + 8 > len)
			return -EINVAL;
		n = get_u64(p + off);
		off += 8;
		if (n > (len - off) / 8)
			return -EINVAL;
		out->callchain = off;
		out->nr_callchain = n;
		off += (size_t)n * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t raw;

		if (off + 4 > len)
			return -EINVAL;
		memcpy(&raw, p + off, sizeof(raw));
		off += 4;
		if (raw > len - off)
			return -EINVAL;
		off += raw;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (off + 8 > len)
			return -EINVAL;
		n = get_u64(p + off);
		off += l->branch_hw_index ? 16 : 8;
		if (off > len || n > (len - off) / 24)
			return -EINVAL;
		out->branches = off;
		out->nr_branches = n;
		off += (size_t)n * 24;
	}
	if (!(st & PERF_SAMPLE_STACK_USER))
		return 0;
	if (st & PERF_SAMPLE_REGS_USER) {
		if (off + 8 > len || l->regs_user < 0)
			return -EINVAL;
		n = get_u64(p + off); /* the ABI; 0: no registers follow */
		off += 8;
		if (n) {
			if ((size_t)l->regs_user > (len - off) / 8)
				return -EINVAL;
			off += (size_t)l->regs_user * 8;
		}
	}
	if (off + 8 > len)
		return -EINVAL;
	out->stack_user = off;
	return 0;
}

/* Offset of the PERF_SAMPLE_STACK_USER size field in sample @p of @len
 * bytes, or 0 when the sample has none or its layout cannot be followed. */
static size_t stack_user_offset(const struct rec_layout *l, const uint8_t *p, size_t len)
{
	struct rec_sample_parts parts;

	if (!(l->sample_type & PERF_SAMPLE_STACK_USER) || l->regs_user < 0)
		return 0;
	return rec_sample_walk(l, p, len, &parts) ? 0 : parts.stack_user;
}

/*
 * Append sample @p to @b with the stale tail of its user stack copy (u64
 * size at @so, size bytes, u64 dyn_size) zeroed.  Returns the bytes zeroed
 * (0 and nothing appended when the copy is full or inconsistent), or
 * -ENOMEM.
 */
static long append_scrubbed(struct amb_buf *b, const uint8_t *p, size_t len, size_t so)
{
	uint64_t size = get_u64(p + so), dyn;
	size_t data = so + 8, keep, stale;

	if (!size || size > len - data || len - data - size < 8)
		return 0;
	dyn = get_u64(p + data + size);
	if (dyn >= size)
		return 0;
	keep = data + (size_t)dyn;
	stale = (size_t)(size - dyn);
	if (amb_buf_reserve(b, len))
		return -ENOMEM;
	memcpy(b->data + b->len, p, keep);
	memset(b->data + b->len + keep, 0, stale);
	memcpy(b->data + b->len + keep + stale, p + keep + stale, len - keep - stale);
	b->len += len;
	return (long)stale;
}

int rec_stage_add(struct rec_stage *st, const void *rec, size_t len)
{
	const struct perf_event_header *h = rec;
	const struct rec_layout *l = st->layout;
	const uint8_t *p = rec;
	long zeroed = 0;
	size_t so;
	int err;

	/* A full stage ends with at most one record (< 64 KiB) past block_bytes:
	 * allocating that at once saves growing it by copies. */
	if (!st->buf.cap && st->block_bytes && amb_buf_reserve(&st->buf, st->block_bytes + 65536))
		return -ENOMEM;
	if (h->type == PERF_RECORD_SAMPLE && (so = stack_user_offset(l, p, len)) != 0)
		zeroed = append_scrubbed(&st->buf, p, len, so);
	if (zeroed < 0)
		return (int)zeroed;
	if (zeroed > 0) {
		st->c.stack_zeroed += (uint64_t)zeroed;
	} else {
		err = amb_buf_append(&st->buf, rec, len);
		if (err)
			return err;
	}
	st->nr_records++;
	st->c.records++;
	st->c.bytes += len;

	if (h->type == PERF_RECORD_SAMPLE) {
		st->c.samples++;
		if (l->sample_time_off >= 0 && len >= (size_t)l->sample_time_off + 8)
			note_time(st, get_u64(p + l->sample_time_off));
		return 0;
	}
	if (l->trailer_time_off > 0 && len >= sizeof(*h) + l->trailer_size)
		note_time(st, get_u64(p + len - (size_t)l->trailer_time_off));

	switch (h->type) {
	case PERF_RECORD_LOST:       /* u64 id, u64 lost */
		if (len >= sizeof(*h) + 16)
			st->c.lost_records += get_u64(p + sizeof(*h) + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES: /* u64 lost */
		if (len >= sizeof(*h) + 8)
			st->c.lost_samples += get_u64(p + sizeof(*h));
		break;
	case PERF_RECORD_THROTTLE:
		st->c.throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		st->c.unthrottle++;
		break;
	default:
		break;
	}
	return 0;
}

void *rec_stage_take(struct rec_stage *st, uint32_t cpu, struct amb_block_desc *d, size_t *len)
{
	void *data;

	if (!st->buf.len)
		return NULL;
	memset(d, 0, sizeof(*d));
	d->type = AMB_BLOCK_RING;
	d->stream = cpu;
	d->record_count = st->nr_records;
	d->first_time = st->first_time;
	d->last_time = st->last_time;
	data = st->buf.data;
	*len = st->buf.len;
	st->buf.data = NULL;
	st->buf.len = 0;
	st->buf.cap = 0;
	st->nr_records = 0;
	st->first_time = 0;
	st->last_time = 0;
	return data;
}

void rec_stage_free(struct rec_stage *st)
{
	if (st)
		amb_buf_free(&st->buf);
}

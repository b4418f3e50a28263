// SPDX-License-Identifier: MIT
/*
 * record/stage.c - per-CPU staging of raw perf records before they become a
 * RING block: record count, first/last time and the kernel's loss and
 * throttle records.  Bodies are not otherwise parsed (FORMAT.md §5.6).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/rec_internal.h"

void rec_layout_init(struct rec_layout *l, uint64_t st)
{
	int off = 8; /* struct perf_event_header */
	uint32_t after = 0;

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

int rec_stage_add(struct rec_stage *st, const void *rec, size_t len)
{
	const struct perf_event_header *h = rec;
	const struct rec_layout *l = st->layout;
	const uint8_t *p = rec;
	int err;

	err = amb_buf_append(&st->buf, rec, len);
	if (err)
		return err;
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

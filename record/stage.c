// SPDX-License-Identifier: MIT
/*
 * record/stage.c - per-CPU staging of raw perf records before they become a
 * RING block: record count, first/last time and the kernel's loss and
 * throttle records.  Bodies are not otherwise parsed (FORMAT.md §5.6),
 * except that a sample with a user stack copy is walked to it (with
 * common/perf_sample.c, the walker the analyzer uses too), and the copy's
 * unwritten tail is stored as zeros.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/stage.h"

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

/*
 * Append sample @p of @len bytes to @b with the stale tail of its user
 * stack copy, which the walk @s found, zeroed.  Returns the bytes zeroed
 * (0 and nothing appended when the kernel filled the whole copy), or
 * -ENOMEM.
 */
static long append_scrubbed(struct amb_buf *b, const uint8_t *p, size_t len,
			    const struct amb_perf_sample *s)
{
	size_t keep = s->stack + (size_t)s->stack_dyn_size;
	size_t stale = (size_t)(s->stack_size - s->stack_dyn_size);

	assert(s->stack && s->stack_dyn_size <= s->stack_size && keep + stale <= len);
	if (!stale)
		return 0;
	if (amb_buf_reserve(b, len))
		return -ENOMEM;
	memcpy(b->data + b->len, p, keep);
	memset(b->data + b->len + keep, 0, stale);
	memcpy(b->data + b->len + keep + stale, p + keep + stale, len - keep - stale);
	b->len += len;
	return (long)stale;
}

/* Stage sample @p with its stack copy scrubbed, when it has one the walk
 * can reach (whatever follows the copy does not matter here).  Returns the
 * bytes zeroed, 0 when nothing was staged, or -ENOMEM. */
static long add_stack_sample(struct rec_stage *st, const uint8_t *p, size_t len)
{
	struct amb_perf_sample s;
	enum amb_perf_field f = amb_perf_sample_walk(st->layout, p, len, false, &s);

	if (!amb_perf_walked(f, AMB_PERF_F_STACK_DYN) || !s.stack)
		return 0;
	return append_scrubbed(&st->buf, p, len, &s);
}

int rec_stage_add(struct rec_stage *st, const void *rec, size_t len)
{
	const struct perf_event_header *h = rec;
	const struct amb_perf_layout *l = st->layout;
	struct amb_perf_sample_id id;
	const uint8_t *p = rec;
	long zeroed = 0;
	int err;

	/* A full stage ends with at most one record (< 64 KiB) past block_bytes:
	 * allocating that at once saves growing it by copies. */
	if (!st->buf.cap && st->block_bytes && amb_buf_reserve(&st->buf, st->block_bytes + 65536))
		return -ENOMEM;
	if (h->type == PERF_RECORD_SAMPLE && (l->sample_type & PERF_SAMPLE_STACK_USER))
		zeroed = add_stack_sample(st, p, len);
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
		if (l->time_off >= 0 && len >= (size_t)l->time_off + 8)
			note_time(st, get_u64(p + l->time_off));
		return 0;
	}
	if (l->trailer_time_off >= 0 && !amb_perf_sample_id_walk(l, p, len, false, &id))
		note_time(st, id.time);

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

void rec_counters_add(struct rec_counters *dst, const struct rec_counters *src)
{
	dst->records += src->records;
	dst->samples += src->samples;
	dst->lost_records += src->lost_records;
	dst->lost_samples += src->lost_samples;
	dst->throttle += src->throttle;
	dst->unthrottle += src->unthrottle;
	dst->bytes += src->bytes;
	dst->bad += src->bad;
	dst->stack_zeroed += src->stack_zeroed;
}

void rec_stage_counted(struct rec_stage *st, struct rec_counters *delta)
{
	const struct rec_counters *c = &st->c, *t = &st->c_taken;

	delta->records = c->records - t->records;
	delta->samples = c->samples - t->samples;
	delta->lost_records = c->lost_records - t->lost_records;
	delta->lost_samples = c->lost_samples - t->lost_samples;
	delta->throttle = c->throttle - t->throttle;
	delta->unthrottle = c->unthrottle - t->unthrottle;
	delta->bytes = c->bytes - t->bytes;
	delta->bad = c->bad - t->bad;
	delta->stack_zeroed = c->stack_zeroed - t->stack_zeroed;
	st->c_taken = st->c;
}

void rec_records_free(struct rec_records *r)
{
	if (!r)
		return;
	amb_buf_free(&r->buf);
	memset(r, 0, sizeof(*r));
}

bool rec_record_is_state(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_TEXT_POKE:
		return true;
	default:
		return false;
	}
}

static void records_note_time(struct rec_records *r, uint64_t t)
{
	if (!t)
		return;
	if (!r->first_time || t < r->first_time)
		r->first_time = t;
	if (t > r->last_time)
		r->last_time = t;
}

long rec_records_copy_state(const struct amb_perf_layout *l, const void *data, size_t len,
			    uint64_t min_time, struct rec_records *out)
{
	const uint8_t *p = data;
	long n = 0;

	for (size_t off = 0; off + sizeof(struct perf_event_header) <= len;) {
		const struct perf_event_header *h = (const void *)(p + off);
		struct amb_perf_sample_id id = { 0 };

		/* The stage holds whole records only (ring.c checked them). */
		if (h->size < sizeof(*h) || h->size > len - off)
			break;
		if (rec_record_is_state(h->type)) {
			if (l->trailer_time_off >= 0)
				amb_perf_sample_id_walk(l, p + off, h->size, false, &id);
			if (!id.time || id.time >= min_time) {
				if (amb_buf_append(&out->buf, p + off, h->size))
					return -ENOMEM;
				out->nr++;
				records_note_time(out, id.time);
				n++;
			}
		}
		off += h->size;
	}
	return n;
}

int rec_stage_prepend(struct rec_stage *st, struct rec_records *r)
{
	if (!r->nr)
		return 0;
	if (amb_buf_append(&r->buf, st->buf.data, st->buf.len))
		return -ENOMEM;
	amb_buf_free(&st->buf);
	st->buf = r->buf;
	memset(&r->buf, 0, sizeof(r->buf));
	st->nr_records += r->nr;
	if (r->first_time) {
		note_time(st, r->first_time);
		note_time(st, r->last_time);
	}
	rec_records_free(r);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * record/flight.c - the flight recorder's memory: the newest RING blocks
 * as the drain thread hands them over, and what the blocks it let go said
 * about tasks and mappings.
 *
 * A dump must name every sample it holds: the snapshot it starts from
 * (taken by rotate.c at the base time) plus every state record since,
 * whether its block is still held or was let go.  So a block is never
 * dropped whole: its COMM, FORK, MMAP2... records at or after the base
 * time stay, per CPU, until a newer snapshot becomes the base.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "record/flight.h"

struct rec_flight {
	pthread_mutex_t lock;
	const struct amb_perf_layout *layout;
	uint64_t max_bytes, max_ns;
	struct rec_flight_block *q;   /* held blocks, oldest first */
	size_t n, cap;
	uint64_t bytes;               /* raw bytes of q */
	uint64_t base;                /* state records before this are not kept */
	struct rec_flight_state *st;  /* per stream */
	size_t nr_st, cap_st;
	struct rec_counters dropped;
};

struct rec_flight *rec_flight_new(const struct amb_perf_layout *l, uint64_t max_bytes,
				  uint64_t max_ns)
{
	struct rec_flight *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (pthread_mutex_init(&f->lock, NULL)) {
		free(f);
		return NULL;
	}
	f->layout = l;
	f->max_bytes = max_bytes;
	f->max_ns = max_ns;
	return f;
}

void rec_flight_free(struct rec_flight *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->q[i].data);
	for (size_t i = 0; i < f->nr_st; i++)
		rec_records_free(&f->st[i].r);
	free(f->q);
	free(f->st);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* The state records of @stream, created empty when new.  NULL: ENOMEM. */
static struct rec_records *state_of(struct rec_flight *f, uint32_t stream)
{
	for (size_t i = 0; i < f->nr_st; i++)
		if (f->st[i].stream == stream)
			return &f->st[i].r;
	if (amb_ensure_cap((void **)&f->st, &f->cap_st, sizeof(*f->st), f->nr_st + 1))
		return NULL;
	memset(&f->st[f->nr_st], 0, sizeof(f->st[f->nr_st]));
	f->st[f->nr_st].stream = stream;
	return &f->st[f->nr_st++].r;
}

/* Keep the state records of @b (which stays in @b) at or after the base. */
static int keep_state(struct rec_flight *f, const struct rec_flight_block *b)
{
	struct rec_records *r = state_of(f, b->d.stream);

	if (!r)
		return -ENOMEM;
	return rec_records_copy_state(f->layout, b->data, b->len, f->base, r) < 0 ? -ENOMEM : 0;
}

/* Whether the oldest block must go: the size is passed, or it ended more
 * than max_ns before the newest one ended. */
static bool over_limit(const struct rec_flight *f)
{
	if (f->n < 2)
		return false;
	if (f->max_bytes && f->bytes > f->max_bytes)
		return true;
	return f->max_ns && f->q[f->n - 1].d.last_time > f->q[0].d.last_time + f->max_ns;
}

int rec_flight_add(void *ctx, const struct amb_block_desc *d, void *data, size_t len,
		   const struct rec_counters *c)
{
	struct rec_flight *f = ctx;
	int err = 0;

	pthread_mutex_lock(&f->lock);
	if (amb_ensure_cap((void **)&f->q, &f->cap, sizeof(*f->q), f->n + 1)) {
		pthread_mutex_unlock(&f->lock);
		free(data);
		return -ENOMEM;
	}
	f->q[f->n].d = *d;
	f->q[f->n].data = data;
	f->q[f->n].len = len;
	f->q[f->n].c = *c;
	f->n++;
	f->bytes += len;
	while (!err && over_limit(f)) {
		err = keep_state(f, &f->q[0]);
		if (err)
			break;
		rec_counters_add(&f->dropped, &f->q[0].c);
		f->bytes -= f->q[0].len;
		free(f->q[0].data);
		memmove(f->q, f->q + 1, (f->n - 1) * sizeof(*f->q));
		f->n--;
	}
	pthread_mutex_unlock(&f->lock);
	return err;
}

/* Drop the records of @r older than @t (records without a time stay). */
static int records_since(const struct amb_perf_layout *l, struct rec_records *r, uint64_t t)
{
	struct rec_records keep = { 0 };

	if (rec_records_copy_state(l, r->buf.data, r->buf.len, t, &keep) < 0) {
		rec_records_free(&keep);
		return -ENOMEM;
	}
	rec_records_free(r);
	*r = keep;
	return 0;
}

void rec_flight_set_base(struct rec_flight *f, uint64_t t)
{
	pthread_mutex_lock(&f->lock);
	f->base = t;
	for (size_t i = 0; i < f->nr_st; i++)
		/* Out of memory: keep them all, which is merely larger. */
		records_since(f->layout, &f->st[i].r, t);
	pthread_mutex_unlock(&f->lock);
}

uint64_t rec_flight_first_time(struct rec_flight *f)
{
	uint64_t t = 0;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n; i++)
		if (f->q[i].d.first_time && (!t || f->q[i].d.first_time < t))
			t = f->q[i].d.first_time;
	pthread_mutex_unlock(&f->lock);
	return t;
}

void rec_flight_usage(struct rec_flight *f, uint64_t *block_bytes, uint64_t *state_bytes)
{
	pthread_mutex_lock(&f->lock);
	*block_bytes = f->bytes;
	*state_bytes = 0;
	for (size_t i = 0; i < f->nr_st; i++)
		*state_bytes += f->st[i].r.buf.len;
	pthread_mutex_unlock(&f->lock);
}

int rec_flight_take(struct rec_flight *f, struct rec_flight_take *out)
{
	int err = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&f->lock);
	out->state = calloc(f->nr_st ? f->nr_st : 1, sizeof(*out->state));
	if (!out->state)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < f->nr_st; i++) {
		struct rec_flight_state *s = &out->state[out->nr_state++];

		s->stream = f->st[i].stream;
		s->r.nr = f->st[i].r.nr;
		s->r.first_time = f->st[i].r.first_time;
		s->r.last_time = f->st[i].r.last_time;
		err = amb_buf_append(&s->r.buf, f->st[i].r.buf.data, f->st[i].r.buf.len);
	}
	/* The taken blocks' state records, kept for the next take. */
	for (size_t i = 0; !err && i < f->n; i++)
		err = keep_state(f, &f->q[i]);
	if (err) {
		pthread_mutex_unlock(&f->lock);
		rec_flight_take_free(out);
		return err;
	}
	out->blocks = f->q;
	out->nr_blocks = f->n;
	for (size_t i = 0; i < f->n; i++)
		rec_counters_add(&out->c, &f->q[i].c);
	out->dropped = f->dropped;
	f->q = NULL;
	f->n = f->cap = 0;
	f->bytes = 0;
	memset(&f->dropped, 0, sizeof(f->dropped));
	pthread_mutex_unlock(&f->lock);
	return 0;
}

void rec_flight_take_free(struct rec_flight_take *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_state; i++)
		rec_records_free(&t->state[i].r);
	for (size_t i = 0; i < t->nr_blocks; i++)
		free(t->blocks[i].data);
	free(t->state);
	free(t->blocks);
	memset(t, 0, sizeof(*t));
}

// SPDX-License-Identifier: MIT
/* Unit tests for what rotating a recording rests on: state records
 * (COMM, FORK, MMAP2, ...) told from others and copied by time
 * (stage.c); a stage with copies put before its records; the drain's cut
 * between two sinks, on a synthetic ring: every record in exactly one
 * sink, the state records set aside first in the new one, a sink without
 * room holding the stage back until the cut (drain.c); the flight
 * recorder's memory letting go of the oldest blocks by size and by time
 * but keeping their state records, and what a take hands over (flight.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/drain.h"
#include "record/flight.h"
#include "record/ring.h"
#include "record/stage.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* A sample of ST at @time: header, id, ip, pid/tid, time, cpu, period. */
static size_t make_sample(uint8_t *out, uint64_t time)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 56 };
	uint64_t body[6] = { 7, 0x401000, 5ull << 32 | 5, time, 0, 250000 };

	memcpy(out, &h, 8);
	memcpy(out + 8, body, sizeof(body));
	return 56;
}

/* A record of @type with two body words and the ST trailer at @time. */
static size_t make_other(uint8_t *out, uint32_t type, uint64_t time)
{
	uint64_t body[2] = { 5ull << 32 | 5, time };
	uint64_t trailer[4] = { 5ull << 32 | 5, time, 0, 7 };
	struct perf_event_header h = { type, 0, 8 + sizeof(body) + sizeof(trailer) };

	memcpy(out, &h, 8);
	memcpy(out + 8, body, sizeof(body));
	memcpy(out + 8 + sizeof(body), trailer, sizeof(trailer));
	return h.size;
}

static void layout_init(struct amb_perf_layout *l)
{
	struct perf_event_attr a = { 0 };

	a.sample_type = ST;
	amb_perf_layout_init(l, &a);
}

/* The types of the records in @p (@len bytes), one letter each:
 * S sample, C comm, M mmap2, F fork, L lost, ? other. */
static void types_of(const uint8_t *p, size_t len, char *out)
{
	for (size_t off = 0; off < len;) {
		const struct perf_event_header *h = (const void *)(p + off);

		*out++ = h->type == PERF_RECORD_SAMPLE ? 'S' : h->type == PERF_RECORD_COMM ? 'C' :
			 h->type == PERF_RECORD_MMAP2 ? 'M' : h->type == PERF_RECORD_FORK ? 'F' :
			 h->type == PERF_RECORD_LOST ? 'L' : '?';
		off += h->size;
	}
	*out = '\0';
}

static void test_state_records(void **state)
{
	struct amb_perf_layout l;
	struct rec_records r = { 0 };
	uint8_t buf[1024];
	char types[32];
	size_t n = 0;

	(void)state;
	layout_init(&l);
	assert_true(rec_record_is_state(PERF_RECORD_COMM));
	assert_true(rec_record_is_state(PERF_RECORD_MMAP2));
	assert_true(rec_record_is_state(PERF_RECORD_FORK));
	assert_true(rec_record_is_state(PERF_RECORD_EXIT));
	assert_false(rec_record_is_state(PERF_RECORD_SAMPLE));
	assert_false(rec_record_is_state(PERF_RECORD_LOST));
	assert_false(rec_record_is_state(PERF_RECORD_THROTTLE));

	n += make_sample(buf + n, 40);
	n += make_other(buf + n, PERF_RECORD_COMM, 50);
	n += make_other(buf + n, PERF_RECORD_LOST, 60);
	n += make_sample(buf + n, 70);
	n += make_other(buf + n, PERF_RECORD_MMAP2, 150);
	n += make_other(buf + n, PERF_RECORD_FORK, 160);
	/* every state record */
	assert_int_equal(rec_records_copy_state(&l, buf, n, 0, &r), 3);
	types_of(r.buf.data, r.buf.len, types);
	assert_string_equal(types, "CMF");
	assert_int_equal(r.nr, 3);
	assert_int_equal(r.first_time, 50);
	assert_int_equal(r.last_time, 160);
	/* those at or after a time, appended */
	assert_int_equal(rec_records_copy_state(&l, buf, n, 150, &r), 2);
	types_of(r.buf.data, r.buf.len, types);
	assert_string_equal(types, "CMFMF");
	assert_int_equal(r.nr, 5);
	/* a truncated last record is not read */
	rec_records_free(&r);
	assert_int_equal(rec_records_copy_state(&l, buf, n - 1, 0, &r), 2);
	rec_records_free(&r);
	assert_int_equal(r.nr, 0);
	assert_null(r.buf.data);
}

static void test_stage_prepend(void **state)
{
	struct amb_perf_layout l;
	struct rec_stage st;
	struct rec_records r = { 0 };
	struct rec_counters c;
	struct amb_block_desc d;
	uint8_t rec[128];
	char types[32];
	size_t len;
	void *data;

	(void)state;
	layout_init(&l);
	memset(&st, 0, sizeof(st));
	st.layout = &l;
	assert_int_equal(rec_stage_add(&st, rec, make_sample(rec, 200)), 0);
	assert_int_equal(rec_stage_add(&st, rec, make_sample(rec, 210)), 0);
	/* an empty set of copies changes nothing */
	assert_int_equal(rec_stage_prepend(&st, &r), 0);
	assert_int_equal(st.nr_records, 2);
	len = make_other(rec, PERF_RECORD_COMM, 100);
	assert_int_equal(rec_records_copy_state(&l, rec, len, 0, &r), 1);
	assert_int_equal(rec_stage_prepend(&st, &r), 0);
	assert_int_equal(r.nr, 0);
	assert_int_equal(st.nr_records, 3);
	/* the copies are not counted again */
	assert_int_equal(st.c.records, 2);
	rec_stage_counted(&st, &c);
	assert_int_equal(c.samples, 2);
	rec_stage_counted(&st, &c);
	assert_int_equal(c.samples, 0);
	data = rec_stage_take(&st, 1, &d, &len);
	assert_non_null(data);
	types_of(data, len, types);
	assert_string_equal(types, "CSS");
	assert_int_equal(d.record_count, 3);
	assert_int_equal(d.first_time, 100);
	assert_int_equal(d.last_time, 210);
	free(data);
	rec_stage_free(&st);
}

/* ---- the drain's cut ------------------------------------------------------------------ */

/* A sink that keeps what it gets, and may have no room. */
struct test_sink {
	uint8_t data[8192];
	size_t len;
	unsigned blocks;
	uint64_t samples;
	bool full;
};

static int sink_append(void *ctx, const struct amb_block_desc *d, void *data, size_t len,
		       const struct rec_counters *c)
{
	struct test_sink *s = ctx;

	assert_int_equal(d->type, AMB_BLOCK_RING);
	assert_true(s->len + len <= sizeof(s->data));
	memcpy(s->data + s->len, data, len);
	s->len += len;
	s->blocks++;
	s->samples += c->samples;
	free(data);
	return 0;
}

static bool sink_room(void *ctx, size_t len)
{
	(void)len;
	return !((struct test_sink *)ctx)->full;
}

/* A fake kernel ring: @psz bytes of data after the metadata page. */
struct fake_ring {
	uint8_t *map;
	struct rec_ring ring;
	size_t head;
};

static void fake_ring_init(struct fake_ring *f)
{
	long psz = sysconf(_SC_PAGESIZE);

	f->map = calloc(1, (size_t)psz * 2);
	assert_non_null(f->map);
	memset(&f->ring, 0, sizeof(f->ring));
	f->ring.base = f->map;
	f->ring.fd = -1;
	f->ring.data = f->map + psz;
	f->ring.size = (uint64_t)psz;
	f->head = 0;
}

/* The "kernel" writes one record. */
static void fake_ring_put(struct fake_ring *f, const uint8_t *rec, size_t len)
{
	struct perf_event_mmap_page *pc = (void *)f->map;

	assert_true(f->head + len <= f->ring.size);  /* no wrap needed here */
	memcpy(f->map + sysconf(_SC_PAGESIZE) + f->head, rec, len);
	f->head += len;
	pc->data_head = f->head;
}

static void drain_init(struct rec_drain *d, struct fake_ring *f)
{
	memset(d, 0, sizeof(*d));
	d->rings = &f->ring;
	d->nr_rings = 1;
	d->block_bytes = 1 << 20;
	d->flush_ms = 1000;
	layout_init(&d->layout);
	d->stages = calloc(1, sizeof(*d->stages));
	d->side = calloc(1, sizeof(*d->side));
	assert_non_null(d->stages);
	assert_non_null(d->side);
	d->stages[0].layout = &d->layout;
	assert_int_equal(pthread_mutex_init(&d->lock, NULL), 0);
	assert_int_equal(pthread_cond_init(&d->cond, NULL), 0);
	d->wake_fd = -1;
	d->sync_ready = true;   /* the thread is not running: cuts happen inline */
}

static void test_drain_cut(void **state)
{
	static struct test_sink a, b, c;
	struct rec_sink sa = { sink_append, sink_room, &a }, sb = { sink_append, sink_room, &b };
	struct rec_sink sc = { sink_append, NULL, &c };
	struct rec_counters sent;
	struct fake_ring f;
	struct rec_drain d;
	uint8_t rec[128];
	char types[64];
	uint64_t last = 0;

	(void)state;
	fake_ring_init(&f);
	drain_init(&d, &f);
	rec_drain_set_sink(&d, &sa);

	fake_ring_put(&f, rec, make_sample(rec, 10));
	fake_ring_put(&f, rec, make_other(rec, PERF_RECORD_COMM, 11));
	assert_int_equal(rec_drain_pass(&d, true, 5000, &last), 0);
	assert_int_equal(a.blocks, 1);
	/* From here on the state records a receives are set aside too. */
	atomic_store(&d.side_on, true);
	fake_ring_put(&f, rec, make_sample(rec, 20));
	fake_ring_put(&f, rec, make_other(rec, PERF_RECORD_MMAP2, 21));
	assert_int_equal(rec_drain_pass(&d, true, 6000, &last), 0);
	fake_ring_put(&f, rec, make_sample(rec, 30));   /* still in the ring at the cut */
	assert_int_equal(rec_drain_cut(&d, &sb, &sent), 0);
	assert_false(atomic_load(&d.side_on));
	/* a got everything drained up to the cut, once */
	types_of(a.data, a.len, types);
	assert_string_equal(types, "SCSMS");
	assert_int_equal(sent.samples, 3);
	assert_int_equal(a.samples, 3);
	/* b starts with the copy of the MMAP2 a got after side_on */
	fake_ring_put(&f, rec, make_sample(rec, 40));
	assert_int_equal(rec_drain_pass(&d, true, 7000, &last), 0);
	types_of(b.data, b.len, types);
	assert_string_equal(types, "MS");
	assert_int_equal(b.samples, 1);

	/* b has no room: the stage stays, draining pauses ... */
	b.full = true;
	fake_ring_put(&f, rec, make_sample(rec, 50));
	assert_int_equal(rec_drain_pass(&d, true, 8000, &last), 0);
	assert_true(atomic_load(&d.held));
	assert_int_equal(b.blocks, 1);
	assert_int_equal(d.stages[0].nr_records, 1);
	fake_ring_put(&f, rec, make_sample(rec, 60));
	assert_int_equal(rec_drain_pass(&d, true, 9000, &last), 0);
	assert_int_equal(d.stages[0].nr_records, 1);   /* not drained meanwhile */
	/* ... and the cut hands it to c, which gets the rest too */
	assert_int_equal(rec_drain_cut(&d, &sc, &sent), 0);
	assert_false(atomic_load(&d.held));
	assert_int_equal(sent.samples, 1);   /* the sample at 40 */
	assert_int_equal(rec_drain_pass(&d, true, 10000, &last), 0);
	types_of(c.data, c.len, types);
	assert_string_equal(types, "SS");
	assert_int_equal(b.blocks, 1);

	rec_drain_free(&d);
	free(f.map);
}

/* ---- the flight recorder's memory ---------------------------------------------------------- */

/* A malloc'ed block of one sample at @t and, with @state, a COMM at t + 1. */
static void *flight_block(struct amb_block_desc *d, size_t *len, uint64_t t, uint32_t cpu,
			  bool state, struct rec_counters *c)
{
	uint8_t *p = malloc(256);
	size_t n = make_sample(p, t);

	assert_non_null(p);
	if (state)
		n += make_other(p + n, PERF_RECORD_COMM, t + 1);
	memset(d, 0, sizeof(*d));
	d->type = AMB_BLOCK_RING;
	d->stream = cpu;
	d->record_count = state ? 2 : 1;
	d->first_time = t;
	d->last_time = state ? t + 1 : t;
	*len = n;
	memset(c, 0, sizeof(*c));
	c->samples = 1;
	return p;
}

static void test_flight_size(void **state)
{
	struct amb_perf_layout l;
	struct rec_flight *f;
	struct rec_flight_take t;
	struct amb_block_desc d;
	struct rec_counters c;
	uint64_t blocks, states;
	char types[32];
	size_t len;
	void *p;

	(void)state;
	layout_init(&l);
	/* room for two blocks of a sample and a COMM (56 + 56 bytes) */
	f = rec_flight_new(&l, 250, 0);
	assert_non_null(f);
	assert_int_equal(rec_flight_first_time(f), 0);
	for (int i = 0; i < 5; i++) {
		p = flight_block(&d, &len, 100 + 10 * (uint64_t)i, (uint32_t)(i % 2), true, &c);
		assert_int_equal(rec_flight_add(f, &d, p, len, &c), 0);
	}
	rec_flight_usage(f, &blocks, &states);
	assert_int_equal(blocks, 2 * 112);
	assert_int_equal(states, 3 * 56);   /* the COMMs of the three let go */
	assert_int_equal(rec_flight_first_time(f), 130);

	assert_int_equal(rec_flight_take(f, &t), 0);
	assert_int_equal(t.nr_blocks, 2);
	assert_int_equal(t.blocks[0].d.first_time, 130);
	assert_int_equal(t.blocks[1].d.first_time, 140);
	assert_int_equal(t.c.samples, 2);
	assert_int_equal(t.dropped.samples, 3);
	/* the state before the blocks, per CPU: 100 and 120 on cpu 0, 110 on 1 */
	assert_int_equal(t.nr_state, 2);
	for (size_t i = 0; i < t.nr_state; i++) {
		types_of(t.state[i].r.buf.data, t.state[i].r.buf.len, types);
		assert_string_equal(types, t.state[i].stream == 0 ? "CC" : "C");
		assert_int_equal(t.state[i].r.first_time, t.state[i].stream == 0 ? 101 : 111);
	}
	rec_flight_take_free(&t);
	/* the taken blocks' COMMs are now kept state; nothing is held */
	rec_flight_usage(f, &blocks, &states);
	assert_int_equal(blocks, 0);
	assert_int_equal(states, 5 * 56);
	assert_int_equal(rec_flight_first_time(f), 0);
	/* a newer base forgets what came before it */
	rec_flight_set_base(f, 125);
	rec_flight_usage(f, &blocks, &states);
	assert_int_equal(states, 2 * 56);   /* 131 and 141 */
	assert_int_equal(rec_flight_take(f, &t), 0);
	assert_int_equal(t.nr_blocks, 0);
	assert_int_equal(t.dropped.samples, 0);
	rec_flight_take_free(&t);
	rec_flight_free(f);
}

static void test_flight_time(void **state)
{
	struct amb_perf_layout l;
	struct rec_flight *f;
	struct rec_flight_take t;
	struct amb_block_desc d;
	struct rec_counters c;
	size_t len;
	void *p;

	(void)state;
	layout_init(&l);
	f = rec_flight_new(&l, 0, 1000);
	assert_non_null(f);
	for (uint64_t tm = 1000; tm <= 5000; tm += 500) {
		p = flight_block(&d, &len, tm, 0, false, &c);
		assert_int_equal(rec_flight_add(f, &d, p, len, &c), 0);
	}
	/* blocks ending at most 1000 before the newest one's end */
	assert_int_equal(rec_flight_first_time(f), 4000);
	assert_int_equal(rec_flight_take(f, &t), 0);
	assert_int_equal(t.nr_blocks, 3);
	assert_int_equal(t.dropped.samples, 6);
	assert_int_equal(t.nr_state, 1);         /* a stream with no state record */
	assert_int_equal(t.state[0].r.nr, 0);
	rec_flight_take_free(&t);
	/* the block just added always stays */
	p = flight_block(&d, &len, 99000, 0, false, &c);
	assert_int_equal(rec_flight_add(f, &d, p, len, &c), 0);
	assert_int_equal(rec_flight_first_time(f), 99000);
	rec_flight_free(f);
	rec_flight_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_records),
		cmocka_unit_test(test_stage_prepend),
		cmocka_unit_test(test_drain_cut),
		cmocka_unit_test(test_flight_size),
		cmocka_unit_test(test_flight_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

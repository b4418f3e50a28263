// SPDX-License-Identifier: MIT
/* Unit tests for record/ring.c, record/stage.c and record/drain.c: whole
 * records are copied out of a synthetic ring, also when one straddles the
 * end; times come from samples and from sample_id trailers; LOST,
 * LOST_SAMPLES and THROTTLE records are counted; a malformed header drops
 * the rest; the unwritten tail of a user stack copy is staged as zeros;
 * copies stop at a full stage; stages become RING blocks with the right
 * description, one per full stage. */
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
#include "record/ring.h"
#include "record/stage.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* A sample of ST: header, id, ip, pid/tid, time, cpu, period. */
static size_t make_sample(uint8_t *out, uint64_t time, uint32_t tid)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 56 };
	uint64_t body[6] = { 7, 0x401000, (uint64_t)tid << 32 | tid, time, 1, 250000 };

	memcpy(out, &h, 8);
	memcpy(out + 8, body, sizeof(body));
	return 56;
}

/* A non-sample record of @type with @nbody u64s and the ST trailer
 * (pid/tid, time, cpu, identifier). */
static size_t make_other(uint8_t *out, uint32_t type, const uint64_t *body, size_t nbody,
			 uint64_t time)
{
	uint64_t trailer[4] = { 1 | (uint64_t)1 << 32, time, 0, 7 };
	size_t size = 8 + nbody * 8 + sizeof(trailer);
	struct perf_event_header h = { type, 0, (uint16_t)size };

	memcpy(out, &h, 8);
	memcpy(out + 8, body, nbody * 8);
	memcpy(out + 8 + nbody * 8, trailer, sizeof(trailer));
	return size;
}

/* The layout of records whose event has sample_type @st. */
static void layout_init(struct amb_perf_layout *l, uint64_t st)
{
	struct perf_event_attr a = { 0 };

	a.sample_type = st;
	amb_perf_layout_init(l, &a);
}

static void stage_init(struct rec_stage *st, struct amb_perf_layout *l)
{
	memset(st, 0, sizeof(*st));
	layout_init(l, ST);
	st->layout = l;
}

/* The stage reads a sample's time where the layout says (and trailers'
 * with the common walker): ST puts it after the header, id, ip, tid. */
static void test_layout(void **state)
{
	struct amb_perf_layout l;

	(void)state;
	layout_init(&l, ST);
	assert_int_equal(l.time_off, 32);
	assert_int_equal(l.trailer_size, 32);      /* tid, time, cpu, identifier */
	assert_int_equal(l.trailer_time_off, 8);
	layout_init(&l, PERF_SAMPLE_IP);
	assert_int_equal(l.time_off, -1);
	assert_int_equal(l.trailer_time_off, -1);
}

#define STK_ST (ST | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define STK_REGS 3u
#define STK_SIZE 64u

/*
 * A sample of STK_ST: the ST fields, a 2-entry callchain (@nr_ips as
 * stored), REGS_USER with @abi (3 registers unless 0), a STK_SIZE-byte
 * stack copy whose first @dyn bytes are 0xaa and the rest stale 0xee,
 * dyn_size @dyn.  Returns its size.
 */
static size_t make_stack_sample(uint8_t *out, uint64_t nr_ips, uint64_t abi, uint64_t dyn)
{
	uint64_t v[64];
	size_t n = 0;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };

	v[n++] = 7;                          /* identifier */
	v[n++] = 0x401000;                   /* ip */
	v[n++] = (uint64_t)5 << 32 | 5;      /* pid, tid */
	v[n++] = 1234;                       /* time */
	v[n++] = 0;                          /* cpu */
	v[n++] = 250000;                     /* period */
	v[n++] = nr_ips;
	v[n++] = 0x401000;
	v[n++] = 0x402000;
	v[n++] = abi;
	for (unsigned i = 0; abi && i < STK_REGS; i++)
		v[n++] = 0x7ffd0000 + i;
	v[n++] = STK_SIZE;
	memset(&v[n], 0xaa, (size_t)dyn);
	memset((uint8_t *)&v[n] + dyn, 0xee, STK_SIZE - (size_t)dyn);
	n += STK_SIZE / 8;
	v[n++] = dyn;
	h.size = (uint16_t)(8 + n * 8);
	memcpy(out, &h, 8);
	memcpy(out + 8, v, n * 8);
	return h.size;
}

/* Stale stack bytes (past dyn_size) are staged as zeros and counted;
 * everything else, and any sample that cannot be walked, is copied as is. */
static void test_stack_scrub(void **state)
{
	struct perf_event_attr a = { 0 };
	uint8_t rec[512], want[512];
	struct amb_perf_layout l;
	struct rec_stage st;
	size_t n, stack_off = 8 + 6 * 8 + 3 * 8 + (1 + STK_REGS) * 8 + 8;

	(void)state;
	a.sample_type = STK_ST;
	a.sample_regs_user = 0x7; /* STK_REGS registers */
	amb_perf_layout_init(&l, &a);
	memset(&st, 0, sizeof(st));
	st.layout = &l;

	n = make_stack_sample(rec, 2, 2, 24);
	memcpy(want, rec, n);
	memset(want + stack_off + 24, 0, STK_SIZE - 24);
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	assert_int_equal(st.buf.len, n);
	assert_memory_equal(st.buf.data, want, n);
	assert_int_equal(st.c.stack_zeroed, STK_SIZE - 24);
	assert_int_equal(st.c.samples, 1);
	assert_int_equal(st.first_time, 1234);

	/* a full copy, a corrupt callchain length, no registers (and so a
	 * stack position the walk would get wrong if it ignored the ABI) */
	n = make_stack_sample(rec, 2, 2, STK_SIZE);
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	assert_memory_equal(st.buf.data + st.buf.len - n, rec, n);
	n = make_stack_sample(rec, 1000, 2, 8);
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	assert_memory_equal(st.buf.data + st.buf.len - n, rec, n);
	n = make_stack_sample(rec, 2, 0, 16);
	memcpy(want, rec, n);
	memset(want + stack_off - STK_REGS * 8 + 16, 0, STK_SIZE - 16);
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	assert_memory_equal(st.buf.data + st.buf.len - n, want, n);
	assert_int_equal(st.c.stack_zeroed, STK_SIZE - 24 + STK_SIZE - 16);
	/* a stack size running past the record */
	n = make_stack_sample(rec, 2, 2, 8);
	rec[stack_off - 8] = 0xff;
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	assert_memory_equal(st.buf.data + st.buf.len - n, rec, n);
	assert_int_equal(st.c.stack_zeroed, STK_SIZE - 24 + STK_SIZE - 16);
	assert_int_equal(st.nr_records, 5);
	rec_stage_free(&st);
}

/* A stage with block_bytes stops the copy after the record that fills it;
 * the rest stays in the ring for the next copy. */
static void test_block_limit(void **state)
{
	uint8_t ring[1024];
	struct amb_perf_layout l;
	struct rec_stage st;
	uint64_t tail;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 10; i++)
		n += make_sample(ring + n, 100 + (uint64_t)i, 1);
	stage_init(&st, &l);
	st.block_bytes = 200; /* full after 4 samples of 56 bytes */
	tail = rec_ring_copy(ring, sizeof(ring), 0, n, &st);
	assert_int_equal(tail, 4 * 56);
	assert_int_equal(st.nr_records, 4);
	amb_buf_reset(&st.buf);
	tail = rec_ring_copy(ring, sizeof(ring), tail, n, &st);
	assert_int_equal(tail, 8 * 56);
	amb_buf_reset(&st.buf);
	tail = rec_ring_copy(ring, sizeof(ring), tail, n, &st);
	assert_int_equal(tail, n);
	assert_int_equal(st.buf.len, 2 * 56);
	assert_int_equal(st.c.samples, 10);
	rec_stage_free(&st);
}

/* Fill a 512-byte ring starting at a free-running position near its end
 * so that records wrap; drain and compare with the linear stream. */
static void test_wraparound(void **state)
{
	uint8_t ring[512], linear[512];
	uint64_t lost[2] = { 7, 3 }, lost_s[1] = { 5 }, thr[3] = { 900, 7, 7 };
	size_t n = 0;
	struct amb_perf_layout l;
	struct rec_stage st;
	uint64_t start = 10 * 512 + 464, tail; /* first record straddles the end */

	(void)state;
	n += make_sample(linear + n, 1000, 11);
	n += make_other(linear + n, PERF_RECORD_LOST, lost, 2, 900);
	n += make_sample(linear + n, 1100, 12);
	n += make_other(linear + n, PERF_RECORD_LOST_SAMPLES, lost_s, 1, 1200);
	n += make_other(linear + n, PERF_RECORD_THROTTLE, thr, 3, 1150);
	assert_true(n <= sizeof(ring));
	for (size_t i = 0; i < n; i++)
		ring[(start + i) % sizeof(ring)] = linear[i];

	stage_init(&st, &l);
	tail = rec_ring_copy(ring, sizeof(ring), start, start + n, &st);
	assert_int_equal(tail, start + n);
	assert_int_equal(st.buf.len, n);
	assert_memory_equal(st.buf.data, linear, n);
	assert_int_equal(st.nr_records, 5);
	assert_int_equal(st.c.samples, 2);
	assert_int_equal(st.c.lost_records, 3);
	assert_int_equal(st.c.lost_samples, 5);
	assert_int_equal(st.c.throttle, 1);
	assert_int_equal(st.first_time, 900);
	assert_int_equal(st.last_time, 1200);
	rec_stage_free(&st);
}

/* The kernel publishes data_head only after whole records: less than a
 * header is left for later, a record running past head is corrupt and
 * dropped (never read beyond head). */
static void test_partial(void **state)
{
	uint8_t ring[128] = { 0 };
	struct amb_perf_layout l;
	struct rec_stage st;
	size_t n;

	(void)state;
	n = make_sample(ring, 5, 1);
	stage_init(&st, &l);
	assert_int_equal(rec_ring_copy(ring, sizeof(ring), 0, 4, &st), 0);
	assert_int_equal(st.nr_records, 0);
	assert_int_equal(st.c.bad, 0);
	assert_int_equal(rec_ring_copy(ring, sizeof(ring), 0, n, &st), n);
	assert_int_equal(st.nr_records, 1);
	rec_stage_free(&st);

	stage_init(&st, &l);
	assert_int_equal(rec_ring_copy(ring, sizeof(ring), 0, 8, &st), 8);
	assert_int_equal(st.c.bad, 8);
	assert_int_equal(st.nr_records, 0);
	rec_stage_free(&st);
}

/* A header claiming size 0 must not loop forever nor read past head. */
static void test_malformed(void **state)
{
	uint8_t ring[64] = { 0 };
	struct amb_perf_layout l;
	struct rec_stage st;

	(void)state;
	stage_init(&st, &l);
	assert_int_equal(rec_ring_copy(ring, sizeof(ring), 0, 32, &st), 32);
	assert_int_equal(st.c.bad, 32);
	assert_int_equal(st.nr_records, 0);
	rec_stage_free(&st);
}

static void test_take(void **state)
{
	uint8_t rec[64];
	struct amb_perf_layout l;
	struct rec_stage st;
	struct amb_block_desc d;
	size_t len, n = make_sample(rec, 42, 3);
	void *data;

	(void)state;
	stage_init(&st, &l);
	assert_null(rec_stage_take(&st, 1, &d, &len));
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	n = make_sample(rec, 40, 3);
	assert_int_equal(rec_stage_add(&st, rec, n), 0);
	data = rec_stage_take(&st, 1, &d, &len);
	assert_non_null(data);
	assert_int_equal(len, 2 * n);
	assert_int_equal(d.type, AMB_BLOCK_RING);
	assert_int_equal(d.stream, 1);
	assert_int_equal(d.record_count, 2);
	assert_int_equal(d.first_time, 40);
	assert_int_equal(d.last_time, 42);
	free(data);
	/* the stage is empty again, totals stay */
	assert_int_equal(st.buf.len, 0);
	assert_int_equal(st.nr_records, 0);
	assert_int_equal(st.c.samples, 2);
	assert_null(rec_stage_take(&st, 1, &d, &len));
	rec_stage_free(&st);
}

/* The drain pass on a fake "kernel" ring: it reads data_head, copies, and
 * publishes data_tail, and hands stages to a real writer. */
static void test_drain_pass(void **state)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *map = calloc(1, (size_t)psz * 2);
	struct perf_event_mmap_page *pc = (void *)map;
	struct rec_ring ring = { 0 };
	struct rec_drain d;
	struct amb_writer *w;
	struct amb_reader *r;
	char path[] = "/tmp/amber-test-ring-XXXXXX";
	uint64_t last = 0;
	size_t n = 0;
	int fd;

	(void)state;
	assert_non_null(map);
	for (int i = 0; i < 10; i++)
		n += make_sample(map + psz + n, 100 + (uint64_t)i, 9);
	pc->data_head = n;
	ring.base = map;
	ring.fd = -1;
	ring.cpu = 3;
	ring.data = map + psz;
	ring.size = (uint64_t)psz;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(amb_writer_open(path, NULL, &w), 0);

	memset(&d, 0, sizeof(d));
	d.rings = &ring;
	d.nr_rings = 1;
	d.w = w;
	d.block_bytes = 1 << 20;
	d.flush_ms = 1000;
	layout_init(&d.layout, ST);
	d.stages = calloc(1, sizeof(*d.stages));
	d.stages[0].layout = &d.layout;
	/* not due yet: staged, not written */
	assert_int_equal(rec_drain_pass(&d, false, 500, &last), 0);
	assert_int_equal(pc->data_tail, n);
	assert_int_equal(d.stages[0].buf.len, n);
	/* due: handed to the writer */
	assert_int_equal(rec_drain_pass(&d, false, 1500, &last), 0);
	assert_int_equal(last, 1500);
	assert_int_equal(d.stages[0].buf.len, 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), 3); /* ring, index, trailer */
	assert_int_equal(amb_reader_block(r, 0)->type, AMB_BLOCK_RING);
	assert_int_equal(amb_reader_block(r, 0)->stream, 3);
	assert_int_equal(amb_reader_block(r, 0)->record_count, 10);
	assert_int_equal(amb_reader_block(r, 0)->first_time, 100);
	assert_int_equal(amb_reader_block(r, 0)->last_time, 109);
	amb_reader_close(r);
	unlink(path);
	rec_drain_free(&d);
	free(map);
}

/* A pass hands over every full stage as it goes (block_bytes), so a ring
 * holding more than a block becomes several RING blocks of about that
 * size; the rest waits until the stage is due. */
static void test_drain_blocks(void **state)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *map = calloc(1, (size_t)psz * 2);
	struct perf_event_mmap_page *pc = (void *)map;
	struct rec_ring ring = { 0 };
	struct rec_drain d;
	struct amb_writer *w;
	struct amb_reader *r;
	char path[] = "/tmp/amber-test-ring-XXXXXX";
	uint64_t last = 0;
	size_t n = 0;
	int fd;

	(void)state;
	assert_non_null(map);
	for (int i = 0; i < 10; i++)
		n += make_sample(map + psz + n, 100 + (uint64_t)i, 9);
	pc->data_head = n;
	ring.base = map;
	ring.fd = -1;
	ring.data = map + psz;
	ring.size = (uint64_t)psz;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(amb_writer_open(path, NULL, &w), 0);

	memset(&d, 0, sizeof(d));
	d.rings = &ring;
	d.nr_rings = 1;
	d.w = w;
	d.block_bytes = 200; /* 4 samples */
	d.flush_ms = 1000;
	layout_init(&d.layout, ST);
	d.stages = calloc(1, sizeof(*d.stages));
	d.stages[0].layout = &d.layout;
	d.stages[0].block_bytes = d.block_bytes;
	assert_int_equal(rec_drain_pass(&d, false, 500, &last), 0);
	assert_int_equal(pc->data_tail, n);
	assert_int_equal(d.stages[0].nr_records, 2);
	assert_int_equal(rec_drain_pass(&d, true, 600, &last), 0);
	assert_int_equal(d.stages[0].buf.len, 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), 5); /* 3 ring, index, trailer */
	assert_int_equal(amb_reader_block(r, 0)->record_count, 4);
	assert_int_equal(amb_reader_block(r, 0)->first_time, 100);
	assert_int_equal(amb_reader_block(r, 1)->record_count, 4);
	assert_int_equal(amb_reader_block(r, 1)->first_time, 104);
	assert_int_equal(amb_reader_block(r, 2)->record_count, 2);
	assert_int_equal(amb_reader_block(r, 2)->last_time, 109);
	amb_reader_close(r);
	unlink(path);
	rec_drain_free(&d);
	free(map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_stack_scrub),
		cmocka_unit_test(test_block_limit),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_drain_pass),
		cmocka_unit_test(test_drain_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

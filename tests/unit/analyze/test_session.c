// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/session.c: a synthetic recording of three CPUs with
 * interleaved times and several blocks per stream, written with amb_writer in
 * either byte order, must come back from ana_session_for_each() with SYNTH
 * records first, then every RING record once, in global time order; plus the
 * tables (META, EVENT_ATTR ids, BUILDID, KSYMS, TRACEFS), damaged records,
 * and stopping early; KSYMS decoded only when asked for, by the session
 * and by a machine resolving its first kernel address.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/replay/replay.h"
#include "analyze/replay/perf_record.h"
#include "analyze/resolve/resolve.h"
#include <amber/common.h>
#include <amber/format.h>
#include "tests/unit/analyze/synth.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define NCPU 3
#define BLOCKS_PER_CPU 4
#define PER_BLOCK 50

static char path[64];
static unsigned ring_codec;   /* the writer's, for write_recording_ex() */

/* Sample number n of @cpu: times interleave across CPUs, ip says who it is. */
static uint64_t sample_time(unsigned cpu, unsigned n)
{
	return 1000000 + (uint64_t)n * 1000 + cpu * 333 + (n % 7) * 10;
}

static void put_event_st(struct amb_buf *b, const char *name, uint64_t id0, uint64_t id1,
			 bool swap, uint64_t st)
{
	struct perf_event_attr a, img;
	uint8_t ids[16];
	struct amb_event_entry e;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 10000;
	a.sample_type = st;
	a.sample_id_all = 1;
	a.disabled = 1;
	/* ana_attr_to_host() is its own inverse: it makes the other order too. */
	ana_attr_to_host(&img, (const uint8_t *)&a, sizeof(a), swap);
	amb_put_le64(ids, id0);
	amb_put_le64(ids + 8, id1);
	e = (struct amb_event_entry){
		.attr = (const uint8_t *)&img, .attr_size = sizeof(img),
		.name = name, .name_len = (uint32_t)strlen(name),
		.leader = UINT32_MAX, .flags = 0, .nr_ids = 2, .ids = ids,
	};
	assert_int_equal(amb_event_put(b, &e), 0);
}

static void put_event(struct amb_buf *b, const char *name, uint64_t id0, uint64_t id1,
		      bool swap)
{
	put_event_st(b, name, id0, id1, swap, ST);
}

static void append(struct amb_writer *w, uint16_t type, uint32_t stream, uint64_t count,
		   uint64_t t0, uint64_t t1, const struct amb_buf *b)
{
	struct amb_block_desc d = { type, stream, count, t0, t1 };

	assert_int_equal(amb_writer_append(w, &d, b->data, b->len), 0);
}

/*
 * Write the recording.  With @bad, CPU 1's second block has a record of
 * size 4 after its first 10 samples, so its other 40 are lost.  With
 * @invert, samples 5 and 6 of CPU 2 have their times exchanged.
 */
static void write_recording_ex(bool swap, bool bad, bool invert)
{
	static struct syn_rec s;
	static const uint8_t bid[20] = { 0x12, 0x34, 0x56 };
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL, .ring_codec = ring_codec);
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_buildid_entry be;
	struct amb_writer *w;

	snprintf(path, sizeof(path), "/tmp/amber-test-session-%d.amber", (int)getpid());
	unlink(path);
	o.producer_endian = (amb_host_is_le() != swap) ? AMB_ENDIAN_LITTLE : AMB_ENDIAN_BIG;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	s.swap = swap;

	assert_int_equal(amb_kv_put_str(&b, "hostname", "testhost"), 0);
	assert_int_equal(amb_kv_put_str(&b, "clock", "monotonic"), 0);
	assert_int_equal(amb_kv_put_str(&b, "hostname", "renamed"), 0);
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 3, 0, 0, &b);
	amb_buf_reset(&b);
	put_event(&b, "cpu-clock", 100, 101, swap);
	put_event(&b, "task-clock", 200, 201, swap);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 2, 0, 0, &b);
	amb_buf_reset(&b);
	assert_int_equal(amb_kv_put_str(&b, "sched/sched_switch", "name: sched_switch\n"), 0);
	append(w, AMB_BLOCK_TRACEFS, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	assert_int_equal(amb_buf_printf(&b, "ffffffff81000000 T _stext\n"), 0);
	append(w, AMB_BLOCK_KSYMS, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	be = (struct amb_buildid_entry){ bid, 20, AMB_DSO_USER, "/usr/bin/true", 13 };
	assert_int_equal(amb_buildid_put(&b, &be), 0);
	append(w, AMB_BLOCK_BUILDID, AMB_STREAM_NONE, 1, 0, 0, &b);

	amb_buf_reset(&b);
	syn_comm(&s, ST, 42, 42, "bash", false, 500, 100, 0);
	assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
	syn_mmap2(&s, ST, 42, 42, 0x400000, 0x1000, 0, bid, 20, "/usr/bin/true", 500, 100, 0);
	assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
	append(w, AMB_BLOCK_SYNTH, AMB_STREAM_NONE, 2, 500, 500, &b);

	/* Blocks of the streams interleave in the file, in no fixed CPU order. */
	for (unsigned blk = 0; blk < BLOCKS_PER_CPU; blk++) {
		for (unsigned k = 0; k < NCPU; k++) {
			unsigned cpu = (k + blk) % NCPU;
			unsigned n0 = blk * PER_BLOCK;

			amb_buf_reset(&b);
			for (unsigned n = n0; n < n0 + PER_BLOCK; n++) {
				if (bad && cpu == 1 && blk == 1 && n == n0 + 10) {
					syn_begin(&s, PERF_RECORD_SAMPLE, 0);
					s.b[s.swap ? 7 : 6] = 4;
					s.len = 8;
					assert_int_equal(amb_buf_append(&b, s.b, 8), 0);
				}
				unsigned tn = n;

				if (invert && cpu == 2 && (n == 5 || n == 6))
					tn = 11 - n;
				syn_simple_sample(&s, ST, (n & 1) ? 200 : 100,
						  (uint64_t)cpu << 32 | n, 7, 7,
						  sample_time(cpu, tn), 0, 10000);
				assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
			}
			append(w, AMB_BLOCK_RING, cpu, PER_BLOCK, sample_time(cpu, n0),
			       sample_time(cpu, n0 + PER_BLOCK - 1), &b);
		}
	}
	amb_buf_free(&b);
	assert_int_equal(amb_writer_close(w), 0);
}

static void write_recording(bool swap, bool bad)
{
	write_recording_ex(swap, bad, false);
}

struct seen {
	unsigned synth, ring;
	uint64_t last_time;
	bool ordered;
	uint8_t count[NCPU][BLOCKS_PER_CPU * PER_BLOCK];
	const struct ana_event *ev100, *ev200;
	int stop_after;
	bool inverted;          /* CPU 2 samples 5 and 6 have exchanged times */
	unsigned next[NCPU];    /* lowest sample number each CPU may deliver next */
};

static int on_record(void *ctx, const struct ana_record *rec)
{
	struct seen *sn = ctx;

	if (rec->synthesized) {
		assert_int_equal(sn->ring, 0);
		assert_int_equal(rec->stream, AMB_STREAM_NONE);
		if (sn->synth++ == 0) {
			assert_int_equal(rec->type, PERF_RECORD_COMM);
			assert_string_equal(rec->u.comm.comm, "bash");
		} else {
			assert_int_equal(rec->type, PERF_RECORD_MMAP2);
			assert_string_equal(rec->u.mmap.filename, "/usr/bin/true");
		}
		return 0;
	}
	assert_int_equal(rec->type, PERF_RECORD_SAMPLE);
	{
		unsigned cpu = (unsigned)(rec->u.sample.ip >> 32);
		unsigned n = (unsigned)rec->u.sample.ip;

		assert_true(cpu < NCPU && n < BLOCKS_PER_CPU * PER_BLOCK);
		assert_int_equal(rec->stream, cpu);
		assert_int_equal(rec->cpu, cpu);   /* no PERF_SAMPLE_CPU: from the stream */
		if (!sn->inverted)
			assert_true(rec->time == sample_time(cpu, n));
		assert_true(n >= sn->next[cpu]);   /* stream order, skips allowed */
		sn->next[cpu] = n + 1;
		assert_ptr_equal(rec->evt, (n & 1) ? sn->ev200 : sn->ev100);
		sn->count[cpu][n]++;
	}
	if (rec->time < sn->last_time)
		sn->ordered = false;
	sn->last_time = rec->time;
	sn->ring++;
	if (sn->stop_after && (int)sn->ring == sn->stop_after)
		return 77;
	return 0;
}

static void check_session(bool swap)
{
	struct ana_session *s;
	struct ana_session_stats st;
	struct seen *sn = calloc(1, sizeof(*sn));
	const struct ana_buildid *b;
	const char *val;
	size_t len;

	assert_non_null(sn);
	write_recording(swap, false);
	assert_int_equal(ana_session_open(path, &s), 0);
	assert_int_equal(ana_session_swapped(s), swap);
	assert_string_equal(ana_session_meta(s, "hostname"), "renamed");
	assert_string_equal(ana_session_meta(s, "clock"), "monotonic");
	assert_null(ana_session_meta(s, "nope"));
	assert_int_equal(ana_session_meta_count(s), 2);
	assert_string_equal(ana_session_meta_at(s, 0, &val), "hostname");
	assert_string_equal(val, "renamed");
	assert_null(ana_session_meta_at(s, 2, &val));
	assert_int_equal(ana_session_event_count(s), 2);
	assert_string_equal(ana_session_event(s, 1)->name, "task-clock");
	assert_true(ana_session_event(s, 1)->attr.sample_type == ST);
	assert_int_equal(ana_session_event(s, 1)->attr.sample_id_all, 1);
	assert_int_equal(ana_session_event(s, 1)->attr.disabled, 1);
	assert_int_equal(ana_session_event(s, 0)->nr_ids, 2);
	sn->ev100 = ana_session_event_by_id(s, 101);
	sn->ev200 = ana_session_event_by_id(s, 200);
	assert_ptr_equal(sn->ev100, ana_session_event(s, 0));
	assert_ptr_equal(sn->ev200, ana_session_event(s, 1));
	assert_null(ana_session_event_by_id(s, 150));
	assert_int_equal(ana_session_buildid_count(s), 1);
	b = ana_session_buildid(s, 0);
	assert_string_equal(b->path, "/usr/bin/true");
	assert_int_equal(b->build_id_len, 20);
	assert_int_equal(b->build_id[1], 0x34);
	assert_string_equal(ana_session_ksyms(s, &len), "ffffffff81000000 T _stext\n");
	assert_int_equal(len, 26);
	val = ana_session_tracefs(s, "sched/sched_switch", &len);
	assert_non_null(val);
	assert_int_equal(len, strlen("name: sched_switch\n"));

	sn->ordered = true;
	assert_int_equal(ana_session_for_each(s, on_record, sn), 0);
	assert_int_equal(sn->synth, 2);
	assert_int_equal(sn->ring, NCPU * BLOCKS_PER_CPU * PER_BLOCK);
	assert_true(sn->ordered);
	for (unsigned c = 0; c < NCPU; c++)
		for (unsigned n = 0; n < BLOCKS_PER_CPU * PER_BLOCK; n++)
			assert_int_equal(sn->count[c][n], 1);
	ana_session_get_stats(s, &st);
	assert_int_equal(st.records, 2 + NCPU * BLOCKS_PER_CPU * PER_BLOCK);
	assert_int_equal(st.samples, NCPU * BLOCKS_PER_CPU * PER_BLOCK);
	assert_int_equal(st.bad_records, 0);
	assert_true(st.first_time == 500);
	assert_true(st.last_time == sample_time(NCPU - 1, BLOCKS_PER_CPU * PER_BLOCK - 1));

	/* A nonzero callback value stops the iteration and comes back. */
	memset(sn, 0, sizeof(*sn));
	sn->ev100 = ana_session_event_by_id(s, 100);
	sn->ev200 = ana_session_event_by_id(s, 201);
	sn->stop_after = 25;
	assert_int_equal(ana_session_for_each(s, on_record, sn), 77);
	assert_int_equal(sn->ring, 25);
	ana_session_close(s);
	unlink(path);
	free(sn);
}

static void test_merge_native(void **state)
{
	(void)state;
	check_session(false);
}

static void test_merge_swapped(void **state)
{
	(void)state;
	check_session(true);
}

static int warnings;
static char last_warning[512];

static void count_warning(void *ctx, const char *msg)
{
	(void)ctx;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

/* A bad record costs the rest of its block, once, and nothing else. */
static void test_bad_record(void **state)
{
	struct ana_session *s;
	struct ana_session_stats st;
	struct seen *sn = calloc(1, sizeof(*sn));
	amb_warn_fn old;

	(void)state;
	assert_non_null(sn);
	write_recording(false, true);
	assert_int_equal(ana_session_open(path, &s), 0);
	sn->ev100 = ana_session_event_by_id(s, 100);
	sn->ev200 = ana_session_event_by_id(s, 200);
	sn->ordered = true;
	warnings = 0;
	old = amb_set_warn(count_warning, NULL);
	assert_int_equal(ana_session_for_each(s, on_record, sn), 0);
	amb_set_warn(old, NULL);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(last_warning, "record at payload offset"));
	assert_non_null(strstr(last_warning, "block "));
	assert_true(sn->ordered);
	assert_int_equal(sn->ring, NCPU * BLOCKS_PER_CPU * PER_BLOCK - (PER_BLOCK - 10));
	assert_int_equal(sn->count[1][PER_BLOCK + 9], 1);
	assert_int_equal(sn->count[1][PER_BLOCK + 10], 0);
	assert_int_equal(sn->count[1][2 * PER_BLOCK], 1);
	ana_session_get_stats(s, &st);
	assert_int_equal(st.bad_records, 1);
	ana_session_close(s);
	unlink(path);
	free(sn);
}

/* A stream whose times step back is still delivered in its own order,
 * every record once; the merge is otherwise in time order. */
static void test_inversion(void **state)
{
	struct ana_session *s;
	struct seen *sn = calloc(1, sizeof(*sn));

	(void)state;
	assert_non_null(sn);
	write_recording_ex(false, false, true);
	assert_int_equal(ana_session_open(path, &s), 0);
	sn->ev100 = ana_session_event_by_id(s, 100);
	sn->ev200 = ana_session_event_by_id(s, 200);
	sn->inverted = true;
	assert_int_equal(ana_session_for_each(s, on_record, sn), 0);
	assert_int_equal(sn->ring, NCPU * BLOCKS_PER_CPU * PER_BLOCK);
	for (unsigned c = 0; c < NCPU; c++)
		assert_int_equal(sn->next[c], BLOCKS_PER_CPU * PER_BLOCK);
	ana_session_close(s);
	unlink(path);
	free(sn);
}

/*
 * A recording whose kernel symbols come in two KSYMS blocks (the second
 * one's payload damaged when @damage_second) and one SYNTH block.
 */
static void write_ksyms_recording(bool damage_second)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_reader *r;
	struct amb_writer *w;
	uint64_t off = 0;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/amber-test-session-%d.amber", (int)getpid());
	unlink(path);
	o.zstd_level = 0;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	put_event(&b, "cpu-clock", 100, 101, false);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	assert_int_equal(amb_buf_printf(&b, "ffffffff81000000 T _stext\n"
					 "ffffffff81000100 t first_fn\n"), 0);
	append(w, AMB_BLOCK_KSYMS, AMB_STREAM_NONE, 2, 0, 0, &b);
	amb_buf_reset(&b);
	assert_int_equal(amb_buf_printf(&b, "ffffffff81000200 t second_fn\n"), 0);
	append(w, AMB_BLOCK_KSYMS, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_free(&b);
	assert_int_equal(amb_writer_close(w), 0);
	if (!damage_second)
		return;

	/* Flip the last payload byte of the second KSYMS block: its checksum fails. */
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	for (i = amb_reader_block_count(r); i-- > 0;) {
		const struct amb_block_info *bi = amb_reader_block(r, i);

		if (bi->type == AMB_BLOCK_KSYMS) {
			off = bi->offset + AMB_BLOCK_HDR_SIZE + bi->stored_size - 1;
			break;
		}
	}
	amb_reader_close(r);
	assert_true(off > 0);
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fputc('!', f), '!');
	assert_int_equal(fclose(f), 0);
}

/* KSYMS blocks are joined, decoded once, and only when asked for. */
static void test_ksyms_lazy(void **state)
{
	static const char both[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 t first_fn\n"
				   "ffffffff81000200 t second_fn\n";
	struct ana_session *s;
	const char *text;
	amb_warn_fn old;
	size_t len;

	(void)state;
	write_ksyms_recording(false);
	assert_int_equal(ana_session_open(path, &s), 0);
	text = ana_session_ksyms(s, &len);
	assert_string_equal(text, both);
	assert_int_equal(len, strlen(both));
	assert_ptr_equal(ana_session_ksyms(s, NULL), text);
	ana_session_close(s);

	/* The damaged block is reported when the text is first needed, once. */
	write_ksyms_recording(true);
	warnings = 0;
	old = amb_set_warn(count_warning, NULL);
	assert_int_equal(ana_session_open(path, &s), 0);
	assert_int_equal(warnings, 0);
	assert_string_equal(ana_session_ksyms(s, &len), "ffffffff81000000 T _stext\n"
			    "ffffffff81000100 t first_fn\n");
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(last_warning, "checksum"));
	ana_session_ksyms(s, &len);
	amb_set_warn(old, NULL);
	assert_int_equal(warnings, 1);
	ana_session_close(s);
	unlink(path);
}

/*
 * A machine parses the kernel symbols on its first kernel address: user
 * addresses alone never decode KSYMS (its damage is never reported).
 */
static void test_machine_ksyms_lazy(void **state)
{
	struct ana_dso_table *dsos = ana_dso_table_new(NULL);
	struct ana_machine *m = ana_machine_new(dsos);
	struct ana_session *s;
	struct ana_loc loc;
	amb_warn_fn old;

	(void)state;
	assert_non_null(m);
	write_ksyms_recording(true);
	warnings = 0;
	old = amb_set_warn(count_warning, NULL);
	assert_int_equal(ana_session_open(path, &s), 0);
	assert_int_equal(ana_machine_load_session(m, s), 0);
	ana_machine_resolve(m, NULL, PERF_RECORD_MISC_USER, 0x400000, 0x400000, 0, &loc);
	assert_int_equal(loc.kind, ANA_LOC_UNKNOWN);
	assert_int_equal(warnings, 0);

	ana_machine_resolve(m, NULL, PERF_RECORD_MISC_KERNEL, 0xffffffff81000110ull,
			    0xffffffff81000110ull, 0, &loc);
	assert_int_equal(warnings, 1);
	assert_int_equal(loc.kind, ANA_LOC_KERNEL);
	assert_string_equal(loc.ksym->name, "first_fn");
	assert_int_equal(loc.offset, 0x10);
	ana_machine_resolve(m, NULL, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ull,
			    0xffffffff81000010ull, 0, &loc);
	assert_string_equal(loc.ksym->name, "_stext");
	amb_set_warn(old, NULL);
	assert_int_equal(warnings, 1);
	ana_machine_free(m);
	ana_dso_table_free(dsos);
	ana_session_close(s);
	unlink(path);
}

static void test_open_errors(void **state)
{
	struct ana_session *s = (void *)1;

	(void)state;
	assert_int_equal(ana_session_open("/nonexistent/x.amber", &s), -ENOENT);
	assert_null(s);
	ana_session_close(NULL);
}

/* Everything a run delivers and says, in order: records (type, times,
 * where from, every byte) and warnings. */
struct trace {
	struct amb_buf b;
};

static struct trace *warn_trace;

static void trace_warning(void *ctx, const char *msg)
{
	(void)ctx;
	assert_int_equal(amb_buf_printf(&warn_trace->b, "W %s\n", msg), 0);
}

static int trace_record(void *ctx, const struct ana_record *rec)
{
	struct trace *t = ctx;

	assert_int_equal(amb_buf_printf(&t->b, "R %u %u %llu %u %u %u %u ", rec->type, rec->size,
					(unsigned long long)rec->time, rec->stream, rec->cpu,
					rec->synthesized, rec->misc), 0);
	assert_int_equal(amb_buf_append(&t->b, rec->bytes, rec->size), 0);
	return 0;
}

static void run_trace(unsigned jobs, struct trace *t)
{
	struct ana_session_stats st;
	struct ana_session *s;
	amb_warn_fn old;

	amb_buf_reset(&t->b);
	warn_trace = t;
	old = amb_set_warn(trace_warning, NULL);
	assert_int_equal(ana_session_open(path, &s), 0);
	ana_session_set_jobs(s, jobs);
	assert_int_equal(ana_session_for_each(s, trace_record, t), 0);
	ana_session_get_stats(s, &st);
	assert_int_equal(amb_buf_printf(&t->b, "S %llu %llu %llu\n", (unsigned long long)st.records,
					(unsigned long long)st.samples,
					(unsigned long long)st.bad_records), 0);
	ana_session_close(s);
	amb_set_warn(old, NULL);
}

/* Damage the payload of the @k-th RING block of the file (its checksum
 * then fails: the block is skipped with a warning). */
static void damage_ring_block(unsigned k)
{
	const struct amb_block_filter f = { AMB_BLOCK_RING, -1, 0, 0 };
	struct amb_reader *r;
	uint64_t off = 0;
	size_t i;
	FILE *fp;
	int c;

	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	amb_reader_for_each_block(r, &f, i) {
		if (!k--) {
			off = amb_reader_block(r, i)->offset + AMB_BLOCK_HDR_SIZE + 5;
			break;
		}
	}
	amb_reader_close(r);
	assert_true(off > 0);
	fp = fopen(path, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, (long)off, SEEK_SET), 0);
	c = fgetc(fp);
	assert_int_equal(fseek(fp, (long)off, SEEK_SET), 0);
	fputc(c ^ 0x40, fp);
	fclose(fp);
}

/* Decoding on worker threads changes nothing a run delivers or says:
 * the same records in the same order and the same warnings at the same
 * points, with a bad record and a damaged block, in both codecs. */
static void test_jobs_identical(void **state)
{
	static const unsigned jobs[] = { 2, 3, 8 };
	struct trace one = { AMB_BUF_INIT }, many = { AMB_BUF_INIT };

	(void)state;
	for (unsigned codec = 0; codec < 2; codec++) {
		ring_codec = codec ? AMB_CODEC_SAMPLE : 0;
		for (int swap = 0; swap < 2; swap++) {
			write_recording_ex(swap, true, swap);
			damage_ring_block(4);
			run_trace(1, &one);
			assert_non_null(memmem(one.b.data, one.b.len, "block skipped", 13));
			assert_non_null(memmem(one.b.data, one.b.len, "record at payload offset", 24));
			for (size_t j = 0; j < AMB_ARRAY_SIZE(jobs); j++) {
				run_trace(jobs[j], &many);
				assert_int_equal(many.b.len, one.b.len);
				assert_memory_equal(many.b.data, one.b.data, one.b.len);
			}
			unlink(path);
		}
	}
	ring_codec = 0;
	amb_buf_free(&one.b);
	amb_buf_free(&many.b);
}

/* ---- chain keys ---------------------------------------------------------------- */

#define ST_G (ST | PERF_SAMPLE_CALLCHAIN)
#define CHAIN_CPUS 2
#define CHAIN_BLOCKS 3
#define CHAIN_PER_BLOCK 40
#define CHAINS 5

/* Chain @c: a marker and up to four addresses, chains sharing prefixes. */
static unsigned chain_of(unsigned cpu, unsigned n, uint64_t *e)
{
	unsigned c = (n * 7 + cpu) % CHAINS, len = 1 + c % 5;

	e[0] = PERF_CONTEXT_USER;
	for (unsigned i = 1; i < len; i++)
		e[i] = 0x401000 + 0x100 * i + (i == 1 ? 0x10 * c : 0);
	return len;
}

/* Samples of ST_G on two CPUs, three blocks each, with the writer's codec
 * @codec; sample n of @cpu has ip cpu << 32 | n and chain_of(cpu, n). */
static void write_chain_recording(unsigned codec)
{
	static struct syn_rec s;
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL, .ring_codec = codec);
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_writer *w;

	snprintf(path, sizeof(path), "/tmp/amber-test-session-%d.amber", (int)getpid());
	unlink(path);
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	put_event_st(&b, "cpu-clock", 100, 101, false, ST_G);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0, &b);
	for (unsigned blk = 0; blk < CHAIN_BLOCKS; blk++) {
		for (unsigned cpu = 0; cpu < CHAIN_CPUS; cpu++) {
			unsigned n0 = blk * CHAIN_PER_BLOCK;

			amb_buf_reset(&b);
			for (unsigned n = n0; n < n0 + CHAIN_PER_BLOCK; n++) {
				uint64_t e[8];
				unsigned len = chain_of(cpu, n, e);

				syn_begin(&s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
				syn_u64(&s, 100);                       /* identifier */
				syn_u64(&s, (uint64_t)cpu << 32 | n);   /* ip */
				syn_u32(&s, 7);
				syn_u32(&s, 7);
				syn_u64(&s, sample_time(cpu, n));
				syn_u64(&s, 10000);                     /* period */
				syn_u64(&s, len);
				for (unsigned i = 0; i < len; i++)
					syn_u64(&s, e[i]);
				syn_end(&s);
				assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
			}
			append(w, AMB_BLOCK_RING, cpu, CHAIN_PER_BLOCK, sample_time(cpu, n0),
			       sample_time(cpu, n0 + CHAIN_PER_BLOCK - 1), &b);
		}
	}
	amb_buf_free(&b);
	assert_int_equal(amb_writer_close(w), 0);
}

/* Each sample's chain_key, by CPU and sample number. */
struct keys {
	uint64_t key[CHAIN_CPUS][CHAIN_BLOCKS * CHAIN_PER_BLOCK];
	unsigned samples;
};

static int keys_record(void *ctx, const struct ana_record *rec)
{
	struct keys *k = ctx;
	unsigned cpu = (unsigned)(rec->u.sample.ip >> 32), n = (unsigned)rec->u.sample.ip;

	assert_int_equal(rec->type, PERF_RECORD_SAMPLE);
	assert_true(cpu < CHAIN_CPUS && n < CHAIN_BLOCKS * CHAIN_PER_BLOCK);
	k->key[cpu][n] = rec->u.sample.chain_key;
	k->samples++;
	return 0;
}

static void run_keys(unsigned jobs, struct keys *k)
{
	struct ana_session *s;

	memset(k, 0, sizeof(*k));
	assert_int_equal(ana_session_open(path, &s), 0);
	ana_session_set_jobs(s, jobs);
	assert_int_equal(ana_session_for_each(s, keys_record, k), 0);
	ana_session_close(s);
	assert_int_equal(k->samples, CHAIN_CPUS * CHAIN_BLOCKS * CHAIN_PER_BLOCK);
}

/* Samples of the codec's blocks carry chain keys that are equal exactly
 * when the block and the chain are; -j changes none; zstd's have none. */
static void test_chain_keys(void **state)
{
	static struct keys one, many;
	const unsigned total = CHAIN_BLOCKS * CHAIN_PER_BLOCK;

	(void)state;
	write_chain_recording(AMB_CODEC_SAMPLE);
	run_keys(1, &one);
	run_keys(3, &many);
	assert_memory_equal(&one, &many, sizeof(one));
	for (unsigned c1 = 0; c1 < CHAIN_CPUS; c1++) {
		for (unsigned n1 = 0; n1 < total; n1++) {
			uint64_t e1[8], e2[8];
			unsigned l1 = chain_of(c1, n1, e1);

			assert_int_not_equal(one.key[c1][n1], 0);
			for (unsigned c2 = 0; c2 < CHAIN_CPUS; c2++) {
				for (unsigned n2 = 0; n2 < total; n2++) {
					unsigned l2 = chain_of(c2, n2, e2);
					bool same = c1 == c2 && n1 / CHAIN_PER_BLOCK == n2 / CHAIN_PER_BLOCK &&
						    l1 == l2 && !memcmp(e1, e2, l1 * sizeof(*e1));

					assert_int_equal(one.key[c1][n1] == one.key[c2][n2], same);
				}
			}
		}
	}
	unlink(path);

	write_chain_recording(AMB_CODEC_ZSTD);
	run_keys(2, &one);
	for (unsigned c = 0; c < CHAIN_CPUS; c++)
		for (unsigned n = 0; n < total; n++)
			assert_int_equal(one.key[c][n], 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_native),
		cmocka_unit_test(test_merge_swapped),
		cmocka_unit_test(test_bad_record),
		cmocka_unit_test(test_inversion),
		cmocka_unit_test(test_ksyms_lazy),
		cmocka_unit_test(test_machine_ksyms_lazy),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_jobs_identical),
		cmocka_unit_test(test_chain_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/resolve/sched.c, the scheduler model: synthetic
 * recordings of sched_switch and sched_waking samples and context-switch
 * records, written in either byte order, must come back as the waits and
 * runs they describe: states, wakeups and wakers, a switch seen twice
 * (sample and record) counted once, exits, the end of the recording,
 * switch-ins the kernel did not record (system-wide), tasks that are not
 * targets, a thread switched in after its exit record and a tid that
 * comes back, and the filters (--tid, --time).  Also the prev_state
 * mapping, the wall clock of an exiting thread (view/offcpu.c), and the
 * error for a recording without scheduler events.
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

#include "analyze/replay/perf_record.h"
#include "analyze/resolve/resolve.h"
#include "analyze/view/offcpu.h"
#include "common/util.h"
#include <amber/common.h>
#include <amber/format.h>
#include "tests/unit/analyze/synth.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

enum { ID_CLOCK = 10, ID_SWITCH = 20, ID_WAKING = 30 };
enum { TP_SWITCH = 372, TP_WAKING = 375 };

#define FMT_COMMON                                                                     \
	"format:\n"                                                                    \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Linux 6.x's formats, print formats shortened. */
static const char switch_fmt[] =
	"name: sched_switch\nID: 372\n" FMT_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";

static const char waking_fmt[] =
	"name: sched_waking\nID: 375\n" FMT_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";

static char path[64];
static bool swap;
static struct syn_rec rec;
static struct amb_buf ring;

/* ---- writing a recording ---------------------------------------------------------- */

static void put_event(struct amb_buf *b, const char *name, uint32_t type, uint64_t config,
		      uint64_t id, bool context_switch)
{
	struct perf_event_attr a, img;
	uint8_t ids[8];
	struct amb_event_entry e;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 1;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.context_switch = context_switch;
	ana_attr_to_host(&img, (const uint8_t *)&a, sizeof(a), swap);
	amb_put_le64(ids, id);
	e = (struct amb_event_entry){
		.attr = (const uint8_t *)&img, .attr_size = sizeof(img), .name = name,
		.name_len = (uint32_t)strlen(name), .leader = UINT32_MAX, .nr_ids = 1, .ids = ids,
	};
	assert_int_equal(amb_event_put(b, &e), 0);
}

static void append(struct amb_writer *w, uint16_t type, uint32_t stream, const struct amb_buf *b)
{
	struct amb_block_desc d = { type, stream, 1, 0, 0 };

	assert_int_equal(amb_writer_append(w, &d, b->data, b->len), 0);
}

/* A sample of @id by @tid at @time on CPU 0 with the payload @raw of @n bytes. */
static void sample(uint64_t id, uint32_t tid, uint64_t time, const uint8_t *raw, uint32_t n)
{
	static const uint8_t zeros[8];
	uint32_t padded = (uint32_t)((n + 4 + 7) / 8 * 8 - 4);

	syn_begin(&rec, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	syn_u64(&rec, id);
	syn_u64(&rec, 0xffffffff81000100ull);
	syn_u32(&rec, tid);
	syn_u32(&rec, tid);
	syn_u64(&rec, time);
	syn_u32(&rec, 0);
	syn_u32(&rec, 0);
	syn_u64(&rec, id == ID_CLOCK ? 1000 : 1);
	syn_u32(&rec, padded);
	syn_raw(&rec, raw, n);
	syn_raw(&rec, zeros, padded - n);
	syn_end(&rec);
	assert_int_equal(amb_buf_append(&ring, rec.b, rec.len), 0);
}

/* Payload fields in the producer's byte order. */
static void put16(uint8_t *p, uint16_t v)
{
	v = swap ? bswap_16(v) : v;
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = swap ? bswap_32(v) : v;
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = swap ? bswap_64(v) : v;
	memcpy(p, &v, 8);
}

/* sched_switch in the context of the sample's @tid (-1 for an exiting
 * task): @prev leaves in @state, @next comes in. */
static void sw_as(uint64_t time, uint32_t tid, uint32_t prev, uint64_t state, uint32_t next)
{
	uint8_t p[64] = { 0 };

	put16(p, TP_SWITCH);
	put32(p + 24, prev);
	put64(p + 32, state);
	put32(p + 56, next);
	sample(ID_SWITCH, tid, time, p, sizeof(p));
}

static void sw(uint64_t time, uint32_t prev, uint64_t state, uint32_t next)
{
	sw_as(time, prev, prev, state, next);
}

/* sched_waking in @waker's context, of @wakee. */
static void waking(uint64_t time, uint32_t waker, uint32_t wakee)
{
	uint8_t p[36] = { 0 };

	put16(p, TP_WAKING);
	put32(p + 24, wakee);
	sample(ID_WAKING, waker, time, p, sizeof(p));
}

static void clock_sample(uint64_t time, uint32_t tid)
{
	uint8_t p[4] = { 0 };

	sample(ID_CLOCK, tid, time, p, sizeof(p));
}

/* A context-switch record of @tid: out (preempted or not) or in. */
static void switch_rec(uint64_t time, uint32_t tid, bool out, bool preempt)
{
	syn_begin(&rec, PERF_RECORD_SWITCH, (out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
		  (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0));
	syn_sample_id(&rec, ST, tid, tid, time, ID_CLOCK, 0);
	syn_end(&rec);
	assert_int_equal(amb_buf_append(&ring, rec.b, rec.len), 0);
}

static void exit_rec(uint64_t time, uint32_t tid)
{
	syn_fork(&rec, PERF_RECORD_EXIT, ST, tid, tid, tid, tid, time, ID_CLOCK, 0);
	assert_int_equal(amb_buf_append(&ring, rec.b, rec.len), 0);
}

/* A new thread @tid of process @tid, created by @parent. */
static void fork_rec(uint64_t time, uint32_t tid, uint32_t parent)
{
	syn_fork(&rec, PERF_RECORD_FORK, ST, tid, parent, tid, parent, time, ID_CLOCK, 0);
	assert_int_equal(amb_buf_append(&ring, rec.b, rec.len), 0);
}

/* Start a recording of @target ("system-wide", "command x"); with
 * @with_sched its sched events, with @switches context-switch records. */
static struct amb_writer *begin(const char *target, bool with_sched, bool switches)
{
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 1);
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_writer *w;

	snprintf(path, sizeof(path), "/tmp/amber-test-sched-%d.amber", (int)getpid());
	unlink(path);
	o.producer_endian = (amb_host_is_le() != swap) ? AMB_ENDIAN_LITTLE : AMB_ENDIAN_BIG;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	rec.swap = swap;
	assert_int_equal(amb_kv_put_str(&b, "target", target), 0);
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, &b);
	amb_buf_reset(&b);
	put_event(&b, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, ID_CLOCK, switches);
	if (with_sched) {
		put_event(&b, "sched:sched_switch", PERF_TYPE_TRACEPOINT, TP_SWITCH, ID_SWITCH, false);
		put_event(&b, "sched:sched_waking", PERF_TYPE_TRACEPOINT, TP_WAKING, ID_WAKING, false);
	}
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, &b);
	amb_buf_reset(&b);
	assert_int_equal(amb_kv_put(&b, "sched/sched_switch", switch_fmt, strlen(switch_fmt)), 0);
	assert_int_equal(amb_kv_put(&b, "sched/sched_waking", waking_fmt, strlen(waking_fmt)), 0);
	append(w, AMB_BLOCK_TRACEFS, AMB_STREAM_NONE, &b);
	amb_buf_free(&b);
	amb_buf_reset(&ring);
	return w;
}

/* The RING block with the span of its records' times, @first to @last
 * (0, 0: none said), which --time ranges are resolved against. */
static void finish_span(struct amb_writer *w, uint64_t first, uint64_t last)
{
	struct amb_block_desc d = { AMB_BLOCK_RING, 0, 1, first, last };

	assert_int_equal(amb_writer_append(w, &d, ring.data, ring.len), 0);
	assert_int_equal(amb_writer_close(w), 0);
}

static void finish(struct amb_writer *w)
{
	finish_span(w, 0, 0);
}

/* ---- collecting what the model hands over ------------------------------------------ */

struct got {
	struct ana_sched_wait waits[16];
	struct ana_sched_run runs[16];
	uint32_t wait_tid[16], waker_tid[16], run_tid[16];
	bool wait_stack[16];
	unsigned nr_waits, nr_runs, samples;
};

static int on_wait(void *ctx, const struct ana_sched_wait *w)
{
	struct got *g = ctx;

	assert_true(g->nr_waits < 16);
	g->wait_tid[g->nr_waits] = ana_thread_tid(w->t);
	g->waker_tid[g->nr_waits] = w->waker ? ana_thread_tid(w->waker) : 0;
	g->wait_stack[g->nr_waits] = w->out && w->out->nr_callchain == 0 && w->out->ip;
	g->waits[g->nr_waits++] = *w;
	return 0;
}

static int on_run(void *ctx, const struct ana_sched_run *r)
{
	struct got *g = ctx;

	assert_true(g->nr_runs < 16);
	g->run_tid[g->nr_runs] = ana_thread_tid(r->t);
	g->runs[g->nr_runs++] = *r;
	return 0;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct got *g = ctx;

	assert_int_equal(s->evt->index, 0);
	g->samples++;
	return 0;
}

/* Run the model on the recording with filters @tid and @time (NULL: none). */
static void run(struct got *g, const char *tid, const char *time, struct ana_sched_stats *st)
{
	struct ana_sched_ops ops = { on_wait, on_run, on_sample };
	struct ana_pipeline_opts o;
	struct ana_sched *s;

	memset(g, 0, sizeof(*g));
	ana_pipeline_opts_init(&o);
	if (tid)
		assert_int_equal(ana_filter_set(&o.filter, ANA_FILTER_TID, tid), 0);
	if (time)
		assert_int_equal(ana_filter_set(&o.filter, ANA_FILTER_TIME, time), 0);
	assert_int_equal(ana_sched_open(path, &o, ANA_SCHED_NEED_SWITCH_TP, &s), 0);
	assert_int_equal(ana_sched_run(s, &ops, g), 0);
	if (st)
		ana_sched_get_stats(s, st);
	ana_sched_close(s);
	ana_pipeline_opts_free(&o);
}

/* ---- the scenarios ----------------------------------------------------------------- */

/*
 * Recording the threads of a command (A 100, B 101, C 102), with
 * context-switch records for the switch-ins: A sleeps, B wakes it, it
 * runs, is preempted, runs again, sleeps to the end; B exits.
 */
static void write_command(void)
{
	struct amb_writer *w = begin("command x", true, true);

	sw(1000, 100, 0x1, 999);            /* A out, S; 999 is no target */
	switch_rec(1001, 100, true, false); /* the same switch, as a record */
	clock_sample(1100, 101);
	waking(1500, 101, 100);             /* B wakes A */
	switch_rec(1600, 100, false, false);/* A in */
	clock_sample(1700, 100);
	sw(2000, 100, 0x100, 101);          /* A preempted (R+), B (a target) in */
	switch_rec(2001, 100, true, true);
	switch_rec(2002, 101, false, false);/* the same switch-in, as a record */
	switch_rec(2500, 100, false, false);/* A in */
	exit_rec(3000, 101);                /* B's last run ends */
	sw(4000, 100, 0x1, 0);              /* A sleeps to the end */
	clock_sample(5000, 102);
	finish_span(w, 1000, 5000);
}

static void test_command(void **state)
{
	struct ana_sched_stats st;
	struct got g;

	(void)state;
	write_command();
	run(&g, NULL, NULL, &st);
	assert_int_equal(g.samples, 3);
	assert_int_equal(g.nr_waits, 3);
	/* Slept from 1000, woken by B at 1500, ran at 1600. */
	assert_int_equal(g.wait_tid[0], 100);
	assert_int_equal(g.waits[0].out_time, 1000);
	assert_int_equal(g.waits[0].ready_time, 1500);
	assert_int_equal(g.waits[0].in_time, 1600);
	assert_int_equal(g.waits[0].state, ANA_SCHED_SLEEPING);
	assert_int_equal(g.waker_tid[0], 101);
	assert_false(g.waits[0].open);
	assert_true(g.wait_stack[0]);
	/* Preempted: runnable from the switch-out. */
	assert_int_equal(g.waits[1].out_time, 2000);
	assert_int_equal(g.waits[1].ready_time, 2000);
	assert_int_equal(g.waits[1].in_time, 2500);
	assert_int_equal(g.waits[1].state, ANA_SCHED_RUNNABLE);
	/* Still asleep when the recording ended. */
	assert_int_equal(g.waits[2].out_time, 4000);
	assert_int_equal(g.waits[2].in_time, 5000);
	assert_true(g.waits[2].open);
	/* Runs: A 1600..2000 (after its sleep), B 2000..3000 (its exit),
	 * A 2500..4000; 999 never counts. */
	assert_int_equal(g.nr_runs, 3);
	assert_int_equal(g.run_tid[0], 100);
	assert_int_equal(g.runs[0].in_time, 1600);
	assert_int_equal(g.runs[0].out_time, 2000);
	assert_int_equal(g.runs[0].state, ANA_SCHED_RUNNABLE);
	assert_int_equal(g.runs[0].wait_out_time, 1000);
	assert_int_equal(g.runs[0].wait_ready_time, 1500);
	assert_int_equal(g.run_tid[1], 101);
	assert_int_equal(g.runs[1].in_time, 2000);
	assert_int_equal(g.runs[1].out_time, 3000);
	assert_int_equal(g.runs[1].state, ANA_SCHED_DEAD);
	assert_int_equal(g.run_tid[2], 100);
	assert_int_equal(g.runs[2].in_time, 2500);
	assert_int_equal(g.runs[2].out_time, 4000);
	assert_int_equal(g.runs[2].state, ANA_SCHED_SLEEPING);
	/* Three switch-outs of A (its records count once), none lost. */
	assert_int_equal(st.switches, 3);
	assert_int_equal(st.unmatched, 0);
	assert_int_equal(st.first_time, 1000);
	assert_int_equal(st.last_time, 5000);
}

static void test_filters(void **state)
{
	struct got g;

	(void)state;
	write_command();
	/* --tid: B's run only. */
	run(&g, "101", NULL, NULL);
	assert_int_equal(g.nr_waits, 0);
	assert_int_equal(g.nr_runs, 1);
	assert_int_equal(g.run_tid[0], 101);
	assert_int_equal(g.samples, 1);
	/* --time from the recording's start (1000 ns): 1550..2600 ns. */
	run(&g, NULL, "+0.00000055,+0.0000016", NULL);
	assert_int_equal(g.nr_waits, 2);
	assert_int_equal(g.waits[0].start, 1550);
	assert_int_equal(g.waits[0].end, 1600);
	assert_int_equal(g.waits[0].out_time, 1000);   /* unclipped */
	assert_int_equal(g.waits[1].start, 2000);
	assert_int_equal(g.waits[1].end, 2500);
	assert_int_equal(g.samples, 1);                 /* A's at 1700 */
	assert_int_equal(g.nr_runs, 3);                 /* each reaches into it */
	assert_int_equal(g.runs[1].start, 2000);
	assert_int_equal(g.runs[1].end, 2600);
	assert_int_equal(g.runs[2].start, 2500);
	assert_int_equal(g.runs[2].end, 2600);
	/* Several --time ranges would split waits: refused, said. */
	{
		struct ana_pipeline_opts o;
		struct ana_sched *s = NULL;

		ana_pipeline_opts_init(&o);
		assert_int_equal(ana_filter_set(&o.filter, ANA_FILTER_TIME,
						"+0.0000005,+0.000001 +0.000002,+0.000003"), 0);
		assert_int_equal(ana_sched_open(path, &o, ANA_SCHED_NEED_SWITCH_TP, &s), -EINVAL);
		assert_null(s);
		assert_non_null(strstr(amb_errmsg(), "the scheduler's views take one range"));
		ana_pipeline_opts_free(&o);
	}
}

/* The other byte order: the payloads are the producer's too. */
static void test_swapped(void **state)
{
	struct got g;

	(void)state;
	swap = true;
	write_command();
	swap = false;
	run(&g, NULL, NULL, NULL);
	assert_int_equal(g.nr_waits, 3);
	assert_int_equal(g.waits[0].ready_time, 1500);
	assert_int_equal(g.waker_tid[0], 101);
	assert_int_equal(g.waits[1].state, ANA_SCHED_RUNNABLE);
	assert_int_equal(g.nr_runs, 3);
}

/*
 * System-wide, sched_switch only: switch-ins are next_pid; one that the
 * kernel did not record (X 50 runs again without being switched in) is
 * put at the CPU's last switch.
 */
static void test_system_wide(void **state)
{
	struct ana_sched_stats st;
	struct amb_writer *w;
	struct got g;

	(void)state;
	w = begin("system-wide", true, false);
	sw(100, 50, 0, 51);       /* X preempted, Y in */
	sw(200, 51, 0x2, 0);      /* Y blocks (D), idle */
	sw(300, 50, 0x1, 0);      /* X again: its switch-in is missing */
	waking(350, 52, 51);      /* Z wakes Y */
	sw(400, 0, 0, 51);        /* idle hands over to Y */
	exit_rec(450, 51);        /* Y exits; preempted on its way out, */
	sw_as(460, UINT32_MAX, 51, 0x100, 0);   /* in samples of no thread, */
	sw(470, 0, 0, 51);
	sw_as(500, UINT32_MAX, 51, 0x10, 0);    /* and gone (X): no wait follows */
	finish(w);
	run(&g, NULL, NULL, &st);
	assert_int_equal(st.unmatched, 1);
	/* X: preempted at 100, back (inferred) at 200 when Y left. */
	assert_int_equal(g.wait_tid[0], 50);
	assert_int_equal(g.waits[0].in_time, 200);
	assert_true(g.waits[0].inferred);
	assert_int_equal(g.wait_tid[1], 51);
	assert_int_equal(g.waits[1].state, ANA_SCHED_BLOCKED);
	assert_int_equal(g.waits[1].ready_time, 350);
	assert_int_equal(g.waits[1].in_time, 400);
	assert_int_equal(g.waker_tid[1], 52);
	assert_false(g.waits[1].inferred);
	/* Y's preemption on its way out (prev_pid names it), then X asleep
	 * at the end; Y's exit opens nothing. */
	assert_int_equal(g.nr_waits, 4);
	assert_int_equal(g.wait_tid[2], 51);
	assert_int_equal(g.waits[2].out_time, 460);
	assert_int_equal(g.waits[2].in_time, 470);
	assert_int_equal(g.wait_tid[3], 50);
	assert_true(g.waits[3].open);
	/* Runs: Y 100..200, X 200..300, Y 400..460 and 470..500 (dead),
	 * none left open. */
	assert_int_equal(g.nr_runs, 4);
	assert_int_equal(g.run_tid[1], 50);
	assert_int_equal(g.runs[1].in_time, 200);
	assert_int_equal(g.run_tid[2], 51);
	assert_int_equal(g.runs[2].in_time, 400);
	assert_int_equal(g.runs[2].out_time, 460);
	assert_int_equal(g.runs[3].in_time, 470);
	assert_int_equal(g.runs[3].out_time, 500);
	assert_int_equal(g.runs[3].state, ANA_SCHED_DEAD);
	assert_false(g.runs[3].open);
}

/*
 * Recording a command, the kernel writes a thread's EXIT record as its
 * events go away, and the exit goes on: other targets' samples may still
 * wake it and switch it in, but its own switch-outs are no longer
 * recorded.  Its life ends at the record: what comes after is no wait
 * from its last switch-out (one already handed over) and no run to the
 * recording's end.  Then the tid is created again, and the new thread's
 * first wait starts at its wakeup.  A 100, B 101, C 102.
 */
static void write_exit_then_switched_in(void)
{
	struct amb_writer *w = begin("command x", true, true);

	sw(1000, 100, 0x1, 101);            /* A sleeps, B in */
	waking(1100, 101, 100);             /* B wakes A */
	sw(1200, 101, 0x1, 100);            /* B sleeps, A in */
	clock_sample(1250, 100);
	exit_rec(1300, 100);                /* A's events go: its last run ends */
	waking(1400, 102, 100);             /* the exiting A, woken by C, */
	sw_as(1450, UINT32_MAX, 100, 0x100, 102);  /* in a sample of no thread, */
	sw(1500, 102, 0x100, 100);          /* switched in; never out */
	switch_rec(1550, 102, false, false);/* C in */
	fork_rec(1600, 100, 102);           /* tid 100 again: a new thread */
	waking(1700, 102, 100);
	sw(1800, 102, 0x100, 100);          /* C preempted, the new A in */
	exit_rec(1900, 100);
	clock_sample(2000, 101);
	finish_span(w, 1000, 2000);
}

/* The wall clock's time per thread: waits and scaled on-CPU samples. */
static int sum_tid_100(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	if (ana_thread_tid(t) == 100)
		*(uint64_t *)ctx += s->period;
	return 0;
}

static void test_exit_then_switched_in(void **state)
{
	struct ana_pipeline_opts o;
	struct ana_offcpu *oc;
	uint64_t wall = 0;
	struct got g;

	(void)state;
	write_exit_then_switched_in();
	run(&g, "100", NULL, NULL);
	/* A's sleep, then the new thread's first wait, from its wakeup. */
	assert_int_equal(g.nr_waits, 2);
	assert_int_equal(g.waits[0].out_time, 1000);
	assert_int_equal(g.waits[0].ready_time, 1100);
	assert_int_equal(g.waits[0].in_time, 1200);
	assert_int_equal(g.waits[1].out_time, 0);
	assert_int_equal(g.waits[1].ready_time, 1700);
	assert_int_equal(g.waits[1].start, 1700);
	assert_int_equal(g.waits[1].in_time, 1800);
	assert_false(g.waits[1].open);
	/* A's run to its exit record, the new thread's to its own; none open. */
	assert_int_equal(g.nr_runs, 2);
	assert_int_equal(g.runs[0].in_time, 1200);
	assert_int_equal(g.runs[0].out_time, 1300);
	assert_int_equal(g.runs[0].state, ANA_SCHED_DEAD);
	assert_int_equal(g.runs[1].in_time, 1800);
	assert_int_equal(g.runs[1].out_time, 1900);
	assert_int_equal(g.runs[1].wait_out_time, 0);
	assert_int_equal(g.runs[1].wait_ready_time, 1700);
	assert_false(g.runs[1].open);
	/* The wall clock adds up to the two lives: 1000..1300 and
	 * 1700..1900, A's one sample scaled to the 200 ns they ran. */
	ana_pipeline_opts_init(&o);
	assert_int_equal(ana_offcpu_open(path, &o, ANA_OFFCPU_WALL, &oc), 0);
	assert_int_equal(ana_offcpu_run(oc, sum_tid_100, &wall), 0);
	assert_int_equal(wall, 500);
	ana_offcpu_close(oc);
	ana_pipeline_opts_free(&o);
}

/* System-wide, a thread's last switch-out (X) ends it; a new thread of
 * the same tid waits from its wakeup, not from the old one's last
 * switch-out. */
static void test_tid_reused(void **state)
{
	struct amb_writer *w;
	struct got g;

	(void)state;
	w = begin("system-wide", true, false);
	sw(100, 51, 0x1, 0);      /* Y sleeps */
	waking(150, 52, 51);
	sw(200, 0, 0, 51);        /* Y in */
	sw(300, 51, 0x10, 0);     /* Y gone */
	waking(400, 52, 51);      /* a new 51 */
	sw(500, 0, 0, 51);
	sw(600, 51, 0x10, 0);
	finish(w);
	run(&g, NULL, NULL, NULL);
	assert_int_equal(g.nr_waits, 2);
	assert_int_equal(g.waits[0].out_time, 100);
	assert_int_equal(g.waits[0].in_time, 200);
	assert_int_equal(g.waits[1].out_time, 0);
	assert_int_equal(g.waits[1].start, 400);
	assert_int_equal(g.waits[1].in_time, 500);
	assert_int_equal(g.nr_runs, 2);
	assert_int_equal(g.runs[1].wait_out_time, 0);
	assert_int_equal(g.runs[1].wait_ready_time, 400);
}

/* A model runs again from the recording's start, as the wall clock's
 * two passes need. */
static void test_two_runs(void **state)
{
	struct ana_sched_ops ops = { on_wait, on_run, on_sample };
	struct ana_pipeline_opts o;
	struct ana_sched *s;
	struct got a, b;

	(void)state;
	write_command();
	ana_pipeline_opts_init(&o);
	assert_int_equal(ana_sched_open(path, &o, 0, &s), 0);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(ana_sched_run(s, &ops, &a), 0);
	assert_int_equal(ana_sched_run(s, &ops, &b), 0);
	assert_int_equal(a.nr_waits, 3);
	assert_int_equal(b.nr_waits, a.nr_waits);
	assert_int_equal(b.nr_runs, a.nr_runs);
	assert_int_equal(b.samples, a.samples);
	for (unsigned i = 0; i < a.nr_waits; i++) {
		assert_int_equal(b.waits[i].out_time, a.waits[i].out_time);
		assert_int_equal(b.waits[i].in_time, a.waits[i].in_time);
	}
	ana_sched_close(s);
	ana_pipeline_opts_free(&o);
}

static void test_no_sched_events(void **state)
{
	struct ana_pipeline_opts o;
	struct ana_sched *s;
	struct amb_writer *w;

	(void)state;
	w = begin("command x", false, false);
	clock_sample(100, 7);
	finish(w);
	ana_pipeline_opts_init(&o);
	assert_int_equal(ana_sched_open(path, &o, 0, &s), -ENODATA);
	assert_null(s);
	assert_non_null(strstr(amb_errmsg(), "no sched:sched_switch samples"));
	assert_non_null(strstr(amb_errmsg(), "amber-rec --off-cpu"));
	/* Context-switch records alone serve what needs no stack. */
	w = begin("command x", false, true);
	switch_rec(100, 7, true, true);
	switch_rec(200, 7, false, false);
	finish(w);
	assert_int_equal(ana_sched_open(path, &o, ANA_SCHED_NEED_SWITCH_TP, &s), -ENODATA);
	assert_non_null(strstr(amb_errmsg(), "only context-switch records"));
	assert_int_equal(ana_sched_open(path, &o, 0, &s), 0);
	ana_sched_close(s);
	ana_pipeline_opts_free(&o);
}

static void test_states(void **state)
{
	(void)state;
	assert_int_equal(ana_sched_state_of(0), ANA_SCHED_RUNNABLE);
	assert_int_equal(ana_sched_state_of(0x100), ANA_SCHED_RUNNABLE);
	assert_int_equal(ana_sched_state_of(0x1), ANA_SCHED_SLEEPING);
	assert_int_equal(ana_sched_state_of(0x2), ANA_SCHED_BLOCKED);
	assert_int_equal(ana_sched_state_of(0x102), ANA_SCHED_BLOCKED);
	assert_int_equal(ana_sched_state_of(0x4), ANA_SCHED_STOPPED);
	assert_int_equal(ana_sched_state_of(0x8), ANA_SCHED_STOPPED);
	assert_int_equal(ana_sched_state_of(0x10), ANA_SCHED_DEAD);
	assert_int_equal(ana_sched_state_of(0x20), ANA_SCHED_DEAD);
	assert_int_equal(ana_sched_state_of(0x40), ANA_SCHED_PARKED);
	assert_int_equal(ana_sched_state_of(0x80), ANA_SCHED_IDLE);
	assert_int_equal(ana_sched_state_letter(ANA_SCHED_BLOCKED), 'D');
	assert_string_equal(ana_sched_state_name(ANA_SCHED_SLEEPING), "sleeping");
	assert_int_equal(ana_sched_state_letter(ANA_SCHED_NR_STATES), '?');
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	amb_buf_free(&ring);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_exit_then_switched_in),
		cmocka_unit_test(test_tid_reused),
		cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_no_sched_events),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}

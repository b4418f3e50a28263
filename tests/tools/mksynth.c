// SPDX-License-Identifier: MIT
/*
 * tests/tools/mksynth.c - write a small, fully deterministic recording of
 * synthetic perf records, for the dump and info CLI tests.
 *
 * usage: mksynth [--swap | --hostile] OUT
 *
 * Two CPUs, two events (cpu-clock with callchains; a tracepoint with RAW
 * data), SYNTH records (COMM, FORK, MMAP2 with and without build-id), and in
 * the rings samples, COMM with exec, EXIT, LOST, LOST_SAMPLES, THROTTLE,
 * UNTHROTTLE and SWITCH_CPU_WIDE.  --swap writes the perf records and attrs
 * in the byte order other than the host's, as a producer of that order
 * would.  --hostile gives every recorded string (commands, paths, host,
 * command line, event names, a META key, a build-id path) terminal escape
 * sequences, C1 controls, newlines, the report's key separator and bytes
 * that are not UTF-8, as any process can (prctl(PR_SET_NAME), file
 * names): testdata/hostile/escapes.amber.  The uuid and creation time are fixed, so the file is the same on
 * every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include <amber/format.h>
#include "tests/unit/analyze/synth.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ST_TP (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
/* The sample_id_all trailer: the bits ST and ST_TP share. */
#define ST_ID (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

#define T0 1000000000000ull   /* recording start, ns */
#define ID_CLOCK0 11          /* cpu-clock ids, one per CPU */
#define ID_TP0 21             /* tracepoint ids */

static bool swap, hostile;

/* @plain, or with --hostile @evil. */
static const char *str(const char *plain, const char *evil)
{
	return hostile ? evil : plain;
}

/* Store @v of @width (4 or 8) bytes at @b + @off in the producer's order. */
static void put(uint8_t *b, size_t off, unsigned width, uint64_t v)
{
	if (width == 8) {
		uint64_t x = swap ? bswap_64(v) : v;

		memcpy(b + off, &x, 8);
	} else {
		uint32_t x = swap ? bswap_32((uint32_t)v) : (uint32_t)v;

		memcpy(b + off, &x, 4);
	}
}

static uint8_t reverse_bits(uint8_t b)
{
	uint8_t r = 0;

	for (int i = 0; i < 8; i++)
		if (b & (1u << i))
			r |= (uint8_t)(0x80u >> i);
	return r;
}

/*
 * A perf_event_attr image in the producer's order, built from the ABI: on a
 * producer of the other byte order every field is byte-reversed and the
 * bitfields are allocated from the most significant bit of each byte.
 */
static void put_attr(uint8_t img[128], uint32_t type, uint64_t config, uint64_t sample_type)
{
	uint64_t flags = 1ull << 0 |    /* disabled */
			 1ull << 8 |    /* mmap */
			 1ull << 9 |    /* comm */
			 1ull << 18 |   /* sample_id_all */
			 1ull << 23;    /* task */

	memset(img, 0, 128);
	put(img, 0, 4, type);
	put(img, 4, 4, 128);
	put(img, 8, 8, config);
	put(img, 16, 8, type == PERF_TYPE_TRACEPOINT ? 1 : 250000);
	put(img, 24, 8, sample_type);
	for (int i = 0; i < 8; i++) {
		uint8_t byte = (uint8_t)(flags >> (8 * i));

		img[40 + i] = swap != !amb_host_is_le() ? reverse_bits(byte) : byte;
	}
}

static int append(struct amb_writer *w, uint16_t type, uint32_t stream, uint64_t count,
		  uint64_t t0, uint64_t t1, struct amb_buf *b)
{
	struct amb_block_desc d = { type, stream, count, t0, t1 };
	int err = amb_writer_append(w, &d, b->data, b->len);

	amb_buf_reset(b);
	return err;
}

static int add(struct amb_buf *b, const struct syn_rec *s, uint64_t *count)
{
	(*count)++;
	return amb_buf_append(b, s->b, s->len);
}

/* The records of one CPU's ring, each with its time in @t. */
static int ring(struct amb_writer *w, struct amb_buf *b, struct syn_rec *s, uint32_t cpu)
{
	uint64_t n = 0, t = T0 + 1000 + cpu * 100, first = t;
	uint32_t pid = 100 + cpu;
	int err = 0;

	syn_comm(s, ST_ID, pid, pid,
		 cpu ? str("worker", "w\nforged 1\x1f" "2\r\b") : str("main", "\x1b]0;owned\x07m\x1b[31m"),
		 true, t, ID_CLOCK0 + cpu, cpu);
	if (!err)
		err = add(b, s, &n);
	for (int i = 0; i < 6; i++) {
		t += 1000000;
		syn_begin(s, PERF_RECORD_SAMPLE, i & 1 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
		syn_u64(s, ID_CLOCK0 + cpu);
		syn_u64(s, i & 1 ? 0xffffffff81001000ull + (uint64_t)i : 0x401000u + (uint64_t)i);
		syn_u32(s, pid);
		syn_u32(s, pid);
		syn_u64(s, t);
		syn_u32(s, cpu);
		syn_u32(s, 0);
		syn_u64(s, 250000);
		syn_u64(s, 5);
		syn_u64(s, (uint64_t)PERF_CONTEXT_KERNEL);
		syn_u64(s, 0xffffffff81001000ull + (uint64_t)i);
		syn_u64(s, (uint64_t)PERF_CONTEXT_USER);
		syn_u64(s, 0x401000u + (uint64_t)i);
		syn_u64(s, 0x402000u);
		syn_end(s);
		if (!err)
			err = add(b, s, &n);

		t += 500;
		syn_begin(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
		syn_u64(s, ID_TP0 + cpu);
		syn_u64(s, 0xffffffff81002000ull);
		syn_u32(s, pid);
		syn_u32(s, pid);
		syn_u64(s, t);
		syn_u32(s, cpu);
		syn_u32(s, 0);
		syn_u64(s, 1);
		syn_u32(s, 20);         /* raw: 4 + 20 bytes fill three u64s */
		syn_raw(s, "\x01\x02\x03\x04sched-switch-data", 20);
		syn_end(s);
		if (!err)
			err = add(b, s, &n);
	}
	t += 100;
	syn_begin(s, PERF_RECORD_SWITCH_CPU_WIDE,
		  PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	syn_u32(s, 0);
	syn_u32(s, 0);
	syn_sample_id(s, ST_ID, pid, pid, t, ID_CLOCK0 + cpu, cpu);
	syn_end(s);
	if (!err)
		err = add(b, s, &n);
	t += 100;
	syn_begin(s, PERF_RECORD_THROTTLE, 0);
	syn_u64(s, t);
	syn_u64(s, ID_CLOCK0 + cpu);
	syn_u64(s, ID_CLOCK0 + cpu);
	syn_sample_id(s, ST_ID, UINT32_MAX, UINT32_MAX, t, ID_CLOCK0 + cpu, cpu);
	syn_end(s);
	if (!err)
		err = add(b, s, &n);
	t += 100;
	syn_begin(s, PERF_RECORD_UNTHROTTLE, 0);
	syn_u64(s, t);
	syn_u64(s, ID_CLOCK0 + cpu);
	syn_u64(s, ID_CLOCK0 + cpu);
	syn_sample_id(s, ST_ID, UINT32_MAX, UINT32_MAX, t, ID_CLOCK0 + cpu, cpu);
	syn_end(s);
	if (!err)
		err = add(b, s, &n);
	t += 100;
	syn_begin(s, PERF_RECORD_LOST, 0);
	syn_u64(s, ID_CLOCK0 + cpu);
	syn_u64(s, 3 + cpu);
	syn_sample_id(s, ST_ID, UINT32_MAX, UINT32_MAX, t, ID_CLOCK0 + cpu, cpu);
	syn_end(s);
	if (!err)
		err = add(b, s, &n);
	t += 100;
	syn_begin(s, PERF_RECORD_LOST_SAMPLES, 0);
	syn_u64(s, 7);
	syn_sample_id(s, ST_ID, pid, pid, t, ID_CLOCK0 + cpu, cpu);
	syn_end(s);
	if (!err)
		err = add(b, s, &n);
	t += 100;
	syn_fork(s, PERF_RECORD_EXIT, ST_ID, pid, 1, pid, 1, t, ID_CLOCK0 + cpu, cpu);
	if (!err)
		err = add(b, s, &n);
	if (err)
		return err;
	return append(w, AMB_BLOCK_RING, cpu, n, first, t, b);
}

int main(int argc, char **argv)
{
	static const uint8_t uuid[16] = { 0xa3, 0x8b, 0x5e, 0x10, 0x22, 0x4c, 0x4d, 0x0e,
					  0x91, 0x7f, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04,
					 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
					 0x0e, 0x0f };
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_writer *w = NULL;
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_event_entry e;
	struct syn_rec *s;
	uint8_t img[128], ids[16];
	const char *out;
	uint64_t n = 0;
	int err = 0;

	if (argc == 3 && !strcmp(argv[1], "--swap")) {
		swap = true;
		out = argv[2];
	} else if (argc == 3 && !strcmp(argv[1], "--hostile")) {
		hostile = true;
		out = argv[2];
	} else if (argc == 2) {
		out = argv[1];
	} else {
		fprintf(stderr, "usage: mksynth [--swap | --hostile] OUT\n");
		return 2;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return 1;
	s->swap = swap;
	o.threads = 0;
	o.uuid = uuid;
	o.created_ns = 1767225600ull * 1000000000ull;  /* 2026-01-01 00:00:00 UTC */
	o.producer_endian = amb_host_is_le() != swap ? AMB_ENDIAN_LITTLE : AMB_ENDIAN_BIG;
	err = amb_writer_open(out, &o, &w);
	if (err)
		goto out;

	if (!err)
		err = amb_kv_put_str(&b, "amber.version", "mksynth");
	if (!err)
		err = amb_kv_put_str(&b, "hostname", str("synth-host", "h\x1b[2J\xc2\x9b" "31m\xff"));
	if (!err)
		err = amb_kv_put_str(&b, "clock", "monotonic");
	if (!err)
		err = amb_kv_put_str(&b, "cmdline", "mksynth\nsecond line");
	if (!err && hostile)
		err = amb_kv_put_str(&b, "key\x1b[8m", "v\x07");
	if (err || (err = append(w, AMB_BLOCK_META, AMB_STREAM_NONE, hostile ? 5 : 4, 0, 0, &b)))
		goto out;

	put_attr(img, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, ST);
	amb_put_le64(ids, ID_CLOCK0);
	amb_put_le64(ids + 8, ID_CLOCK0 + 1);
	e = (struct amb_event_entry){ img, sizeof(img), str("cpu-clock", "cpu\x1b[5m-clock"),
				      hostile ? 13 : 9, UINT32_MAX, AMB_EVENT_FALLBACK, 2, ids };
	if (!err)
		err = amb_event_put(&b, &e);
	put_attr(img, PERF_TYPE_TRACEPOINT, 316, ST_TP);
	amb_put_le64(ids, ID_TP0);
	amb_put_le64(ids + 8, ID_TP0 + 1);
	e = (struct amb_event_entry){ img, sizeof(img), "sched:sched_switch", 18, UINT32_MAX,
				      0, 2, ids };
	if (!err)
		err = amb_event_put(&b, &e);
	if (err || (err = append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 2, 0, 0, &b)))
		goto out;

	syn_comm(s, ST_ID, 1, 1, str("init", "\xc2\x9d" "0;t\xc2\x9c"), false, T0, ID_CLOCK0, 0);
	if (!err)
		err = add(&b, s, &n);
	syn_fork(s, PERF_RECORD_FORK, ST_ID, 100, 1, 100, 1, T0, ID_CLOCK0, 0);
	if (!err)
		err = add(&b, s, &n);
	syn_mmap2(s, ST_ID, 100, 100, 0x400000, 0x3000, 0, bid, 20,
		  str("/usr/bin/synth", "/usr/bin/\x1b[1Asy\x9bnth"), T0, ID_CLOCK0, 0);
	if (!err)
		err = add(&b, s, &n);
	syn_mmap2(s, ST_ID, 100, 100, 0x7f0000000000ull, 0x200000, 0x1000, NULL, 0,
		  str("/usr/lib/libsynth.so", "/usr/lib/lib\nsynth\x1f.so"), T0, ID_CLOCK0, 0);
	if (!err)
		err = add(&b, s, &n);
	if (err || (err = append(w, AMB_BLOCK_SYNTH, AMB_STREAM_NONE, n, T0, T0, &b)))
		goto out;

	if (hostile) {
		struct amb_buildid_entry be = { bid, 20, AMB_DSO_USER,
						"/usr/bin/\x1b[1Asy\x9bnth", 19 };

		err = amb_buildid_put(&b, &be);
		if (err || (err = append(w, AMB_BLOCK_BUILDID, AMB_STREAM_NONE, 1, 0, 0, &b)))
			goto out;
	}
	err = ring(w, &b, s, 0);
	if (!err)
		err = ring(w, &b, s, 1);
out:
	if (w) {
		int cerr = amb_writer_close(w);

		err = err ? err : cerr;
	}
	amb_buf_free(&b);
	free(s);
	if (err) {
		fprintf(stderr, "mksynth: error: %s: %s\n", out, amb_strerror(err));
		return 1;
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_stat - the counts of a recording from another machine: the input
 * supplies COUNTS payloads (FORMAT.md §5.4) with their runs and windows,
 * and the META and TOPOLOGY values amber-analyze stat reads; they are
 * written into a valid file (the checksums would otherwise stop almost
 * every mutation at the reader) beside fixed events - clocks, hardware
 * events, a group, an unsupported event, a leader out of range - and
 * `amber-analyze stat` prints them every way: intervals and totals,
 * global, per CPU, thread and node, text, CSV and JSON.  The session's
 * COUNTS loader, view/counts_table.c and common/perf_stat.c meet every value a file
 * can hold: counts near 2^64, running > enabled, zero windows, unknown
 * events, CPUs and threads at UINT32_MAX.
 *
 * Input: byte 0 = options (bit 0: stat.title, bit 1: target system-wide,
 * bit 2: intervals, bits 3-4: stat.aggr, bit 5: a node per CPU), then
 * repeated { u8 run, u8 first_time, u8 window, u16 len (little-endian),
 * len bytes of COUNTS payload }.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "analyze/cmd/cmd.h"
#include "tests/fuzz/fuzz_scratch.h"

#define MAX_BLOCKS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);


static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch_init("stat", "in.amber", 0);
	/* The tables go to stdout, unchecked; stderr stays libFuzzer's. */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static void put_event(struct amb_buf *b, const char *name, uint32_t type, uint64_t config,
		      uint32_t leader, uint32_t flags)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = type, .config = config };
	uint8_t id[8] = { 0 };
	struct amb_event_entry e = {
		.attr = (const uint8_t *)&a, .attr_size = sizeof(a), .name = name,
		.name_len = (uint32_t)strlen(name), .leader = leader, .flags = flags,
		.nr_ids = 1, .ids = id,
	};

	amb_event_put(b, &e);
}

static void append(struct amb_writer *w, uint16_t type, uint32_t stream, uint64_t t0,
		   uint64_t t1, const void *p, size_t len)
{
	struct amb_block_desc d = { .type = type, .stream = stream, .first_time = t0,
				    .last_time = t1 };

	amb_writer_append(w, &d, len ? p : "", len);
}

static void write_file(const uint8_t *data, size_t size)
{
	static const char *const aggr[] = { "global", "cpu", "thread", "nodes?" };
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 0, .threads = 1);
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_writer *w;
	uint8_t opt = data[0];
	size_t pos = 1, n = 0;

	if (amb_writer_open(path, &o, &w))
		abort();
	if (opt & 1)
		amb_kv_put_str(&b, "stat.title", "'fuzz'");
	amb_kv_put_str(&b, "target", opt & 2 ? "system-wide" : "command fuzz");
	amb_kv_put_str(&b, "stat.interval_ms", opt & 4 ? "100" : "0");
	amb_kv_put_str(&b, "stat.aggr", aggr[opt >> 3 & 3]);
	amb_kv_put_str(&b, "stat.event.1.unsupported", "no hardware PMU");
	amb_kv_put_str(&b, "stat.comm.7", "worker");
	amb_kv_put_str(&b, "time.start_ns", "1000");
	amb_kv_put_str(&b, "time.end_ns", "900");
	amb_kv_put_str(&b, "stat.user_ns", "12");
	amb_kv_put_str(&b, "stat.sys_ns", "x");
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 0, 0, b.data, b.len);
	amb_buf_reset(&b);
	put_event(&b, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, UINT32_MAX, 0);
	put_event(&b, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 2);
	put_event(&b, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 0);
	put_event(&b, "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 99, 0);
	put_event(&b, "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, UINT32_MAX, 0);
	put_event(&b, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 5, 0);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 0, 0, b.data, b.len);
	amb_buf_reset(&b);
	if (opt & 32) {
		amb_kv_put_str(&b, "cpu.0.node", "0");
		amb_kv_put_str(&b, "cpu.1.node", "1");
		amb_kv_put_str(&b, "cpu.2.node", "-1");
		amb_kv_put_str(&b, "cpu.300.node", "4294967296");
		append(w, AMB_BLOCK_TOPOLOGY, AMB_STREAM_NONE, 0, 0, b.data, b.len);
	}
	while (pos + 5 <= size && n++ < MAX_BLOCKS) {
		size_t len = (size_t)data[pos + 3] | (size_t)data[pos + 4] << 8;
		uint8_t run = data[pos];
		uint64_t t0 = data[pos + 1] ? (uint64_t)data[pos + 1] << 24 : 0;
		uint64_t t1 = t0 + ((uint64_t)data[pos + 2] << 20);

		pos += 5;
		if (len > size - pos)
			len = size - pos;
		append(w, AMB_BLOCK_COUNTS, run == 0xff ? AMB_STREAM_NONE : run, t0, t1, data + pos,
		       len);
		pos += len;
	}
	amb_buf_free(&b);
	amb_writer_close(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const runs[][6] = {
		{ "stat", path, NULL },
		{ "stat", "--total", "--json", path, NULL },
		{ "stat", "-A", "-x", ";", path, NULL },
		{ "stat", "--per-node", "--total", path, NULL },
		{ "stat", "--per-thread", path, NULL },
		{ "info", path, NULL },
		{ "report", "--json", path, NULL },
	};

	if (size < 1)
		return 0;
	amb_set_warn(quiet, NULL);
	write_file(data, size);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(runs); i++) {
		int argc = 0;

		while (runs[i][argc])
			argc++;
		if (!strcmp(runs[i][0], "stat"))
			ana_cmd_stat(argc, (char **)runs[i]);
		else if (!strcmp(runs[i][0], "info"))
			ana_cmd_info(argc, (char **)runs[i]);
		else
			ana_cmd_report(argc, (char **)runs[i]);
	}
	unlink(path);
	return 0;
}

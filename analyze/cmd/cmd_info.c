// SPDX-License-Identifier: MIT
/*
 * analyze/info.c - `amber-analyze info FILE`: what a recording holds, from
 * its header, tables and block headers, without decoding records (unless
 * --records asks for exact counts).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include "common/perf_stat.h"
#include <amber/common.h>

static const char usage[] =
	"usage: amber-analyze info [--records] [FILE]\n"
	"\n"
	"Print the file header, the metadata, the events, the topology and the\n"
	"stored counts summed up, block counts and sizes per type and per stream\n"
	"(CPU), the time span, and every problem the reader stepped over (torn\n"
	"tail, bad checksums, missing trailer).\n"
	"\n"
	"  -r, --records  also decode every record for exact sample, lost and\n"
	"                 per-type counts (reads the whole file)\n"
	"  -h, --help     this help\n"
	"\n"
	"exit status: 0 success (problems are listed, not fatal); 2 usage error\n"
	"or the file cannot be opened.\n";

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case 3: return "i386";
	case 20: return "ppc";
	case 21: return "ppc64";
	case 22: return "s390";
	case 40: return "arm";
	case 62: return "x86_64";
	case 183: return "aarch64";
	case 243: return "riscv";
	default: return "unknown";
	}
}

/* "IP|TID|..." (view/describe.c, which report --header shares). */
static void print_sample_type(uint64_t st)
{
	struct amb_buf b = AMB_BUF_INIT;

	if (!ana_describe_sample_type(st, &b))
		fwrite(b.data, 1, b.len, stdout);
	amb_buf_free(&b);
}

/* The stored topology (FORMAT.md §5.7) summed up; -ENOMEM or 0. */
static int print_topology(const struct ana_session *s)
{
	struct amb_buf b = AMB_BUF_INIT;
	int n = ana_describe_topology(s, &b);
	const char *p = (const char *)b.data, *end = p ? p + b.len : p;

	if (n > 0)
		printf("\ntopology:\n");
	while (n > 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		printf("  ");
		amb_fput_text(stdout, line);
		printf("\n");
		p += len + 1;
	}
	amb_buf_free(&b);
	return n < 0 ? n : 0;
}

static double ratio(uint64_t raw, uint64_t stored)
{
	return stored ? (double)raw / (double)stored : 0.0;
}

static void print_header(struct amb_reader *r, const char *path)
{
	const struct amb_file_header *h = amb_reader_header(r);
	time_t secs = (time_t)(h->created_ns / 1000000000u);
	char when[64] = "?";
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("file:       ");
	amb_fput_text(stdout, path);
	printf(" (%llu bytes)\n", (unsigned long long)amb_reader_file_size(r));
	printf("format:     %u.%u\n", h->major, h->minor);
	printf("producer:   %s-endian, %u-bit, %s (e_machine %u)\n",
	       h->producer_endian == AMB_ENDIAN_LITTLE ? "little" : "big",
	       h->producer_word_size * 8u, machine_name(h->producer_machine),
	       h->producer_machine);
	printf("uuid:       ");
	for (int i = 0; i < 16; i++)
		printf("%02x%s", h->uuid[i], (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
	printf("\ncreated:    %s.%09llu UTC\n", when,
	       (unsigned long long)(h->created_ns % 1000000000u));
	printf("closed:     %s\n", amb_reader_indexed(r) ? "yes (trailer and index)"
							 : "no (blocks found by scanning)");
}

static void print_events(const struct ana_session *s)
{
	size_t n = ana_session_event_count(s);

	printf("\nevents: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		const struct ana_event *e = ana_session_event(s, i);

		printf("  [%u] ", e->index);
		amb_fput_text(stdout, e->name);
		printf(": type %u config 0x%llx, ", e->attr.type, (unsigned long long)e->attr.config);
		if (!e->attr.freq && !e->attr.sample_period && !e->attr.sample_type) {
			printf("counting");
		} else {
			printf("%s %llu, sample_type ", e->attr.freq ? "freq" : "period",
			       (unsigned long long)e->attr.sample_period);
			print_sample_type(e->attr.sample_type);
		}
		printf(", %u id%s", e->nr_ids, e->nr_ids == 1 ? "" : "s");
		if (e->leader != UINT32_MAX && e->leader != e->index)
			printf(", leader [%u]", e->leader);
		if (e->flags & AMB_EVENT_FALLBACK)
			printf(", fallback (opened in place of an unavailable event)");
		if (e->flags & AMB_EVENT_UNSUPPORTED)
			printf(", not supported on the recording machine");
		printf("\n");
	}
}

/* The stored counts (FORMAT.md §5.4) summed per event; amber-analyze stat
 * prints them in full. */
static int print_counts(const struct ana_session *s)
{
	size_t nb = ana_session_counts_count(s), nl;
	struct amb_stat_line *v;
	struct amb_stat *st;
	unsigned runs;
	int err;

	if (!nb)
		return 0;
	err = ana_counts_totals(s, AMB_STAT_AGGR_GLOBAL, &st);
	if (err)
		return err == -ENODATA ? 0 : err;
	err = amb_stat_lines(st, &v, &nl);
	if (err) {
		amb_stat_free(st);
		return err;
	}
	runs = amb_stat_runs(st);
	printf("\ncounts:     %zu block%s", nb, nb == 1 ? "" : "s");
	if (runs > 1)
		printf(", mean of %u runs", runs);
	printf(" (amber-analyze stat prints them as perf stat)\n");
	for (size_t i = 0; i < nl; i++) {
		char val[64];

		amb_stat_value_text(st, &v[i], val, sizeof(val));
		printf("  %-32s %20s", amb_stat_event(st, v[i].event)->name, val);
		if (v[i].state != AMB_STAT_NOT_COUNTED && v[i].state != AMB_STAT_NOT_SUPPORTED)
			printf("  (%.2f%% running%s)", v[i].share,
			       v[i].state == AMB_STAT_UNRELIABLE ? ", unreliable estimate" : "");
		printf("\n");
	}
	free(v);
	amb_stat_free(st);
	return 0;
}

struct block_sum {
	uint64_t blocks, raw, stored, records;
};

static void add_block(struct block_sum *b, const struct amb_block_info *bi)
{
	b->blocks++;
	b->raw += bi->raw_size;
	b->stored += bi->stored_size;
	b->records += bi->record_count;
}

static void print_sum(const char *name, const struct block_sum *b)
{
	printf("  %-12s %8llu %10llu %14llu %14llu %7.2f\n", name,
	       (unsigned long long)b->blocks, (unsigned long long)b->records,
	       (unsigned long long)b->raw, (unsigned long long)b->stored,
	       ratio(b->raw, b->stored));
}

/* A RING block by its stream, for summing each stream's blocks. */
struct stream_block {
	uint32_t stream;
	size_t block;
};

static int stream_block_cmp(const void *a, const void *b)
{
	const struct stream_block *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->block < y->block ? -1 : x->block > y->block;
}

/* Blocks per type and per RING stream; returns -ENOMEM or 0. */
static int print_blocks(struct amb_reader *r)
{
	struct block_sum types[AMB_BLOCK_TYPE_MAX_KNOWN + 2] = { { 0 } }, total = { 0 };
	size_t n = amb_reader_block_count(r), nring = 0;
	uint64_t t0 = 0, t1 = 0;
	struct stream_block *ring;

	ring = calloc(n ? n : 1, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		unsigned t = bi->type <= AMB_BLOCK_TYPE_MAX_KNOWN ? bi->type
								  : AMB_BLOCK_TYPE_MAX_KNOWN + 1;

		add_block(&types[t], bi);
		add_block(&total, bi);
		if (bi->type == AMB_BLOCK_RING)
			ring[nring++] = (struct stream_block){ bi->stream, i };
		if ((bi->type == AMB_BLOCK_RING || bi->type == AMB_BLOCK_SYNTH ||
		     bi->type == AMB_BLOCK_COUNTS) && bi->first_time) {
			if (!t0 || bi->first_time < t0)
				t0 = bi->first_time;
			/* A damaged block may end before it starts. */
			t1 = AMB_MAX(t1, AMB_MAX(bi->first_time, bi->last_time));
		}
	}
	printf("\nblocks:           blocks    records      raw bytes   stored bytes   ratio\n");
	for (unsigned t = 0; t < AMB_ARRAY_SIZE(types); t++)
		if (types[t].blocks)
			print_sum(t <= AMB_BLOCK_TYPE_MAX_KNOWN ? amb_block_type_name(t) : "unknown",
				  &types[t]);
	print_sum("total", &total);

	/* One pass over the blocks sorted by stream, whatever the number of
	 * streams a file claims. */
	qsort(ring, nring, sizeof(*ring), stream_block_cmp);
	if (nring)
		printf("\nstreams:          blocks    records      raw bytes   stored bytes   ratio\n");
	for (size_t i = 0; i < nring;) {
		struct block_sum b = { 0 };
		uint32_t stream = ring[i].stream;
		char name[32];

		for (; i < nring && ring[i].stream == stream; i++)
			add_block(&b, amb_reader_block(r, ring[i].block));
		snprintf(name, sizeof(name), "cpu %u", stream);
		print_sum(name, &b);
	}
	free(ring);

	if (t0)
		printf("\ntime:       %llu.%09llu .. %llu.%09llu (%.6f s)\n",
		       (unsigned long long)(t0 / 1000000000u), (unsigned long long)(t0 % 1000000000u),
		       (unsigned long long)(t1 / 1000000000u), (unsigned long long)(t1 % 1000000000u),
		       (double)(t1 - t0) / 1e9);
	else
		printf("\ntime:       no timestamped records\n");
	return 0;
}

struct type_counts {
	uint64_t n[PERF_RECORD_MAX + 1];
};

static int count_type(void *ctx, const struct ana_record *rec)
{
	struct type_counts *tc = ctx;

	tc->n[rec->type < PERF_RECORD_MAX ? rec->type : PERF_RECORD_MAX]++;
	return 0;
}

static int print_records(struct ana_session *s)
{
	struct ana_session_stats st;
	struct type_counts *tc = calloc(1, sizeof(*tc));
	int err;

	if (!tc)
		return -1;
	err = ana_session_for_each(s, count_type, tc);
	ana_session_get_stats(s, &st);
	printf("\nrecords:    %llu (%llu samples, %llu undecodable)\n",
	       (unsigned long long)st.records, (unsigned long long)st.samples,
	       (unsigned long long)st.bad_records);
	for (unsigned t = 0; t <= PERF_RECORD_MAX; t++)
		if (tc->n[t])
			printf("  %-16s %llu\n", t < PERF_RECORD_MAX ? ana_record_type_name(t) : "other",
			       (unsigned long long)tc->n[t]);
	printf("lost:       %llu records (LOST), %llu samples (LOST_SAMPLES)\n",
	       (unsigned long long)st.lost, (unsigned long long)st.lost_samples);
	free(tc);
	return err;
}

static int info_option(void *ctx, int c, const char *arg)
{
	if (c != 'r')
		return 1;
	*(bool *)ctx = true;
	return 0;
}

int ana_cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "records", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "info", usage, "r", opts, 1, 1, true };
	struct ana_session *s = NULL;
	bool records = false;
	struct amb_reader *r;
	amb_warn_fn old;
	const char *path = NULL;
	int err, rc;
	size_t np;

	rc = ana_cmd_parse(&desc, argc, argv, NULL, info_option, &records, &path);
	if (rc != ANA_CMD_GO_ON)
		return rc;
	rc = 0;
	/* The reader's problems are listed below, not warned about twice. */
	old = amb_set_warn(NULL, NULL);
	amb_errmsg_clear();
	err = ana_session_open(path, &s);
	amb_set_warn(old, NULL);
	if (err) {
		ana_cmd_fail("info", path, err);
		return 2;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	r = ana_session_reader(s);
	print_header(r, path);

	printf("\nmetadata:\n");
	for (size_t i = 0; i < ana_session_meta_count(s); i++) {
		const char *val, *key = ana_session_meta_at(s, i, &val);
		char k[256];

		/* Recorded text, escaped: a value stays one line (common/util.h). */
		printf("  %-24s ", amb_text_escape(k, sizeof(k), key));
		amb_fput_text(stdout, val);
		printf("\n");
	}
	print_events(s);
	if (print_topology(s) || print_counts(s) || print_blocks(r) ||
	    (records && print_records(s))) {
		fflush(stdout);
		ana_cmd_error("info", "%s: out of memory", path);
		rc = 2;
		goto out;
	}

	np = amb_reader_problem_count(r);
	printf("\nproblems:   %zu\n", np);
	for (size_t i = 0; i < np; i++)
		printf("  warning: %s\n", amb_reader_problem(r, i)->msg);
out:
	fflush(stdout);
	ana_session_close(s);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests of the perf.data import (replay/perfdata.c,
 * perfdata_import.c) and of the exporters on what it gives: a synthetic
 * perf.data, little- and big-endian, with perf's header, one attr and its
 * ids, records out of time order inside a round, and the hostname,
 * build-id and event-desc feature sections; then the same file cut short.
 * The imported recording is exported as pprof (unpacked again with
 * protobuf-c) and as perf script text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/resolve.h"
#include "analyze/view/view.h"
#include "profile.pb-c.h"
#include "synth.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
	    PERF_SAMPLE_CALLCHAIN)

/* A perf.data being built: a syn_rec per part, joined at the end. */
struct pdata {
	uint8_t *b;
	size_t len, cap;
	bool swap;
	size_t data_end;        /* offset where the data section ends */
};

static void pd_raw(struct pdata *p, const void *d, size_t n)
{
	if (p->len + n > p->cap) {
		p->cap = (p->len + n) * 2;
		p->b = realloc(p->b, p->cap);
		assert_non_null(p->b);
	}
	memcpy(p->b + p->len, d, n);
	p->len += n;
}

static void pd_u32(struct pdata *p, uint32_t v)
{
	v = p->swap ? bswap_32(v) : v;
	pd_raw(p, &v, 4);
}

static void pd_u64(struct pdata *p, uint64_t v)
{
	v = p->swap ? bswap_64(v) : v;
	pd_raw(p, &v, 8);
}

static void pd_put64(struct pdata *p, size_t at, uint64_t v)
{
	v = p->swap ? bswap_64(v) : v;
	memcpy(p->b + at, &v, 8);
}

/* perf's do_write_string(): u32 padded length, string, zeros. */
static void pd_str(struct pdata *p, const char *s)
{
	static const uint8_t zeros[64];
	size_t n = strlen(s) + 1, padded = (n + 63) / 64 * 64;

	pd_u32(p, (uint32_t)padded);
	pd_raw(p, s, n);
	pd_raw(p, zeros, padded - n);
}

static void sample(struct syn_rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	syn_begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	syn_u64(r, 0x1000);          /* ip */
	syn_u32(r, pid);
	syn_u32(r, tid);
	syn_u64(r, time);
	syn_u64(r, 1000000);         /* period */
	syn_u64(r, 3);               /* callchain */
	syn_u64(r, PERF_CONTEXT_USER);
	syn_u64(r, 0x1000);
	syn_u64(r, 0x2000);
	syn_end(r);
}

/*
 * The test perf.data: COMM records (one synthesized, time 0), four
 * samples of tid 101 and 100 at times 30, 10, 20 | round | 40.
 */
static struct pdata make_perfdata(bool swap)
{
	struct pdata p = { .swap = swap };
	struct syn_rec r = { .swap = swap };
	uint8_t attr[128] = { 0 }, flags[8] = { 0 };
	size_t attrs_at, ids_at, data_at, feat_at, sec_at;
	static const char magic[8] = "PERFILE2";
	char m[8];

	/* header: magic, size, attr_size, attrs, data, event_types, features */
	for (int i = 0; i < 8; i++)
		m[i] = swap ? magic[7 - i] : magic[i];
	pd_raw(&p, m, 8);
	pd_u64(&p, 104);
	pd_u64(&p, 128 + 16);
	for (int i = 0; i < 6; i++)
		pd_u64(&p, 0);           /* attrs, data, event_types: patched */
	pd_u64(&p, (1ull << 2) | (1ull << 3) | (1ull << 12));
	pd_u64(&p, 0);
	pd_u64(&p, 0);
	pd_u64(&p, 0);
	assert_int_equal(p.len, 104);

	/* attr: cpu-clock, sample_id_all (bit 18 of the flags word) */
	attrs_at = p.len;
	{
		struct syn_rec a = { .swap = swap };

		syn_u32(&a, PERF_TYPE_SOFTWARE);
		syn_u32(&a, 128);
		syn_u64(&a, PERF_COUNT_SW_CPU_CLOCK);
		syn_u64(&a, 1000000);
		syn_u64(&a, ST);
		syn_u64(&a, 0);
		memcpy(attr, a.b, a.len);
	}
	flags[2] = 1u << 2;
	if (swap)   /* a big-endian producer fills bitfields from the top bit */
		flags[2] = 1u << 5;
	memcpy(attr + 40, flags, 8);
	pd_raw(&p, attr, sizeof(attr));
	pd_u64(&p, 0);   /* ids offset, patched */
	pd_u64(&p, 8);
	ids_at = p.len;
	pd_u64(&p, 42);
	pd_put64(&p, attrs_at + 128, ids_at);

	data_at = p.len;
	syn_comm(&r, ST, 100, 100, "prog", false, 0, 0, 0);
	pd_raw(&p, r.b, r.len);
	syn_comm(&r, ST, 100, 101, "worker", false, 5, 0, 0);
	pd_raw(&p, r.b, r.len);
	sample(&r, 100, 101, 30);
	pd_raw(&p, r.b, r.len);
	sample(&r, 100, 101, 10);
	pd_raw(&p, r.b, r.len);
	sample(&r, 100, 101, 20);
	pd_raw(&p, r.b, r.len);
	syn_begin(&r, 68, 0);        /* PERF_RECORD_FINISHED_ROUND */
	syn_end(&r);
	pd_raw(&p, r.b, r.len);
	sample(&r, 100, 100, 40);
	pd_raw(&p, r.b, r.len);
	p.data_end = p.len;

	/* features: build-id (bit 2), hostname (3), event desc (12) */
	feat_at = p.len;
	for (int i = 0; i < 3; i++) {
		pd_u64(&p, 0);
		pd_u64(&p, 0);
	}
	sec_at = p.len;
	/* perf_record_header_build_id, PERF_RECORD_MISC_BUILD_ID_SIZE set */
	syn_begin(&r, 67, PERF_RECORD_MISC_USER | (1u << 15));
	syn_u32(&r, 100);
	for (int i = 0; i < 20; i++)
		syn_raw(&r, (const uint8_t[]){ (uint8_t)(0xa0 + i) }, 1);
	syn_raw(&r, (const uint8_t[]){ 20, 0, 0, 0 }, 4);
	syn_raw(&r, "/usr/bin/prog\0\0\0", 16);
	syn_end(&r);
	pd_raw(&p, r.b, r.len);
	pd_put64(&p, feat_at, sec_at);
	pd_put64(&p, feat_at + 8, p.len - sec_at);
	sec_at = p.len;
	pd_str(&p, "testhost");
	pd_put64(&p, feat_at + 16, sec_at);
	pd_put64(&p, feat_at + 24, p.len - sec_at);
	sec_at = p.len;
	pd_u32(&p, 1);
	pd_u32(&p, 128);
	pd_raw(&p, attr, sizeof(attr));
	pd_u32(&p, 1);
	pd_str(&p, "cpu-clock");
	pd_u64(&p, 42);
	pd_put64(&p, feat_at + 32, sec_at);
	pd_put64(&p, feat_at + 40, p.len - sec_at);

	pd_put64(&p, 24, attrs_at);
	pd_put64(&p, 32, 128 + 16);
	pd_put64(&p, 40, data_at);
	pd_put64(&p, 48, p.data_end - data_at);
	return p;
}

struct seen {
	uint64_t times[16];
	uint32_t tids[16];
	unsigned n, comms;
};

static int collect(void *ctx, const struct ana_record *rec)
{
	struct seen *s = ctx;

	if (rec->type == PERF_RECORD_COMM)
		s->comms++;
	if (rec->type == PERF_RECORD_SAMPLE && s->n < 16) {
		assert_non_null(rec->u.sample.evt);
		assert_int_equal(rec->u.sample.period, 1000000);
		assert_int_equal(rec->u.sample.nr_callchain, 3);
		s->tids[s->n] = rec->u.sample.tid;
		s->times[s->n++] = rec->u.sample.time;
	}
	return 0;
}

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/amber-test-perfdata.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}

static void import_to(struct pdata *p, size_t len, const char *name, char *path, size_t plen,
		      struct ana_import_stats *st)
{
	struct ana_import_opts o = { NULL, false, 1, 0 };
	struct ana_perfdata *pd;

	snprintf(path, plen, "%s/%s", tmpdir, name);
	assert_int_equal(ana_perfdata_open_mem(p->b, len, &pd), 0);
	assert_int_equal(ana_perfdata_import(pd, path, &o, st), 0);
	ana_perfdata_close(pd);
}

static void check_import(bool swap)
{
	struct pdata p = make_perfdata(swap);
	struct ana_import_stats st;
	struct ana_session *s;
	struct seen seen = { 0 };
	char path[128];

	assert_true(ana_perfdata_probe(p.b, p.len));
	import_to(&p, p.len, swap ? "be.amber" : "le.amber", path, sizeof(path), &st);
	assert_int_equal(st.samples, 4);
	assert_int_equal(st.synth, 1);
	assert_int_equal(st.skipped, 0);
	assert_false(st.damaged);
	assert_int_equal(ana_session_open(path, &s), 0);
	assert_int_equal(ana_session_swapped(s), swap);
	assert_int_equal(ana_session_event_count(s), 1);
	assert_string_equal(ana_session_event(s, 0)->name, "cpu-clock");
	assert_true(ana_session_event(s, 0)->attr.sample_id_all);
	assert_int_equal(ana_session_event(s, 0)->nr_ids, 1);
	assert_string_equal(ana_session_meta(s, "hostname"), "testhost");
	assert_int_equal(ana_session_buildid_count(s), 1);
	assert_string_equal(ana_session_buildid(s, 0)->path, "/usr/bin/prog");
	assert_int_equal(ana_session_buildid(s, 0)->build_id[0], 0xa0);
	assert_int_equal(ana_session_for_each(s, collect, &seen), 0);
	/* perf's order: sorted by time within the round. */
	assert_int_equal(seen.n, 4);
	assert_int_equal(seen.comms, 2);
	assert_int_equal(seen.times[0], 10);
	assert_int_equal(seen.times[1], 20);
	assert_int_equal(seen.times[2], 30);
	assert_int_equal(seen.times[3], 40);
	assert_int_equal(seen.tids[3], 100);
	ana_session_close(s);
	free(p.b);
}

static void test_import_le(void **state)
{
	(void)state;
	check_import(false);
}

static void test_import_be(void **state)
{
	(void)state;
	check_import(true);
}

static void test_import_cut(void **state)
{
	struct pdata p = make_perfdata(false);
	struct ana_import_stats st;
	struct ana_session *s;
	struct seen seen = { 0 };
	char path[128];
	size_t cut = p.data_end - 40;   /* inside the last sample */

	(void)state;
	amb_set_warn(NULL, NULL);
	import_to(&p, cut, "cut.amber", path, sizeof(path), &st);
	assert_true(st.damaged);
	assert_int_equal(st.samples, 3);
	assert_int_equal(ana_session_open(path, &s), 0);
	assert_null(ana_session_meta(s, "hostname"));   /* features were past the cut */
	assert_int_equal(ana_session_for_each(s, collect, &seen), 0);
	assert_int_equal(seen.n, 3);
	ana_session_close(s);
	free(p.b);
}

static void test_not_perfdata(void **state)
{
	static const uint8_t amber[16] = "\x89" "AMBER\r\n";
	struct ana_perfdata *pd;

	(void)state;
	assert_false(ana_perfdata_probe(amber, sizeof(amber)));
	assert_int_equal(ana_perfdata_open_mem(amber, sizeof(amber), &pd), -AMB_E_MAGIC);
	assert_null(pd);
}

/* The whole output of @fn as a heap buffer. */
static uint8_t *export_to_mem(const char *path, enum ana_export_format f, size_t *len)
{
	struct ana_pipeline_opts o;
	struct ana_pipeline *p;
	struct ana_export_opts eo = { .inline_frames = true, .name = "test" };
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	assert_non_null(mem);
	ana_pipeline_opts_init(&o);
	o.dso.no_debuginfod = true;
	o.tracepoints = true;
	assert_int_equal(ana_pipeline_open(path, &o, &p), 0);
	assert_int_equal(ana_export(p, f, mem, &eo), 0);
	fclose(mem);
	ana_pipeline_close(p);
	ana_pipeline_opts_free(&o);
	return (uint8_t *)buf;
}

static const char *pstr(const AnaPprof__Profile *pr, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < pr->n_string_table);
	return pr->string_table[i];
}

static void test_export_pprof(void **state)
{
	struct pdata p = make_perfdata(false);
	struct ana_import_stats st;
	AnaPprof__Profile *pr;
	uint8_t *gz, *raw = malloc(1 << 20);
	size_t gzlen, counts = 0, period = 0;
	z_stream z = { 0 };
	char path[128];

	(void)state;
	import_to(&p, p.len, "pprof.amber", path, sizeof(path), &st);
	gz = export_to_mem(path, ANA_EXPORT_PPROF, &gzlen);
	assert_true(gzlen > 2 && gz[0] == 0x1f && gz[1] == 0x8b);   /* gzip */
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = raw;
	z.avail_out = 1 << 20;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	pr = ana_pprof__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	assert_non_null(pr);
	assert_string_equal(pstr(pr, 0), "");
	assert_int_equal(pr->n_sample_type, 2);
	assert_string_equal(pstr(pr, pr->sample_type[0]->type), "samples");
	assert_string_equal(pstr(pr, pr->sample_type[0]->unit), "count");
	assert_string_equal(pstr(pr, pr->sample_type[1]->type), "cpu");
	assert_string_equal(pstr(pr, pr->sample_type[1]->unit), "nanoseconds");
	assert_int_equal(pr->duration_nanos, 30);
	assert_int_equal(pr->drop_frames, 0);
	for (size_t i = 0; i < pr->n_sample; i++) {
		bool has_comm = false;

		counts += (size_t)pr->sample[i]->value[0];
		period += (size_t)pr->sample[i]->value[1];
		assert_int_equal(pr->sample[i]->n_location_id, 2);
		for (size_t j = 0; j < pr->sample[i]->n_label; j++)
			has_comm |= !strcmp(pstr(pr, pr->sample[i]->label[j]->key), "comm");
		assert_true(has_comm);
	}
	assert_int_equal(counts, 4);
	assert_int_equal(period, 4000000);
	/* Two threads with their names: two pprof samples. */
	assert_int_equal(pr->n_sample, 2);
	assert_true(pr->n_location >= 2);
	ana_pprof__profile__free_unpacked(pr, NULL);
	free(gz);
	free(raw);
	free(p.b);
}

static void test_export_perf_script(void **state)
{
	struct pdata p = make_perfdata(true);
	struct ana_import_stats st;
	char path[128], *text;
	size_t len;

	(void)state;
	import_to(&p, p.len, "script.amber", path, sizeof(path), &st);
	text = (char *)export_to_mem(path, ANA_EXPORT_PERF_SCRIPT, &len);
	/* perf script's default: comm tid time: period event:, then the chain. */
	assert_non_null(strstr(text, "worker   101     0.000000:    1000000 cpu-clock: \n"
				     "\t            1000 [unknown] ([unknown])\n"
				     "\t            2000 [unknown] ([unknown])\n\n"));
	assert_non_null(strstr(text, "prog   100     0.000000:"));
	free(text);
	free(p.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_le),
		cmocka_unit_test(test_import_be),
		cmocka_unit_test(test_import_cut),
		cmocka_unit_test(test_not_perfdata),
		cmocka_unit_test(test_export_pprof),
		cmocka_unit_test(test_export_perf_script),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests for the analyzer's core on synthetic recordings, no
 * privileges needed: the stack walk (analyze/resolve/stackwalk.c: every
 * frame of a callchain, the outermost included), report's self and
 * children shares (a recursive frame counts once per sample, so no entry
 * passes 100%), its sort keys and their order, the sample filters
 * (--comm, --pid, --cpu, --sym, --time +S,+E and its boundaries), script's
 * frames, and diff's statistics on fixed counts, checked against the
 * two-proportion z-test and Holm's correction computed here.
 *
 * The recordings hold kernel samples whose callchains name symbols of a
 * recorded KSYMS table (FORMAT.md §5.8), so every frame resolves without
 * any ELF file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/cmd/cmd.h"
#include "analyze/resolve/resolve.h"
#include "analyze/resolve/pipeline.h"
#include "analyze/resolve/stackwalk.h"
#include "analyze/replay/perf_record.h"
#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "tests/unit/analyze/synth.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ST_ID (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define ID0 100                  /* sample ids: ID0 + cpu */
#define T0 1000000000ull         /* first sample, ns */
#define KBASE 0xffffffff81000000ull
#define MAXF 8

/* The kernel functions of the synthetic recordings, 0x100 bytes each. */
enum { F_LEAF, F_REC, F_MID, F_OUTER, F_ROOT, F_OTHER, F_END };
static const char *const fn_names[] = { "k_leaf", "k_rec", "k_mid", "k_outer", "k_root",
					"k_other", "k_end" };

/* An address @off bytes into function @f. */
static uint64_t fn_addr(unsigned f, unsigned off)
{
	return KBASE + (uint64_t)f * 0x100 + off;
}

struct spec {
	uint32_t pid, cpu;
	uint64_t period;
	unsigned nr;                 /* frames, leaf first */
	unsigned f[MAXF];
	unsigned repeat;             /* this many samples alike */
};

static char paths[3][64];

static void append(struct amb_writer *w, uint16_t type, uint32_t stream, uint64_t count,
		   uint64_t t0, uint64_t t1, struct amb_buf *b)
{
	struct amb_block_desc d = { type, stream, count, t0, t1 };

	assert_int_equal(amb_writer_append(w, &d, b->data, b->len), 0);
	amb_buf_reset(b);
}

/*
 * Write @path: samples as @specs say, one every millisecond from T0 in the
 * order given, each on its spec's CPU (one RING stream per CPU); the leaf
 * frame is sampled 0x10 bytes into its function, callers at 0x20 (their
 * return addresses).  pid 10 is "alpha", pid 20 "beta", pid 30 "gamma".
 */
static void write_recording(const char *path, const struct spec *specs, size_t nr_specs)
{
	static struct syn_rec s;
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 1);
	struct amb_buf b = AMB_BUF_INIT, ring[2] = { AMB_BUF_INIT, AMB_BUF_INIT };
	uint64_t count[2] = { 0, 0 }, first[2] = { 0, 0 }, last[2] = { 0, 0 }, t = T0;
	struct perf_event_attr a;
	struct amb_event_entry e;
	struct amb_writer *w;
	uint8_t ids[16];

	unlink(path);
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	assert_int_equal(amb_kv_put_str(&b, "hostname", "synth"), 0);
	assert_int_equal(amb_kv_put_str(&b, "clock", "monotonic"), 0);
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 2, 0, 0, &b);

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	amb_put_le64(ids, ID0);
	amb_put_le64(ids + 8, ID0 + 1);
	e = (struct amb_event_entry){ (const uint8_t *)&a, sizeof(a), "cpu-clock", 9, UINT32_MAX,
				      0, 2, ids };
	assert_int_equal(amb_event_put(&b, &e), 0);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0, &b);

	for (unsigned f = 0; f < F_END + 1; f++)
		assert_int_equal(amb_buf_printf(&b, "%016llx T %s\n",
						(unsigned long long)fn_addr(f, 0),
						f < F_END ? fn_names[f] : "k_end"), 0);
	append(w, AMB_BLOCK_KSYMS, AMB_STREAM_NONE, F_END + 1, 0, 0, &b);

	syn_comm(&s, ST_ID, 10, 10, "alpha", false, T0 - 1000, ID0, 0);
	assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
	syn_comm(&s, ST_ID, 20, 20, "beta", false, T0 - 1000, ID0, 0);
	assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
	syn_comm(&s, ST_ID, 30, 30, "gamma", false, T0 - 1000, ID0, 0);
	assert_int_equal(amb_buf_append(&b, s.b, s.len), 0);
	append(w, AMB_BLOCK_SYNTH, AMB_STREAM_NONE, 3, T0 - 1000, T0 - 1000, &b);

	for (size_t i = 0; i < nr_specs; i++) {
		const struct spec *sp = &specs[i];

		for (unsigned r = 0; r < sp->repeat; r++, t += 1000000) {
			unsigned c = sp->cpu;

			syn_begin(&s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
			syn_u64(&s, ID0 + c);                        /* IDENTIFIER */
			syn_u64(&s, fn_addr(sp->f[0], 0x10));        /* IP */
			syn_u32(&s, sp->pid);                        /* TID */
			syn_u32(&s, sp->pid);
			syn_u64(&s, t);                              /* TIME */
			syn_u32(&s, c);                              /* CPU */
			syn_u32(&s, 0);
			syn_u64(&s, sp->period);                     /* PERIOD */
			syn_u64(&s, sp->nr + 1);                     /* CALLCHAIN */
			syn_u64(&s, PERF_CONTEXT_KERNEL);
			for (unsigned k = 0; k < sp->nr; k++)
				syn_u64(&s, fn_addr(sp->f[k], k ? 0x20 : 0x10));
			syn_end(&s);
			assert_int_equal(amb_buf_append(&ring[c], s.b, s.len), 0);
			if (!count[c]++)
				first[c] = t;
			last[c] = t;
		}
	}
	for (unsigned c = 0; c < 2; c++)
		if (count[c])
			append(w, AMB_BLOCK_RING, c, count[c], first[c], last[c], &ring[c]);
	assert_int_equal(amb_writer_close(w), 0);
	amb_buf_free(&b);
	amb_buf_free(&ring[0]);
	amb_buf_free(&ring[1]);
}

/*
 * The main recording, 10 samples of period 1000:
 *   #0-3  alpha cpu 0  k_leaf <- k_rec <- k_rec <- k_rec <- k_outer <- k_root
 *   #4-5  alpha cpu 0  k_rec <- k_outer <- k_root
 *   #6-7  alpha cpu 0  k_mid <- k_root
 *   #8-9  beta  cpu 1  k_other <- k_root
 * Self: k_leaf 40%, k_rec, k_mid, k_other 20% each.  Children: k_root 100%,
 * k_rec and k_outer 60% (k_rec three times on the stack of #0-3, counted
 * once), k_leaf 40%, k_mid and k_other 20%.
 */
static const struct spec main_specs[] = {
	{ 10, 0, 1000, 6, { F_LEAF, F_REC, F_REC, F_REC, F_OUTER, F_ROOT }, 4 },
	{ 10, 0, 1000, 3, { F_REC, F_OUTER, F_ROOT }, 2 },
	{ 10, 0, 1000, 2, { F_MID, F_ROOT }, 2 },
	{ 20, 1, 1000, 2, { F_OTHER, F_ROOT }, 2 },
};

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++)
		snprintf(paths[i], sizeof(paths[i]), "/tmp/amber-test-core-%d-%d.amber",
			 (int)getpid(), i);
	write_recording(paths[0], main_specs, AMB_ARRAY_SIZE(main_specs));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (getenv("AMB_TEST_KEEP"))  /* to look at them: amber-analyze dump FILE */
		return 0;
	for (int i = 0; i < 3; i++)
		unlink(paths[i]);
	return 0;
}

/* Run a command's main with @args (NULL-terminated) and its standard output
 * in a string (caller frees); *@rc gets its exit status. */
static char *run_cmd(int (*cmd)(int, char **), int *rc, ...)
{
	char *argv[32], tmp[64];
	int argc = 0, fd, saved;
	const char *arg;
	size_t len;
	va_list ap;
	char *out;

	va_start(ap, rc);
	while ((arg = va_arg(ap, const char *)) && argc < 31)
		argv[argc++] = (char *)arg;
	va_end(ap);
	argv[argc] = NULL;
	snprintf(tmp, sizeof(tmp), "/tmp/amber-test-core-%d.out", (int)getpid());
	fflush(stdout);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	saved = dup(1);
	assert_true(saved >= 0);
	assert_true(dup2(fd, 1) == 1);
	close(fd);
	*rc = cmd(argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, 1) == 1);
	close(saved);
	out = amb_read_file(tmp, 16 << 20, &len);
	assert_non_null(out);
	unlink(tmp);
	return out;
}

/* A report's table rows: the key (everything after the numbers), the
 * children (or overhead) and self percentages and the sample count. */
struct row {
	char key[256];
	double pct, self;
	unsigned long samples;
};

/* Parse the rows of report's text table.  With --children a row reads
 * "CHILDREN% SELF% SAMPLES PERIOD KEY...", without it "OVERHEAD% SAMPLES
 * PERIOD KEY..."; KEY is the rest of the line, spaces squeezed. */
static size_t parse_rows(const char *text, bool children, struct row *rows, size_t max)
{
	size_t n = 0;

	for (const char *l = text; *l && n < max; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		struct row *r = &rows[n];
		char key[256];
		int used = 0, k = 0;
		const char *p;

		if (*l == '#' || *l == '\n')
			continue;
		if (children) {
			if (sscanf(l, " %lf%% %lf%% %lu %*u %n", &r->pct, &r->self, &r->samples, &used) < 3)
				continue;
		} else {
			if (sscanf(l, " %lf%% %lu %*u %n", &r->pct, &r->samples, &used) < 2)
				continue;
			r->self = r->pct;
		}
		if (!used)
			continue;
		for (p = l + used; *p && *p != '\n' && k < (int)sizeof(key) - 1; p++)
			if (*p != ' ' || (k && key[k - 1] != ' '))
				key[k++] = *p;
		while (k && key[k - 1] == ' ')
			k--;
		key[k] = '\0';
		memcpy(r->key, key, (size_t)k + 1);
		n++;
	}
	return n;
}

static const struct row *find_row(const struct row *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].key, key))
			return &rows[i];
	return NULL;
}

/* Run report with @args on the main recording and parse its rows. */
#define REPORT(rows, children, ...)                                                   \
	({                                                                            \
		int rc_;                                                              \
		char *out_ = run_cmd(ana_cmd_report, &rc_, "report", "--percent-limit", "0", \
				     "-g", "none", (children) ? "--children" : "--no-children", \
				     __VA_ARGS__, NULL);                              \
		size_t n_;                                                            \
		assert_int_equal(rc_, 0);                                             \
		n_ = parse_rows(out_, children, rows, AMB_ARRAY_SIZE(rows));          \
		free(out_);                                                           \
		n_;                                                                   \
	})

static void expect_row(const struct row *rows, size_t n, const char *key, double pct,
		       double self, unsigned long samples)
{
	const struct row *r = find_row(rows, n, key);

	if (!r)
		fail_msg("no row '%s'", key);
	if (fabs(r->pct - pct) > 0.001 || fabs(r->self - self) > 0.001 || r->samples != samples)
		fail_msg("row '%s': %.2f%% self %.2f%% %lu samples, expected %.2f%% %.2f%% %lu",
			 key, r->pct, r->self, r->samples, pct, self, samples);
}

/* --- the stack walk ----------------------------------------------------- */

struct walk {
	uint64_t addr[16];
	bool kernel[16];
	const char *name[16];
	uint64_t off[16];
	unsigned n, stop_at;
};

static int on_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct walk *w = ctx;

	assert_int_equal(depth, w->n);
	if (w->n < 16) {
		w->addr[w->n] = loc->addr;
		w->kernel[w->n] = loc->kernel;
		w->name[w->n] = loc->ksym ? loc->ksym->name : NULL;
		w->off[w->n] = loc->offset;
	}
	w->n++;
	return w->stop_at && w->n == w->stop_at;
}

/* Every frame of a callchain, leaf first and the outermost last; context
 * markers switch kernel and user and are no frames; a return address is
 * looked up one byte back but its offset is from the address itself. */
static void test_stack_walk(void **state)
{
	struct ana_dso_table *dsos = ana_dso_table_new(NULL);
	struct ana_machine *m = ana_machine_new(dsos);
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, 0xffffffff81000120ull,
				   PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000 };
	struct ana_sample s = { .ip = chain[1], .cpumode = PERF_RECORD_MISC_KERNEL,
				.nr_callchain = AMB_ARRAY_SIZE(chain), .callchain = chain };
	struct walk w = { 0 };
	struct ana_ksyms *k;
	unsigned n;

	(void)state;
	assert_non_null(m);
	static const char ktext[] = "ffffffff81000000 T k_leaf\nffffffff81000100 T k_rec\n"
				    "ffffffff81000200 T k_end\n";

	k = ana_ksyms_parse(ktext, sizeof(ktext) - 1);
	assert_non_null(k);
	ana_machine_set_ksyms(m, k);

	n = ana_stack_walk(m, NULL, NULL, &s, 0, 0, on_frame, &w);
	assert_int_equal(n, 5);
	assert_int_equal(w.n, 5);
	assert_true(w.addr[0] == 0xffffffff81000010ull && w.kernel[0]);
	assert_true(w.addr[1] == 0xffffffff81000120ull && w.kernel[1]);
	assert_string_equal(w.name[0], "k_leaf");
	assert_int_equal(w.off[0], 0x10);
	assert_string_equal(w.name[1], "k_rec");
	assert_int_equal(w.off[1], 0x20);
	assert_true(w.addr[2] == 0x401000 && !w.kernel[2]);
	assert_true(w.addr[3] == 0x402000 && !w.kernel[3]);
	/* The outermost frame is delivered too. */
	assert_true(w.addr[4] == 0x403000 && !w.kernel[4]);

	/* A return address at a symbol's first byte belongs to the function
	 * before it (the call was its last instruction), offset one past it. */
	{
		const uint64_t c2[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
					0xffffffff81000100ull };
		struct ana_sample s2 = { .ip = c2[1], .cpumode = PERF_RECORD_MISC_KERNEL,
					 .nr_callchain = 3, .callchain = c2 };

		memset(&w, 0, sizeof(w));
		assert_int_equal(ana_stack_walk(m, NULL, NULL, &s2, 0, 0, on_frame, &w), 2);
		assert_string_equal(w.name[1], "k_leaf");
		assert_int_equal(w.off[1], 0x100);
	}

	/* At most max_depth frames; a callback's stop ends the walk. */
	memset(&w, 0, sizeof(w));
	assert_int_equal(ana_stack_walk(m, NULL, NULL, &s, 0, 3, on_frame, &w), 3);
	assert_true(w.addr[2] == 0x401000);
	memset(&w, 0, sizeof(w));
	w.stop_at = 2;
	assert_int_equal(ana_stack_walk(m, NULL, NULL, &s, 0, 0, on_frame, &w), 2);

	/* No callchain: the ip alone. */
	s.nr_callchain = 0;
	s.callchain = NULL;
	memset(&w, 0, sizeof(w));
	assert_int_equal(ana_stack_walk(m, NULL, NULL, &s, 0, 0, on_frame, &w), 1);
	assert_string_equal(w.name[0], "k_leaf");

	ana_machine_free(m);
	ana_dso_table_free(dsos);
}

/* The same through a pipeline on the recording: each sample's frames, the
 * outermost (k_root) last. */
struct pwalk {
	struct ana_pipeline *p;
	unsigned samples, frames, roots_last;
	struct walk w;
};

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct pwalk *pw = ctx;
	unsigned n;

	memset(&pw->w, 0, sizeof(pw->w));
	n = ana_pipeline_walk(pw->p, t, s, 0, 0, on_frame, &pw->w);
	assert_int_equal(n, s->nr_callchain - 1);
	pw->samples++;
	pw->frames += n;
	if (n && n <= 16 && pw->w.name[n - 1] && !strcmp(pw->w.name[n - 1], "k_root"))
		pw->roots_last++;
	return 0;
}

static void test_pipeline_walk(void **state)
{
	struct ana_pipeline_opts o;
	struct pwalk pw = { 0 };
	struct ana_pipeline_stats st;

	(void)state;
	ana_pipeline_opts_init(&o);
	assert_int_equal(ana_pipeline_open(paths[0], &o, &pw.p), 0);
	assert_int_equal(ana_pipeline_run(pw.p, on_sample, NULL, &pw), 0);
	ana_pipeline_get_stats(pw.p, &st);
	assert_int_equal(st.samples, 10);
	assert_int_equal(st.passed, 10);
	assert_int_equal(pw.samples, 10);
	assert_int_equal(pw.frames, 4 * 6 + 2 * 3 + 2 * 2 + 2 * 2);
	assert_int_equal(pw.roots_last, 10);
	ana_pipeline_close(pw.p);
	ana_pipeline_opts_free(&o);
}

/* --- report: self and children --------------------------------------------- */

static void test_self(void **state)
{
	struct row rows[32];
	size_t n;

	(void)state;
	n = REPORT(rows, false, "--sort", "sym", paths[0]);
	assert_int_equal(n, 4);
	expect_row(rows, n, "[k] k_leaf", 40, 40, 4);
	expect_row(rows, n, "[k] k_rec", 20, 20, 2);
	expect_row(rows, n, "[k] k_mid", 20, 20, 2);
	expect_row(rows, n, "[k] k_other", 20, 20, 2);
	/* Highest overhead first. */
	assert_string_equal(rows[0].key, "[k] k_leaf");
}

static void test_children_recursion(void **state)
{
	struct row rows[32];
	size_t n;

	(void)state;
	n = REPORT(rows, true, "--sort", "sym", paths[0]);
	assert_int_equal(n, 6);
	expect_row(rows, n, "[k] k_root", 100, 0, 0);
	/* Three times on the stack of four samples, once on two: 6 of 10. */
	expect_row(rows, n, "[k] k_rec", 60, 20, 2);
	expect_row(rows, n, "[k] k_outer", 60, 0, 0);
	expect_row(rows, n, "[k] k_leaf", 40, 40, 4);
	expect_row(rows, n, "[k] k_mid", 20, 20, 2);
	expect_row(rows, n, "[k] k_other", 20, 20, 2);
	for (size_t i = 0; i < n; i++) {
		assert_true(rows[i].pct <= 100.0);
		assert_true(rows[i].self <= rows[i].pct);
		/* Ordered by children share. */
		if (i)
			assert_true(rows[i - 1].pct >= rows[i].pct);
	}
	assert_string_equal(rows[0].key, "[k] k_root");
}

/* Recursion through another function (k_rec <- k_mid <- k_rec) and a
 * recursive frame as the leaf: still once per sample. */
static void test_children_mutual(void **state)
{
	static const struct spec specs[] = {
		{ 10, 0, 1000, 5, { F_REC, F_MID, F_REC, F_MID, F_ROOT }, 3 },
		{ 10, 0, 1000, 2, { F_LEAF, F_ROOT }, 1 },
	};
	struct row rows[32];
	int rc;
	char *out;
	size_t n;

	(void)state;
	write_recording(paths[1], specs, AMB_ARRAY_SIZE(specs));
	out = run_cmd(ana_cmd_report, &rc, "report", "--children", "-g", "none", "--sort", "sym",
		      paths[1], NULL);
	assert_int_equal(rc, 0);
	n = parse_rows(out, true, rows, AMB_ARRAY_SIZE(rows));
	free(out);
	expect_row(rows, n, "[k] k_root", 100, 0, 0);
	expect_row(rows, n, "[k] k_rec", 75, 75, 3);
	expect_row(rows, n, "[k] k_mid", 75, 0, 0);
	expect_row(rows, n, "[k] k_leaf", 25, 25, 1);
}

/* --- sort keys -------------------------------------------------------------- */

static void test_sort_keys(void **state)
{
	struct row rows[32];
	size_t n;

	(void)state;
	n = REPORT(rows, false, "--sort", "comm", paths[0]);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].key, "alpha");
	assert_true(fabs(rows[0].pct - 80) < 0.001 && rows[0].samples == 8);
	assert_string_equal(rows[1].key, "beta");
	assert_true(fabs(rows[1].pct - 20) < 0.001 && rows[1].samples == 2);

	n = REPORT(rows, false, "--sort", "pid", paths[0]);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].samples, 8);
	assert_string_equal(rows[0].key, "10:alpha");
	assert_string_equal(rows[1].key, "20:beta");

	n = REPORT(rows, false, "--sort", "cpu", paths[0]);
	assert_int_equal(n, 2);
	assert_true(rows[0].samples == 8 && !strcmp(rows[0].key, "000"));
	assert_true(rows[1].samples == 2 && !strcmp(rows[1].key, "001"));

	/* Two keys: one row per distinct pair, the first key first. */
	n = REPORT(rows, false, "--sort", "comm,sym", paths[0]);
	assert_int_equal(n, 4);
	expect_row(rows, n, "alpha [k] k_leaf", 40, 40, 4);
	expect_row(rows, n, "alpha [k] k_rec", 20, 20, 2);
	expect_row(rows, n, "alpha [k] k_mid", 20, 20, 2);
	expect_row(rows, n, "beta [k] k_other", 20, 20, 2);
	assert_string_equal(rows[0].key, "alpha [k] k_leaf");
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1].pct >= rows[i].pct);
}

/* Overhead is the share of the period, not of the sample count. */
static void test_sort_period(void **state)
{
	static const struct spec specs[] = {
		{ 10, 0, 1000, 2, { F_LEAF, F_ROOT }, 3 },
		{ 20, 1, 9000, 2, { F_OTHER, F_ROOT }, 1 },
	};
	struct row rows[32];
	int rc;
	char *out;
	size_t n;

	(void)state;
	write_recording(paths[1], specs, AMB_ARRAY_SIZE(specs));
	out = run_cmd(ana_cmd_report, &rc, "report", "--no-children", "-g", "none", "--sort", "sym",
		      paths[1], NULL);
	assert_int_equal(rc, 0);
	n = parse_rows(out, false, rows, AMB_ARRAY_SIZE(rows));
	free(out);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].key, "[k] k_other");
	expect_row(rows, n, "[k] k_other", 75, 75, 1);
	expect_row(rows, n, "[k] k_leaf", 25, 25, 3);
}

/* --- filters ---------------------------------------------------------------- */

static void test_filters(void **state)
{
	struct row rows[32];
	size_t n;

	(void)state;
	/* Shares of all samples (perf's --percentage absolute, the default). */
	n = REPORT(rows, false, "--sort", "sym", "--comm", "beta", paths[0]);
	assert_int_equal(n, 1);
	expect_row(rows, n, "[k] k_other", 20, 20, 2);

	n = REPORT(rows, false, "--sort", "sym", "--pid", "10", paths[0]);
	assert_int_equal(n, 3);
	expect_row(rows, n, "[k] k_leaf", 40, 40, 4);

	n = REPORT(rows, false, "--sort", "sym", "--cpu", "1", paths[0]);
	assert_int_equal(n, 1);
	expect_row(rows, n, "[k] k_other", 20, 20, 2);

	/* --sym on the sample's first frame: k_rec is the leaf of #4-5 only. */
	n = REPORT(rows, false, "--sort", "sym", "--sym", "k_rec", paths[0]);
	assert_int_equal(n, 1);
	expect_row(rows, n, "[k] k_rec", 20, 20, 2);

	/* --percentage relative: shares of what the filters kept. */
	n = REPORT(rows, false, "--sort", "sym", "--percentage", "relative", "--pid", "10", paths[0]);
	assert_int_equal(n, 3);
	expect_row(rows, n, "[k] k_leaf", 50, 50, 4);
	expect_row(rows, n, "[k] k_rec", 25, 25, 2);
}

/* --time +START,+END in seconds from the first sample, both ends included:
 * samples sit exactly on the bounds (one per millisecond). */
static void test_time_filter(void **state)
{
	struct row rows[32];
	size_t n;

	(void)state;
	/* #3 (0.003 s) to #6 (0.006 s), given to the nanosecond, so that the
	 * end is exactly #6's time: k_leaf (#3), k_rec (#4, #5), k_mid (#6). */
	n = REPORT(rows, false, "--sort", "sym", "--time", "+0.003000000,+0.006000000", paths[0]);
	assert_int_equal(n, 3);
	expect_row(rows, n, "[k] k_leaf", 25, 25, 1);
	expect_row(rows, n, "[k] k_rec", 50, 50, 2);
	expect_row(rows, n, "[k] k_mid", 25, 25, 1);
	/* An end a nanosecond before #6 leaves it out. */
	n = REPORT(rows, false, "--sort", "sym", "--time", "+0.003,+0.005999999", paths[0]);
	assert_int_equal(n, 2);
	expect_row(rows, n, "[k] k_rec", 66.67, 66.67, 2);
	/* The first sample alone, and the last. */
	n = REPORT(rows, false, "--sort", "sym", "--time", "+0,+0", paths[0]);
	assert_int_equal(n, 1);
	expect_row(rows, n, "[k] k_leaf", 100, 100, 1);
	n = REPORT(rows, false, "--sort", "sym", "--time", "+0.009,", paths[0]);
	assert_int_equal(n, 1);
	expect_row(rows, n, "[k] k_other", 100, 100, 1);
}

/* --- script ------------------------------------------------------------------- */

/* Each sample's frames with sym+off: the leaf at +0x10, callers at their
 * return address (+0x20), the outermost frame last. */
static void test_script_frames(void **state)
{
	int rc;
	char *out;
	const char *p;
	unsigned roots = 0, callers = 0;

	(void)state;
	out = run_cmd(ana_cmd_script, &rc, "script", paths[0], NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "alpha      10 [000] 1.000000:       1000 cpu-clock: \n"
				    "\tffffffff81000010 k_leaf+0x10 ([kernel.kallsyms])\n"
				    "\tffffffff81000120 k_rec+0x20 ([kernel.kallsyms])\n"
				    "\tffffffff81000120 k_rec+0x20 ([kernel.kallsyms])\n"
				    "\tffffffff81000120 k_rec+0x20 ([kernel.kallsyms])\n"
				    "\tffffffff81000320 k_outer+0x20 ([kernel.kallsyms])\n"
				    "\tffffffff81000420 k_root+0x20 ([kernel.kallsyms])\n\n"));
	for (p = out; (p = strstr(p, "k_root+0x20 ([kernel.kallsyms])\n\n")); p++)
		roots++;
	for (p = out; (p = strstr(p, "k_outer+0x20 ")); p++)
		callers++;
	assert_int_equal(roots, 10);
	assert_int_equal(callers, 6);
	free(out);
}

/* --- diff: statistics on fixed counts --------------------------------------- */

/* The two-sided p of the two-proportion z-test with pooled variance. */
static double two_prop_p(double x1, double n1, double x2, double n2)
{
	double p = (x1 + x2) / (n1 + n2);
	double z = (x2 / n2 - x1 / n1) / sqrt(p * (1 - p) * (1 / n1 + 1 / n2));

	return erfc(fabs(z) / sqrt(2));
}

/* The number after "KEY": in the JSON object that holds "sym":"SYM". */
static double json_num(const char *json, const char *sym, const char *key)
{
	char pat[128];
	const char *o, *end, *v;

	snprintf(pat, sizeof(pat), "\"sym\":\"%s\"", sym);
	o = strstr(json, pat);
	if (!o)
		fail_msg("no row for %s in %s", sym, json);
	while (o > json && *o != '{')
		o--;
	end = strchr(o, '}');
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	v = strstr(o, pat);
	if (!v || v > end)
		fail_msg("no %s in the row of %s", key, sym);
	return strtod(v + strlen(pat), NULL);
}

static bool json_true(const char *json, const char *sym, const char *key)
{
	char pat[128];
	const char *o, *end, *v;

	snprintf(pat, sizeof(pat), "\"sym\":\"%s\"", sym);
	o = strstr(json, pat);
	assert_non_null(o);
	while (o > json && *o != '{')
		o--;
	end = strchr(o, '}');
	snprintf(pat, sizeof(pat), "\"%s\":true", key);
	v = strstr(o, pat);
	return v && v < end;
}

/* base: k_leaf 40 of 100 samples, k_mid 35, k_other 25; new: k_leaf 60 of
 * 100, k_mid 33, k_other 7.  In shares, the z-test and Holm's step-down
 * correction over the three rows decide what is significant. */
static void test_diff_stats(void **state)
{
	static const struct spec base[] = {
		{ 10, 0, 1000, 2, { F_LEAF, F_ROOT }, 40 },
		{ 10, 0, 1000, 2, { F_MID, F_ROOT }, 35 },
		{ 10, 0, 1000, 2, { F_OTHER, F_ROOT }, 25 },
	};
	static const struct spec new[] = {
		{ 10, 0, 1000, 2, { F_LEAF, F_ROOT }, 60 },
		{ 10, 0, 1000, 2, { F_MID, F_ROOT }, 33 },
		{ 10, 0, 1000, 2, { F_OTHER, F_ROOT }, 7 },
	};
	const char *syms[3] = { "k_leaf", "k_mid", "k_other" };
	const double b[3] = { 40, 35, 25 }, nw[3] = { 60, 33, 7 };
	double p[3], holm[3];
	int order[3] = { 0, 1, 2 }, rc;
	char *out;

	(void)state;
	write_recording(paths[1], base, AMB_ARRAY_SIZE(base));
	write_recording(paths[2], new, AMB_ARRAY_SIZE(new));
	out = run_cmd(ana_cmd_diff, &rc, "diff", "--all", "--json", paths[1], paths[2], NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"mode\":\"share\",\"test\":\"two-proportion-z\",\"correction\":\"holm\""));

	for (int i = 0; i < 3; i++)
		p[i] = two_prop_p(b[i], 100, nw[i], 100);
	/* Holm: the k-th smallest p times (m - k), kept monotone, at most 1. */
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (p[order[j]] < p[order[i]]) {
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	for (int k = 0, prev = 0; k < 3; k++) {
		double v = fmin(1, (3 - k) * p[order[k]]);

		holm[order[k]] = k && v < holm[prev] ? holm[prev] : v;
		prev = order[k];
	}
	for (int i = 0; i < 3; i++) {
		double gp = json_num(out, syms[i], "p"), gh = json_num(out, syms[i], "p_holm");

		assert_int_equal((int)json_num(out, syms[i], "base_samples"), (int)b[i]);
		assert_int_equal((int)json_num(out, syms[i], "new_samples"), (int)nw[i]);
		assert_true(fabs(json_num(out, syms[i], "base_pct") - b[i]) < 1e-3);
		assert_true(fabs(json_num(out, syms[i], "new_pct") - nw[i]) < 1e-3);
		assert_true(fabs(json_num(out, syms[i], "delta") - (nw[i] - b[i])) < 1e-3);
		/* %.6g in the output: 6 significant digits. */
		if (fabs(gp - p[i]) > 1e-5 * p[i] || fabs(gh - holm[i]) > 1e-5 * holm[i])
			fail_msg("%s: p %g p_holm %g, expected %g %g", syms[i], gp, gh, p[i], holm[i]);
		assert_true(json_true(out, syms[i], "significant") == (holm[i] < 0.05));
	}
	/* The fixed counts make k_leaf and k_other significant, k_mid not. */
	assert_true(holm[0] < 0.05 && holm[2] < 0.05 && holm[1] > 0.05);
	/* Rows by the size of the change: k_leaf (+20) before k_other (-18). */
	assert_true(strstr(out, "\"sym\":\"k_leaf\"") < strstr(out, "\"sym\":\"k_other\""));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_walk),
		cmocka_unit_test(test_pipeline_walk),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_children_recursion),
		cmocka_unit_test(test_children_mutual),
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_sort_period),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_time_filter),
		cmocka_unit_test(test_script_frames),
		cmocka_unit_test(test_diff_stats),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

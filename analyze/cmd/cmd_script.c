// SPDX-License-Identifier: MIT
/*
 * analyze/script.c - `amber-analyze script`: every sample on a line of its
 * own, perf script style, its callchain one frame per line below it, and
 * tracepoint payloads formatted by libtraceevent.  Streams: nothing is kept
 * but the thread model and the symbol caches.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "analyze/cmd/cmd.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

enum {
	F_COMM = 1u << 0, F_TID = 1u << 1, F_TIME = 1u << 2, F_EVENT = 1u << 3,
	F_IP = 1u << 4, F_SYM = 1u << 5, F_DSO = 1u << 6, F_SRCLINE = 1u << 7,
	F_PERIOD = 1u << 8, F_CPU = 1u << 9, F_TRACE = 1u << 10, F_PID = 1u << 11,
	F_ADDR = 1u << 12, F_WEIGHT = 1u << 13, F_DATA_SRC = 1u << 14, F_TOD = 1u << 15,
	F_SYMOFF = 1u << 16, F_CALLINDENT = 1u << 17,
	F_PHYS_ADDR = 1u << 18, F_DATA_PAGE_SIZE = 1u << 19, F_INS_LAT = 1u << 20,
};

static const struct { const char *name; unsigned bit; } field_names[] = {
	{ "comm", F_COMM }, { "tid", F_TID }, { "pid", F_PID }, { "time", F_TIME },
	{ "event", F_EVENT }, { "ip", F_IP }, { "sym", F_SYM }, { "dso", F_DSO },
	{ "srcline", F_SRCLINE }, { "period", F_PERIOD }, { "cpu", F_CPU },
	{ "trace", F_TRACE }, { "addr", F_ADDR }, { "weight", F_WEIGHT },
	{ "data_src", F_DATA_SRC }, { "tod", F_TOD }, { "symoff", F_SYMOFF },
	{ "callindent", F_CALLINDENT }, { "phys_addr", F_PHYS_ADDR },
	{ "data_page_size", F_DATA_PAGE_SIZE }, { "ins_lat", F_INS_LAT },
};

/* As perf script: addr is shown by default for samples that have one (-d),
 * symbols with their offset. */
#define DEFAULT_FIELDS (F_COMM | F_TID | F_TIME | F_EVENT | F_IP | F_SYM | F_SYMOFF | F_DSO | \
			F_PERIOD | F_CPU | F_TRACE | F_ADDR)
#define LOC_FIELDS (F_IP | F_SYM | F_DSO | F_SRCLINE)

/*
 * The frames of a sample whose chain the codec named (ana_sample.chain_key)
 * print as the last sample of that chain printed them, when the thread,
 * its address space (ana_pipeline_stack_key()) and the cpumode are the
 * same too: the text is kept per chain in a direct-mapped cache and
 * written again instead of resolving and formatting every frame.
 */
struct chain_text {
	uint64_t chain_key;            /* 0: empty */
	uint64_t stack_key;
	const struct ana_thread *t;
	uint32_t pid;
	uint8_t cpumode;
	char *text;
	size_t len, cap;
};
#define CHAIN_TEXTS 1024               /* a power of two */
#define CHAIN_TEXT_MAX (16u << 10)     /* longer texts are not kept */

struct script {
	unsigned fields;
	unsigned fields_named;         /* named in -F, not just defaults */
	bool json, inline_frames;
	bool ns, hide_callchain;       /* --ns, -G */
	bool task_events, mmap_events; /* --show-task-events, --show-mmap-events */
	unsigned max_stack;
	struct ana_pipeline_opts opts; /* filters, -e, --symfs, --no-debuginfod */
	struct ana_pipeline *p;
	struct ana_tp *tp;
	struct ana_out out;
	struct amb_buf tmp;
	struct ana_progress progress;
	unsigned nr_frames;    /* of the current sample */
	unsigned nr_json_fields;
	const char *leaf;      /* callindent: the current sample's leaf, interned */
	struct ana_intern names;
	int64_t realtime_off;  /* CLOCK_REALTIME - perf clock, ns (for tod) */
	int data_src_width;    /* the widest data_src text so far (perf pads to it) */
	time_t tod_sec;        /* the second tod_text shows, or -1 */
	char tod_text[32];     /* "YYYY-MM-DD HH:MM:SS", local time */
	struct chain_text *texts;  /* CHAIN_TEXTS, text output only; or NULL */
};

static const char *loc_dso_path(const struct ana_loc *loc)
{
	if (!loc->kernel && loc->dso)
		return loc->dso->path;
	return ana_loc_dso_name(loc);
}

/* "sym+0xoff" (symoff), or the made-up name of what has no symbol. */
static void print_sym_off(struct ana_out *o, const struct ana_loc *loc, bool symoff)
{
	char name[128];

	ana_out_text(o, ana_loc_sym_name(loc, name, sizeof(name)));
	if (symoff && (loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_KERNEL)) {
		ana_out_write(o, "+0x", 3);
		ana_out_x64(o, loc->offset, 0);
	}
}

/* " (dso path)" */
static void print_dso(struct ana_out *o, const struct ana_loc *loc)
{
	ana_out_write(o, " (", 2);
	ana_out_text(o, loc_dso_path(loc));
	ana_out_char(o, ')');
}

static int print_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct script *sc = ctx;
	struct ana_out *o = &sc->out;
	char name[128], line[512];
	unsigned i;

	(void)depth;
	sc->nr_frames++;
	if (sc->json) {
		if (sc->nr_frames > 1)
			ana_out_char(o, ',');
		ana_out_str(o, "{\"ip\":\"0x");
		ana_out_x64(o, loc->addr, 0);
		ana_out_char(o, '"');
		if (sc->fields & F_SYM) {
			ana_out_str(o, ",\"sym\":");
			ana_out_json(o, ana_loc_sym_name(loc, name, sizeof(name)));
			ana_out_str(o, ",\"offset\":");
			ana_out_u64(o, loc->offset, 0, ' ');
			if (sc->inline_frames && loc->kind == ANA_LOC_SYM && loc->sym->nr_inl) {
				ana_out_str(o, ",\"inlined\":[");
				for (i = 0; i < loc->sym->nr_inl; i++) {
					if (i)
						ana_out_char(o, ',');
					ana_out_json(o, loc->sym->inl[i].name);
				}
				ana_out_char(o, ']');
			}
		}
		if (sc->fields & F_DSO) {
			ana_out_str(o, ",\"dso\":");
			ana_out_json(o, loc_dso_path(loc));
		}
		if (sc->fields & F_SRCLINE) {
			ana_out_str(o, ",\"srcline\":");
			ana_out_json(o, ana_loc_srcline(loc, line, sizeof(line)));
		}
		ana_out_char(o, '}');
		return 0;
	}
	/* perf script shows inlined functions as frames of their own. */
	if (sc->inline_frames && (sc->fields & F_SYM) && loc->kind == ANA_LOC_SYM) {
		for (i = 0; i < loc->sym->nr_inl; i++) {
			ana_out_char(o, '\t');
			ana_out_x64(o, loc->addr, 16);
			ana_out_char(o, ' ');
			ana_out_text(o, loc->sym->inl[i].name);
			ana_out_write(o, " (inlined)\n", 11);
		}
	}
	ana_out_char(o, '\t');
	if (sc->fields & F_IP) {
		ana_out_x64(o, loc->addr, 16);
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_SYM)
		print_sym_off(o, loc, sc->fields & F_SYMOFF);
	if (sc->fields & F_DSO)
		print_dso(o, loc);
	ana_out_char(o, '\n');
	if (sc->fields & F_SRCLINE) {
		ana_out_write(o, "  ", 2);
		ana_out_text(o, ana_loc_srcline(loc, line, sizeof(line)));
		ana_out_char(o, '\n');
	}
	return 0;
}

/* Whether @smp's event records @bit of sample_type. */
static bool has_field(const struct ana_sample *smp, uint64_t bit)
{
	return smp->evt && (smp->evt->attr.sample_type & bit);
}

/* The wall-clock date and time of perf time @t ("2026-11-29 13:52:34"),
 * local time, and its microseconds in *@usec. */
static const char *tod(struct script *sc, uint64_t t, unsigned *usec)
{
	int64_t ns = (int64_t)t + sc->realtime_off;
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns < 0)
		ns = sec = 0;
	*usec = (unsigned)(ns % 1000000000 / 1000);
	if (sec != sc->tod_sec) {
		sc->tod_sec = sec;
		if (!localtime_r(&sec, &tm) ||
		    !strftime(sc->tod_text, sizeof(sc->tod_text), "%Y-%m-%d %H:%M:%S", &tm))
			snprintf(sc->tod_text, sizeof(sc->tod_text), "%lld", (long long)sec);
	}
	return sc->tod_text;
}

/* One tracepoint field as "name":value, numbers as numbers. */
static int json_field(void *ctx, const struct ana_tp_value *v)
{
	struct script *sc = ctx;
	struct ana_out *o = &sc->out;

	if (sc->nr_json_fields++)
		ana_out_char(o, ',');
	ana_out_json(o, v->name);
	ana_out_char(o, ':');
	if (v->kind == ANA_TP_TEXT)
		ana_out_json(o, v->text);
	else if (v->kind == ANA_TP_SIGNED)
		ana_out_printf(o, "%" PRId64, (int64_t)v->u);
	else
		ana_out_u64(o, v->u, 0, ' ');
	return 0;
}

/* The fields of a data source, in perf's words (resolve/datasrc.h). */
static void json_mem(struct ana_out *o, uint64_t data_src)
{
	struct ana_datasrc d;
	char buf[96];

	ana_datasrc_decode(data_src, &d);
	ana_out_str(o, ",\"mem\":{\"op\":");
	ana_out_json(o, ana_datasrc_op(&d, buf, sizeof(buf)));
	ana_out_str(o, ",\"level\":");
	ana_out_json(o, ana_datasrc_level(&d, buf, sizeof(buf)));
	ana_out_str(o, ",\"snoop\":");
	ana_out_json(o, ana_datasrc_snoop(&d, buf, sizeof(buf)));
	ana_out_str(o, ",\"tlb\":");
	ana_out_json(o, ana_datasrc_tlb(&d, buf, sizeof(buf)));
	ana_out_str(o, ",\"lock\":");
	ana_out_json(o, ana_datasrc_lock(&d, buf, sizeof(buf)));
	ana_out_str(o, ",\"blk\":");
	ana_out_json(o, ana_datasrc_blk(&d, buf, sizeof(buf)));
	ana_out_printf(o, ",\"remote\":%s,\"hops\":%u}", d.remote ? "true" : "false", d.hops);
}

static void print_json_sample(struct script *sc, const struct ana_sample *smp,
			      struct ana_thread *t, unsigned want)
{
	struct ana_out *o = &sc->out;
	const char *sep = "";

	ana_out_printf(o, "{");
	if (sc->fields & F_COMM) {
		ana_out_printf(o, "\"comm\":");
		ana_out_json(o, ana_thread_comm(t));
		sep = ",";
	}
	/* JSON names the process with the thread, whatever the columns. */
	if (sc->fields & (F_PID | F_TID)) {
		ana_out_printf(o, "%s\"pid\":%u,\"tid\":%u", sep, smp->pid, smp->tid);
		sep = ",";
	}
	if (sc->fields & F_CPU) {
		ana_out_printf(o, "%s\"cpu\":%u", sep, smp->cpu);
		sep = ",";
	}
	if (sc->fields & F_TIME) {
		ana_out_printf(o, "%s\"time\":%" PRIu64, sep, smp->time);
		sep = ",";
	}
	if (sc->fields & F_TOD) {
		unsigned usec;
		const char *day = tod(sc, smp->time, &usec);

		ana_out_printf(o, "%s\"tod\":\"%s.%06u\"", sep, day, usec);
		sep = ",";
	}
	if (sc->fields & F_PERIOD) {
		ana_out_printf(o, "%s\"period\":%" PRIu64, sep, smp->period);
		sep = ",";
	}
	if (sc->fields & F_EVENT) {
		ana_out_printf(o, "%s\"event\":", sep);
		ana_out_json(o, smp->evt ? smp->evt->name : "[unknown]");
		sep = ",";
	}
	if ((sc->fields & F_TRACE) && smp->evt && smp->evt->tracepoint && sc->tp) {
		sc->tmp.len = 0;
		if (!ana_tp_format(sc->tp, smp->raw, smp->raw_size, &sc->tmp)) {
			ana_out_printf(o, "%s\"trace\":", sep);
			ana_out_json(o, (const char *)sc->tmp.data);
			sep = ",";
			/* And each field as a JSON value of its own. */
			ana_out_printf(o, ",\"fields\":{");
			sc->nr_json_fields = 0;
			ana_tp_for_each_field(sc->tp, smp->raw, smp->raw_size, json_field, sc);
			ana_out_char(o, '}');
		}
	}
	if ((sc->fields & F_ADDR) && has_field(smp, PERF_SAMPLE_ADDR)) {
		ana_out_printf(o, "%s\"addr\":\"0x%" PRIx64 "\"", sep, smp->addr);
		sep = ",";
	}
	if ((sc->fields & F_DATA_SRC) && has_field(smp, PERF_SAMPLE_DATA_SRC)) {
		ana_out_printf(o, "%s\"data_src\":\"0x%" PRIx64 "\"", sep, smp->data_src);
		json_mem(o, smp->data_src);
		sep = ",";
	}
	if (sc->fields & (F_WEIGHT | F_INS_LAT)) {
		uint64_t w;
		uint32_t ins_lat;

		if (ana_sample_weight(smp, &w, &ins_lat) && (sc->fields & F_WEIGHT)) {
			ana_out_printf(o, "%s\"weight\":%" PRIu64, sep, w);
			sep = ",";
		}
		if ((sc->fields & F_INS_LAT) && has_field(smp, PERF_SAMPLE_WEIGHT_STRUCT)) {
			ana_out_printf(o, "%s\"ins_lat\":%" PRIu32, sep, ins_lat);
			sep = ",";
		}
	}
	if ((sc->fields & F_PHYS_ADDR) && has_field(smp, PERF_SAMPLE_PHYS_ADDR)) {
		ana_out_printf(o, "%s\"phys_addr\":\"0x%" PRIx64 "\"", sep, smp->phys_addr);
		sep = ",";
	}
	if ((sc->fields & F_DATA_PAGE_SIZE) && has_field(smp, PERF_SAMPLE_DATA_PAGE_SIZE)) {
		ana_out_printf(o, "%s\"data_page_size\":%" PRIu64, sep, smp->data_page_size);
		sep = ",";
	}
	if (sc->fields & (F_IP | F_SYM | F_DSO | F_SRCLINE)) {
		ana_out_printf(o, "%s\"callchain\":[", sep);
		sc->nr_frames = 0;
		ana_pipeline_walk(sc->p, t, smp, want, sc->hide_callchain ? 1 : sc->max_stack,
				  print_frame, sc);
		ana_out_printf(o, "]");
	}
	ana_out_printf(o, "}\n");
}

/* What starts every line: comm, pid/tid, cpu, time of day, time. */
static void print_start(struct script *sc, const char *comm, uint32_t pid, uint32_t tid,
			uint32_t cpu, uint64_t time)
{
	struct ana_out *o = &sc->out;

	/* The hot path formats by hand: printf is most of the time otherwise. */
	if (sc->fields & F_COMM) {
		ana_out_text_right(o, comm, 16);
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_PID) {
		ana_out_u64(o, pid, 7, ' ');
		ana_out_char(o, '/');
	}
	if (sc->fields & F_TID) {
		ana_out_u64(o, tid, 7, ' ');
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_CPU) {
		ana_out_char(o, '[');
		ana_out_u64(o, cpu, 3, '0');
		ana_out_write(o, "] ", 2);
	}
	if (sc->fields & F_TOD) {
		unsigned usec;

		ana_out_str(o, tod(sc, time, &usec));
		ana_out_char(o, '.');
		ana_out_u64(o, usec, 6, '0');
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_TIME) {
		ana_out_u64(o, time / 1000000000, 0, ' ');
		ana_out_char(o, '.');
		if (sc->ns)
			ana_out_u64(o, time % 1000000000, 9, '0');
		else
			ana_out_u64(o, time % 1000000000 / 1000, 6, '0');
		ana_out_write(o, ": ", 2);
	}
}

/* callindent: count the frames, keep the leaf's name. */
static int note_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct script *sc = ctx;
	char name[128];

	if (!depth)
		sc->leaf = ana_intern(&sc->names, ana_loc_sym_name(loc, name, sizeof(name)));
	sc->nr_frames++;
	return 0;
}

/* callindent: the leaf function, indented four columns per caller, as
 * perf script indents by call depth. */
static void print_callindent(struct script *sc, const struct ana_sample *smp,
			     struct ana_thread *t)
{
	struct ana_out *o = &sc->out;
	unsigned depth;

	sc->nr_frames = 0;
	sc->leaf = NULL;
	ana_pipeline_walk(sc->p, t, smp, 0, sc->max_stack, note_frame, sc);
	depth = sc->nr_frames ? AMB_MIN(sc->nr_frames - 1, 64) : 0;
	for (unsigned i = 0; i < 4 * depth; i++)
		ana_out_char(o, ' ');
	ana_out_text(o, sc->leaf ? sc->leaf : "[unknown]");
	ana_out_char(o, ' ');
}

static bool has_phys(const struct script *sc, const struct ana_sample *smp)
{
	return ((sc->fields & F_PHYS_ADDR) && has_field(smp, PERF_SAMPLE_PHYS_ADDR)) ||
	       ((sc->fields & F_DATA_PAGE_SIZE) && has_field(smp, PERF_SAMPLE_DATA_PAGE_SIZE));
}

/* The physical address and data page size come after the ip, symbol and
 * dso, as perf script prints them. */
static void print_phys(struct script *sc, struct ana_out *o, const struct ana_sample *smp)
{
	if ((sc->fields & F_PHYS_ADDR) && has_field(smp, PERF_SAMPLE_PHYS_ADDR)) {
		ana_out_x64(o, smp->phys_addr, 16);
		ana_out_char(o, ' ');
	}
	if ((sc->fields & F_DATA_PAGE_SIZE) && has_field(smp, PERF_SAMPLE_DATA_PAGE_SIZE)) {
		char size[24];

		ana_out_str(o, ana_page_size_name(smp->data_page_size, size, sizeof(size)));
		ana_out_char(o, ' ');
	}
}

/*
 * The frames of @smp of @t, one line each: the text of its chain's
 * cache entry when that matches (struct chain_text), else walked, and
 * the text kept for the next sample of the chain.
 */
static void print_frames(struct script *sc, const struct ana_sample *smp, struct ana_thread *t,
			 unsigned want)
{
	struct chain_text *ct = NULL;
	struct ana_out_mark mark;
	uint64_t key = 0;
	const char *text;
	size_t len;

	if (sc->texts && smp->chain_key && (key = ana_pipeline_stack_key(sc->p, t, smp))) {
		ct = &sc->texts[amb_hash_u64(smp->chain_key) & (CHAIN_TEXTS - 1)];
		if (ct->chain_key == smp->chain_key && ct->stack_key == key && ct->t == t &&
		    ct->pid == smp->pid && ct->cpumode == smp->cpumode) {
			ana_out_write(&sc->out, ct->text, ct->len);
			return;
		}
	}
	if (!ct || !ana_out_mark(&sc->out, CHAIN_TEXT_MAX, &mark)) {
		ana_pipeline_walk(sc->p, t, smp, want, sc->max_stack, print_frame, sc);
		return;
	}
	ana_pipeline_walk(sc->p, t, smp, want, sc->max_stack, print_frame, sc);
	ct->chain_key = 0;
	text = ana_out_since(&sc->out, &mark, &len);
	if (!text || len > CHAIN_TEXT_MAX)
		return;
	if (len > ct->cap) {
		char *p = realloc(ct->text, len);

		if (!p)
			return;
		ct->text = p;
		ct->cap = len;
	}
	memcpy(ct->text, text, len);
	ct->len = len;
	ct->chain_key = smp->chain_key;
	ct->stack_key = key;
	ct->t = t;
	ct->pid = smp->pid;
	ct->cpumode = smp->cpumode;
}

static int process_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct script *sc = ctx;
	struct ana_out *o = &sc->out;
	unsigned want = 0, loc_fields = sc->fields & LOC_FIELDS;
	bool tracepoint = smp->evt && smp->evt->tracepoint;
	bool stack = (smp->nr_callchain || smp->user_stack_size) && !sc->hide_callchain;

	if (sc->fields & F_SRCLINE)
		want |= ANA_SYM_SRCLINE;
	if (sc->inline_frames)
		want |= ANA_SYM_INLINE;
	if (sc->json) {
		print_json_sample(sc, smp, t, want);
		return 0;
	}
	print_start(sc, ana_thread_comm(t), smp->pid, smp->tid, smp->cpu, smp->time);
	if ((sc->fields & F_PERIOD) && !tracepoint) {
		ana_out_u64(o, smp->period, 10, ' ');
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_EVENT) {
		ana_out_text(o, smp->evt ? smp->evt->name : "[unknown]");
		ana_out_write(o, ": ", 2);
	}
	if (sc->fields & F_CALLINDENT)
		print_callindent(sc, smp, t);
	/* As in perf script, a tracepoint's line ends with its payload: its ip
	 * and symbol are shown when it has a stack, or when -F names them. */
	if (tracepoint && !stack)
		loc_fields &= sc->fields_named;
	if (tracepoint && (sc->fields & F_TRACE)) {
		sc->tmp.len = 0;
		if (sc->tp && !ana_tp_format(sc->tp, smp->raw, smp->raw_size, &sc->tmp))
			ana_out_text(o, (const char *)sc->tmp.data);
		else
			ana_out_printf(o, "[payload of %u bytes not decoded]", smp->raw_size);
		if (loc_fields && !stack)
			ana_out_char(o, ' ');
	}
	/* perf's widths: the data address and weight in 16 columns. */
	if ((sc->fields & F_ADDR) && has_field(smp, PERF_SAMPLE_ADDR)) {
		ana_out_x64(o, smp->addr, 16);
		ana_out_char(o, ' ');
	}
	if ((sc->fields & F_DATA_SRC) && has_field(smp, PERF_SAMPLE_DATA_SRC)) {
		char text[160];
		int n;

		/* perf script: the value, its description, padded to the
		 * widest so far. */
		ana_out_x64(o, smp->data_src, 16);
		ana_out_char(o, ' ');
		ana_datasrc_describe(smp->data_src, text, sizeof(text));
		n = (int)strlen(text);
		sc->data_src_width = AMB_MAX(sc->data_src_width, n);
		ana_out_printf(o, "%-*s ", sc->data_src_width, text);
	}
	if (sc->fields & (F_WEIGHT | F_INS_LAT)) {
		uint64_t w;
		uint32_t ins_lat;

		if (ana_sample_weight(smp, &w, &ins_lat) && (sc->fields & F_WEIGHT)) {
			ana_out_u64(o, w, 16, ' ');
			ana_out_char(o, ' ');
		}
		if ((sc->fields & F_INS_LAT) && has_field(smp, PERF_SAMPLE_WEIGHT_STRUCT)) {
			ana_out_u64(o, ins_lat, 16, ' ');
			ana_out_char(o, ' ');
		}
	}
	if (!loc_fields) {
		print_phys(sc, o, smp);
		ana_out_char(o, '\n');
		return 0;
	}
	if (!stack) {
		/* No stack: the ip on the sample's own line, as perf does. */
		struct ana_loc loc;
		char line[512];

		ana_machine_resolve(ana_pipeline_machine(sc->p), t, smp->cpumode, smp->ip, smp->ip, want, &loc);
		if (loc_fields & F_IP) {
			ana_out_x64(o, smp->ip, 16);
			ana_out_char(o, ' ');
		}
		if (loc_fields & F_SYM)
			print_sym_off(o, &loc, sc->fields & F_SYMOFF);
		if (loc_fields & F_DSO)
			print_dso(o, &loc);
		if (loc_fields & F_SRCLINE) {
			ana_out_write(o, "\n  ", 3);
			ana_out_text(o, ana_loc_srcline(&loc, line, sizeof(line)));
		}
		print_phys(sc, o, smp);
		ana_out_char(o, '\n');
		return 0;
	}
	ana_out_char(o, '\n');
	sc->nr_frames = 0;
	print_frames(sc, smp, t, want);
	/* perf script: after the chain, on a line of their own. */
	if (has_phys(sc, smp)) {
		print_phys(sc, o, smp);
		ana_out_char(o, '\n');
	}
	ana_out_char(o, '\n');
	return 0;
}

static void tick(void *ctx, uint64_t records)
{
	ana_progress_show(ctx, records);
}

/* The record types --show-task-events and --show-mmap-events show. */
static bool shown_record(const struct script *sc, uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return sc->task_events;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return sc->mmap_events;
	default:
		return false;
	}
}

static void print_record_json(struct script *sc, const struct ana_record *rec, const char *comm)
{
	struct ana_out *o = &sc->out;

	ana_out_printf(o, "{\"record\":");
	ana_out_json(o, ana_record_type_name(rec->type));
	ana_out_printf(o, ",\"comm\":");
	ana_out_json(o, comm);
	ana_out_printf(o, ",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"time\":%" PRIu64, rec->pid,
		       rec->tid, rec->cpu, rec->time);
	switch (rec->type) {
	case PERF_RECORD_COMM:
		ana_out_printf(o, ",\"exec\":%s", rec->u.comm.exec ? "true" : "false");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		ana_out_printf(o, ",\"ppid\":%u,\"ptid\":%u", rec->u.fork.ppid, rec->u.fork.ptid);
		break;
	default:
		ana_out_printf(o, ",\"start\":\"0x%" PRIx64 "\",\"len\":\"0x%" PRIx64
			       "\",\"pgoff\":\"0x%" PRIx64 "\",\"filename\":", rec->u.mmap.addr,
			       rec->u.mmap.len, rec->u.mmap.pgoff);
		ana_out_json(o, rec->u.mmap.filename ? rec->u.mmap.filename : "");
		break;
	}
	ana_out_printf(o, "}\n");
}

/*
 * --show-task-events, --show-mmap-events: COMM, FORK, EXIT, MMAP and
 * MMAP2 records on lines of their own, in perf script's words, where
 * --time, --pid, --tid, --comm and --cpu let them through.
 */
static int process_other(void *ctx, const struct ana_record *rec)
{
	struct script *sc = ctx;
	struct ana_out *o = &sc->out;
	const struct ana_filter *f = ana_pipeline_filter(sc->p);
	struct ana_sample as = { .pid = rec->pid, .tid = rec->tid, .cpu = rec->cpu };
	struct ana_thread *t;
	const char *comm;

	if (!shown_record(sc, rec->type) || !ana_filter_time(f, rec->time))
		return 0;
	if (rec->type == PERF_RECORD_COMM) {
		as.pid = rec->u.comm.pid;
		as.tid = rec->u.comm.tid;
	} else if (rec->type == PERF_RECORD_FORK || rec->type == PERF_RECORD_EXIT) {
		as.pid = rec->u.fork.pid;
		as.tid = rec->u.fork.tid;
	} else {
		as.pid = rec->u.mmap.pid;
		as.tid = rec->u.mmap.tid;
	}
	t = ana_machine_find_thread(ana_pipeline_machine(sc->p), as.tid);
	comm = t ? ana_thread_comm(t) : ":-1";
	if (t && !ana_filter_thread(f, &as, t))
		return 0;
	if (!t && (f->nr_pids || f->nr_tids || f->comms))
		return 0;
	if (sc->json) {
		print_record_json(sc, rec, comm);
		return 0;
	}
	print_start(sc, comm, as.pid, as.tid, rec->cpu, rec->time);
	ana_out_str(o, "PERF_RECORD_");
	ana_out_str(o, ana_record_type_name(rec->type));
	switch (rec->type) {
	case PERF_RECORD_COMM:
		ana_out_printf(o, "%s: ", rec->u.comm.exec ? " exec" : "");
		ana_out_text(o, rec->u.comm.comm ? rec->u.comm.comm : "");
		ana_out_printf(o, ":%u/%u\n", rec->u.comm.pid, rec->u.comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		ana_out_printf(o, "(%u:%u):(%u:%u)\n", rec->u.fork.pid, rec->u.fork.tid,
			       rec->u.fork.ppid, rec->u.fork.ptid);
		break;
	default: {
		const uint32_t prot = rec->u.mmap.prot;

		ana_out_printf(o, " %d/%d: [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64,
			       (int)rec->u.mmap.pid, (int)rec->u.mmap.tid, rec->u.mmap.addr,
			       rec->u.mmap.len, rec->u.mmap.pgoff);
		if (rec->type == PERF_RECORD_MMAP) {
			ana_out_printf(o, "]: %c ", prot & PROT_EXEC ? 'x' : 'r');
		} else {
			if (rec->u.mmap.build_id_size) {
				ana_out_str(o, " <");
				for (unsigned i = 0; i < rec->u.mmap.build_id_size; i++)
					ana_out_printf(o, "%02x", rec->u.mmap.build_id[i]);
				ana_out_char(o, '>');
			} else {
				ana_out_printf(o, " %02x:%02x %" PRIu64 " %" PRIu64, rec->u.mmap.maj,
					       rec->u.mmap.min, rec->u.mmap.ino,
					       rec->u.mmap.ino_generation);
			}
			ana_out_printf(o, "]: %c%c%c%c ", prot & PROT_READ ? 'r' : '-',
				       prot & PROT_WRITE ? 'w' : '-', prot & PROT_EXEC ? 'x' : '-',
				       rec->u.mmap.flags & MAP_SHARED ? 's' : 'p');
		}
		ana_out_text(o, rec->u.mmap.filename ? rec->u.mmap.filename : "");
		ana_out_char(o, '\n');
		break;
	}
	}
	return 0;
}

static int parse_fields(struct script *sc, const char *arg)
{
	const char *p = arg;
	bool add = *p == '+';

	sc->fields = add ? DEFAULT_FIELDS : 0;
	if (add)
		p++;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p), i;

		for (i = 0; i < AMB_ARRAY_SIZE(field_names); i++)
			if (strlen(field_names[i].name) == len && !strncmp(p, field_names[i].name, len))
				break;
		if (i == AMB_ARRAY_SIZE(field_names)) {
			char all[512];
			size_t n = 0;

			for (i = 0; i < AMB_ARRAY_SIZE(field_names) && n < sizeof(all); i++)
				n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", i ? ", " : "",
						      field_names[i].name);
			amb_errmsg_set("unknown field '%.*s' (fields: %s)", (int)len, p, all);
			return -EINVAL;
		}
		sc->fields |= field_names[i].bit;
		sc->fields_named |= field_names[i].bit;
		if (!c)
			return 0;
		p = c + 1;
	}
}

static const char usage[] =
"usage: amber-analyze script [OPTIONS] [FILE]\n"
"\n"
"Every sample, with its callchain, in time order.\n"
"\n"
"  -F, --fields LIST      comm,pid,tid,time,tod,event,ip,sym,symoff,dso,srcline,\n"
"                         period,cpu,trace,addr,data_src,weight,ins_lat,phys_addr,\n"
"                         data_page_size,callindent (+LIST adds to the default,\n"
"                         which has symoff; addr and data_src where the samples\n"
"                         have them, -d; weight and ins_lat, -W; phys_addr,\n"
"                         --phys-data; data_page_size, --data-page-size; data_src\n"
"                         is decoded as perf script does; tod: wall-clock date and\n"
"                         time; callindent: the function, indented by its call\n"
"                         depth)\n"
"      --ns               times to the nanosecond\n"
"  -G, --hide-call-graph  the sampled ip only, not the call chain\n"
"      --show-task-events COMM, FORK and EXIT records too\n"
"      --show-mmap-events MMAP and MMAP2 records too\n"
"      --max-stack N      at most N frames per sample\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --no-inline        no inlined functions in callchains\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs\n"
"      --dso/--sym LIST   only samples whose ip is in these\n"
"      --time RANGES      START,END with times as script prints them (309.76,\n"
"                         309.8), +SECONDS from the start (+0.1,+0.5) or\n"
"                         HH:MM:SS[.frac]; ranges separated by spaces; or\n"
"                         percentages of the span: 10%/2 (the 2nd tenth),\n"
"                         0%-10%,90%-100%\n"
"  -e, --event NAME       only this event\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --no-demangle      C++ and Rust symbols as the ELF spells them\n"
"  -j, --jobs N           N threads: main + N-1 decoding (default: one per CPU)\n"
"      --json             one JSON object per sample\n";

enum { O_JSON = 256, O_MAXSTACK, O_NO_INLINE, O_NS, O_TASK_EVENTS, O_MMAP_EVENTS };

struct script_args {
	struct script *sc;
	const char **path;
};

static int script_option(void *ctx, int c, const char *arg)
{
	struct script_args *a = ctx;
	struct script *sc = a->sc;
	unsigned long v;
	char *end;

	switch (c) {
	case 'F': return parse_fields(sc, arg);
	case O_MAXSTACK:
		v = strtoul(arg, &end, 10);
		if (end == arg || *end || v > UINT32_MAX || *arg == '-')
			return amb_errmsg_set("not a number of frames"), -EINVAL;
		sc->max_stack = (unsigned)v;
		return 0;
	case O_NO_INLINE: sc->inline_frames = false; return 0;
	case O_NS: sc->ns = true; return 0;
	case 'G': sc->hide_callchain = true; return 0;
	case O_TASK_EVENTS: sc->task_events = true; return 0;
	case O_MMAP_EVENTS: sc->mmap_events = true; return 0;
	case O_JSON: sc->json = true; return 0;
	case 'i': *a->path = arg; return 0;
	default: return 1;
	}
}

int ana_cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fields", required_argument, NULL, 'F' },
		{ "max-stack", required_argument, NULL, O_MAXSTACK },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "ns", no_argument, NULL, O_NS },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "show-task-events", no_argument, NULL, O_TASK_EVENTS },
		{ "show-mmap-events", no_argument, NULL, O_MMAP_EVENTS },
		{ "json", no_argument, NULL, O_JSON },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "script", usage, "F:i:G", opts, 1, 1, true };
	struct script sc = { .fields = DEFAULT_FIELDS, .inline_frames = true };
	const char *path = NULL;
	struct script_args a = { &sc, &path };
	int err, werr, rc;

	ana_pipeline_opts_init(&sc.opts);
	rc = ana_cmd_parse(&desc, argc, argv, &sc.opts, script_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		goto out;
	rc = 1;
	sc.opts.tracepoints = sc.fields & F_TRACE;
	if (ana_cmd_open("script", path, &sc.opts, &sc.p))
		goto out;
	sc.tp = ana_pipeline_tp(sc.p);
	sc.tod_sec = -1;
	if (sc.fields & F_TOD) {
		int64_t pref, rref;

		if (ana_session_clock_ref(ana_pipeline_session(sc.p), &pref, &rref)) {
			ana_cmd_error("script", "%s has no clock reference (META clock.ref.*): "
				      "tod cannot be shown", path);
			goto out;
		}
		sc.realtime_off = rref - pref;
	}
	ana_out_init(&sc.out, stdout);
	if (sc.json)
		ana_out_no_cut(&sc.out);
	else
		sc.texts = calloc(CHAIN_TEXTS, sizeof(*sc.texts));   /* NULL: not kept */
	ana_progress_init(&sc.progress, "script");
	ana_pipeline_set_progress(sc.p, tick, &sc.progress);
	err = ana_pipeline_run(sc.p, process_sample,
			       sc.task_events || sc.mmap_events ? process_other : NULL, &sc);
	ana_progress_done(&sc.progress);
	werr = ana_out_finish(&sc.out);
	if (werr) {
		ana_cmd_error("script", "writing the output: %s", strerror(-werr));
		goto out;
	}
	if (err < 0) {
		ana_cmd_fail("script", path, err);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; sc.texts && i < CHAIN_TEXTS; i++)
		free(sc.texts[i].text);
	free(sc.texts);
	amb_buf_free(&sc.tmp);
	ana_intern_free(&sc.names);
	ana_pipeline_close(sc.p);
	ana_pipeline_opts_free(&sc.opts);
	return rc;
}

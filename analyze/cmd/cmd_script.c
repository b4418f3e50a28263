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
#include <time.h>

#include "analyze/cmd/cmd.h"
#include <amber/common.h>

enum {
	F_COMM = 1u << 0, F_TID = 1u << 1, F_TIME = 1u << 2, F_EVENT = 1u << 3,
	F_IP = 1u << 4, F_SYM = 1u << 5, F_DSO = 1u << 6, F_SRCLINE = 1u << 7,
	F_PERIOD = 1u << 8, F_CPU = 1u << 9, F_TRACE = 1u << 10, F_PID = 1u << 11,
	F_ADDR = 1u << 12, F_WEIGHT = 1u << 13, F_DATA_SRC = 1u << 14, F_TOD = 1u << 15,
	F_PHYS_ADDR = 1u << 16, F_DATA_PAGE_SIZE = 1u << 17, F_INS_LAT = 1u << 18,
};

static const struct { const char *name; unsigned bit; } field_names[] = {
	{ "comm", F_COMM }, { "tid", F_TID }, { "pid", F_PID }, { "time", F_TIME },
	{ "event", F_EVENT }, { "ip", F_IP }, { "sym", F_SYM }, { "dso", F_DSO },
	{ "srcline", F_SRCLINE }, { "period", F_PERIOD }, { "cpu", F_CPU },
	{ "trace", F_TRACE }, { "addr", F_ADDR }, { "weight", F_WEIGHT },
	{ "data_src", F_DATA_SRC }, { "tod", F_TOD }, { "phys_addr", F_PHYS_ADDR },
	{ "data_page_size", F_DATA_PAGE_SIZE }, { "ins_lat", F_INS_LAT },
};

/* As perf script: addr is shown by default for samples that have one (-d). */
#define DEFAULT_FIELDS (F_COMM | F_TID | F_TIME | F_EVENT | F_IP | F_SYM | F_DSO | \
			F_PERIOD | F_CPU | F_TRACE | F_ADDR)
#define LOC_FIELDS (F_IP | F_SYM | F_DSO | F_SRCLINE)

struct script {
	unsigned fields;
	unsigned fields_named;         /* named in -F, not just defaults */
	bool json, inline_frames;
	unsigned max_stack;
	struct ana_pipeline_opts opts; /* filters, -e, --symfs, --no-debuginfod */
	struct ana_pipeline *p;
	struct ana_tp *tp;
	struct ana_out out;
	struct amb_buf tmp;
	struct ana_progress progress;
	unsigned nr_frames;    /* of the current sample */
	int64_t realtime_off;  /* CLOCK_REALTIME - perf clock, ns (for tod) */
	int data_src_width;    /* the widest data_src text so far (perf pads to it) */
	time_t tod_sec;        /* the second tod_text shows, or -1 */
	char tod_text[32];     /* "YYYY-MM-DD HH:MM:SS", local time */
};

static const char *loc_dso_path(const struct ana_loc *loc)
{
	if (!loc->kernel && loc->dso)
		return loc->dso->path;
	return ana_loc_dso_name(loc);
}

/* "sym+0xoff", or the made-up name of what has no symbol. */
static void print_sym_off(struct ana_out *o, const struct ana_loc *loc)
{
	char name[128];

	ana_out_text(o, ana_loc_sym_name(loc, name, sizeof(name)));
	if (loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_KERNEL) {
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
		print_sym_off(o, loc);
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
	if (sc->fields & F_PID) {
		ana_out_printf(o, "%s\"pid\":%u", sep, smp->pid);
		sep = ",";
	}
	if (sc->fields & F_TID) {
		ana_out_printf(o, "%s\"tid\":%u", sep, smp->tid);
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
		ana_pipeline_walk(sc->p, t, smp, want, sc->max_stack, print_frame, sc);
		ana_out_printf(o, "]");
	}
	ana_out_printf(o, "}\n");
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

static int process_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct script *sc = ctx;
	struct ana_out *o = &sc->out;
	unsigned want = 0, loc_fields = sc->fields & LOC_FIELDS;
	bool tracepoint = smp->evt && smp->evt->tracepoint;
	bool stack = smp->nr_callchain || smp->user_stack_size;

	if (sc->fields & F_SRCLINE)
		want |= ANA_SYM_SRCLINE;
	if (sc->inline_frames)
		want |= ANA_SYM_INLINE;
	if (sc->json) {
		print_json_sample(sc, smp, t, want);
		return 0;
	}
	/* The hot path formats by hand: printf is most of the time otherwise. */
	if (sc->fields & F_COMM) {
		ana_out_text_right(o, ana_thread_comm(t), 16);
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_PID) {
		ana_out_u64(o, smp->pid, 7, ' ');
		ana_out_char(o, '/');
	}
	if (sc->fields & F_TID) {
		ana_out_u64(o, smp->tid, 7, ' ');
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_CPU) {
		ana_out_char(o, '[');
		ana_out_u64(o, smp->cpu, 3, '0');
		ana_out_write(o, "] ", 2);
	}
	if (sc->fields & F_TOD) {
		unsigned usec;

		ana_out_str(o, tod(sc, smp->time, &usec));
		ana_out_char(o, '.');
		ana_out_u64(o, usec, 6, '0');
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_TIME) {
		ana_out_u64(o, smp->time / 1000000000, 0, ' ');
		ana_out_char(o, '.');
		ana_out_u64(o, smp->time % 1000000000 / 1000, 6, '0');
		ana_out_write(o, ": ", 2);
	}
	if ((sc->fields & F_PERIOD) && !tracepoint) {
		ana_out_u64(o, smp->period, 10, ' ');
		ana_out_char(o, ' ');
	}
	if (sc->fields & F_EVENT) {
		ana_out_text(o, smp->evt ? smp->evt->name : "[unknown]");
		ana_out_write(o, ": ", 2);
	}
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
			print_sym_off(o, &loc);
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
	ana_pipeline_walk(sc->p, t, smp, want, sc->max_stack, print_frame, sc);
	/* perf script: after the chain, on a line of their own. */
	if (has_phys(sc, smp)) {
		print_phys(sc, o, smp);
		ana_out_char(o, '\n');
	}
	ana_out_char(o, '\n');
	return 0;
}

static void tick(void *ctx)
{
	ana_progress_tick(ctx);
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
		if (i == AMB_ARRAY_SIZE(field_names))
			return -EINVAL;
		sc->fields |= field_names[i].bit;
		sc->fields_named |= field_names[i].bit;
		if (!c)
			return 0;
		p = c + 1;
	}
}

static const char usage[] =
"usage: amber-analyze script [OPTIONS] FILE\n"
"\n"
"Every sample, with its callchain, in time order.\n"
"\n"
"  -F, --fields LIST      comm,pid,tid,time,tod,event,ip,sym,dso,srcline,period,cpu,\n"
"                         trace,addr,data_src,weight,ins_lat,phys_addr,data_page_size\n"
"                         (+LIST adds to the default; addr and data_src where the\n"
"                         samples have them, -d; weight and ins_lat, -W; phys_addr,\n"
"                         --phys-data; data_page_size, --data-page-size; data_src is\n"
"                         decoded as perf script does; tod: wall-clock date and time)\n"
"      --max-stack N      at most N frames per sample\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --no-inline        no inlined functions in callchains\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs\n"
"      --dso/--sym LIST   only samples whose ip is in these\n"
"      --time START,END   seconds from the first sample, or HH:MM:SS[.frac]\n"
"  -e, --event NAME       only this event\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"  -j, --jobs N           decode with N threads (default: one per CPU)\n"
"      --json             one JSON object per sample\n";

enum { O_JSON = 256, O_MAXSTACK, O_NO_INLINE };

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
		if (end == arg || *end || v > UINT32_MAX)
			return -EINVAL;
		sc->max_stack = (unsigned)v;
		return 0;
	case O_NO_INLINE: sc->inline_frames = false; return 0;
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
		{ "json", no_argument, NULL, O_JSON },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "script", usage, "F:i:", opts, 1, 1 };
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
	ana_progress_init(&sc.progress, "script");
	ana_pipeline_set_progress(sc.p, tick, &sc.progress);
	err = ana_pipeline_run(sc.p, process_sample, NULL, &sc);
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
	amb_buf_free(&sc.tmp);
	ana_pipeline_close(sc.p);
	ana_pipeline_opts_free(&sc.opts);
	return rc;
}

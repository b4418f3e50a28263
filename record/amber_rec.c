// SPDX-License-Identifier: MIT
/*
 * record/amber_rec.c - amber-rec: record perf rings into an .amber file.
 *
 * Order of work (FORMAT.md §9: everything needed to decode RING blocks is
 * written before the first one):
 *   parse options and events -> start the target (a forked command waits)
 *   -> open the events and rings -> META, EVENT_ATTR, TOPOLOGY, KSYMS,
 *   TRACEFS, SYNTH, BUILDID -> start draining -> enable (or exec) -> wait
 *   -> disable, final drain -> COUNTS and final META -> close -> trim the
 *   kernel symbols to those the samples use (ksyms_trim.c) -> summary.
 *
 * Exit status: the command's (128+N when killed by signal N); 0 for -p,
 * -t, -a without a command; 125 when amber-rec itself fails, 126/127 when
 * the command cannot be executed / found (the env(1) convention).
 *
 * A write error (disk full) stops the recording: the command is sent
 * SIGTERM, the file keeps every complete block (the writer truncates a torn
 * one, FORMAT.md §9), and amber-rec says how much was saved, and how many
 * of the samples captured are in it, and exits 125.
 *
 * The output (output.c) is checked before anything starts, made with
 * O_EXCL and held by descriptor: another amber-rec may move it aside
 * while this one records, and the trim and the summary follow it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "record/buildid.h"
#include "record/counts.h"
#include "record/drain.h"
#include "record/embed_files.h"
#include "record/events/events.h"
#include "record/events/tracefs.h"
#include "record/evsel.h"
#include "record/kernel.h"
#include "record/ksyms_trim.h"
#include "record/mem.h"
#include "record/meta.h"
#include "record/options.h"
#include "record/output.h"
#include "record/stat.h"
#include "record/synthesize.h"
#include "record/sysutil.h"
#include "record/target.h"
#include "record/topology.h"

#define EXIT_REC_FAIL   125
#define EXIT_NO_EXEC    126
#define EXIT_NOT_FOUND  127
/* A RING block is handed over at ~4 MiB: on dwarf samples zstd compresses
 * 4 MiB blocks 9% smaller than 1 MiB ones, and no slower. */
#define BLOCK_BYTES     (4u << 20)
#define WRITER_QUEUE    (64u << 20)
#define WAKEUP_MAX_BYTES (2u << 20)
#define LOOP_MS         50

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Warnings may name what a target mapped (any path a process chose):
 * one escaped line each (amb_fput_text(), common/util.h). */
static void print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fputs("amber-rec: warning: ", stderr);
	amb_fput_text(stderr, msg);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: amber-rec [OPTIONS] -- COMMAND [ARGS]\n"
		"       amber-rec [OPTIONS] -p PID[,PID] | -t TID[,TID] | -a | -C CPUS\n"
		"       amber-rec stat [OPTIONS] -- COMMAND [ARGS]   (amber-rec stat --help)\n"
		"       amber-rec mem [OPTIONS] -- COMMAND [ARGS]    (amber-rec mem --help)\n"
		"       amber-rec --list-events [PATTERN] [-v]\n\n"
		"  -e, --event SPEC         event to sample (repeatable; default cycles)\n"
		"  -F, --freq HZ            samples per second (default %u)\n"
		"  -c, --count PERIOD       sample every PERIOD events instead\n"
		"  -g                       kernel+user call chains (frame pointers)\n"
		"      --call-graph MODE    fp, or dwarf[,SIZE] (user stack copy, default %u)\n"
		"  -d, --data               data addresses and their source (what the PMU says\n"
		"                           of them), and the data mappings that hold them\n"
		"      --phys-data          physical addresses of the data\n"
		"      --data-page-size     page size of the data addresses\n"
		"  -W, --weight             the cost of each access (latency, where the PMU gives it)\n"
		"  -b, --branch             branch stacks (needs a PMU with LBR/BRBE)\n"
		"  -p, --pid PIDS           attach to processes (all their threads)\n"
		"  -t, --tid TIDS           attach to threads\n"
		"  -a, --all-cpus           system-wide\n"
		"  -C, --cpu LIST           only these CPUs (system-wide on them)\n"
		"      --duration SECONDS   stop after this long\n"
		"  -o, --output FILE        output (default %s; an existing one is moved to\n"
		"                           FILE.old, FILE.old.1, ...; /dev/null keeps nothing)\n"
		"  -m, --mmap-pages N       ring pages per CPU, a power of two\n"
		"  -z, --compression-level N  zstd level, 0 stores raw (default %d)\n"
		"      --flush-interval MS  write staged records at least this often (default %u)\n"
		"      --sync               fdatasync every block\n"
		"      --embed[=hit|all]    embed the ELF files of the DSOs the targets mapped\n"
		"                           executable (hit, the default) or of all DSOs\n"
		"      --kallsyms MODE      kernel symbols kept after a clean stop: used (those\n"
		"                           the samples name), all, or auto (used when that\n"
		"                           saves 1/%d of the file or more and no tracepoint\n"
		"                           prints kernel function pointers; the default)\n"
		"      --list-events [PAT]  list the event names -e takes, and why any does not open\n"
		"                           here; -v adds descriptions\n"
		"  -h, --help, --version\n",
		REC_DEFAULT_FREQ, REC_DEFAULT_STACK_SIZE, REC_DEFAULT_OUTPUT,
		AMB_DEFAULT_ZSTD_LEVEL, REC_DEFAULT_FLUSH_MS, REC_KSYMS_AUTO_SHARE);
}

/* Everything one recording holds; freed by rec_session_free(). */
struct rec_session {
	struct rec_opts opts;
	struct rec_event_list events;
	struct rec_target target;
	struct rec_sampling sampling;
	struct rec_evlist evlist;
	struct amb_writer *w;
	struct rec_output out;
	struct rec_drain drain;
	uint64_t start_ns;         /* before the prologue: SYNTH time, time.start_ns */
	uint64_t run_ns, end_ns;   /* events enabled .. disabled */
	char err[1024];
};

static int append_buf(struct rec_session *s, uint16_t type, struct amb_buf *b, uint64_t count,
		      uint64_t t0, uint64_t t1)
{
	struct amb_block_desc d = { .type = type, .stream = AMB_STREAM_NONE,
				    .record_count = count, .first_time = t0, .last_time = t1 };
	int err;

	if (!b->len)
		return 0;
	err = amb_writer_append_owned(s->w, &d, b->data, b->len);
	b->data = NULL;
	b->len = b->cap = 0;
	return err;
}

static uint64_t kv_count(const struct amb_buf *b)
{
	struct amb_cursor c;
	struct amb_kv kv;
	uint64_t n = 0;

	amb_cursor_init(&c, b->data, b->len);
	while (amb_kv_next(&c, &kv) == 1)
		n++;
	return n;
}

static int parse_events(struct rec_session *s)
{
	static char default_spec[] = "cycles";
	char *def[] = { default_spec };
	char **specs = s->opts.nr_event_specs ? s->opts.event_specs : def;
	size_t n = s->opts.nr_event_specs ? s->opts.nr_event_specs : 1;

	for (size_t i = 0; i < n; i++) {
		int err = rec_events_parse(&s->events, specs[i], s->err, sizeof(s->err));

		if (err)
			return err;
	}
	/* Only the default event may be replaced (cycles by cpu-clock). */
	for (size_t i = 0; !s->opts.nr_event_specs && i < s->events.n; i++)
		s->events.v[i].implicit = true;
	if (!s->events.n) {
		snprintf(s->err, sizeof(s->err), "no event to record");
		return -EINVAL;
	}
	for (size_t i = 0; i < s->events.n; i++) {
		if (s->events.v[i].tracepoint && !rec_tracefs_root()) {
			snprintf(s->err, sizeof(s->err),
				 "event '%s' is a tracepoint, but tracefs is not available (%s);\n"
				 "  mount it: mount -t tracefs nodev /sys/kernel/tracing",
				 s->events.v[i].name, strerror(errno));
			return -ENOENT;
		}
		s->sampling.raw |= s->events.v[i].tracepoint;
	}
	return 0;
}

static void setup_sampling(struct rec_session *s, unsigned pages)
{
	struct rec_sampling *sp = &s->sampling;
	long max_rate = rec_proc_sys_long("perf_event_max_sample_rate", 0);
	size_t ring_bytes = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);

	sp->freq = s->opts.freq;
	sp->period = s->opts.period;
	if (!sp->period && max_rate > 0 && sp->freq > (unsigned long)max_rate) {
		amb_warn("-F %u is above kernel.perf_event_max_sample_rate; using %ld Hz",
			 sp->freq, max_rate);
		sp->freq = (unsigned)max_rate;
	}
	sp->callgraph = s->opts.callgraph;
	sp->stack_size = s->opts.stack_size;
	sp->data = s->opts.data;
	sp->phys_data = s->opts.phys_data;
	sp->data_page_size = s->opts.data_page_size;
	sp->weight = s->opts.weight;
	sp->weight_struct = s->opts.weight && rec_weight_struct();
	sp->branch = s->opts.branch;
	sp->enable_on_exec = s->target.kind == REC_TARGET_CMD;
	sp->inherit = s->target.kind != REC_TARGET_TID && s->target.kind != REC_TARGET_SYSTEM;
	/* Wake the drain thread when a quarter of the ring, or 2 MiB, is
	 * full: on a busy machine a thread that wakes often for a short copy
	 * gets a CPU sooner than one that copies 8 MiB at a time. */
	sp->wakeup_bytes = (uint32_t)AMB_MIN(ring_bytes / 4, (size_t)WAKEUP_MAX_BYTES);
}

static int write_event_attrs(struct rec_session *s)
{
	struct amb_buf b = AMB_BUF_INIT;
	struct rec_evlist *el = &s->evlist;
	size_t per = el->nr_cpus * el->nr_threads;
	int err = 0;

	for (size_t e = 0; e < s->events.n && !err; e++) {
		struct rec_event *ev = &s->events.v[e];
		struct amb_event_entry ent;
		uint8_t *ids = malloc(per * 8 + 1);
		uint32_t nr = 0;

		if (!ids) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < per; i++)
			if (el->fds[e * per + i] >= 0)
				amb_put_le64(ids + 8 * nr++, el->ids[e * per + i]);
		memset(&ent, 0, sizeof(ent));
		ent.attr = (const uint8_t *)&ev->attr;
		ent.attr_size = sizeof(ev->attr);
		ent.name = ev->name;
		ent.name_len = (uint32_t)strlen(ev->name);
		ent.leader = ev->leader < 0 ? UINT32_MAX : (uint32_t)ev->leader;
		ent.flags = ev->fallback ? AMB_EVENT_FALLBACK : 0;
		ent.nr_ids = nr;
		ent.ids = ids;
		err = amb_event_put(&b, &ent);
		free(ids);
	}
	if (!err)
		err = append_buf(s, AMB_BLOCK_EVENT_ATTR, &b, s->events.n, 0, 0);
	amb_buf_free(&b);
	return err;
}

static int write_tracefs(struct rec_session *s)
{
	static const char *const headers[] = { "header_page", "header_event" };
	struct amb_buf b = AMB_BUF_INIT;
	int err = 0;

	if (!s->sampling.raw)
		return 0;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(headers) && !err; i++) {
		char rel[64];
		size_t len;
		char *text;

		snprintf(rel, sizeof(rel), "events/%s", headers[i]);
		text = rec_tracefs_read(rel, &len);
		if (!text) {
			amb_warn("tracefs %s: %s", rel, strerror(errno));
			continue;
		}
		err = amb_kv_put(&b, headers[i], text, len);
		free(text);
	}
	for (size_t e = 0; e < s->events.n && !err; e++) {
		struct rec_event *ev = &s->events.v[e];
		char rel[512], key[300];
		size_t len;
		char *text;

		if (!ev->tracepoint)
			continue;
		snprintf(key, sizeof(key), "%s/%s", ev->tp_system, ev->tp_event);
		snprintf(rel, sizeof(rel), "events/%s/format", key);
		text = rec_tracefs_read(rel, &len);
		if (!text) {
			amb_warn("tracefs %s: %s: its samples cannot be decoded", rel, strerror(errno));
			continue;
		}
		err = amb_kv_put(&b, key, text, len);
		free(text);
	}
	if (!err)
		err = append_buf(s, AMB_BLOCK_TRACEFS, &b, kv_count(&b), 0, 0);
	amb_buf_free(&b);
	return err;
}

/* KSYMS, then SYNTH (kernel maps and target processes) and BUILDID. */
static int write_kernel_and_synth(struct rec_session *s)
{
	struct amb_buf ks = AMB_BUF_INIT, syn = AMB_BUF_INIT, bids = AMB_BUF_INIT;
	struct rec_synth_ctx x;
	size_t klen = 0;
	char *kallsyms = rec_kallsyms_read(&klen);
	int err = 0;

	if (!kallsyms) {
		if (errno == EPERM)
			amb_warn("kernel.kptr_restrict hides kernel addresses (/proc/kallsyms reads "
				 "as zeros): kernel symbols will not be resolved; "
				 "set kernel.kptr_restrict=0 or run as root");
		else
			amb_warn("/proc/kallsyms: %s: kernel symbols will not be resolved",
				 strerror(errno));
	} else {
		uint64_t lines = 0;

		for (size_t i = 0; i < klen; i++)
			lines += kallsyms[i] == '\n';
		err = amb_buf_append(&ks, kallsyms, klen);
		if (!err)
			err = append_buf(s, AMB_BLOCK_KSYMS, &ks, lines, 0, 0);
	}

	memset(&x, 0, sizeof(x));
	x.sample_type = s->events.v[0].attr.sample_type;
	x.id = rec_evlist_first_id(&s->evlist, 0);
	x.time = s->start_ns;
	x.cpu = (uint32_t)s->target.cpus[0];
	x.buildids = &bids;
	x.data = s->opts.data;
	x.cache = rec_buildid_cache_new();
	if (!x.cache)
		err = -ENOMEM;
	if (!err)
		err = rec_synth_kernel(&x, &syn, kallsyms, klen);
	if (!err && s->target.kind == REC_TARGET_SYSTEM)
		err = rec_synth_all(&x, &syn);
	for (size_t i = 0; !err && i < s->target.nr_procs; i++)
		err = rec_synth_process(&x, &syn, s->target.procs[i]);
	/* A command is synthesized by the kernel itself: exec emits COMM and
	 * MMAP2 for everything it maps, with the events already enabled. */
	if (!err)
		err = append_buf(s, AMB_BLOCK_SYNTH, &syn, x.nr_records, s->start_ns, s->start_ns);
	if (!err)
		err = append_buf(s, AMB_BLOCK_BUILDID, &bids, x.nr_seen, 0, 0);
	rec_buildid_cache_free(x.cache);
	rec_synth_ctx_free(&x);
	amb_buf_free(&ks);
	amb_buf_free(&syn);
	amb_buf_free(&bids);
	free(kallsyms);
	return err;
}

static int write_prologue(struct rec_session *s, int argc, char **argv, unsigned pages)
{
	struct amb_buf b = AMB_BUF_INIT;
	char target[256], cpus[64];
	int err;

	switch (s->target.kind) {
	case REC_TARGET_CMD:
		snprintf(target, sizeof(target), "command %s", s->opts.argv[0]);
		break;
	case REC_TARGET_PID:
		snprintf(target, sizeof(target), "pid %d%s", (int)s->target.procs[0],
			 s->target.nr_procs > 1 ? " ..." : "");
		break;
	case REC_TARGET_TID:
		snprintf(target, sizeof(target), "tid %d%s", (int)s->target.threads[0],
			 s->target.nr_threads > 1 ? " ..." : "");
		break;
	default:
		snprintf(target, sizeof(target), "system-wide");
		break;
	}
	snprintf(cpus, sizeof(cpus), "%s", s->opts.cpulist ? s->opts.cpulist : "all");
	err = rec_meta_start(&b, argc, argv, target, cpus, pages, s->start_ns);
	if (!err)
		err = append_buf(s, AMB_BLOCK_META, &b, kv_count(&b), 0, 0);
	if (!err)
		err = write_event_attrs(s);
	if (!err) {
		err = rec_topology_build(&b);
		if (!err)
			err = append_buf(s, AMB_BLOCK_TOPOLOGY, &b, kv_count(&b), 0, 0);
	}
	if (!err)
		err = write_kernel_and_synth(s);
	if (!err)
		err = write_tracefs(s);
	amb_buf_free(&b);
	return err;
}

static int write_epilogue(struct rec_session *s, const struct rec_counters *c, int wstatus,
			  bool have_status)
{
	struct amb_buf b = AMB_BUF_INIT;
	char v[32];
	int n, err;

	n = rec_counts_build(&s->evlist, &s->target, &b);
	/* The counts' window: from enabling to disabling (FORMAT.md §5.4). */
	err = n < 0 ? n : append_buf(s, AMB_BLOCK_COUNTS, &b, (uint64_t)n, s->run_ns, s->end_ns);
#define PUT(key, val) do { \
		snprintf(v, sizeof(v), "%" PRIu64, (uint64_t)(val)); \
		if (!err) \
			err = amb_kv_put_str(&b, key, v); \
	} while (0)
	PUT("time.end_ns", s->end_ns);
	if (have_status) {
		int st = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);

		PUT("exit_status", st);
	}
	PUT("lost.records", c->lost_records);
	PUT("lost.samples", c->lost_samples);
	PUT("throttle", c->throttle);
	PUT("unthrottle", c->unthrottle);
#undef PUT
	if (!err)
		err = append_buf(s, AMB_BLOCK_META, &b, kv_count(&b), 0, 0);
	amb_buf_free(&b);
	return err;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL); /* a signal cuts it short, which is what we want */
}

/* Wait until the target ends, a signal, --duration or a writer error. */
static bool run_loop(struct rec_session *s, int *wstatus)
{
	uint64_t deadline = s->opts.duration > 0
			    ? s->run_ns + (uint64_t)(s->opts.duration * 1e9) : 0;
	bool have_status = false;
	int st;

	for (;;) {
		if (!rec_target_alive(&s->target, &st)) {
			if (s->target.kind != REC_TARGET_PID && s->target.kind != REC_TARGET_TID) {
				*wstatus = st;
				have_status = true;
			}
			break;
		}
		if (stop_signal || atomic_load(&s->drain.error) ||
		    (deadline && rec_now_ns() >= deadline))
			break;
		sleep_ms(LOOP_MS);
	}
	if (s->target.child > 0) {
		/* Stopped early: end the command too, and collect its status. */
		kill(s->target.child, stop_signal ? (int)stop_signal : SIGTERM);
		for (int i = 0; i < 40 && rec_target_alive(&s->target, &st); i++)
			sleep_ms(LOOP_MS);
		if (s->target.child > 0) {
			kill(s->target.child, SIGKILL);
			rec_reap(s->target.child, &st);
			s->target.child = 0;
		}
		*wstatus = st;
		have_status = true;
	}
	return have_status;
}

/*
 * The last lines: what was captured, and what the file holds, where it
 * is now.  @in_file is the number of samples in the file when a write
 * error cut it short (-1: all of them, or not known); @no_run says the
 * command never ran.
 */
static void print_summary(const struct rec_session *s, const struct rec_counters *c,
			  const struct amb_writer_stats *ws, uint64_t raw_saved, int64_t in_file,
			  bool no_run)
{
	double secs = s->run_ns ? (double)(s->end_ns - s->run_ns) / 1e9 : 0.0;
	double raw = (double)(ws->raw_bytes - AMB_MIN(raw_saved, ws->raw_bytes)) / 1e6;
	double file = s->out.discard ? 0.0 : (double)rec_output_size(&s->out) / 1e6;
	uint64_t lost = c->lost_records + c->lost_samples;
	char where[4096], holds[160];

	if (lost)
		amb_warn("lost %" PRIu64 " of %" PRIu64 " samples (%.1f%%): the ring overflowed; "
			 "use a larger -m or a lower -F", lost, c->samples + lost,
			 100.0 * (double)lost / (double)(c->samples + lost));
	if (c->bad)
		amb_warn("dropped %" PRIu64 " bytes of malformed ring content", c->bad);
	if (atomic_load(&s->drain.queue_full))
		amb_warn("the writer queue was full %lu times: compression or the disk could not "
			 "keep up and draining waited (try a lower -z)",
			 (unsigned long)atomic_load(&s->drain.queue_full));
	rec_output_where(&s->out, where, sizeof(where));
	if (no_run) {
		fputs("[ amber-rec: no samples: the command did not run; ", stderr);
		amb_fput_text(stderr, where);
		fprintf(stderr, " holds only the recording's description (%.2f MB) ]\n", file);
		return;
	}
	holds[0] = '\0';
	if (in_file >= 0)
		snprintf(holds, sizeof(holds), ", %" PRId64 " of them in the file (the rest "
			 "were not written)", in_file);
	else if (s->out.discard)
		snprintf(holds, sizeof(holds), ", none kept (-o /dev/null)");
	fprintf(stderr, "[ amber-rec: captured %" PRIu64 " samples (%" PRIu64 " lost)%s in %.1f s; "
		"raw %.2f MB, file %.2f MB (ratio %.1fx) -> ",
		c->samples, lost, holds, secs, raw, file, file > 0 ? raw / file : 0.0);
	amb_fput_text(stderr, where);
	fputs(" ]\n", stderr);
}

/* After a clean stop: keep only the kernel symbols the samples use
 * (ksyms_trim.c).  A failure costs nothing but the saving: the recording
 * stays as it was written.  Returns the raw bytes the trim left out, for
 * the summary. */
static uint64_t trim_kernel_symbols(struct rec_session *s)
{
	struct rec_ksyms_trim_stats st;
	int err;

	/* The signal that ended the recording is spent; a new one stops the trim. */
	stop_signal = 0;
	err = rec_ksyms_trim(&s->out, &s->drain.layout, s->opts.kallsyms,
			     s->opts.zstd_level, &stop_signal, &st, s->err, sizeof(s->err));
	if (err)
		amb_warn("kept all kernel symbols in the recording: %s", s->err);
	else if (st.trimmed)
		fprintf(stderr, "[ amber-rec: kept the %" PRIu64 " of %" PRIu64 " kernel symbols "
			"the samples use: %.2f MB smaller (--kallsyms=all keeps them all) ]\n",
			st.kept, st.total, ((double)st.bytes_before - (double)st.bytes_after) / 1e6);
	return err ? 0 : st.raw_saved;
}

/* `amber-rec mem`'s rewritten command line (mem.c), when that was the command. */
static struct rec_mem_cmdline mem_cmdline;

static void rec_session_free(struct rec_session *s)
{
	rec_drain_free(&s->drain);
	rec_evlist_close(&s->evlist);
	rec_target_free(&s->target);
	rec_output_close(&s->out);
	rec_events_free(&s->events);
	rec_opts_free(&s->opts);
	rec_mem_cmdline_free(&mem_cmdline);
}

int main(int argc, char **argv)
{
	static struct rec_session sess;
	struct rec_session *s = &sess;
	AMB_OPTS(amb_writer_opts, wo);
	struct amb_writer_stats ws;
	struct rec_counters totals = { 0 };
	uint64_t raw_saved = 0;
	int64_t in_file = -1;
	struct sigaction sa;
	unsigned pages;
	int err, cerr, wstatus = 0, ret = EXIT_REC_FAIL;
	bool have_status = false, exec_failed = false;

	amb_set_warn(print_warning, NULL);
	if (argc > 1 && !strcmp(argv[1], "stat"))
		return rec_stat_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "mem")) {
		/* perf mem record: a recording with this host's memory events. */
		struct rec_mem_probe probe;

		if (rec_mem_probe(&probe)) {
			fprintf(stderr, "amber-rec mem: error: out of memory\n");
			return EXIT_REC_FAIL;
		}
		ret = rec_mem_cmdline(argc, argv, &probe, &mem_cmdline, stdout);
		if (ret >= 0)
			return ret;
		ret = EXIT_REC_FAIL;
	}
	s->target.go_fd = s->target.err_fd = -1;
	s->out.fd = -1;
	if (rec_opts_parse(&s->opts, mem_cmdline.argv ? mem_cmdline.argc : argc,
			   mem_cmdline.argv ? mem_cmdline.argv : argv, s->err, sizeof(s->err))) {
		fprintf(stderr, "amber-rec: error: %s\n(see amber-rec --help)\n", s->err);
		rec_opts_free(&s->opts);
		return EXIT_REC_FAIL;
	}
	if (s->opts.help || s->opts.version) {
		if (s->opts.help)
			usage(stdout);
		else
			printf("amber-rec %s\n", AMB_VERSION);
		rec_opts_free(&s->opts);
		return 0;
	}
	if (s->opts.list_events) {
		err = rec_events_list(stdout, s->opts.list_pattern, s->opts.verbose);
		if (err)
			fprintf(stderr, "amber-rec: error: listing events: %s\n", strerror(-err));
		rec_opts_free(&s->opts);
		return err ? EXIT_REC_FAIL : 0;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* What can fail without a trace fails before anything starts. */
	err = rec_output_check(s->opts.output, s->err, sizeof(s->err));
	if (err)
		goto fail;
	err = parse_events(s);
	if (err)
		goto fail;
	if (s->opts.argc) {
		err = rec_target_check_cmd(s->opts.argv[0], s->err, sizeof(s->err));
		if (err) {
			ret = err == -ENOENT ? EXIT_NOT_FOUND : EXIT_NO_EXEC;
			fprintf(stderr, "amber-rec: error: %s\n", s->err);
			rec_session_free(s);
			return ret;
		}
	}
	err = rec_target_init(&s->target, &s->opts, s->err, sizeof(s->err));
	if (err)
		goto fail;
	pages = s->opts.mmap_pages ? s->opts.mmap_pages
		: rec_opts_default_pages(&s->opts, s->target.nr_cpus,
					 (size_t)sysconf(_SC_PAGESIZE));
	setup_sampling(s, pages);
	err = rec_evlist_open(&s->evlist, &s->events, &s->sampling, &s->target, pages,
			      s->err, sizeof(s->err));
	if (err)
		goto fail;

	err = rec_output_create(&s->out, s->opts.output, s->err, sizeof(s->err));
	if (err)
		goto fail;
	if (s->out.moved_to) {
		fputs("amber-rec: note: moved existing ", stderr);
		amb_fput_text(stderr, s->opts.output);
		fputs(" to ", stderr);
		amb_fput_text(stderr, s->out.moved_to);
		fputc('\n', stderr);
	}
	wo.zstd_level = s->opts.zstd_level;
	wo.sync = s->opts.sync && !s->out.discard ? AMB_SYNC_BLOCK : AMB_SYNC_NONE;
	wo.threads = 1;
	wo.max_queued = WRITER_QUEUE;
	wo.ring_codec = AMB_CODEC_SAMPLE;
	err = rec_output_writer_fd(&s->out);
	if (err >= 0)
		err = amb_writer_open_fd(err, &wo, &s->w);
	if (err) {
		snprintf(s->err, sizeof(s->err), "cannot write %s: %s", s->opts.output,
			 amb_strerror(err));
		goto fail;
	}

	s->start_ns = rec_now_ns();
	err = write_prologue(s, argc, argv, pages);
	if (!err)
		err = rec_drain_start(&s->drain, s->evlist.rings, s->evlist.nr_rings, s->w,
				      &s->events.v[0].attr, BLOCK_BYTES,
				      s->opts.flush_ms, WRITER_QUEUE);
	if (err) {
		snprintf(s->err, sizeof(s->err), "writing %s: %s", s->opts.output, amb_strerror(err));
		goto close;
	}
	s->run_ns = rec_now_ns();
	if (s->target.kind != REC_TARGET_CMD)
		rec_evlist_enable(&s->evlist, true);
	err = rec_target_start(&s->target);
	if (err) {
		snprintf(s->err, sizeof(s->err), "cannot run '%s': %s", s->opts.argv[0], strerror(-err));
		ret = err == -ENOENT ? EXIT_NOT_FOUND : EXIT_NO_EXEC;
		rec_reap(s->target.child, NULL);
		s->target.child = 0;
		err = 0;
		exec_failed = true;
	} else {
		have_status = run_loop(s, &wstatus);
		ret = !have_status ? 0 : WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus)
							      : WEXITSTATUS(wstatus);
	}
	rec_evlist_enable(&s->evlist, false);
	s->end_ns = rec_now_ns();
	rec_drain_stop(&s->drain);
	rec_drain_totals(&s->drain, &totals);
	err = atomic_load(&s->drain.error);
	if (!err)
		err = write_epilogue(s, &totals, wstatus, have_status);
	if (!err && s->opts.embed) {
		struct rec_embed_stats es;

		err = rec_embed_write(s->w, s->opts.output, s->opts.embed,
				      s->target.kind != REC_TARGET_SYSTEM, &es);
		if (!err)
			fprintf(stderr, "[ amber-rec: embedded %u files (%.2f MB before "
				"compression)%s ]\n", es.files, (double)es.bytes / 1e6,
				es.stale ? "; some changed since mapped, see warnings" : "");
	}
	if (!err)
		err = amb_writer_flush(s->w);
	if (err)
		snprintf(s->err, sizeof(s->err), "writing %s: %s", s->opts.output, amb_strerror(err));

close:
	if (!s->end_ns)
		s->end_ns = rec_now_ns();
	rec_drain_stop(&s->drain);
	rec_drain_totals(&s->drain, &totals);
	amb_writer_get_stats(s->w, &ws);
	cerr = amb_writer_close(s->w);
	s->w = NULL;
	if (cerr && !err) {
		err = cerr;
		snprintf(s->err, sizeof(s->err), "writing %s: %s", s->opts.output, amb_strerror(err));
	}
	if (err) {
		/* The writer truncated the file to its last complete block. */
		fprintf(stderr, "amber-rec: error: %s\n", s->err);
		fprintf(stderr, "amber-rec: the recording stays readable up to its last complete "
			"block (%.2f MB saved)\n", (double)ws.file_bytes / 1e6);
		in_file = rec_output_samples(&s->out);
		if (in_file < 0)
			in_file = 0;
		ret = EXIT_REC_FAIL;
	} else if (exec_failed) {
		fprintf(stderr, "amber-rec: error: %s\n", s->err);
	} else {
		raw_saved = trim_kernel_symbols(s);
	}
	print_summary(s, &totals, &ws, raw_saved, in_file, exec_failed);
	rec_session_free(s);
	return ret;

fail:
	fprintf(stderr, "amber-rec: error: %s\n", s->err);
	rec_session_free(s);
	return EXIT_REC_FAIL;
}

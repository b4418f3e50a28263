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
#include "record/describe.h"
#include "record/drain.h"
#include "record/embed_files.h"
#include "record/events/events.h"
#include "record/events/tracefs.h"
#include "record/evsel.h"
#include "record/tp_filter.h"
#include "record/ksyms_trim.h"
#include "record/mem.h"
#include "record/options.h"
#include "record/output.h"
#include "record/privileges.h"
#include "record/rotate.h"
#include "record/sched_events.h"
#include "record/stat.h"
#include "record/synthesize.h"
#include "record/sysutil.h"
#include "record/target.h"

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
static volatile sig_atomic_t usr2_count;  /* SIGUSR2: next file, or flight recorder dump */

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2_count++;
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
		"       amber-rec [OPTIONS] -p PID[,PID] | -t TID[,TID] | -u USER | -a | -C CPUS\n"
		"                 | -G CGROUP\n"
		"       amber-rec stat [OPTIONS] -- COMMAND [ARGS]   (amber-rec stat --help)\n"
		"       amber-rec mem [OPTIONS] -- COMMAND [ARGS]    (amber-rec mem --help)\n"
		"       amber-rec sched [OPTIONS] [-- COMMAND]  (amber-rec sched --help)\n"
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
		"  -u, --uid USER           attach to the processes a user runs (name or number)\n"
		"  -a, --all-cpus           system-wide\n"
		"  -C, --cpu LIST           only these CPUs (system-wide on them)\n"
		"  -G, --cgroup CGROUP      system-wide, only the tasks of a cgroup (a path in the\n"
		"                           cgroup hierarchy, e.g. system.slice/foo.service)\n"
		"      --filter EXPR        tracepoint filter for the -e before it (the kernel's\n"
		"                           syntax: 'prev_comm == \"sshd\" && prev_state == 1')\n"
		"      --off-cpu            add the scheduler tracepoints (sched_switch with\n"
		"                           the -g/--call-graph stacks, sched_waking, ...) and,\n"
		"                           unless system-wide, context-switch records: for\n"
		"                           amber-analyze report/flame --off-cpu and sched\n"
		"      --switch-events      context-switch records (PERF_RECORD_SWITCH)\n"
		"      --sched              the scheduler only, as amber-rec sched\n"
		"      --duration SECONDS   stop after this long\n"
		"  -o, --output FILE        output (default %s; an existing one is moved to\n"
		"                           FILE.old, FILE.old.1, ...; /dev/null keeps nothing)\n"
		"      --switch-output[=signal|SIZE|TIME]  a new file on SIGUSR2 (and at SIZE, such\n"
		"                           as 100M, or every TIME, such as 10m): FILE becomes\n"
		"                           STEM.YYYYmmdd-HHMMSS.mmm.amber, each one whole\n"
		"      --switch-max-files N keep only the newest N files\n"
		"      --max-size SIZE      stop (with --switch-output: begin the next file)\n"
		"                           before a file passes SIZE bytes (K, M, G)\n"
		"      --flight-recorder[=SIZE|TIME]  keep only the newest SIZE (default 64M) or\n"
		"                           TIME of samples in memory; write them on SIGUSR2 and\n"
		"                           at the end (--overwrite: perf's name, the default)\n"
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
	struct rec_describe desc;  /* what describes each file: the above */
	const char **filters;      /* --filter of each event, or NULL (per event) */
	struct rec_rotate *rot;    /* rotated, bounded or flight recorder output */
	int rot_error;             /* what stopped it, message in err */
	uint64_t start_ns;         /* before the prologue: SYNTH time, time.start_ns */
	uint64_t run_ns, end_ns;   /* events enabled .. disabled */
	char err[1024];
};

static int parse_events(struct rec_session *s)
{
	static char default_spec[] = REC_DEFAULT_EVENT;
	char *def[] = { default_spec };
	char **specs = s->opts.nr_event_specs ? s->opts.event_specs : def;
	size_t n = s->opts.nr_event_specs ? s->opts.nr_event_specs : 1;

	size_t *spec_of = NULL, cap = 0;

	for (size_t i = 0; i < n; i++) {
		size_t first = s->events.n;
		int err = rec_events_parse(&s->events, specs[i], s->err, sizeof(s->err));

		if (!err && amb_ensure_cap((void **)&spec_of, &cap, sizeof(*spec_of), s->events.n))
			err = -ENOMEM;
		if (err == -ENOENT && strchr(specs[i], ':') && !rec_tracefs_root() &&
		    errno == EACCES) {
			/* A tracepoint, most likely: say why tracefs is closed. */
			size_t len = strlen(s->err);

			snprintf(s->err + len, sizeof(s->err) - len, ";\n  ");
			len = strlen(s->err);
			rec_priv_tracefs_why(EACCES, (unsigned)geteuid(), s->err + len,
					     sizeof(s->err) - len);
		}
		if (err) {
			free(spec_of);
			return err;
		}
		for (size_t e = first; e < s->events.n; e++)
			spec_of[e] = i;
	}
	/* --filter: for the events of the -e before it. */
	s->filters = calloc(s->events.n ? s->events.n : 1, sizeof(*s->filters));
	if (!s->filters) {
		free(spec_of);
		return -ENOMEM;
	}
	for (size_t f = 0; f < s->opts.nr_filters; f++)
		for (size_t e = 0; e < s->events.n; e++)
			if (spec_of[e] == s->opts.filters[f].spec)
				s->filters[e] = s->opts.filters[f].expr;
	free(spec_of);
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
	sp->switch_events = s->opts.switch_events;
	sp->enable_on_exec = s->target.kind == REC_TARGET_CMD;
	sp->inherit = s->target.kind != REC_TARGET_TID && s->target.kind != REC_TARGET_SYSTEM;
	/* Wake the drain thread when a quarter of the ring, or 2 MiB, is
	 * full: on a busy machine a thread that wakes often for a short copy
	 * gets a CPU sooner than one that copies 8 MiB at a time. */
	sp->wakeup_bytes = (uint32_t)AMB_MIN(ring_bytes / 4, (size_t)WAKEUP_MAX_BYTES);
}

/*
 * What the events about to be opened need of the kernel's permissions
 * (privileges.c), said before anything is opened: an error with the ways
 * to get what is missing, or notes for what will be left out.  Kernel
 * samples the kernel would refuse are left out here (user space only, as
 * perf does), and a default ring is made to fit the locked-memory limit.
 */
static int check_privileges(struct rec_session *s, unsigned *pages)
{
	struct rec_priv_state st;
	struct rec_priv_need need = { 0 };
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	bool per_task = s->target.kind != REC_TARGET_SYSTEM;
	char notes[2048];
	int err;

	rec_priv_probe(&st, s->sampling.raw);
	need.cpu_wide = !per_task;
	need.cpu_wide_why = s->opts.cgroup ? "-G" : s->opts.cpulist ? "-C" : "-a";
	for (size_t i = 0; i < s->events.n; i++) {
		struct rec_event *ev = &s->events.v[i];

		if (per_task && !ev->user_modifiers && !ev->attr.exclude_kernel &&
		    !rec_priv_perfmon(&st) && st.paranoid > 1) {
			ev->attr.exclude_kernel = 1;
			ev->attr.exclude_hv = 1;
			need.kernel = true;  /* wanted: the note says it is left out */
		}
		need.kernel |= !ev->attr.exclude_kernel;
		need.tracepoints |= ev->tracepoint;
		/* The kernel lets anyone sample syscall tracepoints of their own
		 * tasks (TRACE_EVENT_FL_CAP_ANY). */
		need.raw_tracepoints |= ev->tracepoint &&
					(!per_task || strcmp(ev->tp_system, "syscalls"));
	}
	need.nr_rings = s->target.nr_cpus;
	need.page_size = psz;
	if (!s->opts.mmap_pages) {
		unsigned fit = rec_priv_ring_pages(&st, *pages, need.nr_rings, psz);

		if (fit && fit < *pages)
			amb_warn("rings of %u pages per CPU instead of %u, to fit the memory you "
				 "may lock (kernel.perf_event_mlock_kb, 'ulimit -l'): more samples "
				 "may be lost", fit, *pages);
		if (fit)
			*pages = fit;
	}
	need.ring_pages = *pages;
	err = rec_priv_check(&need, &st, s->err, sizeof(s->err), notes, sizeof(notes));
	for (char *save = NULL, *l = strtok_r(notes, "\n", &save); !err && l;
	     l = strtok_r(NULL, "\n", &save))
		amb_warn("%s", l);
	s->desc.kallsyms_explained = need.kernel && !rec_priv_kallsyms_visible(&st);
	return err;
}

/* The prologue of the file (FORMAT.md §9): written before any sample. */
static int write_prologue(struct rec_session *s)
{
	struct rec_snapshot snap;
	int err = rec_snapshot_take(&s->desc, s->start_ns, false, true, &snap);

	if (!err)
		err = rec_describe_start(&s->desc, s->w, &snap, s->start_ns, NULL);
	rec_snapshot_free(&snap);
	return err;
}

static int write_epilogue(struct rec_session *s, const struct rec_counters *c, int wstatus,
			  bool have_status)
{
	struct rec_file_end e = {
		.run_ns = s->run_ns, .end_ns = s->end_ns, .c = c,
		.have_status = have_status, .wstatus = wstatus, .counts = true,
	};

	return rec_describe_end(&s->desc, s->w, &e);
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
		if (s->rot) {
			int r = rec_rotate_tick(s->rot, (unsigned long)usr2_count, &stop_signal,
						s->err, sizeof(s->err));

			if (r) {
				s->rot_error = r < 0 ? r : 0;
				break;  /* an error, or --max-size reached */
			}
		}
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

static void print_warnings(const struct rec_session *s, const struct rec_counters *c)
{
	uint64_t lost = c->lost_records + c->lost_samples;

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

	print_warnings(s, c);
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
	free(s->filters);
	rec_drain_free(&s->drain);
	rec_rotate_free(s->rot);
	rec_evlist_close(&s->evlist);
	rec_target_free(&s->target);
	rec_output_close(&s->out);
	rec_events_free(&s->events);
	rec_opts_free(&s->opts);
	rec_mem_cmdline_free(&mem_cmdline);
}

/*
 * Enable the events (a command's at exec), start the command and wait for
 * the end.  Returns the exit status; *@exec_failed when the command could
 * not be run (message in s->err).
 */
static int start_and_run(struct rec_session *s, int *wstatus, bool *have_status,
			 bool *exec_failed)
{
	int err, ret;

	s->run_ns = rec_now_ns();
	if (s->rot)
		rec_rotate_running(s->rot, s->run_ns);
	if (s->target.kind != REC_TARGET_CMD)
		rec_evlist_enable(&s->evlist, true);
	err = rec_target_start(&s->target);
	if (err) {
		snprintf(s->err, sizeof(s->err), "cannot run '%s': %s", s->opts.argv[0], strerror(-err));
		ret = err == -ENOENT ? EXIT_NOT_FOUND : EXIT_NO_EXEC;
		rec_reap(s->target.child, NULL);
		s->target.child = 0;
		*exec_failed = true;
	} else {
		*have_status = run_loop(s, wstatus);
		ret = !*have_status ? 0 : WIFSIGNALED(*wstatus) ? 128 + WTERMSIG(*wstatus)
								: WEXITSTATUS(*wstatus);
	}
	rec_evlist_enable(&s->evlist, false);
	s->end_ns = rec_now_ns();
	return ret;
}

/*
 * A recording whose output is not one plain file (rotate.c): files
 * switched on SIGUSR2, at a size or a time, a disk budget, or the flight
 * recorder.  Returns the exit status.
 */
static int record_rotating(struct rec_session *s)
{
	struct rec_rotate_end end = { .stop = &stop_signal };
	struct rec_counters totals;
	struct rec_rotate_stats rs;
	struct rec_sink sink;
	int err, ret = EXIT_REC_FAIL, wstatus = 0;
	bool have_status = false, exec_failed = false;

	s->start_ns = rec_now_ns();
	err = rec_rotate_open(&s->rot, &s->desc, &s->drain, s->start_ns, s->err, sizeof(s->err));
	if (err) {
		fprintf(stderr, "amber-rec: error: %s\n", s->err);
		return EXIT_REC_FAIL;
	}
	rec_rotate_sink(s->rot, &sink);
	rec_drain_set_sink(&s->drain, &sink);
	err = rec_drain_start(&s->drain, s->evlist.rings, s->evlist.nr_rings, NULL,
			      &s->events.v[0].attr, rec_rotate_block_bytes(s->rot, BLOCK_BYTES),
			      s->opts.flush_ms, WRITER_QUEUE);
	if (err) {
		snprintf(s->err, sizeof(s->err), "starting the drain thread: %s", strerror(-err));
		s->rot_error = err;
	} else {
		ret = start_and_run(s, &wstatus, &have_status, &exec_failed);
	}
	if (!s->end_ns)
		s->end_ns = rec_now_ns();
	rec_drain_stop(&s->drain);
	rec_drain_totals(&s->drain, &totals);
	err = atomic_load(&s->drain.error);
	if (err && !s->rot_error) {
		s->rot_error = err;
		snprintf(s->err, sizeof(s->err), "writing: %s", amb_strerror(err));
	}
	if (s->rot_error || exec_failed) {
		fprintf(stderr, "amber-rec: error: %s\n", s->err);
		if (s->rot_error)
			ret = EXIT_REC_FAIL;
	}
	/* The signal that ended the recording is spent; a new one stops the
	 * trim of the last file. */
	stop_signal = 0;
	end.end_ns = s->end_ns;
	end.have_status = have_status;
	end.wstatus = wstatus;
	err = rec_rotate_close(s->rot, &end, s->err, sizeof(s->err));
	if (err) {
		fprintf(stderr, "amber-rec: error: %s\n", s->err);
		ret = EXIT_REC_FAIL;
	}
	rec_rotate_get_stats(s->rot, &rs);
	print_warnings(s, &totals);
	if (rs.budget_reached)
		fprintf(stderr, "amber-rec: stopped before --max-size %" PRIu64 " bytes was passed\n",
			s->opts.max_size);
	if (rs.flight_dropped)
		fprintf(stderr, "amber-rec: the flight recorder let go of %" PRIu64 " older samples "
			"(it keeps %s)\n", rs.flight_dropped, s->opts.flight_spec);
	fprintf(stderr, "[ amber-rec: captured %" PRIu64 " samples (%" PRIu64 " lost) in %.1f s; ",
		totals.samples, totals.lost_records + totals.lost_samples,
		s->run_ns ? (double)(s->end_ns - s->run_ns) / 1e9 : 0.0);
	if (rs.files > 1)
		fprintf(stderr, "%u files, %.2f MB%s: %s ... %s ]\n", rs.files, (double)rs.bytes / 1e6,
			rs.removed ? " (older ones removed)" : "", rs.first, rs.last);
	else
		fprintf(stderr, "file %.2f MB -> %s ]\n", (double)rs.bytes / 1e6,
			rs.first ? rs.first : "(none)");
	return ret;
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
	char *sched_cmd = NULL;

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
	/* `amber-rec sched ...` is `amber-rec --sched ...` (sched_events.c). */
	if (argc > 1 && !strcmp(argv[1], "sched")) {
		static char sched_opt[] = "--sched";

		sched_cmd = argv[1];
		argv[1] = sched_opt;
	}
	/* amber-rec mem: its options turned into amber-rec's (mem.c). */
	if (mem_cmdline.argv)
		err = rec_opts_parse(&s->opts, mem_cmdline.argc, mem_cmdline.argv, s->err,
				     sizeof(s->err));
	else
		err = rec_opts_parse(&s->opts, argc, argv, s->err, sizeof(s->err));
	if (sched_cmd)
		argv[1] = sched_cmd;   /* the recorded cmdline says what was typed */
	if (!err && rec_sched_apply(&s->opts)) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		err = -ENOMEM;
	}
	if (err) {
		fprintf(stderr, "amber-rec: error: %s\n(see amber-rec %s--help)\n", s->err,
			s->opts.sched ? "sched " : "");
		rec_opts_free(&s->opts);
		return EXIT_REC_FAIL;
	}
	if (s->opts.help || s->opts.version) {
		if (s->opts.help && s->opts.sched)
			rec_sched_usage(stdout);
		else if (s->opts.help)
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
	/* SIGUSR2 switches files or dumps the flight recorder; to a plain
	 * recording it means nothing, rather than its default, death. */
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
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
	err = check_privileges(s, &pages);
	if (err)
		goto fail;
	setup_sampling(s, pages);
	err = rec_evlist_open(&s->evlist, &s->events, &s->sampling, &s->target, pages,
			      s->err, sizeof(s->err));
	for (size_t e = 0; !err && e < s->events.n; e++)
		if (s->filters[e])
			err = rec_filter_set(&s->evlist, e, s->filters[e], s->err, sizeof(s->err));
	if (err)
		goto fail;
	s->desc = (struct rec_describe){
		.argc = argc, .argv = argv, .opts = &s->opts, .events = &s->events,
		.target = &s->target, .evlist = &s->evlist, .ring_pages = pages,
		.tracepoints = s->sampling.raw, .filters = s->filters,
		.kallsyms_explained = s->desc.kallsyms_explained,
	};
	if (rec_opts_rotating(&s->opts)) {
		ret = record_rotating(s);
		rec_session_free(s);
		return ret;
	}

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
	err = write_prologue(s);
	if (!err)
		err = rec_drain_start(&s->drain, s->evlist.rings, s->evlist.nr_rings, s->w,
				      &s->events.v[0].attr, BLOCK_BYTES,
				      s->opts.flush_ms, WRITER_QUEUE);
	if (err) {
		snprintf(s->err, sizeof(s->err), "writing %s: %s", s->opts.output, amb_strerror(err));
		goto close;
	}
	ret = start_and_run(s, &wstatus, &have_status, &exec_failed);
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

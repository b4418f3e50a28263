// SPDX-License-Identifier: MIT
/*
 * record/stat.c - `amber-rec stat`: perf stat's counting of a command,
 * processes, threads or CPUs.
 *
 * For each run (-r): start the target (a command waits on a pipe), open
 * the events for counting (counting.c), start the clock and the command
 * (its counters start at exec), wait for it - reading every group each -I
 * interval - then read the totals.  The table is common/perf_stat.c's, the
 * one `amber-analyze stat` prints from the file; it goes to stderr as
 * perf stat's does, keeping the command's stdout its own.
 *
 * With -o the counts are kept in a .amber file (FORMAT.md §5.4): META,
 * EVENT_ATTR and TOPOLOGY first, then one COUNTS block per window - each
 * -I interval, or each run - holding what every counter counted in it,
 * stream = the run.  Each block is flushed to the file as soon as it is
 * read, so a killed `stat -o` keeps every interval already written.
 */
#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/perf_stat.h"
#include "common/util.h"
#include "record/counting.h"
#include "record/events/events.h"
#include "record/events/probe.h"
#include "record/events/tracefs.h"
#include "record/meta.h"
#include "record/options.h"
#include "record/output.h"
#include "record/stat.h"
#include "record/sysutil.h"
#include "record/target.h"
#include "record/topology.h"

#define EXIT_REC_FAIL   125
#define EXIT_NO_EXEC    126
#define EXIT_NOT_FOUND  127
/* How often -p/-t targets are checked for having exited. */
#define TASK_POLL_MS    100
/* How long a command told to stop may take before it is killed. */
#define STOP_GRACE_MS   2000

/* perf stat's default events; system-wide, cpu-clock measures the CPUs. */
#define DEFAULT_TASK_EVENTS "task-clock,context-switches,cpu-migrations,page-faults," \
			    "cycles,instructions,branches,branch-misses"
#define DEFAULT_CPU_EVENTS  "cpu-clock,context-switches,cpu-migrations,page-faults," \
			    "cycles,instructions,branches,branch-misses"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig; /* only wakes ppoll() */
}

static void print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "amber-rec: warning: %s\n", msg);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: amber-rec stat [OPTIONS] -- COMMAND [ARGS]\n"
		"       amber-rec stat [OPTIONS] -p PID[,PID] | -t TID[,TID] | -a | -C CPUS\n\n"
		"Count events, as perf stat does: the table goes to stderr.\n\n"
		"  -e, --event SPEC         events to count (repeatable; {a,b} is a group, counted\n"
		"                           together; default perf stat's set: task-clock,\n"
		"                           context-switches, cpu-migrations, page-faults, cycles,\n"
		"                           instructions, branches, branch-misses)\n"
		"  -p, --pid PIDS           count running processes (all their threads)\n"
		"  -t, --tid TIDS           count running threads\n"
		"  -a, --all-cpus           count every CPU (with a command: while it runs)\n"
		"  -C, --cpu LIST           only these CPUs\n"
		"  -I, --interval-print MS  print the counts of every MS milliseconds (>= %u)\n"
		"  -r, --repeat N           run the command N times: mean and relative stddev\n"
		"  -x, --field-separator SEP  CSV with separator SEP (perf stat's columns)\n"
		"  -j, --json               one JSON object per line (perf stat's keys)\n"
		"  -A, --per-cpu, --no-aggr  a line per CPU (with -a or -C)\n"
		"      --per-node           a line per NUMA node (with -a or -C)\n"
		"      --per-thread         a line per thread (with -p or -t)\n"
		"  -o, --output FILE        also keep the counts in the .amber FILE, per interval\n"
		"                           and CPU or thread: amber-analyze stat FILE prints them\n"
		"                           (unlike perf stat -o, which writes the text)\n"
		"  -v, --verbose            the reason for each default event not supported here\n"
		"  -h, --help\n\n"
		"A line shows the count (clocks in msec), '#' and the figure derived from it\n"
		"(CPUs utilized, GHz, insn per cycle, miss rates, rates per second), and the share\n"
		"of its enabled time the counter ran: below 100%% the count is scaled, an estimate,\n"
		"and one from under 1 ms of running time is marked unreliable.  <not counted>: it\n"
		"never ran; <not supported>: this machine cannot count it (the reason goes to\n"
		"stderr; when no event can be counted, that is an error).\n\n"
		"exit status: the command's; 125 when amber-rec fails, 126/127 when the command\n"
		"cannot be run / found.\n", REC_STAT_MIN_INTERVAL_MS);
}

/* One `amber-rec stat`. */
struct stat_session {
	struct rec_stat_opts opts;
	struct rec_event_list events;
	struct rec_target target;
	struct rec_counting cnt;
	struct amb_stat *total;          /* the runs */
	struct amb_stat *iv;             /* the current -I interval */
	struct amb_stat_count *prev;     /* [event][cell] at the last block */
	struct amb_writer *w;
	struct rec_output out;           /* -o: the file, held by descriptor */
	struct amb_stat_print_opts po;
	char title[512];
	enum rec_target_kind kind;       /* of the runs */
	uint64_t start_ns;               /* before the first run */
	uint64_t run_ns;                 /* this run's start */
	uint64_t window_ns;              /* the current block's start */
	unsigned run, runs_done;
	int wstatus;
	bool have_status;
	struct rusage ru;
	bool have_ru;
	char err[1024];
};

/* ---- events --------------------------------------------------------------------- */

static int parse_events(struct stat_session *s)
{
	struct rec_opts *o = &s->opts.rec;

	if (!o->nr_event_specs) {
		bool cpus = o->system_wide || o->cpulist;
		int err = rec_events_parse(&s->events, cpus ? DEFAULT_CPU_EVENTS : DEFAULT_TASK_EVENTS,
					   s->err, sizeof(s->err));

		for (size_t i = 0; i < s->events.n; i++)
			s->events.v[i].implicit = true;
		return err;
	}
	for (size_t i = 0; i < o->nr_event_specs; i++) {
		int err = rec_events_parse(&s->events, o->event_specs[i], s->err, sizeof(s->err));

		if (err)
			return err;
	}
	for (size_t i = 0; i < s->events.n; i++) {
		if (s->events.v[i].tracepoint && !rec_tracefs_root()) {
			snprintf(s->err, sizeof(s->err), "event '%s' is a tracepoint, but tracefs is not "
				 "available (%s);\n  mount it: mount -t tracefs nodev /sys/kernel/tracing",
				 s->events.v[i].name, strerror(errno));
			return -ENOENT;
		}
	}
	return 0;
}

/* Say which events this machine cannot count: each one the user named
 * with its reason, the default ones in one line. */
static int report_unsupported(struct stat_session *s)
{
	struct amb_buf defaults = AMB_BUF_INIT;
	const char *reason = NULL;
	size_t opened = 0;

	for (size_t e = 0; e < s->events.n; e++) {
		const struct rec_event *ev = &s->events.v[e];
		char why[256];

		if (!s->cnt.unsupported[e]) {
			opened++;
			continue;
		}
		rec_probe_why(&ev->attr, s->cnt.unsupported_err[e], true, why, sizeof(why));
		if (!ev->implicit || s->opts.verbose) {
			amb_warn("event '%s' is not supported here: %s; it shows <not supported>",
				 ev->name, why);
			continue;
		}
		amb_buf_printf(&defaults, "%s%s", defaults.len ? ", " : "", ev->name);
		if (!reason || !strcmp(reason, s->cnt.unsupported[e]))
			reason = s->cnt.unsupported[e];
		else
			reason = "";
	}
	if (defaults.len)
		fprintf(stderr, "amber-rec: note: %.*s: not supported here%s%s (-v: why)\n",
			(int)defaults.len, (const char *)defaults.data, reason && *reason ? ": " : "",
			reason && *reason ? reason : "");
	amb_buf_free(&defaults);
	if (!opened) {
		snprintf(s->err, sizeof(s->err), "none of the events can be counted here (%s)",
			 s->cnt.unsupported[0]);
		return -ENOENT;
	}
	return 0;
}

/* ---- the tables ------------------------------------------------------------------ */

static void build_title(struct stat_session *s)
{
	const struct rec_opts *o = &s->opts.rec;
	struct amb_buf b = AMB_BUF_INIT;

	switch (s->target.kind) {
	case REC_TARGET_CMD:
		amb_buf_printf(&b, "'");
		for (int i = 0; i < o->argc; i++)
			amb_buf_printf(&b, "%s%s", i ? " " : "", o->argv[i]);
		amb_buf_printf(&b, "'");
		break;
	case REC_TARGET_PID:
	case REC_TARGET_TID:
		amb_buf_printf(&b, "%s id '", s->target.kind == REC_TARGET_PID ? "process" : "thread");
		for (size_t i = 0; i < (o->nr_pids ? o->nr_pids : o->nr_tids); i++)
			amb_buf_printf(&b, "%s%d", i ? "," : "",
				       (int)(o->nr_pids ? o->pids[i] : o->tids[i]));
		amb_buf_printf(&b, "'");
		break;
	case REC_TARGET_SYSTEM:
		if (o->cpulist)
			amb_buf_printf(&b, "'CPU(s) %s'", o->cpulist);
		else
			amb_buf_printf(&b, "'system wide'");
		break;
	}
	snprintf(s->title, sizeof(s->title), "%.*s", (int)b.len, b.data ? (char *)b.data : "");
	amb_buf_free(&b);
}

/* /proc/TID/comm, without its newline, into @buf. */
static void thread_comm(pid_t tid, char *buf, size_t len)
{
	char path[64], *text;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	text = amb_read_file(path, 256, NULL);
	snprintf(buf, len, "%s", text ? text : "?");
	buf[strcspn(buf, "\n")] = 0;
	free(text);
}

static int new_table(struct stat_session *s, struct amb_stat **out)
{
	struct amb_stat_event *ev = calloc(s->events.n, sizeof(*ev));
	int err;

	if (!ev)
		return -ENOMEM;
	for (size_t e = 0; e < s->events.n; e++) {
		const struct rec_event *r = &s->events.v[e];

		ev[e].name = r->name;
		ev[e].type = r->attr.type;
		ev[e].config = r->attr.config;
		ev[e].leader = r->leader;
		ev[e].unsupported = s->cnt.unsupported[e];
	}
	err = amb_stat_new(ev, s->events.n, s->opts.aggr, out);
	free(ev);
	if (err)
		return err;
	if (s->opts.aggr == AMB_STAT_AGGR_NODE) {
		bool numa = numa_available() >= 0;

		for (size_t i = 0; i < s->target.nr_cpus && !err; i++) {
			int node = numa ? numa_node_of_cpu(s->target.cpus[i]) : 0;

			err = amb_stat_set_node(*out, (uint32_t)s->target.cpus[i],
						(uint32_t)(node < 0 ? 0 : node));
		}
	}
	if (s->opts.aggr == AMB_STAT_AGGR_THREAD) {
		for (size_t i = 0; i < s->target.nr_threads && !err; i++) {
			char comm[64];

			thread_comm(s->target.threads[i], comm, sizeof(comm));
			err = amb_stat_set_comm(*out, (uint32_t)s->target.threads[i], comm);
		}
	}
	return err;
}

/* Print @st as the options say, in one write. */
static void print_table(struct stat_session *s, struct amb_stat *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	if (amb_stat_print(st, f, &s->po))
		amb_warn("printing the counts: %s", strerror(ENOMEM));
	fclose(f);
	fwrite(text, 1, len, stderr);
	fflush(stderr);
	free(text);
}

/* ---- the .amber file ---------------------------------------------------------------- */

static int append_kv(struct stat_session *s, uint16_t type, struct amb_buf *b)
{
	struct amb_block_desc d = { .type = type, .stream = AMB_STREAM_NONE };
	struct amb_cursor c;
	struct amb_kv kv;
	int err;

	amb_cursor_init(&c, b->data, b->len);
	while (amb_kv_next(&c, &kv) == 1)
		d.record_count++;
	err = amb_writer_append(s->w, &d, b->data, b->len);
	amb_buf_reset(b);
	return err;
}

static int put_u64(struct amb_buf *b, const char *key, uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64, v);
	return amb_kv_put_str(b, key, text);
}

static int write_event_attrs(struct stat_session *s)
{
	struct amb_buf b = AMB_BUF_INIT;
	size_t cells = s->cnt.nr_cells;
	uint8_t *ids = malloc(cells * 8 + 1);
	int err = ids ? 0 : -ENOMEM;

	for (size_t e = 0; e < s->events.n && !err; e++) {
		const struct rec_event *ev = &s->events.v[e];
		struct amb_event_entry ent;
		uint32_t nr = 0;

		for (size_t c = 0; c < cells; c++)
			if (s->cnt.fds[rec_counting_at(&s->cnt, e, c)] >= 0)
				amb_put_le64(ids + 8 * nr++, s->cnt.ids[rec_counting_at(&s->cnt, e, c)]);
		memset(&ent, 0, sizeof(ent));
		ent.attr = (const uint8_t *)&ev->attr;
		ent.attr_size = sizeof(ev->attr);
		ent.name = ev->name;
		ent.name_len = (uint32_t)strlen(ev->name);
		ent.leader = ev->leader < 0 ? UINT32_MAX : (uint32_t)ev->leader;
		ent.flags = s->cnt.unsupported[e] ? AMB_EVENT_UNSUPPORTED : 0;
		ent.nr_ids = nr;
		ent.ids = ids;
		err = amb_event_put(&b, &ent);
	}
	if (!err) {
		struct amb_block_desc d = { .type = AMB_BLOCK_EVENT_ATTR, .stream = AMB_STREAM_NONE,
					    .record_count = s->events.n };

		err = amb_writer_append(s->w, &d, b.data, b.len);
	}
	free(ids);
	amb_buf_free(&b);
	return err;
}

/* META (the recording's and stat's own keys), EVENT_ATTR, TOPOLOGY. */
static int file_open(struct stat_session *s, int argc, char **argv)
{
	AMB_OPTS(amb_writer_opts, wo, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL, .threads = 1);
	struct amb_buf b = AMB_BUF_INIT;
	const char *out = s->opts.rec.output;
	int err = rec_output_create(&s->out, out, s->err, sizeof(s->err));

	if (err)
		return err;
	if (s->out.moved_to) {
		fputs("amber-rec stat: note: moved existing ", stderr);
		amb_fput_text(stderr, out);
		fputs(" to ", stderr);
		amb_fput_text(stderr, s->out.moved_to);
		fputc('\n', stderr);
	}
	err = rec_output_writer_fd(&s->out);
	if (err >= 0)
		err = amb_writer_open_fd(err, &wo, &s->w);
	if (err) {
		snprintf(s->err, sizeof(s->err), "cannot create %s: %s", out, amb_strerror(err));
		return err;
	}
	err = rec_meta_start(&b, argc, argv, s->title, s->opts.rec.cpulist ? s->opts.rec.cpulist
				: "all", 0, s->start_ns);
	/* FORMAT.md §5.1: the keys of a counting recording. */
	if (!err)
		err = amb_kv_put_str(&b, "stat.title", s->title);
	if (!err)
		err = amb_kv_put_str(&b, "stat.aggr", amb_stat_aggr_name(s->opts.aggr));
	if (!err)
		err = put_u64(&b, "stat.interval_ms", s->opts.interval_ms);
	if (!err)
		err = put_u64(&b, "stat.runs", s->opts.repeat);
	for (size_t e = 0; e < s->events.n && !err; e++) {
		char key[64];

		if (!s->cnt.unsupported[e])
			continue;
		snprintf(key, sizeof(key), "stat.event.%zu.unsupported", e);
		err = amb_kv_put_str(&b, key, s->cnt.unsupported[e]);
	}
	for (size_t i = 0; s->opts.aggr == AMB_STAT_AGGR_THREAD && i < s->target.nr_threads &&
	     !err; i++) {
		char key[64], comm[64];

		snprintf(key, sizeof(key), "stat.comm.%d", (int)s->target.threads[i]);
		thread_comm(s->target.threads[i], comm, sizeof(comm));
		err = amb_kv_put_str(&b, key, comm);
	}
	if (!err)
		err = append_kv(s, AMB_BLOCK_META, &b);
	if (!err)
		err = write_event_attrs(s);
	if (!err)
		err = rec_topology_build(&b);
	if (!err)
		err = append_kv(s, AMB_BLOCK_TOPOLOGY, &b);
	if (!err)
		err = amb_writer_flush(s->w);
	amb_buf_free(&b);
	if (err)
		snprintf(s->err, sizeof(s->err), "writing %s: %s", out, amb_strerror(err));
	return err;
}

/* One COUNTS block: what each counter counted since @base (NULL: since it
 * was opened) over [@from, @to], stream = the run; written through. */
static int write_counts(struct stat_session *s, const struct amb_stat_count *base,
			uint64_t from, uint64_t to)
{
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_block_desc d = { .type = AMB_BLOCK_COUNTS, .stream = s->run,
				    .first_time = from, .last_time = AMB_MAX(from, to) };
	int err = 0;

	for (size_t e = 0; e < s->events.n && !err; e++) {
		for (size_t c = 0; c < s->cnt.nr_cells && !err; c++) {
			size_t i = rec_counting_at(&s->cnt, e, c);
			struct amb_count_entry ce;
			struct amb_stat_count v = s->cnt.now[i];

			if (!s->cnt.have[i])
				continue;
			if (base) {
				v.val -= AMB_MIN(v.val, base[i].val);
				v.ena -= AMB_MIN(v.ena, base[i].ena);
				v.run -= AMB_MIN(v.run, base[i].run);
			}
			ce = (struct amb_count_entry){
				.event = (uint32_t)e,
				.cpu = s->cnt.cpu[c] < 0 ? UINT32_MAX : (uint32_t)s->cnt.cpu[c],
				.tid = s->cnt.tid[c] < 0 ? UINT32_MAX : (uint32_t)s->cnt.tid[c],
				.id = s->cnt.ids[i], .value = v.val, .time_enabled = v.ena,
				.time_running = v.run,
			};
			err = amb_count_put(&b, &ce);
			d.record_count++;
		}
	}
	if (!err)
		err = amb_writer_append(s->w, &d, b.data ? b.data : (void *)"", b.len);
	if (!err)
		err = amb_writer_flush(s->w);
	amb_buf_free(&b);
	if (err)
		snprintf(s->err, sizeof(s->err), "writing %s: %s", s->opts.rec.output,
			 amb_strerror(err));
	return err;
}

static int file_close(struct stat_session *s, uint64_t end_ns)
{
	struct amb_buf b = AMB_BUF_INIT;
	int err = put_u64(&b, "time.end_ns", end_ns), cerr;

	if (!err)
		err = put_u64(&b, "stat.runs_done", s->runs_done);
	if (!err && s->have_status)
		err = put_u64(&b, "exit_status", WIFSIGNALED(s->wstatus)
			      ? 128 + (uint64_t)WTERMSIG(s->wstatus) : (uint64_t)WEXITSTATUS(s->wstatus));
	if (!err && s->have_ru && s->runs_done == 1) {
		err = put_u64(&b, "stat.user_ns", (uint64_t)s->ru.ru_utime.tv_sec * 1000000000u +
			      (uint64_t)s->ru.ru_utime.tv_usec * 1000u);
		if (!err)
			err = put_u64(&b, "stat.sys_ns", (uint64_t)s->ru.ru_stime.tv_sec * 1000000000u +
				      (uint64_t)s->ru.ru_stime.tv_usec * 1000u);
	}
	if (!err)
		err = append_kv(s, AMB_BLOCK_META, &b);
	amb_buf_free(&b);
	cerr = amb_writer_close(s->w);
	s->w = NULL;
	if (!err)
		err = cerr;
	if (err)
		snprintf(s->err, sizeof(s->err), "writing %s: %s", s->opts.rec.output,
			 amb_strerror(err));
	return err;
}

/* ---- windows -------------------------------------------------------------------------- */

/* Add to @st what each counter counted since @base (NULL: in all). */
static void add_counts(struct stat_session *s, struct amb_stat *st, const struct amb_stat_count *base)
{
	for (size_t e = 0; e < s->events.n; e++) {
		for (size_t c = 0; c < s->cnt.nr_cells; c++) {
			size_t i = rec_counting_at(&s->cnt, e, c);
			struct amb_stat_count v = s->cnt.now[i];

			if (!s->cnt.have[i])
				continue;
			if (base) {
				v.val -= AMB_MIN(v.val, base[i].val);
				v.ena -= AMB_MIN(v.ena, base[i].ena);
				v.run -= AMB_MIN(v.run, base[i].run);
			}
			if (amb_stat_add(st, (uint32_t)e,
					 s->cnt.cpu[c] < 0 ? UINT32_MAX : (uint32_t)s->cnt.cpu[c],
					 s->cnt.tid[c] < 0 ? UINT32_MAX : (uint32_t)s->cnt.tid[c], &v))
				return;
		}
	}
}

/* An -I interval ends at @now: print it, write it, start the next. */
static int interval_end(struct stat_session *s, uint64_t now)
{
	size_t n = s->events.n * s->cnt.nr_cells;
	int err = 0;

	rec_counting_read(&s->cnt);
	add_counts(s, s->iv, s->prev);
	amb_stat_end_run(s->iv, now - s->window_ns);
	s->po.interval = true;
	s->po.time_s = (double)(now - s->run_ns) / 1e9;
	print_table(s, s->iv);
	amb_stat_reset(s->iv);
	if (s->w)
		err = write_counts(s, s->prev, s->window_ns, now);
	for (size_t i = 0; i < n; i++)
		if (s->cnt.have[i])
			s->prev[i] = s->cnt.now[i];
	s->window_ns = now;
	return err;
}

/* ---- one run ---------------------------------------------------------------------------- */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Reap the command if it has ended (its status and resource use kept). */
static bool reap(struct stat_session *s, int flags)
{
	pid_t r;

	if (s->target.child <= 0)
		return false;
	do
		r = wait4(s->target.child, &s->wstatus, flags, &s->ru);
	while (r < 0 && errno == EINTR && !(flags & WNOHANG));
	if (r != s->target.child)
		return false;
	s->target.child = 0;
	s->have_status = s->have_ru = true;
	return true;
}

/* Stopped by a signal: pass it on to the command and give it time. */
static void stop_command(struct stat_session *s)
{
	kill(s->target.child, (int)stop_signal);
	for (unsigned waited = 0; waited < STOP_GRACE_MS; waited += 10) {
		if (reap(s, WNOHANG))
			return;
		sleep_ms(10);
	}
	kill(s->target.child, SIGKILL);
	reap(s, 0);
}

/*
 * Wait until the target ends or a stop signal, ending -I intervals on
 * time.  The stop signals and SIGCHLD are blocked but for ppoll(), so
 * none is lost between a check and the wait.
 */
static int wait_target(struct stat_session *s)
{
	uint64_t every = (uint64_t)s->opts.interval_ms * 1000000u;
	uint64_t next = s->run_ns + every;
	sigset_t block, old;
	int err = 0, st;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (;;) {
		struct timespec ts, *tp = NULL;
		uint64_t now;

		if (reap(s, WNOHANG))
			break;
		if ((s->target.kind == REC_TARGET_PID || s->target.kind == REC_TARGET_TID) &&
		    !rec_target_alive(&s->target, &st))
			break;
		if (stop_signal)
			break;
		now = rec_now_ns();
		if (every && now >= next) {
			err = interval_end(s, now);
			if (err)
				break;
			/* A late wake-up skips the intervals it missed. */
			while (next <= now)
				next += every;
			continue;
		}
		if (every) {
			ts.tv_sec = (time_t)((next - now) / 1000000000u);
			ts.tv_nsec = (long)((next - now) % 1000000000u);
			tp = &ts;
		} else if (s->target.kind == REC_TARGET_PID || s->target.kind == REC_TARGET_TID) {
			ts.tv_sec = 0;
			ts.tv_nsec = TASK_POLL_MS * 1000000L;
			tp = &ts;
		}
		ppoll(NULL, 0, tp, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (s->target.child > 0 && stop_signal)
		stop_command(s);
	return err;
}

static int run_once(struct stat_session *s, int argc, char **argv, int *exit_code)
{
	size_t n;
	uint64_t end;
	int err;

	err = rec_target_init(&s->target, &s->opts.rec, s->err, sizeof(s->err));
	if (err)
		return err;
	err = rec_counting_open(&s->cnt, &s->events, &s->target, s->err, sizeof(s->err));
	if (err)
		return err;
	s->kind = s->target.kind;
	if (s->run == 0) {
		build_title(s);
		err = report_unsupported(s);
		if (!err)
			err = new_table(s, &s->total);
		if (!err && s->opts.interval_ms)
			err = new_table(s, &s->iv);
		if (err) {
			if (err == -ENOMEM)
				snprintf(s->err, sizeof(s->err), "out of memory");
			return err;
		}
		if (s->opts.rec.output) {
			err = file_open(s, argc, argv);
			if (err)
				return err;
		}
		if (s->opts.interval_ms && s->po.format == AMB_STAT_TEXT)
			amb_stat_print_interval_header(stderr, s->opts.aggr);
	}
	n = s->events.n * s->cnt.nr_cells;
	free(s->prev);
	s->prev = calloc(n, sizeof(*s->prev));
	if (!s->prev) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -ENOMEM;
	}

	s->have_status = s->have_ru = false;
	s->run_ns = s->window_ns = rec_now_ns();
	if (s->target.kind != REC_TARGET_CMD)
		rec_counting_enable(&s->cnt, true);
	err = rec_target_start(&s->target);
	if (err) {
		snprintf(s->err, sizeof(s->err), "cannot run '%s': %s", s->opts.rec.argv[0],
			 strerror(-err));
		*exit_code = err == -ENOENT ? EXIT_NOT_FOUND : EXIT_NO_EXEC;
		rec_reap(s->target.child, NULL);
		s->target.child = 0;
		return err;
	}
	err = wait_target(s);
	end = rec_now_ns();
	if (s->target.kind != REC_TARGET_CMD)
		rec_counting_enable(&s->cnt, false);
	if (!err && s->opts.interval_ms) {
		/* The last, shorter interval, as perf stat prints it. */
		err = interval_end(s, end);
		rec_counting_read(&s->cnt);
	} else if (!err) {
		rec_counting_read(&s->cnt);
		if (s->w)
			err = write_counts(s, NULL, s->run_ns, end);
	}
	add_counts(s, s->total, NULL);
	amb_stat_end_run(s->total, end - s->run_ns);
	s->runs_done++;
	*exit_code = !s->have_status ? 0 : WIFSIGNALED(s->wstatus) ? 128 + WTERMSIG(s->wstatus)
								   : WEXITSTATUS(s->wstatus);
	rec_counting_close(&s->cnt);
	rec_target_free(&s->target);
	return err;
}

static void session_free(struct stat_session *s)
{
	rec_counting_close(&s->cnt);
	rec_target_free(&s->target);
	rec_events_free(&s->events);
	amb_stat_free(s->total);
	amb_stat_free(s->iv);
	free(s->prev);
	if (s->w)
		amb_writer_close(s->w);
	rec_output_close(&s->out);
	rec_stat_opts_free(&s->opts);
}

int rec_stat_main(int argc, char **argv)
{
	static struct stat_session sess;
	struct stat_session *s = &sess;
	struct sigaction sa;
	int err, code = 0, ret = EXIT_REC_FAIL;

	amb_set_warn(print_warning, NULL);
	s->target.go_fd = s->target.err_fd = -1;
	s->out.fd = -1;
	if (rec_stat_opts_parse(&s->opts, argc - 1, argv + 1, s->err, sizeof(s->err))) {
		fprintf(stderr, "amber-rec stat: error: %s\n(see amber-rec stat --help)\n", s->err);
		rec_stat_opts_free(&s->opts);
		return EXIT_REC_FAIL;
	}
	if (s->opts.rec.help) {
		usage(stdout);
		rec_stat_opts_free(&s->opts);
		return 0;
	}
	s->po = (struct amb_stat_print_opts){
		.format = s->opts.json ? AMB_STAT_JSON : s->opts.sep ? AMB_STAT_CSV : AMB_STAT_TEXT,
		.sep = s->opts.sep, .runs_asked = s->opts.repeat, .user_s = -1, .sys_s = -1,
	};
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (s->opts.rec.output &&
	    (err = rec_output_check(s->opts.rec.output, s->err, sizeof(s->err))))
		goto out;
	err = parse_events(s);
	if (err)
		goto out;
	s->start_ns = rec_now_ns();
	for (s->run = 0; s->run < s->opts.repeat && !stop_signal; s->run++) {
		err = run_once(s, argc, argv, &code);
		if (err)
			break;
	}
	if (s->w && !err)
		err = file_close(s, rec_now_ns());
	if (s->total && s->runs_done && !s->opts.interval_ms && (!err || s->runs_done)) {
		s->po.interval = false;
		s->po.title = s->title;
		s->po.footer = true;
		if (s->have_ru && s->runs_done == 1 && s->kind == REC_TARGET_CMD) {
			s->po.user_s = (double)s->ru.ru_utime.tv_sec + s->ru.ru_utime.tv_usec / 1e6;
			s->po.sys_s = (double)s->ru.ru_stime.tv_sec + s->ru.ru_stime.tv_usec / 1e6;
		}
		print_table(s, s->total);
	}
	if (s->total && s->runs_done)
		amb_stat_warn_unreliable(s->total);
	if (!err)
		ret = code;
	else if (code == EXIT_NO_EXEC || code == EXIT_NOT_FOUND)
		ret = code;
out:
	if (err)
		fprintf(stderr, "amber-rec stat: error: %s\n", s->err);
	session_free(s);
	return ret;
}

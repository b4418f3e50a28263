// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_sched.c - `amber-analyze sched latency|timehist|wakers`:
 * the scheduler model (resolve/sched.h) as perf sched shows it, and who
 * woke the threads that waited longest.
 *
 * latency, per thread, as perf sched latency: the switch-ins that
 * followed a wakeup (or a preemption: a preempted thread is runnable from
 * its switch-out), the delay from that moment to the switch-in (average
 * and maximum, and when the maximum happened), and the time on CPU.  A
 * wakeup counts only for a thread that is off CPU and not runnable yet;
 * a thread without any such switch-in is not listed.  Run time adds up
 * the intervals between switch-in and switch-out (perf adds
 * sched_stat_runtime's values, which that tracepoint reports for the
 * same intervals).
 *
 * timehist, a line per switch-out, as perf sched timehist: the time off
 * CPU before the run (wait time), the delay from wakeup to switch-in
 * (sch delay), the run itself, and the state the thread left in.
 *
 * wakers: the longest waits that ended in a wakeup, with the stack the
 * thread waited in and the waker's command, thread and stack.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

#define SCHED_FILTER_HELP                                                              \
	"      --pid/--tid LIST    only these processes/threads\n"                         \
	"      --comm LIST         only these commands\n"                                  \
	"  -C, --cpu LIST          only switches on these CPUs (0-3,7)\n"                  \
	"      --time START,END    one range: times as script prints them (309.76,\n"      \
	"                          309.8), +SECONDS from the start, HH:MM:SS[.frac],\n"   \
	"                          or a slice of the span (10%/2, 0%-10%)\n"               \
	"      --symfs DIR         look for files under DIR\n"                             \
	"      --no-debuginfod     never ask debuginfod (DEBUGINFOD_URLS) for files\n"      \
	"      --no-demangle       C++ and Rust symbols as the ELF spells them\n"          \
	"  -j, --jobs N            N threads: main + N-1 decoding (default: one per CPU)\n"

static const char usage[] =
"usage: amber-analyze sched latency|timehist|wakers [OPTIONS] [FILE]\n"
"\n"
"The scheduler's view of a recording made with amber-rec sched (or with\n"
"--off-cpu): sched:sched_switch, sched_waking and context-switch records.\n"
"\n"
"  latency    per thread: switches, run time, average and maximum delay from\n"
"             wakeup (or preemption) to running, and when the maximum was\n"
"  timehist   a line per switch-out: wait time, scheduling delay, run time\n"
"  wakers     the longest waits ended by a wakeup: where the thread waited,\n"
"             and who woke it, with the waker's stack\n"
"\n"
"'amber-analyze sched COMMAND --help' describes its options.\n";

static const char usage_latency[] =
"usage: amber-analyze sched latency [OPTIONS] [FILE]\n"
"\n"
"Per thread: the switch-ins that ended a wait for a CPU (after a wakeup or a\n"
"preemption), the average and maximum delay of those waits, when the maximum\n"
"started and ended, and the time the thread ran, as perf sched latency -p.\n"
"\n"
"  -s, --sort KEYS         avg,max,switch,runtime,pid (default avg,max,switch,runtime;\n"
"                          largest first, pid ascending)\n"
"      --json              JSON instead of text\n"
SCHED_FILTER_HELP;

static const char usage_timehist[] =
"usage: amber-analyze sched timehist [OPTIONS] [FILE]\n"
"\n"
"A line per switch-out of a thread, as perf sched timehist: when, on which\n"
"CPU, the thread, its time off CPU before it ran (wait time), the delay from\n"
"its wakeup to running (sch delay), how long it ran, and the state it left in.\n"
"\n"
"      --json              a JSON object per line instead of text\n"
SCHED_FILTER_HELP;

static const char usage_wakers[] =
"usage: amber-analyze sched wakers [OPTIONS] [FILE]\n"
"\n"
"The longest waits that ended in a wakeup: the thread, its state and the stack\n"
"it waited in, and the thread that woke it, with its command and stack (from\n"
"its sched:sched_waking sample; stacks need amber-rec -g or --call-graph).\n"
"\n"
"  -n, --count N           this many waits (default 10)\n"
"      --max-stack N       frames per stack (default 32, 0: all)\n"
"      --json              JSON instead of text\n"
SCHED_FILTER_HELP;

/* ---- shared ------------------------------------------------------------------- */

enum { O_JSON = 256, O_MAX_STACK };

struct sched_args {
	const char *path;
	bool json;
	const char *sort;
	unsigned count, max_stack;
	struct ana_pipeline_opts sample;
};

static int check_lat_sort(const char *arg);

static int sched_option(void *ctx, int c, const char *arg)
{
	struct sched_args *a = ctx;
	char *end;
	unsigned long v;

	switch (c) {
	case O_JSON: a->json = true; return 0;
	case 's': a->sort = arg; return check_lat_sort(arg);
	case 'n':
	case O_MAX_STACK:
		v = strtoul(arg, &end, 10);
		if (end == arg || *end || v > 100000 || *arg == '-')
			return amb_errmsg_set("not a number from 0 to 100000"), -EINVAL;
		if (c == 'n')
			a->count = (unsigned)v;
		else
			a->max_stack = (unsigned)v;
		return 0;
	default:
		return 1;
	}
}

/* "1234.567890": perf clock ns as seconds with microseconds, as perf prints. */
static const char *secs(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
	return buf;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* "12.345": ns as milliseconds, microseconds cut off as perf sched timehist does. */
static const char *msecs(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000u, ns % 1000000u / 1000u);
	return buf;
}

/* A note on what the recording cannot show, for text and JSON alike. */
static const char *coverage_note(struct ana_sched *s)
{
	if (!ana_sched_has_wakeups(s))
		return "no wakeup events: only preempted threads' delays are measured "
		       "(record with amber-rec sched)";
	if (!ana_sched_system_wide(s))
		return "a recording of a command's (or -p/-t) threads: wakeups by other tasks "
		       "(timers, other processes) are not seen; record system-wide "
		       "(amber-rec sched) for those";
	return NULL;
}

/* ---- latency ------------------------------------------------------------------------ */

struct lat_task {
	uint32_t tid;
	struct ana_thread *t;
	uint64_t runtime, switches, total, max, max_start, max_end;
};

struct latency {
	struct amb_hashmap tasks;     /* tid -> struct lat_task */
	struct lat_task **v;
	size_t nr, cap;
	int keys[8];
	size_t nr_keys;
};

enum { K_AVG, K_MAX, K_SWITCH, K_RUNTIME, K_PID };

static struct lat_task *lat_task(struct latency *l, struct ana_thread *t)
{
	uint32_t tid = ana_thread_tid(t);
	uint64_t hash = amb_hash_u64(tid);
	struct lat_task *k = amb_hashmap_find_u64(&l->tasks, hash, tid);

	if (k) {
		k->t = t;
		return k;
	}
	if (amb_ensure_cap((void **)&l->v, &l->cap, sizeof(*l->v), l->nr + 1))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k || amb_hashmap_add(&l->tasks, hash, tid, k)) {
		free(k);
		return NULL;
	}
	k->tid = tid;
	k->t = t;
	l->v[l->nr++] = k;
	return k;
}

static int lat_wait(void *ctx, const struct ana_sched_wait *w)
{
	struct lat_task *k;
	uint64_t delay;

	/* A delay counts where it ends: a switch-in inside the window, and
	 * one that was recorded (perf counts no other either). */
	if (w->open || w->inferred || !w->ready_time || w->end != w->in_time ||
	    w->in_time < w->ready_time)
		return 0;
	k = lat_task(ctx, w->t);
	if (!k)
		return -ENOMEM;
	delay = w->in_time - w->ready_time;
	k->switches++;
	k->total += delay;
	if (delay > k->max || k->switches == 1) {
		k->max = delay;
		k->max_start = w->ready_time;
		k->max_end = w->in_time;
	}
	return 0;
}

static int lat_run(void *ctx, const struct ana_sched_run *r)
{
	struct lat_task *k = lat_task(ctx, r->t);

	if (!k)
		return -ENOMEM;
	k->runtime += r->end - r->start;
	return 0;
}

static uint64_t lat_key(const struct lat_task *k, int key)
{
	switch (key) {
	case K_AVG: return k->switches ? k->total / k->switches : 0;
	case K_MAX: return k->max;
	case K_SWITCH: return k->switches;
	case K_RUNTIME: return k->runtime;
	default: return k->tid;
	}
}

static const struct latency *lat_sort_ctx;

static int lat_cmp(const void *a, const void *b)
{
	const struct lat_task *x = *(struct lat_task *const *)a, *y = *(struct lat_task *const *)b;

	for (size_t i = 0; i < lat_sort_ctx->nr_keys; i++) {
		int key = lat_sort_ctx->keys[i];
		uint64_t vx = lat_key(x, key), vy = lat_key(y, key);

		if (vx != vy)
			return (vx > vy) == (key == K_PID) ? 1 : -1;
	}
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int parse_lat_sort(struct latency *l, const char *arg)
{
	static const char *const names[] = { "avg", "max", "switch", "runtime", "pid" };
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	l->nr_keys = 0;
	for (tok = strtok_r(copy, ", ", &save); tok && !err; tok = strtok_r(NULL, ", ", &save)) {
		size_t i;

		for (i = 0; i < AMB_ARRAY_SIZE(names) && strcmp(tok, names[i]); i++)
			;
		if (i == AMB_ARRAY_SIZE(names) || l->nr_keys == AMB_ARRAY_SIZE(l->keys))
			err = -EINVAL;
		else
			l->keys[l->nr_keys++] = (int)i;
	}
	free(copy);
	return err || !l->nr_keys ? -EINVAL : 0;
}

/* --sort's value, checked as the options are read: 0, or -EINVAL with
 * the keys in amb_errmsg(). */
static int check_lat_sort(const char *arg)
{
	struct latency l = { .nr_keys = 0 };
	int err = parse_lat_sort(&l, arg);

	if (err == -EINVAL)
		amb_errmsg_set("keys: avg, max, switch, runtime, pid (up to %zu)",
			       AMB_ARRAY_SIZE(l.keys));
	return err;
}

static void lat_print(struct latency *l, struct ana_sched *s, struct ana_out *o, bool json)
{
	static const char line[] =
		" -----------------------------------------------------------------------------"
		"---------------------------------------------------------------\n";
	const char *note = coverage_note(s);
	uint64_t all_runtime = 0, all_switches = 0;
	char b1[32], b2[32];
	bool first = true;

	lat_sort_ctx = l;
	qsort(l->v, l->nr, sizeof(*l->v), lat_cmp);
	if (json) {
		ana_out_printf(o, "{\"note\":");
		if (note)
			ana_out_json(o, note);
		else
			ana_out_printf(o, "null");
		ana_out_printf(o, ",\"tasks\":[");
	} else {
		if (note)
			ana_out_printf(o, "# %s\n", note);
		ana_out_printf(o, "%s  %-22s | %13s | %9s | %15s | %15s | %-25s | %s\n%s", line, "Task",
			       "Runtime ms", "Switches", "Avg delay ms", "Max delay ms",
			       "Max delay start", "Max delay end", line);
	}
	for (size_t i = 0; i < l->nr; i++) {
		const struct lat_task *k = l->v[i];
		uint64_t avg = k->switches ? k->total / k->switches : 0;
		char name[64];

		/* As perf: threads with no measured delay are left out. */
		if (!k->switches)
			continue;
		all_runtime += k->runtime;
		all_switches += k->switches;
		if (json) {
			ana_out_printf(o, "%s{\"comm\":", first ? "" : ",");
			ana_out_json(o, ana_thread_comm(k->t));
			ana_out_printf(o, ",\"pid\":%u,\"tid\":%u,\"runtime_ns\":%" PRIu64
				       ",\"switches\":%" PRIu64 ",\"avg_delay_ns\":%" PRIu64
				       ",\"max_delay_ns\":%" PRIu64 ",\"max_delay_start_ns\":%" PRIu64
				       ",\"max_delay_end_ns\":%" PRIu64 "}",
				       ana_thread_pid(k->t), k->tid, k->runtime, k->switches, avg,
				       k->max, k->max_start, k->max_end);
			first = false;
			continue;
		}
		snprintf(name, sizeof(name), "%s:%u", ana_thread_comm(k->t), k->tid);
		ana_out_printf(o, "  %-22s | %10.3f ms | %9" PRIu64 " | avg:%8.3f ms | max:%8.3f ms"
			       " | max start: %12s s | max end: %12s s\n", name, ms(k->runtime),
			       k->switches, ms(avg), ms(k->max), secs(k->max_start, b1, sizeof(b1)),
			       secs(k->max_end, b2, sizeof(b2)));
	}
	if (json) {
		ana_out_printf(o, "],\"total\":{\"runtime_ns\":%" PRIu64 ",\"switches\":%" PRIu64 "}}\n",
			       all_runtime, all_switches);
		return;
	}
	ana_out_printf(o, "%s  %-22s | %10.3f ms | %9" PRIu64 " |\n%s", line, "TOTAL:",
		       ms(all_runtime), all_switches, line);
}

static void lat_free(struct latency *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	amb_hashmap_free(&l->tasks);
}

/* ---- timehist ----------------------------------------------------------------------- */

struct timehist {
	struct ana_out *o;
	bool json;
};

static void th_header(struct ana_out *o)
{
	ana_out_printf(o, "%15s %6s  %-30s  %9s  %9s  %9s  %s\n", "time", "cpu", "task name",
		       "wait time", "sch delay", "run time", "state");
	ana_out_printf(o, "%15s %6s  %-30s  %9s  %9s  %9s\n", "", "", "[tid/pid]", "(msec)",
		       "(msec)", "(msec)");
	ana_out_printf(o, "--------------- ------  ------------------------------  ---------  "
		       "---------  ---------  -----\n");
}

static int th_run(void *ctx, const struct ana_sched_run *r)
{
	struct timehist *h = ctx;
	uint32_t tid = ana_thread_tid(r->t), pid = ana_thread_pid(r->t);
	uint64_t wait = 0, delay = 0;
	char name[64], b[32], w1[32], w2[32], w3[32];

	/* A line per switch-out: a run the recording's end cut has none. */
	if (r->open)
		return 0;
	if (r->wait_out_time && r->wait_out_time <= r->in_time)
		wait = r->in_time - r->wait_out_time;
	if (r->wait_ready_time && r->wait_ready_time <= r->in_time)
		delay = r->in_time - r->wait_ready_time;
	if (h->json) {
		ana_out_printf(h->o, "{\"time_ns\":%" PRIu64 ",\"cpu\":%u,\"comm\":", r->out_time,
			       r->cpu);
		ana_out_json(h->o, ana_thread_comm(r->t));
		ana_out_printf(h->o, ",\"pid\":%u,\"tid\":%u,\"wait_ns\":%" PRIu64 ",\"sch_delay_ns\":%"
			       PRIu64 ",\"run_ns\":%" PRIu64 ",\"state\":\"%c\"}\n", pid, tid, wait,
			       delay, r->out_time - r->in_time, ana_sched_state_letter(r->state));
		return 0;
	}
	if (tid == pid)
		snprintf(name, sizeof(name), "%s[%u]", ana_thread_comm(r->t), tid);
	else
		snprintf(name, sizeof(name), "%s[%u/%u]", ana_thread_comm(r->t), tid, pid);
	ana_out_printf(h->o, "%15s [%04u]  %-30s  %9s  %9s  %9s  %c\n",
		       secs(r->out_time, b, sizeof(b)), r->cpu, name, msecs(wait, w1, sizeof(w1)),
		       msecs(delay, w2, sizeof(w2)), msecs(r->out_time - r->in_time, w3, sizeof(w3)),
		       ana_sched_state_letter(r->state));
	return 0;
}

/* ---- wakers ------------------------------------------------------------------------- */

/* A stack as interned frame names, leaf first. */
struct stack_names {
	const char **v;
	size_t n, cap;
};

struct long_wait {
	uint64_t dur, out_time, ready_time, in_time;
	enum ana_sched_state state;
	uint32_t pid, tid, wpid, wtid;
	const char *comm, *wcomm;      /* interned */
	struct stack_names stack, wstack;
};

struct wakers {
	struct ana_pipeline *p;
	struct ana_intern names;
	struct long_wait *heap;        /* a min-heap on dur, of @count */
	size_t nr, count;
	unsigned max_stack;
	uint64_t woken;                /* waits ended by a seen wakeup */
	struct stack_names *cur;       /* the stack being collected */
	bool skip_sched;               /* still at the scheduler's own frames */
	int err;
};

static int collect_name(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct wakers *w = ctx;
	struct stack_names *sn = w->cur;
	char buf[256];
	const char *name = ana_loc_sym_name(loc, buf, sizeof(buf)), *in;

	if (w->skip_sched && loc->kernel && ana_offcpu_scheduler_frame(name))
		return 0;
	w->skip_sched = false;
	if (w->max_stack && sn->n == w->max_stack)
		return 1;
	in = ana_intern(&w->names, name);
	if (!in || amb_ensure_cap((void **)&sn->v, &sn->cap, sizeof(*sn->v), sn->n + 1)) {
		w->err = -ENOMEM;
		return 1;
	}
	sn->v[sn->n++] = in;
	return 0;
}

static int collect_stack(struct wakers *w, struct ana_thread *t, const struct ana_sample *s,
			 struct stack_names *sn, bool skip_sched)
{
	sn->v = NULL;
	sn->n = sn->cap = 0;
	if (!s)
		return 0;
	w->cur = sn;
	w->skip_sched = skip_sched;
	w->err = 0;
	ana_pipeline_walk(w->p, t, s, 0, 0, collect_name, w);
	return w->err;
}

static void heap_swap(struct long_wait *a, struct long_wait *b)
{
	struct long_wait x = *a;

	*a = *b;
	*b = x;
}

static void heap_down(struct long_wait *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && h[l].dur < h[m].dur)
			m = l;
		if (r < n && h[r].dur < h[m].dur)
			m = r;
		if (m == i)
			return;
		heap_swap(&h[i], &h[m]);
		i = m;
	}
}

static void heap_up(struct long_wait *h, size_t i)
{
	while (i && h[(i - 1) / 2].dur > h[i].dur) {
		heap_swap(&h[i], &h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static int wk_wait(void *ctx, const struct ana_sched_wait *w)
{
	struct wakers *k = ctx;
	struct long_wait lw;
	int err;

	if (w->open || !w->waker || !w->out_time || !w->ready_time)
		return 0;
	k->woken++;
	lw = (struct long_wait){
		.dur = w->in_time - w->out_time, .out_time = w->out_time,
		.ready_time = w->ready_time, .in_time = w->in_time, .state = w->state,
		.pid = ana_thread_pid(w->t), .tid = ana_thread_tid(w->t),
		.wpid = ana_thread_pid(w->waker), .wtid = ana_thread_tid(w->waker),
		.comm = ana_intern(&k->names, ana_thread_comm(w->t)),
		.wcomm = ana_intern(&k->names, ana_thread_comm(w->waker)),
	};
	if (!k->count || (k->nr == k->count && lw.dur <= k->heap[0].dur))
		return 0;
	if (!lw.comm || !lw.wcomm)
		return -ENOMEM;
	err = collect_stack(k, w->t, w->out, &lw.stack, true);
	if (!err)
		err = collect_stack(k, w->waker, w->wake, &lw.wstack, false);
	if (err) {
		free(lw.stack.v);
		free(lw.wstack.v);
		return err;
	}
	if (k->nr < k->count) {
		k->heap[k->nr] = lw;
		heap_up(k->heap, k->nr++);
		return 0;
	}
	free(k->heap[0].stack.v);
	free(k->heap[0].wstack.v);
	k->heap[0] = lw;
	heap_down(k->heap, k->nr, 0);
	return 0;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct long_wait *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->out_time < y->out_time ? -1 : x->out_time > y->out_time;
}

static void print_stack(struct ana_out *o, const struct stack_names *sn, bool json)
{
	for (size_t i = 0; i < sn->n; i++) {
		if (json) {
			ana_out_printf(o, "%s", i ? "," : "");
			ana_out_json(o, sn->v[i]);
		} else {
			ana_out_printf(o, "            %s\n", sn->v[i]);
		}
	}
}

static void wk_print(struct wakers *k, struct ana_sched *s, struct ana_out *o, bool json)
{
	const char *note = coverage_note(s);
	char b1[32], b2[32], b3[32];

	qsort(k->heap, k->nr, sizeof(*k->heap), wait_cmp);
	if (json) {
		ana_out_printf(o, "{\"note\":");
		if (note)
			ana_out_json(o, note);
		else
			ana_out_printf(o, "null");
		ana_out_printf(o, ",\"woken_waits\":%" PRIu64 ",\"waits\":[", k->woken);
	} else {
		if (note)
			ana_out_printf(o, "# %s\n", note);
		if (!ana_sched_has_callchains(s))
			ana_out_printf(o, "# no call chains in the recording: stacks are the "
				       "sampled addresses (record with -g)\n");
		ana_out_printf(o, "# the %zu longest of %" PRIu64 " waits ended by a wakeup\n\n",
			       k->nr, k->woken);
	}
	for (size_t i = 0; i < k->nr; i++) {
		const struct long_wait *w = &k->heap[i];

		if (json) {
			ana_out_printf(o, "%s{\"comm\":", i ? "," : "");
			ana_out_json(o, w->comm);
			ana_out_printf(o, ",\"pid\":%u,\"tid\":%u,\"state\":\"%c\",\"wait_ns\":%" PRIu64
				       ",\"out_ns\":%" PRIu64 ",\"woken_ns\":%" PRIu64 ",\"in_ns\":%"
				       PRIu64 ",\"stack\":[", w->pid, w->tid,
				       ana_sched_state_letter(w->state), w->dur, w->out_time,
				       w->ready_time, w->in_time);
			print_stack(o, &w->stack, true);
			ana_out_printf(o, "],\"waker\":{\"comm\":");
			ana_out_json(o, w->wcomm);
			ana_out_printf(o, ",\"pid\":%u,\"tid\":%u,\"stack\":[", w->wpid, w->wtid);
			print_stack(o, &w->wstack, true);
			ana_out_printf(o, "]}}");
			continue;
		}
		ana_out_printf(o, "%s [%u] waited %.3f ms in state %c (%s), %s .. %s s\n", w->comm,
			       w->tid, ms(w->dur), ana_sched_state_letter(w->state),
			       ana_sched_state_name(w->state), secs(w->out_time, b1, sizeof(b1)),
			       secs(w->in_time, b2, sizeof(b2)));
		ana_out_printf(o, "        in:\n");
		print_stack(o, &w->stack, false);
		ana_out_printf(o, "    woken at %s s (%.3f ms before it ran) by %s [%u]:\n",
			       secs(w->ready_time, b3, sizeof(b3)), ms(w->in_time - w->ready_time),
			       w->wcomm, w->wtid);
		print_stack(o, &w->wstack, false);
		ana_out_printf(o, "\n");
	}
	if (json)
		ana_out_printf(o, "]}\n");
}

static void wk_free(struct wakers *k)
{
	for (size_t i = 0; i < k->nr; i++) {
		free(k->heap[i].stack.v);
		free(k->heap[i].wstack.v);
	}
	free(k->heap);
	ana_intern_free(&k->names);
}

/* ---- the command ------------------------------------------------------------------- */

enum sched_cmd { SC_LATENCY, SC_TIMEHIST, SC_WAKERS };

static int run_sched(enum sched_cmd cmd, const char *name, struct sched_args *a)
{
	struct latency lat = { 0 };
	struct timehist th = { 0 };
	struct wakers wk = { .count = a->count, .max_stack = a->max_stack };
	struct ana_sched_ops ops = { 0 };
	struct ana_sched *s = NULL;
	struct ana_out out;
	void *ctx = NULL;
	int err, rc = 1;

	if (cmd == SC_LATENCY && parse_lat_sort(&lat, a->sort ? a->sort : "avg,max,switch,runtime")) {
		ana_cmd_error(name, "bad --sort '%s' (avg, max, switch, runtime, pid)", a->sort);
		return 2;
	}
	err = ana_sched_open(a->path, &a->sample, cmd == SC_WAKERS ? ANA_SCHED_KEEP_WAKERS : 0, &s);
	if (err) {
		lat_free(&lat);
		return ana_cmd_fail(name, a->path, err);
	}
	ana_out_init(&out, stdout);
	if (a->json)
		ana_out_no_cut(&out);
	switch (cmd) {
	case SC_LATENCY:
		ops.wait = lat_wait;
		ops.run = lat_run;
		ctx = &lat;
		break;
	case SC_TIMEHIST:
		th.o = &out;
		th.json = a->json;
		ops.run = th_run;
		ctx = &th;
		if (!a->json) {
			const char *note = coverage_note(s);

			if (note)
				ana_out_printf(&out, "# %s\n", note);
			th_header(&out);
		}
		break;
	case SC_WAKERS:
		wk.p = ana_sched_pipeline(s);
		wk.heap = calloc(a->count + 1, sizeof(*wk.heap));
		if (!wk.heap) {
			err = -ENOMEM;
			goto out;
		}
		ops.wait = wk_wait;
		ctx = &wk;
		break;
	}
	err = ana_sched_run(s, &ops, ctx);
	if (err)
		goto out;
	if (cmd == SC_LATENCY)
		lat_print(&lat, s, &out, a->json);
	else if (cmd == SC_WAKERS)
		wk_print(&wk, s, &out, a->json);
	rc = 0;
out:
	if (err)
		ana_cmd_fail(name, a->path, err);
	err = ana_out_finish(&out);
	if (err && !rc) {
		ana_cmd_error(name, "writing the output: %s", strerror(-err));
		rc = 1;
	}
	lat_free(&lat);
	wk_free(&wk);
	ana_sched_close(s);
	return rc;
}

int ana_cmd_sched(int argc, char **argv)
{
	static const struct option lat_opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option th_opts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option wk_opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "max-stack", required_argument, NULL, O_MAX_STACK },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *sub;
		enum sched_cmd cmd;
		struct ana_cmd_desc desc;
	} subs[] = {
		{ "latency", SC_LATENCY, { "sched latency", usage_latency, "s:", lat_opts, 1, 1, true } },
		{ "timehist", SC_TIMEHIST, { "sched timehist", usage_timehist, "", th_opts, 1, 1, true } },
		{ "wakers", SC_WAKERS, { "sched wakers", usage_wakers, "n:", wk_opts, 1, 1, true } },
	};
	struct sched_args a = { .count = 10, .max_stack = 32 };
	int rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < AMB_ARRAY_SIZE(subs); i++) {
		if (strcmp(argv[1], subs[i].sub))
			continue;
		ana_pipeline_opts_init(&a.sample);
		rc = ana_cmd_parse(&subs[i].desc, argc - 1, argv + 1, &a.sample, sched_option, &a,
				   &a.path);
		if (rc == ANA_CMD_GO_ON)
			rc = run_sched(subs[i].cmd, subs[i].desc.name, &a);
		ana_pipeline_opts_free(&a.sample);
		return rc;
	}
	ana_cmd_error("sched", "unknown command '%s' (latency, timehist or wakers)", argv[1]);
	return 2;
}

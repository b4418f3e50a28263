// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/sched.c - the scheduler model: a state machine per
 * thread fed by the scheduler tracepoints and context-switch records in
 * time order (sched.h says what each one means).
 *
 * A thread is on CPU, off CPU, or not known yet.  Off CPU it keeps a copy
 * of the sched_switch sample that took it off (the stack the wait is
 * charged to) and, with ANA_SCHED_KEEP_WAKERS, of the waking sample that
 * made it runnable: one copy per thread, reused, whatever the length of
 * the recording.
 *
 * One switch is often seen twice: the sched_switch sample comes first
 * (the tracepoint fires before the switch), the context-switch record of
 * the same switch a few microseconds later, and system-wide the switch-in
 * shows both as next_pid and as a record.  The first one counts; the
 * second finds the thread already in that state and changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/filter.h"
#include "analyze/resolve/sched.h"
#include "analyze/resolve/tracepoint.h"
#include "common/hashmap.h"
#include "common/util.h"

/* ---- states ------------------------------------------------------------------- */

static const struct {
	char letter;
	const char *name;
} state_names[ANA_SCHED_NR_STATES] = {
	[ANA_SCHED_RUNNABLE] = { 'R', "runnable" },
	[ANA_SCHED_SLEEPING] = { 'S', "sleeping" },
	[ANA_SCHED_BLOCKED] = { 'D', "uninterruptible" },
	[ANA_SCHED_IDLE] = { 'I', "idle" },
	[ANA_SCHED_STOPPED] = { 'T', "stopped" },
	[ANA_SCHED_PARKED] = { 'P', "parked" },
	[ANA_SCHED_DEAD] = { 'X', "dead" },
	[ANA_SCHED_UNKNOWN] = { '?', "unknown" },
};

char ana_sched_state_letter(enum ana_sched_state st)
{
	return st < ANA_SCHED_NR_STATES ? state_names[st].letter : '?';
}

const char *ana_sched_state_name(enum ana_sched_state st)
{
	return st < ANA_SCHED_NR_STATES ? state_names[st].name : "unknown";
}

enum ana_sched_state ana_sched_state_of(uint64_t prev_state)
{
	/* TASK_REPORT's bits in the order the kernel's print format lists them. */
	static const enum ana_sched_state bits[] = {
		ANA_SCHED_SLEEPING, ANA_SCHED_BLOCKED, ANA_SCHED_STOPPED, ANA_SCHED_STOPPED,
		ANA_SCHED_DEAD, ANA_SCHED_DEAD, ANA_SCHED_PARKED, ANA_SCHED_IDLE,
	};
	unsigned i;

	prev_state &= 0xff;   /* 0x100 alone: preempted, i.e. runnable */
	if (!prev_state)
		return ANA_SCHED_RUNNABLE;
	for (i = 0; !(prev_state >> i & 1); i++)
		;
	return bits[i];
}

/* ---- sample copies ------------------------------------------------------------- */

/* A sample kept past its callback: the parts a stack walk reads. */
struct sample_copy {
	struct ana_sample s;
	bool valid;
	uint64_t *chain;
	size_t cap_chain;
	uint64_t *regs;
	size_t cap_regs;
	uint8_t *stack;
	size_t cap_stack;
};

static int copy_sample(struct sample_copy *c, const struct ana_sample *s)
{
	uint64_t nr_regs = s->user_regs ? (uint64_t)__builtin_popcountll(s->user_regs_mask) : 0;
	uint64_t stack = s->user_stack ? AMB_MIN(s->user_stack_dyn_size, s->user_stack_size) : 0;

	c->valid = false;
	if ((s->callchain && amb_ensure_cap((void **)&c->chain, &c->cap_chain, sizeof(*c->chain),
					    s->nr_callchain)) ||
	    (nr_regs && amb_ensure_cap((void **)&c->regs, &c->cap_regs, sizeof(*c->regs), nr_regs)) ||
	    (stack && amb_ensure_cap((void **)&c->stack, &c->cap_stack, 1, stack)))
		return -ENOMEM;
	c->s = *s;
	/* Only what a stack walk reads survives; payloads, branches and
	 * counter values point into the record and are dropped. */
	c->s.raw = NULL;
	c->s.raw_size = 0;
	c->s.branches = NULL;
	c->s.nr_branches = 0;
	c->s.read = NULL;
	c->s.nr_read = 0;
	c->s.intr_regs = NULL;
	c->s.intr_regs_mask = 0;
	c->s.intr_abi = 0;
	c->s.aux = NULL;
	c->s.aux_size = 0;
	if (s->callchain) {
		memcpy(c->chain, s->callchain, s->nr_callchain * sizeof(*c->chain));
		c->s.callchain = c->chain;
	}
	if (nr_regs) {
		memcpy(c->regs, s->user_regs, nr_regs * sizeof(*c->regs));
		c->s.user_regs = c->regs;
	}
	if (stack) {
		memcpy(c->stack, s->user_stack, stack);
		c->s.user_stack = c->stack;
		c->s.user_stack_size = c->s.user_stack_dyn_size = stack;
	} else {
		c->s.user_stack = NULL;
		c->s.user_stack_size = c->s.user_stack_dyn_size = 0;
	}
	c->valid = true;
	return 0;
}

static void copy_free(struct sample_copy *c)
{
	free(c->chain);
	free(c->regs);
	free(c->stack);
}

/* ---- threads -------------------------------------------------------------------- */

enum where { UNSEEN = 0, ON_CPU, OFF_CPU };

struct sched_thread {
	uint32_t tid;
	struct ana_thread *t;
	enum where where;
	bool target;                      /* seen running a sample or record of its own */
	bool exited;                      /* not system-wide: its EXIT record came, and
					   * nothing since said the tid lives again */
	uint64_t exit_time;               /* system-wide: its EXIT record, 0 if none yet */
	/* on CPU */
	uint64_t in_time;
	uint32_t cpu_in;
	uint64_t prev_out, prev_ready;    /* the wait before this run */
	enum ana_sched_state prev_state;
	/* off CPU (out_time 0 and ready set: a new thread, woken) */
	uint64_t out_time, ready;
	uint32_t cpu_out;
	enum ana_sched_state state;
	struct ana_thread *waker;
	struct sample_copy out, wake;
	uint32_t migrations;
};

/* The kinds of samples the model reads. */
enum tp_kind { TP_OTHER = 0, TP_SWITCH, TP_WAKING, TP_WAKEUP, TP_WAKEUP_NEW, TP_MIGRATE };

struct ana_sched {
	struct ana_pipeline_opts raw;     /* @o without its filters: the pipeline's */
	struct ana_pipeline_opts *o;
	struct ana_filter filter;         /* @o's filters, this recording's time state */
	struct ana_pipeline *p;
	struct ana_machine *m;
	struct ana_tp *tp;
	unsigned flags;
	enum tp_kind *kinds;              /* per event index */
	size_t nr_events;
	bool use_wakeup;                  /* no sched_waking: sched_wakeup marks the wakeup */
	bool callchains, wakeups, system_wide;
	const struct ana_tp_field *prev_pid, *prev_state, *next_pid, *wake_pid, *migrate_pid;
	struct amb_hashmap threads;       /* tid -> struct sched_thread */
	uint64_t *cpu_last;               /* per CPU: the last sched_switch seen on it */
	size_t cap_cpus;
	const struct ana_sched_ops *ops;
	void *ctx;
	uint64_t win_start, win_end;      /* --time, resolved at open (window()) */
	bool frame_filter;
	struct ana_sched_stats st;
};

static struct sched_thread *thread_get(struct ana_sched *s, uint32_t tid)
{
	uint64_t hash = amb_hash_u64(tid);
	struct sched_thread *st = amb_hashmap_find_u64(&s->threads, hash, tid);

	if (st)
		return st;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->tid = tid;
	if (amb_hashmap_add(&s->threads, hash, tid, st)) {
		free(st);
		return NULL;
	}
	return st;
}

/* The machine's thread @tid (of process @pid, or its own when unknown). */
static struct ana_thread *machine_thread(struct ana_sched *s, uint32_t pid, uint32_t tid)
{
	struct ana_thread *t = ana_machine_find_thread(s->m, tid);

	return t ? t : ana_machine_thread(s->m, pid ? pid : tid, tid);
}

/* ---- filters ----------------------------------------------------------------------- */

/* The --time window in perf clock, as ana_filter_prepare() resolved it
 * (ana_sched_open() allows one range). */
static void window(struct ana_sched *s)
{
	const struct ana_filter *f = &s->filter;

	s->win_start = 0;
	s->win_end = UINT64_MAX;
	if (!f->time_spec || !f->nr_time)
		return;
	if (!f->time_ready) {
		s->win_end = 0;         /* nothing passes */
		return;
	}
	s->win_start = f->t_start[0];
	s->win_end = f->t_end[0];
}

/* [*@a, *@b] clipped to the window; false when nothing of it is left. */
static bool clip(const struct ana_sched *s, uint64_t *a, uint64_t *b)
{
	*a = AMB_MAX(*a, s->win_start);
	*b = AMB_MIN(*b, s->win_end);
	return *a < *b;
}

static bool thread_passes(struct ana_sched *s, struct ana_thread *t, uint32_t cpu)
{
	struct ana_sample fake = { .pid = ana_thread_pid(t), .tid = ana_thread_tid(t), .cpu = cpu };

	return ana_filter_thread(&s->filter, &fake, t);
}

/* --dso and --sym on the first frame of @smp, as the pipeline applies them. */
static bool frame_passes(struct ana_sched *s, struct ana_thread *t, const struct ana_sample *smp)
{
	if (!s->frame_filter || !smp)
		return true;
	return ana_pipeline_first_frame_passes(s->p, &s->filter, t, smp);
}

/* ---- handing over -------------------------------------------------------------------- */

static int emit_wait(struct ana_sched *s, struct sched_thread *st, uint64_t in_time,
		     uint32_t cpu_in, bool open, bool inferred)
{
	struct ana_sched_wait w = {
		.t = st->t, .out_time = st->out_time, .ready_time = st->ready, .in_time = in_time,
		.state = st->state, .cpu_out = st->cpu_out, .cpu_in = cpu_in, .open = open,
		.inferred = inferred,
		.out = st->out.valid ? &st->out.s : NULL, .waker = st->waker,
		.wake = st->wake.valid ? &st->wake.s : NULL,
	};

	w.start = st->out_time ? st->out_time : st->ready;
	w.end = in_time;
	if (!s->ops->wait || !w.start || w.start > w.end || !clip(s, &w.start, &w.end))
		return 0;
	if (!thread_passes(s, st->t, st->out_time ? st->cpu_out : cpu_in) ||
	    !frame_passes(s, st->t, w.out))
		return 0;
	s->st.waits++;
	return s->ops->wait(s->ctx, &w);
}

static int emit_run(struct ana_sched *s, struct sched_thread *st, uint64_t out_time,
		    enum ana_sched_state state, bool open)
{
	struct ana_sched_run r = {
		.t = st->t, .in_time = st->in_time, .out_time = out_time, .cpu = st->cpu_in,
		.state = state, .open = open, .wait_out_time = st->prev_out,
		.wait_ready_time = st->prev_ready, .wait_state = st->prev_state,
		.migrations = st->migrations,
	};

	r.start = r.in_time;
	r.end = out_time;
	if (!s->ops->run || r.start > r.end)
		return 0;
	/* A run clipped to nothing still counts when it is an instant
	 * inside the window (a switch straight back). */
	if (!clip(s, &r.start, &r.end) && !(r.start == r.end && r.start == r.in_time))
		return 0;
	if (!thread_passes(s, st->t, st->cpu_in))
		return 0;
	s->st.runs++;
	return s->ops->run(s->ctx, &r);
}

/* ---- transitions ------------------------------------------------------------------------ */

static int switch_in(struct ana_sched *s, struct sched_thread *st, uint64_t time, uint32_t cpu,
		     bool inferred);

/* The time of the last sched_switch seen on @cpu, 0 if none. */
static uint64_t cpu_last(const struct ana_sched *s, uint32_t cpu)
{
	return cpu < s->cap_cpus ? s->cpu_last[cpu] : 0;
}

static int set_cpu_last(struct ana_sched *s, uint32_t cpu, uint64_t time)
{
	size_t old = s->cap_cpus;

	if (cpu >= ANA_FILTER_CPUS)
		return 0;
	if (cpu >= s->cap_cpus) {
		if (amb_ensure_cap((void **)&s->cpu_last, &s->cap_cpus, sizeof(*s->cpu_last), cpu + 1))
			return -ENOMEM;
		memset(s->cpu_last + old, 0, (s->cap_cpus - old) * sizeof(*s->cpu_last));
	}
	s->cpu_last[cpu] = time;
	return 0;
}

/*
 * Thread @st is gone: its last run has been handed over, no wait follows,
 * and its tid may come back as a new thread, whose first wait starts at
 * its wakeup, not at the old one's last switch-out.
 */
static void thread_gone(struct sched_thread *st)
{
	st->where = UNSEEN;
	st->out_time = 0;
	st->ready = 0;
	st->exit_time = 0;
	st->waker = NULL;
	st->out.valid = st->wake.valid = false;
}

/* A sample or record of @st's own, or its tid's creation: it lives. */
static void thread_lives(struct sched_thread *st)
{
	st->target = true;
	st->exited = false;
}

/*
 * Thread @st left CPU @cpu at @time in @state; @smp is the sched_switch
 * sample (NULL for a context-switch record).
 */
static int switch_out(struct ana_sched *s, struct sched_thread *st, uint64_t time, uint32_t cpu,
		      enum ana_sched_state state, const struct ana_sample *smp)
{
	int err;

	/* The record of a switch whose sample came first. */
	if (st->where == OFF_CPU && !smp)
		return 0;
	if (st->where == OFF_CPU)
		s->st.unmatched++;
	/*
	 * Its switch-in was not recorded.  System-wide every switch of the
	 * CPU is, so the thread ran since the last one at the latest (perf
	 * sched timehist says the same); a recording of some threads only
	 * cannot tell, and forgets the wait.
	 */
	if (smp && st->where != ON_CPU && s->system_wide && cpu_last(s, cpu)) {
		err = switch_in(s, st, AMB_MAX(st->out_time, cpu_last(s, cpu)), cpu, true);
		if (err)
			return err;
	}
	s->st.switches++;
	if (st->where == ON_CPU && (err = emit_run(s, st, time, state, false)))
		return err;
	if (state == ANA_SCHED_DEAD) {
		thread_gone(st);
		return 0;
	}
	st->where = OFF_CPU;
	st->out_time = time;
	st->cpu_out = cpu;
	st->state = state;
	/* A preempted thread is runnable from the moment it leaves. */
	st->ready = state == ANA_SCHED_RUNNABLE ? time : 0;
	st->waker = NULL;
	st->wake.valid = false;
	st->out.valid = false;
	if (smp && copy_sample(&st->out, smp))
		return -ENOMEM;
	return 0;
}

static int switch_in(struct ana_sched *s, struct sched_thread *st, uint64_t time, uint32_t cpu,
		     bool inferred)
{
	int err;

	if (st->where == ON_CPU)
		return 0;
	/* A thread not seen before that was woken (a new one) waited too. */
	if (st->where == OFF_CPU || (st->where == UNSEEN && st->ready)) {
		err = emit_wait(s, st, time, cpu, false, inferred);
		if (err)
			return err;
	}
	st->prev_out = st->where == OFF_CPU ? st->out_time : 0;
	st->prev_ready = st->ready;
	st->prev_state = st->state;
	st->where = ON_CPU;
	st->in_time = time;
	st->cpu_in = cpu;
	st->ready = 0;
	st->out.valid = st->wake.valid = false;
	return 0;
}

static int wake(struct ana_sched *s, struct sched_thread *st, uint64_t time,
		struct ana_thread *waker, const struct ana_sample *smp)
{
	s->st.wakeups++;
	/* Running, already runnable (preempted, or woken twice): no change,
	 * as perf sched latency counts it.  An exited thread is not woken
	 * to a wait of its own (on_record(), PERF_RECORD_EXIT). */
	if (st->where == ON_CPU || st->ready || st->exited)
		return 0;
	st->ready = time;
	st->waker = waker;
	st->wake.valid = false;
	if ((s->flags & ANA_SCHED_KEEP_WAKERS) && copy_sample(&st->wake, smp))
		return -ENOMEM;
	return 0;
}

/* ---- the record loop ------------------------------------------------------------------ */

static int read_u32(struct ana_sched *s, const struct ana_tp_field *f,
		    const struct ana_sample *smp, uint32_t *v)
{
	uint64_t x;

	if (!f || ana_tp_read_u64(s->tp, f, smp->raw, smp->raw_size, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* The switch-in half of a sched_switch sample: @next took the CPU. */
static int switch_tp_in(struct ana_sched *s, const struct ana_sample *smp, uint32_t next)
{
	struct sched_thread *st = thread_get(s, next);

	if (!st)
		return -ENOMEM;
	/*
	 * A recording of a command, -p or -t sees a task switched in here
	 * that it may never see switched out: only the targets' threads
	 * (their switch-ins also come as context-switch records) count, and
	 * not one that has exited (on_record(), PERF_RECORD_EXIT).
	 */
	if (!s->system_wide && (!st->target || st->exited))
		return 0;
	if (!(st->t = machine_thread(s, 0, next)))
		return -ENOMEM;
	return switch_in(s, st, smp->time, smp->cpu, false);
}

static int on_switch_tp(struct ana_sched *s, const struct ana_sample *smp, struct ana_thread *t)
{
	struct sched_thread *st;
	uint32_t prev, next;
	uint64_t state;
	int err = 0;

	if (read_u32(s, s->prev_pid, smp, &prev) || read_u32(s, s->next_pid, smp, &next) ||
	    !s->prev_state || ana_tp_read_u64(s->tp, s->prev_state, smp->raw, smp->raw_size, &state))
		return 0;   /* a payload too short for its format: nothing to learn */
	/*
	 * The sample is the switched-out task's own (the tracepoint fires in
	 * its context): its tid is the thread, in the recorder's pid
	 * namespace; prev_pid says the same outside containers.  The idle
	 * task (0) is never a thread that waits.
	 */
	if (prev) {
		/* An exiting task's samples name no thread (tid -1): then
		 * prev_pid says which one it is, and after its exit record
		 * (not system-wide) they say nothing of its life. */
		bool own = smp->tid && smp->tid != UINT32_MAX;

		st = thread_get(s, own ? smp->tid : prev);
		if (!st || !(st->t = own ? t : machine_thread(s, 0, prev)))
			return -ENOMEM;
		if (own)
			thread_lives(st);
		else
			st->target = true;
		if (!st->exited)
			err = switch_out(s, st, smp->time, smp->cpu, ana_sched_state_of(state), smp);
	}
	if (!err && next)
		err = switch_tp_in(s, smp, next);
	return err ? err : set_cpu_last(s, smp->cpu, smp->time);
}

static int on_wakeup_tp(struct ana_sched *s, const struct ana_sample *smp, struct ana_thread *t)
{
	struct sched_thread *st;
	uint32_t pid;

	if (read_u32(s, s->wake_pid, smp, &pid) || !pid)
		return 0;
	st = thread_get(s, pid);
	if (!st || (!st->t && !(st->t = machine_thread(s, 0, pid))))
		return -ENOMEM;
	return wake(s, st, smp->time, t, smp);
}

static int on_migrate_tp(struct ana_sched *s, const struct ana_sample *smp)
{
	struct sched_thread *st;
	uint32_t pid;

	if (read_u32(s, s->migrate_pid, smp, &pid) || !pid)
		return 0;
	st = thread_get(s, pid);
	if (!st)
		return -ENOMEM;
	st->migrations++;
	return 0;
}

static int on_other_sample(struct ana_sched *s, const struct ana_sample *smp, struct ana_thread *t)
{
	s->st.samples++;
	if (!ana_filter_time(&s->filter, smp->time))
		goto filtered;
	if (s->o->event && (!smp->evt || strcmp(smp->evt->name, s->o->event)))
		return 0;
	if (!ana_filter_thread(&s->filter, smp, t) || !frame_passes(s, t, smp))
		goto filtered;
	s->st.passed++;
	return s->ops->sample ? s->ops->sample(s->ctx, smp, t) : 0;
filtered:
	s->st.filtered++;
	return 0;
}

static void saw_time(struct ana_sched *s, uint64_t time)
{
	if (!time)
		return;
	if (!s->st.first_time || time < s->st.first_time)
		s->st.first_time = time;
	s->st.last_time = AMB_MAX(s->st.last_time, time);
}

static int on_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct ana_sched *s = ctx;
	enum tp_kind kind = smp->evt && smp->evt->index < s->nr_events ? s->kinds[smp->evt->index]
								    : TP_OTHER;

	saw_time(s, smp->time);
	/* Recording some threads only, every sample is of one of them. */
	if (!s->system_wide && smp->tid && smp->tid != UINT32_MAX) {
		struct sched_thread *st = thread_get(s, smp->tid);

		if (!st)
			return -ENOMEM;
		thread_lives(st);
	}
	switch (kind) {
	case TP_SWITCH:
		return on_switch_tp(s, smp, t);
	case TP_WAKEUP:
		if (!s->use_wakeup)
			return 0;
		/* fall through */
	case TP_WAKING:
	case TP_WAKEUP_NEW:
		return on_wakeup_tp(s, smp, t);
	case TP_MIGRATE:
		return on_migrate_tp(s, smp);
	case TP_OTHER:
		break;
	}
	return on_other_sample(s, smp, t);
}

static int on_record(void *ctx, const struct ana_record *rec)
{
	struct ana_sched *s = ctx;
	struct sched_thread *st;
	bool out;

	if (rec->synthesized)
		return 0;
	saw_time(s, rec->time);
	switch (rec->type) {
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!rec->tid || !rec->time)
			return 0;
		st = thread_get(s, rec->tid);
		if (!st || !(st->t = machine_thread(s, rec->pid, rec->tid)))
			return -ENOMEM;
		thread_lives(st);
		out = rec->misc & PERF_RECORD_MISC_SWITCH_OUT;
		if (!out)
			return switch_in(s, st, rec->time, rec->cpu, false);
		return switch_out(s, st, rec->time, rec->cpu,
				  rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ?
					  ANA_SCHED_RUNNABLE : ANA_SCHED_UNKNOWN, NULL);
	case PERF_RECORD_FORK:
		/* A new thread: its tid may be one that exited. */
		st = amb_hashmap_find_u64(&s->threads, amb_hash_u64(rec->u.fork.tid), rec->u.fork.tid);
		if (st)
			thread_lives(st);
		return 0;
	case PERF_RECORD_EXIT:
		/*
		 * The kernel writes this as the thread's events go away, before
		 * its last switch-out, which a recording of its own threads then
		 * never sees: its last run ends here.  System-wide the thread
		 * may still be preempted on its way out, and its last
		 * switch-out (state X) ends the run; should that be lost, the
		 * run ends here too, not at the recording's end.
		 *
		 * Recording its own threads, the exit goes on after the record:
		 * the thread may still be woken and switched in and out, and
		 * other targets' samples show some of that (a sched_waking
		 * naming it, a sched_switch with it as next_pid) but its own
		 * switch-outs are no longer recorded.  Taken as they come, a
		 * switch-in there opened a wait from its last switch-out before
		 * the exit (a wait already handed over) and a run that never
		 * ended before the recording did.  So the thread's life ends
		 * here, and what is said of it afterwards is left out until
		 * its tid is created again (FORK) or runs a sample of its own.
		 */
		st = amb_hashmap_find_u64(&s->threads, amb_hash_u64(rec->u.fork.tid), rec->u.fork.tid);
		if (!st)
			return 0;
		if (s->system_wide) {
			st->exit_time = rec->time;
			return 0;
		}
		if (st->where == ON_CPU && rec->time) {
			int err = emit_run(s, st, rec->time, ANA_SCHED_DEAD, false);

			if (err)
				return err;
		}
		thread_gone(st);
		st->exited = true;
		return 0;
	default:
		return 0;
	}
}

static int tid_cmp(const void *a, const void *b)
{
	const struct sched_thread *x = *(struct sched_thread *const *)a;
	const struct sched_thread *y = *(struct sched_thread *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* What is still open when the recording ends, in tid order. */
static int flush_open(struct ana_sched *s)
{
	struct amb_hashmap_slot *slot;
	struct sched_thread **v;
	size_t n = 0, i;
	int err = 0;

	v = malloc((amb_hashmap_count(&s->threads) + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	amb_hashmap_for_each(&s->threads, slot)
		v[n++] = slot->value;
	qsort(v, n, sizeof(*v), tid_cmp);
	for (i = 0; i < n && !err; i++) {
		struct sched_thread *st = v[i];

		if (!st->t || (!s->system_wide && !st->target))
			continue;
		if (st->where == ON_CPU && st->exit_time >= st->in_time)
			err = emit_run(s, st, st->exit_time, ANA_SCHED_DEAD, false);
		else if (st->where == ON_CPU)
			err = emit_run(s, st, s->st.last_time, ANA_SCHED_RUNNABLE, true);
		else if (st->where == OFF_CPU && !st->exit_time)
			err = emit_wait(s, st, s->st.last_time, st->cpu_out, true, false);
	}
	free(v);
	return err;
}

/* Forget every thread's state, for a run from the recording's start. */
static void forget_threads(struct ana_sched *s)
{
	struct amb_hashmap_slot *slot;

	amb_hashmap_for_each(&s->threads, slot) {
		struct sched_thread *st = slot->value;

		copy_free(&st->out);
		copy_free(&st->wake);
		free(st);
	}
	amb_hashmap_clear(&s->threads);
	if (s->cpu_last)
		memset(s->cpu_last, 0, s->cap_cpus * sizeof(*s->cpu_last));
}

int ana_sched_run(struct ana_sched *s, const struct ana_sched_ops *ops, void *ctx)
{
	int err;

	forget_threads(s);
	window(s);
	memset(&s->st, 0, sizeof(s->st));
	s->ops = ops;
	s->ctx = ctx;
	err = ana_pipeline_run(s->p, on_sample, on_record, s);
	if (!err)
		err = flush_open(s);
	return err;
}

void ana_sched_get_stats(const struct ana_sched *s, struct ana_sched_stats *st)
{
	*st = s->st;
}

/* ---- opening ---------------------------------------------------------------------------- */

static enum tp_kind kind_of(const char *name)
{
	static const struct { const char *name; enum tp_kind kind; } names[] = {
		{ "sched:sched_switch", TP_SWITCH },
		{ "sched:sched_waking", TP_WAKING },
		{ "sched:sched_wakeup", TP_WAKEUP },
		{ "sched:sched_wakeup_new", TP_WAKEUP_NEW },
		{ "sched:sched_migrate_task", TP_MIGRATE },
	};

	for (size_t i = 0; name && i < AMB_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i].name))
			return names[i].kind;
	return TP_OTHER;
}

/* Sort out the recording's events; -ENODATA when it cannot serve. */
static int check_events(struct ana_sched *s, const char *path)
{
	struct ana_session *ss = ana_pipeline_session(s->p);
	bool switch_tp = false, switch_rec = false, waking = false, wakeup = false, event = !s->o->event;
	const char *target = ana_session_meta(ss, "target");

	s->nr_events = ana_session_event_count(ss);
	s->kinds = calloc(s->nr_events + 1, sizeof(*s->kinds));
	if (!s->kinds)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_events; i++) {
		const struct ana_event *e = ana_session_event(ss, i);

		s->kinds[i] = e->tracepoint ? kind_of(e->name) : TP_OTHER;
		switch_tp |= s->kinds[i] == TP_SWITCH;
		waking |= s->kinds[i] == TP_WAKING;
		wakeup |= s->kinds[i] == TP_WAKEUP || s->kinds[i] == TP_WAKEUP_NEW;
		switch_rec |= e->attr.context_switch;
		if (s->kinds[i] == TP_SWITCH && (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN ||
						 e->attr.sample_type & PERF_SAMPLE_STACK_USER))
			s->callchains = true;
		if (s->o->event && !strcmp(e->name, s->o->event))
			event = true;
	}
	if (!switch_tp && ((s->flags & ANA_SCHED_NEED_SWITCH_TP) || !switch_rec)) {
		amb_errmsg_set("%s: no sched:sched_switch samples%s: record the scheduler with "
			       "amber-rec --off-cpu (added to a profile) or amber-rec sched",
			       path, switch_rec ? " (only context-switch records, which carry no "
			       "state and no stack)" : "");
		return -ENODATA;
	}
	if (!event) {
		amb_errmsg_set("no event '%s' in the recording", s->o->event);
		return -ENOENT;
	}
	s->use_wakeup = !waking;
	s->wakeups = waking || wakeup;
	/* amber-rec names its target in META (FORMAT.md §5.1); an imported
	 * perf.data does not, and perf sched record is system-wide. */
	s->system_wide = !target || !strcmp(target, "system-wide");
	if (!s->system_wide && !switch_rec)
		amb_warn("%s follows the %s without context-switch records: a thread's wait "
			 "ends only where another of its threads hands it the CPU (record with "
			 "amber-rec --off-cpu, or --switch-events)", path, target);
	if (switch_tp) {
		s->prev_pid = ana_tp_find_field(s->tp, "sched", "sched_switch", "prev_pid");
		s->prev_state = ana_tp_find_field(s->tp, "sched", "sched_switch", "prev_state");
		s->next_pid = ana_tp_find_field(s->tp, "sched", "sched_switch", "next_pid");
		if (!s->prev_pid || !s->prev_state || !s->next_pid) {
			amb_errmsg_set("%s: the recorded format of sched:sched_switch lacks "
				       "prev_pid, prev_state or next_pid", path);
			return -ENODATA;
		}
	}
	s->wake_pid = ana_tp_find_field(s->tp, "sched", waking ? "sched_waking" : "sched_wakeup",
					"pid");
	if (!s->wake_pid)
		s->wake_pid = ana_tp_find_field(s->tp, "sched", "sched_wakeup_new", "pid");
	s->migrate_pid = ana_tp_find_field(s->tp, "sched", "sched_migrate_task", "pid");
	return 0;
}

int ana_sched_open(const char *path, struct ana_pipeline_opts *o, unsigned flags,
		   struct ana_sched **out)
{
	struct ana_sched *s;
	int err;

	*out = NULL;
	amb_errmsg_clear();
	if (ana_field_filter_active(&o->ff)) {
		amb_errmsg_set("--field-filter selects samples, not the time between them: "
			       "it does not apply here");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = o;
	s->flags = flags;
	/* Every scheduler sample must reach the model: the pipeline runs
	 * without filters and the model applies them to what it hands over. */
	s->raw = *o;
	ana_filter_init(&s->raw.filter);
	memset(&s->raw.ff, 0, sizeof(s->raw.ff));
	s->raw.event = NULL;
	s->raw.tracepoints = true;
	s->filter = o->filter;
	s->frame_filter = o->filter.dsos || o->filter.syms;
	s->win_end = UINT64_MAX;
	err = ana_pipeline_open(path, &s->raw, &s->p);
	if (err)
		goto fail;
	/* Waits are clipped to one window; several would split them. */
	if (s->filter.nr_time > 1) {
		amb_errmsg_set("--time '%s': the scheduler's views take one range",
			       s->filter.time_spec);
		err = -EINVAL;
		goto fail;
	}
	err = ana_filter_prepare(&s->filter, ana_pipeline_session(s->p));
	if (err) {
		if (!*amb_errmsg())
			amb_errmsg_set("--time: %s", amb_strerror(err));
		goto fail;
	}
	window(s);
	s->m = ana_pipeline_machine(s->p);
	s->tp = ana_pipeline_tp(s->p);
	err = check_events(s, path);
	if (err)
		goto fail;
	*out = s;
	return 0;
fail:
	if (err == -ENOMEM && !*amb_errmsg())
		amb_errmsg_set("%s: %s", path, amb_strerror(err));
	ana_sched_close(s);
	return err;
}

void ana_sched_close(struct ana_sched *s)
{
	if (!s)
		return;
	forget_threads(s);
	amb_hashmap_free(&s->threads);
	free(s->cpu_last);
	free(s->kinds);
	ana_pipeline_close(s->p);
	free(s);
}

struct ana_pipeline *ana_sched_pipeline(const struct ana_sched *s)
{
	return s->p;
}

bool ana_sched_has_callchains(const struct ana_sched *s)
{
	return s->callchains;
}

bool ana_sched_has_wakeups(const struct ana_sched *s)
{
	return s->wakeups;
}

bool ana_sched_system_wide(const struct ana_sched *s)
{
	return s->system_wide;
}

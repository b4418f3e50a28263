// SPDX-License-Identifier: MIT
/*
 * analyze/view/offcpu.c - the scheduler model's waits, and with the
 * wall-clock view the on-CPU samples of a clock event, as samples
 * weighted in nanoseconds (offcpu.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/offcpu.h"
#include "common/hashmap.h"
#include "common/util.h"

/* ANA_OFFCPU_WALL: a thread's time on CPU, as its switches say and as
 * its samples add up, to scale the one to the other. */
struct on_cpu {
	uint64_t run_ns, sampled_ns;
};

struct ana_offcpu {
	enum ana_offcpu_mode mode;
	struct ana_sched *sched;
	struct ana_pipeline *p;
	const struct ana_event *clock;   /* ANA_OFFCPU_WALL: the on-CPU event */
	struct ana_event events[ANA_SCHED_NR_STATES];
	char names[ANA_SCHED_NR_STATES][40];
	char frames[ANA_SCHED_NR_STATES][40];
	uint64_t *chain;                 /* the current wait's callchain, trimmed */
	size_t cap_chain;
	struct amb_hashmap on_cpu;       /* tid -> struct on_cpu (ANA_OFFCPU_WALL) */
	ana_sample_fn fn;
	void *ctx;
	struct ana_offcpu_stats st;
};

bool ana_offcpu_scheduler_frame(const char *name)
{
	static const char *const names[] = {
		"__schedule", "schedule", "__traceiter_sched_switch", "perf_trace_sched_switch",
	};

	for (size_t i = 0; i < AMB_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * Copy @s's callchain without the scheduler frames that lead its kernel
 * part into oc->chain, and point @s at it.  (The first frame left is a
 * return address that a walk resolves as the sampled pc: same function.)
 */
static int trim_scheduler(struct ana_offcpu *oc, struct ana_sample *s)
{
	struct ana_machine *m = ana_pipeline_machine(oc->p);
	uint64_t i, n = 0, off;
	bool leading = true;

	if (!s->callchain || !s->nr_callchain)
		return 0;
	if (amb_ensure_cap((void **)&oc->chain, &oc->cap_chain, sizeof(*oc->chain),
			   s->nr_callchain))
		return -ENOMEM;
	for (i = 0; i < s->nr_callchain; i++) {
		uint64_t a = s->callchain[i];

		if (a >= PERF_CONTEXT_MAX) {
			leading &= a == PERF_CONTEXT_KERNEL;
		} else if (leading) {
			const struct ana_ksym *k = ana_machine_ksym(m, a, &off);

			if (k && ana_offcpu_scheduler_frame(k->name))
				continue;
			leading = false;
			s->ip = a;
		}
		oc->chain[n++] = a;
	}
	s->callchain = oc->chain;
	s->nr_callchain = n;
	return 0;
}

static int on_wait(void *ctx, const struct ana_sched_wait *w)
{
	struct ana_offcpu *oc = ctx;
	uint64_t ns = w->end - w->start;
	struct ana_sample s;
	int err;

	if (!w->out) {
		oc->st.stackless++;
		oc->st.stackless_ns += ns;
		/* The wall clock has room for time without a stack ([unknown]). */
		if (oc->mode != ANA_OFFCPU_WALL)
			return 0;
		memset(&s, 0, sizeof(s));
		s.pid = ana_thread_pid(w->t);
		s.tid = ana_thread_tid(w->t);
		s.cpu = w->cpu_out;
		s.cpumode = PERF_RECORD_MISC_KERNEL;
	} else {
		s = *w->out;
	}
	s.evt = &oc->events[w->state];
	s.id = 0;
	s.period = ns;
	s.time = w->start;
	err = trim_scheduler(oc, &s);
	if (err)
		return err;
	if (w->out) {
		oc->st.waits++;
		oc->st.wait_ns += ns;
	}
	return oc->fn ? oc->fn(oc->ctx, &s, w->t) : 0;
}

static struct on_cpu *on_cpu_of(struct ana_offcpu *oc, uint32_t tid)
{
	uint64_t hash = amb_hash_u64(tid);
	struct on_cpu *c = amb_hashmap_find_u64(&oc->on_cpu, hash, tid);

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (c && amb_hashmap_add(&oc->on_cpu, hash, tid, c)) {
		free(c);
		c = NULL;
	}
	return c;
}

static int count_run(void *ctx, const struct ana_sched_run *r)
{
	struct on_cpu *c = on_cpu_of(ctx, ana_thread_tid(r->t));

	if (!c)
		return -ENOMEM;
	c->run_ns += r->end - r->start;
	return 0;
}

static int count_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct ana_offcpu *oc = ctx;
	struct on_cpu *c;

	if (smp->evt != oc->clock)
		return 0;
	c = on_cpu_of(oc, ana_thread_tid(t));
	if (!c)
		return -ENOMEM;
	c->sampled_ns += smp->period;
	return 0;
}

/*
 * A sample's period is the clock's nominal one even when a busy machine
 * fired it late, and the samples of a thread miss part of its stretches
 * on CPU: scaled by the time the thread's switches say it ran over what
 * its samples add up to, its on-CPU stacks share exactly that time.
 */
static uint64_t scaled_period(struct ana_offcpu *oc, const struct ana_sample *smp,
			      const struct ana_thread *t)
{
	uint32_t tid = ana_thread_tid(t);
	const struct on_cpu *c = amb_hashmap_find_u64(&oc->on_cpu, amb_hash_u64(tid), tid);

	if (!c || !c->run_ns || !c->sampled_ns)
		return smp->period;
	return (uint64_t)((double)smp->period * (double)c->run_ns / (double)c->sampled_ns + 0.5);
}

static int on_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct ana_offcpu *oc = ctx;
	struct ana_sample s;

	if (oc->mode != ANA_OFFCPU_WALL || smp->evt != oc->clock)
		return 0;
	s = *smp;
	s.period = scaled_period(oc, smp, t);
	oc->st.on_cpu++;
	oc->st.on_cpu_ns += s.period;
	return oc->fn ? oc->fn(oc->ctx, &s, t) : 0;
}

int ana_offcpu_run(struct ana_offcpu *oc, ana_sample_fn fn, void *ctx)
{
	struct ana_sched_ops ops = { .wait = on_wait, .sample = on_sample };
	struct ana_sched_ops count = { .run = count_run, .sample = count_sample };
	struct ana_sched_stats ss;
	int err;

	memset(&oc->st, 0, sizeof(oc->st));
	oc->fn = fn;
	oc->ctx = ctx;
	/* The wall clock reads the recording twice: runs and samples per
	 * thread first, without a stack walked, then the profile. */
	if (oc->mode == ANA_OFFCPU_WALL) {
		err = ana_sched_run(oc->sched, &count, oc);
		if (err)
			return err;
	}
	err = ana_sched_run(oc->sched, &ops, oc);
	ana_sched_get_stats(oc->sched, &ss);
	oc->st.samples = ss.samples;
	oc->st.filtered = ss.filtered;
	return err;
}

/* A clock event: its period is nanoseconds of CPU time. */
static bool is_clock(const struct ana_event *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE &&
	       (e->attr.config == PERF_COUNT_SW_CPU_CLOCK || e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* ANA_OFFCPU_WALL: -e's event, or the recording's first clock event. */
static int find_clock(struct ana_offcpu *oc, const char *path, const char *event)
{
	struct ana_session *s = ana_pipeline_session(oc->p);
	size_t i, n = ana_session_event_count(s);

	for (i = 0; i < n && !oc->clock; i++) {
		const struct ana_event *e = ana_session_event(s, i);

		if (event ? !strcmp(e->name, event) : is_clock(e))
			oc->clock = e;
	}
	if (oc->clock && is_clock(oc->clock))
		return 0;
	if (event)
		amb_errmsg_set("-e %s: the wall-clock view weighs on-CPU samples by their period "
			       "in nanoseconds: give a cpu-clock or task-clock event", event);
	else
		amb_errmsg_set("%s: no cpu-clock or task-clock samples: the wall-clock view weighs "
			       "on-CPU samples by their period in nanoseconds; record with "
			       "amber-rec -e cpu-clock --off-cpu", path);
	return -ENODATA;
}

int ana_offcpu_open(const char *path, struct ana_pipeline_opts *o, enum ana_offcpu_mode mode,
		    struct ana_offcpu **out)
{
	struct ana_offcpu *oc;
	int err;

	*out = NULL;
	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	oc->mode = mode;
	err = ana_sched_open(path, o, ANA_SCHED_NEED_SWITCH_TP, &oc->sched);
	if (err)
		goto fail;
	oc->p = ana_sched_pipeline(oc->sched);
	if (mode == ANA_OFFCPU_WALL) {
		err = find_clock(oc, path, o->event);
		if (err)
			goto fail;
	}
	for (unsigned i = 0; i < ANA_SCHED_NR_STATES; i++) {
		struct ana_event *e = &oc->events[i];

		snprintf(oc->names[i], sizeof(oc->names[i]), "off-cpu %c (%s)",
			 ana_sched_state_letter(i), ana_sched_state_name(i));
		snprintf(oc->frames[i], sizeof(oc->frames[i]), "[off-cpu %c %s]",
			 ana_sched_state_letter(i), ana_sched_state_name(i));
		e->name = oc->names[i];
		e->index = i;
		e->leader = UINT32_MAX;
		e->attr.type = PERF_TYPE_SOFTWARE;
		e->attr.config = PERF_COUNT_SW_DUMMY;
		e->attr.size = sizeof(e->attr);
	}
	*out = oc;
	return 0;
fail:
	ana_offcpu_close(oc);
	return err;
}

void ana_offcpu_close(struct ana_offcpu *oc)
{
	struct amb_hashmap_slot *slot;

	if (!oc)
		return;
	ana_sched_close(oc->sched);
	amb_hashmap_for_each(&oc->on_cpu, slot)
		free(slot->value);
	amb_hashmap_free(&oc->on_cpu);
	free(oc->chain);
	free(oc);
}

enum ana_offcpu_mode ana_offcpu_mode(const struct ana_offcpu *oc)
{
	return oc->mode;
}

struct ana_pipeline *ana_offcpu_pipeline(const struct ana_offcpu *oc)
{
	return oc->p;
}

const struct ana_event *ana_offcpu_event(const struct ana_offcpu *oc, size_t i)
{
	return i < ANA_SCHED_NR_STATES ? &oc->events[i] : NULL;
}

const char *ana_offcpu_state_frame(const struct ana_offcpu *oc, const struct ana_sample *s)
{
	for (unsigned i = 0; i < ANA_SCHED_NR_STATES; i++)
		if (s->evt == &oc->events[i])
			return oc->frames[i];
	return NULL;
}

void ana_offcpu_get_stats(const struct ana_offcpu *oc, struct ana_offcpu_stats *st)
{
	*st = oc->st;
}

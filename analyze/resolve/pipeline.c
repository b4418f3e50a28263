// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/pipeline.c - a recording and what decodes it, owned in
 * one place: opened in dependency order, run with the machine kept
 * current, closed in reverse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/pipeline.h"
#include "common/util.h"

/* Threads of recent samples remembered (struct ana_pipeline.threads). */
#define THREAD_CACHE 16

struct ana_pipeline {
	struct ana_pipeline_opts *o;
	struct ana_filter filter;        /* o->filter with this recording's time state */
	struct ana_field_filter ff;      /* o->ff's terms, this pipeline's scratch */
	bool frame_filter;               /* --dso or --sym: look at the first frame */
	bool thread_filter;              /* --pid, --tid, --comm, --cpu or a field filter */
	struct ana_session *s;
	struct ana_dso_table *dsos;
	struct ana_embed *embed;
	struct ana_machine *m;
	struct ana_unwinder *u;
	struct ana_tp *tp;
	ana_sample_fn fn;
	ana_record_fn other;
	void *ctx;
	void (*progress)(void *ctx, uint64_t records);
	void *progress_ctx;
	uint64_t records;                /* read by all runs, for progress */
	struct ana_pipeline_stats st;
	const struct ana_event *event;   /* the only one handed over, or NULL */
	uint64_t *ev_period;             /* per event (+1: no event), within --time: */
	uint64_t *ev_samples;            /* period and samples */
	bool warned_broken;              /* warn_broken_chains() spoke */
	/* The threads of recent samples by tid, what ana_machine_thread()
	 * gives again while a thread's pid stays: samples of the CPUs
	 * interleave, each in runs of a few threads.  An entry holds while
	 * its gen is thread_gen, which every other record moves on (a record
	 * that is not a sample may change the threads).  space_gen is the
	 * thread's ana_machine_space_gen(), which only those records change:
	 * the stack key of its samples without a stack copy. */
	struct {
		struct ana_thread *t;
		uint32_t tid, pid;      /* pid: the thread's, ana_thread_pid() */
		uint64_t gen;
		uint64_t space_gen;
	} threads[THREAD_CACHE];
	uint64_t thread_gen;
	const size_t *pre_exec;          /* ana_machine_pre_exec() */
};

void ana_pipeline_opts_init(struct ana_pipeline_opts *o)
{
	memset(o, 0, sizeof(*o));
	ana_filter_init(&o->filter);
}

void ana_pipeline_opts_free(struct ana_pipeline_opts *o)
{
	ana_filter_free(&o->filter);
	ana_field_filter_free(&o->ff);
}

/*
 * The event -e names into *@found; -ENOENT, with the recording's events
 * in the detail, when it names none.  Without -e and with @one, the first
 * sampled event.
 */
static int check_event(const struct ana_session *s, const char *event, bool one,
		       const struct ana_event **found)
{
	struct amb_buf b = AMB_BUF_INIT;
	size_t n = ana_session_event_count(s), i;

	*found = NULL;
	for (i = 0; !event && one && i < n; i++) {
		const struct ana_event *e = ana_session_event(s, i);

		if (e->attr.sample_period && e->attr.sample_type && e->nr_ids) {
			*found = e;
			return 0;
		}
	}
	if (!event)
		return 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(ana_session_event(s, i)->name, event)) {
			*found = ana_session_event(s, i);
			return 0;
		}
	}
	if (!amb_buf_printf(&b, "no event '%s' in the recording (events:", event)) {
		for (i = 0; i < n; i++)
			if (amb_buf_printf(&b, "%s %s", i ? "," : "", ana_session_event(s, i)->name))
				break;
		if (i == n && !amb_buf_printf(&b, ")"))
			amb_errmsg_set("%s", (const char *)b.data);
	}
	amb_buf_free(&b);
	return -ENOENT;
}

static const struct ana_ksym *tp_ksym(void *ctx, uint64_t addr, uint64_t *off)
{
	return ana_machine_ksym(ctx, addr, off);
}

static int make_unwinder(struct ana_pipeline *p)
{
	uint16_t em = amb_reader_header(ana_session_reader(p->s))->producer_machine;

	p->u = ana_unwinder_new(em, p->dsos);
	if (!p->u && errno == ENOMEM)
		return -ENOMEM;
	if (!p->u)
		amb_warn("e_machine %u: no DWARF unwinder: user stacks are not unwound", em);
	return 0;
}

int ana_pipeline_open(const char *path, struct ana_pipeline_opts *o, struct ana_pipeline **out)
{
	struct ana_pipeline *p;
	int err;

	*out = NULL;
	amb_errmsg_clear();
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = o;
	p->filter = o->filter;
	p->ff.terms = o->ff.terms;
	p->ff.nr = o->ff.nr;
	p->frame_filter = o->filter.dsos || o->filter.syms;
	p->thread_filter = ana_filter_thread_active(&o->filter) || ana_field_filter_active(&o->ff);
	err = ana_session_open(path, &p->s);
	if (err) {
		/* The session's own detail (a perf.data) or the reader's (a FIFO,
		 * a directory ...) first. */
		if (!*amb_errmsg())
			amb_errmsg_set("%s: %s", path, amb_strerror(err));
		goto fail;
	}
	ana_session_set_jobs(p->s, o->jobs);
	err = ana_filter_prepare(&p->filter, p->s);
	if (err) {
		if (!*amb_errmsg())
			amb_errmsg_set("--time: %s", amb_strerror(err));
		goto fail;
	}
	err = check_event(p->s, o->event, o->one_event, &p->event);
	if (err)
		goto fail;
	err = -ENOMEM;
	p->ev_period = calloc(ana_session_event_count(p->s) + 1, sizeof(*p->ev_period));
	p->ev_samples = calloc(ana_session_event_count(p->s) + 1, sizeof(*p->ev_samples));
	p->dsos = p->ev_period && p->ev_samples ? ana_dso_table_new(&o->dso) : NULL;
	p->m = p->dsos ? ana_machine_new(p->dsos) : NULL;
	if (!p->m || ana_embed_open(ana_session_reader(p->s), NULL, &p->embed) ||
	    ana_machine_load_session(p->m, p->s) || make_unwinder(p))
		goto fail;
	p->pre_exec = ana_machine_pre_exec(p->m);
	if (!o->host_files_only && ana_embed_count(p->embed))
		ana_dso_table_set_embedded(p->dsos, ana_embed_lookup, p->embed);
	if (o->tracepoints || ana_field_filter_active(&o->ff)) {
		p->tp = ana_tp_from_session(p->s);
		if (!p->tp)
			goto fail;
		/* A trimmed table (FORMAT.md §5.8) holds no symbol for pointers no
		 * sample names: it would give them a wrong name, so hex stays. */
		if (!ana_session_meta(p->s, "ksyms.kept"))
			ana_tp_set_ksym_lookup(p->tp, tp_ksym, p->m);
	}
	*out = p;
	return 0;
fail:
	if (err == -ENOMEM && !*amb_errmsg())
		amb_errmsg_set("%s: %s", path, amb_strerror(err));
	ana_pipeline_close(p);
	return err;
}

void ana_pipeline_close(struct ana_pipeline *p)
{
	if (!p)
		return;
	/* In reverse: the decoder and unwinder use the machine's DSOs, the
	 * machine the table, the table the embedded files. */
	ana_tp_free(p->tp);
	ana_unwinder_free(p->u);
	ana_machine_free(p->m);
	ana_dso_table_free(p->dsos);
	ana_embed_free(p->embed);
	ana_session_close(p->s);
	amb_buf_free(&p->ff.scratch);
	free(p->ev_period);
	free(p->ev_samples);
	free(p);
}

struct first_frame {
	struct ana_loc loc;
	bool found;
};

static int take_first(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct first_frame *ff = ctx;

	ff->loc = *loc;
	ff->found = true;
	return 1;
}

bool ana_pipeline_first_frame_passes(struct ana_pipeline *p, const struct ana_filter *f,
				     struct ana_thread *t, const struct ana_sample *s)
{
	struct first_frame ff = { .found = false };
	char buf[128];

	ana_stack_walk(p->m, p->u, t, s, 0, 1, take_first, &ff);
	return !ff.found ||
	       ana_filter_frame(f, &ff.loc, ana_loc_sym_name(&ff.loc, buf, sizeof(buf)));
}

/* A record that is not a sample: the machine keeps up with it, then the
 * command's own callback, if any.  Out of line, as thread_miss(): the
 * path of samples, on_record(), stays small. */
static __attribute__((noinline)) int on_other(struct ana_pipeline *p, const struct ana_record *rec)
{
	int err;

	p->thread_gen++;
	err = ana_machine_process(p->m, rec);
	if (err || !p->other)
		return err;
	return p->other(p->ctx, rec);
}

/* The thread of sample @s, not in p->threads[@slot]: looked up, and
 * remembered there.  NULL without memory. */
static __attribute__((noinline)) struct ana_thread *thread_miss(struct ana_pipeline *p,
								 const struct ana_sample *s,
								 unsigned slot)
{
	struct ana_thread *t = ana_machine_thread(p->m, s->pid, s->tid);

	if (t) {
		p->threads[slot].t = t;
		p->threads[slot].tid = s->tid;
		p->threads[slot].pid = ana_thread_pid(t);
		p->threads[slot].gen = p->thread_gen;
		p->threads[slot].space_gen = ana_machine_space_gen(p->m, t);
	}
	return t;
}

static int on_record(void *ctx, const struct ana_record *rec)
{
	struct ana_pipeline *p = ctx;
	const struct ana_sample *s;
	struct ana_thread *t;
	unsigned slot;

	if (!(++p->records % ANA_PIPELINE_PROGRESS_EVERY) && p->progress)
		p->progress(p->progress_ctx, p->records);
	if (rec->type != PERF_RECORD_SAMPLE)
		return on_other(p, rec);
	s = &rec->u.sample;
	p->st.samples++;
	/* A process seen in user mode has left execve: its old image goes,
	 * whatever the filters keep (and the threads' cached state with it). */
	if (*p->pre_exec && s->cpumode == PERF_RECORD_MISC_USER && ana_machine_ran_user(p->m, s->pid))
		p->thread_gen++;
	if (p->filter.time_spec && !ana_filter_time(&p->filter, s->time))
		goto filtered;
	if (p->event && (!s->evt || (s->evt != p->event && strcmp(s->evt->name, p->event->name))))
		return 0;
	p->ev_period[s->evt ? s->evt->index : ana_session_event_count(p->s)] += s->period;
	p->ev_samples[s->evt ? s->evt->index : ana_session_event_count(p->s)]++;
	slot = s->tid % THREAD_CACHE;
	t = p->threads[slot].t;
	if ((p->threads[slot].gen != p->thread_gen || p->threads[slot].tid != s->tid ||
	     (s->pid != p->threads[slot].pid && s->pid != UINT32_MAX)) &&
	    !(t = thread_miss(p, s, slot)))
		return -ENOMEM;
	if (p->thread_filter &&
	    (!ana_filter_thread(&p->filter, s, t) || !ana_field_filter_pass(&p->ff, p->tp, s)))
		goto filtered;
	if (p->frame_filter && !ana_pipeline_first_frame_passes(p, &p->filter, t, s))
		goto filtered;
	p->st.passed++;
	return p->fn ? p->fn(p->ctx, s, t) : 0;
filtered:
	p->st.filtered++;
	return 0;
}

/*
 * Once a run is over: call chains cut where frame pointers gave out
 * (stackwalk.c) are said once, with where they went wrong and what would
 * give real stacks.
 */
static void warn_broken_chains(struct ana_pipeline *p)
{
	const char *names[4];
	size_t n, i;
	char list[256] = "";

	if (p->warned_broken || !ana_machine_broken_chains(p->m, names, AMB_ARRAY_SIZE(names), &n))
		return;
	p->warned_broken = true;
	for (i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : " in ",
			 names[i]);
	amb_warn("call chains followed frame pointers through code built without them%s, into "
		 "addresses where nothing is mapped: they end at [broken frame-pointer chain]; "
		 "record with --call-graph dwarf for real stacks", list);
}

int ana_pipeline_run(struct ana_pipeline *p, ana_sample_fn fn, ana_record_fn other, void *ctx)
{
	int err;

	memset(&p->st, 0, sizeof(p->st));
	memset(p->ev_period, 0, (ana_session_event_count(p->s) + 1) * sizeof(*p->ev_period));
	memset(p->ev_samples, 0, (ana_session_event_count(p->s) + 1) * sizeof(*p->ev_samples));
	p->thread_gen++;
	p->fn = fn;
	p->other = other;
	p->ctx = ctx;
	err = ana_session_for_each(p->s, on_record, p);
	warn_broken_chains(p);
	return err;
}

void ana_pipeline_set_progress(struct ana_pipeline *p, void (*fn)(void *ctx, uint64_t records),
			       void *ctx)
{
	p->progress = fn;
	p->progress_ctx = ctx;
}

void ana_pipeline_get_stats(const struct ana_pipeline *p, struct ana_pipeline_stats *st)
{
	*st = p->st;
}

uint64_t ana_pipeline_event_period(const struct ana_pipeline *p, const struct ana_event *evt,
				   uint64_t *samples)
{
	size_t i = evt ? evt->index : ana_session_event_count(p->s);

	if (samples)
		*samples = p->ev_samples[i];
	return p->ev_period[i];
}

unsigned ana_pipeline_walk(struct ana_pipeline *p, struct ana_thread *t,
			   const struct ana_sample *s, unsigned want, unsigned max_depth,
			   ana_frame_fn fn, void *ctx)
{
	return ana_stack_walk(p->m, p->u, t, s, want, max_depth, fn, ctx);
}

uint64_t ana_pipeline_stack_key(const struct ana_pipeline *p, const struct ana_thread *t,
				const struct ana_sample *s)
{
	unsigned slot = s->tid % THREAD_CACHE;

	/* ana_stack_key() without a stack copy, as on_record() remembered it
	 * for the thread of the sample it hands over. */
	if (!s->user_stack && t && p->threads[slot].t == t && p->threads[slot].gen == p->thread_gen)
		return p->threads[slot].space_gen;
	return ana_stack_key(p->m, p->u, t, s);
}

const struct ana_filter *ana_pipeline_filter(const struct ana_pipeline *p)
{
	return &p->filter;
}

const struct ana_event *ana_pipeline_event(const struct ana_pipeline *p)
{
	return p->event;
}

struct ana_session *ana_pipeline_session(const struct ana_pipeline *p)
{
	return p->s;
}

struct ana_machine *ana_pipeline_machine(const struct ana_pipeline *p)
{
	return p->m;
}

struct ana_dso_table *ana_pipeline_dsos(const struct ana_pipeline *p)
{
	return p->dsos;
}

struct ana_embed *ana_pipeline_embed(const struct ana_pipeline *p)
{
	return p->embed;
}

struct ana_unwinder *ana_pipeline_unwinder(const struct ana_pipeline *p)
{
	return p->u;
}

struct ana_tp *ana_pipeline_tp(const struct ana_pipeline *p)
{
	return p->tp;
}

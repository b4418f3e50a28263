// SPDX-License-Identifier: MIT
/*
 * analyze/flame_load.c - from a recording's samples to paths of a stack
 * tree.  Samples stream through once (ana_pipeline_run); only the tree
 * grows with the recording, by the number of distinct paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/flame_load.h"

#define MAX_FRAMES ANA_STK_MAX_DEPTH

struct loader {
	const struct ana_flame_load_opts *o;
	struct ana_stk_tree *t;
	unsigned slot;
	struct ana_pipeline *p;
	struct ana_offcpu *oc;          /* o->time */
	struct ana_intern names;
	struct ana_stk_frame *frames;   /* the current sample's, leaf first */
	unsigned nr_frames;
	unsigned want;
	int err;
	struct ana_flame_load_stats st;
};

static enum ana_stk_kind loc_kind(const struct ana_loc *loc)
{
	switch (loc->kind) {
	case ANA_LOC_KERNEL:
		return ANA_STK_KERNEL;
	case ANA_LOC_SYM:
		return ANA_STK_USER;
	default:
		return ANA_STK_UNKNOWN;
	}
}

static int push_frame(struct loader *l, const char *name, enum ana_stk_kind kind)
{
	const char *s;

	if (l->nr_frames == MAX_FRAMES)
		return 1;
	s = ana_intern(&l->names, name);
	if (!s) {
		l->err = -ENOMEM;
		return 1;
	}
	l->frames[l->nr_frames].name = s;
	l->frames[l->nr_frames].kind = kind;
	l->nr_frames++;
	return 0;
}

static int collect_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct loader *l = ctx;
	char buf[512];

	if (l->o->key == ANA_FLAME_KEY_SRCLINE)
		return push_frame(l, ana_loc_srcline(loc, buf, sizeof(buf)), loc_kind(loc));
	if (l->o->key == ANA_FLAME_KEY_DSO_SYM &&
	    push_frame(l, ana_loc_dso_name(loc), loc->kernel ? ANA_STK_KERNEL : ANA_STK_OTHER))
		return 1;
	/* Inlined functions come before the function they were inlined
	 * into: the walk goes leaf first. */
	if (l->o->key == ANA_FLAME_KEY_STACK && l->o->inline_frames && loc->kind == ANA_LOC_SYM) {
		for (unsigned i = 0; i < loc->sym->nr_inl; i++)
			if (push_frame(l, loc->sym->inl[i].name, ANA_STK_INLINE))
				return 1;
	}
	/* [DSO, symbol] rows name the object already. */
	return push_frame(l, l->o->key == ANA_FLAME_KEY_DSO_SYM ? ana_loc_sym_name(loc, buf, sizeof(buf))
								: ana_loc_frame_name(loc, buf, sizeof(buf)),
			  loc_kind(loc));
}

static void reverse_frames(struct ana_stk_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n / 2; i++) {
		struct ana_stk_frame x = f[i];

		f[i] = f[n - 1 - i];
		f[n - 1 - i] = x;
	}
}

static int add_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct loader *l = ctx;
	const struct ana_flame_load_opts *o = l->o;
	unsigned max_depth = o->key == ANA_FLAME_KEY_STACK ? 0 : 1;
	uint64_t w = o->period || l->oc ? smp->period : 1;
	const char *state = l->oc ? ana_offcpu_state_frame(l->oc, smp) : NULL;

	l->nr_frames = 0;
	/* Below an off-CPU stack, what the thread was waiting in. */
	if (state && o->key == ANA_FLAME_KEY_STACK && push_frame(l, state, ANA_STK_OTHER))
		return l->err;
	ana_pipeline_walk(l->p, t, smp, l->want, max_depth, collect_frame, l);
	if (l->err)
		return l->err;
	if (l->nr_frames <= (state && o->key == ANA_FLAME_KEY_STACK)) {
		l->st.filtered++;
		return 0;
	}
	if (o->key == ANA_FLAME_KEY_STACK) {
		char name[64];

		if (o->thread)
			snprintf(name, sizeof(name), "%s-%u", ana_thread_comm(t), ana_thread_tid(t));
		/* A stack already at the depth limit goes without its command. */
		if ((o->comm || o->thread) &&
		    push_frame(l, o->thread ? name : ana_thread_comm(t), ANA_STK_OTHER) && l->err)
			return l->err;
		/* Leaf first, the command last: --reverse wants exactly that,
		 * the tree otherwise the other way round. */
		if (!o->reverse)
			reverse_frames(l->frames, l->nr_frames);
	}
	/* ANA_FLAME_KEY_DSO_SYM pushed [dso, sym]: already outermost first. */
	if (ana_stk_tree_add(l->t, l->frames, l->nr_frames, l->slot, w))
		return -ENOMEM;
	l->st.added++;
	l->st.weight += w;
	return 0;
}

/* Which event's samples were added, and how many events had samples. */
static void note_event(struct loader *l, const struct ana_pipeline_stats *ps)
{
	const struct ana_session *s = ana_pipeline_session(l->p);
	const struct ana_event *e = ana_pipeline_event(l->p);

	snprintf(l->st.event, sizeof(l->st.event), "%s", e ? e->name : "");
	l->st.event_samples = ps->samples;
	if (e)
		ana_pipeline_event_period(l->p, e, &l->st.event_samples);
	for (size_t i = 0; i < ana_session_event_count(s); i++)
		l->st.sampled_events += ana_session_event(s, i)->attr.sample_period &&
				       ana_session_event(s, i)->nr_ids;
}

/* The recorded samples. */
static int load_samples(struct loader *l, const char *path, struct ana_pipeline_opts *po)
{
	struct ana_pipeline_stats ps;
	int err = ana_pipeline_open(path, po, &l->p);

	if (err)
		return err;
	err = ana_pipeline_run(l->p, add_sample, NULL, l);
	ana_pipeline_get_stats(l->p, &ps);
	l->st.samples = ps.samples;
	l->st.filtered += ps.filtered;
	note_event(l, &ps);
	ana_pipeline_close(l->p);
	return err;
}

/* o->time: the samples of the scheduler model's time (offcpu.h). */
static int load_time(struct loader *l, const char *path, struct ana_pipeline_opts *po)
{
	int err = ana_offcpu_open(path, po, l->o->time, &l->oc);

	if (err)
		return err;
	l->p = ana_offcpu_pipeline(l->oc);
	err = ana_offcpu_run(l->oc, add_sample, l);
	ana_offcpu_get_stats(l->oc, &l->st.time);
	l->st.samples = l->st.time.samples;
	l->st.filtered += l->st.time.filtered;
	ana_offcpu_close(l->oc);
	return err;
}

int ana_flame_load(const char *path, struct ana_stk_tree *t, unsigned slot,
		   const struct ana_flame_load_opts *o, struct ana_flame_load_stats *st)
{
	struct ana_pipeline_opts none;
	struct loader l = { .o = o, .t = t, .slot = slot };
	int err;

	ana_pipeline_opts_init(&none);
	if (o->key == ANA_FLAME_KEY_SRCLINE)
		l.want = ANA_SYM_SRCLINE | ANA_SYM_INLINE;
	else if (o->key == ANA_FLAME_KEY_STACK && o->inline_frames)
		l.want = ANA_SYM_INLINE;
	l.frames = malloc(MAX_FRAMES * sizeof(*l.frames));
	if (!l.frames)
		err = -ENOMEM;
	else if (o->time)
		err = load_time(&l, path, o->sample ? o->sample : &none);
	else
		err = load_samples(&l, path, o->sample ? o->sample : &none);
	if (st)
		*st = l.st;
	ana_intern_free(&l.names);
	free(l.frames);
	return err;
}

// SPDX-License-Identifier: MIT
/*
 * analyze/flame_load.c - from a recording's samples to paths of a stack
 * tree.  Samples stream through once (ana_session_for_each); only the tree
 * grows with the recording, by the number of distinct paths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/embed.h"
#include "analyze/flame_load.h"
#include "analyze/machine.h"
#include "analyze/symbols.h"

#define MAX_FRAMES STK_MAX_DEPTH

struct loader {
	const struct flame_load_opts *o;
	struct ana_filter *filter;  /* o->sample's, or NULL */
	const char *event;          /* o->sample's, or NULL */
	struct stk_tree *t;
	unsigned slot;
	struct ana_machine *m;
	struct ana_intern names;
	struct stk_frame *frames;   /* the current sample's, leaf first */
	unsigned nr_frames;
	struct ana_loc leaf;        /* the first frame, for --dso/--sym */
	unsigned want;
	int err;
	struct flame_load_stats st;
};

static enum stk_kind loc_kind(const struct ana_loc *loc)
{
	switch (loc->kind) {
	case ANA_LOC_KERNEL:
		return STK_KERNEL;
	case ANA_LOC_SYM:
		return STK_USER;
	default:
		return STK_UNKNOWN;
	}
}

static int push_frame(struct loader *l, const char *name, enum stk_kind kind)
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

	if (!depth)
		l->leaf = *loc;
	if (l->o->key == FLAME_KEY_SRCLINE)
		return push_frame(l, ana_loc_srcline(loc, buf, sizeof(buf)), loc_kind(loc));
	if (l->o->key == FLAME_KEY_DSO_SYM &&
	    push_frame(l, ana_loc_dso_name(loc), loc->kernel ? STK_KERNEL : STK_OTHER))
		return 1;
	/* Inlined functions come before the function they were inlined
	 * into: the walk goes leaf first. */
	if (l->o->key == FLAME_KEY_STACK && l->o->inline_frames && loc->kind == ANA_LOC_SYM) {
		for (unsigned i = 0; i < loc->sym->nr_inl; i++)
			if (push_frame(l, loc->sym->inl[i].name, STK_INLINE))
				return 1;
	}
	return push_frame(l, ana_loc_sym_name(loc, buf, sizeof(buf)), loc_kind(loc));
}

static void reverse_frames(struct stk_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n / 2; i++) {
		struct stk_frame x = f[i];

		f[i] = f[n - 1 - i];
		f[n - 1 - i] = x;
	}
}

static int add_sample(struct loader *l, const struct ana_sample *smp)
{
	const struct flame_load_opts *o = l->o;
	struct ana_thread *t;
	char buf[512];
	unsigned max_depth = o->key == FLAME_KEY_STACK ? 0 : 1;
	uint64_t w = o->period ? smp->period : 1;

	if (l->event && (!smp->evt || strcmp(smp->evt->name, l->event)))
		return 0;
	t = ana_machine_thread(l->m, smp->pid, smp->tid);
	if (!t)
		return -ENOMEM;
	if (l->filter && !ana_filter_thread(l->filter, smp, t))
		goto filtered;
	l->nr_frames = 0;
	ana_machine_walk_stack(l->m, t, smp, l->want, max_depth, collect_frame, l);
	if (l->err)
		return l->err;
	if (!l->nr_frames)
		goto filtered;
	if (l->filter && !ana_filter_frame(l->filter, &l->leaf,
					   ana_loc_sym_name(&l->leaf, buf, sizeof(buf))))
		goto filtered;
	if (o->key == FLAME_KEY_STACK) {
		/* A stack already at the depth limit goes without its command. */
		if (o->comm && push_frame(l, ana_thread_comm(t), STK_OTHER) && l->err)
			return l->err;
		/* Leaf first, the command last: --reverse wants exactly that,
		 * the tree otherwise the other way round. */
		if (!o->reverse)
			reverse_frames(l->frames, l->nr_frames);
	}
	/* FLAME_KEY_DSO_SYM pushed [dso, sym]: already outermost first. */
	if (stk_tree_add(l->t, l->frames, l->nr_frames, l->slot, w))
		return -ENOMEM;
	l->st.added++;
	l->st.weight += w;
	return 0;
filtered:
	l->st.filtered++;
	return 0;
}

static int on_record(void *ctx, const struct ana_record *rec)
{
	struct loader *l = ctx;

	if (rec->type != PERF_RECORD_SAMPLE)
		return ana_machine_process(l->m, rec);
	l->st.samples++;
	if (l->filter && !ana_filter_time(l->filter, rec->u.sample.time)) {
		l->st.filtered++;
		return 0;
	}
	return add_sample(l, &rec->u.sample);
}

int flame_load(const char *path, struct stk_tree *t, unsigned slot,
	       const struct flame_load_opts *o, struct flame_load_stats *st)
{
	static const struct ana_dso_opts no_dso_opts;
	struct loader l = { .o = o, .t = t, .slot = slot };
	const struct ana_dso_opts *dopts = &no_dso_opts;
	struct ana_session *s = NULL;
	struct ana_dso_table *dsos = NULL;
	struct ana_embed *emb = NULL;
	size_t i;
	int err;

	if (o->sample) {
		l.filter = &o->sample->filter;
		l.event = o->sample->event;
		dopts = &o->sample->dso;
	}
	if (o->key == FLAME_KEY_SRCLINE)
		l.want = ANA_SYM_SRCLINE | ANA_SYM_INLINE;
	else if (o->key == FLAME_KEY_STACK && o->inline_frames)
		l.want = ANA_SYM_INLINE;
	err = ana_session_open(path, &s);
	if (err)
		goto out;
	if (l.filter) {
		/* Relative --time counts from each recording's first sample. */
		l.filter->first_time = 0;
		err = ana_filter_prepare(l.filter, s);
		if (err)
			goto out;
	}
	if (l.event) {
		for (i = 0; i < ana_session_event_count(s); i++)
			if (!strcmp(ana_session_event(s, i)->name, l.event))
				break;
		if (i == ana_session_event_count(s)) {
			err = -ENOENT;
			goto out;
		}
	}
	err = -ENOMEM;
	l.frames = malloc(MAX_FRAMES * sizeof(*l.frames));
	dsos = ana_dso_table_new(dopts);
	l.m = dsos ? ana_machine_new(dsos) : NULL;
	if (!l.frames || !l.m || ana_embed_attach(s, dsos, &emb) ||
	    ana_machine_load_session(l.m, s))
		goto out;
	err = ana_session_for_each(s, on_record, &l);
out:
	if (st)
		*st = l.st;
	ana_machine_free(l.m);
	ana_dso_table_free(dsos);
	ana_embed_free(emb);
	ana_intern_free(&l.names);
	free(l.frames);
	ana_session_close(s);
	return err;
}

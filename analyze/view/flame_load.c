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
#include "common/hashmap.h"

#define MAX_FRAMES ANA_STK_MAX_DEPTH

/*
 * Samples repeat their stacks: a stack seen before is not walked, named
 * and looked up in the tree again, its path is added again from the leaf
 * it ended at.  The memo key holds what decides the frames: the stack key
 * (the address space's state, ana_pipeline_stack_key()), the cpumode, the
 * command frame's name and tid, and the callchain (or ip).  The memos are
 * dropped and collected anew past MEMO_MAX_BYTES.
 */
#define MEMO_MAX_BYTES (8u << 20)
#define MEMO_MAX_WORDS 512           /* longer keys are not memoized */

struct flame_memo {
	uint32_t leaf;                  /* the tree node the stack ended at */
	uint32_t nr_key;
	uint64_t key[];
};

/*
 * In front of the memos, the leaf of a sample whose chain the codec named
 * (ana_sample.chain_key) is found by that key in a direct-mapped cache:
 * the memo key's other parts are kept beside it and compared, so a sample
 * that matches them has the memo key of the one that filled the entry,
 * without making and hashing the key.  Leaves are tree nodes, which live
 * as long as the tree: dropping the memos leaves the cache valid.
 */
struct chain_leaf {
	uint64_t chain_key;             /* 0: empty */
	uint64_t stack_key;
	const struct ana_thread *t;
	const char *comm;
	uint32_t tid;
	uint8_t cpumode;
	uint32_t leaf;
};
#define CHAIN_LEAVES 4096            /* a power of two */

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
	struct amb_hashmap memos;       /* memo key -> struct flame_memo */
	size_t memo_bytes;
	uint64_t *key;                  /* the current sample's, MEMO_MAX_WORDS */
	uint32_t nr_key;
	uint64_t hash;
	struct chain_leaf *by_chain;    /* CHAIN_LEAVES, NULL when not used */
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

/* Make the memo key of @smp of @t in l->key; false when it is not to be
 * memoized (off-CPU time, an unwound stack, a chain too long). */
static bool memo_key(struct loader *l, const struct ana_sample *smp, const struct ana_thread *t)
{
	const struct ana_flame_load_opts *o = l->o;
	bool chain = smp->nr_callchain && smp->callchain;
	uint64_t n = 5 + (chain ? smp->nr_callchain : 1), *k = l->key;

	if (l->oc || !l->key || n > MEMO_MAX_WORDS)
		return false;
	k[0] = ana_pipeline_stack_key(l->p, t, smp);
	if (!k[0])
		return false;
	k[1] = smp->cpumode;
	k[2] = o->comm || o->thread ? (uintptr_t)ana_thread_comm(t) : 0;
	k[3] = o->thread ? ana_thread_tid(t) : 0;
	k[4] = chain ? smp->nr_callchain : 0;
	if (chain)
		memcpy(k + 5, smp->callchain, smp->nr_callchain * sizeof(*k));
	else
		k[5] = smp->ip;
	l->nr_key = (uint32_t)n;
	l->hash = amb_hash_words(k, n);
	return true;
}

static bool memo_eq(uint64_t stored, const void *key)
{
	const struct flame_memo *m = (const struct flame_memo *)(uintptr_t)stored;
	const struct loader *l = key;

	if (m->nr_key != l->nr_key)
		return false;
	/* A few words, mostly equal: no call to memcmp. */
	for (uint32_t i = 0; i < m->nr_key; i++)
		if (m->key[i] != l->key[i])
			return false;
	return true;
}

static void memo_clear(struct loader *l)
{
	struct amb_hashmap_slot *slot;

	amb_hashmap_for_each(&l->memos, slot)
		free(slot->value);
	amb_hashmap_clear(&l->memos);
	l->memo_bytes = 0;
}

/* Remember that the key made last ended at @leaf.  0 or -ENOMEM. */
static int memo_add(struct loader *l, uint32_t leaf)
{
	size_t size = sizeof(struct flame_memo) + l->nr_key * sizeof(uint64_t);
	struct flame_memo *m;

	if (l->memo_bytes + size > MEMO_MAX_BYTES)
		memo_clear(l);
	m = malloc(size);
	if (!m)
		return -ENOMEM;
	m->leaf = leaf;
	m->nr_key = l->nr_key;
	memcpy(m->key, l->key, l->nr_key * sizeof(*m->key));
	if (amb_hashmap_add(&l->memos, l->hash, (uintptr_t)m, m)) {
		free(m);
		return -ENOMEM;
	}
	l->memo_bytes += size;
	return 0;
}

/* The cache entry of @smp's chain_key. */
static struct chain_leaf *chain_leaf_slot(const struct loader *l, const struct ana_sample *smp)
{
	return &l->by_chain[amb_hash_u64(smp->chain_key) & (CHAIN_LEAVES - 1)];
}

/* The leaf + 1 of @smp of @t when its chain's entry matches the rest of
 * its memo key, else 0. */
static uint64_t chain_leaf_find(const struct loader *l, const struct ana_sample *smp,
				const struct ana_thread *t)
{
	const struct chain_leaf *cl = chain_leaf_slot(l, smp);

	if (cl->chain_key != smp->chain_key || cl->t != t || cl->tid != smp->tid ||
	    cl->comm != ana_thread_comm(t) || cl->cpumode != smp->cpumode ||
	    cl->stack_key != ana_pipeline_stack_key(l->p, t, smp))
		return 0;
	return (uint64_t)cl->leaf + 1;
}

/* Remember @leaf for @smp's chain; l->key[0] is its stack key. */
static void chain_leaf_set(struct loader *l, const struct ana_sample *smp,
			   const struct ana_thread *t, uint32_t leaf)
{
	*chain_leaf_slot(l, smp) = (struct chain_leaf){
		.chain_key = smp->chain_key,
		.stack_key = l->key[0],
		.t = t,
		.comm = ana_thread_comm(t),
		.tid = smp->tid,
		.cpumode = smp->cpumode,
		.leaf = leaf,
	};
}

static int add_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct loader *l = ctx;
	const struct ana_flame_load_opts *o = l->o;
	unsigned max_depth = o->key == ANA_FLAME_KEY_STACK ? 0 : 1;
	uint64_t w = o->period || l->oc ? smp->period : 1;
	const char *state = l->oc ? ana_offcpu_state_frame(l->oc, smp) : NULL;
	bool by_chain = l->by_chain && smp->chain_key && !l->oc, memoize;
	const struct flame_memo *m;
	uint64_t found;
	uint32_t leaf;

	if (by_chain && (found = chain_leaf_find(l, smp, t))) {
		if (ana_stk_tree_add_again(l->t, (uint32_t)(found - 1), l->slot, w))
			return -EINVAL;
		l->st.added++;
		l->st.weight += w;
		return 0;
	}
	memoize = memo_key(l, smp, t);
	if (memoize && (m = amb_hashmap_find(&l->memos, l->hash, memo_eq, l))) {
		if (ana_stk_tree_add_again(l->t, m->leaf, l->slot, w))
			return -EINVAL;
		if (by_chain)
			chain_leaf_set(l, smp, t, m->leaf);
		l->st.added++;
		l->st.weight += w;
		return 0;
	}
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
	if (ana_stk_tree_add_path(l->t, l->frames, l->nr_frames, l->slot, w, &leaf))
		return -ENOMEM;
	l->st.added++;
	l->st.weight += w;
	if (!memoize)
		return 0;
	if (by_chain)
		chain_leaf_set(l, smp, t, leaf);
	return memo_add(l, leaf);
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
	/* Without room for keys, samples are simply not memoized. */
	l.key = malloc(MEMO_MAX_WORDS * sizeof(*l.key));
	if (l.key)
		l.by_chain = calloc(CHAIN_LEAVES, sizeof(*l.by_chain));
	if (!l.frames)
		err = -ENOMEM;
	else if (o->time)
		err = load_time(&l, path, o->sample ? o->sample : &none);
	else
		err = load_samples(&l, path, o->sample ? o->sample : &none);
	if (st)
		*st = l.st;
	ana_intern_free(&l.names);
	memo_clear(&l);
	amb_hashmap_free(&l.memos);
	free(l.key);
	free(l.by_chain);
	free(l.frames);
	return err;
}

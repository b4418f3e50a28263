// SPDX-License-Identifier: MIT
/*
 * analyze/report.c - `amber-analyze report`: samples aggregated by sort
 * keys into a table sorted by overhead, perf report style.
 *
 * Samples stream through once and are never kept: each one becomes a key
 * string (the sort keys' values joined by \x1f) that selects a hash-table
 * entry per event; -g adds the sample's stack to a tree under the entry.
 * Symbol results are cached per (DSO, address) by symbols.c.
 *
 * The key string is made only the first time: an entry is found again by
 * its key's identity (struct id_cache), the pointers and numbers its
 * values come from, and --children counts a sample once per entry with a
 * per-sample stamp rather than by comparing keys.  A sample whose stack
 * was seen before reuses what that one resolved (struct stack_memo).
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/analyze.h"
#include "analyze/embed.h"
#include "analyze/fieldfilter.h"
#include "analyze/machine.h"
#include "analyze/report_common.h"
#include "analyze/report_internal.h"
#include "analyze/symbols.h"
#include "analyze/tracepoint.h"
#include "common/common.h"

const struct report_sort_name report_sort_names[SK_FIELD] = {
	{ "comm", "Command", SK_COMM },     { "pid", "Pid", SK_PID },
	{ "tid", "Tid", SK_TID },           { "dso", "Shared Object", SK_DSO },
	{ "sym", "Symbol", SK_SYM },        { "srcline", "Source:Line", SK_SRCLINE },
	{ "cpu", "CPU", SK_CPU },           { "event", "Event", SK_EVENT },
};

/* ---- entries --------------------------------------------------------------- */

static struct hist_entry *hist_get(struct hist *h, const char *key, size_t len)
{
	uint64_t hash = XXH3_64bits(key, len);
	struct hist_entry *e;
	size_t i;

	if (h->nr * 2 >= h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256, j;
		struct hist_entry **n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < h->cap; j++) {
			while (h->tab[j]) {
				struct hist_entry *x = h->tab[j];

				h->tab[j] = x->chain;
				x->chain = n[x->hash & (cap - 1)];
				n[x->hash & (cap - 1)] = x;
			}
		}
		free(h->tab);
		h->tab = n;
		h->cap = cap;
	}
	i = hash & (h->cap - 1);
	for (e = h->tab[i]; e; e = e->chain)
		if (e->hash == hash && !strcmp(e->key, key))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = strndup(key, len);
	if (!e->key) {
		free(e);
		return NULL;
	}
	e->hash = hash;
	e->chain = h->tab[i];
	h->tab[i] = e;
	h->nr++;
	return e;
}

static void cg_free(struct cg_node *n)
{
	while (n) {
		struct cg_node *next = n->next;

		cg_free(n->child);
		free(n);
		n = next;
	}
}

static void hist_free(struct hist *h)
{
	size_t i;

	for (i = 0; i < h->cap; i++) {
		while (h->tab[i]) {
			struct hist_entry *e = h->tab[i];

			h->tab[i] = e->chain;
			cg_free(e->cg);
			free(e->key);
			free(e);
		}
	}
	free(h->tab);
	free(h->ids.ids);
	free(h->ids.hashes);
	free(h->ids.vals);
}

/* Add @period along the path @names[0..n) under *@root. */
static int cg_add(struct cg_node **root, const char *const *names, unsigned n, uint64_t period)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct cg_node **pp, *c;

		/* Interned names compare by pointer. */
		for (pp = root; *pp && (*pp)->name != names[i]; pp = &(*pp)->next)
			;
		c = *pp;
		if (!c) {
			c = calloc(1, sizeof(*c));
			if (!c)
				return -ENOMEM;
			c->name = names[i];
			*pp = c;
		}
		c->period += period;
		root = &c->child;
	}
	return 0;
}

/* ---- keys -------------------------------------------------------------------- */

/* Append @s and the separator to the key. */
static int key_put(struct amb_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (amb_buf_reserve(b, n + 1))
		return -ENOMEM;
	memcpy(b->data + b->len, s, n);
	b->data[b->len + n] = KEY_SEP;
	b->len += n + 1;
	return 0;
}

static int append_value(struct report *r, const struct sort_key *k, const struct ana_sample *smp,
			struct ana_thread *t, const struct frame *f)
{
	struct amb_buf *b = &r->key;
	const struct ana_loc *loc = &f->loc;

	/* Once per sample and per frame: no printf for the common keys. */
	switch (k->kind) {
	case SK_COMM:
		return key_put(b, ana_thread_comm(t));
	case SK_PID:
		return amb_buf_printf(b, "%u:%s%c", smp->pid, ana_thread_comm(t), KEY_SEP);
	case SK_TID:
		return amb_buf_printf(b, "%u:%s%c", smp->tid, ana_thread_comm(t), KEY_SEP);
	case SK_DSO:
		return key_put(b, ana_loc_dso_name(loc));
	case SK_SYM:
		if (amb_buf_append(b, loc->kernel ? "[k] " : "[.] ", 4))
			return -ENOMEM;
		return key_put(b, f->name);
	case SK_SRCLINE: {
		char line[512];

		ana_loc_srcline(loc, line, sizeof(line));
		return key_put(b, line);
	}
	case SK_CPU:
		return amb_buf_printf(b, "%03u%c", smp->cpu, KEY_SEP);
	case SK_EVENT:
		return key_put(b, smp->evt ? smp->evt->name : "[unknown]");
	case SK_FIELD:
		r->val.len = 0;
		if (!r->tp || !smp->evt || !smp->evt->tracepoint ||
		    ana_tp_field(r->tp, smp->raw, smp->raw_size, k->name, &r->val))
			return amb_buf_printf(b, "[n/a]%c", KEY_SEP);
		if (amb_buf_append(b, r->val.data, r->val.len))
			return -ENOMEM;
		return amb_buf_append(b, (char[]){ KEY_SEP }, 1);
	}
	return 0;
}

static int build_key(struct report *r, const struct ana_sample *smp, struct ana_thread *t,
		     const struct frame *f)
{
	size_t i;

	r->key.len = 0;
	for (i = 0; i < r->nr_keys; i++)
		if (append_value(r, &r->keys[i], smp, t, f))
			return -ENOMEM;
	/* NUL-terminate for strcmp; not part of the key's length. */
	if (amb_buf_append(&r->key, "", 1))
		return -ENOMEM;
	r->key.len--;
	return 0;
}

/* ---- key identities ---------------------------------------------------------- */

/*
 * The identity of the keys of sample @smp at frame @f, two words a key
 * (r->fast_keys only); with @f NULL, the sample's part only (zeros for the
 * frame's keys).  Command names live as long as the machine and are
 * never reused for another name (machine.h); DSO names live as long as the
 * DSO table; frame names are interned, or symbol and KSYMS names that live
 * as long as their tables.
 */
static void key_identity(const struct report *r, const struct ana_sample *smp,
			 const struct ana_thread *t, const struct frame *f, uint64_t *id)
{
	size_t i;

	for (i = 0; i < r->nr_keys; i++, id += 2) {
		switch (r->keys[i].kind) {
		case SK_COMM:
			id[0] = (uintptr_t)ana_thread_comm(t);
			id[1] = 0;
			break;
		case SK_PID:
			id[0] = smp->pid;
			id[1] = (uintptr_t)ana_thread_comm(t);
			break;
		case SK_TID:
			id[0] = smp->tid;
			id[1] = (uintptr_t)ana_thread_comm(t);
			break;
		case SK_DSO:
			id[0] = f ? (uintptr_t)ana_loc_dso_name(&f->loc) : 0;
			id[1] = 0;
			break;
		case SK_SYM:
			id[0] = f ? (uintptr_t)f->name : 0;
			id[1] = f ? f->loc.kernel : 0;
			break;
		case SK_CPU:
			id[0] = smp->cpu;
			id[1] = 0;
			break;
		case SK_EVENT:
			id[0] = (uintptr_t)smp->evt;
			id[1] = 0;
			break;
		case SK_SRCLINE:
		case SK_FIELD:
			/* Made afresh for each sample: no identity (parse_sort). */
			assert(!r->fast_keys);
			break;
		}
	}
}

static int id_cache_insert(struct id_cache *c, size_t words, const uint64_t *id, uint64_t hash,
			   struct hist_entry *e)
{
	size_t i;

	if ((c->nr + 1) * 2 > c->cap) {
		struct id_cache n = { .cap = c->cap ? c->cap * 2 : 256 };

		n.ids = malloc(n.cap * words * sizeof(*n.ids));
		n.hashes = malloc(n.cap * sizeof(*n.hashes));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.ids || !n.hashes || !n.vals) {
			free(n.ids);
			free(n.hashes);
			free(n.vals);
			return -ENOMEM;
		}
		for (i = 0; i < c->cap; i++)
			if (c->vals[i])
				id_cache_insert(&n, words, &c->ids[i * words], c->hashes[i], c->vals[i]);
		free(c->ids);
		free(c->hashes);
		free(c->vals);
		*c = n;
	}
	for (i = hash & (c->cap - 1); c->vals[i]; i = (i + 1) & (c->cap - 1))
		;
	memcpy(&c->ids[i * words], id, words * sizeof(*id));
	c->hashes[i] = hash;
	c->vals[i] = e;
	c->nr++;
	return 0;
}

/* The entry of @h that sample @smp of @t falls into at frame @f, created
 * when new.  NULL on -ENOMEM. */
static struct hist_entry *hist_find(struct report *r, struct hist *h,
				    const struct ana_sample *smp, struct ana_thread *t,
				    const struct frame *f)
{
	struct id_cache *c = &h->ids;
	size_t w = r->id_words, i;
	uint64_t id[2 * AMB_ARRAY_SIZE(r->keys)], hash = 0;
	struct hist_entry *e;

	if (r->fast_keys) {
		key_identity(r, smp, t, f, id);
		hash = XXH3_64bits(id, w * sizeof(*id));
		if (c->cap)
			for (i = hash & (c->cap - 1); c->vals[i]; i = (i + 1) & (c->cap - 1))
				if (c->hashes[i] == hash &&
				    !memcmp(&c->ids[i * w], id, w * sizeof(*id)))
					return c->vals[i];
	}
	if (build_key(r, smp, t, f))
		return NULL;
	e = hist_get(h, (const char *)r->key.data, r->key.len);
	if (e && r->fast_keys && id_cache_insert(c, w, id, hash, e))
		return NULL;
	return e;
}

/* ---- call graph names ------------------------------------------------------ */

static size_t name_hash(uint64_t key)
{
	return (size_t)XXH3_64bits(&key, sizeof(key));
}

/*
 * The interned call graph name of a frame named @src, a string that
 * outlives the report, with " (inlined)" added for an @inlined frame.
 * NULL on -ENOMEM.
 */
static const char *cg_name(struct report *r, const char *src, bool inlined)
{
	struct name_cache *c = &r->cg_names;
	uint64_t key = (uint64_t)(uintptr_t)src << 1 | inlined;
	char buf[300];
	const char *name;
	size_t i;

	if (c->cap)
		for (i = name_hash(key) & (c->cap - 1); c->names[i]; i = (i + 1) & (c->cap - 1))
			if (c->keys[i] == key)
				return c->names[i];
	if (inlined) {
		snprintf(buf, sizeof(buf), "%s (inlined)", src);
		src = buf;
	}
	name = ana_intern(&r->strings, src);
	if (!name)
		return NULL;
	if ((c->nr + 1) * 2 > c->cap) {
		struct name_cache n = { .cap = c->cap ? c->cap * 2 : 1024 };

		n.keys = malloc(n.cap * sizeof(*n.keys));
		n.names = calloc(n.cap, sizeof(*n.names));
		if (!n.keys || !n.names) {
			free(n.keys);
			free(n.names);
			return NULL;
		}
		for (i = 0; i < c->cap; i++) {
			size_t j;

			if (!c->names[i])
				continue;
			for (j = name_hash(c->keys[i]) & (n.cap - 1); n.names[j];
			     j = (j + 1) & (n.cap - 1))
				;
			n.keys[j] = c->keys[i];
			n.names[j] = c->names[i];
		}
		n.nr = c->nr;
		free(c->keys);
		free(c->names);
		*c = n;
	}
	for (i = name_hash(key) & (c->cap - 1); c->names[i]; i = (i + 1) & (c->cap - 1))
		;
	c->keys[i] = key;
	c->names[i] = name;
	c->nr++;
	return name;
}

/* ---- stack memos ---------------------------------------------------------------- */

/*
 * Make the memo key of sample @smp of @t in @h: the stack key, cpumode,
 * histogram, the keys' sample values and the callchain (or ip).  False
 * when the sample is not to be memoized (it is unwound, or its callchain
 * is too long).
 */
static bool memo_key(struct report *r, const struct ana_sample *smp, struct ana_thread *t,
		     const struct hist *h)
{
	struct memo_table *mt = &r->memos;
	bool chain = smp->nr_callchain && smp->callchain;
	uint64_t nr_chain = chain ? smp->nr_callchain : 0, n;
	uint64_t *k = mt->key;

	/* A walk of one frame reads the callchain up to its first address. */
	if (chain && !r->children && !r->callgraph)
		for (nr_chain = 1; nr_chain < smp->nr_callchain &&
				   smp->callchain[nr_chain - 1] >= PERF_CONTEXT_MAX; nr_chain++)
			;
	n = 4 + r->id_words + (chain ? nr_chain : 1);

	if (n > MEMO_MAX_WORDS)
		return false;
	k[0] = ana_machine_stack_key(r->m, t, smp);
	if (!k[0])
		return false;
	k[1] = smp->cpumode;
	k[2] = (uint64_t)(h - r->hists);
	k[3] = nr_chain;
	key_identity(r, smp, t, NULL, k + 4);
	if (chain)
		memcpy(k + 4 + r->id_words, smp->callchain, nr_chain * sizeof(*k));
	else
		k[4 + r->id_words] = smp->ip;
	mt->nr_key = (uint32_t)n;
	mt->hash = XXH3_64bits(k, n * sizeof(*k));
	return true;
}

static struct stack_memo *memo_find(const struct memo_table *mt)
{
	struct stack_memo *m;

	if (!mt->cap)
		return NULL;
	for (m = mt->tab[mt->hash & (mt->cap - 1)]; m; m = m->chain)
		if (m->hash == mt->hash && m->nr_key == mt->nr_key &&
		    !memcmp(m->key, mt->key, mt->nr_key * sizeof(*m->key)))
			return m;
	return NULL;
}

static void memo_clear(struct memo_table *mt)
{
	size_t i;

	for (i = 0; i < mt->cap; i++) {
		while (mt->tab[i]) {
			struct stack_memo *m = mt->tab[i];

			mt->tab[i] = m->chain;
			free(m);
		}
	}
	mt->nr = 0;
	mt->bytes = 0;
}

/*
 * Remember what the current sample resolved to, under the key memo_key()
 * made: its leaf entry @self (NULL when @filtered), the r->stack_entries
 * of --children and the r->cg_path of -g.  Returns 0 or -ENOMEM.
 */
static int memo_add(struct report *r, struct hist_entry *self, unsigned nr_children,
		    bool filtered)
{
	struct memo_table *mt = &r->memos;
	unsigned nr_names = filtered || !r->callgraph ? 0 : r->nr_cg_path;
	size_t size = sizeof(struct stack_memo) + mt->nr_key * sizeof(uint64_t) +
		      nr_children * sizeof(struct hist_entry *) + nr_names * sizeof(const char *);
	struct stack_memo *m;
	size_t i;

	if (mt->bytes + size > MEMO_MAX_BYTES)
		memo_clear(mt);
	if (mt->nr >= mt->cap) {
		size_t cap = mt->cap ? mt->cap * 2 : 1024;
		struct stack_memo **tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return -ENOMEM;
		for (i = 0; i < mt->cap; i++) {
			while (mt->tab[i]) {
				m = mt->tab[i];
				mt->tab[i] = m->chain;
				m->chain = tab[m->hash & (cap - 1)];
				tab[m->hash & (cap - 1)] = m;
			}
		}
		free(mt->tab);
		mt->tab = tab;
		mt->cap = cap;
	}
	m = malloc(size);
	if (!m)
		return -ENOMEM;
	/* The arrays follow the struct, words first: all 8-byte aligned. */
	m->key = (uint64_t *)(m + 1);
	m->children = (struct hist_entry **)(m->key + mt->nr_key);
	m->names = (const char **)(m->children + nr_children);
	memcpy(m->key, mt->key, mt->nr_key * sizeof(*m->key));
	memcpy(m->children, r->stack_entries, nr_children * sizeof(*m->children));
	memcpy(m->names, r->cg_path, nr_names * sizeof(*m->names));
	m->hash = mt->hash;
	m->nr_key = mt->nr_key;
	m->nr_children = nr_children;
	m->nr_names = nr_names;
	m->self = self;
	m->filtered = filtered;
	m->chain = mt->tab[m->hash & (mt->cap - 1)];
	mt->tab[m->hash & (mt->cap - 1)] = m;
	mt->nr++;
	mt->bytes += size;
	return 0;
}

/* Add a sample of @period with memo @m to @h, as process_sample() would. */
static int memo_apply(struct report *r, struct hist *h, const struct stack_memo *m,
		      uint64_t period)
{
	uint32_t i;

	if (m->filtered) {
		r->filtered++;
		return 0;
	}
	h->samples++;
	h->period += period;
	m->self->samples++;
	m->self->period += period;
	if (r->callgraph) {
		int err = cg_add(&m->self->cg, m->names, m->nr_names, period);

		if (err)
			return err;
	}
	for (i = 0; i < m->nr_children; i++)
		m->children[i]->children += period;
	return 0;
}

/* ---- samples ------------------------------------------------------------------ */

static int collect_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct report *r = ctx;
	struct frame *f;
	char buf[128];
	unsigned i;

	(void)depth;
	if (r->nr_frames == MAX_FRAMES)
		return 1;
	/* Inlined functions are frames of their own in the call graph. */
	if (r->callgraph && r->inline_frames && loc->kind == ANA_LOC_SYM) {
		for (i = 0; i < loc->sym->nr_inl && r->nr_frames < MAX_FRAMES - 1; i++) {
			f = &r->frames[r->nr_frames++];
			f->loc = *loc;
			f->inlined = true;
			f->name = cg_name(r, loc->sym->inl[i].name, true);
			if (!f->name) {
				r->frame_err = -ENOMEM;
				return -ENOMEM;
			}
		}
	}
	f = &r->frames[r->nr_frames++];
	f->loc = *loc;
	f->inlined = false;
	f->name = ana_loc_sym_name(loc, buf, sizeof(buf));
	/* The call graph compares names by pointer, and a made-up name lives
	 * in @buf: those are interned; a symbol's name lasts as it is. */
	if (f->name == buf)
		f->name = ana_intern(&r->strings, buf);
	else if (r->callgraph)
		f->name = cg_name(r, f->name, false);
	if (!f->name) {
		r->frame_err = -ENOMEM;
		return -ENOMEM;
	}
	return 0;
}

/* Add the current stack to @e's call graph, its path kept in r->cg_path. */
static int add_callgraph(struct report *r, struct hist_entry *e, uint64_t period)
{
	const char **names = r->cg_path;
	unsigned n = 0, i;

	/* Callee order: the entry's frame, then its callers; caller order:
	 * from the outermost caller down to the entry's frame. */
	for (i = 0; i < r->nr_frames; i++)
		names[n++] = r->frames[i].name;
	if (r->caller) {
		for (i = 0; i < n / 2; i++) {
			const char *x = names[i];

			names[i] = names[n - 1 - i];
			names[n - 1 - i] = x;
		}
	}
	r->nr_cg_path = n;
	return cg_add(&e->cg, names, n, period);
}

static int process_sample(struct report *r, const struct ana_record *rec)
{
	const struct ana_sample *smp = &rec->u.sample;
	struct hist_entry *e, *self;
	struct stack_memo *memo;
	struct ana_thread *t;
	struct hist *h;
	unsigned i, leaf, nr_children = 0;
	bool memoize;
	int err;

	if (r->opts.event && (!smp->evt || strcmp(smp->evt->name, r->opts.event)))
		return 0;
	t = ana_machine_thread(r->m, smp->pid, smp->tid);
	if (!t)
		return -ENOMEM;
	if (!ana_filter_thread(&r->opts.filter, smp, t) ||
	    !ana_field_filter_pass(&r->ff, r->tp, smp))
		goto filtered;
	h = &r->hists[smp->evt ? smp->evt->index : r->nr_hists - 1];
	memoize = r->memo_on && memo_key(r, smp, t, h);
	if (memoize && (memo = memo_find(&r->memos)))
		return memo_apply(r, h, memo, smp->period);
	r->nr_frames = 0;
	r->frame_err = 0;
	ana_machine_walk_stack(r->m, t, smp, r->want,
			       (r->children || r->callgraph) ? 0 : 1, collect_frame, r);
	if (r->frame_err)
		return r->frame_err;
	if (!r->nr_frames)
		return 0;
	/* The entry's symbol is the ELF symbol, as perf shows it; the inlined
	 * functions before it are call graph frames only. */
	for (leaf = 0; leaf + 1 < r->nr_frames && r->frames[leaf].inlined; leaf++)
		;
	if (!ana_filter_frame(&r->opts.filter, &r->frames[leaf].loc, r->frames[leaf].name)) {
		if (memoize && (err = memo_add(r, NULL, 0, true)))
			return err;
		goto filtered;
	}
	h->samples++;
	h->period += smp->period;
	self = hist_find(r, h, smp, t, &r->frames[leaf]);
	if (!self)
		return -ENOMEM;
	self->samples++;
	self->period += smp->period;
	if (r->callgraph && (err = add_callgraph(r, self, smp->period)))
		return err;
	if (r->children) {
		/* Children: every entry on the stack once, whatever the recursion. */
		r->stamp++;
		for (i = leaf; i < r->nr_frames; i++) {
			if (r->frames[i].inlined)
				continue;
			e = hist_find(r, h, smp, t, &r->frames[i]);
			if (!e)
				return -ENOMEM;
			if (e->stamp == r->stamp)
				continue;
			e->stamp = r->stamp;
			e->children += smp->period;
			r->stack_entries[nr_children++] = e;
		}
	}
	return memoize ? memo_add(r, self, nr_children, false) : 0;
filtered:
	r->filtered++;
	return 0;
}

static int on_record(void *ctx, const struct ana_record *rec)
{
	struct report *r = ctx;
	int err;

	ana_progress_tick(&r->progress);
	if (rec->type != PERF_RECORD_SAMPLE)
		return ana_machine_process(r->m, rec);
	r->samples_seen++;
	if (!ana_filter_time(&r->opts.filter, rec->u.sample.time)) {
		r->filtered++;
		return 0;
	}
	err = process_sample(r, rec);
	return err;
}

/* ---- options ------------------------------------------------------------------ */

static int parse_sort(struct report *r, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	r->nr_keys = 0;
	r->fast_keys = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct sort_key *k;
		size_t i;

		if (r->nr_keys == AMB_ARRAY_SIZE(r->keys)) {
			err = -E2BIG;
			break;
		}
		k = &r->keys[r->nr_keys++];
		for (i = 0; i < AMB_ARRAY_SIZE(report_sort_names); i++)
			if (!strcmp(tok, report_sort_names[i].opt))
				break;
		if (i < AMB_ARRAY_SIZE(report_sort_names)) {
			k->kind = report_sort_names[i].kind;
			k->name = report_sort_names[i].header;
		} else {
			/* Anything else names a tracepoint field (prev_comm, ...). */
			k->kind = SK_FIELD;
			k->name = ana_intern(&r->strings, tok);
			if (!k->name) {
				err = -ENOMEM;
				break;
			}
		}
		k->per_frame = k->kind == SK_DSO || k->kind == SK_SYM || k->kind == SK_SRCLINE;
		if (k->kind == SK_SRCLINE)
			r->want |= ANA_SYM_SRCLINE | ANA_SYM_INLINE;
		/* Source lines and tracepoint fields are formatted per sample. */
		if (k->kind == SK_SRCLINE || k->kind == SK_FIELD)
			r->fast_keys = false;
	}
	r->id_words = 2 * r->nr_keys;
	free(copy);
	if (!err && !r->nr_keys)
		err = -EINVAL;
	return err;
}

static int parse_callgraph(struct report *r, const char *arg)
{
	const char *comma = arg ? strchr(arg, ',') : NULL;
	size_t n = arg ? (comma ? (size_t)(comma - arg) : strlen(arg)) : 0;

	r->callgraph = true;
	if (!arg)
		return 0;
	if (n == 6 && !strncmp(arg, "caller", 6))
		r->caller = true;
	else if (n == 6 && !strncmp(arg, "callee", 6))
		r->caller = false;
	else if (n == 4 && !strncmp(arg, "none", 4))
		r->callgraph = false;
	else if (n && strncmp(arg, "graph", n))
		return -EINVAL;
	if (comma) {
		char *end;

		r->cg_limit = strtod(comma + 1, &end);
		if (end == comma + 1 || *end || r->cg_limit < 0 || r->cg_limit > 100)
			return -EINVAL;
	}
	return 0;
}

static bool is_callgraph_spec(const char *arg)
{
	static const char *const words[] = { "caller", "callee", "graph", "none" };
	size_t i;

	for (i = 0; i < AMB_ARRAY_SIZE(words); i++)
		if (!strncmp(arg, words[i], strlen(words[i])) &&
		    (!arg[strlen(words[i])] || arg[strlen(words[i])] == ','))
			return true;
	return false;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: amber-analyze report [OPTIONS] FILE\n"
"\n"
"Samples aggregated by sort keys, sorted by overhead.\n"
"\n"
"  -s, --sort KEYS        comm,pid,tid,dso,sym,srcline,cpu,event or tracepoint\n"
"                         fields (prev_comm, ...); default comm,dso,sym\n"
"      --children         accumulate callers' overhead over callchains\n"
"      --no-children      self overhead only (the default)\n"
"  -g, --call-graph[=caller|callee[,PCT]]\n"
"                         call graph under each entry (default callee,0.5)\n"
"      --no-inline        no inlined functions in call graphs\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs (0-3,7)\n"
"      --dso LIST         only these shared objects\n"
"      --sym LIST         only these symbols\n"
"      --time START,END   seconds from the first sample, or HH:MM:SS[.frac]\n"
"  -e, --event NAME       only this event (default: each event in turn)\n"
"      --percent-limit P  hide entries below P%%\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --json             JSON instead of text\n"
"      --stdio            text output (the only mode)\n");
}

static int parse_args(struct report *r, int argc, char **argv, const char **path)
{
	enum { O_CHILDREN = 256, O_NO_CHILDREN, O_PLIMIT, O_JSON, O_STDIO, O_NO_INLINE,
	       O_FIELD_FILTER };
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "children", no_argument, NULL, O_CHILDREN },
		{ "no-children", no_argument, NULL, O_NO_CHILDREN },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "percent-limit", required_argument, NULL, O_PLIMIT },
		{ "json", no_argument, NULL, O_JSON },
		{ "stdio", no_argument, NULL, O_STDIO },
		{ "field-filter", required_argument, NULL, O_FIELD_FILTER },
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		ANA_SAMPLE_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *sort = "comm,dso,sym";
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:g::C:e:i:h", opts, NULL)) != -1) {
		err = 0;
		switch (c) {
		case 's': sort = optarg; break;
		case O_CHILDREN: r->children = true; break;
		case O_NO_CHILDREN: r->children = false; break;
		case 'g':
			/* perf accepts "-g caller" as well as "-gcaller". */
			if (!optarg && optind < argc && is_callgraph_spec(argv[optind]))
				optarg = argv[optind++];
			err = parse_callgraph(r, optarg);
			break;
		case O_NO_INLINE: r->inline_frames = false; break;
		case O_PLIMIT: {
			char *end;

			r->percent_limit = strtod(optarg, &end);
			if (end == optarg || *end || r->percent_limit < 0)
				err = -EINVAL;
			break;
		}
		case O_JSON: r->json = true; break;
		case O_STDIO: break;
		case O_FIELD_FILTER: err = ana_field_filter_add(&r->ff, optarg); break;
		case 'i': *path = optarg; break;
		case 'h': usage(stdout); return 1;
		default:
			err = ana_sample_option(&r->opts, c, optarg);
			if (err > 0) {
				usage(stderr);
				return -EINVAL;
			}
			break;
		}
		if (err) {
			fprintf(stderr, "amber-analyze: error: report: bad option argument '%s': %s\n",
				optarg ? optarg : "", strerror(-err));
			return err;
		}
	}
	if (optind < argc)
		*path = argv[optind++];
	if (!*path || optind < argc) {
		usage(stderr);
		return -EINVAL;
	}
	if (r->callgraph && r->inline_frames)
		r->want |= ANA_SYM_INLINE;
	err = parse_sort(r, sort);
	if (err) {
		fprintf(stderr, "amber-analyze: error: report: bad --sort '%s'\n", sort);
		return err;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report r = { .cg_limit = 0.5, .inline_frames = true };
	struct ana_embed *emb = NULL;
	const char *path = NULL;
	char msg[512];
	struct ana_out out;
	bool first_json = true;
	int err, rc = 1;
	size_t i;

	ana_sample_opts_init(&r.opts);
	err = parse_args(&r, argc, argv, &path);
	if (err)
		goto out_args;
	r.frames = malloc(MAX_FRAMES * sizeof(*r.frames));
	r.cg_path = malloc(MAX_FRAMES * sizeof(*r.cg_path));
	r.stack_entries = malloc(MAX_FRAMES * sizeof(*r.stack_entries));
	r.memos.key = malloc(MEMO_MAX_WORDS * sizeof(*r.memos.key));
	r.memo_on = r.fast_keys;
	if (!r.frames || !r.cg_path || !r.stack_entries || !r.memos.key) {
		err = -ENOMEM;
		goto out;
	}
	err = ana_session_open(path, &r.s);
	if (err) {
		fprintf(stderr, "amber-analyze: error: %s: %s\n", path, amb_strerror(err));
		goto out;
	}
	err = ana_filter_prepare(&r.opts.filter, r.s);
	if (err) {
		fprintf(stderr, "amber-analyze: error: report: --time: %s\n", amb_strerror(err));
		goto out;
	}
	if (ana_sample_opts_check(&r.opts, r.s, msg, sizeof(msg))) {
		fprintf(stderr, "amber-analyze: error: report: %s: %s\n", path, msg);
		goto out;
	}
	r.dsos = ana_dso_table_new(&r.opts.dso);
	r.m = r.dsos ? ana_machine_new(r.dsos) : NULL;
	if (!r.m || ana_embed_attach(r.s, r.dsos, &emb) || ana_machine_load_session(r.m, r.s)) {
		err = -ENOMEM;
		goto out_err;
	}
	for (i = 0; i < r.nr_keys; i++)
		if (r.keys[i].kind == SK_FIELD)
			break;
	if (i < r.nr_keys || ana_field_filter_active(&r.ff)) {
		r.tp = ana_tp_from_session(r.s);
		if (!r.tp) {
			err = -ENOMEM;
			goto out_err;
		}
	}
	r.nr_hists = ana_session_event_count(r.s) + 1;
	r.hists = calloc(r.nr_hists, sizeof(*r.hists));
	if (!r.hists) {
		err = -ENOMEM;
		goto out_err;
	}
	for (i = 0; i + 1 < r.nr_hists; i++)
		r.hists[i].evt = ana_session_event(r.s, i);
	ana_progress_init(&r.progress, "report");
	err = ana_session_for_each(r.s, on_record, &r);
	ana_progress_done(&r.progress);
	if (err < 0)
		goto out_err;
	ana_out_init(&out, stdout);
	if (r.json)
		ana_out_no_cut(&out);
	report_print_header(&r, &out);
	if (r.json)
		ana_out_printf(&out, ",\"events\":[");
	for (i = 0; i < r.nr_hists; i++)
		report_print_hist(&r, &out, &r.hists[i], &first_json);
	if (r.json)
		ana_out_printf(&out, "]}\n");
	else if (!r.samples_seen)
		ana_out_printf(&out, "# no samples\n");
	else if (r.samples_seen == r.filtered)
		ana_out_printf(&out, "# all %" PRIu64 " samples were filtered out\n", r.samples_seen);
	err = ana_out_finish(&out);
	if (err) {
		fprintf(stderr, "amber-analyze: error: report: writing the output: %s\n",
			strerror(-err));
		goto out;
	}
	rc = 0;
	goto out;
out_err:
	fprintf(stderr, "amber-analyze: error: report: %s: %s\n", path, amb_strerror(err));
out:
	for (i = 0; r.hists && i < r.nr_hists; i++)
		hist_free(&r.hists[i]);
	free(r.hists);
	free(r.frames);
	free(r.cg_path);
	free(r.stack_entries);
	memo_clear(&r.memos);
	free(r.memos.tab);
	free(r.memos.key);
	ana_tp_free(r.tp);
	ana_machine_free(r.m);
	ana_dso_table_free(r.dsos);
	ana_embed_free(emb);
	ana_session_close(r.s);
	ana_intern_free(&r.strings);
	free(r.cg_names.keys);
	free(r.cg_names.names);
	ana_sample_opts_free(&r.opts);
	ana_field_filter_free(&r.ff);
	amb_buf_free(&r.key);
	amb_buf_free(&r.val);
	return rc;
out_args:
	ana_sample_opts_free(&r.opts);
	ana_field_filter_free(&r.ff);
	ana_intern_free(&r.strings);
	return err > 0 ? 0 : 2;
}

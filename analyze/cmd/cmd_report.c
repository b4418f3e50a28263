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

#include "analyze/cmd/cmd.h"
#include "analyze/cmd/report.h"
#include "analyze/cmd/report_memkeys.h"
#include "common/util.h"
#include <amber/common.h>

const struct ana_report_sort_name ana_report_sort_names[SK_FIELD] = {
	{ "comm", "Command", SK_COMM },     { "pid", "Pid", SK_PID },
	{ "tid", "Tid", SK_TID },           { "dso", "Shared Object", SK_DSO },
	{ "sym", "Symbol", SK_SYM },        { "srcline", "Source:Line", SK_SRCLINE },
	{ "cpu", "CPU", SK_CPU },           { "event", "Event", SK_EVENT },
};

/* ---- entries --------------------------------------------------------------- */

static bool key_eq(uint64_t stored, const void *key)
{
	return !strcmp(((const struct hist_entry *)(uintptr_t)stored)->key, key);
}

/* The entry of @h whose key string is @key (@len bytes), made when new. */
static struct hist_entry *hist_get(struct hist *h, const char *key, size_t len)
{
	uint64_t hash = XXH3_64bits(key, len);
	struct hist_entry *e = amb_hashmap_find(&h->by_key, hash, key_eq, key);

	if (e)
		return e;
	if (amb_ensure_cap((void **)&h->entries, &h->cap, sizeof(*h->entries), h->nr + 1))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = strndup(key, len);
	if (!e->key || amb_hashmap_add(&h->by_key, hash, (uintptr_t)e, e)) {
		free(e->key);
		free(e);
		return NULL;
	}
	h->entries[h->nr++] = e;
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

	for (i = 0; i < h->nr; i++) {
		cg_free(h->entries[i]->cg);
		free(h->entries[i]->key);
		free(h->entries[i]);
	}
	free(h->entries);
	amb_hashmap_free(&h->by_key);
	amb_hashmap_free(&h->by_id);
	free(h->ids);
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

/*
 * Append the @n bytes at @s and the separator to the key.  A value never
 * holds the separator itself: one that does (a hostile comm) is kept
 * escaped, as text output shows it (amb_buf_put_text(), common/util.h).
 */
static int key_put_n(struct amb_buf *b, const char *s, size_t n)
{
	if (memchr(s, KEY_SEP, n))
		return amb_buf_put_text(b, s, n) ? -ENOMEM : amb_buf_append(b, (char[]){ KEY_SEP }, 1);
	if (amb_buf_reserve(b, n + 1))
		return -ENOMEM;
	memcpy(b->data + b->len, s, n);
	b->data[b->len + n] = KEY_SEP;
	b->len += n + 1;
	return 0;
}

/* Append @s and the separator to the key. */
static int key_put(struct amb_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (memchr(s, KEY_SEP, n))
		return key_put_n(b, s, n);
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
		return amb_buf_printf(b, "%u:", smp->pid) ? -ENOMEM : key_put(b, ana_thread_comm(t));
	case SK_TID:
		return amb_buf_printf(b, "%u:", smp->tid) ? -ENOMEM : key_put(b, ana_thread_comm(t));
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
	case SK_MEM:
		return ana_report_memkey_value(r, k, smp, t);
	case SK_FIELD:
		r->val.len = 0;
		if (!r->tp || !smp->evt || !smp->evt->tracepoint ||
		    ana_tp_field(r->tp, smp->raw, smp->raw_size, k->name, &r->val))
			return amb_buf_printf(b, "[n/a]%c", KEY_SEP);
		return key_put_n(b, (const char *)r->val.data, r->val.len);
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
		case SK_MEM:
			ana_report_memkey_identity(r, &r->keys[i], smp, id);
			break;
		case SK_SRCLINE:
		case SK_FIELD:
			/* Made afresh for each sample: no identity (parse_sort). */
			assert(!r->fast_keys);
			break;
		}
	}
}

/* An identity being looked up: @words words, compared with those stored
 * in @h->ids at the index a slot holds. */
struct id_key {
	const struct hist *h;
	const uint64_t *words;
	size_t n;
};

static bool id_eq(uint64_t stored, const void *key)
{
	const struct id_key *k = key;

	return !memcmp(&k->h->ids[stored * k->n], k->words, k->n * sizeof(*k->words));
}

static int id_add(struct hist *h, size_t words, const uint64_t *id, uint64_t hash,
		  struct hist_entry *e)
{
	size_t cap = h->cap_ids * words;

	if (amb_ensure_cap((void **)&h->ids, &cap, sizeof(*h->ids), (h->nr_ids + 1) * words))
		return -ENOMEM;
	h->cap_ids = cap / words;
	memcpy(&h->ids[h->nr_ids * words], id, words * sizeof(*id));
	if (amb_hashmap_add(&h->by_id, hash, h->nr_ids, e))
		return -ENOMEM;
	h->nr_ids++;
	return 0;
}

/* The entry of @h that sample @smp of @t falls into at frame @f, created
 * when new.  NULL on -ENOMEM. */
static struct hist_entry *hist_find(struct report *r, struct hist *h,
				    const struct ana_sample *smp, struct ana_thread *t,
				    const struct frame *f)
{
	uint64_t id[2 * AMB_ARRAY_SIZE(r->keys)], hash = 0;
	struct id_key k = { h, id, r->id_words };
	struct hist_entry *e;

	if (r->fast_keys) {
		key_identity(r, smp, t, f, id);
		hash = XXH3_64bits(id, r->id_words * sizeof(*id));
		e = amb_hashmap_find(&h->by_id, hash, id_eq, &k);
		if (e)
			return e;
	}
	if (build_key(r, smp, t, f))
		return NULL;
	e = hist_get(h, (const char *)r->key.data, r->key.len);
	if (e && r->fast_keys && id_add(h, r->id_words, id, hash, e))
		return NULL;
	return e;
}

/* ---- call graph names ------------------------------------------------------ */

/*
 * The interned call graph name of a frame named @src, a string that
 * outlives the report, with " (inlined)" added for an @inlined frame.
 * NULL on -ENOMEM.
 */
static const char *cg_name(struct report *r, const char *src, bool inlined)
{
	uint64_t key = (uint64_t)(uintptr_t)src << 1 | inlined, hash = amb_hash_u64(key);
	const char *name = amb_hashmap_find_u64(&r->cg_names, hash, key);
	char buf[300];

	if (name)
		return name;
	if (inlined) {
		snprintf(buf, sizeof(buf), "%s (inlined)", src);
		src = buf;
	}
	name = ana_intern(&r->strings, src);
	if (!name || amb_hashmap_add(&r->cg_names, hash, key, (void *)name))
		return NULL;
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
	k[0] = ana_pipeline_stack_key(r->p, t, smp);
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

static bool memo_eq(uint64_t stored, const void *key)
{
	const struct stack_memo *m = (const struct stack_memo *)(uintptr_t)stored;
	const struct memo_table *mt = key;

	return m->nr_key == mt->nr_key && !memcmp(m->key, mt->key, mt->nr_key * sizeof(*m->key));
}

static struct stack_memo *memo_find(const struct memo_table *mt)
{
	return amb_hashmap_find(&mt->map, mt->hash, memo_eq, mt);
}

static void memo_clear(struct memo_table *mt)
{
	struct amb_hashmap_slot *slot;

	amb_hashmap_for_each(&mt->map, slot)
		free(slot->value);
	amb_hashmap_clear(&mt->map);
	mt->bytes = 0;
}

/*
 * Remember what the current sample resolved to, under the key memo_key()
 * made: its leaf entry @self, the r->stack_entries of --children and the
 * r->cg_path of -g.  Returns 0 or -ENOMEM.
 */
static int memo_add(struct report *r, struct hist_entry *self, unsigned nr_children)
{
	struct memo_table *mt = &r->memos;
	unsigned nr_names = r->callgraph ? r->nr_cg_path : 0;
	size_t size = sizeof(struct stack_memo) + mt->nr_key * sizeof(uint64_t) +
		      nr_children * sizeof(struct hist_entry *) + nr_names * sizeof(const char *);
	struct stack_memo *m;

	if (mt->bytes + size > MEMO_MAX_BYTES)
		memo_clear(mt);
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
	m->nr_key = mt->nr_key;
	m->nr_children = nr_children;
	m->nr_names = nr_names;
	m->self = self;
	if (amb_hashmap_add(&mt->map, mt->hash, (uintptr_t)m, m)) {
		free(m);
		return -ENOMEM;
	}
	mt->bytes += size;
	return 0;
}

/* Add a sample of @period with memo @m to @h, as process_sample() would. */
static int memo_apply(struct report *r, struct hist *h, const struct stack_memo *m,
		      uint64_t period)
{
	uint32_t i;

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

static int process_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct report *r = ctx;
	struct hist_entry *e, *self;
	struct stack_memo *memo;
	struct hist *h;
	unsigned i, leaf, nr_children = 0;
	bool memoize;
	int err;

	h = &r->hists[smp->evt ? smp->evt->index : r->nr_hists - 1];
	memoize = r->memo_on && memo_key(r, smp, t, h);
	if (memoize && (memo = memo_find(&r->memos)))
		return memo_apply(r, h, memo, smp->period);
	r->nr_frames = 0;
	r->frame_err = 0;
	ana_pipeline_walk(r->p, t, smp, r->want, (r->children || r->callgraph) ? 0 : 1,
			  collect_frame, r);
	if (r->frame_err)
		return r->frame_err;
	if (!r->nr_frames)
		return 0;
	/* The entry's symbol is the ELF symbol, as perf shows it; the inlined
	 * functions before it are call graph frames only. */
	for (leaf = 0; leaf + 1 < r->nr_frames && r->frames[leaf].inlined; leaf++)
		;
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
	return memoize ? memo_add(r, self, nr_children) : 0;
}

static void tick(void *ctx)
{
	ana_progress_tick(ctx);
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
		for (i = 0; i < AMB_ARRAY_SIZE(ana_report_sort_names); i++)
			if (!strcmp(tok, ana_report_sort_names[i].opt))
				break;
		if (i < AMB_ARRAY_SIZE(ana_report_sort_names)) {
			k->kind = ana_report_sort_names[i].kind;
			k->name = ana_report_sort_names[i].header;
		} else if (ana_report_memkey_parse(k, tok)) {
			if (!ana_report_memkey_has_identity(k))
				r->fast_keys = false;
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

static const char usage[] =
"usage: amber-analyze report [OPTIONS] FILE\n"
"\n"
"Samples aggregated by sort keys, sorted by overhead.\n"
"\n"
"  -s, --sort KEYS        comm,pid,tid,dso,sym,srcline,cpu,event or tracepoint\n"
"                         fields (prev_comm, ...); default comm,dso,sym\n"
ANA_REPORT_MEMKEYS_HELP
"      --children         accumulate callers' overhead over callchains\n"
"      --no-children      self overhead only (the default)\n"
"  -g, --call-graph[=caller|callee[,PCT]]\n"
"                         call graph under each entry (default callee,0.5)\n"
"      --no-inline        no inlined functions in call graphs\n"
"      --off-cpu          time off CPU instead of samples: each wait (switch-out\n"
"                         to switch-in) is a sample of its stack at switch-out\n"
"                         weighted in ns, in one table per state (R, S, D ...);\n"
"                         needs a recording made with amber-rec --off-cpu\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs (0-3,7)\n"
"      --dso LIST         only these shared objects\n"
"      --sym LIST         only these symbols\n"
"      --time START,END   seconds from the first sample, or HH:MM:SS[.frac]\n"
"  -e, --event NAME       only this event (default: each event in turn)\n"
"      --percent-limit P  hide entries below P%\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"  -j, --jobs N           decode with N threads (default: one per CPU)\n"
"      --json             JSON instead of text\n"
"      --stdio            text output (the only mode)\n";

enum { O_CHILDREN = 256, O_NO_CHILDREN, O_PLIMIT, O_JSON, O_STDIO, O_NO_INLINE, O_OFF_CPU };

struct report_args {
	struct report *r;
	int argc;
	char **argv;
	const char **files;
};

static int report_option(void *ctx, int c, const char *arg)
{
	struct report_args *a = ctx;
	struct report *r = a->r;
	char *end;

	switch (c) {
	case 's': r->sort = arg; return 0;
	case O_CHILDREN: r->children = true; return 0;
	case O_NO_CHILDREN: r->children = false; return 0;
	case 'g':
		/* perf accepts "-g caller" as well as "-gcaller". */
		if (!arg && optind < a->argc && is_callgraph_spec(a->argv[optind]))
			arg = a->argv[optind++];
		return parse_callgraph(r, arg);
	case O_NO_INLINE: r->inline_frames = false; return 0;
	case O_PLIMIT:
		r->percent_limit = strtod(arg, &end);
		return end == arg || *end || r->percent_limit < 0 ? -EINVAL : 0;
	case O_JSON: r->json = true; return 0;
	case O_STDIO: return 0;
	case O_OFF_CPU: r->time = ANA_OFFCPU_WAITS; return 0;
	case 'i': a->files[0] = arg; return 0;
	default: return 1;
	}
}

/* ---- --off-cpu: waits as samples (view/offcpu.h) --------------------------------- */

/* Open the recording with the waits as the source of samples: 0, or 1
 * after reporting the error. */
static int open_offcpu(struct report *r, const char *path)
{
	int err = ana_offcpu_open(path, &r->opts, r->time, &r->oc);

	if (err)
		return ana_cmd_fail("report", path, err);
	r->p = ana_offcpu_pipeline(r->oc);
	return 0;
}

/* The waits stand for the samples in the closing counts. */
static void offcpu_counts(struct report *r)
{
	struct ana_offcpu_stats ws;

	ana_offcpu_get_stats(r->oc, &ws);
	r->samples_seen = ws.waits;
	r->filtered = 0;
}

static int free_report(struct report *r, int rc)
{
	size_t i;

	for (i = 0; r->hists && i < r->nr_hists; i++)
		hist_free(&r->hists[i]);
	free(r->hists);
	free(r->frames);
	free(r->cg_path);
	free(r->stack_entries);
	memo_clear(&r->memos);
	amb_hashmap_free(&r->memos.map);
	free(r->memos.key);
	ana_report_memkeys_free(r);
	if (r->oc)
		ana_offcpu_close(r->oc);    /* and its pipeline */
	else
		ana_pipeline_close(r->p);
	ana_intern_free(&r->strings);
	amb_hashmap_free(&r->cg_names);
	ana_pipeline_opts_free(&r->opts);
	amb_buf_free(&r->key);
	amb_buf_free(&r->val);
	return rc;
}

int ana_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "children", no_argument, NULL, O_CHILDREN },
		{ "no-children", no_argument, NULL, O_NO_CHILDREN },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "percent-limit", required_argument, NULL, O_PLIMIT },
		{ "json", no_argument, NULL, O_JSON },
		{ "stdio", no_argument, NULL, O_STDIO },
		{ "off-cpu", no_argument, NULL, O_OFF_CPU },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "report", usage, "s:g::i:", opts, 1, 1 };
	struct report r = { .cg_limit = 0.5, .inline_frames = true, .sort = "comm,dso,sym" };
	const char *path = NULL;
	struct report_args a = { &r, argc, argv, &path };
	struct ana_pipeline_stats st;
	struct ana_out out;
	bool first_json = true;
	int err, rc;
	size_t i;

	ana_pipeline_opts_init(&r.opts);
	rc = ana_cmd_parse(&desc, argc, argv, &r.opts, report_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		return free_report(&r, rc);
	if (r.callgraph && r.inline_frames)
		r.want |= ANA_SYM_INLINE;
	err = parse_sort(&r, r.sort);
	if (err) {
		ana_cmd_error("report", "bad --sort '%s'", r.sort);
		return free_report(&r, 2);
	}
	for (i = 0; i < r.nr_keys; i++)
		if (r.keys[i].kind == SK_FIELD)
			r.opts.tracepoints = true;
	r.frames = malloc(MAX_FRAMES * sizeof(*r.frames));
	r.cg_path = malloc(MAX_FRAMES * sizeof(*r.cg_path));
	r.stack_entries = malloc(MAX_FRAMES * sizeof(*r.stack_entries));
	r.memos.key = malloc(MEMO_MAX_WORDS * sizeof(*r.memos.key));
	r.memo_on = r.fast_keys;
	if (!r.frames || !r.cg_path || !r.stack_entries || !r.memos.key)
		return free_report(&r, ana_cmd_fail("report", path, -ENOMEM));
	if (r.time ? open_offcpu(&r, path) : ana_cmd_open("report", path, &r.opts, &r.p))
		return free_report(&r, 1);
	r.s = ana_pipeline_session(r.p);
	r.tp = ana_pipeline_tp(r.p);
	rc = ana_report_memkeys_open(&r, path);
	if (rc)
		return free_report(&r, rc);
	r.nr_hists = (r.time ? ANA_SCHED_NR_STATES : ana_session_event_count(r.s)) + 1;
	r.hists = calloc(r.nr_hists, sizeof(*r.hists));
	if (!r.hists)
		return free_report(&r, ana_cmd_fail("report", path, -ENOMEM));
	for (i = 0; i + 1 < r.nr_hists; i++)
		r.hists[i].evt = r.time ? ana_offcpu_event(r.oc, i) : ana_session_event(r.s, i);
	ana_progress_init(&r.progress, "report");
	ana_pipeline_set_progress(r.p, tick, &r.progress);
	if (r.time)
		err = ana_offcpu_run(r.oc, process_sample, &r);
	else
		err = ana_pipeline_run(r.p, process_sample, NULL, &r);
	ana_progress_done(&r.progress);
	if (err < 0)
		return free_report(&r, ana_cmd_fail("report", path, err));
	ana_pipeline_get_stats(r.p, &st);
	r.samples_seen = st.samples;
	r.filtered = st.filtered;
	if (r.time)
		offcpu_counts(&r);
	ana_out_init(&out, stdout);
	if (r.json)
		ana_out_no_cut(&out);
	ana_report_print_header(&r, &out);
	if (r.json)
		ana_out_printf(&out, ",\"events\":[");
	for (i = 0; i < r.nr_hists; i++)
		ana_report_print_hist(&r, &out, &r.hists[i], &first_json);
	if (r.json)
		ana_out_printf(&out, "]}\n");
	else if (!r.samples_seen)
		ana_out_printf(&out, "# no samples\n");
	else if (r.samples_seen == r.filtered)
		ana_out_printf(&out, "# all %" PRIu64 " samples were filtered out\n", r.samples_seen);
	err = ana_out_finish(&out);
	if (err) {
		ana_cmd_error("report", "writing the output: %s", strerror(-err));
		return free_report(&r, 1);
	}
	return free_report(&r, 0);
}

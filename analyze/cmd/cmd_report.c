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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#include "analyze/cmd/cmd.h"
#include "analyze/cmd/report.h"
#include "analyze/cmd/report_memkeys.h"
#include "common/util.h"
#include <amber/common.h>

const struct ana_report_sort_name ana_report_sort_names[SK_FIELD] = {
	{ "comm", NULL, "Command", SK_COMM },
	{ "pid", NULL, "Pid", SK_PID },
	{ "tid", NULL, "Tid", SK_TID },
	{ "dso", NULL, "Shared Object", SK_DSO },
	{ "sym", "symbol", "Symbol", SK_SYM },
	{ "srcline", NULL, "Source:Line", SK_SRCLINE },
	{ "cpu", NULL, "CPU", SK_CPU },
	{ "event", NULL, "Event", SK_EVENT },
	{ "srcfile", NULL, "Source File", SK_SRCFILE },
	{ "sym_size", NULL, "Symbol size", SK_SYM_SIZE },
	{ "time", NULL, "Time", SK_TIME },
	{ "parent", NULL, "Parent symbol", SK_PARENT },
	{ "trace", NULL, "Trace output", SK_TRACE },
};

/* perf's default --parent pattern: system calls and page faults. */
#define DEFAULT_PARENT "^sys_|^do_page_fault"

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
/* Add @period along the path @names[0..n) below @root; the path's last
 * node in *@end (NULL for n = 0), to add to again with cg_add_again(). */
static int cg_add(struct cg_node **root, const char *const *names, unsigned n, uint64_t period,
		  struct cg_node **end)
{
	struct cg_node *parent = NULL;
	unsigned i;

	*end = NULL;
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
			c->parent = parent;
			*pp = c;
		}
		c->period += period;
		root = &c->child;
		parent = c;
	}
	*end = parent;
	return 0;
}

/* Add @period along the path cg_add() ended at @end, again. */
static void cg_add_again(struct cg_node *end, uint64_t period)
{
	for (; end; end = end->parent)
		end->period += period;
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
	case SK_SRCFILE: {
		const char *file = loc->kind == ANA_LOC_SYM ? loc->sym->file : NULL;
		const char *base = file ? strrchr(file, '/') : NULL;

		return key_put(b, base ? base + 1 : file ? file : "[unknown]");
	}
	case SK_SYM_SIZE:
		return amb_buf_printf(b, "%" PRIu64 "%c",
				      ana_loc_sym_size(ana_pipeline_machine(r->p), loc), KEY_SEP);
	case SK_TIME: {
		uint64_t at = smp->time / r->time_quantum * r->time_quantum;

		return amb_buf_printf(b, "%" PRIu64 ".%06" PRIu64 "%c", at / 1000000000,
				      at % 1000000000 / 1000, KEY_SEP);
	}
	case SK_PARENT:
		return key_put(b, r->parent ? r->parent : "[other]");
	case SK_TRACE:
		r->val.len = 0;
		if (!r->tp || !smp->evt || !smp->evt->tracepoint ||
		    ana_tp_format(r->tp, smp->raw, smp->raw_size, &r->val))
			return amb_buf_printf(b, "[n/a]%c", KEY_SEP);
		return key_put_n(b, (const char *)r->val.data, r->val.len);
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
		case SK_SYM_SIZE:
			/* A symbol's name string is its own (symbol tables,
			 * KSYMS): it names its size too. */
			id[0] = f ? (uintptr_t)f->name : 0;
			id[1] = f ? f->loc.kernel : 0;
			break;
		case SK_TIME:
			id[0] = smp->time / r->time_quantum;
			id[1] = 0;
			break;
		case SK_MEM:
			ana_report_memkey_identity(r, &r->keys[i], smp, id);
			break;
		case SK_SRCLINE:
		case SK_SRCFILE:
		case SK_PARENT:
		case SK_TRACE:
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

/* True when a sample's whole stack is walked, not its first frame only. */
static bool full_stack(const struct report *r)
{
	return r->children || r->callgraph || r->parent_re_set || r->ignore_re_set;
}

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
	if (chain && !full_stack(r))
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
	mt->hash = amb_hash_words(k, n);
	return true;
}

static bool memo_eq(uint64_t stored, const void *key)
{
	const struct stack_memo *m = (const struct stack_memo *)(uintptr_t)stored;
	const struct memo_table *mt = key;

	if (m->nr_key != mt->nr_key)
		return false;
	/* A few words, mostly equal: no call to memcmp. */
	for (uint32_t i = 0; i < m->nr_key; i++)
		if (m->key[i] != mt->key[i])
			return false;
	return true;
}

static struct stack_memo *memo_find(const struct memo_table *mt)
{
	return amb_hashmap_find(&mt->map, mt->hash, memo_eq, mt);
}

/*
 * Give the entries and call graph paths of @m what the samples that found
 * it added since the last flush: all at once, as the report reads them
 * only when the run is over.
 */
static void memo_flush(struct stack_memo *m)
{
	uint32_t i;

	if (!m->samples)
		return;
	m->self->samples += m->samples;
	m->self->period += m->period;
	for (i = 0; i < m->nr_children; i++)
		m->children[i]->children += m->period;
	for (i = 0; i < m->nr_cg_ends; i++)
		cg_add_again(m->cg_ends[i], m->period);
	m->samples = m->period = 0;
}

/* Flush and forget every memo. */
static void memo_clear(struct memo_table *mt)
{
	struct amb_hashmap_slot *slot;

	amb_hashmap_for_each(&mt->map, slot) {
		memo_flush(slot->value);
		free(slot->value);
	}
	amb_hashmap_clear(&mt->map);
	mt->bytes = 0;
	if (mt->by_chain)
		memset(mt->by_chain, 0, CHAIN_MEMOS * sizeof(*mt->by_chain));
}

/* True when every sort key's identity (key_identity() without a frame)
 * comes from what struct chain_memo compares. */
static bool chain_memo_usable(const struct report *r)
{
	for (size_t i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i].kind) {
		case SK_COMM: case SK_PID: case SK_TID: case SK_DSO: case SK_SYM:
		case SK_CPU: case SK_EVENT: case SK_SYM_SIZE:
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The slot of the chain memo cache for @chain_key. */
static struct chain_memo *chain_memo_slot(const struct memo_table *mt, uint64_t chain_key)
{
	return &mt->by_chain[amb_hash_u64(chain_key) & (CHAIN_MEMOS - 1)];
}

/* The memo of sample @smp of @t when its chain_key's slot holds one whose
 * memo key the sample shares (struct chain_memo), else NULL. */
static struct stack_memo *chain_memo_find(struct report *r, const struct ana_sample *smp,
					  const struct ana_thread *t)
{
	const struct chain_memo *cm = chain_memo_slot(&r->memos, smp->chain_key);
	bool same_thread;

	if (cm->chain_key != smp->chain_key)
		return NULL;
	same_thread = cm->t == t && cm->pid == smp->pid && cm->tid == smp->tid &&
		      cm->comm == ana_thread_comm(t);
	if (!same_thread || cm->cpu != smp->cpu || cm->evt != smp->evt ||
	    cm->cpumode != smp->cpumode || cm->stack_key != ana_pipeline_stack_key(r->p, t, smp))
		return NULL;
	return cm->memo;
}

/* Remember @m as the memo of @smp's chain_key; k[0] of the current memo
 * key is its stack key. */
static void chain_memo_set(struct report *r, const struct ana_sample *smp,
			   const struct ana_thread *t, struct stack_memo *m)
{
	struct chain_memo *cm = chain_memo_slot(&r->memos, smp->chain_key);

	*cm = (struct chain_memo){
		.chain_key = smp->chain_key,
		.stack_key = r->memos.key[0],
		.t = t,
		.comm = ana_thread_comm(t),
		.evt = smp->evt,
		.pid = smp->pid,
		.tid = smp->tid,
		.cpu = smp->cpu,
		.cpumode = smp->cpumode,
		.memo = m,
	};
}

/*
 * The call graph path of the entry at frame @pos of the stack @names[0..n)
 * (leaf first) into r->cg_path, returning its length.  --children: the
 * entry and what it called (caller order, perf's default there), or the
 * entry and its callers (callee order).  Self overhead (@pos UINT_MAX):
 * the whole stack, from the outermost caller down (caller order) or from
 * the leaf up (callee order).
 */
static unsigned cg_path_of(struct report *r, const char *const *names, unsigned n, unsigned pos)
{
	const char **path = r->cg_path;
	unsigned len = 0, i;

	if (pos == UINT_MAX) {
		for (i = 0; i < n; i++)
			path[len++] = names[r->caller ? n - 1 - i : i];
	} else if (r->caller) {
		for (i = pos + 1; i-- > 0;)
			path[len++] = names[i];
	} else {
		for (i = pos; i < n; i++)
			path[len++] = names[i];
	}
	return len;
}

/* Add @period to the call graphs of the sample's entries: each entry of
 * @children at its frame @pos (--children), else @self's whole stack.
 * Where each path ended goes to r->cg_ends (one per child, or one). */
static int add_callgraphs(struct report *r, const char *const *names, unsigned n,
			  struct hist_entry *self, struct hist_entry *const *children,
			  const unsigned *pos, unsigned nr_children, uint64_t period)
{
	unsigned i, len;
	int err;

	if (!r->children) {
		len = cg_path_of(r, names, n, UINT_MAX);
		return cg_add(&self->cg, r->cg_path, len, period, &r->cg_ends[0]);
	}
	for (i = 0; i < nr_children; i++) {
		len = cg_path_of(r, names, n, pos[i]);
		err = cg_add(&children[i]->cg, r->cg_path, len, period, &r->cg_ends[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Remember what the current sample resolved to, under the key memo_key()
 * made: its leaf entry @self, the r->stack_entries of --children with
 * their frames, and the frames' names for -g.  The memo made goes to
 * *@made.  Returns 0 or -ENOMEM.
 */
static int memo_add(struct report *r, struct hist_entry *self, unsigned nr_children,
		    struct stack_memo **made)
{
	struct memo_table *mt = &r->memos;
	unsigned nr_ends = !r->callgraph ? 0 : r->children ? nr_children : 1;
	size_t size = sizeof(struct stack_memo) + mt->nr_key * sizeof(uint64_t) +
		      nr_children * sizeof(struct hist_entry *) +
		      nr_ends * sizeof(struct cg_node *);
	struct stack_memo *m;

	if (mt->bytes + size > MEMO_MAX_BYTES)
		memo_clear(mt);
	m = malloc(size);
	if (!m)
		return -ENOMEM;
	/* The arrays follow the struct, all of 8-byte words. */
	m->key = (uint64_t *)(m + 1);
	m->children = (struct hist_entry **)(m->key + mt->nr_key);
	m->cg_ends = (struct cg_node **)(m->children + nr_children);
	memcpy(m->key, mt->key, mt->nr_key * sizeof(*m->key));
	memcpy(m->children, r->stack_entries, nr_children * sizeof(*m->children));
	memcpy(m->cg_ends, r->cg_ends, nr_ends * sizeof(*m->cg_ends));
	m->nr_key = mt->nr_key;
	m->nr_children = nr_children;
	m->nr_cg_ends = nr_ends;
	m->self = self;
	m->samples = m->period = 0;
	if (amb_hashmap_add(&mt->map, mt->hash, (uintptr_t)m, m)) {
		free(m);
		return -ENOMEM;
	}
	mt->bytes += size;
	*made = m;
	return 0;
}

/* Add a sample of @period with memo @m to @h, as process_sample() would
 * (its entries and call graphs when the memo is flushed). */
static int memo_apply(struct hist *h, struct stack_memo *m, uint64_t period)
{
	h->samples++;
	h->period += period;
	/* The entries get it at memo_flush(). */
	m->samples++;
	m->period += period;
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

/* The name a frame's symbol has, without " (inlined)"; NULL for inlined
 * frames, which --parent and --ignore-callees do not look at. */
static const char *frame_sym(const struct frame *f)
{
	char buf[128];

	if (f->inlined)
		return NULL;
	return f->loc.kind == ANA_LOC_SYM || f->loc.kind == ANA_LOC_KERNEL ?
		       ana_loc_sym_name(&f->loc, buf, sizeof(buf)) : NULL;
}

/*
 * --ignore-callees: the sample belongs to the outermost function matching
 * the pattern, and what it called is left out (perf's rule: each match
 * from the leaf up forgets the frames below it).
 */
static void ignore_callees(struct report *r)
{
	unsigned i, cut = 0;

	for (i = 0; i < r->nr_frames; i++) {
		const char *sym = frame_sym(&r->frames[i]);

		if (sym && !regexec(&r->ignore_re, sym, 0, NULL, 0))
			cut = i;
	}
	if (cut) {
		memmove(r->frames, r->frames + cut, (r->nr_frames - cut) * sizeof(*r->frames));
		r->nr_frames -= cut;
	}
}

/* --parent, the parent sort key: the first caller, from the leaf up,
 * matching the pattern, or NULL. */
static const char *find_parent(struct report *r)
{
	for (unsigned i = 0; i < r->nr_frames; i++) {
		const char *sym = frame_sym(&r->frames[i]);

		if (sym && !regexec(&r->parent_re, sym, 0, NULL, 0))
			return r->frames[i].name;
	}
	return NULL;
}

/* -T: add @smp to its thread's total for its event. */
static int add_thread_total(struct report *r, const struct ana_sample *smp, struct ana_thread *t)
{
	uint64_t key = smp->tid, hash = amb_hash_u64(key);
	struct thread_total *tt = amb_hashmap_find_u64(&r->threads_map, hash, key);

	if (!tt) {
		tt = calloc(1, sizeof(*tt));
		if (!tt)
			return -ENOMEM;
		tt->period = calloc(r->nr_hists, sizeof(*tt->period));
		if (!tt->period || amb_hashmap_add(&r->threads_map, hash, key, tt)) {
			free(tt->period);
			free(tt);
			return -ENOMEM;
		}
		tt->pid = smp->pid;
		tt->tid = smp->tid;
	}
	/* The thread's name at its last sample, as perf shows it. */
	tt->comm = ana_thread_comm(t);
	tt->period[smp->evt ? smp->evt->index : r->nr_hists - 1] += smp->period;
	return 0;
}

static int process_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct report *r = ctx;
	struct hist_entry *e, *self;
	struct stack_memo *memo;
	struct hist *h;
	unsigned i, leaf, nr_children = 0;
	bool memoize, by_chain;
	int err;

	if (r->threads && (err = add_thread_total(r, smp, t)))
		return err;
	h = &r->hists[smp->evt ? smp->evt->index : r->nr_hists - 1];
	by_chain = r->memos.by_chain && smp->chain_key;
	if (by_chain && (memo = chain_memo_find(r, smp, t)))
		return memo_apply(h, memo, smp->period);
	memoize = r->memo_on && memo_key(r, smp, t, h);
	if (memoize && (memo = memo_find(&r->memos))) {
		if (by_chain)
			chain_memo_set(r, smp, t, memo);
		return memo_apply(h, memo, smp->period);
	}
	r->nr_frames = 0;
	r->frame_err = 0;
	ana_pipeline_walk(r->p, t, smp, r->want, full_stack(r) ? r->max_stack : 1, collect_frame, r);
	if (r->frame_err)
		return r->frame_err;
	if (r->ignore_re_set)
		ignore_callees(r);
	if (!r->nr_frames)
		return 0;
	r->parent = r->parent_re_set ? find_parent(r) : NULL;
	if (r->exclude_other && !r->parent)
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
			r->stack_pos[nr_children] = i;
			r->stack_entries[nr_children++] = e;
		}
	}
	if (r->callgraph) {
		const char **names = r->cg_names_tmp;

		for (i = 0; i < r->nr_frames; i++)
			names[i] = r->frames[i].name;
		err = add_callgraphs(r, names, r->nr_frames, self, r->stack_entries, r->stack_pos,
				     nr_children, smp->period);
		if (err)
			return err;
	}
	if (!memoize)
		return 0;
	err = memo_add(r, self, nr_children, &memo);
	if (!err && by_chain)
		chain_memo_set(r, smp, t, memo);
	return err;
}

static void tick(void *ctx)
{
	ana_progress_tick(ctx);
}

/* ---- options ------------------------------------------------------------------ */

/* The sort key named @tok (perf's names, any case), or SK_FIELD. */
static enum sort_kind key_kind(const char *tok)
{
	for (size_t i = 0; i < AMB_ARRAY_SIZE(ana_report_sort_names); i++) {
		const struct ana_report_sort_name *n = &ana_report_sort_names[i];

		if (!strcasecmp(tok, n->opt) || (n->alias && !strcasecmp(tok, n->alias)))
			return n->kind;
	}
	return SK_FIELD;
}

/* The keys --sort knows, for messages: "comm, pid, ..., sym (symbol), ...". */
static const char *key_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < AMB_ARRAY_SIZE(ana_report_sort_names) && n < len; i++) {
		const struct ana_report_sort_name *k = &ana_report_sort_names[i];

		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s%s", i ? ", " : "", k->opt,
				      k->alias ? " (" : "", k->alias ? k->alias : "",
				      k->alias ? ")" : "");
	}
	return buf;
}

/* Add the sort key @tok, unless it is there already. */
static int add_key(struct report *r, const char *tok)
{
	enum sort_kind kind = key_kind(tok);
	struct sort_key *k, mem = { .kind = SK_FIELD };
	size_t i;

	/* perf mem report's keys, node and remote (report_memkeys.c). */
	if (kind == SK_FIELD && ana_report_memkey_parse(&mem, tok))
		kind = SK_MEM;
	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i].kind == kind &&
		    (kind != SK_FIELD || !strcmp(r->keys[i].name, tok)) &&
		    (kind != SK_MEM || r->keys[i].mem == mem.mem))
			return 0;
	if (r->nr_keys == AMB_ARRAY_SIZE(r->keys)) {
		amb_errmsg_set("more than %zu sort keys", AMB_ARRAY_SIZE(r->keys));
		return -E2BIG;
	}
	k = &r->keys[r->nr_keys++];
	k->kind = kind;
	if (kind == SK_MEM) {
		*k = mem;
		/* A data object's name is made per sample. */
		if (!ana_report_memkey_has_identity(k))
			r->fast_keys = false;
	} else if (kind != SK_FIELD) {
		k->name = ana_report_sort_names[kind].header;
	} else {
		/* Anything else names a tracepoint field (prev_comm, ...),
		 * checked against the recording's formats once it is open. */
		k->name = ana_intern(&r->strings, tok);
		if (!k->name)
			return -ENOMEM;
	}
	k->per_frame = kind == SK_DSO || kind == SK_SYM || kind == SK_SRCLINE ||
		       kind == SK_SRCFILE || kind == SK_SYM_SIZE;
	if (kind == SK_SRCLINE)
		r->want |= ANA_SYM_SRCLINE | ANA_SYM_INLINE;
	if (kind == SK_SRCFILE)
		r->want |= ANA_SYM_SRCLINE;
	/* These are formatted per sample: they have no identity. */
	if (kind == SK_SRCLINE || kind == SK_SRCFILE || kind == SK_PARENT || kind == SK_TRACE ||
	    kind == SK_FIELD)
		r->fast_keys = false;
	r->id_words = 2 * r->nr_keys;
	return 0;
}

/* -F/--fields: the columns perf calls overhead, overhead_children, sample
 * and period, and sort keys. */
static int parse_fields(struct report *r, const char *arg)
{
	static const struct { const char *name; unsigned col; } cols[] = {
		{ "overhead", COL_OVERHEAD }, { "overhead_children", COL_CHILDREN },
		{ "sample", COL_SAMPLES }, { "samples", COL_SAMPLES }, { "period", COL_PERIOD },
	};
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	r->columns = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < AMB_ARRAY_SIZE(cols) && strcasecmp(tok, cols[i].name); i++)
			;
		if (i < AMB_ARRAY_SIZE(cols))
			r->columns |= cols[i].col;
		else
			err = add_key(r, tok);
	}
	free(copy);
	return err;
}

static int parse_sort(struct report *r, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = add_key(r, tok);
	free(copy);
	if (!err && !r->nr_keys)
		err = -EINVAL;
	return err;
}

/*
 * Each tracepoint field named as a key must be a field of a recorded
 * tracepoint.  Returns 0, or 2 after saying which key is unknown and what
 * the valid ones are, as perf does.
 */
static int check_field_keys(struct report *r)
{
	struct amb_buf fields = AMB_BUF_INIT;
	char names[512], mnames[256];
	int rc = 0;

	for (size_t i = 0; i < r->nr_keys && !rc; i++) {
		if (r->keys[i].kind != SK_FIELD)
			continue;
		fields.len = 0;
		if (r->tp && ana_tp_field_names(r->tp, r->keys[i].name, &fields) == 1)
			continue;
		ana_cmd_error("report", "unknown sort key '%s'; keys: %s; memory keys: %s%s%.*s",
			      r->keys[i].name, key_names(names, sizeof(names)),
			      ana_report_memkey_names(mnames, sizeof(mnames)),
			      fields.len ? "; tracepoint fields of this recording: " :
					   " (the recording has no tracepoint fields)",
			      (int)fields.len, fields.len ? (const char *)fields.data : "");
		rc = 2;
	}
	amb_buf_free(&fields);
	return rc;
}

/* "100ms", "1s", "500us", or nanoseconds, as perf's --time-quantum. */
static int parse_quantum(struct report *r, const char *arg)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	for (size_t i = 0; end != arg && *arg != '-' && v && i < AMB_ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit) && v <= UINT64_MAX / units[i].ns) {
			r->time_quantum = v * units[i].ns;
			return 0;
		}
	}
	amb_errmsg_set("not a time above 0 in ns, us, ms or s (100ms)");
	return -EINVAL;
}

/*
 * perf's --call-graph: comma-separated, in any order, the print type
 * (graph, or none), the threshold in percent, the order (caller or
 * callee), and the sort key and value perf takes (function, percent).
 */
static int parse_callgraph(struct report *r, const char *arg)
{
	char *copy = arg ? strdup(arg) : NULL, *tok, *save = NULL;
	bool limit = false;
	int err = 0;

	r->callgraph = true;
	r->callgraph_set = true;
	if (!arg)
		return 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(tok, "caller") || !strcmp(tok, "callee")) {
			r->caller = tok[5] == 'r';
			r->order_set = true;
		} else if (!strcmp(tok, "none")) {
			r->callgraph = false;
		} else if (!strcmp(tok, "graph") || !strcmp(tok, "function") ||
			   !strcmp(tok, "percent")) {
			continue;
		} else if ((v = strtod(tok, &end)), end != tok && !*end && !limit) {
			if (!(v >= 0 && v <= 100))
				err = -EINVAL;
			r->cg_limit = v;
			limit = true;
		} else {
			err = -EINVAL;
		}
	}
	free(copy);
	if (err)
		amb_errmsg_set("not caller, callee, graph or none, with a threshold in percent "
			       "(caller,5: callers first, branches of 5%% or more)");
	return err;
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
"usage: amber-analyze report [OPTIONS] [FILE]\n"
"\n"
"Samples aggregated by sort keys, sorted by overhead.  On a recording with\n"
"call chains (-g, --call-graph dwarf), children overhead and call graphs are\n"
"shown, as perf does (--no-children, -g none for self overhead alone).\n"
"\n"
"  -s, --sort KEYS        comm,pid,tid,dso,sym (symbol),srcline,srcfile,sym_size,\n"
"                         cpu,event,time,parent,trace, or tracepoint fields\n"
"                         (prev_comm, ...); default comm,dso,sym\n"
"  -F, --fields LIST      columns: overhead, overhead_children, sample, period,\n"
"                         and sort keys (--sort adds its keys after them)\n"
ANA_REPORT_MEMKEYS_HELP
"      --children         accumulate callers' overhead over callchains\n"
"      --no-children      self overhead only\n"
"  -g, --call-graph[=caller|callee|none[,PCT]]\n"
"                         call graph under each entry (default caller,0.5 with\n"
"                         children, callee,0.5 without)\n"
"      --max-stack N      use at most N frames of a stack (default 127)\n"
"      --no-inline        no inlined functions in call graphs\n"
"  -p, --parent REGEX     the parent key: the first caller matching REGEX\n"
"                         (default ^sys_|^do_page_fault); adds --sort parent\n"
"  -x, --exclude-other    only samples with a parent\n"
"      --ignore-callees REGEX  a sample belongs to the outermost function\n"
"                         matching REGEX; what it called is left out\n"
"      --time-quantum T   the time key's buckets: 100ms (default), 1s, 500us\n"
"      --hierarchy        entries grouped by their keys, level by level\n"
"                         (self overhead)\n"
"      --percentage absolute|relative\n"
"                         shares of all samples within --time (default), or\n"
"                         of those the other filters kept\n"
"  -T, --threads          also each thread's period per event\n"
"      --header           the recording's full header first\n"
"      --header-only      only the header\n"
"      --off-cpu          time off CPU instead of samples: each wait (switch-out\n"
"                         to switch-in) is a sample of its stack at switch-out\n"
"                         weighted in ns, in one table per state (R, S, D ...);\n"
"                         needs a recording made with amber-rec --off-cpu\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs (0-3,7)\n"
"      --dso LIST         only these shared objects\n"
"  -S, --sym LIST         only these symbols (also --symbols)\n"
"      --time RANGES      START,END with times as script prints them (309.76,\n"
"                         309.8), +SECONDS from the start (+0.1,+0.5) or\n"
"                         HH:MM:SS[.frac]; ranges separated by spaces; or\n"
"                         percentages of the span: 10%/2 (the 2nd tenth),\n"
"                         0%-10%,90%-100%\n"
"  -e, --event NAME       only this event (default: each event in turn)\n"
"      --percent-limit P  hide entries below P%\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"  -j, --jobs N           N threads: main + N-1 decoding (default: one per CPU)\n"
"      --json             JSON instead of text\n"
"      --stdio            text output (the only mode)\n";

enum {
	O_CHILDREN = 256, O_NO_CHILDREN, O_PLIMIT, O_JSON, O_STDIO, O_NO_INLINE, O_MAX_STACK,
	O_HEADER, O_HEADER_ONLY, O_HIERARCHY, O_PERCENTAGE, O_IGNORE_CALLEES, O_QUANTUM, O_OFF_CPU,
};

struct report_args {
	struct report *r;
	int argc;
	char **argv;
	const char **files;
};

/* Compile @pattern into @re; -EINVAL with regerror()'s words. */
static int compile_re(regex_t *re, bool *set, const char *pattern)
{
	char why[128];
	int err;

	if (*set)
		regfree(re);
	*set = false;
	err = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, re, why, sizeof(why));
		regfree(re);
		amb_errmsg_set("not a regular expression: %s", why);
		return -EINVAL;
	}
	*set = true;
	return 0;
}

static int report_option(void *ctx, int c, const char *arg)
{
	struct report_args *a = ctx;
	struct report *r = a->r;
	unsigned long v;
	char *end;

	switch (c) {
	case 's': r->sort = arg; return 0;
	case 'F': r->fields = arg; return 0;
	case O_CHILDREN: r->children = true; r->children_set = true; return 0;
	case O_NO_CHILDREN: r->children = false; r->children_set = true; return 0;
	case 'g':
		/* perf accepts "-g caller" as well as "-gcaller". */
		if (!arg && optind < a->argc && is_callgraph_spec(a->argv[optind]))
			arg = a->argv[optind++];
		return parse_callgraph(r, arg);
	case O_NO_INLINE: r->inline_frames = false; return 0;
	case O_MAX_STACK:
		v = strtoul(arg, &end, 10);
		if (end == arg || *end || !v || v > MAX_FRAMES || *arg == '-')
			return amb_errmsg_set("not a number of frames from 1 to %d", MAX_FRAMES),
			       -EINVAL;
		r->max_stack = (unsigned)v;
		return 0;
	case O_PLIMIT:
		r->percent_limit = strtod(arg, &end);
		if (end == arg || *end || !(r->percent_limit >= 0 && r->percent_limit <= 100)) {
			amb_errmsg_set("not a percentage from 0 to 100");
			return -EINVAL;
		}
		return 0;
	case O_PERCENTAGE:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute"))
			return amb_errmsg_set("neither absolute nor relative"), -EINVAL;
		r->relative = !strcmp(arg, "relative");
		return 0;
	case 'p':
		r->parent_pattern = arg;
		return compile_re(&r->parent_re, &r->parent_re_set, arg);
	case 'x': r->exclude_other = true; return 0;
	case O_IGNORE_CALLEES:
		r->ignore_pattern = arg;
		return compile_re(&r->ignore_re, &r->ignore_re_set, arg);
	case O_QUANTUM: return parse_quantum(r, arg);
	case O_HIERARCHY: r->hierarchy = true; return 0;
	case 'T': r->threads = true; return 0;
	case O_HEADER: r->header = true; return 0;
	case O_HEADER_ONLY: r->header = r->header_only = true; return 0;
	case 'S': return ana_filter_set(&r->opts.filter, ANA_FILTER_SYM, arg);
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
	struct amb_hashmap_slot *slot;
	size_t i;

	for (i = 0; r->hists && i < r->nr_hists; i++)
		hist_free(&r->hists[i]);
	free(r->hists);
	free(r->frames);
	free(r->cg_path);
	free(r->cg_names_tmp);
	free(r->stack_entries);
	free(r->stack_pos);
	free(r->cg_ends);
	memo_clear(&r->memos);
	amb_hashmap_free(&r->memos.map);
	free(r->memos.key);
	free(r->memos.by_chain);
	ana_report_memkeys_free(r);
	amb_hashmap_for_each(&r->threads_map, slot) {
		struct thread_total *tt = slot->value;

		free(tt->period);
		free(tt);
	}
	amb_hashmap_free(&r->threads_map);
	if (r->parent_re_set)
		regfree(&r->parent_re);
	if (r->ignore_re_set)
		regfree(&r->ignore_re);
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

/* True when the samples report reads carry call chains: -g or a stack
 * copy to unwind (--call-graph dwarf). */
static bool has_callchains(const struct report *r)
{
	for (size_t i = 0; i + 1 < r->nr_hists; i++) {
		const struct ana_event *e = r->hists[i].evt;

		if ((!r->opts.event || !strcmp(e->name, r->opts.event)) &&
		    (e->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER)))
			return true;
	}
	return false;
}

/* What the options leave open once the recording is known: children and
 * call graphs where it has call chains, as perf decides. */
static int settle_defaults(struct report *r)
{
	bool chains = has_callchains(r);

	if (r->hierarchy && r->children && r->children_set) {
		ana_cmd_error("report", "--hierarchy shows self overhead: not with --children");
		return 2;
	}
	if (!r->children_set)
		r->children = chains && !r->hierarchy;
	if (!r->callgraph_set)
		r->callgraph = chains;
	if (!r->order_set)
		r->caller = r->children;
	if (!r->columns)
		r->columns = (r->children ? COL_CHILDREN : 0) | COL_OVERHEAD | COL_SAMPLES |
			     COL_PERIOD;
	if ((r->columns & COL_CHILDREN) && !r->children) {
		ana_cmd_error("report", "-F overhead_children: only with --children");
		return 2;
	}
	if (r->callgraph && r->inline_frames)
		r->want |= ANA_SYM_INLINE;
	return check_field_keys(r);
}

int ana_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "fields", required_argument, NULL, 'F' },
		{ "children", no_argument, NULL, O_CHILDREN },
		{ "no-children", no_argument, NULL, O_NO_CHILDREN },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, O_MAX_STACK },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "parent", required_argument, NULL, 'p' },
		{ "exclude-other", no_argument, NULL, 'x' },
		{ "ignore-callees", required_argument, NULL, O_IGNORE_CALLEES },
		{ "time-quantum", required_argument, NULL, O_QUANTUM },
		{ "hierarchy", no_argument, NULL, O_HIERARCHY },
		{ "percentage", required_argument, NULL, O_PERCENTAGE },
		{ "threads", no_argument, NULL, 'T' },
		{ "header", no_argument, NULL, O_HEADER },
		{ "header-only", no_argument, NULL, O_HEADER_ONLY },
		{ "percent-limit", required_argument, NULL, O_PLIMIT },
		{ "json", no_argument, NULL, O_JSON },
		{ "stdio", no_argument, NULL, O_STDIO },
		{ "off-cpu", no_argument, NULL, O_OFF_CPU },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "report", usage, "s:F:g::i:p:xTS:", opts, 1, 1,
						  true };
	struct report r = {
		.cg_limit = 0.5, .inline_frames = true, .max_stack = 127,
		.time_quantum = 100000000, .fast_keys = true,
	};
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
	amb_errmsg_clear();
	err = (r.fields ? parse_fields(&r, r.fields) : 0);
	if (!err && (r.sort || !r.nr_keys))
		err = parse_sort(&r, r.sort ? r.sort : "comm,dso,sym");
	/* perf: --parent adds the parent key; -x needs one. */
	if (!err && (r.parent_pattern || r.exclude_other))
		err = add_key(&r, "parent");
	if (err) {
		ana_cmd_error("report", "bad --%s '%s': %s", r.fields && !r.sort ? "fields" : "sort",
			      r.fields && !r.sort ? r.fields : r.sort ? r.sort : "",
			      *amb_errmsg() ? amb_errmsg() : strerror(-err));
		return free_report(&r, 2);
	}
	for (i = 0; i < r.nr_keys; i++) {
		if (r.keys[i].kind == SK_FIELD || r.keys[i].kind == SK_TRACE)
			r.opts.tracepoints = true;
		if (r.keys[i].kind == SK_PARENT && !r.parent_re_set &&
		    compile_re(&r.parent_re, &r.parent_re_set, DEFAULT_PARENT))
			return free_report(&r, ana_cmd_fail("report", path, -EINVAL));
	}
	r.frames = malloc(MAX_FRAMES * sizeof(*r.frames));
	r.cg_path = malloc(MAX_FRAMES * sizeof(*r.cg_path));
	r.cg_names_tmp = malloc(MAX_FRAMES * sizeof(*r.cg_names_tmp));
	r.stack_entries = malloc(MAX_FRAMES * sizeof(*r.stack_entries));
	r.stack_pos = malloc(MAX_FRAMES * sizeof(*r.stack_pos));
	r.cg_ends = malloc(MAX_FRAMES * sizeof(*r.cg_ends));
	r.memos.key = malloc(MEMO_MAX_WORDS * sizeof(*r.memos.key));
	r.memo_on = r.fast_keys;
	if (r.memo_on && chain_memo_usable(&r))
		r.memos.by_chain = calloc(CHAIN_MEMOS, sizeof(*r.memos.by_chain));
	if (!r.frames || !r.cg_path || !r.cg_names_tmp || !r.stack_entries || !r.stack_pos ||
	    !r.cg_ends || !r.memos.key || (r.memo_on && chain_memo_usable(&r) && !r.memos.by_chain))
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
	rc = settle_defaults(&r);
	if (rc)
		return free_report(&r, rc);
	ana_out_init(&out, stdout);
	if (r.json)
		ana_out_no_cut(&out);
	if (!r.header_only) {
		ana_progress_init(&r.progress, "report");
		ana_pipeline_set_progress(r.p, tick, &r.progress);
		if (r.time)
			err = ana_offcpu_run(r.oc, process_sample, &r);
		else
			err = ana_pipeline_run(r.p, process_sample, NULL, &r);
		/* What the memos hold goes to the entries before anything reads them. */
		memo_clear(&r.memos);
		ana_progress_done(&r.progress);
		if (err < 0)
			return free_report(&r, ana_cmd_fail("report", path, err));
		ana_pipeline_get_stats(r.p, &st);
		r.samples_seen = st.samples;
		r.filtered = st.filtered;
		if (r.time)
			offcpu_counts(&r);
		for (i = 0; i < r.nr_hists; i++) {
			struct hist *h = &r.hists[i];

			h->total = ana_pipeline_event_period(r.p, h->evt, &h->total_samples);
			if (r.relative || h->total < h->period) {
				h->total = h->period;
				h->total_samples = h->samples;
			}
		}
	}
	ana_report_print_header(&r, &out);
	if (r.header_only) {
		if (r.json)
			ana_out_printf(&out, "}\n");
	} else {
		if (r.json)
			ana_out_printf(&out, ",\"events\":[");
		for (i = 0; i < r.nr_hists; i++)
			ana_report_print_hist(&r, &out, &r.hists[i], &first_json);
		if (r.json)
			ana_out_printf(&out, "]");
		if (r.threads)
			ana_report_print_threads(&r, &out);
		if (r.json)
			ana_out_printf(&out, "}\n");
		else if (!r.samples_seen)
			ana_out_printf(&out, "# no samples\n");
		else if (r.samples_seen == r.filtered)
			ana_out_printf(&out, "# all %" PRIu64 " samples were filtered out\n",
				       r.samples_seen);
	}
	err = ana_out_finish(&out);
	if (err) {
		ana_cmd_error("report", "writing the output: %s", strerror(-err));
		return free_report(&r, 1);
	}
	return free_report(&r, 0);
}

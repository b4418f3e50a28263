// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/report_keys.c - the sort keys of `amber-analyze report` and
 * the entries they select: --sort's names and their parsing, a sample's
 * key string (the keys' values joined by \x1f), its key identity (the
 * pointers and numbers those values come from, which find an entry again
 * without making the string), each event's histogram of entries, and the
 * call graph tree under an entry.
 *
 * The memory keys are report_memkeys.c's; cmd_report.c feeds samples to
 * the entries, report_memo.c remembers what a stack resolved to.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
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

void ana_report_hist_free(struct hist *h)
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

/* Add @period along the path @steps[0..n) below @root, a new node taking
 * its step's name and order; the path's last node in *@end (NULL for
 * n = 0), to add to again with ana_report_cg_add_again(). */
int ana_report_cg_add(struct cg_node **root, const struct cg_step *steps, unsigned n,
		      uint64_t period, struct cg_node **end)
{
	struct cg_node *parent = NULL;
	unsigned i;

	*end = NULL;
	for (i = 0; i < n; i++) {
		struct cg_node **pp, *c;

		/* Interned names compare by pointer. */
		for (pp = root; *pp && (*pp)->name != steps[i].name; pp = &(*pp)->next)
			;
		c = *pp;
		if (!c) {
			c = calloc(1, sizeof(*c));
			if (!c)
				return -ENOMEM;
			c->name = steps[i].name;
			c->order = steps[i].order;
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

/* Add @period along the path ana_report_cg_add() ended at @end, again. */
void ana_report_cg_add_again(struct cg_node *end, uint64_t period)
{
	for (; end; end = end->parent)
		end->period += period;
}

/* ---- keys -------------------------------------------------------------------- */

/*
 * Append the @n bytes at @s and the separator to the key.  A value never
 * holds the separator itself, nor KEY_HIDDEN: one that does (a hostile
 * comm) is kept escaped, as text output shows it (amb_buf_put_text(),
 * common/util.h).
 */
static int key_put_n(struct amb_buf *b, const char *s, size_t n)
{
	if (memchr(s, KEY_SEP, n) || memchr(s, KEY_HIDDEN, n))
		return amb_buf_put_text(b, s, n) ? -ENOMEM : amb_buf_append(b, (char[]){ KEY_SEP }, 1);
	if (amb_buf_reserve(b, n + 1))
		return -ENOMEM;
	memcpy(b->data + b->len, s, n);
	b->data[b->len + n] = KEY_SEP;
	b->len += n + 1;
	return 0;
}

/*
 * The ELF's name of frame @f's symbol when the name shown is another, else
 * NULL.  Two overloads, ns::work(long) and ns::work(int), both show as
 * "ns::work": perf's report has a row for each symbol, and so does this
 * one, keyed by the symbol's own name.
 */
static const char *sym_hidden(const struct frame *f)
{
	return f->inlined ? NULL : ana_loc_mangled(&f->loc);
}

/* Append @s and the separator to the key. */
static int key_put(struct amb_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (memchr(s, KEY_SEP, n) || memchr(s, KEY_HIDDEN, n))
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
	case SK_SYM: {
		const char *hidden = sym_hidden(f);
		size_t n = strlen(f->name);

		if (amb_buf_append(b, loc->kernel ? "[k] " : "[.] ", 4))
			return -ENOMEM;
		/* A name that holds the mark is escaped whole (key_put_n()). */
		if (!hidden || memchr(f->name, KEY_HIDDEN, n))
			return key_put_n(b, f->name, n);
		if (amb_buf_append(b, f->name, n) || amb_buf_append(b, (char[]){ KEY_HIDDEN }, 1))
			return -ENOMEM;
		return key_put(b, hidden);
	}
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
void ana_report_key_identity(const struct report *r, const struct ana_sample *smp,
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
		case SK_SYM_SIZE: {
			/* A symbol's name string is its own (symbol tables,
			 * KSYMS): it names its size too.  The ELF's name keeps
			 * overloads shown alike apart (sym_hidden()). */
			const char *hidden = f ? sym_hidden(f) : NULL;

			id[0] = f ? (uintptr_t)f->name : 0;
			id[1] = hidden ? (uintptr_t)hidden : f ? f->loc.kernel : 0;
			break;
		}
		case SK_CPU:
			id[0] = smp->cpu;
			id[1] = 0;
			break;
		case SK_EVENT:
			id[0] = (uintptr_t)smp->evt;
			id[1] = 0;
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
struct hist_entry *ana_report_hist_find(struct report *r, struct hist *h,
					const struct ana_sample *smp, struct ana_thread *t,
					const struct frame *f)
{
	uint64_t id[2 * AMB_ARRAY_SIZE(r->keys)], hash = 0;
	struct id_key k = { h, id, r->id_words };
	struct hist_entry *e;

	if (r->fast_keys) {
		ana_report_key_identity(r, smp, t, f, id);
		hash = XXH3_64bits(id, r->id_words * sizeof(*id));
		e = amb_hashmap_find(&h->by_id, hash, id_eq, &k);
		if (e)
			return e;
	}
	if (build_key(r, smp, t, f))
		return NULL;
	e = hist_get(h, (const char *)r->key.data, r->key.len);
	if (!e)
		return NULL;
	if (!e->tid_set) {
		e->tid = smp->tid;
		e->tid_set = true;
	}
	if (r->fast_keys && id_add(h, r->id_words, id, hash, e))
		return NULL;
	return e;
}

/* ---- --sort ------------------------------------------------------------------- */

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
int ana_report_add_key(struct report *r, const char *tok)
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

int ana_report_parse_sort(struct report *r, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = ana_report_add_key(r, tok);
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
int ana_report_check_field_keys(struct report *r)
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

// SPDX-License-Identifier: MIT
/*
 * analyze/replay/session.c - an open recording: its tables and its records
 * in order.
 *
 * Opening loads the small blocks (META, TOPOLOGY, TRACEFS, EVENT_ATTR,
 * BUILDID; FORMAT.md §5) into memory; KSYMS, megabytes of text that a
 * user-only report never needs, is decoded on the first ana_session_ksyms().
 * ana_session_for_each() then streams the records: SYNTH blocks first in
 * file order, then a k-way merge of the RING streams (one per CPU) on record
 * time.  Each stream holds one decoded block and one parser, so memory
 * grows with the number of CPUs, never with the length of the recording.
 *
 * With more than one job (ana_session_set_jobs(): N jobs are the caller's
 * thread and N - 1 workers) the workers of session_pool.c load and decode
 * RING blocks ahead of the merge, in about the order it will need them,
 * while the caller's thread parses and delivers records: each worker
 * decodes one block and has at most three more waiting, and the records,
 * their order and every warning are those of the single-threaded run.
 *
 * A block of the sample codec also tells which of its samples share a
 * call chain (amb_payload_chains()): the cursor hands that on as each
 * sample's chain_key, so that commands can reuse what they made of a
 * chain without comparing it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/replay/perf_record.h"
#include "analyze/replay/replay.h"
#include "analyze/replay/session_pool.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

/* Key/value pairs of META, TOPOLOGY or TRACEFS; values are NUL-terminated. */
struct kv_entry {
	char *key;
	char *val;
	size_t len;
};

struct kv_map {
	struct kv_entry *v;          /* in the order first written */
	size_t n, cap;
	struct amb_hashmap by_key;   /* key -> index in @v + 1 */
};

struct id_entry {
	uint64_t id;
	uint32_t event;
};

/*
 * KSYMS text: the decoded block itself when there is one (the reader
 * NUL-terminates payloads), else the blocks joined in @joined.
 */
struct ksyms_text {
	bool loaded;
	struct amb_payload *pl;
	const char *text;
	size_t len;
	struct amb_buf joined;
};

struct ana_session {
	struct amb_reader *r;
	char *path;
	bool swap;
	struct kv_map meta, topo, tracefs;
	struct ksyms_text *ksyms;      /* decoded on first use: see ksyms_load() */
	struct ana_event *events;
	size_t nr_events, cap_events;
	struct id_entry *ids;          /* sorted by id */
	size_t nr_ids;
	struct ana_buildid *bids;
	size_t nr_bids, cap_bids;
	struct ana_counts *counts;
	size_t nr_counts, cap_counts;
	struct ana_session_stats stats;
	unsigned jobs;                 /* 0: one per online CPU */
	struct block_pool *pool;       /* during a parallel ana_session_for_each() */
};

static void kv_free(struct kv_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].val);
	}
	free(m->v);
	amb_hashmap_free(&m->by_key);
	memset(m, 0, sizeof(*m));
}

/* A key being looked up: not NUL-terminated in a payload. */
struct kv_key {
	const struct kv_map *m;
	const char *key;
	size_t len;
};

static bool kv_eq(uint64_t stored, const void *key)
{
	const struct kv_key *k = key;
	const char *s = k->m->v[stored].key;

	return strlen(s) == k->len && !memcmp(s, k->key, k->len);
}

static struct kv_entry *kv_find(const struct kv_map *m, const char *key, size_t klen,
				uint64_t *hash)
{
	struct kv_key k = { m, key, klen };
	uintptr_t i;

	*hash = XXH3_64bits(key, klen);
	i = (uintptr_t)amb_hashmap_find(&m->by_key, *hash, kv_eq, &k);
	return i ? &m->v[i - 1] : NULL;
}

static char *dup_n(const void *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* A later pair replaces an earlier one with the same key (FORMAT.md §5). */
static int kv_set(struct kv_map *m, const struct amb_kv *kv)
{
	uint64_t hash;
	struct kv_entry *e = kv_find(m, kv->key, kv->key_len, &hash);
	char *val = dup_n(kv->val, kv->val_len);

	if (!val)
		return -ENOMEM;
	if (e) {
		free(e->val);
		e->val = val;
		e->len = kv->val_len;
		return 0;
	}
	if (amb_ensure_cap((void **)&m->v, &m->cap, sizeof(*m->v), m->n + 1))
		goto nomem;
	e = &m->v[m->n];
	e->key = dup_n(kv->key, kv->key_len);
	if (!e->key)
		goto nomem;
	if (amb_hashmap_add(&m->by_key, hash, m->n, (void *)(uintptr_t)(m->n + 1))) {
		free(e->key);
		goto nomem;
	}
	e->val = val;
	e->len = kv->val_len;
	m->n++;
	return 0;
nomem:
	free(val);
	return -ENOMEM;
}

static const char *kv_get(const struct kv_map *m, const char *key, size_t *len)
{
	uint64_t hash;
	const struct kv_entry *e = kv_find(m, key, strlen(key), &hash);

	if (len)
		*len = e ? e->len : 0;
	return e ? e->val : NULL;
}

/* Where a block is, for messages: "block 12 at offset 81920". */
static void block_where(const struct amb_block_info *bi, char *buf, size_t n)
{
	snprintf(buf, n, "block %llu at offset %llu", (unsigned long long)bi->seq,
		 (unsigned long long)bi->offset);
}

static int load_kv(struct kv_map *m, const struct amb_block_info *bi, const void *data,
		   size_t len)
{
	struct amb_cursor c;
	struct amb_kv kv;
	char where[64];
	int ret;

	amb_cursor_init(&c, data, len);
	while ((ret = amb_kv_next(&c, &kv)) > 0) {
		ret = kv_set(m, &kv);
		if (ret)
			return ret;
	}
	if (ret < 0) {
		block_where(bi, where, sizeof(where));
		amb_warn("%s: %s pair at payload offset %zu: %s; rest of the block ignored",
			 where, amb_block_type_name(bi->type), c.pos, amb_strerror(ret));
	}
	return 0;
}

static int load_events(struct ana_session *s, const struct amb_block_info *bi,
		       const void *data, size_t len)
{
	struct amb_event_entry e;
	struct amb_cursor c;
	char where[64];
	int ret;

	amb_cursor_init(&c, data, len);
	while ((ret = amb_event_next(&c, &e)) > 0) {
		struct ana_event *ev;

		if (amb_ensure_cap((void **)&s->events, &s->cap_events, sizeof(*s->events),
				   s->nr_events + 1))
			return -ENOMEM;
		ev = &s->events[s->nr_events];
		memset(ev, 0, sizeof(*ev));
		ana_attr_to_host(&ev->attr, e.attr, e.attr_size, s->swap);
		ev->index = (uint32_t)s->nr_events;
		ev->leader = e.leader;
		ev->flags = e.flags;
		ev->tracepoint = ev->attr.type == PERF_TYPE_TRACEPOINT;
		ev->name = dup_n(e.name, e.name_len);
		ev->ids = calloc(e.nr_ids ? e.nr_ids : 1, sizeof(*ev->ids));
		s->nr_events++;
		if (!ev->name || !ev->ids)
			return -ENOMEM;
		for (uint32_t i = 0; i < e.nr_ids; i++)
			ev->ids[i] = amb_get_le64(e.ids + 8 * (size_t)i);
		ev->nr_ids = e.nr_ids;
	}
	if (ret < 0) {
		block_where(bi, where, sizeof(where));
		amb_warn("%s: event entry at payload offset %zu: %s; rest of the block ignored",
			 where, c.pos, amb_strerror(ret));
	}
	return 0;
}

static int load_buildids(struct ana_session *s, const struct amb_block_info *bi,
			 const void *data, size_t len)
{
	struct amb_buildid_entry e;
	struct amb_cursor c;
	char where[64];
	int ret;

	amb_cursor_init(&c, data, len);
	while ((ret = amb_buildid_next(&c, &e)) > 0) {
		struct ana_buildid *b;

		if (amb_ensure_cap((void **)&s->bids, &s->cap_bids, sizeof(*s->bids), s->nr_bids + 1))
			return -ENOMEM;
		b = &s->bids[s->nr_bids];
		memset(b, 0, sizeof(*b));
		b->path = dup_n(e.path, e.path_len);
		if (!b->path)
			return -ENOMEM;
		s->nr_bids++;
		b->build_id_len = (uint8_t)AMB_MIN(e.build_id_len, sizeof(b->build_id));
		memcpy(b->build_id, e.build_id, b->build_id_len);
		b->kind = e.kind;
	}
	if (ret < 0) {
		block_where(bi, where, sizeof(where));
		amb_warn("%s: build-id entry at payload offset %zu: %s; rest of the block ignored",
			 where, c.pos, amb_strerror(ret));
	}
	return 0;
}

/* FORMAT.md §5.4: a block's entries; the window and run are its header's. */
static int load_counts(struct ana_session *s, const struct amb_block_info *bi,
		       const void *data, size_t len)
{
	struct amb_count_entry e;
	struct ana_counts *b;
	struct amb_cursor c;
	size_t cap = 0;
	char where[64];
	int ret;

	if (amb_ensure_cap((void **)&s->counts, &s->cap_counts, sizeof(*s->counts),
			   s->nr_counts + 1))
		return -ENOMEM;
	b = &s->counts[s->nr_counts++];
	memset(b, 0, sizeof(*b));
	b->run = bi->stream == AMB_STREAM_NONE ? 0 : bi->stream;
	b->first_time = bi->first_time;
	b->last_time = bi->last_time;
	amb_cursor_init(&c, data, len);
	while ((ret = amb_count_next(&c, &e)) > 0) {
		if (amb_ensure_cap((void **)&b->v, &cap, sizeof(*b->v), b->n + 1))
			return -ENOMEM;
		b->v[b->n++] = e;
	}
	if (ret < 0) {
		block_where(bi, where, sizeof(where));
		amb_warn("%s: counts entry at payload offset %zu: %s; rest of the block ignored",
			 where, c.pos, amb_strerror(ret));
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

static int build_id_map(struct ana_session *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nr_events; i++)
		n += s->events[i].nr_ids;
	s->ids = calloc(n ? n : 1, sizeof(*s->ids));
	if (!s->ids)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_events; i++)
		for (uint32_t j = 0; j < s->events[i].nr_ids; j++)
			s->ids[s->nr_ids++] = (struct id_entry){ s->events[i].ids[j], (uint32_t)i };
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	return 0;
}

/*
 * Keep the KSYMS text of @data: megabytes, so the first block's payload is
 * kept as it is (*@pl is taken over and replaced by a new one); a second
 * block makes a joined copy of both.
 */
static int ksyms_take(struct ksyms_text *kt, struct amb_payload **pl, const void *data,
		      size_t len)
{
	struct amb_buf *j = &kt->joined;

	if (!kt->text) {
		struct amb_payload *fresh = amb_payload_new();

		if (!fresh)
			return -ENOMEM;
		kt->pl = *pl;
		*pl = fresh;
		kt->text = data;
		kt->len = len;
		return 0;
	}
	if (!j->len && amb_buf_append(j, kt->text, kt->len))
		return -ENOMEM;
	/* Joined text stays NUL-terminated, the NUL not counted. */
	if (amb_buf_reserve(j, len + 1))
		return -ENOMEM;
	memcpy(j->data + j->len, data, len);
	j->len += len;
	j->data[j->len] = '\0';
	kt->text = (const char *)j->data;
	kt->len = j->len;
	amb_payload_free(kt->pl);
	kt->pl = NULL;
	return 0;
}

/*
 * Decode the KSYMS blocks of @s into s->ksyms, once.  A block that does not
 * load is warned about and skipped, as at open; running out of memory is
 * too, leaving the text without that block, since the getter that asks
 * cannot fail.
 */
static void ksyms_load(const struct ana_session *s)
{
	const struct amb_block_filter f = { AMB_BLOCK_KSYMS, -1, 0, 0 };
	struct ksyms_text *kt = s->ksyms;
	struct amb_payload *pl;
	size_t i;

	if (kt->loaded)
		return;
	kt->loaded = true;
	pl = amb_payload_new();
	if (!pl) {
		amb_warn("%s: KSYMS: out of memory; kernel symbols not loaded", s->path);
		return;
	}
	amb_reader_for_each_block(s->r, &f, i) {
		const void *data;
		size_t len;

		if (amb_reader_load(s->r, i, pl, &data, &len)) {
			amb_warn("%s: %s; block skipped", s->path, amb_payload_errmsg(pl));
			continue;
		}
		if (ksyms_take(kt, &pl, data, len)) {
			amb_warn("%s: KSYMS block %zu: out of memory; it and later ones skipped",
				 s->path, i);
			break;
		}
	}
	amb_payload_free(pl);
}

static void ksyms_free(struct ksyms_text *kt)
{
	if (!kt)
		return;
	amb_payload_free(kt->pl);
	amb_buf_free(&kt->joined);
	free(kt);
}

static int load_tables(struct ana_session *s)
{
	struct amb_payload *pl = amb_payload_new();
	size_t n = amb_reader_block_count(s->r);
	int err = 0;

	if (!pl)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		const struct amb_block_info *bi = amb_reader_block(s->r, i);
		const void *data;
		size_t len;

		switch (bi->type) {
		case AMB_BLOCK_META:
		case AMB_BLOCK_TOPOLOGY:
		case AMB_BLOCK_TRACEFS:
		case AMB_BLOCK_EVENT_ATTR:
		case AMB_BLOCK_BUILDID:
		case AMB_BLOCK_COUNTS:
			break;
		default:
			continue;
		}
		err = amb_reader_load(s->r, i, pl, &data, &len);
		if (err) {
			amb_warn("%s: %s; block skipped", s->path, amb_payload_errmsg(pl));
			err = 0;
			continue;
		}
		switch (bi->type) {
		case AMB_BLOCK_META:
			err = load_kv(&s->meta, bi, data, len);
			break;
		case AMB_BLOCK_TOPOLOGY:
			err = load_kv(&s->topo, bi, data, len);
			break;
		case AMB_BLOCK_TRACEFS:
			err = load_kv(&s->tracefs, bi, data, len);
			break;
		case AMB_BLOCK_EVENT_ATTR:
			err = load_events(s, bi, data, len);
			break;
		case AMB_BLOCK_BUILDID:
			err = load_buildids(s, bi, data, len);
			break;
		case AMB_BLOCK_COUNTS:
			err = load_counts(s, bi, data, len);
			break;
		}
	}
	if (!err)
		err = build_id_map(s);
	amb_payload_free(pl);
	return err;
}

int ana_session_open(const char *path, struct ana_session **out)
{
	struct ana_session *s;
	amb_warn_fn warn;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->path = strdup(path);
	s->ksyms = calloc(1, sizeof(*s->ksyms));
	if (!s->path || !s->ksyms) {
		err = -ENOMEM;
		goto out;
	}
	/* The reader's problems are warned about once, below, with the
	 * file's name: not also as the reader meets them. */
	warn = amb_set_warn(NULL, NULL);
	err = amb_reader_open(path, 0, &s->r);
	amb_set_warn(warn, NULL);
	if (err == -AMB_E_MAGIC)
		ana_perfdata_hint(path);
	if (err)
		goto out;
	for (size_t i = 0; i < amb_reader_problem_count(s->r); i++)
		amb_warn("%s: %s", path, amb_reader_problem(s->r, i)->msg);
	s->swap = (amb_reader_header(s->r)->producer_endian == AMB_ENDIAN_LITTLE) !=
		  amb_host_is_le();
	err = load_tables(s);
out:
	if (err) {
		ana_session_close(s);
		return err;
	}
	*out = s;
	return 0;
}

void ana_session_close(struct ana_session *s)
{
	if (!s)
		return;
	amb_reader_close(s->r);
	kv_free(&s->meta);
	kv_free(&s->topo);
	kv_free(&s->tracefs);
	ksyms_free(s->ksyms);
	for (size_t i = 0; i < s->nr_events; i++) {
		free(s->events[i].name);
		free(s->events[i].ids);
	}
	free(s->events);
	free(s->ids);
	for (size_t i = 0; i < s->nr_bids; i++)
		free(s->bids[i].path);
	free(s->bids);
	for (size_t i = 0; i < s->nr_counts; i++)
		free(s->counts[i].v);
	free(s->counts);
	free(s->path);
	free(s);
}

struct amb_reader *ana_session_reader(struct ana_session *s)
{
	return s->r;
}

const char *ana_session_meta(const struct ana_session *s, const char *key)
{
	return kv_get(&s->meta, key, NULL);
}

size_t ana_session_meta_count(const struct ana_session *s)
{
	return s->meta.n;
}

const char *ana_session_meta_at(const struct ana_session *s, size_t i, const char **val)
{
	if (i >= s->meta.n)
		return NULL;
	*val = s->meta.v[i].val;
	return s->meta.v[i].key;
}

const char *ana_session_topology(const struct ana_session *s, const char *key)
{
	return kv_get(&s->topo, key, NULL);
}

size_t ana_session_topology_count(const struct ana_session *s)
{
	return s->topo.n;
}

const char *ana_session_topology_at(const struct ana_session *s, size_t i, const char **val)
{
	if (i >= s->topo.n)
		return NULL;
	*val = s->topo.v[i].val;
	return s->topo.v[i].key;
}

const char *ana_session_tracefs(const struct ana_session *s, const char *key, size_t *len)
{
	return kv_get(&s->tracefs, key, len);
}

/* Logically const: the text is decoded on the first call (ksyms_load()). */
const char *ana_session_ksyms(const struct ana_session *s, size_t *len)
{
	const struct ksyms_text *kt = s->ksyms;

	ksyms_load(s);
	if (len)
		*len = kt->len;
	return kt->len ? kt->text : NULL;
}

size_t ana_session_event_count(const struct ana_session *s)
{
	return s->nr_events;
}

const struct ana_event *ana_session_event(const struct ana_session *s, size_t i)
{
	return i < s->nr_events ? &s->events[i] : NULL;
}

const struct ana_event *ana_session_event_by_id(const struct ana_session *s, uint64_t id)
{
	size_t lo = 0, hi = s->nr_ids;

	/* Lower bound, so that an id listed twice maps to its first event. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nr_ids && s->ids[lo].id == id)
		return &s->events[s->ids[lo].event];
	return NULL;
}

size_t ana_session_counts_count(const struct ana_session *s)
{
	return s->nr_counts;
}

const struct ana_counts *ana_session_counts(const struct ana_session *s, size_t i)
{
	return &s->counts[i];
}

size_t ana_session_buildid_count(const struct ana_session *s)
{
	return s->nr_bids;
}

const struct ana_buildid *ana_session_buildid(const struct ana_session *s, size_t i)
{
	return i < s->nr_bids ? &s->bids[i] : NULL;
}

bool ana_session_swapped(const struct ana_session *s)
{
	return s->swap;
}

void ana_session_set_jobs(struct ana_session *s, unsigned n)
{
	s->jobs = n;
}

void ana_session_get_stats(const struct ana_session *s, struct ana_session_stats *st)
{
	*st = s->stats;
}

/* ---- record iteration ------------------------------------------------------ */

/*
 * One source of records: the blocks of one RING stream in file order (or the
 * SYNTH blocks), one loaded at a time, and its next record already parsed.
 */
struct stream_cur {
	struct amb_block_filter filter;
	size_t block;                  /* index of the loaded block, SIZE_MAX at end */
	struct amb_payload *pl;        /* one job: the stream's own decode state */
	const size_t *jobs;            /* more: the stream's blocks in the pool's */
	size_t nr_jobs, next_job;      /* schedule, and the next to take */
	struct block_slot *slot;       /* the block taken from the pool */
	struct ana_parser *parser;
	const uint8_t *data;
	size_t len, pos;
	const uint32_t *chains;        /* the block's chain per record, or NULL */
	size_t nr_chains, rec_no;      /* ... and the record parsed next */
	uint32_t stream;               /* the loaded block's */
	struct ana_record rec;         /* the next record, valid while !done */
	uint64_t key;                  /* merge key: times never go back in a stream */
	bool done;
};

/* The parsers keep the last answer: records come in runs of one id. */
static const struct ana_event *lookup_cb(void *ctx, uint64_t id)
{
	return ana_session_event_by_id(ctx, id);
}

static inline __attribute__((always_inline)) void count_record(struct ana_session *s,
							       const struct ana_record *rec)
{
	struct ana_session_stats *st = &s->stats;

	st->records++;
	if (rec->type == PERF_RECORD_SAMPLE)
		st->samples++;
	else if (rec->type == PERF_RECORD_LOST)
		st->lost += rec->u.lost.lost;
	else if (rec->type == PERF_RECORD_LOST_SAMPLES)
		st->lost_samples += rec->u.lost_samples.lost;
	if (rec->time) {
		if (!st->first_time || rec->time < st->first_time)
			st->first_time = rec->time;
		if (rec->time > st->last_time)
			st->last_time = rec->time;
	}
}

/* Load the next block of @c that decodes; false at the end of the stream. */
static bool cur_next_block(struct ana_session *s, struct stream_cur *c)
{
	while (c->jobs) {
		struct block_pool *bp = s->pool;
		size_t k;

		ana_block_pool_put(bp, c->slot);
		c->slot = NULL;
		if (c->next_job == c->nr_jobs) {
			c->block = SIZE_MAX;
			return false;
		}
		k = c->jobs[c->next_job++];
		c->block = ana_block_pool_block(bp, k);
		c->slot = ana_block_pool_take(bp, k);
		if (!c->slot) {
			amb_warn("%s: block %zu: out of memory; block skipped", s->path, c->block);
			continue;
		}
		if (c->slot->err) {
			amb_warn("%s: %s; block skipped", s->path, amb_payload_errmsg(c->slot->pl));
			continue;
		}
		c->data = c->slot->data;
		c->len = c->slot->len;
		c->pos = 0;
		c->chains = amb_payload_chains(c->slot->pl, &c->nr_chains);
		c->rec_no = 0;
		c->stream = amb_reader_block(s->r, c->block)->stream;
		return true;
	}
	for (;;) {
		const void *data;
		size_t len;
		int err;

		c->block = amb_reader_next(s->r, &c->filter,
					   c->block == SIZE_MAX ? 0 : c->block + 1);
		if (c->block == SIZE_MAX)
			return false;
		err = amb_reader_load(s->r, c->block, c->pl, &data, &len);
		if (err) {
			amb_warn("%s: %s; block skipped", s->path, amb_payload_errmsg(c->pl));
			continue;
		}
		c->data = data;
		c->len = len;
		c->pos = 0;
		c->chains = amb_payload_chains(c->pl, &c->nr_chains);
		c->rec_no = 0;
		c->stream = amb_reader_block(s->r, c->block)->stream;
		return true;
	}
}

/*
 * The chain_key of the sample c->rec (struct ana_sample): the block and the
 * index the codec gave its chain there, or 0 when the block's codec did
 * not tell.  Block indexes are unique in the file, so keys of different
 * blocks differ.
 */
static uint64_t chain_key(const struct stream_cur *c)
{
	uint32_t ci;

	if (c->rec_no >= c->nr_chains || (ci = c->chains[c->rec_no]) == UINT32_MAX)
		return 0;
	return (uint64_t)(c->block + 1) << 32 | ci;
}

/* The record at c->pos did not parse (@err): said, and the rest of its
 * block skipped.  Out of line: cur_advance() stays small. */
static __attribute__((noinline)) void cur_bad_record(struct ana_session *s, struct stream_cur *c,
						      int err)
{
	const struct amb_block_info *bi = amb_reader_block(s->r, c->block);
	char where[64];

	block_where(bi, where, sizeof(where));
	amb_warn("%s: %s: record at payload offset %zu: %s (%s); rest of the block skipped",
		 s->path, where, c->pos, amb_strerror(err), ana_parser_errmsg(c->parser));
	s->stats.bad_records++;
	c->pos = c->len;
}

/*
 * Parse the next record of @c into c->rec, moving to later blocks as needed;
 * sets c->done at the end.  A record that does not parse is reported once
 * per block and the rest of its block is skipped: after a bad size nothing
 * later in the block can be trusted to start on a record boundary.
 */
static inline __attribute__((always_inline)) void cur_advance_in(struct ana_session *s,
							    struct stream_cur *c)
{
	for (;;) {
		int ret;

		if (c->block == SIZE_MAX || c->pos >= c->len) {
			if (!cur_next_block(s, c)) {
				c->done = true;
				return;
			}
			continue;
		}
		ret = ana_parse_record(c->parser, c->data + c->pos, c->len - c->pos, &c->rec);
		if (ret < 0) {
			cur_bad_record(s, c, ret);
			continue;
		}
		c->pos += (size_t)ret;
		if (c->rec.type == PERF_RECORD_SAMPLE)
			c->rec.u.sample.chain_key = chain_key(c);
		c->rec_no++;
		c->rec.stream = c->stream;
		c->rec.synthesized = c->filter.type == AMB_BLOCK_SYNTH;
		if (c->rec.synthesized)
			c->rec.stream = AMB_STREAM_NONE;
		else if (c->rec.cpu == UINT32_MAX)
			c->rec.cpu = c->rec.stream;
		c->key = AMB_MAX(c->key, c->rec.time);
		return;
	}
}

/* cur_advance_in() out of line, for the cursors' first record and the
 * synthesized records. */
static void cur_advance(struct ana_session *s, struct stream_cur *c)
{
	cur_advance_in(s, c);
}

/* A cursor over the blocks of @type and @stream; with @jobs (@nr_jobs of
 * them), those the pool decodes. */
static int cur_init(struct ana_session *s, struct stream_cur *c, int type, int64_t stream,
		    const size_t *jobs, size_t nr_jobs)
{
	const struct ana_event *first = s->nr_events ? &s->events[0] : NULL;

	memset(c, 0, sizeof(*c));
	c->filter = (struct amb_block_filter){ type, stream, 0, 0 };
	c->block = SIZE_MAX;
	c->jobs = jobs;
	c->nr_jobs = nr_jobs;
	c->pl = jobs ? NULL : amb_payload_new();
	c->parser = ana_parser_new(s->swap, lookup_cb, s, first);
	if ((!jobs && !c->pl) || !c->parser)
		return -ENOMEM;
	/* The block a record is in stays loaded until the cursor parses the
	 * next one, and c->rec is the cursor's own. */
	ana_parser_set_borrow(c->parser, true);
	cur_advance(s, c);
	return 0;
}

static void cur_release(struct ana_session *s, struct stream_cur *c)
{
	if (c->slot)
		ana_block_pool_put(s->pool, c->slot);
	c->slot = NULL;
	amb_payload_free(c->pl);
	ana_parser_free(c->parser);
	c->pl = NULL;
	c->parser = NULL;
}

/* Min-heap of stream cursors on (key, stream position): ties keep CPU order. */
static bool heap_less(struct stream_cur *const *h, size_t a, size_t b)
{
	if (h[a]->key != h[b]->key)
		return h[a]->key < h[b]->key;
	return h[a] < h[b];
}

static inline __attribute__((always_inline)) void heap_down(struct stream_cur **h, size_t n,
							    size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct stream_cur *t;

		if (l < n && heap_less(h, l, m))
			m = l;
		if (l + 1 < n && heap_less(h, l + 1, m))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct stream ids of the RING blocks, sorted; *n set. */
static uint32_t *ring_streams(struct ana_session *s, size_t *n)
{
	const struct amb_block_filter f = { AMB_BLOCK_RING, -1, 0, 0 };
	size_t cnt = 0, i, k = 0;
	uint32_t *ids;

	amb_reader_for_each_block(s->r, &f, i)
		cnt++;
	ids = calloc(cnt ? cnt : 1, sizeof(*ids));
	if (!ids)
		return NULL;
	amb_reader_for_each_block(s->r, &f, i)
		ids[k++] = amb_reader_block(s->r, i)->stream;
	qsort(ids, cnt, sizeof(*ids), cmp_u32);
	*n = 0;
	for (i = 0; i < cnt; i++)
		if (!i || ids[i] != ids[i - 1])
			ids[(*n)++] = ids[i];
	return ids;
}

int ana_session_for_each(struct ana_session *s, ana_record_fn fn, void *ctx)
{
	struct stream_cur synth = { 0 }, *curs = NULL, **heap = NULL;
	size_t nstreams = 0, nheap = 0, *first = NULL, *count = NULL;
	unsigned jobs = ana_block_pool_jobs(s->jobs);
	uint32_t *streams = NULL;
	int ret;

	memset(&s->stats, 0, sizeof(s->stats));
	ret = cur_init(s, &synth, AMB_BLOCK_SYNTH, -1, NULL, 0);
	while (!ret && !synth.done) {
		count_record(s, &synth.rec);
		ret = fn(ctx, &synth.rec);
		if (!ret)
			cur_advance(s, &synth);
	}
	if (ret)
		goto out;

	streams = ring_streams(s, &nstreams);
	curs = calloc(nstreams ? nstreams : 1, sizeof(*curs));
	heap = calloc(nstreams ? nstreams : 1, sizeof(*heap));
	first = calloc(nstreams ? nstreams : 1, sizeof(*first));
	count = calloc(nstreams ? nstreams : 1, sizeof(*count));
	if (!streams || !curs || !heap || !first || !count) {
		ret = -ENOMEM;
		goto out;
	}
	/* -j N: this thread and N - 1 workers.  Without memory or threads
	 * for a pool, this thread decodes alone. */
	if (jobs > 1 && nstreams)
		s->pool = ana_block_pool_new(s->r, streams, nstreams, jobs - 1, first, count);
	for (size_t i = 0; i < nstreams; i++) {
		ret = cur_init(s, &curs[i], AMB_BLOCK_RING, streams[i],
			       s->pool ? ana_block_pool_stream_jobs(s->pool) + first[i] : NULL,
			       s->pool ? count[i] : 0);
		if (ret) {
			nstreams = i + 1;
			goto out;
		}
		if (!curs[i].done)
			heap[nheap++] = &curs[i];
	}
	for (size_t i = nheap; i-- > 0;)
		heap_down(heap, nheap, i);

	while (nheap) {
		struct stream_cur *c = heap[0];

		count_record(s, &c->rec);
		ret = fn(ctx, &c->rec);
		if (ret)
			goto out;
		cur_advance_in(s, c);
		if (c->done) {
			cur_release(s, c);
			heap[0] = heap[--nheap];
		}
		heap_down(heap, nheap, 0);
	}
out:
	cur_release(s, &synth);
	if (curs)
		for (size_t i = 0; i < nstreams; i++)
			cur_release(s, &curs[i]);
	ana_block_pool_free(s->pool);
	s->pool = NULL;
	free(curs);
	free(heap);
	free(streams);
	free(first);
	free(count);
	return ret;
}

int ana_session_clock_ref(const struct ana_session *s, int64_t *perf_ns, int64_t *real_ns)
{
	const char *perf_ref = ana_session_meta(s, "clock.ref.perf_ns");
	const char *real_ref = ana_session_meta(s, "clock.ref.realtime_ns");

	if (!perf_ref || !real_ref)
		return -ENODATA;
	*perf_ns = strtoll(perf_ref, NULL, 10);
	*real_ns = strtoll(real_ref, NULL, 10);
	return 0;
}

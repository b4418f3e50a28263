// SPDX-License-Identifier: MIT
/*
 * analyze/view/export_speedscope.c - the samples in speedscope's own JSON
 * file format (https://www.speedscope.app/file-format-schema.json): one
 * "sampled" profile per thread, its samples in time order as stacks of
 * indices into a frame table shared by all profiles (function name,
 * source file or object, line of the function's entry), each with its
 * weight: the period in nanoseconds for cpu-clock and task-clock (and
 * off-CPU time, ana_export_opts.offcpu), else 1 per sample (unit "none").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/export.h"
#include "analyze/view/export_stack.h"
#include "analyze/view/out.h"
#include "common/hashmap.h"
#include "common/util.h"

/* The stacks, each stored once: root-first frame (function) indices. */
struct stack_pool {
	uint32_t *ids;
	size_t nr_ids, cap_ids;
	struct { size_t off; uint32_t len; } *st;
	size_t nr, cap;
	struct amb_hashmap by_key;
};

struct sthread {
	uint32_t pid, tid;
	const char *comm;          /* interned: the last name seen */
	uint32_t *stacks;          /* per sample, in time order */
	uint64_t *weights;
	size_t n, cap_s, cap_w;
	uint64_t total;
};

struct speedscope {
	struct ana_pipeline *p;
	const struct ana_export_opts *o;
	struct ana_xctx *x;
	struct stack_pool pool;
	struct sthread *threads;
	size_t nr_threads, cap_threads;
	struct amb_hashmap thread_by_tid;  /* (pid, tid) -> index + 1 */
	uint32_t *cur;
	size_t cap_cur;
	bool all_ns;               /* every sample's period is in ns */
};

struct stack_key {
	const struct stack_pool *pool;
	const uint32_t *ids;
	uint32_t len;
};

static bool stack_eq(uint64_t stored, const void *key)
{
	const struct stack_key *k = key;
	const struct stack_pool *p = k->pool;

	return p->st[stored].len == k->len &&
	       !memcmp(p->ids + p->st[stored].off, k->ids, k->len * sizeof(*k->ids));
}

/* The index of stack @ids (@len, root first), added if new; -1 on ENOMEM. */
static int64_t stack_intern(struct stack_pool *p, const uint32_t *ids, uint32_t len)
{
	struct stack_key k = { p, ids, len };
	uint64_t h = XXH3_64bits(ids, len * sizeof(*ids));
	void *v = amb_hashmap_find(&p->by_key, h, stack_eq, &k);

	if (v)
		return (int64_t)(uintptr_t)v - 1;
	if (amb_ensure_cap((void **)&p->st, &p->cap, sizeof(*p->st), p->nr + 1) ||
	    amb_ensure_cap((void **)&p->ids, &p->cap_ids, sizeof(*p->ids), p->nr_ids + len))
		return -1;
	memcpy(p->ids + p->nr_ids, ids, len * sizeof(*ids));
	p->st[p->nr].off = p->nr_ids;
	p->st[p->nr].len = len;
	if (amb_hashmap_add(&p->by_key, h, p->nr, (void *)(uintptr_t)(p->nr + 1)))
		return -1;
	p->nr_ids += len;
	return (int64_t)p->nr++;
}

static struct sthread *thread_of(struct speedscope *sp, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	uint64_t h = amb_hash_u64(key);
	void *v = amb_hashmap_find_u64(&sp->thread_by_tid, h, key);
	struct sthread *t;

	if (v)
		return &sp->threads[(uintptr_t)v - 1];
	if (amb_ensure_cap((void **)&sp->threads, &sp->cap_threads, sizeof(*sp->threads),
			   sp->nr_threads + 1))
		return NULL;
	t = &sp->threads[sp->nr_threads];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	if (amb_hashmap_add(&sp->thread_by_tid, h, key, (void *)(uintptr_t)(sp->nr_threads + 1)))
		return NULL;
	sp->nr_threads++;
	return t;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *th)
{
	struct speedscope *sp = ctx;
	const struct ana_xstack *st = ana_xctx_walk(sp->x, th, s);
	struct sthread *t;
	uint32_t n = 0;
	int64_t id;

	if (!st)
		return -ENOMEM;
	if (amb_ensure_cap((void **)&sp->cur, &sp->cap_cur, sizeof(*sp->cur), st->nr_lines + 1))
		return -ENOMEM;
	/* Lines are leaf first: the root comes first in speedscope. */
	for (unsigned i = st->nr_lines; i-- > 0;)
		sp->cur[n++] = st->lines[i].fn->id - 1;
	id = stack_intern(&sp->pool, sp->cur, n);
	t = thread_of(sp, s->pid, s->tid);
	if (id < 0 || !t)
		return -ENOMEM;
	t->comm = ana_intern(ana_xctx_strings(sp->x), ana_thread_comm(th));
	if (!t->comm ||
	    amb_ensure_cap((void **)&t->stacks, &t->cap_s, sizeof(*t->stacks), t->n + 1) ||
	    amb_ensure_cap((void **)&t->weights, &t->cap_w, sizeof(*t->weights), t->n + 1))
		return -ENOMEM;
	t->stacks[t->n] = (uint32_t)id;
	t->weights[t->n++] = s->period;
	sp->all_ns &= ana_export_weight_is_ns(sp->o, s->evt);
	return 0;
}

static void write_json(struct speedscope *sp, struct ana_out *o, const struct ana_export_opts *eo)
{
	uint32_t nf = ana_xctx_func_count(sp->x);
	char name[300];

	ana_out_str(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
	ana_out_str(o, "\"exporter\":\"amber-analyze " AMB_VERSION "\",\"name\":");
	ana_out_json(o, eo && eo->name ? eo->name : "amber recording");
	ana_out_str(o, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
	for (uint32_t id = 1; id <= nf; id++) {
		const struct ana_xfunc *f = ana_xctx_func(sp->x, id);

		if (id > 1)
			ana_out_char(o, ',');
		ana_out_str(o, "{\"name\":");
		ana_out_json(o, f->name);
		ana_out_str(o, ",\"file\":");
		ana_out_json(o, f->file ? f->file : f->dso);
		if (f->start_line > 0) {
			ana_out_str(o, ",\"line\":");
			ana_out_u64(o, (uint64_t)f->start_line, 0, ' ');
		}
		ana_out_char(o, '}');
	}
	ana_out_str(o, "]},\"profiles\":[");
	for (size_t i = 0; i < sp->nr_threads; i++) {
		struct sthread *t = &sp->threads[i];
		uint64_t total = 0;

		for (size_t j = 0; j < t->n; j++)
			total += sp->all_ns ? t->weights[j] : 1;
		if (i)
			ana_out_char(o, ',');
		snprintf(name, sizeof(name), "%s (pid %u, tid %u)", t->comm, t->pid, t->tid);
		ana_out_str(o, "\n{\"type\":\"sampled\",\"name\":");
		ana_out_json(o, name);
		ana_out_str(o, sp->all_ns ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"");
		ana_out_str(o, ",\"startValue\":0,\"endValue\":");
		ana_out_u64(o, total, 0, ' ');
		ana_out_str(o, ",\"samples\":[");
		for (size_t j = 0; j < t->n; j++) {
			size_t off = sp->pool.st[t->stacks[j]].off;
			uint32_t len = sp->pool.st[t->stacks[j]].len;

			ana_out_str(o, j ? ",[" : "[");
			for (uint32_t k = 0; k < len; k++) {
				if (k)
					ana_out_char(o, ',');
				ana_out_u64(o, sp->pool.ids[off + k], 0, ' ');
			}
			ana_out_char(o, ']');
		}
		ana_out_str(o, "],\"weights\":[");
		for (size_t j = 0; j < t->n; j++) {
			if (j)
				ana_out_char(o, ',');
			ana_out_u64(o, sp->all_ns ? t->weights[j] : 1, 0, ' ');
		}
		ana_out_str(o, "]}");
	}
	ana_out_str(o, "]}\n");
}

int ana_export_speedscope(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o)
{
	struct speedscope sp = { .p = p, .o = o, .all_ns = true };
	struct ana_out ob;
	int err = -ENOMEM;

	sp.x = ana_xctx_new(p, o ? o->inline_frames : true);
	if (sp.x)
		err = ana_export_run(p, o, on_sample, NULL, &sp);
	if (!err) {
		ana_out_init(&ob, out);
		ana_out_no_cut(&ob);
		write_json(&sp, &ob, o);
		err = ana_out_finish(&ob);
	}
	for (size_t i = 0; i < sp.nr_threads; i++) {
		free(sp.threads[i].stacks);
		free(sp.threads[i].weights);
	}
	free(sp.threads);
	free(sp.cur);
	free(sp.pool.ids);
	free(sp.pool.st);
	amb_hashmap_free(&sp.pool.by_key);
	amb_hashmap_free(&sp.thread_by_tid);
	ana_xctx_free(sp.x);
	return err;
}

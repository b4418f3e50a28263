// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/hits.c - which DSOs a recording's samples hit: what
 * `buildids` lists and `archive` embeds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/hits.h"
#include "analyze/resolve/machine.h"
#include "analyze/resolve/pipeline.h"
#include "common/util.h"
#include <amber/common.h>

#define PROT_EXEC_BIT 4u   /* PROT_EXEC in MMAP2 records (Linux value) */

struct hit_ctx {
	struct ana_dso_table *t;
	struct ana_dso_hits *h;
	bool swapped;
	size_t last;            /* index of the last DSO hit: consecutive frames repeat */
};

static struct ana_dso_hit *hit_get(struct hit_ctx *c, struct ana_dso *d)
{
	struct ana_dso_hits *h = c->h;
	struct ana_dso_hit *v;

	if (c->last < h->n && h->v[c->last].dso == d)
		return &h->v[c->last];
	for (size_t i = 0; i < h->n; i++) {
		if (h->v[i].dso == d) {
			c->last = i;
			return &h->v[i];
		}
	}
	if (amb_ensure_cap((void **)&h->v, &h->cap, sizeof(*h->v), h->n + 1))
		return NULL;
	v = &h->v[h->n];
	memset(v, 0, sizeof(*v));
	v->dso = d;
	c->last = h->n++;
	return v;
}

/* Count @addr of thread @t as a hit of the DSO mapped there, if any. */
static int hit_addr(struct hit_ctx *c, struct ana_thread *t, uint64_t addr, bool ip,
		    bool need_exec)
{
	const struct ana_map *map;
	struct ana_dso_hit *h;

	if (addr >> 63)
		return 0;   /* a kernel address: its symbols come from KSYMS */
	map = ana_thread_find_map(t, addr);
	if (!map || !map->dso || map->dso->type != ANA_DSO_TYPE_FILE)
		return 0;
	if (need_exec && !(map->prot & PROT_EXEC_BIT))
		return 0;
	h = hit_get(c, map->dso);
	if (!h)
		return -ENOMEM;
	if (ip)
		h->samples++;
	else
		h->frames++;
	return 0;
}

static int hit_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct hit_ctx *c = ctx;
	int err = hit_addr(c, t, s->ip, true, false);

	for (uint64_t i = 0; !err && i < s->nr_callchain; i++) {
		/* PERF_CONTEXT_* markers sit at the top of the address space. */
		if (s->callchain[i] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (i == 0 && s->callchain[i] == s->ip)
			continue;   /* the ip again, already counted */
		err = hit_addr(c, t, s->callchain[i], false, false);
	}
	/* DWARF mode: the callers are found only by unwinding the stack copy;
	 * every word pointing into code stands in for them. */
	if (!c->swapped && s->user_stack && s->user_stack_size >= 8) {
		uint64_t n = (s->user_stack_dyn_size && s->user_stack_dyn_size < s->user_stack_size
			      ? s->user_stack_dyn_size : s->user_stack_size) / 8;

		for (uint64_t i = 0; !err && i < n; i++) {
			uint64_t w;

			memcpy(&w, s->user_stack + 8 * i, 8);
			if (w > 4096)
				err = hit_addr(c, t, w, false, true);
		}
	}
	return err;
}

static int hit_record(void *ctx, const struct ana_record *rec)
{
	struct hit_ctx *c = ctx;

	if (rec->type == PERF_RECORD_MMAP2 && rec->u.mmap.pid != UINT32_MAX &&
	    (rec->u.mmap.prot & PROT_EXEC_BIT) && rec->u.mmap.filename) {
		struct ana_dso *d = ana_dso_table_get(c->t, rec->u.mmap.filename,
						      rec->u.mmap.build_id,
						      rec->u.mmap.build_id_size, true,
						      rec->u.mmap.pid);
		struct ana_dso_hit *h;

		if (!d)
			return -ENOMEM;
		if (d->type != ANA_DSO_TYPE_FILE)
			return 0;
		h = hit_get(c, d);
		if (!h)
			return -ENOMEM;
		h->mapped_exec = true;
		return 0;
	}
	return 0;
}

int ana_dso_hits_collect(struct ana_pipeline *p, struct ana_dso_hits *h)
{
	struct ana_session *s = ana_pipeline_session(p);
	struct hit_ctx c = { .t = ana_pipeline_dsos(p), .h = h, .swapped = ana_session_swapped(s) };
	int err = -ENOMEM;

	memset(h, 0, sizeof(*h));
	/* The BUILDID table names what was mapped before recording began. */
	for (size_t i = 0; i < ana_session_buildid_count(s); i++) {
		const struct ana_buildid *b = ana_session_buildid(s, i);
		struct ana_dso *d;

		if (b->kind != AMB_DSO_USER || !b->path)
			continue;
		d = ana_dso_table_get(c.t, b->path, b->build_id, b->build_id_len, true, 0);
		if (!d || (d->type == ANA_DSO_TYPE_FILE && !hit_get(&c, d)))
			goto out;
	}
	err = ana_pipeline_run(p, hit_sample, hit_record, &c);
out:
	if (err)
		ana_dso_hits_free(h);
	return err;
}

void ana_dso_hits_free(struct ana_dso_hits *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

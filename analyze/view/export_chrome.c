// SPDX-License-Identifier: MIT
/*
 * analyze/view/export_chrome.c - the samples as Chrome trace-event JSON
 * (the "Trace Event Format" that chrome://tracing, Perfetto and speedscope
 * read):
 *   traceEvents  process_name / thread_name metadata ("M") for every
 *                thread with samples, and each tracepoint sample (sched
 *                switches included) as an instant event ("i") on its
 *                thread, its payload formatted in args.trace;
 *   samples      every other sample: cpu, pid, tid, ts (microseconds),
 *                the event's name, its weight (period) and its stack as
 *                "sf", a node of
 *   stackFrames  the tree of stacks: node -> name, category (the
 *                object), parent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/export.h"
#include "analyze/view/export_stack.h"
#include "analyze/view/out.h"
#include "common/hashmap.h"
#include "common/util.h"

struct node {
	uint32_t parent;    /* node id, 0 for a root */
	uint32_t func;      /* ana_xfunc id */
};

struct cthread {
	uint32_t pid, tid;
	const char *comm;
};

struct chrome {
	struct ana_pipeline *p;
	struct ana_xctx *x;
	struct ana_tp *tp;
	struct node *nodes;        /* id - 1 */
	size_t nr_nodes, cap_nodes;
	struct amb_hashmap node_by_key;
	struct cthread *threads;
	size_t nr_threads, cap_threads;
	struct amb_hashmap thread_by_tid;
	struct amb_buf events;     /* instant events, JSON, each followed by ',' */
	struct amb_buf samples;    /* sample objects, each followed by ',' */
	struct amb_buf tmp;
	int err;
};

static void json_str(struct amb_buf *b, const char *s, int *err)
{
	int e = amb_buf_append(b, "\"", 1);

	for (; *s && !e; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			e = amb_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			e = amb_buf_printf(b, "\\u%04x", c);
		else
			e = amb_buf_append(b, s, 1);
	}
	if (!e)
		e = amb_buf_append(b, "\"", 1);
	if (e)
		*err = e;
}

static uint32_t node_of(struct chrome *c, uint32_t parent, uint32_t func)
{
	uint64_t key = (uint64_t)parent << 32 | func, h = amb_hash_u64(key);
	void *v = amb_hashmap_find_u64(&c->node_by_key, h, key);

	if (v)
		return (uint32_t)(uintptr_t)v;
	if (amb_ensure_cap((void **)&c->nodes, &c->cap_nodes, sizeof(*c->nodes), c->nr_nodes + 1) ||
	    amb_hashmap_add(&c->node_by_key, h, key, (void *)(uintptr_t)(c->nr_nodes + 1))) {
		c->err = -ENOMEM;
		return 0;
	}
	c->nodes[c->nr_nodes] = (struct node){ parent, func };
	return (uint32_t)++c->nr_nodes;
}

static int note_thread(struct chrome *c, uint32_t pid, uint32_t tid, const char *comm)
{
	uint64_t key = (uint64_t)pid << 32 | tid, h = amb_hash_u64(key);
	void *v = amb_hashmap_find_u64(&c->thread_by_tid, h, key);
	const char *in = ana_intern(ana_xctx_strings(c->x), comm);

	if (!in)
		return -ENOMEM;
	if (v) {
		c->threads[(uintptr_t)v - 1].comm = in;
		return 0;
	}
	if (amb_ensure_cap((void **)&c->threads, &c->cap_threads, sizeof(*c->threads),
			   c->nr_threads + 1) ||
	    amb_hashmap_add(&c->thread_by_tid, h, key, (void *)(uintptr_t)(c->nr_threads + 1)))
		return -ENOMEM;
	c->threads[c->nr_threads++] = (struct cthread){ pid, tid, in };
	return 0;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *th)
{
	struct chrome *c = ctx;
	const struct ana_xstack *st = ana_xctx_walk(c->x, th, s);
	const char *ev = s->evt ? s->evt->name : "[unknown]";
	uint32_t node = 0;
	int err = 0;

	if (!st)
		return -ENOMEM;
	for (unsigned i = st->nr_lines; i-- > 0 && !c->err;)
		node = node_of(c, node, st->lines[i].fn->id);
	if (c->err || note_thread(c, s->pid, s->tid, ana_thread_comm(th)))
		return -ENOMEM;
	if (s->evt && s->evt->tracepoint) {
		struct amb_buf *b = &c->events;

		err = amb_buf_printf(b, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"tracepoint\",\"name\":");
		json_str(b, ev, &err);
		err = err ? err : amb_buf_printf(b, ",\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64 ".%03u",
						 s->pid, s->tid, s->time / 1000,
						 (unsigned)(s->time % 1000));
		if (!err && node)
			err = amb_buf_printf(b, ",\"sf\":\"%u\"", node);
		c->tmp.len = 0;
		if (!err && c->tp && !ana_tp_format(c->tp, s->raw, s->raw_size, &c->tmp)) {
			err = amb_buf_printf(b, ",\"args\":{\"trace\":");
			json_str(b, (const char *)c->tmp.data, &err);
			err = err ? err : amb_buf_append(b, "}", 1);
		}
		return err ? err : amb_buf_append(b, "},\n", 3);
	}
	err = amb_buf_printf(&c->samples, "{\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64
			     ".%03u,\"name\":", s->cpu, s->pid, s->tid, s->time / 1000,
			     (unsigned)(s->time % 1000));
	json_str(&c->samples, ev, &err);
	if (!err && node)
		err = amb_buf_printf(&c->samples, ",\"sf\":\"%u\"", node);
	return err ? err : amb_buf_printf(&c->samples, ",\"weight\":%" PRIu64 "},\n", s->period);
}

/* @b's JSON items without the ',' after the last one. */
static void put_items(struct ana_out *o, const struct amb_buf *b)
{
	if (b->len >= 2)
		ana_out_write(o, b->data, b->len - 2);
}

static void write_json(struct chrome *c, struct ana_out *o, const struct ana_export_opts *eo)
{
	bool first = true;

	ana_out_str(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"amber-analyze "
		    AMB_VERSION "\",\"recording\":");
	ana_out_json(o, eo && eo->name ? eo->name : "");
	ana_out_str(o, "},\n\"traceEvents\":[\n");
	/* A process is named by its main thread (tid == pid), else its first. */
	for (size_t i = 0; i < c->nr_threads; i++) {
		const struct cthread *t = &c->threads[i];
		const char *pname = t->comm;
		bool seen = false;

		for (size_t j = 0; j < c->nr_threads; j++) {
			if (c->threads[j].pid != t->pid)
				continue;
			if (j < i)
				seen = true;
			if (c->threads[j].tid == t->pid)
				pname = c->threads[j].comm;
		}
		if (!seen) {
			ana_out_printf(o, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,"
				       "\"tid\":%u,\"args\":{\"name\":", first ? "" : ",\n", t->pid, t->pid);
			ana_out_json(o, pname);
			ana_out_str(o, "}}");
			first = false;
		}
		ana_out_printf(o, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
			       "\"args\":{\"name\":", first ? "" : ",\n", t->pid, t->tid);
		ana_out_json(o, t->comm);
		ana_out_str(o, "}}");
		first = false;
	}
	if (c->events.len) {
		ana_out_str(o, first ? "" : ",\n");
		put_items(o, &c->events);
	}
	ana_out_str(o, "],\n\"samples\":[\n");
	put_items(o, &c->samples);
	ana_out_str(o, "],\n\"stackFrames\":{");
	for (size_t i = 0; i < c->nr_nodes; i++) {
		const struct ana_xfunc *f = ana_xctx_func(c->x, c->nodes[i].func);

		ana_out_printf(o, "%s\n\"%zu\":{\"name\":", i ? "," : "", i + 1);
		ana_out_json(o, f->name);
		ana_out_str(o, ",\"category\":");
		ana_out_json(o, f->dso_short);
		if (c->nodes[i].parent)
			ana_out_printf(o, ",\"parent\":\"%u\"", c->nodes[i].parent);
		ana_out_char(o, '}');
	}
	ana_out_str(o, "}}\n");
}

int ana_export_chrome(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o)
{
	struct chrome c = { .p = p, .tp = ana_pipeline_tp(p) };
	struct ana_out ob;
	int err = -ENOMEM;

	c.x = ana_xctx_new(p, o ? o->inline_frames : true);
	if (c.x)
		err = ana_pipeline_run(p, on_sample, NULL, &c);
	if (!err) {
		ana_out_init(&ob, out);
		ana_out_no_cut(&ob);
		write_json(&c, &ob, o);
		err = ana_out_finish(&ob);
	}
	free(c.nodes);
	free(c.threads);
	amb_hashmap_free(&c.node_by_key);
	amb_hashmap_free(&c.thread_by_tid);
	amb_buf_free(&c.events);
	amb_buf_free(&c.samples);
	amb_buf_free(&c.tmp);
	ana_xctx_free(c.x);
	return err;
}

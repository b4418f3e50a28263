// SPDX-License-Identifier: MIT
/*
 * record/describe.c - the blocks that describe a recording, around its
 * RING blocks (FORMAT.md §9): META, EVENT_ATTR, TOPOLOGY, KSYMS, SYNTH,
 * BUILDID and TRACEFS before the first one, so that a crash cannot lose
 * what decoding needs; COUNTS and the final META keys after the last.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <amber/common.h>
#include <amber/format.h>
#include "record/buildid.h"
#include "record/counts.h"
#include "record/describe.h"
#include "record/events/tracefs.h"
#include "record/kernel.h"
#include "record/meta.h"
#include "record/synthesize.h"
#include "record/topology.h"

/* Append @b as one block of @type (not tied to a CPU); @b is emptied. */
static int append_buf(struct amb_writer *w, uint16_t type, struct amb_buf *b, uint64_t count,
		      uint64_t t0, uint64_t t1)
{
	struct amb_block_desc d = { .type = type, .stream = AMB_STREAM_NONE,
				    .record_count = count, .first_time = t0, .last_time = t1 };
	int err;

	if (!b->len)
		return 0;
	err = amb_writer_append_owned(w, &d, b->data, b->len);
	b->data = NULL;
	b->len = b->cap = 0;
	return err;
}

/* Append a copy of @b as one block of @type. */
static int append_copy(struct amb_writer *w, uint16_t type, const struct amb_buf *b,
		       uint64_t count, uint64_t t0, uint64_t t1)
{
	struct amb_block_desc d = { .type = type, .stream = AMB_STREAM_NONE,
				    .record_count = count, .first_time = t0, .last_time = t1 };

	return b->len ? amb_writer_append(w, &d, b->data, b->len) : 0;
}

uint64_t rec_kv_count(const struct amb_buf *b)
{
	struct amb_cursor c;
	struct amb_kv kv;
	uint64_t n = 0;

	amb_cursor_init(&c, b->data, b->len);
	while (amb_kv_next(&c, &kv) == 1)
		n++;
	return n;
}

static int write_event_attrs(const struct rec_describe *d, struct amb_writer *w)
{
	struct amb_buf b = AMB_BUF_INIT;
	const struct rec_evlist *el = d->evlist;
	size_t per = el->nr_cpus * el->nr_threads;
	int err = 0;

	for (size_t e = 0; e < d->events->n && !err; e++) {
		const struct rec_event *ev = &d->events->v[e];
		struct amb_event_entry ent;
		uint8_t *ids = malloc(per * 8 + 1);
		uint32_t nr = 0;

		if (!ids) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < per; i++)
			if (el->fds[e * per + i] >= 0)
				amb_put_le64(ids + 8 * nr++, el->ids[e * per + i]);
		memset(&ent, 0, sizeof(ent));
		ent.attr = (const uint8_t *)&ev->attr;
		ent.attr_size = sizeof(ev->attr);
		ent.name = ev->name;
		ent.name_len = (uint32_t)strlen(ev->name);
		ent.leader = ev->leader < 0 ? UINT32_MAX : (uint32_t)ev->leader;
		ent.flags = ev->fallback ? AMB_EVENT_FALLBACK : 0;
		ent.nr_ids = nr;
		ent.ids = ids;
		err = amb_event_put(&b, &ent);
		free(ids);
	}
	if (!err)
		err = append_buf(w, AMB_BLOCK_EVENT_ATTR, &b, d->events->n, 0, 0);
	amb_buf_free(&b);
	return err;
}

static int write_tracefs(const struct rec_describe *d, struct amb_writer *w)
{
	static const char *const headers[] = { "header_page", "header_event" };
	struct amb_buf b = AMB_BUF_INIT;
	int err = 0;

	if (!d->tracepoints)
		return 0;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(headers) && !err; i++) {
		char rel[64];
		size_t len;
		char *text;

		snprintf(rel, sizeof(rel), "events/%s", headers[i]);
		text = rec_tracefs_read(rel, &len);
		if (!text) {
			amb_warn("tracefs %s: %s", rel, strerror(errno));
			continue;
		}
		err = amb_kv_put(&b, headers[i], text, len);
		free(text);
	}
	for (size_t e = 0; e < d->events->n && !err; e++) {
		const struct rec_event *ev = &d->events->v[e];
		char rel[512], key[300];
		size_t len;
		char *text;

		if (!ev->tracepoint)
			continue;
		snprintf(key, sizeof(key), "%s/%s", ev->tp_system, ev->tp_event);
		snprintf(rel, sizeof(rel), "events/%s/format", key);
		text = rec_tracefs_read(rel, &len);
		if (!text) {
			amb_warn("tracefs %s: %s: its samples cannot be decoded", rel, strerror(errno));
			continue;
		}
		err = amb_kv_put(&b, key, text, len);
		free(text);
	}
	if (!err)
		err = append_buf(w, AMB_BLOCK_TRACEFS, &b, rec_kv_count(&b), 0, 0);
	amb_buf_free(&b);
	return err;
}

int rec_snapshot_take(const struct rec_describe *d, uint64_t time, bool descendants, bool warn,
		      struct rec_snapshot *snap)
{
	const struct rec_target *t = d->target;
	struct rec_synth_ctx x;
	int err = 0;

	memset(snap, 0, sizeof(*snap));
	snap->time = time;
	snap->kallsyms = rec_kallsyms_read(&snap->kallsyms_len);
	if (!snap->kallsyms && warn && !(errno == EPERM && d->kallsyms_explained)) {
		if (errno == EPERM)
			amb_warn("kernel.kptr_restrict hides kernel addresses (/proc/kallsyms reads "
				 "as zeros): kernel symbols will not be resolved; "
				 "set kernel.kptr_restrict=0 or run as root");
		else
			amb_warn("/proc/kallsyms: %s: kernel symbols will not be resolved",
				 strerror(errno));
	}

	memset(&x, 0, sizeof(x));
	x.sample_type = d->events->v[0].attr.sample_type;
	x.id = rec_evlist_first_id(d->evlist, 0);
	x.time = time;
	x.cpu = (uint32_t)t->cpus[0];
	x.buildids = &snap->buildids;
	x.data = d->opts->data;
	x.cache = rec_buildid_cache_new();
	if (!x.cache)
		err = -ENOMEM;
	if (!err)
		err = rec_synth_kernel(&x, &snap->synth, snap->kallsyms, snap->kallsyms_len);
	if (!err && t->kind == REC_TARGET_SYSTEM) {
		err = rec_synth_all(&x, &snap->synth);
	} else if (!err && descendants) {
		/* A command's tree grows from the forked child. */
		const pid_t *roots = t->kind == REC_TARGET_CMD ? &t->threads[0] : t->procs;
		size_t n = t->kind == REC_TARGET_CMD ? (t->nr_threads ? 1 : 0) : t->nr_procs;

		err = rec_synth_tree(&x, &snap->synth, roots, n);
	} else {
		/* A command is synthesized by the kernel itself: exec emits
		 * COMM and MMAP2 for everything it maps, with the events
		 * already enabled. */
		for (size_t i = 0; !err && t->kind != REC_TARGET_CMD && i < t->nr_procs; i++)
			err = rec_synth_process(&x, &snap->synth, t->procs[i]);
	}
	snap->nr_synth = x.nr_records;
	snap->nr_buildids = x.nr_seen;
	rec_buildid_cache_free(x.cache);
	rec_synth_ctx_free(&x);
	return err;
}

void rec_snapshot_free(struct rec_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->kallsyms);
	amb_buf_free(&snap->synth);
	amb_buf_free(&snap->buildids);
	memset(snap, 0, sizeof(*snap));
}

/* KSYMS, then SYNTH (kernel maps and target processes) and BUILDID. */
static int write_snapshot(struct amb_writer *w, const struct rec_snapshot *snap)
{
	int err = 0;

	if (snap->kallsyms) {
		uint64_t lines = 0;

		for (size_t i = 0; i < snap->kallsyms_len; i++)
			lines += snap->kallsyms[i] == '\n';
		if (snap->kallsyms_len) {
			struct amb_block_desc bd = { .type = AMB_BLOCK_KSYMS, .stream = AMB_STREAM_NONE,
						     .record_count = lines };

			err = amb_writer_append(w, &bd, snap->kallsyms, snap->kallsyms_len);
		}
	}
	if (!err)
		err = append_copy(w, AMB_BLOCK_SYNTH, &snap->synth, snap->nr_synth, snap->time,
				  snap->time);
	if (!err)
		err = append_copy(w, AMB_BLOCK_BUILDID, &snap->buildids, snap->nr_buildids, 0, 0);
	return err;
}

int rec_describe_start(const struct rec_describe *d, struct amb_writer *w,
		       const struct rec_snapshot *snap, uint64_t start_ns,
		       const struct amb_buf *meta_extra)
{
	const struct rec_target *t = d->target;
	struct amb_buf b = AMB_BUF_INIT;
	char target[256], cpus[64];
	int err;

	switch (t->kind) {
	case REC_TARGET_CMD:
		snprintf(target, sizeof(target), "command %s", d->opts->argv[0]);
		break;
	case REC_TARGET_PID:
		if (t->user)
			snprintf(target, sizeof(target), "uid %u", (unsigned)t->uid);
		else
			snprintf(target, sizeof(target), "pid %d%s", (int)t->procs[0],
				 t->nr_procs > 1 ? " ..." : "");
		break;
	case REC_TARGET_TID:
		snprintf(target, sizeof(target), "tid %d%s", (int)t->threads[0],
			 t->nr_threads > 1 ? " ..." : "");
		break;
	default:
		if (t->cgroup)
			snprintf(target, sizeof(target), "system-wide, cgroup %s", t->cgroup);
		else
			snprintf(target, sizeof(target), "system-wide");
		break;
	}
	snprintf(cpus, sizeof(cpus), "%s", d->opts->cpulist ? d->opts->cpulist : "all");
	err = rec_meta_start(&b, d->argc, d->argv, target, cpus, d->ring_pages, start_ns);
	for (size_t e = 0; !err && d->filters && e < d->events->n; e++) {
		char key[48];

		if (!d->filters[e])
			continue;
		snprintf(key, sizeof(key), "event.%zu.filter", e);
		err = amb_kv_put_str(&b, key, d->filters[e]);
	}
	if (!err && meta_extra)
		err = amb_buf_append(&b, meta_extra->data, meta_extra->len);
	if (!err)
		err = append_buf(w, AMB_BLOCK_META, &b, rec_kv_count(&b), 0, 0);
	if (!err)
		err = write_event_attrs(d, w);
	if (!err) {
		err = rec_topology_build(&b);
		if (!err)
			err = append_buf(w, AMB_BLOCK_TOPOLOGY, &b, rec_kv_count(&b), 0, 0);
	}
	if (!err)
		err = write_snapshot(w, snap);
	if (!err)
		err = write_tracefs(d, w);
	amb_buf_free(&b);
	return err;
}

int rec_describe_end(const struct rec_describe *d, struct amb_writer *w,
		     const struct rec_file_end *e)
{
	struct amb_buf b = AMB_BUF_INIT;
	char v[32];
	int err = 0;

	if (e->counts) {
		int n = rec_counts_build(d->evlist, d->target, e->counts_base, &b);

		/* The counts' window: from enabling to disabling (FORMAT.md §5.4). */
		err = n < 0 ? n : append_buf(w, AMB_BLOCK_COUNTS, &b, (uint64_t)n, e->run_ns, e->end_ns);
	}
#define PUT(key, val) do { \
		snprintf(v, sizeof(v), "%" PRIu64, (uint64_t)(val)); \
		if (!err) \
			err = amb_kv_put_str(&b, key, v); \
	} while (0)
	PUT("time.end_ns", e->end_ns);
	if (e->have_status) {
		int st = WIFSIGNALED(e->wstatus) ? 128 + WTERMSIG(e->wstatus)
						 : WEXITSTATUS(e->wstatus);

		PUT("exit_status", st);
	}
	PUT("lost.records", e->c->lost_records);
	PUT("lost.samples", e->c->lost_samples);
	PUT("throttle", e->c->throttle);
	PUT("unthrottle", e->c->unthrottle);
#undef PUT
	if (!err && e->meta_extra)
		err = amb_buf_append(&b, e->meta_extra->data, e->meta_extra->len);
	if (!err)
		err = append_buf(w, AMB_BLOCK_META, &b, rec_kv_count(&b), 0, 0);
	amb_buf_free(&b);
	return err;
}

// SPDX-License-Identifier: MIT
/*
 * analyze/buildids.c - which DSOs a recording's samples hit, and the
 * `buildids` command: every DSO with its build-id, its hits, and where
 * analysis finds its ELF (embedded, the recorded path, the debug
 * directory, ~/.debug, --symfs, debuginfod), or that it is missing or only
 * exists with another build-id (MISMATCH).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/embed.h"
#include "analyze/machine.h"
#include "common/common.h"

#define PROT_EXEC_BIT 4u   /* PROT_EXEC in MMAP2 records (Linux value) */

struct hit_ctx {
	struct ana_machine *m;
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
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 32;

		v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		h->v = v;
		h->cap = cap;
	}
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

static int hit_sample(struct hit_ctx *c, const struct ana_sample *s)
{
	struct ana_thread *t = ana_machine_thread(c->m, s->pid, s->tid);
	int err;

	if (!t)
		return -ENOMEM;
	err = hit_addr(c, t, s->ip, true, false);
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
	int err = ana_machine_process(c->m, rec);

	if (err)
		return err;
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
	if (rec->type == PERF_RECORD_SAMPLE)
		return hit_sample(c, &rec->u.sample);
	return 0;
}

int ana_dso_hits_collect(struct ana_session *s, struct ana_dso_table *t,
			 struct ana_dso_hits *h)
{
	struct hit_ctx c = { .t = t, .h = h, .swapped = ana_session_swapped(s) };
	int err = -ENOMEM;

	memset(h, 0, sizeof(*h));
	c.m = ana_machine_new(t);
	if (!c.m || ana_machine_load_session(c.m, s))
		goto out;
	/* The BUILDID table names what was mapped before recording began. */
	for (size_t i = 0; i < ana_session_buildid_count(s); i++) {
		const struct ana_buildid *b = ana_session_buildid(s, i);
		struct ana_dso *d;

		if (b->kind != AMB_DSO_USER || !b->path)
			continue;
		d = ana_dso_table_get(t, b->path, b->build_id, b->build_id_len, true, 0);
		if (!d || (d->type == ANA_DSO_TYPE_FILE && !hit_get(&c, d)))
			goto out;
	}
	err = ana_session_for_each(s, hit_record, &c);
out:
	ana_machine_free(c.m);
	if (err)
		ana_dso_hits_free(h);
	return err;
}

void ana_dso_hits_free(struct ana_dso_hits *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

/* ---- the buildids command ------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: amber-analyze buildids [OPTIONS] FILE\n\n"
"Every DSO of the recording: build-id, samples in it, frames in it, and\n"
"where analysis finds its ELF: embedded, path, symfs, debug-dir, ~/.debug,\n"
"debuginfod, missing, or MISMATCH (only files with another build-id exist).\n"
"The kernel's symbols come from the recording: kallsyms, or unused when the\n"
"recorder kept none because no sample was in the kernel.\n\n"
"      --symfs DIR       look for the recorded paths under DIR, not on this host\n"
"      --hit             only DSOs that samples hit\n"
"      --no-debuginfod   do not ask the servers of DEBUGINFOD_URLS\n"
"  -h, --help\n");
}

/* Where @d's ELF was found, in the words of the usage text. */
static const char *where(const struct ana_dso *d)
{
	switch (d->status) {
	case ANA_DSO_MISSING: return "missing";
	case ANA_DSO_MISMATCH: return "MISMATCH";
	case ANA_DSO_NO_FILE: return "-";
	case ANA_DSO_UNRESOLVED: return "?";
	case ANA_DSO_FOUND: break;
	}
	switch (d->origin) {
	case ANA_DSO_FROM_EMBEDDED: return "embedded";
	case ANA_DSO_FROM_PATH: return d->verified ? "path" : "path (unverified)";
	case ANA_DSO_FROM_SYMFS: return d->verified ? "symfs" : "symfs (unverified)";
	case ANA_DSO_FROM_DEBUG_DIR: return "debug-dir";
	case ANA_DSO_FROM_DOT_DEBUG: return "~/.debug";
	case ANA_DSO_FROM_DEBUGINFOD: return "debuginfod";
	case ANA_DSO_FROM_NONE: break;
	}
	return "found";
}

static int print_table(struct ana_session *s, struct ana_dso_table *t, struct ana_embed *e,
		       const struct ana_dso_hits *h, bool only_hit)
{
	char hex[2 * ANA_BUILD_ID_MAX + 1];
	size_t ksyms_len = 0;

	printf("%-40s %9s %9s  %-10s %s\n", "BUILD-ID", "SAMPLES", "FRAMES", "WHERE", "PATH");
	for (size_t i = 0; i < h->n; i++) {
		struct ana_dso *d = h->v[i].dso;

		if (only_hit && !h->v[i].samples && !h->v[i].frames)
			continue;
		ana_dso_resolve(t, d);
		printf("%-40s %9" PRIu64 " %9" PRIu64 "  %-10s %s\n",
		       d->build_id_len ? ana_dso_build_id_hex(d, hex) : "(none)",
		       h->v[i].samples, h->v[i].frames, where(d), d->path);
	}
	/* Kernel and vDSO entries of the BUILDID table: not ELF lookups. */
	ana_session_ksyms(s, &ksyms_len);
	for (size_t i = 0; !only_hit && i < ana_session_buildid_count(s); i++) {
		const struct ana_buildid *b = ana_session_buildid(s, i);
		const char *w;
		size_t k;

		if (b->kind == AMB_DSO_USER)
			continue;
		for (k = 0; k < b->build_id_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", b->build_id[k]);
		hex[2 * k] = '\0';
		if (b->kind == AMB_DSO_VDSO)
			w = ana_embed_has(e, b->build_id, b->build_id_len, AMB_FILE_VDSO)
			    ? "embedded" : "-";
		else if (ksyms_len)
			w = "kallsyms";
		else  /* trimmed to nothing: no sample was in the kernel */
			w = ana_session_meta(s, "ksyms.kept") ? "unused" : "missing";
		printf("%-40s %9s %9s  %-10s %s\n", b->build_id_len ? hex : "(none)", "-", "-",
		       w, b->path ? b->path : "");
	}
	return fflush(stdout) ? -errno : 0;
}

int cmd_buildids(int argc, char **argv)
{
	enum { O_SYMFS = 256, O_HIT, O_NO_DEBUGINFOD };
	static const struct option longopts[] = {
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "hit", no_argument, NULL, O_HIT },
		{ "no-debuginfod", no_argument, NULL, O_NO_DEBUGINFOD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ana_dso_opts dopts = { 0 };
	struct ana_session *s = NULL;
	struct ana_dso_table *t = NULL;
	struct ana_embed *e = NULL;
	struct ana_dso_hits h = { 0 };
	bool only_hit = false;
	int c, err, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_SYMFS: dopts.symfs = optarg; break;
		case O_HIT: only_hit = true; break;
		case O_NO_DEBUGINFOD: dopts.no_debuginfod = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	err = ana_session_open(argv[optind], &s);
	if (err) {
		fprintf(stderr, "amber-analyze: error: %s: %s\n", argv[optind], amb_strerror(err));
		return 1;
	}
	t = ana_dso_table_new(&dopts);
	err = t ? ana_embed_attach(s, t, &e) : -ENOMEM;
	if (!err)
		err = ana_dso_hits_collect(s, t, &h);
	if (!err)
		err = print_table(s, t, e, &h, only_hit);
	if (err)
		fprintf(stderr, "amber-analyze: error: %s: %s\n", argv[optind], amb_strerror(err));
	else
		ret = 0;
	ana_dso_hits_free(&h);
	ana_dso_table_free(t);
	ana_embed_free(e);
	ana_session_close(s);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * analyze/view/export_pprof.c - the samples as a pprof profile: the
 * profile.proto message (analyze/view/profile.proto, encoded by
 * protobuf-c) in a gzip stream, as pprof and the profiling backends that
 * take pprof read it.
 *
 * Samples with the same stack and the same labels (pid, tid, comm, cpu)
 * are one pprof Sample whose values add up: value 0 counts samples, then
 * one value per sampled event holds its period (cpu-clock and task-clock
 * in nanoseconds).  Off-CPU time (ana_export_opts.offcpu) is one value
 * type per thread state ("off-cpu-S" ...) after a total in nanoseconds,
 * "off-cpu" or, for the wall clock, "wall", which is the default.  Locations are (mapping, address) pairs whose lines are the
 * inline chain; mappings carry the file offset, path and build-id, so
 * that a symbol server can symbolize the profile again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/export.h"
#include "analyze/view/export_stack.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "profile.pb-c.h"

struct pmap {
	uint64_t id;
	uint64_t start, end, pgoff;
	const struct ana_dso *dso;     /* NULL: the kernel */
	bool has_functions, has_lines, has_inline;
};

struct ploc {
	uint64_t id, mapping_id, addr;
	size_t first_line;             /* in pp->lines */
	unsigned nr_lines;
};

struct pline {
	uint32_t func;
	int line;
};

struct psample {
	size_t first_loc;              /* in pp->sample_locs */
	unsigned nr_locs;
	uint32_t pid, tid, cpu;        /* cpu UINT32_MAX: none */
	const char *comm;              /* interned */
	int64_t *values;
};

struct pprof {
	struct ana_pipeline *p;
	const struct ana_export_opts *o;
	struct ana_xctx *x;
	/*
	 * Values: [0] counts samples; [1 + c] holds the periods of column c:
	 * the session's events (c < nev), then with o->offcpu the states'
	 * synthetic events and last their total.
	 */
	size_t nr_values;
	size_t nev;
	/* the string table: interned pointer -> index */
	struct amb_hashmap str_idx;
	const char **strs;
	size_t nr_strs, cap_strs;
	struct pmap *maps;
	size_t nr_maps, cap_maps;
	struct amb_hashmap maps_by_key;
	uint64_t kmap;                 /* id of the kernel mapping, 0 none yet */
	uint64_t kmin, kmax;
	struct ploc *locs;
	size_t nr_locs, cap_locs;
	struct amb_hashmap locs_by_key;
	struct pline *lines;
	size_t nr_lines, cap_lines;
	struct psample *samples;
	size_t nr_samples, cap_samples;
	struct amb_hashmap samples_by_key;
	uint64_t *sample_locs;         /* location ids of every psample */
	size_t nr_sample_locs, cap_sample_locs;
	uint64_t *cur_locs;            /* the current sample's */
	size_t cap_cur;
	uint64_t *event_samples;       /* per column */
	uint64_t first_time, last_time;
	int err;
};

static int64_t str_index(struct pprof *pp, const char *s)
{
	const char *in = ana_intern(ana_xctx_strings(pp->x), s ? s : "");
	uint64_t h;
	void *v;

	if (!in) {
		pp->err = -ENOMEM;
		return 0;
	}
	h = amb_hash_u64((uintptr_t)in);
	v = amb_hashmap_find_u64(&pp->str_idx, h, (uintptr_t)in);
	if (v)
		return (int64_t)(uintptr_t)v - 1;
	if (amb_ensure_cap((void **)&pp->strs, &pp->cap_strs, sizeof(*pp->strs), pp->nr_strs + 1) ||
	    amb_hashmap_add(&pp->str_idx, h, (uintptr_t)in, (void *)(uintptr_t)(pp->nr_strs + 1))) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->strs[pp->nr_strs] = in;
	return (int64_t)pp->nr_strs++;
}

static bool map_eq(const struct pmap *a, const struct pmap *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff && a->dso == b->dso;
}

static uint64_t map_hash(const struct pmap *m)
{
	return amb_hash_u64(m->start ^ amb_hash_u64(m->pgoff ^ (uintptr_t)m->dso));
}

/* Mapping ids are indices + 1 into pp->maps; the table is keyed by index. */
struct map_lookup {
	const struct pprof *pp;
	struct pmap m;
};

static bool map_idx_eq(uint64_t stored, const void *key)
{
	const struct map_lookup *k = key;

	return map_eq(&k->pp->maps[stored], &k->m);
}

static uint64_t mapping_of(struct pprof *pp, const struct ana_xloc *l)
{
	struct map_lookup k = { pp, { 0 } };
	uint64_t h;
	void *v;

	if (l->kernel) {
		pp->kmin = pp->kmap ? AMB_MIN(pp->kmin, l->addr) : l->addr;
		pp->kmax = pp->kmap ? AMB_MAX(pp->kmax, l->addr) : l->addr;
		if (pp->kmap)
			return pp->kmap;
	} else if (!l->map.dso) {
		return 0;
	} else {
		k.m.start = l->map.start;
		k.m.end = l->map.end;
		k.m.pgoff = l->map.pgoff;
		k.m.dso = l->map.dso;
		h = map_hash(&k.m);
		v = amb_hashmap_find(&pp->maps_by_key, h, map_idx_eq, &k);
		if (v)
			return (uintptr_t)v;
	}
	if (amb_ensure_cap((void **)&pp->maps, &pp->cap_maps, sizeof(*pp->maps), pp->nr_maps + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	k.m.id = pp->nr_maps + 1;
	pp->maps[pp->nr_maps] = k.m;
	if (l->kernel) {
		pp->kmap = k.m.id;
	} else if (amb_hashmap_add(&pp->maps_by_key, map_hash(&k.m), pp->nr_maps,
				   (void *)(uintptr_t)k.m.id)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->nr_maps++;
	return k.m.id;
}

struct loc_key {
	const struct pprof *pp;
	uint64_t mapping_id, addr;
};

static bool loc_eq(uint64_t stored, const void *key)
{
	const struct loc_key *k = key;
	const struct ploc *l = &k->pp->locs[stored];

	return l->mapping_id == k->mapping_id && l->addr == k->addr;
}

static uint64_t location_of(struct pprof *pp, const struct ana_xstack *st, const struct ana_xloc *l)
{
	struct loc_key k = { pp, mapping_of(pp, l), l->addr };
	uint64_t h = amb_hash_u64(k.addr ^ amb_hash_u64(k.mapping_id));
	struct ploc *nl;
	void *v;

	if (pp->err)
		return 0;
	v = amb_hashmap_find(&pp->locs_by_key, h, loc_eq, &k);
	if (v)
		return (uintptr_t)v;
	if (amb_ensure_cap((void **)&pp->locs, &pp->cap_locs, sizeof(*pp->locs), pp->nr_locs + 1) ||
	    amb_ensure_cap((void **)&pp->lines, &pp->cap_lines, sizeof(*pp->lines),
			   pp->nr_lines + l->nr_lines)) {
		pp->err = -ENOMEM;
		return 0;
	}
	nl = &pp->locs[pp->nr_locs];
	nl->id = pp->nr_locs + 1;
	nl->mapping_id = k.mapping_id;
	nl->addr = l->addr;
	nl->first_line = pp->nr_lines;
	nl->nr_lines = l->nr_lines;
	for (unsigned i = 0; i < l->nr_lines; i++) {
		const struct ana_xline *xl = &st->lines[l->first_line + i];

		pp->lines[pp->nr_lines++] = (struct pline){ xl->fn->id, xl->line };
	}
	if (k.mapping_id) {
		struct pmap *m = &pp->maps[k.mapping_id - 1];

		m->has_functions |= l->symbolized;
		m->has_lines |= l->nr_lines && st->lines[l->first_line].line > 0;
		m->has_inline |= l->nr_lines > 1;
	}
	if (amb_hashmap_add(&pp->locs_by_key, h, pp->nr_locs, (void *)(uintptr_t)nl->id)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->nr_locs++;
	return nl->id;
}

struct sample_key {
	const struct pprof *pp;
	const uint64_t *locs;
	unsigned nr_locs;
	uint32_t pid, tid, cpu;
	const char *comm;
};

static bool sample_eq(uint64_t stored, const void *key)
{
	const struct sample_key *k = key;
	const struct psample *s = &k->pp->samples[stored];

	return s->nr_locs == k->nr_locs && s->pid == k->pid && s->tid == k->tid &&
	       s->cpu == k->cpu && s->comm == k->comm &&
	       !memcmp(k->pp->sample_locs + s->first_loc, k->locs, k->nr_locs * sizeof(*k->locs));
}

/* The column of event @e's periods, or -1. */
static long event_column(const struct pprof *pp, const struct ana_event *e)
{
	struct ana_session *ses = ana_pipeline_session(pp->p);

	if (!e)
		return -1;
	if (e->index < pp->nev && ana_session_event(ses, e->index) == e)
		return (long)e->index;
	if (pp->o->offcpu && ana_offcpu_event(pp->o->offcpu, e->index) == e)
		return (long)(pp->nev + e->index);
	return -1;
}

/* The event of column @c, NULL for the off-CPU total. */
static const struct ana_event *column_event(const struct pprof *pp, size_t c)
{
	if (c < pp->nev)
		return ana_session_event(ana_pipeline_session(pp->p), c);
	return pp->o->offcpu ? ana_offcpu_event(pp->o->offcpu, c - pp->nev) : NULL;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct pprof *pp = ctx;
	const struct ana_xstack *st = ana_xctx_walk(pp->x, t, s);
	struct sample_key k = { pp, NULL, 0, s->pid, s->tid, UINT32_MAX, NULL };
	struct psample *ps;
	long col;
	uint64_t h;
	void *v;

	if (!st)
		return -ENOMEM;
	if (amb_ensure_cap((void **)&pp->cur_locs, &pp->cap_cur, sizeof(*pp->cur_locs), st->nr_locs + 1))
		return -ENOMEM;
	for (unsigned i = 0; i < st->nr_locs; i++)
		pp->cur_locs[i] = location_of(pp, st, &st->locs[i]);
	if (pp->err)
		return pp->err;
	k.locs = pp->cur_locs;
	k.nr_locs = st->nr_locs;
	if (s->evt && (s->evt->attr.sample_type & PERF_SAMPLE_CPU))
		k.cpu = s->cpu;
	k.comm = ana_intern(ana_xctx_strings(pp->x), ana_thread_comm(t));
	if (!k.comm)
		return -ENOMEM;
	h = XXH3_64bits(k.locs, k.nr_locs * sizeof(*k.locs)) ^
	    amb_hash_u64(((uint64_t)k.pid << 32 | k.tid) ^ amb_hash_u64(k.cpu ^ (uintptr_t)k.comm));
	v = amb_hashmap_find(&pp->samples_by_key, h, sample_eq, &k);
	if (v) {
		ps = &pp->samples[(uintptr_t)v - 1];
	} else {
		if (amb_ensure_cap((void **)&pp->samples, &pp->cap_samples, sizeof(*pp->samples),
				   pp->nr_samples + 1) ||
		    amb_ensure_cap((void **)&pp->sample_locs, &pp->cap_sample_locs,
				   sizeof(*pp->sample_locs), pp->nr_sample_locs + k.nr_locs))
			return -ENOMEM;
		ps = &pp->samples[pp->nr_samples];
		memset(ps, 0, sizeof(*ps));
		ps->values = calloc(pp->nr_values, sizeof(*ps->values));
		if (!ps->values)
			return -ENOMEM;
		ps->first_loc = pp->nr_sample_locs;
		ps->nr_locs = k.nr_locs;
		memcpy(pp->sample_locs + pp->nr_sample_locs, k.locs, k.nr_locs * sizeof(*k.locs));
		pp->nr_sample_locs += k.nr_locs;
		ps->pid = k.pid;
		ps->tid = k.tid;
		ps->cpu = k.cpu;
		ps->comm = k.comm;
		if (amb_hashmap_add(&pp->samples_by_key, h, pp->nr_samples,
				    (void *)(uintptr_t)(pp->nr_samples + 1))) {
			free(ps->values);
			return -ENOMEM;
		}
		pp->nr_samples++;
	}
	ps->values[0]++;
	col = event_column(pp, s->evt);
	if (col >= 0) {
		ps->values[1 + col] += (int64_t)s->period;
		pp->event_samples[col]++;
		if (pp->o->offcpu) {
			/* Every sample of an off-CPU export weighs nanoseconds. */
			ps->values[pp->nr_values - 1] += (int64_t)s->period;
			pp->event_samples[pp->nr_values - 2]++;
		}
	}
	if (!pp->first_time || s->time < pp->first_time)
		pp->first_time = s->time;
	if (s->time > pp->last_time)
		pp->last_time = s->time;
	return 0;
}

/* ---- encoding ------------------------------------------------------------------ */

/* protobuf-c output into a gzip stream on a FILE. */
struct gz_out {
	ProtobufCBuffer base;
	z_stream z;
	FILE *f;
	unsigned char buf[1 << 16];
	int err;
};

static int gz_drain(struct gz_out *g, int flush)
{
	do {
		int r;

		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		r = deflate(&g->z, flush);
		if (r == Z_STREAM_ERROR)
			return -EIO;
		if (fwrite(g->buf, 1, sizeof(g->buf) - g->z.avail_out, g->f) !=
		    sizeof(g->buf) - g->z.avail_out)
			return -errno ? -errno : -EIO;
	} while (g->z.avail_out == 0);
	return 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_out *g = (struct gz_out *)b;

	while (len && !g->err) {
		uInt n = (uInt)AMB_MIN(len, (size_t)1 << 30);

		g->z.next_in = (Bytef *)(uintptr_t)data;
		g->z.avail_in = n;
		g->err = gz_drain(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

/* The (type, unit) of column @c's periods. */
static void value_type(struct pprof *pp, size_t c, AnaPprof__ValueType *vt)
{
	const struct ana_event *e = column_event(pp, c);
	bool ns = !e || ana_export_weight_is_ns(pp->o, e);
	char name[32];

	if (!e) {
		vt->type = str_index(pp, ana_offcpu_mode(pp->o->offcpu) == ANA_OFFCPU_WALL ?
					 "wall" : "off-cpu");
	} else if (c >= pp->nev) {
		snprintf(name, sizeof(name), "off-cpu-%c", ana_sched_state_letter(e->index));
		vt->type = str_index(pp, name);
	} else if (ns && e->attr.config == PERF_COUNT_SW_CPU_CLOCK) {
		vt->type = str_index(pp, "cpu");
	} else {
		vt->type = str_index(pp, e->name);
	}
	vt->unit = str_index(pp, ns ? "nanoseconds" : "count");
}

static int encode(struct pprof *pp, FILE *out, const struct ana_export_opts *o)
{
	AnaPprof__Profile prof = ANA_PPROF__PROFILE__INIT;
	struct ana_session *ses = ana_pipeline_session(pp->p);
	AnaPprof__ValueType *vts = NULL, **vtp = NULL;
	AnaPprof__ValueType period_type = ANA_PPROF__VALUE_TYPE__INIT;
	AnaPprof__Sample *smp = NULL, **smpp = NULL;
	AnaPprof__Label *labels = NULL, **labelp = NULL;
	AnaPprof__Mapping *maps = NULL, **mapp = NULL;
	AnaPprof__Location *locs = NULL, **locp = NULL;
	AnaPprof__Line *lines = NULL, **linep = NULL;
	AnaPprof__Function *funcs = NULL, **funcp = NULL;
	size_t *cols = NULL, ncols = 0, nfuncs = ana_xctx_func_count(pp->x), k;
	int64_t *vals = NULL, comment;
	struct gz_out *g = NULL;
	int64_t pref, rref;
	char text[512];
	int err = -ENOMEM;

	str_index(pp, "");
	/* Value 0, samples; then the off-CPU total, the default where there
	 * is one; then the columns that have samples. */
	cols = calloc(pp->nr_values, sizeof(*cols));
	if (!cols)
		goto out;
	cols[ncols++] = 0;
	if (pp->o->offcpu)
		cols[ncols++] = pp->nr_values - 1;
	for (size_t i = 0; i + 1 < pp->nr_values - (pp->o->offcpu ? 1 : 0); i++)
		if (pp->event_samples[i])
			cols[ncols++] = i + 1;
	vts = calloc(ncols, sizeof(*vts));
	vtp = calloc(ncols, sizeof(*vtp));
	smp = calloc(pp->nr_samples + 1, sizeof(*smp));
	smpp = calloc(pp->nr_samples + 1, sizeof(*smpp));
	labels = calloc(4 * pp->nr_samples + 1, sizeof(*labels));
	labelp = calloc(4 * pp->nr_samples + 1, sizeof(*labelp));
	vals = calloc(ncols * pp->nr_samples + 1, sizeof(*vals));
	maps = calloc(pp->nr_maps + 1, sizeof(*maps));
	mapp = calloc(pp->nr_maps + 1, sizeof(*mapp));
	locs = calloc(pp->nr_locs + 1, sizeof(*locs));
	locp = calloc(pp->nr_locs + 1, sizeof(*locp));
	lines = calloc(pp->nr_lines + 1, sizeof(*lines));
	linep = calloc(pp->nr_lines + 1, sizeof(*linep));
	funcs = calloc(nfuncs + 1, sizeof(*funcs));
	funcp = calloc(nfuncs + 1, sizeof(*funcp));
	g = calloc(1, sizeof(*g));
	if (!vts || !vtp || !smp || !smpp || !labels || !labelp || !vals || !maps ||
	    !mapp || !locs || !locp || !lines || !linep || !funcs || !funcp || !g)
		goto out;

	for (size_t i = 0; i < ncols; i++) {
		ana_pprof__value_type__init(&vts[i]);
		if (cols[i]) {
			value_type(pp, cols[i] - 1, &vts[i]);
		} else {
			vts[i].type = str_index(pp, "samples");
			vts[i].unit = str_index(pp, "count");
		}
		vtp[i] = &vts[i];
	}
	prof.n_sample_type = ncols;
	prof.sample_type = vtp;
	if (ncols > 1) {
		size_t ev = cols[1] - 1;
		uint64_t total = 0;

		period_type = vts[1];
		prof.period_type = &period_type;
		prof.default_sample_type = vts[1].type;
		for (size_t i = 0; i < pp->nr_samples; i++)
			total += (uint64_t)pp->samples[i].values[cols[1]];
		prof.period = pp->event_samples[ev] ? (int64_t)(total / pp->event_samples[ev]) : 0;
	}

	for (size_t i = 0, li = 0, lv = 0; i < pp->nr_samples; i++) {
		const struct psample *ps = &pp->samples[i];
		AnaPprof__Sample *s = &smp[i];
		size_t nl = 0;

		ana_pprof__sample__init(s);
		s->n_location_id = ps->nr_locs;
		s->location_id = pp->sample_locs + ps->first_loc;
		for (size_t c = 0; c < ncols; c++)
			vals[lv + c] = ps->values[cols[c]];
		s->n_value = ncols;
		s->value = vals + lv;
		lv += ncols;
		s->label = labelp + li;
		for (int j = 0; j < 4; j++) {
			AnaPprof__Label *l = &labels[li + nl];

			ana_pprof__label__init(l);
			switch (j) {
			case 0: l->key = str_index(pp, "pid"); l->num = ps->pid; break;
			case 1: l->key = str_index(pp, "tid"); l->num = ps->tid; break;
			case 2: l->key = str_index(pp, "comm"); l->str = str_index(pp, ps->comm); break;
			case 3:
				if (ps->cpu == UINT32_MAX)
					continue;
				l->key = str_index(pp, "cpu");
				l->num = ps->cpu;
				break;
			}
			labelp[li + nl] = l;
			nl++;
		}
		s->n_label = nl;
		li += nl;
		smpp[i] = s;
	}
	prof.n_sample = pp->nr_samples;
	prof.sample = smpp;

	/* User mappings first (mapping[0] is taken as the main binary), the kernel last. */
	k = 0;
	for (int kernel = 0; kernel < 2; kernel++) {
		for (size_t i = 0; i < pp->nr_maps; i++) {
			const struct pmap *pm = &pp->maps[i];
			AnaPprof__Mapping *m = &maps[k];
			char hex[2 * ANA_BUILD_ID_MAX + 1] = "";

			if ((pm->id == pp->kmap) != kernel)
				continue;
			ana_pprof__mapping__init(m);
			m->id = pm->id;
			if (kernel) {
				m->memory_start = pp->kmin;
				m->memory_limit = pp->kmax + 1;
				m->filename = str_index(pp, "[kernel.kallsyms]");
				for (size_t b = 0; b < ana_session_buildid_count(ses); b++) {
					const struct ana_buildid *bid = ana_session_buildid(ses, b);

					if (bid->kind == AMB_DSO_KERNEL) {
						for (unsigned j = 0; j < bid->build_id_len; j++)
							snprintf(hex + 2 * j, 3, "%02x", bid->build_id[j]);
						break;
					}
				}
			} else {
				m->memory_start = pm->start;
				m->memory_limit = pm->end;
				m->file_offset = pm->pgoff;
				m->filename = str_index(pp, pm->dso->path);
				ana_dso_build_id_hex(pm->dso, hex);
			}
			m->build_id = str_index(pp, hex);
			m->has_functions = pm->has_functions;
			m->has_filenames = pm->has_lines;
			m->has_line_numbers = pm->has_lines;
			m->has_inline_frames = pm->has_inline;
			mapp[k++] = m;
		}
	}
	prof.n_mapping = k;
	prof.mapping = mapp;

	for (size_t i = 0; i < pp->nr_locs; i++) {
		const struct ploc *pl = &pp->locs[i];
		AnaPprof__Location *l = &locs[i];

		ana_pprof__location__init(l);
		l->id = pl->id;
		l->mapping_id = pl->mapping_id;
		l->address = pl->addr;
		l->n_line = pl->nr_lines;
		l->line = linep + pl->first_line;
		for (unsigned j = 0; j < pl->nr_lines; j++) {
			AnaPprof__Line *ln = &lines[pl->first_line + j];

			ana_pprof__line__init(ln);
			ln->function_id = pp->lines[pl->first_line + j].func;
			ln->line = pp->lines[pl->first_line + j].line;
			linep[pl->first_line + j] = ln;
		}
		locp[i] = l;
	}
	prof.n_location = pp->nr_locs;
	prof.location = locp;

	for (uint32_t id = 1; id <= nfuncs; id++) {
		const struct ana_xfunc *f = ana_xctx_func(pp->x, id);
		AnaPprof__Function *fn = &funcs[id - 1];

		ana_pprof__function__init(fn);
		fn->id = id;
		fn->name = str_index(pp, f->name);
		fn->system_name = str_index(pp, f->system_name);
		fn->filename = str_index(pp, f->file ? f->file : f->dso);
		fn->start_line = f->start_line;
		funcp[id - 1] = fn;
	}
	prof.n_function = nfuncs;
	prof.function = funcp;

	if (!ana_session_clock_ref(ses, &pref, &rref))
		prof.time_nanos = (int64_t)pp->first_time + (rref - pref);
	else
		prof.time_nanos = (int64_t)amb_reader_header(ana_session_reader(ses))->created_ns;
	prof.duration_nanos = (int64_t)(pp->last_time - pp->first_time);
	snprintf(text, sizeof(text), "amber-analyze %s export of %s", AMB_VERSION,
		 o && o->name ? o->name : "a recording");
	comment = str_index(pp, text);
	prof.n_comment = 1;
	prof.comment = &comment;
	prof.drop_frames = 0;      /* "": nothing dropped */
	if (pp->err) {
		err = pp->err;
		goto out;
	}
	prof.n_string_table = pp->nr_strs;
	prof.string_table = (char **)pp->strs;

	g->base.append = gz_append;
	g->f = out;
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	ana_pprof__profile__pack_to_buffer(&prof, &g->base);
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	err = g->err ? g->err : gz_drain(g, Z_FINISH);
	deflateEnd(&g->z);
out:
	free(cols);
	free(vts);
	free(vtp);
	free(smp);
	free(smpp);
	free(labels);
	free(labelp);
	free(vals);
	free(maps);
	free(mapp);
	free(locs);
	free(locp);
	free(lines);
	free(linep);
	free(funcs);
	free(funcp);
	free(g);
	return err;
}

int ana_export_pprof(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *o)
{
	static const struct ana_export_opts none;
	struct pprof pp = { .p = p, .o = o ? o : &none };
	int err = -ENOMEM;

	pp.nev = ana_session_event_count(ana_pipeline_session(p));
	pp.nr_values = 1 + pp.nev + (pp.o->offcpu ? ANA_SCHED_NR_STATES + 1 : 0);
	pp.x = ana_xctx_new(p, pp.o->inline_frames || !o);
	pp.event_samples = calloc(pp.nr_values, sizeof(*pp.event_samples));
	if (pp.x && pp.event_samples) {
		err = ana_export_run(p, pp.o, on_sample, NULL, &pp);
		if (!err)
			err = encode(&pp, out, o);
	}
	for (size_t i = 0; i < pp.nr_samples; i++)
		free(pp.samples[i].values);
	free(pp.samples);
	free(pp.sample_locs);
	free(pp.cur_locs);
	free(pp.event_samples);
	free(pp.locs);
	free(pp.lines);
	free(pp.maps);
	free(pp.strs);
	amb_hashmap_free(&pp.str_idx);
	amb_hashmap_free(&pp.maps_by_key);
	amb_hashmap_free(&pp.locs_by_key);
	amb_hashmap_free(&pp.samples_by_key);
	ana_xctx_free(pp.x);
	return err;
}
